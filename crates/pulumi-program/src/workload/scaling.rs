//! A service's scaling: its Application Auto Scaling target with the scheduled actions of its
//! active hours, and its target-tracking policies (a predefined metric, or a queue's backlog
//! per task as metric math).

use runtime_plan::{ActiveHours, CompactString, EcsServiceSpec, ItemSpec, PlannedItem, ScalingSource};
use serde::Serialize;

use super::super::RenderError;
use super::super::context::{Context, Tags};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ScalingTarget<'p> {
    service_namespace: &'static str,
    scalable_dimension: &'static str,
    resource_id: String,
    min_capacity: u32,
    max_capacity: u32,
    region: &'p str,
    tags: Tags<'p>,
}

/// Has no `tags` input.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ScheduledAction<'p> {
    name: String,
    service_namespace: String,
    resource_id: String,
    scalable_dimension: String,
    schedule: &'p str,
    timezone: &'p str,
    scalable_target_action: TargetAction,
    region: &'p str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TargetAction {
    min_capacity: u32,
    max_capacity: u32,
}

/// The autoscaling target: the desired count of the service, between the hours' floor and
/// `scale.max`; with active hours, an action at their start restoring that range and one at
/// their end setting it to none.
pub(crate) fn scaling_target<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    service: &'p CompactString,
    min_capacity: &u32,
    max_capacity: &u32,
    active: &'p Option<Box<ActiveHours>>,
) -> Result<(), RenderError> {
    let ItemSpec::EcsService(spec) = &cx.item(service)?.spec else {
        return Err(cx.missing("an ECS service as its `service`"));
    };
    let EcsServiceSpec { cluster, .. } = &**spec;
    // `service/<cluster name>/<service name>`: two references in one string.
    let resource_id =
        format!("service/{}/{}", cx.reference(cluster, "name")?, cx.reference(service, "name")?);
    let props = ScalingTarget {
        service_namespace: "ecs",
        scalable_dimension: "ecs:service:DesiredCount",
        resource_id,
        min_capacity: *min_capacity,
        max_capacity: *max_capacity,
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:appautoscaling/target:Target", props)?;
    if let Some(hours) = active {
        scheduled_actions(cx, item, hours, *max_capacity)?;
    }
    Ok(())
}

/// The two scheduled actions of the active hours, after the target (their names under it).
fn scheduled_actions<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    hours: &'p ActiveHours,
    max: u32,
) -> Result<(), RenderError> {
    let id = item.id.as_str();
    let (start_range, stop_range) = ((hours.min_capacity, max), (0, 0));
    for (word, schedule, (min, max)) in
        [("start", &hours.start, start_range), ("stop", &hours.stop, stop_range)]
    {
        let props = ScheduledAction {
            name: format!("{}-{word}", item.physical_name.replace('/', "-")),
            service_namespace: cx.reference(id, "serviceNamespace")?,
            resource_id: cx.reference(id, "resourceId")?,
            scalable_dimension: cx.reference(id, "scalableDimension")?,
            schedule,
            timezone: &hours.timezone,
            scalable_target_action: TargetAction { min_capacity: min, max_capacity: max },
            region: cx.region(),
        };
        cx.declare_companion(item, word, "aws:appautoscaling/scheduledAction:ScheduledAction", props)?;
    }
    Ok(())
}

/// Has no `tags` input.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ScalingPolicy<'p> {
    name: &'p str,
    policy_type: &'static str,
    service_namespace: String,
    scalable_dimension: String,
    resource_id: String,
    target_tracking_scaling_policy_configuration: TargetTracking<'p>,
    region: &'p str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TargetTracking<'p> {
    target_value: u32,
    predefined_metric_specification: Option<PredefinedMetric<'p>>,
    customized_metric_specification: Option<CustomizedMetric>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PredefinedMetric<'p> {
    predefined_metric_type: &'p str,
    /// `app/<alb>/<id>/targetgroup/<tg>/<id>` for `ALBRequestCountPerTarget`.
    resource_label: Option<String>,
}

