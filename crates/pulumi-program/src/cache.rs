//! A cache resource: the ElastiCache replication group, whose AUTH token the program reads from
//! its SSM SecureString into the write-only `authTokenWo` (never a literal; in the state's inputs
//! as a Pulumi secret, docs/pulumi.md, "What reaches the state").

use runtime_plan::{CacheReplicationGroupSpec, PlannedItem};
use serde::Serialize;

use super::context::{Context, Tags};
use super::{RenderError, network};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReplicationGroup<'p> {
    replication_group_id: &'p str,
    description: String,
    engine: &'p str,
    engine_version: &'p str,
    node_type: &'p str,
    num_cache_clusters: u32,
    automatic_failover_enabled: bool,
    multi_az_enabled: bool,
    transit_encryption_enabled: bool,
    at_rest_encryption_enabled: bool,
    snapshot_retention_limit: u32,
    /// Write-only: not read back, but kept in the state's inputs as a Pulumi secret
    /// (pulumi-terraform-bridge#3201; docs/pulumi.md, "What reaches the state").
    auth_token_wo: String,
    auth_token_wo_version: String,
    subnet_group_name: String,
    security_group_ids: Vec<String>,
    apply_immediately: bool,
    region: &'p str,
    tags: Tags<'p>,
}

/// The replication group, encrypted at rest and (for AUTH) in transit, its daily snapshots kept
/// as planned; Multi-AZ with automatic failover when it has more than one node; its changes
/// applied when the plan says.
pub(super) fn replication_group<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    spec: &'p CacheReplicationGroupSpec,
) -> Result<(), RenderError> {
    let CacheReplicationGroupSpec {
        resource,
        engine,
        engine_version,
        size,
        automatic_failover,
        transit_encryption,
        at_rest_encryption,
        snapshot_retention_days,
        auth_token_parameter,
        subnet_group,
        security_groups,
        apply_immediately,
    } = spec;
    let auth_token_wo = cx.decrypted_parameter(auth_token_parameter)?;
    let auth_token_wo_version = cx.parameter_version(auth_token_parameter)?;
    let props = ReplicationGroup {
        replication_group_id: &item.physical_name,
        description: format!("runway {} {} {resource}", cx.plan.product, cx.plan.environment),
        engine,
        engine_version,
        node_type: &size.node_type,
        num_cache_clusters: size.nodes,
        automatic_failover_enabled: *automatic_failover,
        multi_az_enabled: *automatic_failover,
        transit_encryption_enabled: *transit_encryption,
        at_rest_encryption_enabled: *at_rest_encryption,
        snapshot_retention_limit: *snapshot_retention_days,
        auth_token_wo,
        auth_token_wo_version,
        subnet_group_name: cx.reference(subnet_group, "name")?,
        security_group_ids: network::group_ids(cx, security_groups)?,
        apply_immediately: *apply_immediately,
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:elasticache/replicationGroup:ReplicationGroup", props)
}
