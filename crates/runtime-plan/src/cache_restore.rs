//! What `runway restore` does to a cache, decided before any call: the replication group made
//! from a snapshot of the live one (`<group>-restored`, or `-drill`), which snapshot (the one
//! named, or the latest taken at or before the time asked), and what a drill's copy cost. Pure:
//! the adapter lists the snapshots and restores; the CLI reads the clock.
//!
//! A cache has no point-in-time recovery: its restorable points are its snapshots (the daily
//! automatic ones the plan keeps `snapshotRetentionDays` of, and manual ones). No switch: a
//! replication group cannot be renamed, so a copy cannot take the live group's place as an
//! instance's copy does, and the program declares the live group's identifier (docs/operations.md,
//! "Caches", says what a move onto the copy takes).

use compact_str::CompactString;
use cost::{Catalogue, PriceStatus};
use runway_schema::Money;
use rust_decimal::Decimal;
use serde::Serialize;

use crate::plan::{ItemSpec, Plan};
use crate::restore::{RestoreError, names_beside};

/// ElastiCache bills each node by the hour, a partial hour as a whole one.
pub const BILLED_HOUR_SECONDS: u64 = 3_600;

/// The replication group a restore works on and the copy it makes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheTarget {
    /// The resource.
    pub resource: CompactString,
    /// The live replication group.
    pub source: CompactString,
    /// The copy's identifier: `<source>-drill` or `<source>-restored`.
    pub copy: CompactString,
    /// The copy's node type (the plan's).
    pub node_type: CompactString,
    /// Its nodes (the plan's; a primary and its replicas).
    pub nodes: u32,
    /// The engine version (the plan's).
    pub engine_version: CompactString,
    /// The SSM parameter holding the AUTH token: the copy gets the live group's, so that the
    /// readers' URL opens it too.
    pub auth_token_parameter: CompactString,
    /// The catalogue's price key of a node-hour.
    pub price_key: CompactString,
}

/// The cache restore target of `resource` in `plan`; `drill` names the copy for a drill.
pub fn cache_target(plan: &Plan, resource: &str, drill: bool) -> Result<CacheTarget, RestoreError> {
    let r =
        plan.resources.iter().find(|r| r.name == resource).ok_or_else(|| RestoreError::UnknownResource {
            resource: resource.to_owned(),
            environment: plan.environment.to_string(),
        })?;
    let (item, spec) = r
        .items
        .iter()
        .filter_map(|id| plan.item(id))
        .find_map(|i| {
            let ItemSpec::CacheReplicationGroup(spec) = &i.spec else { return None };
            Some((i, spec))
        })
        .ok_or_else(|| RestoreError::NotRds { resource: resource.to_owned() })?;
    let [restored, drilled, _] = names_beside_cache(&item.physical_name);
    Ok(CacheTarget {
        resource: r.name.clone(),
        source: item.physical_name.clone(),
        copy: if drill { drilled } else { restored },
        node_type: spec.size.node_type.as_str().into(),
        nodes: spec.size.nodes,
        engine_version: spec.engine_version.clone(),
        auth_token_parameter: spec.auth_token_parameter.clone(),
        price_key: format!("cache-node/{}", spec.size.node_type).into(),
    })
}

/// A replication group's id is at most 40 characters: `<source>-restored`, `-drill`, `-old`
/// with the source shortened, never the suffix. The deploy role is denied making or deleting
/// them (deploy-policy).
pub fn names_beside_cache(source: &str) -> [CompactString; 3] {
    names_beside(source).map(|n| {
        if n.len() <= 40 {
            return n;
        }
        let (head, suffix) = n.rsplit_once('-').unwrap_or((n.as_str(), ""));
        let room = 40 - suffix.len() - 1;
        let head: String = head.chars().take(room).collect();
        format!("{}-{suffix}", head.trim_end_matches('-')).into()
    })
}

/// One snapshot of the live group, as ElastiCache lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheSnapshot {
    /// `SnapshotName`.
    pub name: String,
    /// When it was taken (its first node's `SnapshotCreateTime`), `YYYY-MM-DDTHH:MM:SSZ`;
    /// `None` when ElastiCache does not say.
    pub created: Option<String>,
    /// `SnapshotStatus` (`creating`, `available`, ...).
    pub status: String,
    /// `SnapshotSource`: `automated` or `manual`.
    pub source: String,
}

