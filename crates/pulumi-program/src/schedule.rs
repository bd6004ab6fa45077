//! A workload's scheduled run: the EventBridge Scheduler schedule starting its task definition
//! with the command (RunTask on Fargate), the role it starts it with (run exactly that family,
//! pass exactly its roles), and, where the environment has an alerts topic, the rule sending a
//! failed run there.

use runtime_plan::{ALERTS_TOPIC_ID, PlannedItem, ScheduleSpec};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Input, ROLE_POLICY, Tags};
use super::expr::{ToJson, attr, to_json};
use super::iam::{self, Action, Assumer, PolicyDocument, RolePolicy, Statement};
use super::network;

/// How many resources a schedule renders to: itself, its role and policy, and with alerts its
/// rule and the rule's target.
pub(super) fn resources(spec: &ScheduleSpec) -> usize {
    3 + 2 * usize::from(spec.alerts)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Schedule<'p> {
    name: &'p str,
    description: String,
    schedule_expression: &'p str,
    schedule_expression_timezone: &'p str,
    flexible_time_window: FlexibleTimeWindow,
    target: Target<'p>,
    region: &'p str,
}

#[derive(Serialize)]
struct FlexibleTimeWindow {
    mode: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Target<'p> {
    arn: String,
    role_arn: String,
    input: ToJson<Overrides<'p>>,
    ecs_parameters: EcsParameters<'p>,
    retry_policy: RetryPolicy,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EcsParameters<'p> {
    task_definition_arn: String,
    launch_type: &'static str,
    task_count: u32,
    group: &'p str,
    network_configuration: NetworkConfiguration,
    propagate_tags: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NetworkConfiguration {
    subnets: String,
    security_groups: Vec<String>,
    assign_public_ip: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RetryPolicy {
    maximum_retry_attempts: u32,
}

/// RunTask's `overrides`, as Scheduler passes its `input` to ECS.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Overrides<'p> {
    container_overrides: [ContainerOverride<'p>; 1],
}

#[derive(Serialize)]
struct ContainerOverride<'p> {
    name: &'p str,
    command: &'p [runtime_plan::CompactString],
}

/// The schedule, its role and policy, and its failure rule.
pub(super) fn schedule<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    spec: &'p ScheduleSpec,
) -> Result<(), RenderError> {
    let family = cx.item(&spec.task_definition)?.physical_name.as_str();
    role(cx, item, spec, family)?;
    let props = Schedule {
        name: &item.physical_name,
        description: format!("runway: {} of {} ({})", spec.schedule, spec.workload, spec.cron),
        schedule_expression: &spec.expression,
        schedule_expression_timezone: &spec.timezone,
        flexible_time_window: FlexibleTimeWindow { mode: "OFF" },
        target: Target {
            arn: cx.reference(&spec.cluster, "arn")?,
            role_arn: attr(&format!("{}--role", item.id), "arn"),
            input: to_json(Overrides {
                container_overrides: [ContainerOverride { name: &spec.container, command: &spec.command }],
            }),
            ecs_parameters: EcsParameters {
                task_definition_arn: cx.reference(&spec.task_definition, "arn")?,
                launch_type: "FARGATE",
                task_count: 1,
                group: &spec.group,
                network_configuration: NetworkConfiguration {
                    subnets: cx.input(Input::PrivateSubnetIds),
                    security_groups: network::group_ids(cx, &spec.security_groups)?,
                    assign_public_ip: false,
                },
                propagate_tags: "TASK_DEFINITION",
            },
            // A failed run is reported, not repeated: a job may not be safe to run twice.
            retry_policy: RetryPolicy { maximum_retry_attempts: 0 },
        },
        region: cx.region(),
    };
    cx.declare(item, "aws:scheduler/schedule:Schedule", props)?;
    if spec.alerts {
        failure_rule(cx, item, spec)?;
    }
    Ok(())
}

/// The properties of the run's role (its name made here).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunRole<'p> {
    name: String,
    assume_role_policy: ToJson<PolicyDocument>,
    tags: Tags<'p>,
}

