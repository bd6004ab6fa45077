//! One planned item -> its Pulumi resource(s). Every property comes from the plan; references
//! between items are `${<logical id>.<output>}`.

use std::collections::{BTreeMap, BTreeSet};

use runtime_plan::{
    CompactString, CredentialKind, HealthSpec, ItemKind, ItemSpec, ManagedBy, Plan, PlannedItem, TaskSecret,
};
use runway_schema::Expose;

use super::RenderError;
use super::yaml::{Y, i, m, s};

/// Config inputs of the program, in the order they are declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Input {
    VpcId,
    PrivateSubnetIds,
    PublicSubnetIds,
    CertificateArn,
}

impl Input {
    fn name(self) -> &'static str {
        match self {
            Input::VpcId => "vpcId",
            Input::PrivateSubnetIds => "privateSubnetIds",
            Input::PublicSubnetIds => "publicSubnetIds",
            Input::CertificateArn => "certificateArn",
        }
    }

    fn declaration(self) -> Y {
        match self {
            Input::VpcId | Input::CertificateArn => m([("type", s("string"))]),
            Input::PrivateSubnetIds | Input::PublicSubnetIds => {
                m([("type", s("array")), ("items", m([("type", s("string"))]))])
            }
        }
    }
}

/// Rendering state of one program.
pub(super) struct Ctx<'p> {
    plan: &'p Plan,
    inputs: BTreeSet<Input>,
    /// Secret config keys (postgres admin passwords), in item order.
    secrets: Vec<String>,
    /// `variables` of the program, in item order.
    pub(super) variables: Vec<(String, Y)>,
    /// The item being rendered and the ids its properties reference.
    current: String,
    referenced: BTreeSet<String>,
    /// Items by id (the first of an id): references are looked up once per property.
    by_id: BTreeMap<&'p str, &'p PlannedItem>,
    /// Ids of the services an autoscaling target drives.
    scaled: BTreeSet<&'p str>,
}

/// Resources an item renders to (see [`super::expected_resources`]).
pub(super) fn companions(item: &PlannedItem) -> usize {
    match &item.spec {
        ItemSpec::S3Bucket { versioning, block_public_access, .. } => {
            1 + usize::from(*versioning) + usize::from(*block_public_access)
        }
        _ => 1,
    }
}

fn json(value: Y) -> Y {
    m([("fn::toJSON", value)])
}

fn list(items: impl IntoIterator<Item = Y>) -> Y {
    Y::List(items.into_iter().collect())
}

impl<'p> Ctx<'p> {
    pub(super) fn new(plan: &'p Plan) -> Self {
        Self {
            plan,
            inputs: BTreeSet::new(),
            secrets: Vec::new(),
            variables: Vec::new(),
            current: String::new(),
            referenced: BTreeSet::new(),
            by_id: plan.items.iter().rev().map(|i| (i.id.as_str(), i)).collect(),
            scaled: plan
                .items
                .iter()
                .filter_map(|i| match &i.spec {
                    ItemSpec::ScalingTarget { service, .. } => Some(service.as_str()),
                    _ => None,
                })
                .collect(),
        }
    }

    /// The `config` section: the inputs used, then the secret passwords.
    pub(super) fn config(&self) -> Vec<(String, Y)> {
        let mut out: Vec<(String, Y)> =
            self.inputs.iter().map(|i| (i.name().to_owned(), i.declaration())).collect();
        for name in &self.secrets {
            out.push((name.clone(), m([("type", s("string")), ("secret", Y::Bool(true))])));
        }
        out
    }

    fn input(&mut self, input: Input) -> Y {
        self.inputs.insert(input);
        s(format!("${{{}}}", input.name()))
    }

