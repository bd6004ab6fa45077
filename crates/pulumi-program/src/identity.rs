//! A workload's roles: its task execution role and its task role, each with exactly the grants
//! of its plan item, written as a `RolePolicy` beside the role.

use runtime_plan::{ItemSpec, PlannedItem};

use super::RenderError;
use super::context::{Context, wrong_spec};
use super::iam;

/// The role ECS (`ecs-tasks.amazonaws.com`) assumes: a workload's execution role or task role.
pub(super) fn role<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let (grants, policy_name) = match &item.spec {
        ItemSpec::TaskExecutionRole { grants, .. } => (grants, "start-task"),
        ItemSpec::TaskRole { grants, .. } => (grants, "uses"),
        ItemSpec::EcsCluster { .. }
        | ItemSpec::SecurityGroup { .. }
        | ItemSpec::CloudMapNamespace { .. }
        | ItemSpec::Alb { .. }
        | ItemSpec::AlbListener(_)
        | ItemSpec::DbSubnetGroup { .. }
        | ItemSpec::CacheSubnetGroup { .. }
        | ItemSpec::RdsInstance(_)
        | ItemSpec::AuroraCluster(_)
        | ItemSpec::AuroraInstance { .. }
        | ItemSpec::ProxySecret { .. }
        | ItemSpec::ProxyRole { .. }
        | ItemSpec::RdsProxy(_)
        | ItemSpec::RdsProxyTargetGroup { .. }
        | ItemSpec::RdsProxyTarget { .. }
        | ItemSpec::CacheReplicationGroup(_)
        | ItemSpec::SqsQueue { .. }
        | ItemSpec::SqsDeadLetterQueue { .. }
        | ItemSpec::SnsTopic { .. }
        | ItemSpec::S3Bucket { .. }
        | ItemSpec::TaskDefinition(_)
        | ItemSpec::EcsService(_)
        | ItemSpec::CloudMapService { .. }
        | ItemSpec::AlbTargetGroup { .. }
        | ItemSpec::AlbListenerRule { .. }
        | ItemSpec::ScalingTarget { .. }
        | ItemSpec::ScalingPolicy { .. }
        | ItemSpec::DnsRecord { .. }
        | ItemSpec::LogGroup { .. }
        | ItemSpec::Budget { .. }
        | ItemSpec::VpcEndpoint { .. } => return Err(wrong_spec(item)),
    };
    let statements = iam::statements(cx, grants)?;
    iam::role_with_policy(cx, item, "ecs-tasks.amazonaws.com", policy_name, statements)
}
