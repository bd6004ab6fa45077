//! `runway restore`'s ElastiCache calls: a replication group's snapshots (`DescribeSnapshots`),
//! a copy made from one (`CreateReplicationGroup` with `SnapshotName`, in the live group's
//! subnet group and security groups, read from its first node by `DescribeCacheClusters`, with
//! the live group's AUTH token read from SSM), the copy's state and endpoint, and a drill's copy
//! deleted (`DeleteReplicationGroup`, no final snapshot). Nothing here touches the live group.
//! The token is held as a `SecretString` and reaches no output, log or error.

use aws_sdk_elasticache::types::Tag;
use aws_sdk_rds::primitives::{DateTime, DateTimeFormat};
use secrecy::{ExposeSecret, SecretString};

use super::{AwsClients, RemoteError};

/// One snapshot of a replication group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotFacts {
    /// `SnapshotName`.
    pub name: String,
    /// Its first node's `SnapshotCreateTime`, `YYYY-MM-DDTHH:MM:SSZ`.
    pub created: Option<String>,
    /// `SnapshotStatus`.
    pub status: String,
    /// `SnapshotSource` (`automated`, `manual`).
    pub source: String,
}

/// A replication group's state and primary endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupState {
    /// `Status` (`creating`, `available`, `deleting`, ...).
    pub status: String,
    /// The first node group's `PrimaryEndpoint.Address`, once there is one.
    pub endpoint: Option<String>,
}

/// What a cache's copy is made with, from the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheCopyRequest<'a> {
    /// The live group.
    pub source: &'a str,
    /// The copy's identifier.
    pub copy: &'a str,
    /// The snapshot it is made from.
    pub snapshot: &'a str,
    /// Node type and count (the plan's).
    pub node_type: &'a str,
    /// Nodes: the primary and its replicas.
    pub nodes: u32,
    /// The engine version (the plan's).
    pub engine_version: &'a str,
    /// The SSM parameter holding the live group's AUTH token.
    pub auth_token_parameter: &'a str,
    /// Its tags.
    pub tags: &'a [(String, String)],
}

fn seconds(t: &aws_sdk_elasticache::primitives::DateTime) -> Option<String> {
    DateTime::from_secs(t.secs()).fmt(DateTimeFormat::DateTime).ok()
}

