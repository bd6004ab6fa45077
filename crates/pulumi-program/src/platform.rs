//! The environment's platform: the ECS cluster, the Cloud Map namespace, and the subnet groups of databases and caches.

use runtime_plan::{CompactString, PlannedItem};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Input, Tags};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Cluster<'p> {
    name: &'p str,
    /// Container Insights, when a service scales on a queue's backlog per task.
    settings: Option<[ClusterSetting; 1]>,
    region: &'p str,
    tags: Tags<'p>,
}

#[derive(Serialize)]
struct ClusterSetting {
    name: &'static str,
    value: &'static str,
}

/// The ECS cluster every service of the environment runs in.
pub(super) fn cluster<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    container_insights: &bool,
) -> Result<(), RenderError> {
    let settings =
        container_insights.then_some([ClusterSetting { name: "containerInsights", value: "enabled" }]);
    let props = Cluster { name: &item.physical_name, settings, region: cx.region(), tags: cx.tags(item) };
    cx.declare(item, "aws:ecs/cluster:Cluster", props)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Namespace<'p> {
    name: &'p str,
    vpc: String,
    region: &'p str,
    tags: Tags<'p>,
}

/// The private DNS namespace internal workloads are found in.
pub(super) fn namespace<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    name: &'p CompactString,
) -> Result<(), RenderError> {
    let props = Namespace { name, vpc: cx.input(Input::VpcId), region: cx.region(), tags: cx.tags(item) };
    cx.declare(item, "aws:servicediscovery/privateDnsNamespace:PrivateDnsNamespace", props)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DbSubnetGroup<'p> {
    name: &'p str,
    subnet_ids: String,
    region: &'p str,
    tags: Tags<'p>,
}

/// The private subnets of the environment's databases.
pub(super) fn db_subnet_group<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let props = DbSubnetGroup {
        name: &item.physical_name,
        subnet_ids: cx.input(Input::PrivateSubnetIds),
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:rds/subnetGroup:SubnetGroup", props)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CacheSubnetGroup<'p> {
    name: &'p str,
    description: String,
    subnet_ids: String,
    region: &'p str,
    tags: Tags<'p>,
}

/// The private subnets of the environment's caches.
pub(super) fn cache_subnet_group<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let props = CacheSubnetGroup {
        name: &item.physical_name,
        description: format!("runway {} {}", cx.plan.product, cx.plan.environment),
        subnet_ids: cx.input(Input::PrivateSubnetIds),
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:elasticache/subnetGroup:SubnetGroup", props)
}
