//! The environment's load balancer and its listeners (HTTPS, and HTTP redirecting to HTTPS),
//! and for each public workload its target group, the listener rule that forwards its host to
//! it (with its second target group and the role ECS shifts traffic with, when it is not
//! released rolling), and its host's alias record.

use runtime_plan::{AlbListenerSpec, CompactString, ListenerAction, PlannedItem};
use serde::Serialize;

use super::context::{Context, Input, Tags};
use super::iam::{self, Action, Statement};
use super::{RenderError, network};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LoadBalancer<'p> {
    name: &'p str,
    load_balancer_type: &'static str,
    internal: bool,
    subnets: String,
    security_groups: Vec<String>,
    drop_invalid_header_fields: bool,
    /// Production: AWS refuses to delete it (written only when on).
    enable_deletion_protection: Option<bool>,
    /// Production: its access logs' bucket.
    access_logs: Option<AccessLogs>,
    region: &'p str,
    tags: Tags<'p>,
}

#[derive(Serialize)]
struct AccessLogs {
    bucket: String,
    enabled: bool,
}

/// The internet-facing application load balancer, in the public subnets, with deletion
/// protection and access logs when planned (it waits for its log bucket's policy: ELB checks
/// that it may write there when logging is turned on).
pub(super) fn load_balancer<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    security_groups: &'p [CompactString],
    drop_invalid_header_fields: &'p bool,
    deletion_protection: &'p bool,
    access_logs: &'p Option<CompactString>,
) -> Result<(), RenderError> {
    let access_logs = match access_logs {
        Some(bucket) => Some(AccessLogs { bucket: cx.reference(bucket, "bucket")?, enabled: true }),
        None => None,
    };
    let props = LoadBalancer {
        name: &item.physical_name,
        load_balancer_type: "application",
        internal: false,
        subnets: cx.input(Input::PublicSubnetIds),
        security_groups: network::group_ids(cx, security_groups)?,
        drop_invalid_header_fields: *drop_invalid_header_fields,
        enable_deletion_protection: deletion_protection.then_some(true),
        access_logs,
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:lb/loadBalancer:LoadBalancer", props)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listener<'p> {
    load_balancer_arn: String,
    port: u16,
    protocol: &'p str,
    /// HTTPS only.
    ssl_policy: Option<&'p str>,
    /// HTTPS only.
    certificate_arn: Option<String>,
    default_actions: [DefaultAction<'p>; 1],
    region: &'p str,
    tags: Tags<'p>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DefaultAction<'p> {
    #[serde(rename = "type")]
    kind: &'static str,
    fixed_response: Option<FixedResponse>,
    redirect: Option<Redirect<'p>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Redirect<'p> {
    protocol: &'static str,
    port: String,
    status_code: &'p str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FixedResponse {
    content_type: &'static str,
    status_code: &'static str,
    message_body: &'static str,
}

/// A listener: with a TLS policy, HTTPS with the certificate input; its default action as
/// planned (a 404, or a redirect to HTTPS keeping host, path and query).
pub(super) fn listener<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    spec: &'p AlbListenerSpec,
) -> Result<(), RenderError> {
    let AlbListenerSpec { alb, port, protocol, ssl_policy, default_action } = spec;
    let default_action = match default_action {
        ListenerAction::NotFound => DefaultAction {
            kind: "fixed-response",
            fixed_response: Some(FixedResponse {
                content_type: "text/plain",
                status_code: "404",
                message_body: "not found",
            }),
            redirect: None,
        },
        ListenerAction::RedirectToHttps { port, status_code } => DefaultAction {
            kind: "redirect",
            fixed_response: None,
            redirect: Some(Redirect { protocol: "HTTPS", port: port.to_string(), status_code }),
        },
    };
    let props = Listener {
        load_balancer_arn: cx.reference(alb, "arn")?,
        port: *port,
        protocol,
        ssl_policy: ssl_policy.as_deref(),
        certificate_arn: ssl_policy.is_some().then(|| cx.input(Input::CertificateArn)),
        default_actions: [default_action],
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:lb/listener:Listener", props)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TargetGroup<'p> {
    name: &'p str,
    port: u16,
    protocol: &'p str,
    target_type: &'static str,
    vpc_id: String,
    health_check: HealthCheck<'p>,
    region: &'p str,
    tags: Tags<'p>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HealthCheck<'p> {
    path: &'p str,
    interval: u64,
    timeout: u64,
    healthy_threshold: u32,
    unhealthy_threshold: u32,
}

/// A public workload's target group: its tasks by IP, checked on its HTTP health path.
#[allow(clippy::too_many_arguments)] // reason: the spec's fields, destructured by the dispatcher (`items.rs`)
pub(super) fn target_group<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    port: &'p u16,
    protocol: &'p CompactString,
    health_path: &'p CompactString,
    health_interval_seconds: &'p u64,
    health_timeout_seconds: &'p u64,
    healthy_threshold: &'p u32,
    unhealthy_threshold: &'p u32,
) -> Result<(), RenderError> {
    let props = TargetGroup {
        name: &item.physical_name,
        port: *port,
        protocol,
        target_type: "ip",
        vpc_id: cx.input(Input::VpcId),
        health_check: HealthCheck {
            path: health_path,
            interval: *health_interval_seconds,
            timeout: *health_timeout_seconds,
            healthy_threshold: *healthy_threshold,
            unhealthy_threshold: *unhealthy_threshold,
        },
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:lb/targetGroup:TargetGroup", props)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListenerRule<'p> {
    listener_arn: String,
    priority: u32,
    actions: Vec<ForwardAction>,
    conditions: Vec<HostCondition<'p>>,
    region: &'p str,
    tags: Tags<'p>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ForwardAction {
    #[serde(rename = "type")]
    kind: &'static str,
    /// One target group.
    target_group_arn: Option<String>,
    /// Two target groups by weight (a workload not released rolling).
    forward: Option<Weighted>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Weighted {
    target_groups: [WeightedGroup; 2],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WeightedGroup {
    arn: String,
    weight: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HostCondition<'p> {
    host_header: HostHeader<'p>,
}

#[derive(Serialize)]
struct HostHeader<'p> {
    values: Vec<&'p str>,
}

/// Forwards a public workload's host to its target group.
#[allow(clippy::too_many_arguments)] // reason: the rule's fields, destructured by the dispatcher
pub(super) fn listener_rule<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    listener: &'p CompactString,
    target_group: &'p CompactString,
    host: &'p CompactString,
    priority: &'p u32,
    alternate_target_group: &'p Option<CompactString>,
) -> Result<(), RenderError> {
    let target_group_arn = cx.reference(target_group, "arn")?;
    // Under a strategy other than rolling, all traffic to the first group at first; ECS moves
    // the weights during a release (the program ignores them after: `ignoreChanges`).
    let action = match alternate_target_group {
        None => ForwardAction { kind: "forward", target_group_arn: Some(target_group_arn), forward: None },
        Some(alternate) => {
            let groups = [
                WeightedGroup { arn: target_group_arn, weight: 100 },
                WeightedGroup { arn: cx.reference(alternate, "arn")?, weight: 0 },
            ];
            ForwardAction {
                kind: "forward",
                target_group_arn: None,
                forward: Some(Weighted { target_groups: groups }),
            }
        }
    };
    let props = ListenerRule {
        listener_arn: cx.reference(listener, "arn")?,
        priority: *priority,
        actions: vec![action],
        conditions: vec![HostCondition { host_header: HostHeader { values: vec![host] } }],
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:lb/listenerRule:ListenerRule", props)
}

/// What ECS reads of a load balancer to shift traffic: AWS authorizes these on no resource.
const TRAFFIC_DESCRIBE: [&str; 4] = [
    "elasticloadbalancing:DescribeListeners",
    "elasticloadbalancing:DescribeRules",
    "elasticloadbalancing:DescribeTargetGroups",
    "elasticloadbalancing:DescribeTargetHealth",
];
/// What ECS changes on the workload's two target groups.
const TRAFFIC_TARGETS: [&str; 2] =
    ["elasticloadbalancing:DeregisterTargets", "elasticloadbalancing:RegisterTargets"];

/// The role ECS assumes to shift a release's traffic: the describes of the managed policy
/// `AmazonECSInfrastructureRolePolicyForLoadBalancers` on `*`, its rule and target changes on
/// exactly this workload's listener rule and two target groups.
pub(super) fn traffic_role<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    listener_rule: &'p CompactString,
    target_groups: &'p [CompactString],
) -> Result<(), RenderError> {
    let groups = target_groups.iter().map(|g| cx.reference(g, "arn")).collect::<Result<Vec<_>, _>>()?;
    let statements = vec![
        Statement::allow(Action::Many(TRAFFIC_DESCRIBE.to_vec()), vec!["*".to_owned()]),
        Statement::allow(
            Action::One("elasticloadbalancing:ModifyRule"),
            vec![cx.reference(listener_rule, "arn")?],
        ),
        Statement::allow(Action::Many(TRAFFIC_TARGETS.to_vec()), groups),
    ];
    iam::role_with_policy(cx, item, iam::Assumer::Ecs, "shift-release-traffic", statements)
}

/// Has no `tags` or `region` input (Route 53 is global).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Record<'p> {
    name: &'p str,
    #[serde(rename = "type")]
    kind: &'p str,
    zone_id: String,
    aliases: [Alias; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Alias {
    name: String,
    zone_id: String,
    evaluate_target_health: bool,
}

/// A public workload's host in the hosted zone input, an alias of the ALB.
pub(super) fn dns_record<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    host: &'p CompactString,
    record_type: &'p CompactString,
    alb: &'p CompactString,
    evaluate_target_health: &'p bool,
) -> Result<(), RenderError> {
    let props = Record {
        name: host,
        kind: record_type,
        zone_id: cx.input(Input::HostedZoneId),
        aliases: [Alias {
            name: cx.reference(alb, "dnsName")?,
            zone_id: cx.reference(alb, "zoneId")?,
            evaluate_target_health: *evaluate_target_health,
        }],
    };
    cx.declare(item, "aws:route53/record:Record", props)
}
