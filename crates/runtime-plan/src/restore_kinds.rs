//! Which restore a resource gets: an RDS instance's point-in-time restore (`restore.rs`), an
//! Aurora cluster's (`restore_cluster.rs`) or a cache's restore from a snapshot
//! (`cache_restore.rs`). Pure: read from the plan's items.

use serde::Serialize;

use crate::plan::{ItemSpec, Plan};
use crate::restore::RestoreError;

/// How a resource is restored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RestoreKind {
    /// A postgres resource on RDS: its instance, to a point in time.
    Instance,
    /// A postgres resource on Aurora: its cluster, to a point in time, then a writer in it.
    Cluster,
    /// A cache: a replication group made from one of its snapshots.
    Cache,
}

/// Why a resource cannot be restored.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KindError {
    /// No resource of that name (the same refusal as [`RestoreError::UnknownResource`]).
    #[error(transparent)]
    Unknown(RestoreError),
    /// A resource of a kind that holds nothing to restore (a queue, a topic, a bucket).
    #[error(
        "`{resource}` is not a postgres or cache resource: `runway restore` restores databases (RDS or Aurora) and caches"
    )]
    NotRestorable {
        /// The name asked.
        resource: String,
    },
}

/// How `resource` of `plan` is restored.
pub fn restore_kind(plan: &Plan, resource: &str) -> Result<RestoreKind, KindError> {
    let r = plan.resources.iter().find(|r| r.name == resource).ok_or_else(|| {
        KindError::Unknown(RestoreError::UnknownResource {
            resource: resource.to_owned(),
            environment: plan.environment.to_string(),
        })
    })?;
    r.items
        .iter()
        .filter_map(|id| plan.item(id))
        .find_map(|i| {
            if let ItemSpec::RdsInstance(_) = &i.spec {
                Some(RestoreKind::Instance)
            } else if let ItemSpec::AuroraCluster(_) = &i.spec {
                Some(RestoreKind::Cluster)
            } else if let ItemSpec::CacheReplicationGroup(_) = &i.spec {
                Some(RestoreKind::Cache)
            } else {
                None
            }
        })
        .ok_or_else(|| KindError::NotRestorable { resource: resource.to_owned() })
}
