//! Item kinds not yet moved to their family's module (temporary).

use runtime_plan::{CompactString, HealthSpec, ItemKind, ItemSpec, PlannedItem, TaskSecret};
use runway_schema::Expose;

use super::RenderError;
use super::context::{Context, Input};
use super::ser::to_yaml;
use super::yaml::{Y, i, m, s};

fn json(value: Y) -> Y {
    m([("fn::toJSON", value)])
}

fn list(items: impl IntoIterator<Item = Y>) -> Y {
    Y::List(items.into_iter().collect())
}

pub(super) fn legacy<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let name = s(item.physical_name.clone());
    let (token, mut props) = match &item.spec {
        ItemSpec::TaskDefinition {
            workload,
            image,
            task,
            cpu_architecture,
            port,
            health,
            environment,
            secrets,
            execution_role,
        } => {
            let mut container = m([
                ("name", s(workload.clone())),
                ("image", s(image.clone())),
                ("essential", Y::Bool(true)),
                ("portMappings", list([m([("containerPort", i(*port)), ("protocol", s("tcp"))])])),
                (
                    "environment",
                    list(
                        environment.iter().map(|(k, v)| m([("name", s(k.clone())), ("value", s(v.clone()))])),
                    ),
                ),
                ("secrets", list(secrets.iter().map(task_secret))),
            ]);
            if let Some(check) = health.as_ref().and_then(container_health) {
                container.push("healthCheck", check);
            }
            (
                "aws:ecs/taskDefinition:TaskDefinition",
                m([
                    ("family", name),
                    ("cpu", s(task.cpu.to_string())),
                    ("memory", s(task.memory_mib.to_string())),
                    ("networkMode", s("awsvpc")),
                    ("requiresCompatibilities", list([s("FARGATE")])),
                    (
                        "runtimePlatform",
                        m([
                            ("cpuArchitecture", s(cpu_architecture.clone())),
                            ("operatingSystemFamily", s("LINUX")),
                        ]),
                    ),
                    ("executionRoleArn", s(cx.reference(execution_role, "arn")?)),
                    ("containerDefinitions", json(list([container]))),
                    ("region", s(cx.region())),
                ]),
            )
        }
        ItemSpec::EcsService {
            workload,
            cluster,
            task_definition,
            desired_count,
            expose,
            discovery_service,
            target_group,
            port,
        } => {
            let mut props = m([
                ("name", name),
                ("cluster", s(cx.reference(cluster, "arn")?)),
                ("taskDefinition", s(cx.reference(task_definition, "arn")?)),
                ("desiredCount", i(*desired_count)),
                ("launchType", s("FARGATE")),
                (
                    "networkConfiguration",
                    m([
                        ("subnets", s(cx.input(Input::PrivateSubnetIds))),
                        ("assignPublicIp", Y::Bool(false)),
                    ]),
                ),
            ]);
            match expose {
                Expose::Internal => {
                    let id = discovery_service.as_deref().ok_or_else(|| cx.missing("a Cloud Map service"))?;
                    props.push("serviceRegistries", m([("registryArn", s(cx.reference(id, "arn")?))]));
                }
                Expose::Public => {
                    let id = target_group.as_deref().ok_or_else(|| cx.missing("a target group"))?;
                    props.push(
                        "loadBalancers",
                        list([m([
                            ("targetGroupArn", s(cx.reference(id, "arn")?)),
                            ("containerName", s(workload.clone())),
                            ("containerPort", i(*port)),
                        ])]),
                    );
                }
            }
            props.push("region", s(cx.region()));
            ("aws:ecs/service:Service", props)
        }
        ItemSpec::CloudMapService { namespace, dns_name, .. } => {
            let zone = match &cx.item(namespace)?.spec {
                ItemSpec::CloudMapNamespace { name } => name.clone(),
                _ => return Err(cx.missing("a Cloud Map namespace as its `namespace`")),
            };
            let label = dns_name
                .strip_suffix(&format!(".{zone}"))
                .filter(|l| !l.is_empty() && !l.contains('.'))
                .ok_or_else(|| cx.missing(&format!("a DNS name inside `{zone}`")))?;
            (
                "aws:servicediscovery/service:Service",
                m([
                    ("name", s(label)),
                    (
                        "dnsConfig",
                        m([
                            ("namespaceId", s(cx.reference(namespace, "id")?)),
                            ("routingPolicy", s("MULTIVALUE")),
                            ("dnsRecords", list([m([("type", s("A")), ("ttl", i(10))])])),
                        ]),
                    ),
                    ("region", s(cx.region())),
                ]),
            )
        }
        ItemSpec::ScalingTarget { service, min_capacity, max_capacity, .. } => {
            let cluster = match &cx.item(service)?.spec {
                ItemSpec::EcsService { cluster, .. } => cluster.clone(),
                _ => return Err(cx.missing("an ECS service as its `service`")),
            };
            let resource_id = format!("service/${{{cluster}.name}}/${{{service}.name}}");
            s(cx.reference(&cluster, "name")?);
            s(cx.reference(service, "name")?);
            (
                "aws:appautoscaling/target:Target",
                m([
                    ("serviceNamespace", s("ecs")),
                    ("scalableDimension", s("ecs:service:DesiredCount")),
                    ("resourceId", s(resource_id)),
                    ("minCapacity", i(*min_capacity)),
                    ("maxCapacity", i(*max_capacity)),
                    ("region", s(cx.region())),
                ]),
            )
        }
        ItemSpec::ScalingPolicy { target, metric, target_value, .. } => (
            "aws:appautoscaling/policy:Policy",
            m([
                ("name", name),
                ("policyType", s("TargetTrackingScaling")),
                ("serviceNamespace", s(cx.reference(target, "serviceNamespace")?)),
                ("scalableDimension", s(cx.reference(target, "scalableDimension")?)),
                ("resourceId", s(cx.reference(target, "resourceId")?)),
                (
                    "targetTrackingScalingPolicyConfiguration",
                    m([
                        ("targetValue", i(*target_value)),
                        ("predefinedMetricSpecification", m([("predefinedMetricType", s(metric.clone()))])),
                    ]),
                ),
                ("region", s(cx.region())),
            ]),
        ),
        _ => {
            return Err(RenderError::Unsupported {
                item: item.id.to_string(),
                kind: item.kind.as_str().to_owned(),
                why: "this renderer does not know the item kind".to_owned(),
            });
        }
    };
    if takes_tags(token) {
        props.push("tags", to_yaml(&cx.tags(item)).map_err(|e| cx.missing(&e.to_string()))?);
    }
    cx.declare(item, token, props)
}

