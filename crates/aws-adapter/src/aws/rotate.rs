//! `runway rotate`'s AWS calls: a database's master password or a cache's AUTH token changed in
//! place and waited for, and the ECS services restarted (a new deployment of the same task
//! definition) so that their tasks read their `secrets` again (`runway rotate`, `runway ssm
//! publish`).
//!
//! The steps' order and what to call them on are the plan's (`Plan::rotation`,
//! `Plan::services_reading`); these are the single calls and the waits. Values travel only as
//! [`SecretString`] and are never put in an error or a report.

use std::fmt;
use std::time::Duration;

use aws_sdk_elasticache::types::AuthTokenUpdateStrategyType;
use secrecy::{ExposeSecret, SecretString};
use serde::Serialize;

use super::{AwsClients, Chain, RemoteError};

/// What holds a credential, as AWS names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "id")]
pub enum CredentialHolder {
    /// An RDS DB instance identifier (its master password).
    RdsInstance(String),
    /// An Aurora DB cluster identifier (its master password).
    AuroraCluster(String),
    /// An ElastiCache replication group id (its AUTH token).
    CacheReplicationGroup(String),
}

impl fmt::Display for CredentialHolder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CredentialHolder::RdsInstance(id) => write!(f, "DB instance {id}"),
            CredentialHolder::AuroraCluster(id) => write!(f, "DB cluster {id}"),
            CredentialHolder::CacheReplicationGroup(id) => write!(f, "replication group {id}"),
        }
    }
}

/// How a cache's new AUTH token is applied (`AuthTokenUpdateStrategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum TokenStrategy {
    /// The new token is added; the old one stays valid too.
    Rotate,
    /// The new token becomes the only valid one.
    Set,
}

/// Where a holder's change stands, from one look.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HolderState {
    /// The status AWS reports (`available`, `resetting-master-credentials`, `modifying`).
    pub status: String,
    /// Whether a credential change is still pending (the master password or the AUTH token).
    pub credential_pending: bool,
}

impl HolderState {
    /// Settled: available, with no credential change pending.
    pub fn settled(&self) -> bool {
        self.status == "available" && !self.credential_pending
    }
}

/// A wait that did not end in a settled holder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[non_exhaustive]
pub enum WaitError {
    /// A look failed.
    #[error("{}", Chain(.0))]
    Remote(#[source] RemoteError),
    /// Still changing when the time allowed ran out.
    #[error(
        "{holder} did not settle within {}s (last seen: {}{}); AWS may still finish it: run the same command again",
        waited.as_secs(),
        last.status,
        if last.credential_pending { ", credential change pending" } else { "" }
    )]
    TimedOut {
        /// What was waited for.
        holder: CredentialHolder,
        /// How long.
        waited: Duration,
        /// The last look.
        last: HolderState,
    },
}

impl AwsClients {
    /// Sets a database's master password (`ModifyDBInstance` or `ModifyDBCluster`,
    /// `MasterUserPassword`, `ApplyImmediately`), or adds a cache's AUTH token
    /// (`ModifyReplicationGroup`, `AuthToken`, with `strategy`, `ApplyImmediately`). The change
    /// is asked for, not waited for: see [`AwsClients::wait_settled`].
    pub async fn set_credential(
        &self,
        holder: &CredentialHolder,
        value: &SecretString,
        strategy: TokenStrategy,
    ) -> Result<(), RemoteError> {
        match holder {
            CredentialHolder::RdsInstance(id) => self
                .rds
                .modify_db_instance()
                .db_instance_identifier(id)
                .master_user_password(value.expose_secret())
                .apply_immediately(true)
                .send()
                .await
                .map(drop)
                .map_err(|e| RemoteError::from_sdk("ModifyDBInstance", e)),
            CredentialHolder::AuroraCluster(id) => self
                .rds
                .modify_db_cluster()
                .db_cluster_identifier(id)
                .master_user_password(value.expose_secret())
                .apply_immediately(true)
                .send()
                .await
                .map(drop)
                .map_err(|e| RemoteError::from_sdk("ModifyDBCluster", e)),
            CredentialHolder::CacheReplicationGroup(id) => {
                let strategy = match strategy {
                    TokenStrategy::Rotate => AuthTokenUpdateStrategyType::Rotate,
                    TokenStrategy::Set => AuthTokenUpdateStrategyType::Set,
                };
                self.elasticache
                    .modify_replication_group()
                    .replication_group_id(id)
                    .auth_token(value.expose_secret())
                    .auth_token_update_strategy(strategy)
                    .apply_immediately(true)
                    .send()
                    .await
                    .map(drop)
                    .map_err(|e| RemoteError::from_sdk("ModifyReplicationGroup", e))
            }
        }
    }