    fn item(&self, id: &str) -> Result<&'p PlannedItem, RenderError> {
        self.by_id
            .get(id)
            .copied()
            .ok_or_else(|| RenderError::UnknownItem { item: self.current.clone(), missing: id.to_owned() })
    }

    /// `${id.attribute}`, the item checked to exist and recorded as referenced.
    fn reference(&mut self, id: &str, attribute: &str) -> Result<Y, RenderError> {
        self.item(id)?;
        self.referenced.insert(id.to_owned());
        Ok(s(format!("${{{id}.{attribute}}}")))
    }

    /// The value of a stack output: an attribute of an item the program declares.
    pub(super) fn output_reference(
        &mut self,
        output: &str,
        id: &str,
        attribute: &str,
    ) -> Result<Y, RenderError> {
        self.current = format!("output {output}");
        self.reference(id, attribute)
    }

    fn tags(&self, item: &PlannedItem) -> Y {
        m([
            ("product", s(self.plan.product.clone())),
            ("environment", s(self.plan.environment.clone())),
            ("runway-resource", s(item.owner.as_deref().unwrap_or("platform"))),
            ("runway-item", s(item.id.clone())),
        ])
    }

    fn region(&self) -> Y {
        s(self.plan.region.clone())
    }

    /// An item another component creates: looked up by name into a variable of its id.
    pub(super) fn lookup(&mut self, item: &PlannedItem) -> Result<(), RenderError> {
        self.current = item.id.to_string();
        match &item.spec {
            ItemSpec::ProxySecret { name, .. } => {
                let invoke = m([
                    ("function", s("aws:secretsmanager:getSecret")),
                    ("arguments", m([("name", s(name.clone())), ("region", self.region())])),
                ]);
                self.variables.push((item.id.to_string(), m([("fn::invoke", invoke)])));
                Ok(())
            }
            _ => Err(RenderError::Unsupported {
                item: item.id.to_string(),
                kind: item.kind.as_str().to_owned(),
                why: "only a proxy secret can be created outside the program".to_owned(),
            }),
        }
    }

    /// The secret config key holding the admin password of a postgres resource.
    fn admin_password(&mut self, resource: &str) -> Result<Y, RenderError> {
        let generated = self
            .plan
            .secrets
            .generated
            .iter()
            .find(|g| g.resource == resource && g.kind == CredentialKind::PostgresAdminPassword)
            .ok_or_else(|| RenderError::Missing {
                item: self.current.clone(),
                what: format!("a generated admin password for `{resource}`"),
            })?;
        if !self.secrets.iter().any(|v| *v == generated.variable) {
            self.secrets.push(generated.variable.to_string());
        }
        Ok(s(format!("${{{}}}", generated.variable)))
    }

    /// The resource(s) of an item managed by Pulumi: `(logical id, resource)`.
    pub(super) fn resource(&mut self, item: &PlannedItem) -> Result<Vec<(String, Y)>, RenderError> {
        self.current = item.id.to_string();
        self.referenced.clear();
        let name = s(item.physical_name.clone());
        let (token, mut props, extra) = match &item.spec {
            ItemSpec::EcsCluster {} => {
                ("aws:ecs/cluster:Cluster", m([("name", name), ("region", self.region())]), vec![])
            }
            ItemSpec::TaskExecutionRole { ssm_prefix, kms_key } => {
                let parameters = format!(
                    "arn:aws:ssm:{}:*:parameter{}/*",
                    self.plan.region,
                    ssm_prefix.trim_end_matches('/')
                );
                let decrypt = if kms_key.starts_with("alias/") {
                    m([
                        ("Effect", s("Allow")),
                        ("Action", s("kms:Decrypt")),
                        ("Resource", s("*")),
                        (
                            "Condition",
                            m([(
                                "ForAnyValue:StringEquals",
                                m([("kms:ResourceAliases", s(kms_key.clone()))]),
                            )]),
                        ),
                    ])
                } else {
                    m([
                        ("Effect", s("Allow")),
                        ("Action", s("kms:Decrypt")),
                        ("Resource", s(kms_key.clone())),
                    ])
                };
                let policy = json(m([
                    ("Version", s("2012-10-17")),
                    (
                        "Statement",
                        list([
                            m([
                                ("Effect", s("Allow")),
                                ("Action", list([s("ssm:GetParameters"), s("ssm:GetParameter")])),
                                ("Resource", s(parameters)),
                            ]),
                            decrypt,
                        ]),
                    ),
                ]));
                (
                    "aws:iam/role:Role",
                    m([
                        ("name", name),
                        ("assumeRolePolicy", assume_role("ecs-tasks.amazonaws.com")),
                        (
                            "managedPolicyArns",
                            list([s(
                                "arn:aws:iam::aws:policy/service-role/AmazonECSTaskExecutionRolePolicy",
                            )]),
                        ),
                        (
                            "inlinePolicies",
                            list([m([("name", s("read-runtime-parameters")), ("policy", policy)])]),
                        ),
                    ]),
                    vec![],
                )
            }
            ItemSpec::CloudMapNamespace { name: dns } => (
                "aws:servicediscovery/privateDnsNamespace:PrivateDnsNamespace",
                m([("name", s(dns.clone())), ("vpc", self.input(Input::VpcId)), ("region", self.region())]),
                vec![],
            ),
            ItemSpec::Alb { .. } => (
                "aws:lb/loadBalancer:LoadBalancer",
                m([
                    ("name", name),
                    ("loadBalancerType", s("application")),
                    ("internal", Y::Bool(false)),
                    ("subnets", self.input(Input::PublicSubnetIds)),
                    ("region", self.region()),
                ]),
                vec![],
            ),
            ItemSpec::AlbListener { alb, port, protocol } => (
                "aws:lb/listener:Listener",
                m([
                    ("loadBalancerArn", self.reference(alb, "arn")?),
                    ("port", i(*port)),
                    ("protocol", s(protocol.clone())),
                    ("sslPolicy", s("ELBSecurityPolicy-TLS13-1-2-2021-06")),
                    ("certificateArn", self.input(Input::CertificateArn)),
                    (
                        "defaultActions",
                        list([m([
                            ("type", s("fixed-response")),
                            (
                                "fixedResponse",
                                m([
                                    ("contentType", s("text/plain")),
                                    ("statusCode", s("404")),
                                    ("messageBody", s("not found")),
                                ]),
                            ),
                        ])]),
                    ),
                    ("region", self.region()),
                ]),
                vec![],
            ),
            ItemSpec::DbSubnetGroup {} => (
                "aws:rds/subnetGroup:SubnetGroup",
                m([
                    ("name", name),
                    ("subnetIds", self.input(Input::PrivateSubnetIds)),
                    ("region", self.region()),
                ]),
                vec![],
            ),
            ItemSpec::CacheSubnetGroup {} => (
                "aws:elasticache/subnetGroup:SubnetGroup",
                m([
                    ("name", name),
                    ("description", s(format!("runway {} {}", self.plan.product, self.plan.environment))),
                    ("subnetIds", self.input(Input::PrivateSubnetIds)),
                    ("region", self.region()),
                ]),
                vec![],
            ),
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
                self.item(admin_secret)?;
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
                        ("password", self.admin_password(resource)?),
                        ("dbSubnetGroupName", self.reference(subnet_group, "name")?),
                        ("publiclyAccessible", Y::Bool(false)),
                        ("finalSnapshotIdentifier", s(format!("{}-final", item.physical_name))),
                        ("region", self.region()),
                    ]),
                    vec![],
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
                self.item(admin_secret)?;
                (
                    "aws:rds/cluster:Cluster",
                    m([
                        ("clusterIdentifier", name),
                        ("engine", s("aurora-postgresql")),
                        ("engineVersion", s(engine_version.clone())),
                        ("databaseName", s(database.clone())),
                        ("masterUsername", s(username.clone())),
                        ("masterPassword", self.admin_password(resource)?),
                        ("dbSubnetGroupName", self.reference(subnet_group, "name")?),
                        ("storageEncrypted", Y::Bool(true)),
                        ("finalSnapshotIdentifier", s(format!("{}-final", item.physical_name))),
                        ("region", self.region()),
                    ]),
                    vec![],
                )
            }
            ItemSpec::AuroraInstance { cluster, instance_class, .. } => {
                let subnet_group = match &self.item(cluster)?.spec {
                    ItemSpec::AuroraCluster { subnet_group, .. } => subnet_group.clone(),
                    _ => return Err(self.missing("an Aurora cluster as its `cluster`")),
                };
                (
                    "aws:rds/clusterInstance:ClusterInstance",
                    m([
                        ("identifier", name),
                        ("clusterIdentifier", self.reference(cluster, "id")?),
                        ("engine", s("aurora-postgresql")),
                        ("instanceClass", s(instance_class.clone())),
                        ("dbSubnetGroupName", self.reference(&subnet_group, "name")?),
                        ("publiclyAccessible", Y::Bool(false)),
                        ("region", self.region()),
                    ]),
                    vec![],
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
                    ("region", self.region()),
                ]),
                vec![],
            ),
            ItemSpec::ProxyRole { secret } => {
                let policy = json(m([
                    ("Version", s("2012-10-17")),
                    (
                        "Statement",
                        list([m([
                            ("Effect", s("Allow")),
                            ("Action", s("secretsmanager:GetSecretValue")),
                            ("Resource", self.reference(secret, "arn")?),
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
                    vec![],
                )
            }
            ItemSpec::RdsProxy { engine_family, secret, role, require_tls, .. } => (
                "aws:rds/proxy:Proxy",
                m([
                    ("name", name),
                    ("engineFamily", s(engine_family.clone())),
                    ("roleArn", self.reference(role, "arn")?),
                    ("requireTls", Y::Bool(*require_tls)),
                    ("vpcSubnetIds", self.input(Input::PrivateSubnetIds)),
                    (
                        "auths",
                        list([m([
                            ("authScheme", s("SECRETS")),
                            ("iamAuth", s("DISABLED")),
                            ("secretArn", self.reference(secret, "arn")?),
                        ])]),
                    ),
                    ("region", self.region()),
                ]),
                vec![],
            ),
            ItemSpec::RdsProxyTargetGroup { proxy } => (
                "aws:rds/proxyDefaultTargetGroup:ProxyDefaultTargetGroup",
                m([("dbProxyName", self.reference(proxy, "name")?), ("region", self.region())]),
                vec![],
            ),
            ItemSpec::RdsProxyTarget { proxy, target_group, target } => {
                let target_prop = match self.item(target)?.kind {
                    ItemKind::RdsInstance => ("dbInstanceIdentifier", self.reference(target, "identifier")?),
                    ItemKind::AuroraCluster => {
                        ("dbClusterIdentifier", self.reference(target, "clusterIdentifier")?)
                    }
                    _ => return Err(self.missing("an RDS instance or Aurora cluster as its target")),
                };
                (
                    "aws:rds/proxyTarget:ProxyTarget",
                    m([
                        ("dbProxyName", self.reference(proxy, "name")?),
                        ("targetGroupName", self.reference(target_group, "name")?),
                        target_prop,
                        ("region", self.region()),
                    ]),
                    vec![],
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
                            ("region", self.region()),
                        ]),
                    ),
                    ("return", s("value")),
                ]);
                self.variables.push((token.clone(), m([("fn::secret", m([("fn::invoke", invoke)]))])));
                (
                    "aws:elasticache/replicationGroup:ReplicationGroup",
                    m([
                        ("replicationGroupId", name),
                        (
                            "description",
                            s(format!("runway {} {} {resource}", self.plan.product, self.plan.environment)),
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
                        ("subnetGroupName", self.reference(subnet_group, "name")?),
                        ("region", self.region()),
                    ]),
                    vec![],
                )
            }
            ItemSpec::SqsQueue {
                fifo, visibility_timeout_seconds, dead_letter_queue, max_receives, ..
            } => {
                let mut props = m([("name", name)]);
                if *fifo {
                    props.push("fifoQueue", Y::Bool(true));
                }
                props.push("visibilityTimeoutSeconds", i(to_i64(*visibility_timeout_seconds)));
                if let Some(dlq) = dead_letter_queue {
                    let receives = max_receives
                        .ok_or_else(|| self.missing("`maxReceives` with its dead-letter queue"))?;
                    props.push(
                        "redrivePolicy",
                        json(m([
                            ("deadLetterTargetArn", self.reference(dlq, "arn")?),
                            ("maxReceiveCount", i(receives)),
                        ])),
                    );
                }
                props.push("region", self.region());
                ("aws:sqs/queue:Queue", props, vec![])
            }
            ItemSpec::SqsDeadLetterQueue { fifo, retention_seconds, .. } => {
                let mut props = m([("name", name)]);
                if *fifo {
                    props.push("fifoQueue", Y::Bool(true));
                }
                props.push("messageRetentionSeconds", i(to_i64(*retention_seconds)));
                props.push("region", self.region());
                ("aws:sqs/queue:Queue", props, vec![])
            }
            ItemSpec::SnsTopic { fifo, .. } => {
                let mut props = m([("name", name)]);
                if *fifo {
                    props.push("fifoTopic", Y::Bool(true));
                }
                props.push("region", self.region());
                ("aws:sns/topic:Topic", props, vec![])
            }
            ItemSpec::S3Bucket { versioning, block_public_access, .. } => {
                let bucket = s(format!("${{{}.id}}", item.id));
                let mut extra = Vec::new();
                if *block_public_access {
                    extra.push((
                        format!("{}--public-access-block", item.id),
                        m([
                            ("type", s("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock")),
                            (
                                "properties",
                                m([
                                    ("bucket", bucket.clone()),
                                    ("blockPublicAcls", Y::Bool(true)),
                                    ("blockPublicPolicy", Y::Bool(true)),
                                    ("ignorePublicAcls", Y::Bool(true)),
                                    ("restrictPublicBuckets", Y::Bool(true)),
                                    ("region", self.region()),
                                ]),
                            ),
                        ]),
                    ));
                }
                if *versioning {
                    extra.push((
                        format!("{}--versioning", item.id),
                        m([
                            ("type", s("aws:s3/bucketVersioning:BucketVersioning")),
                            (
                                "properties",
                                m([
                                    ("bucket", bucket),
                                    ("versioningConfiguration", m([("status", s("Enabled"))])),
                                    ("region", self.region()),
                                ]),
                            ),
                        ]),
                    ));
                }
                ("aws:s3/bucket:Bucket", m([("bucket", name), ("region", self.region())]), extra)
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
                            environment
                                .iter()
                                .map(|(k, v)| m([("name", s(k.clone())), ("value", s(v.clone()))])),
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
                        ("executionRoleArn", self.reference(execution_role, "arn")?),
                        ("containerDefinitions", json(list([container]))),
                        ("region", self.region()),
                    ]),
                    vec![],
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
                    ("cluster", self.reference(cluster, "arn")?),
                    ("taskDefinition", self.reference(task_definition, "arn")?),
                    ("desiredCount", i(*desired_count)),
                    ("launchType", s("FARGATE")),
                    (
                        "networkConfiguration",
                        m([
                            ("subnets", self.input(Input::PrivateSubnetIds)),
                            ("assignPublicIp", Y::Bool(false)),
                        ]),
                    ),
                ]);
                match expose {
                    Expose::Internal => {
                        let id = discovery_service
                            .as_deref()
                            .ok_or_else(|| self.missing("a Cloud Map service"))?;
                        props.push("serviceRegistries", m([("registryArn", self.reference(id, "arn")?)]));
                    }
                    Expose::Public => {
                        let id = target_group.as_deref().ok_or_else(|| self.missing("a target group"))?;
                        props.push(
                            "loadBalancers",
                            list([m([
                                ("targetGroupArn", self.reference(id, "arn")?),
                                ("containerName", s(workload.clone())),
                                ("containerPort", i(*port)),
                            ])]),
                        );
                    }
                }
                props.push("region", self.region());
                ("aws:ecs/service:Service", props, vec![])
            }
            ItemSpec::CloudMapService { namespace, dns_name, .. } => {
                let zone = match &self.item(namespace)?.spec {
                    ItemSpec::CloudMapNamespace { name } => name.clone(),
                    _ => return Err(self.missing("a Cloud Map namespace as its `namespace`")),
                };
                let label = dns_name
                    .strip_suffix(&format!(".{zone}"))
                    .filter(|l| !l.is_empty() && !l.contains('.'))
                    .ok_or_else(|| self.missing(&format!("a DNS name inside `{zone}`")))?;
                (
                    "aws:servicediscovery/service:Service",
                    m([
                        ("name", s(label)),
                        (
                            "dnsConfig",
                            m([
                                ("namespaceId", self.reference(namespace, "id")?),
                                ("routingPolicy", s("MULTIVALUE")),
                                ("dnsRecords", list([m([("type", s("A")), ("ttl", i(10))])])),
                            ]),
                        ),
                        ("region", self.region()),
                    ]),
                    vec![],
                )
            }
            ItemSpec::AlbTargetGroup {
                port,
                protocol,
                health_path,
                health_interval_seconds,
                health_timeout_seconds,
                healthy_threshold,
                unhealthy_threshold,
                ..
            } => (
                "aws:lb/targetGroup:TargetGroup",
                m([
                    ("name", name),
                    ("port", i(*port)),
                    ("protocol", s(protocol.clone())),
                    ("targetType", s("ip")),
                    ("vpcId", self.input(Input::VpcId)),
                    (
                        "healthCheck",
                        m([
                            ("path", s(health_path.clone())),
                            ("interval", i(to_i64(*health_interval_seconds))),
                            ("timeout", i(to_i64(*health_timeout_seconds))),
                            ("healthyThreshold", i(*healthy_threshold)),
                            ("unhealthyThreshold", i(*unhealthy_threshold)),
                        ]),
                    ),
                    ("region", self.region()),
                ]),
                vec![],
            ),
            ItemSpec::AlbListenerRule { listener, target_group, host, priority, .. } => (
                "aws:lb/listenerRule:ListenerRule",
                m([
                    ("listenerArn", self.reference(listener, "arn")?),
                    ("priority", i(*priority)),
                    (
                        "actions",
                        list([m([
                            ("type", s("forward")),
                            ("targetGroupArn", self.reference(target_group, "arn")?),
                        ])]),
                    ),
                    ("conditions", list([m([("hostHeader", m([("values", list([s(host.clone())]))]))])])),
                    ("region", self.region()),
                ]),
                vec![],
            ),
            ItemSpec::ScalingTarget { service, min_capacity, max_capacity, .. } => {
                let cluster = match &self.item(service)?.spec {
                    ItemSpec::EcsService { cluster, .. } => cluster.clone(),
                    _ => return Err(self.missing("an ECS service as its `service`")),
                };
                let resource_id = format!("service/${{{cluster}.name}}/${{{service}.name}}");
                self.reference(&cluster, "name")?;
                self.reference(service, "name")?;
                (
                    "aws:appautoscaling/target:Target",
                    m([
                        ("serviceNamespace", s("ecs")),
                        ("scalableDimension", s("ecs:service:DesiredCount")),
                        ("resourceId", s(resource_id)),
                        ("minCapacity", i(*min_capacity)),
                        ("maxCapacity", i(*max_capacity)),
                        ("region", self.region()),
                    ]),
                    vec![],
                )
            }
            ItemSpec::ScalingPolicy { target, metric, target_value, .. } => (
                "aws:appautoscaling/policy:Policy",
                m([
                    ("name", name),
                    ("policyType", s("TargetTrackingScaling")),
                    ("serviceNamespace", self.reference(target, "serviceNamespace")?),
                    ("scalableDimension", self.reference(target, "scalableDimension")?),
                    ("resourceId", self.reference(target, "resourceId")?),
                    (
                        "targetTrackingScalingPolicyConfiguration",
                        m([
                            ("targetValue", i(*target_value)),
                            (
                                "predefinedMetricSpecification",
                                m([("predefinedMetricType", s(metric.clone()))]),
                            ),
                        ]),
                    ),
                    ("region", self.region()),
                ]),
                vec![],
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
            props.push("tags", self.tags(item));
        }
        let mut resource = m([("type", s(token)), ("properties", props)]);
        let options = self.options(item)?;
        if !options.is_empty() {
            resource.push("options", Y::Map(options));
        }
        let mut out = vec![(item.id.to_string(), resource)];
        out.extend(extra);
        Ok(out)
    }

    /// `dependsOn` for the item's dependencies its properties do not reference, and
    /// `ignoreChanges: [desiredCount]` for a service an autoscaling target drives.
    fn options(&self, item: &PlannedItem) -> Result<Vec<(String, Y)>, RenderError> {
        let mut depends = Vec::new();
        for dep in &item.depends_on {
            let target = self.item(dep)?;
            if target.managed_by == ManagedBy::Pulumi && !self.referenced.contains(dep.as_str()) {
                depends.push(s(format!("${{{dep}}}")));
            }
        }
        let mut options = Vec::new();
        if !depends.is_empty() {
            options.push(("dependsOn".to_owned(), Y::List(depends)));
        }
        if self.scaled.contains(item.id.as_str()) {
            options.push(("ignoreChanges".to_owned(), list([s("desiredCount")])));
        }
        Ok(options)
    }

    fn missing(&self, what: &str) -> RenderError {
        RenderError::Missing { item: self.current.clone(), what: what.to_owned() }
    }
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
