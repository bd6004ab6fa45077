//! The environment's load balancer and its HTTPS listener, and for each public workload its
//! target group and the listener rule that forwards its host to it.

use runtime_plan::{ItemSpec, PlannedItem};
use serde::Serialize;

use super::context::{Context, Input, Tags, wrong_spec};
use super::{RenderError, network};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LoadBalancer<'p> {
    name: &'p str,
    load_balancer_type: &'static str,
    internal: bool,
    subnets: String,
    security_groups: Vec<String>,
    region: &'p str,
    tags: Tags<'p>,
}

/// The internet-facing application load balancer, in the public subnets.
pub(super) fn load_balancer<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let ItemSpec::Alb { security_groups, .. } = &item.spec else {
        return Err(wrong_spec(item));
    };
    let props = LoadBalancer {
        name: &item.physical_name,
        load_balancer_type: "application",
        internal: false,
        subnets: cx.input(Input::PublicSubnetIds),
        security_groups: network::group_ids(cx, security_groups)?,
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
    ssl_policy: &'static str,
    certificate_arn: String,
    default_actions: Vec<FixedResponseAction>,
    region: &'p str,
    tags: Tags<'p>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FixedResponseAction {
    #[serde(rename = "type")]
    kind: &'static str,
    fixed_response: FixedResponse,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FixedResponse {
    content_type: &'static str,
    status_code: &'static str,
    message_body: &'static str,
}

/// The HTTPS listener with the certificate input; a host no rule matches gets a 404.
pub(super) fn listener<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let ItemSpec::AlbListener { alb, port, protocol } = &item.spec else {
        return Err(wrong_spec(item));
    };
    let props = Listener {
        load_balancer_arn: cx.reference(alb, "arn")?,
        port: *port,
        protocol,
        ssl_policy: "ELBSecurityPolicy-TLS13-1-2-2021-06",
        certificate_arn: cx.input(Input::CertificateArn),
        default_actions: vec![FixedResponseAction {
            kind: "fixed-response",
            fixed_response: FixedResponse {
                content_type: "text/plain",
                status_code: "404",
                message_body: "not found",
            },
        }],
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
pub(super) fn target_group<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let ItemSpec::AlbTargetGroup {
        port,
        protocol,
        health_path,
        health_interval_seconds,
        health_timeout_seconds,
        healthy_threshold,
        unhealthy_threshold,
        ..
    } = &item.spec
    else {
        return Err(wrong_spec(item));
    };
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
    target_group_arn: String,
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
pub(super) fn listener_rule<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let ItemSpec::AlbListenerRule { listener, target_group, host, priority, .. } = &item.spec else {
        return Err(wrong_spec(item));
    };
    let props = ListenerRule {
        listener_arn: cx.reference(listener, "arn")?,
        priority: *priority,
        actions: vec![ForwardAction {
            kind: "forward",
            target_group_arn: cx.reference(target_group, "arn")?,
        }],
        conditions: vec![HostCondition { host_header: HostHeader { values: vec![host] } }],
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:lb/listenerRule:ListenerRule", props)
}
