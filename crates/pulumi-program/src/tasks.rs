//! The stack output of each one-off task of the plan: what `runway migrate --outputs FILE`
//! needs to start it (its task definition item is declared with the workload's, `workload.rs`).

use runtime_plan::OneOffTask;

use super::RenderError;
use super::context::{Context, Input};
use super::network;
use super::yaml::{Y, m, s};

/// `{cluster, taskDefinition, family, subnets, securityGroups, container, logGroup,
/// logStreamPrefix, region}`: the cluster's name, the exact revision's ARN, the private subnets
/// (the program's input), the security groups' ids and the log group's name.
pub(super) fn output(cx: &mut Context<'_>, task: &OneOffTask) -> Result<Y, RenderError> {
    let Y::Str(cluster) = cx.output_reference(&task.output, &task.cluster, "name")? else {
        return Err(cx.missing("a cluster name"));
    };
    let family = cx.item(&task.task_definition)?.physical_name.to_string();
    let security_groups = network::group_ids(cx, &task.security_groups)?;
    Ok(m([
        ("cluster", s(cluster)),
        ("taskDefinition", s(cx.reference(&task.task_definition, "arn")?)),
        ("family", s(family)),
        ("subnets", s(cx.input(Input::PrivateSubnetIds))),
        ("securityGroups", Y::List(security_groups.into_iter().map(s).collect())),
        ("container", s(task.container.to_string())),
        ("logGroup", s(cx.reference(&task.log_group, "name")?)),
        ("logStreamPrefix", s(task.log_stream_prefix.to_string())),
        ("region", s(cx.region())),
    ]))
}
