//! The environment's alerts: the SNS topic (under the environment's key when the plan says so,
//! with its policy, one email subscription per address of the `alertEmails` input and one
//! HTTPS subscription per endpoint of the plan, read decrypted from its SSM parameter), the
//! CloudWatch metric alarms notifying it, and the
//! EventBridge rule (and its target) sending the cluster's ECS deployment failures to it.
//! Everything comes from the plan (`runtime_plan::alarm_metric` says what an alarm watches).

use std::collections::BTreeMap;

use runtime_plan::{ALERTS_TOPIC_ID, CompactString, DimensionValue, PlannedItem, alarm_metric};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Input, Tags};
use super::expr::{ToJson, to_json};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Topic<'p> {
    name: &'p str,
    /// The environment's key (its ARN), when the plan encrypts the topic with it.
    kms_master_key_id: Option<String>,
    region: &'p str,
    tags: Tags<'p>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TopicPolicy<'p> {
    arn: String,
    policy: ToJson<PolicyDocument>,
    region: &'p str,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct PolicyDocument {
    version: &'static str,
    statement: Vec<Statement>,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Statement {
    effect: &'static str,
    principal: Principal,
    action: &'static str,
    resource: String,
    condition: Condition,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Principal {
    service: &'static str,
}

#[derive(Serialize)]
struct Condition {
    #[serde(rename = "ArnLike")]
    arn_like: SourceArn,
}

#[derive(Serialize)]
struct SourceArn {
    #[serde(rename = "aws:SourceArn")]
    source_arn: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Subscription<'p> {
    topic: String,
    protocol: &'static str,
    endpoint: String,
    /// An HTTPS endpoint confirms its subscription itself (PagerDuty's, Opsgenie's do): the
    /// provider waits for it rather than leaving it pending.
    endpoint_auto_confirms: Option<bool>,
    region: &'p str,
}

/// The alerts topic, its policy and its subscriptions: `subscriptions` addresses of
/// `alertEmails`, by index (Pulumi YAML has no loop over a list input).
pub(super) fn alert_topic<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    subscriptions: usize,
    publishers: &'static [runtime_plan::plan::AlertPublisher],
    kms_key: &'p Option<CompactString>,
    https: &'p [CompactString],
) -> Result<(), RenderError> {
    let kms_master_key_id = kms_key.as_ref().map(|key| cx.reference(key, "arn")).transpose()?;
    let props =
        Topic { name: &item.physical_name, kms_master_key_id, region: cx.region(), tags: cx.tags(item) };
    cx.declare(item, "aws:sns/topic:Topic", props)?;
    let arn = super::expr::attr(&item.id, "arn");
    let account = cx.account();
    let statement = publishers
        .iter()
        .map(|p| Statement {
            effect: "Allow",
            principal: Principal { service: p.principal },
            action: "sns:Publish",
            resource: arn.clone(),
            condition: Condition {
                arn_like: SourceArn {
                    source_arn: format!(
                        "arn:aws:{}:{}:{account}:{}",
                        p.service,
                        if p.regional { cx.region() } else { "" },
                        p.resources
                    ),
                },
            },
        })
        .collect();
    let policy = TopicPolicy {
        arn: arn.clone(),
        policy: to_json(PolicyDocument { version: "2012-10-17", statement }),
        region: cx.region(),
    };
    cx.declare_companion(item, "policy", "aws:sns/topicPolicy:TopicPolicy", policy)?;
    for n in 0..subscriptions {
        // `${alertEmails}` -> `${alertEmails[n]}`.
        let list = cx.input(Input::AlertEmails);
        let props = Subscription {
            topic: arn.clone(),
            protocol: "email",
            endpoint: format!("{}[{n}]}}", list.trim_end_matches('}')),
            endpoint_auto_confirms: None,
            region: cx.region(),
        };
        cx.declare_companion(
            item,
            &format!("email-{n}"),
            "aws:sns/topicSubscription:TopicSubscription",
            props,
        )?;
    }
    for (n, parameter) in https.iter().enumerate() {
        // The URL carries the pager's key: read at `up` from its SecureString (a secret
        // variable), never written in the program.
        let props = Subscription {
            topic: arn.clone(),
            protocol: "https",
            endpoint: cx.decrypted_parameter(parameter)?,
            endpoint_auto_confirms: Some(true),
            region: cx.region(),
        };
        cx.declare_companion(
            item,
            &format!("https-{n}"),
            "aws:sns/topicSubscription:TopicSubscription",
            props,
        )?;
    }
    Ok(())
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MetricAlarm<'p> {
    name: &'p str,
    alarm_description: String,
    namespace: &'static str,
    metric_name: &'static str,
    statistic: Option<&'static str>,
    extended_statistic: Option<&'static str>,
    dimensions: BTreeMap<&'static str, String>,
    period: u32,
    evaluation_periods: u32,
    datapoints_to_alarm: u32,
    threshold: f64,
    comparison_operator: &'static str,
    treat_missing_data: &'static str,
    alarm_actions: [String; 1],
    ok_actions: [String; 1],
    region: &'p str,
    tags: Tags<'p>,
}

/// One alarm: its metric, window and threshold from the plan; it notifies the alerts topic when
/// it fires and when it recovers.
#[allow(clippy::too_many_arguments)] // reason: the spec's fields, destructured by the dispatcher (`items.rs`)
pub(super) fn metric_alarm<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    alarm: &'p runtime_plan::AlarmName,
    threshold: &'p u64,
    metric_threshold: &'p f64,
    dimensions: &'p [runtime_plan::plan::AlarmDimension],
    evaluation_periods: &'p u32,
    datapoints_to_alarm: &'p u32,
) -> Result<(), RenderError> {
    let metric = alarm_metric(*alarm);
    let mut dims = BTreeMap::new();
    for d in dimensions {
        let value = match &d.value {
            DimensionValue::Text { value } => value.to_string(),
            DimensionValue::Output { item, attribute } => cx.reference(item, attribute)?,
        };
        dims.insert(d.name, value);
    }
    let topic = cx.reference(ALERTS_TOPIC_ID, "arn")?;
    let props = MetricAlarm {
        name: &item.physical_name,
        alarm_description: format!(
            "runway: {}{} ({} {} {threshold} {}); docs/planning.md, \"Alarms\"",
            metric.what,
            item.owner.as_deref().map_or(String::new(), |o| format!(" of {o}")),
            alarm.as_str(),
            match metric.comparison {
                runtime_plan::Comparison::GreaterThanThreshold => "above",
                runtime_plan::Comparison::LessThanThreshold => "below",
            },
            // A share of `max_connections`, and what it comes to on this instance class.
            if *alarm == runtime_plan::AlarmName::DbConnections {
                format!("{}: {metric_threshold}", alarm.unit())
            } else {
                alarm.unit().to_owned()
            }
        ),
        namespace: metric.namespace,
        metric_name: metric.metric,
        statistic: (!metric.extended()).then_some(metric.statistic),
        extended_statistic: metric.extended().then_some(metric.statistic),
        dimensions: dims,
        period: metric.period_seconds,
        evaluation_periods: *evaluation_periods,
        datapoints_to_alarm: *datapoints_to_alarm,
        threshold: *metric_threshold,
        comparison_operator: metric.comparison.as_str(),
        treat_missing_data: metric.missing_data,
        alarm_actions: [topic.clone()],
        ok_actions: [topic],
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:cloudwatch/metricAlarm:MetricAlarm", props)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EventRule<'p> {
    name: &'p str,
    description: &'static str,
    event_pattern: ToJson<EventPattern>,
    region: &'p str,
    tags: Tags<'p>,
}

#[derive(Serialize)]
struct EventPattern {
    source: [&'static str; 1],
    #[serde(rename = "detail-type")]
    detail_type: Vec<&'static str>,
    /// The services of this environment's cluster only.
    resources: [Prefix; 1],
    detail: EventDetail,
}

#[derive(Serialize)]
struct Prefix {
    prefix: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EventDetail {
    event_name: Vec<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EventTarget<'p> {
    rule: String,
    arn: String,
    region: &'p str,
}

/// The rule sending the cluster's ECS deployment failures (and services that cannot start their
/// tasks) to the alerts topic, and its target.
pub(super) fn ecs_event_rule<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    cluster: &'p CompactString,
    events: &'static [(&'static str, &'static str)],
) -> Result<(), RenderError> {
    let cluster_name = cx.item(cluster)?.physical_name.as_str();
    let account = cx.account();
    let mut detail_type = Vec::new();
    let mut event_name = Vec::new();
    for (kind, name) in events {
        if !detail_type.contains(kind) {
            detail_type.push(*kind);
        }
        event_name.push(*name);
    }
    let prefix = format!("arn:aws:ecs:{}:{account}:service/{cluster_name}/", cx.region());
    let pattern = EventPattern {
        source: ["aws.ecs"],
        detail_type,
        resources: [Prefix { prefix }],
        detail: EventDetail { event_name },
    };
    let props = EventRule {
        name: &item.physical_name,
        description: "runway: ECS deployment failures and services that cannot start their tasks",
        event_pattern: to_json(pattern),
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:cloudwatch/eventRule:EventRule", props)?;
    let target = EventTarget {
        rule: super::expr::attr(&item.id, "name"),
        arn: cx.reference(ALERTS_TOPIC_ID, "arn")?,
        region: cx.region(),
    };
    cx.declare_companion(item, "target", "aws:cloudwatch/eventTarget:EventTarget", target)
}
