//! The environment's platform: the ECS cluster, the task execution role, the Cloud Map
//! namespace, and the subnet groups of databases and caches.

use runtime_plan::{ItemSpec, PlannedItem};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Input, Tags, wrong_spec};
use super::expr::to_json;
use super::iam::{self, Action, Condition, InlinePolicy, PolicyDocument, Role, Statement};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Cluster<'p> {
    name: &'p str,
    region: &'p str,
    tags: Tags<'p>,
}

/// The ECS cluster every service of the environment runs in.
pub(super) fn cluster<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let props = Cluster { name: &item.physical_name, region: cx.region(), tags: cx.tags(item) };
    cx.declare(item, "aws:ecs/cluster:Cluster", props)
}

/// The role the ECS agent uses: the managed execution policy, plus reading the environment's
/// SSM parameters and decrypting them with its KMS key.
pub(super) fn execution_role<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let ItemSpec::TaskExecutionRole { ssm_prefix, kms_key } = &item.spec else {
        return Err(wrong_spec(item));
    };
    let parameters = format!("arn:aws:ssm:{}:*:parameter{}/*", cx.region(), ssm_prefix.trim_end_matches('/'));
    let read = Statement::allow(Action::Many(vec!["ssm:GetParameters", "ssm:GetParameter"]), parameters);
    // An alias names no key ARN: allow any key the alias points at.
    let decrypt = if kms_key.starts_with("alias/") {
        Statement::allow(Action::One("kms:Decrypt"), "*".to_owned()).when(Condition {
            operator: "ForAnyValue:StringEquals",
            key: "kms:ResourceAliases",
            value: kms_key.to_string(),
        })
    } else {
        Statement::allow(Action::One("kms:Decrypt"), kms_key.to_string())
    };
    let props = Role {
        name: &item.physical_name,
        assume_role_policy: to_json(iam::assumed_by("ecs-tasks.amazonaws.com")),
        managed_policy_arns: Some(vec![
            "arn:aws:iam::aws:policy/service-role/AmazonECSTaskExecutionRolePolicy",
        ]),
        inline_policies: vec![InlinePolicy {
            name: "read-runtime-parameters",
            policy: to_json(PolicyDocument::new(vec![read, decrypt])),
        }],
        tags: cx.tags(item),
    };
    cx.declare(item, iam::ROLE, props)
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
pub(super) fn namespace<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let ItemSpec::CloudMapNamespace { name } = &item.spec else {
        return Err(wrong_spec(item));
    };
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