/// Metric math: `visible / running`.
#[derive(Serialize)]
struct CustomizedMetric {
    metrics: [MathMetric; 3],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MathMetric {
    id: &'static str,
    label: &'static str,
    expression: Option<&'static str>,
    metric_stat: Option<MetricStat>,
    return_data: bool,
}

#[derive(Serialize)]
struct MetricStat {
    metric: Metric,
    stat: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Metric {
    metric_name: &'static str,
    namespace: &'static str,
    dimensions: Vec<Dimension>,
}

#[derive(Serialize)]
struct Dimension {
    name: &'static str,
    value: String,
}

/// Target tracking of the metric at the target value: a predefined one (CPU, memory, the
/// ALB's requests per target with its resource label), or a queue's backlog per task.
pub(crate) fn scaling_policy<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    target: &'p CompactString,
    metric: &'p CompactString,
    target_value: &u32,
    source: &'p Option<ScalingSource>,
) -> Result<(), RenderError> {
    let (predefined, customized) = match source {
        None => (Some(PredefinedMetric { predefined_metric_type: metric, resource_label: None }), None),
        Some(ScalingSource::Requests { alb, target_group }) => {
            let label =
                format!("{}/{}", cx.reference(alb, "arnSuffix")?, cx.reference(target_group, "arnSuffix")?);
            (Some(PredefinedMetric { predefined_metric_type: metric, resource_label: Some(label) }), None)
        }
        Some(ScalingSource::Queue { queue, service }) => (None, Some(backlog(cx, queue, service)?)),
    };
    let props = ScalingPolicy {
        name: &item.physical_name,
        policy_type: "TargetTrackingScaling",
        service_namespace: cx.reference(target, "serviceNamespace")?,
        scalable_dimension: cx.reference(target, "scalableDimension")?,
        resource_id: cx.reference(target, "resourceId")?,
        target_tracking_scaling_policy_configuration: TargetTracking {
            target_value: *target_value,
            predefined_metric_specification: predefined,
            customized_metric_specification: customized,
        },
        region: cx.region(),
    };
    cx.declare(item, "aws:appautoscaling/policy:Policy", props)
}

/// The queue's visible messages over the service's running tasks (Container Insights'
/// `RunningTaskCount`, the cluster has it on), as AWS's example of a backlog per task.
fn backlog(cx: &mut Context<'_>, queue: &str, service: &str) -> Result<CustomizedMetric, RenderError> {
    let ItemSpec::EcsService(spec) = &cx.item(service)?.spec else {
        return Err(cx.missing("an ECS service as its `service`"));
    };
    let cluster = spec.cluster.clone();
    let stat = |metric_name, namespace, dimensions, stat| MetricStat {
        metric: Metric { metric_name, namespace, dimensions },
        stat,
    };
    let visible = stat(
        "ApproximateNumberOfMessagesVisible",
        "AWS/SQS",
        vec![Dimension { name: "QueueName", value: cx.reference(queue, "name")? }],
        "Sum",
    );
    let running = stat(
        "RunningTaskCount",
        "ECS/ContainerInsights",
        vec![
            Dimension { name: "ClusterName", value: cx.reference(&cluster, "name")? },
            Dimension { name: "ServiceName", value: cx.reference(service, "name")? },
        ],
        "Average",
    );
    Ok(CustomizedMetric {
        metrics: [
            MathMetric {
                id: "visible",
                label: "messages visible",
                expression: None,
                metric_stat: Some(visible),
                return_data: false,
            },
            MathMetric {
                id: "running",
                label: "running tasks",
                expression: None,
                metric_stat: Some(running),
                return_data: false,
            },
            MathMetric {
                id: "backlog",
                label: "backlog per task",
                expression: Some("visible / running"),
                metric_stat: None,
                return_data: true,
            },
        ],
    })
}