/// Resource types without a `tags` input.
fn takes_tags(token: &str) -> bool {
    !matches!(
        token,
        "aws:rds/proxyDefaultTargetGroup:ProxyDefaultTargetGroup"
            | "aws:rds/proxyTarget:ProxyTarget"
            | "aws:appautoscaling/policy:Policy"
    )
}

fn assume_role(service: &str) -> Y {
    json(m([
        ("Version", s("2012-10-17")),
        (
            "Statement",
            list([m([
                ("Effect", s("Allow")),
                ("Principal", m([("Service", s(service))])),
                ("Action", s("sts:AssumeRole")),
            ])]),
        ),
    ]))
}

fn task_secret(secret: &TaskSecret) -> Y {
    m([("name", s(secret.name.clone())), ("valueFrom", s(secret.parameter.clone()))])
}

/// The container health check of a command check; an HTTP path is checked by the target
/// group (public workloads) and has no container form without assuming a tool in the image.
fn container_health(health: &HealthSpec) -> Option<Y> {
    let command = health.command.as_ref()?;
    let mut words: Vec<Y> = Vec::with_capacity(command.len() + 1);
    if !matches!(command.first().map(CompactString::as_str), Some("CMD" | "CMD-SHELL")) {
        words.push(s("CMD"));
    }
    words.extend(command.iter().cloned().map(s));
    Some(m([
        ("command", Y::List(words)),
        ("interval", i(to_i64(health.interval_seconds))),
        ("timeout", i(to_i64(health.timeout_seconds))),
        ("retries", i(health.unhealthy_threshold)),
    ]))
}

/// Seconds and counts in a plan are far below `i64::MAX`; saturate rather than wrap.
fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}