/// Which snapshot to restore from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SnapshotChoice {
    /// The snapshot of that name (`--snapshot NAME`).
    Named(String),
    /// The latest available one taken at or before the time (`--to TIME`).
    AtOrBefore(String),
}

/// Why no snapshot fits.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotRefusal {
    /// No snapshot of that name of the group.
    #[error("{group} has no snapshot `{name}`")]
    NoSuchSnapshot {
        /// The group.
        group: CompactString,
        /// The name asked.
        name: String,
    },
    /// The snapshot is not `available` yet (or failed).
    #[error("snapshot `{name}` is {status}, not available")]
    NotAvailable {
        /// The snapshot.
        name: String,
        /// Its status.
        status: String,
    },
    /// No available snapshot taken at or before the time.
    #[error("{group} has no available snapshot taken at or before {time} (its snapshots are listed above)")]
    NoneBefore {
        /// The group.
        group: CompactString,
        /// The time asked.
        time: String,
    },
}

/// The snapshot `choice` picks among `snapshots` of `target.source`. A snapshot without a
/// creation time is picked only by its name.
pub fn pick_snapshot<'s>(
    target: &CacheTarget,
    snapshots: &'s [CacheSnapshot],
    choice: &SnapshotChoice,
) -> Result<&'s CacheSnapshot, SnapshotRefusal> {
    let available = |s: &&CacheSnapshot| s.status == "available";
    match choice {
        SnapshotChoice::Named(name) => {
            let s = snapshots.iter().find(|s| &s.name == name).ok_or_else(|| {
                SnapshotRefusal::NoSuchSnapshot { group: target.source.clone(), name: name.clone() }
            })?;
            if available(&s) {
                Ok(s)
            } else {
                Err(SnapshotRefusal::NotAvailable { name: s.name.clone(), status: s.status.clone() })
            }
        }
        SnapshotChoice::AtOrBefore(time) => snapshots
            .iter()
            .filter(available)
            .filter(|s| s.created.as_deref().is_some_and(|c| c <= time.as_str()))
            .max_by(|a, b| a.created.cmp(&b.created).then_with(|| a.name.cmp(&b.name)))
            .ok_or_else(|| SnapshotRefusal::NoneBefore { group: target.source.clone(), time: time.clone() }),
    }
}

/// What a drill's copy that lived `seconds` cost: its nodes' hourly price, each partial hour
/// billed as a whole one; `None` when the catalogue has no price for the node type.
pub fn cache_copy_cost(
    plan: &Plan,
    catalogue: &Catalogue,
    target: &CacheTarget,
    seconds: u64,
) -> Option<Money> {
    let price = match catalogue.price_table(&plan.region)?.get(target.price_key.as_str()).map(|e| &e.status) {
        Some(PriceStatus::Priced { price, .. }) => *price,
        Some(PriceStatus::Unpriced { .. }) | None => return None,
    };
    let hours = seconds.max(1).div_ceil(BILLED_HOUR_SECONDS);
    Some(price.times(Decimal::from(hours) * Decimal::from(target.nodes.max(1))))
}

/// The parameters that name the cache's endpoint and the services reading the resource's
/// parameters, for the steps of a move onto the copy the command prints.
pub fn cache_readers(plan: &Plan, resource: &str) -> (Vec<CompactString>, Vec<crate::plan::ServiceRestart>) {
    let owned: Vec<&crate::plan::SsmParameter> =
        plan.secrets.ssm_parameters.iter().filter(|p| p.owner == resource).collect();
    let endpoint = owned
        .iter()
        .filter(|p| p.variable.ends_with("_HOST") || p.variable.ends_with("_URL"))
        .map(|p| CompactString::from(&*p.name))
        .collect();
    let names: Vec<&str> = owned.iter().map(|p| &*p.name).collect();
    (endpoint, plan.services_reading(&names))
}

#[cfg(test)]
mod tests {
    use super::names_beside_cache;

    #[test]
    fn a_copy_of_a_cache_keeps_its_suffix_within_40_characters() {
        assert_eq!(names_beside_cache("acme-shop-dev-sessions")[0], "acme-shop-dev-sessions-restored");
        let long = "a".repeat(40);
        for name in names_beside_cache(&long) {
            assert!(name.len() <= 40, "{name}");
        }
        assert!(names_beside_cache(&long)[1].ends_with("-drill"));
    }
}