/// The role Scheduler starts the run with: RunTask on the task definition's family only (any
/// revision: the schedule follows the service's), tags on the tasks it starts, and PassRole on
/// exactly the task definition's roles, to ECS only.
fn role<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    spec: &'p ScheduleSpec,
    family: &str,
) -> Result<(), RenderError> {
    let account = cx.account();
    let region = cx.region();
    let cluster = cx.item(&spec.cluster)?.physical_name.as_str();
    let name = format!("{}-run", item.physical_name);
    let props = RunRole {
        name,
        assume_role_policy: to_json(iam::assumed_by(cx, Assumer::Scheduler)),
        tags: cx.tags(item),
    };
    cx.declare_companion(item, "role", iam::ROLE, props)?;
    let roles = spec.pass_roles.iter().map(|r| cx.reference(r, "arn")).collect::<Result<Vec<_>, _>>()?;
    let statements = vec![
        Statement::allow(
            Action::One("ecs:RunTask"),
            vec![format!("arn:aws:ecs:{region}:{account}:task-definition/{family}:*")],
        ),
        Statement::allow(
            Action::One("ecs:TagResource"),
            vec![format!("arn:aws:ecs:{region}:{account}:task/{cluster}/*")],
        ),
        Statement::allow(Action::One("iam:PassRole"), roles),
    ];
    let props = RolePolicy {
        name: "run-task",
        role: attr(&format!("{}--role", item.id), "name"),
        policy: to_json(PolicyDocument::new(statements)),
    };
    cx.declare_companion(item, "policy", ROLE_POLICY, props)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EventRule<'p> {
    name: String,
    description: &'static str,
    event_pattern: ToJson<TaskStopped>,
    region: &'p str,
    tags: Tags<'p>,
}

/// ECS's task state change of a run of this schedule that stopped failed.
#[derive(Serialize)]
struct TaskStopped {
    source: [&'static str; 1],
    #[serde(rename = "detail-type")]
    detail_type: [&'static str; 1],
    detail: StoppedDetail,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StoppedDetail {
    cluster_arn: [String; 1],
    group: [String; 1],
    last_status: [&'static str; 1],
    /// A container's exit code not 0, or a task that could not start.
    #[serde(rename = "$or")]
    or: (ExitCode, StopCode),
}

#[derive(Serialize)]
struct ExitCode {
    containers: Containers,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Containers {
    exit_code: [AnythingBut; 1],
}

#[derive(Serialize)]
struct AnythingBut {
    #[serde(rename = "anything-but")]
    anything_but: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StopCode {
    stop_code: [&'static str; 1],
}

#[derive(Serialize)]
struct EventTarget<'p> {
    rule: String,
    arn: String,
    region: &'p str,
}

/// The rule sending a failed run (a container's exit code not 0, or a task that could not
/// start) of this schedule's group to the alerts topic, and its target.
fn failure_rule<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    spec: &'p ScheduleSpec,
) -> Result<(), RenderError> {
    let pattern = TaskStopped {
        source: ["aws.ecs"],
        detail_type: ["ECS Task State Change"],
        detail: StoppedDetail {
            cluster_arn: [cx.reference(&spec.cluster, "arn")?],
            group: [spec.group.to_string()],
            last_status: ["STOPPED"],
            or: (
                ExitCode { containers: Containers { exit_code: [AnythingBut { anything_but: 0 }] } },
                StopCode { stop_code: ["TaskFailedToStart"] },
            ),
        },
    };
    let props = EventRule {
        name: format!("{}-failed", item.physical_name),
        description: "runway: a scheduled run that failed (exit code not 0, or not started)",
        event_pattern: to_json(pattern),
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare_companion(item, "failed", "aws:cloudwatch/eventRule:EventRule", props)?;
    let target = EventTarget {
        rule: attr(&format!("{}--failed", item.id), "name"),
        arn: cx.reference(ALERTS_TOPIC_ID, "arn")?,
        region: cx.region(),
    };
    cx.declare_companion_after(
        item,
        "failed-target",
        "aws:cloudwatch/eventTarget:EventTarget",
        target,
        &["failed"],
    )
}