    /// One look at a holder: its status and whether a credential change is pending.
    pub async fn holder_state(&self, holder: &CredentialHolder) -> Result<HolderState, RemoteError> {
        let state = |status: Option<&str>, credential_pending: bool| HolderState {
            status: status.unwrap_or("unknown").to_owned(),
            credential_pending,
        };
        match holder {
            CredentialHolder::RdsInstance(id) => {
                let out = self
                    .rds
                    .describe_db_instances()
                    .db_instance_identifier(id)
                    .send()
                    .await
                    .map_err(|e| RemoteError::from_sdk("DescribeDBInstances", e))?;
                let db = out.db_instances().first();
                let pending = db
                    .and_then(|d| d.pending_modified_values())
                    .is_some_and(|p| p.master_user_password().is_some());
                Ok(state(db.and_then(|d| d.db_instance_status()), pending))
            }
            CredentialHolder::AuroraCluster(id) => {
                let out = self
                    .rds
                    .describe_db_clusters()
                    .db_cluster_identifier(id)
                    .send()
                    .await
                    .map_err(|e| RemoteError::from_sdk("DescribeDBClusters", e))?;
                let cluster = out.db_clusters().first();
                let pending = cluster
                    .and_then(|c| c.pending_modified_values())
                    .is_some_and(|p| p.master_user_password().is_some());
                Ok(state(cluster.and_then(|c| c.status()), pending))
            }
            CredentialHolder::CacheReplicationGroup(id) => {
                let out = self
                    .elasticache
                    .describe_replication_groups()
                    .replication_group_id(id)
                    .send()
                    .await
                    .map_err(|e| RemoteError::from_sdk("DescribeReplicationGroups", e))?;
                let group = out.replication_groups().first();
                let pending = group
                    .and_then(|g| g.pending_modified_values())
                    .is_some_and(|p| p.auth_token_status().is_some());
                Ok(state(group.and_then(|g| g.status()), pending))
            }
        }
    }

    /// Looks at `holder` every `interval` until it is settled ([`HolderState::settled`]), at
    /// most `timeout`. `progress` sees each look whose state differs from the one before.
    pub async fn wait_settled(
        &self,
        holder: &CredentialHolder,
        timeout: Duration,
        interval: Duration,
        progress: &mut dyn FnMut(&HolderState),
    ) -> Result<HolderState, WaitError> {
        let started = tokio::time::Instant::now();
        let mut last: Option<HolderState> = None;
        loop {
            let state = self.holder_state(holder).await.map_err(WaitError::Remote)?;
            if last.as_ref() != Some(&state) {
                progress(&state);
            }
            if state.settled() {
                return Ok(state);
            }
            if started.elapsed() + interval > timeout {
                return Err(WaitError::TimedOut {
                    holder: holder.clone(),
                    waited: started.elapsed(),
                    last: state,
                });
            }
            last = Some(state);
            tokio::time::sleep(interval).await;
        }
    }

    /// Starts a new deployment of an ECS service with its current task definition
    /// (`UpdateService`, `forceNewDeployment`): new tasks read their `secrets` again, and the
    /// old ones stop once the new ones are healthy. `false` when the cluster or the service does
    /// not exist or is not active (not deployed yet: no task runs, nothing to restart).
    pub async fn restart_service(&self, cluster: &str, service: &str) -> Result<bool, RemoteError> {
        let sent = self
            .ecs
            .update_service()
            .cluster(cluster)
            .service(service)
            .force_new_deployment(true)
            .send()
            .await;
        match sent {
            Ok(_) => Ok(true),
            Err(e)
                if e.as_service_error().is_some_and(|s| {
                    s.is_cluster_not_found_exception()
                        || s.is_service_not_found_exception()
                        || s.is_service_not_active_exception()
                }) =>
            {
                Ok(false)
            }
            Err(e) => Err(RemoteError::from_sdk("UpdateService", e)),
        }
    }
}
