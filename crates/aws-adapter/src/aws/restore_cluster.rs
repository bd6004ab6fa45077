//! `runway restore`'s Aurora calls: a cluster's restorable window (`DescribeDBClusters`:
//! `EarliestRestorableTime`, `LatestRestorableTime`), a point-in-time copy beside it
//! (`RestoreDBClusterToPointInTime`, in the live cluster's subnet group and security groups) and
//! its writer (`CreateDBInstance`: a restored cluster has no instance), what a cluster is now
//! (status, endpoint, deletion protection, tags), and for a switch or a finish a rename and a
//! deletion (a drill's copy without a snapshot, `--finish`'s old cluster with one); the
//! protection, the proxy's target and a tag are `switch.rs`'s calls, given the kind. Each is
//! safe to repeat: what is done already answers `false`.

use aws_sdk_rds::primitives::{DateTime, DateTimeFormat};
use aws_sdk_rds::types::Tag;

use super::{AwsClients, RemoteError};

/// What RDS says of a cluster's point-in-time recovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterWindow {
    /// `EarliestRestorableTime`, `YYYY-MM-DDTHH:MM:SSZ`; `None` without backups.
    pub earliest: Option<String>,
    /// `LatestRestorableTime`, same form.
    pub latest: Option<String>,
    /// `BackupRetentionPeriod`, days.
    pub retention_days: u32,
}

/// What a restore, a switch or a finish needs to know of one cluster.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterFacts {
    /// `Status` (`creating`, `available`, `renaming`, `deleting`, ...).
    pub status: String,
    /// `Endpoint` (the writer's), once there is one.
    pub endpoint: Option<String>,
    /// `DeletionProtection`.
    pub protected: bool,
    /// Its tags (`TagList`).
    pub tags: Vec<(String, String)>,
}

/// What a restored cluster is made with, from the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterCopyRequest<'a> {
    /// The live cluster.
    pub source: &'a str,
    /// The copy's identifier.
    pub copy: &'a str,
    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub time: &'a str,
    /// Its tags.
    pub tags: &'a [(String, String)],
}

fn seconds(t: &DateTime) -> Option<String> {
    DateTime::from_secs(t.secs()).fmt(DateTimeFormat::DateTime).ok()
}

fn rds_tags(tags: &[(String, String)]) -> Vec<Tag> {
    tags.iter().map(|(k, v)| Tag::builder().key(k).value(v).build()).collect()
}

