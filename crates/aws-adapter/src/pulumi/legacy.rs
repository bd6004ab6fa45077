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
        ItemSpec::RdsInstance {
            resource,
            engine_version,
            size,
            storage_type,
            database,
            username,
            admin_secret,
            subnet_group,
        } => {
            cx.item(admin_secret)?;
            (
                "aws:rds/instance:Instance",
                m([
                    ("identifier", name),
                    ("engine", s("postgres")),
                    ("engineVersion", s(engine_version.clone())),
                    ("instanceClass", s(size.instance_class.clone())),
                    ("allocatedStorage", i(size.storage_gb)),
                    ("storageType", s(storage_type.clone())),
                    ("multiAz", Y::Bool(size.multi_az)),
                    ("storageEncrypted", Y::Bool(true)),
                    ("dbName", s(database.clone())),
                    ("username", s(username.clone())),
                    ("password", s(cx.admin_password(resource)?)),
                    ("dbSubnetGroupName", s(cx.reference(subnet_group, "name")?)),
                    ("publiclyAccessible", Y::Bool(false)),
                    ("finalSnapshotIdentifier", s(format!("{}-final", item.physical_name))),
                    ("region", s(cx.region())),
                ]),
            )
        }
        ItemSpec::AuroraCluster {
            resource,
            engine_version,
            database,
            username,
            admin_secret,
            subnet_group,
            ..
        } => {
            cx.item(admin_secret)?;
            (
                "aws:rds/cluster:Cluster",
                m([
                    ("clusterIdentifier", name),
                    ("engine", s("aurora-postgresql")),
                    ("engineVersion", s(engine_version.clone())),
                    ("databaseName", s(database.clone())),
                    ("masterUsername", s(username.clone())),
                    ("masterPassword", s(cx.admin_password(resource)?)),
                    ("dbSubnetGroupName", s(cx.reference(subnet_group, "name")?)),
                    ("storageEncrypted", Y::Bool(true)),
                    ("finalSnapshotIdentifier", s(format!("{}-final", item.physical_name))),
                    ("region", s(cx.region())),
                ]),
            )
        }
        ItemSpec::AuroraInstance { cluster, instance_class, .. } => {
            let subnet_group = match &cx.item(cluster)?.spec {
                ItemSpec::AuroraCluster { subnet_group, .. } => subnet_group.clone(),
                _ => return Err(cx.missing("an Aurora cluster as its `cluster`")),
            };
            (
                "aws:rds/clusterInstance:ClusterInstance",
                m([
                    ("identifier", name),
                    ("clusterIdentifier", s(cx.reference(cluster, "id")?)),
                    ("engine", s("aurora-postgresql")),
                    ("instanceClass", s(instance_class.clone())),
                    ("dbSubnetGroupName", s(cx.reference(&subnet_group, "name")?)),
                    ("publiclyAccessible", Y::Bool(false)),
                    ("region", s(cx.region())),
                ]),
            )
        }
        ItemSpec::ProxySecret { resource, .. } => (
            "aws:secretsmanager/secret:Secret",
            m([
                ("name", name),
                (
                    "description",
                    s(format!(
                        "RDS Proxy admin credential of {resource}; the value is written by `runway secrets prepare`"
                    )),
                ),
                ("region", s(cx.region())),
            ]),
        ),
        ItemSpec::ProxyRole { secret } => {
            let policy = json(m([
                ("Version", s("2012-10-17")),
                (
                    "Statement",
                    list([m([
                        ("Effect", s("Allow")),
                        ("Action", s("secretsmanager:GetSecretValue")),
                        ("Resource", s(cx.reference(secret, "arn")?)),
                    ])]),
                ),
            ]));
            (
                "aws:iam/role:Role",
                m([
                    ("name", name),
                    ("assumeRolePolicy", assume_role("rds.amazonaws.com")),
                    ("inlinePolicies", list([m([("name", s("read-proxy-secret")), ("policy", policy)])])),
                ]),
            )
        }
        ItemSpec::RdsProxy { engine_family, secret, role, require_tls, .. } => (
            "aws:rds/proxy:Proxy",
            m([
                ("name", name),
                ("engineFamily", s(engine_family.clone())),
                ("roleArn", s(cx.reference(role, "arn")?)),
                ("requireTls", Y::Bool(*require_tls)),
                ("vpcSubnetIds", s(cx.input(Input::PrivateSubnetIds))),
                (
                    "auths",
                    list([m([
                        ("authScheme", s("SECRETS")),
                        ("iamAuth", s("DISABLED")),
                        ("secretArn", s(cx.reference(secret, "arn")?)),
                    ])]),
                ),
                ("region", s(cx.region())),
            ]),
        ),
        ItemSpec::RdsProxyTargetGroup { proxy } => (
            "aws:rds/proxyDefaultTargetGroup:ProxyDefaultTargetGroup",
            m([("dbProxyName", s(cx.reference(proxy, "name")?)), ("region", s(cx.region()))]),
        ),
        ItemSpec::RdsProxyTarget { proxy, target_group, target } => {
            let target_prop = match cx.item(target)?.kind {
                ItemKind::RdsInstance => ("dbInstanceIdentifier", s(cx.reference(target, "identifier")?)),
                ItemKind::AuroraCluster => {
                    ("dbClusterIdentifier", s(cx.reference(target, "clusterIdentifier")?))
                }
                _ => return Err(cx.missing("an RDS instance or Aurora cluster as its target")),
            };
            (
                "aws:rds/proxyTarget:ProxyTarget",
                m([
                    ("dbProxyName", s(cx.reference(proxy, "name")?)),
                    ("targetGroupName", s(cx.reference(target_group, "name")?)),
                    target_prop,
                    ("region", s(cx.region())),
                ]),
            )
        }
        ItemSpec::CacheReplicationGroup {
            resource,
            engine,
            engine_version,
            size,
            automatic_failover,
            transit_encryption,
            auth_token_parameter,
            subnet_group,
        } => {
            let token = format!("{}--auth-token", item.id);
            let invoke = m([
                ("function", s("aws:ssm:getParameter")),
                (
                    "arguments",
                    m([
                        ("name", s(auth_token_parameter.clone())),
                        ("withDecryption", Y::Bool(true)),
                        ("region", s(cx.region())),
                    ]),
                ),
                ("return", s("value")),
            ]);
            cx.variable(item, token.clone(), &m([("fn::secret", m([("fn::invoke", invoke)]))]))?;
            (
                "aws:elasticache/replicationGroup:ReplicationGroup",
                m([
                    ("replicationGroupId", name),
                    (
                        "description",
                        s(format!("runway {} {} {resource}", cx.plan.product, cx.plan.environment)),
                    ),
                    ("engine", s(engine.clone())),
                    ("engineVersion", s(engine_version.clone())),
                    ("nodeType", s(size.node_type.clone())),
                    ("numCacheClusters", i(size.nodes)),
                    ("automaticFailoverEnabled", Y::Bool(*automatic_failover)),
                    ("multiAzEnabled", Y::Bool(*automatic_failover)),
                    ("transitEncryptionEnabled", Y::Bool(*transit_encryption)),
                    ("atRestEncryptionEnabled", Y::Bool(true)),
                    ("authToken", s(format!("${{{token}}}"))),
                    ("subnetGroupName", s(cx.reference(subnet_group, "name")?)),
                    ("region", s(cx.region())),
                ]),
            )
        }
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

pub(super) fn lookup<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let ItemSpec::ProxySecret { name, .. } = &item.spec else { unreachable!() };
    let invoke = m([
        ("function", s("aws:secretsmanager:getSecret")),
        ("arguments", m([("name", s(name.clone())), ("region", s(cx.region()))])),
    ]);
    cx.variable(item, item.id.to_string(), &m([("fn::invoke", invoke)]))
}
