//! `runway restore`'s RDS calls: the restorable window of an instance (`DescribeDBInstances`:
//! `LatestRestorableTime`, `InstanceCreateTime`, `BackupRetentionPeriod`), a point-in-time copy
//! beside it (`RestoreDBInstanceToPointInTime`, its name and size from the plan, its subnet
//! group and security groups the live instance's; one that exists
//! already is the copy a stopped run began), the copy's state and endpoint, and a drill's copy
//! deleted (`DeleteDBInstance` without a final snapshot). Nothing here touches the live
//! instance.

use aws_sdk_rds::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_rds::primitives::{DateTime, DateTimeFormat};
use aws_sdk_rds::types::Tag;

use super::{AwsClients, RemoteError};

/// What RDS says of an instance's point-in-time recovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreWindow {
    /// `LatestRestorableTime`, `YYYY-MM-DDTHH:MM:SSZ`.
    pub latest: Option<String>,
    /// `InstanceCreateTime`, same form.
    pub created: Option<String>,
    /// The earliest restorable time: `retention_days` before `latest`, not before `created`
    /// (RDS keeps the automated backups of those days); `None` without backups.
    pub earliest: Option<String>,
    /// Days of automated backups kept (`BackupRetentionPeriod`; 0: no point-in-time recovery).
    pub retention_days: u32,
}

/// Which kind of RDS identifier a call names: a DB instance or an Aurora DB cluster. The calls
/// that do the same to either take it rather than come in two copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DbKind {
    /// A DB instance (`DBInstanceIdentifier`).
    Instance,
    /// An Aurora DB cluster (`DBClusterIdentifier`).
    Cluster,
}

/// A DB instance's state and endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstanceState {
    /// `DBInstanceStatus` (`creating`, `available`, ...).
    pub status: String,
    /// `Endpoint.Address`, once there is one.
    pub endpoint: Option<String>,
}

/// What a restored copy is made with, from the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyRequest<'a> {
    /// The live instance.
    pub source: &'a str,
    /// The copy's identifier.
    pub copy: &'a str,
    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub time: &'a str,
    /// Its class.
    pub instance_class: &'a str,
    /// Its tags.
    pub tags: &'a [(String, String)],
}

/// A change's answer: made (`true`), its identifier not found (`false`: `not_found` says so of
/// the service's error), or the call's error.
pub(super) fn changed<T, E, R>(
    operation: &'static str,
    sent: Result<T, SdkError<E, R>>,
    not_found: fn(&E) -> bool,
) -> Result<bool, RemoteError>
where
    E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
    R: std::fmt::Debug + 'static,
{
    match sent {
        Ok(_) => Ok(true),
        Err(e) if e.as_service_error().is_some_and(not_found) => Ok(false),
        Err(e) => Err(RemoteError::from_sdk(operation, e)),
    }
}

/// `DateTime` as `YYYY-MM-DDTHH:MM:SSZ` (seconds kept, fractions dropped).
fn utc_seconds(t: &DateTime) -> Option<String> {
    let text = DateTime::from_secs(t.secs()).fmt(DateTimeFormat::DateTime).ok()?;
    Some(text)
}

impl AwsClients {
    /// The instance's point-in-time window as RDS tells it; `None` when there is no such
    /// instance.
    pub async fn restore_window(&self, identifier: &str) -> Result<Option<RestoreWindow>, RemoteError> {
        let Some(d) = self.describe_instance(identifier).await? else { return Ok(None) };
        let retention_days = u32::try_from(d.backup_retention_period().unwrap_or(0)).unwrap_or(0);
        let earliest = match (d.latest_restorable_time(), d.instance_create_time()) {
            (Some(latest), created) if retention_days > 0 => {
                let from = latest.secs() - i64::from(retention_days) * 86_400;
                let from = created.map_or(from, |c| from.max(c.secs()));
                utc_seconds(&DateTime::from_secs(from))
            }
            _ => None,
        };
        Ok(Some(RestoreWindow {
            latest: d.latest_restorable_time().and_then(utc_seconds),
            created: d.instance_create_time().and_then(utc_seconds),
            earliest,
            retention_days,
        }))
    }

    /// Starts the copy; `false` when an instance of its name exists already (a run again).
    pub async fn restore_copy(&self, r: &CopyRequest<'_>) -> Result<bool, RemoteError> {
        let time = DateTime::from_str(r.time, DateTimeFormat::DateTime).map_err(|e| RemoteError {
            operation: "RestoreDBInstanceToPointInTime",
            code: None,
            message: Some(format!("`{}` is not a time: {e}", r.time)),
            remedy: None,
            cause: None,
        })?;
        // In the live instance's network: its subnet group and security groups.
        let source = self.describe_instance(r.source).await?;
        let subnet_group =
            source.as_ref().and_then(|d| d.db_subnet_group()).and_then(|g| g.db_subnet_group_name());
        let groups: Vec<String> = source
            .as_ref()
            .map(|d| {
                d.vpc_security_groups()
                    .iter()
                    .filter_map(|g| g.vpc_security_group_id())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let tags = r.tags.iter().map(|(k, v)| Tag::builder().key(k).value(v).build()).collect();
        let sent = self
            .rds
            .restore_db_instance_to_point_in_time()
            .source_db_instance_identifier(r.source)
            .target_db_instance_identifier(r.copy)
            .restore_time(time)
            .db_instance_class(r.instance_class)
            .set_db_subnet_group_name(subnet_group.map(str::to_owned))
            .set_vpc_security_group_ids((!groups.is_empty()).then_some(groups))
            .publicly_accessible(false)
            .deletion_protection(false)
            .copy_tags_to_snapshot(true)
            .set_tags(Some(tags))
            .send()
            .await;
        match sent {
            Ok(_) => Ok(true),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_db_instance_already_exists_fault()) => {
                Ok(false)
            }
            Err(e) => Err(RemoteError::from_sdk("RestoreDBInstanceToPointInTime", e)),
        }
    }

    /// The instance's state and endpoint; `None` when it does not exist.
    pub async fn instance_state(&self, identifier: &str) -> Result<Option<InstanceState>, RemoteError> {
        Ok(self.describe_instance(identifier).await?.map(|d| InstanceState {
            status: d.db_instance_status().unwrap_or_default().to_owned(),
            endpoint: d.endpoint().and_then(|e| e.address()).map(str::to_owned),
        }))
    }

    /// Deletes a copy without a final snapshot; `false` when it is gone already.
    pub async fn delete_copy(&self, identifier: &str) -> Result<bool, RemoteError> {
        let sent = self
            .rds
            .delete_db_instance()
            .db_instance_identifier(identifier)
            .skip_final_snapshot(true)
            .delete_automated_backups(true)
            .send()
            .await;
        match sent {
            Ok(_) => Ok(true),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_db_instance_not_found_fault()) => Ok(false),
            Err(e) => Err(RemoteError::from_sdk("DeleteDBInstance", e)),
        }
    }

    pub(super) async fn describe_instance(
        &self,
        identifier: &str,
    ) -> Result<Option<aws_sdk_rds::types::DbInstance>, RemoteError> {
        let sent = self.rds.describe_db_instances().db_instance_identifier(identifier).send().await;
        match sent {
            Ok(a) => Ok(a.db_instances().first().cloned()),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_db_instance_not_found_fault()) => Ok(None),
            Err(e) => Err(RemoteError::from_sdk("DescribeDBInstances", e)),
        }
    }
}
