//! `runway restore --switch` and `--finish`'s RDS calls: what an instance is now (status,
//! deletion protection, tags), the proxy's targets, a rename, deletion protection turned on or
//! off, a proxy target moved, a tag written (these three of an instance or a cluster: the
//! [`DbKind`] is a parameter), and the old instance deleted with a final
//! snapshot. Each is safe to repeat (what is done already answers `false`); which to call, and
//! when, is `runtime_plan::switch`'s decision.

use aws_sdk_rds::types::Tag;

use super::restore::changed;
use super::{AwsClients, DbKind, RemoteError};

/// What a switch needs to know of one instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceFacts {
    /// `DBInstanceStatus`.
    pub status: String,
    /// `DeletionProtection`.
    pub protected: bool,
    /// Its tags (`TagList`).
    pub tags: Vec<(String, String)>,
}

impl AwsClients {
    /// The instance's status, protection and tags; `None` when it does not exist.
    pub async fn instance_facts(&self, identifier: &str) -> Result<Option<InstanceFacts>, RemoteError> {
        Ok(self.describe_instance(identifier).await?.map(|d| InstanceFacts {
            status: d.db_instance_status().unwrap_or_default().to_owned(),
            protected: d.deletion_protection().unwrap_or(false),
            tags: d
                .tag_list()
                .iter()
                .filter_map(|t| Some((t.key()?.to_owned(), t.value().unwrap_or_default().to_owned())))
                .collect(),
        }))
    }

    /// The identifiers the proxy's `default` target group targets.
    pub async fn proxy_target_ids(&self, proxy: &str) -> Result<Vec<String>, RemoteError> {
        Ok(self.proxy_targets(proxy).await?.into_iter().map(|t| t.resource).collect())
    }

    /// Renames the instance `from` to `to`, at once; `false` when `from` does not exist.
    pub async fn rename_instance(&self, from: &str, to: &str) -> Result<bool, RemoteError> {
        let sent = self
            .rds
            .modify_db_instance()
            .db_instance_identifier(from)
            .new_db_instance_identifier(to)
            .apply_immediately(true)
            .send()
            .await;
        match sent {
            Ok(_) => Ok(true),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_db_instance_not_found_fault()) => Ok(false),
            Err(e) => Err(RemoteError::from_sdk("ModifyDBInstance", e)),
        }
    }

    /// Turns the instance's or the cluster's deletion protection on or off, at once.
    pub async fn set_deletion_protection(
        &self,
        kind: DbKind,
        identifier: &str,
        on: bool,
    ) -> Result<(), RemoteError> {
        let sent = match kind {
            DbKind::Instance => {
                let call = self.rds.modify_db_instance().db_instance_identifier(identifier);
                let sent = call.deletion_protection(on).apply_immediately(true).send().await;
                changed("ModifyDBInstance", sent, |_| false)
            }
            DbKind::Cluster => {
                let call = self.rds.modify_db_cluster().db_cluster_identifier(identifier);
                let sent = call.deletion_protection(on).apply_immediately(true).send().await;
                changed("ModifyDBCluster", sent, |_| false)
            }
        };
        sent.map(drop)
    }

    /// Registers (`register`) or deregisters the instance or the cluster as a target of the
    /// proxy's group.
    pub async fn move_proxy_target(
        &self,
        kind: DbKind,
        (proxy, group): (&str, &str),
        identifier: &str,
        register: bool,
    ) -> Result<(), RemoteError> {
        let named = Some(vec![identifier.to_owned()]);
        let (instances, clusters) = match kind {
            DbKind::Instance => (named, None),
            DbKind::Cluster => (None, named),
        };
        let sent = if register {
            let call = self.rds.register_db_proxy_targets().db_proxy_name(proxy).target_group_name(group);
            let call = call.set_db_instance_identifiers(instances).set_db_cluster_identifiers(clusters);
            changed("RegisterDBProxyTargets", call.send().await, |_| false)
        } else {
            let call = self.rds.deregister_db_proxy_targets().db_proxy_name(proxy).target_group_name(group);
            let call = call.set_db_instance_identifiers(instances).set_db_cluster_identifiers(clusters);
            changed("DeregisterDBProxyTargets", call.send().await, |_| false)
        };
        sent.map(drop)
    }

    /// Tags the instance or the cluster `key: value`; `false` when it does not exist.
    pub async fn tag_db(
        &self,
        kind: DbKind,
        identifier: &str,
        key: &str,
        value: &str,
    ) -> Result<bool, RemoteError> {
        let arn = match kind {
            DbKind::Instance => {
                self.describe_instance(identifier).await?.and_then(|d| d.db_instance_arn().map(str::to_owned))
            }
            DbKind::Cluster => {
                self.describe_cluster(identifier).await?.and_then(|c| c.db_cluster_arn().map(str::to_owned))
            }
        };
        let Some(arn) = arn else { return Ok(false) };
        self.rds
            .add_tags_to_resource()
            .resource_name(arn)
            .tags(Tag::builder().key(key).value(value).build())
            .send()
            .await
            .map(|_| true)
            .map_err(|e| RemoteError::from_sdk("AddTagsToResource", e))
    }

    /// Deletes the instance, leaving the final snapshot `snapshot`; `false` when it is gone.
    pub async fn delete_with_snapshot(&self, identifier: &str, snapshot: &str) -> Result<bool, RemoteError> {
        let sent = self
            .rds
            .delete_db_instance()
            .db_instance_identifier(identifier)
            .skip_final_snapshot(false)
            .final_db_snapshot_identifier(snapshot)
            .send()
            .await;
        match sent {
            Ok(_) => Ok(true),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_db_instance_not_found_fault()) => Ok(false),
            Err(e) => Err(RemoteError::from_sdk("DeleteDBInstance", e)),
        }
    }
}