impl AwsClients {
    pub(super) async fn describe_cluster(
        &self,
        identifier: &str,
    ) -> Result<Option<aws_sdk_rds::types::DbCluster>, RemoteError> {
        let sent = self.rds.describe_db_clusters().db_cluster_identifier(identifier).send().await;
        match sent {
            Ok(a) => Ok(a.db_clusters().first().cloned()),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_db_cluster_not_found_fault()) => Ok(None),
            Err(e) => Err(RemoteError::from_sdk("DescribeDBClusters", e)),
        }
    }

    /// The cluster's point-in-time window as RDS tells it; `None` when there is no such cluster.
    pub async fn cluster_window(&self, identifier: &str) -> Result<Option<ClusterWindow>, RemoteError> {
        let Some(c) = self.describe_cluster(identifier).await? else { return Ok(None) };
        Ok(Some(ClusterWindow {
            earliest: c.earliest_restorable_time().and_then(seconds),
            latest: c.latest_restorable_time().and_then(seconds),
            retention_days: u32::try_from(c.backup_retention_period().unwrap_or(0)).unwrap_or(0),
        }))
    }

    /// The cluster's status, endpoint, protection and tags; `None` when it does not exist.
    pub async fn cluster_facts(&self, identifier: &str) -> Result<Option<ClusterFacts>, RemoteError> {
        Ok(self.describe_cluster(identifier).await?.map(|c| ClusterFacts {
            status: c.status().unwrap_or_default().to_owned(),
            endpoint: c.endpoint().map(str::to_owned),
            protected: c.deletion_protection().unwrap_or(false),
            tags: c
                .tag_list()
                .iter()
                .filter_map(|t| Some((t.key()?.to_owned(), t.value().unwrap_or_default().to_owned())))
                .collect(),
        }))
    }

    /// Starts the copy; `false` when a cluster of its name exists already (a run again).
    pub async fn restore_cluster_copy(&self, r: &ClusterCopyRequest<'_>) -> Result<bool, RemoteError> {
        let operation = "RestoreDBClusterToPointInTime";
        if self.describe_cluster(r.copy).await?.is_some() {
            return Ok(false);
        }
        let time = DateTime::from_str(r.time, DateTimeFormat::DateTime).map_err(|e| RemoteError {
            operation,
            code: None,
            message: Some(format!("`{}` is not a time: {e}", r.time)),
            remedy: None,
            cause: None,
        })?;
        let source = self.describe_cluster(r.source).await?;
        let subnet_group = source.as_ref().and_then(|c| c.db_subnet_group()).map(str::to_owned);
        let groups: Vec<String> = source
            .as_ref()
            .map(|c| {
                c.vpc_security_groups()
                    .iter()
                    .filter_map(|g| g.vpc_security_group_id())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let sent = self
            .rds
            .restore_db_cluster_to_point_in_time()
            .source_db_cluster_identifier(r.source)
            .db_cluster_identifier(r.copy)
            .restore_to_time(time)
            .set_db_subnet_group_name(subnet_group)
            .set_vpc_security_group_ids((!groups.is_empty()).then_some(groups))
            .deletion_protection(false)
            .set_tags(Some(rds_tags(r.tags)))
            .send()
            .await;
        match sent {
            Ok(_) => Ok(true),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_db_cluster_already_exists_fault()) => {
                Ok(false)
            }
            Err(e) => Err(RemoteError::from_sdk(operation, e)),
        }
    }

    /// Adds the copy's writer, private, of `class`; `false` when an instance of its name exists.
    pub async fn create_cluster_writer(
        &self,
        cluster: &str,
        writer: &str,
        class: &str,
        tags: &[(String, String)],
    ) -> Result<bool, RemoteError> {
        if self.describe_instance(writer).await?.is_some() {
            return Ok(false);
        }
        let sent = self
            .rds
            .create_db_instance()
            .db_instance_identifier(writer)
            .db_cluster_identifier(cluster)
            .engine("aurora-postgresql")
            .db_instance_class(class)
            .publicly_accessible(false)
            .set_tags(Some(rds_tags(tags)))
            .send()
            .await;
        match sent {
            Ok(_) => Ok(true),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_db_instance_already_exists_fault()) => {
                Ok(false)
            }
            Err(e) => Err(RemoteError::from_sdk("CreateDBInstance", e)),
        }
    }

    /// Renames the cluster `from` to `to`, at once; `false` when `from` does not exist.
    pub async fn rename_cluster(&self, from: &str, to: &str) -> Result<bool, RemoteError> {
        let sent = self
            .rds
            .modify_db_cluster()
            .db_cluster_identifier(from)
            .new_db_cluster_identifier(to)
            .apply_immediately(true)
            .send()
            .await;
        match sent {
            Ok(_) => Ok(true),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_db_cluster_not_found_fault()) => Ok(false),
            Err(e) => Err(RemoteError::from_sdk("ModifyDBCluster", e)),
        }
    }

    /// Deletes an instance of a cluster (a cluster's instance keeps no snapshot of its own: the
    /// cluster's holds the data); `false` when it is gone already.
    pub async fn delete_cluster_instance(&self, identifier: &str) -> Result<bool, RemoteError> {
        let sent = self.rds.delete_db_instance().db_instance_identifier(identifier).send().await;
        match sent {
            Ok(_) => Ok(true),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_db_instance_not_found_fault()) => Ok(false),
            Err(e) => Err(RemoteError::from_sdk("DeleteDBInstance", e)),
        }
    }

    /// Deletes the cluster: with the final snapshot `snapshot`, or none (a drill's copy);
    /// `false` when it is gone.
    pub async fn delete_cluster(
        &self,
        identifier: &str,
        snapshot: Option<&str>,
    ) -> Result<bool, RemoteError> {
        let sent = self
            .rds
            .delete_db_cluster()
            .db_cluster_identifier(identifier)
            .skip_final_snapshot(snapshot.is_none())
            .set_final_db_snapshot_identifier(snapshot.map(str::to_owned))
            .send()
            .await;
        match sent {
            Ok(_) => Ok(true),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_db_cluster_not_found_fault()) => Ok(false),
            Err(e) => Err(RemoteError::from_sdk("DeleteDBCluster", e)),
        }
    }
}