impl AwsClients {
    /// The snapshots of the replication group `group`, as ElastiCache lists them.
    pub async fn cache_snapshots(&self, group: &str) -> Result<Vec<SnapshotFacts>, RemoteError> {
        let mut out = Vec::new();
        let mut marker = None;
        loop {
            let page = self
                .elasticache
                .describe_snapshots()
                .replication_group_id(group)
                .set_marker(marker)
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("DescribeSnapshots", e))?;
            out.extend(page.snapshots().iter().map(|s| SnapshotFacts {
                name: s.snapshot_name().unwrap_or_default().to_owned(),
                created: s.node_snapshots().first().and_then(|n| n.snapshot_create_time()).and_then(seconds),
                status: s.snapshot_status().unwrap_or_default().to_owned(),
                source: s.snapshot_source().unwrap_or_default().to_owned(),
            }));
            marker = page.marker().map(str::to_owned);
            if marker.is_none() {
                return Ok(out);
            }
        }
    }

    async fn describe_group(
        &self,
        id: &str,
    ) -> Result<Option<aws_sdk_elasticache::types::ReplicationGroup>, RemoteError> {
        let sent = self.elasticache.describe_replication_groups().replication_group_id(id).send().await;
        match sent {
            Ok(a) => Ok(a.replication_groups().first().cloned()),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_replication_group_not_found_fault()) => {
                Ok(None)
            }
            Err(e) => Err(RemoteError::from_sdk("DescribeReplicationGroups", e)),
        }
    }

    /// The group's state and primary endpoint; `None` when it does not exist.
    pub async fn group_state(&self, id: &str) -> Result<Option<GroupState>, RemoteError> {
        Ok(self.describe_group(id).await?.map(|g| GroupState {
            status: g.status().unwrap_or_default().to_owned(),
            endpoint: g
                .node_groups()
                .first()
                .and_then(|n| n.primary_endpoint())
                .and_then(|e| e.address())
                .map(str::to_owned),
        }))
    }

    /// Starts the copy from the snapshot; `false` when a group of its name exists already (a
    /// run again).
    pub async fn restore_cache_copy(&self, r: &CacheCopyRequest<'_>) -> Result<bool, RemoteError> {
        let operation = "CreateReplicationGroup";
        if self.describe_group(r.copy).await?.is_some() {
            return Ok(false);
        }
        // In the live group's network: its first node's subnet group and security groups.
        let live = self.describe_group(r.source).await?;
        let member = live.as_ref().and_then(|g| g.member_clusters().first().cloned());
        let (subnet_group, groups): (Option<String>, Vec<String>) = match member {
            Some(m) => {
                let sent = self.elasticache.describe_cache_clusters().cache_cluster_id(&m).send().await;
                let nodes = match sent {
                    Ok(nodes) => Some(nodes),
                    // A member listed but not described (moto makes no member nodes): the copy
                    // then gets the account's defaults.
                    Err(e) if e.as_service_error().is_some_and(|s| s.is_cache_cluster_not_found_fault()) => {
                        None
                    }
                    Err(e) => return Err(RemoteError::from_sdk("DescribeCacheClusters", e)),
                };
                let node = nodes.as_ref().and_then(|n| n.cache_clusters().first());
                (
                    node.and_then(|n| n.cache_subnet_group_name()).map(str::to_owned),
                    node.map(|n| {
                        n.security_groups()
                            .iter()
                            .filter_map(|g| g.security_group_id())
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default(),
                )
            }
            None => (None, Vec::new()),
        };
        let token = self.auth_token(r.auth_token_parameter).await?;
        let tags = r.tags.iter().map(|(k, v)| Tag::builder().key(k).value(v).build()).collect();
        let sent = self
            .elasticache
            .create_replication_group()
            .replication_group_id(r.copy)
            .replication_group_description(format!("runway restore of {} from {}", r.source, r.snapshot))
            .snapshot_name(r.snapshot)
            .engine("valkey")
            .engine_version(r.engine_version)
            .cache_node_type(r.node_type)
            .num_cache_clusters(i32::try_from(r.nodes.max(1)).unwrap_or(1))
            .automatic_failover_enabled(r.nodes > 1)
            .multi_az_enabled(r.nodes > 1)
            .transit_encryption_enabled(true)
            .at_rest_encryption_enabled(true)
            .set_auth_token(token.as_ref().map(|t| t.expose_secret().to_owned()))
            .set_cache_subnet_group_name(subnet_group)
            .set_security_group_ids((!groups.is_empty()).then_some(groups))
            .snapshot_retention_limit(0)
            .set_tags(Some(tags))
            .send()
            .await;
        drop(token);
        match sent {
            Ok(_) => Ok(true),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_replication_group_already_exists_fault()) => {
                Ok(false)
            }
            Err(e) => Err(RemoteError::from_sdk(operation, e)),
        }
    }

    /// The AUTH token the live group reads (a SecureString); `None` when the parameter is not
    /// there (the copy is then made without AUTH).
    async fn auth_token(&self, parameter: &str) -> Result<Option<SecretString>, RemoteError> {
        let sent = self.ssm.get_parameter().name(parameter).with_decryption(true).send().await;
        match sent {
            Ok(got) => Ok(got.parameter().and_then(|p| p.value()).map(|v| SecretString::from(v.to_owned()))),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_parameter_not_found()) => Ok(None),
            Err(e) => Err(RemoteError::from_sdk("GetParameter", e)),
        }
    }

    /// Deletes a copy without a final snapshot; `false` when it is gone already.
    pub async fn delete_cache_copy(&self, id: &str) -> Result<bool, RemoteError> {
        let sent = self
            .elasticache
            .delete_replication_group()
            .replication_group_id(id)
            .retain_primary_cluster(false)
            .send()
            .await;
        match sent {
            Ok(_) => Ok(true),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_replication_group_not_found_fault()) => {
                Ok(false)
            }
            Err(e) => Err(RemoteError::from_sdk("DeleteReplicationGroup", e)),
        }
    }
}
