//! Every property of an item, by type ([`ItemSpec`]), and how a VPC endpoint joins the VPC.

use compact_str::CompactString;
use serde::Serialize;

use super::parts::{Grant, SecurityRule};
use super::specs::{
    AlbListenerRuleSpec, AlbListenerSpec, AlbLogBucketSpec, AlbSpec, AlbTargetGroupSpec, AuroraClusterSpec,
    BudgetSpec, CacheReplicationGroupSpec, DnsRecordSpec, EcsServiceSpec, RdsInstanceSpec, RdsProxySpec,
    S3BucketSpec, ScalingPolicySpec, SqsQueueSpec, TaskDefinitionSpec,
};

/// Every property of an item, by type. Item references are logical ids.
///
/// Every item is as large as the largest spec, so the specs of the large kinds (databases,
/// caches, proxies, task definitions, services, listeners) and of the kinds larger than most
/// (the ALB and its log bucket, buckets, queues, target groups, listener rules, DNS records,
/// scaling policies, the budget) are boxed structs, and so are those of three words and more
/// that a plan has by the thousand but not by the ten thousand (proxy targets, topics, Cloud
/// Map services, traffic roles, scaling targets): a plan of tens of thousands of items stays
/// small, and a renderer takes the one struct it reads. Lists are boxed slices (16 bytes, no
/// room held). A unit test (`plan::sizes`) holds the size: 64 bytes, the largest unboxed
/// variants 56 (80 and 72 until the seventh pass: 1.4 MB at N = 10,000, for 0.6 MB of boxes).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum ItemSpec {
    /// ECS cluster.
    EcsCluster {
        /// Container Insights on: a service scaling on a queue's backlog divides it by the
        /// insights' `RunningTaskCount` (set only then).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        container_insights: bool,
    },
    /// A workload's task execution role (assumed by `ecs-tasks.amazonaws.com`): pulls its image
    /// and reads exactly the SSM parameters its task definition references.
    TaskExecutionRole {
        /// The workload.
        workload: CompactString,
        /// What the role may do, on what; empty when it needs nothing.
        grants: Vec<Grant>,
    },
    /// A workload's task role (assumed by `ecs-tasks.amazonaws.com`): what its containers may
    /// do with the queues, topics and buckets it uses. A workload that uses none has no task
    /// role (its containers get no AWS credentials).
    TaskRole {
        /// The workload.
        workload: CompactString,
        /// What the role may do, on what; never empty.
        grants: Vec<Grant>,
    },
    /// Secrets Manager secret `{"username","password"}` of a workload's private registry: the
    /// secrets adapter writes it from Infisical, the program looks it up by name, and ECS
    /// reads it (through the workload's execution role) to pull the image.
    RegistrySecret {
        /// The workload.
        workload: CompactString,
        /// The secret name `<product>/<env>/<workload>/registry-credentials`.
        name: CompactString,
    },
    /// Security group in the program's VPC input; what it may not do is denied (no default
    /// egress).
    SecurityGroup {
        /// What of its owner it guards, in words (`ALB`, `tasks`, `proxy`, `members on 5432`).
        guards: CompactString,
        /// Who may connect, on which port (a boxed list, as the other lists of a spec: it
        /// never grows once planned, and holds no room).
        ingress: Box<[SecurityRule]>,
        /// Where what it guards may connect, on which port.
        egress: Box<[SecurityRule]>,
    },
    /// Cloud Map private DNS namespace, in the program's VPC input.
    CloudMapNamespace {
        /// DNS name `<env>.<product>.internal`.
        name: CompactString,
    },
    /// Internet-facing ALB in the program's public subnets input.
    Alb(Box<AlbSpec>),
    /// S3 bucket of the ALB's access logs: public access blocked, SSE-S3 (the only encryption
    /// ALB log delivery supports), reachable over TLS only, its objects deleted after a while;
    /// its policy lets the region's Elastic Load Balancing log delivery put objects under
    /// `AWSLogs/`.
    AlbLogBucket(Box<AlbLogBucketSpec>),
    /// A listener of the ALB: HTTPS on 443 with the program's certificate input (a host no
    /// rule matches gets a 404), or HTTP on 80 redirecting everything to HTTPS.
    AlbListener(Box<AlbListenerSpec>),
    /// DB subnet group over the program's private subnets input.
    DbSubnetGroup {},
    /// ElastiCache subnet group over the program's private subnets input.
    CacheSubnetGroup {},
    /// RDS PostgreSQL instance; master password from the proxy secret.
    RdsInstance(Box<RdsInstanceSpec>),
    /// Aurora PostgreSQL cluster; master password from the proxy secret.
    AuroraCluster(Box<AuroraClusterSpec>),
    /// One Aurora instance of a cluster.
    #[serde(rename_all = "camelCase")]
    AuroraInstance {
        /// Logical id of the cluster.
        cluster: CompactString,
        /// Instance class.
        instance_class: CompactString,
        /// 1-based index (1 is the first writer).
        index: u32,
        /// Reachable from outside the VPC (always false).
        publicly_accessible: bool,
        /// A change takes effect at the deploy, not at the next maintenance window (the
        /// plan's `applyChanges`).
        apply_immediately: bool,
    },
    /// The environment's customer managed KMS key, created with its alias by `runway secrets
    /// prepare` (before anything is encrypted with it); the program declares its key policy.
    #[serde(rename_all = "camelCase")]
    KmsKey {
        /// Its alias (`alias/runway/<product>/<env>`), by which everything names it.
        alias: CompactString,
        /// Logical ids of the roles its key policy lets decrypt (through SSM and Secrets
        /// Manager only): every execution role and every proxy role, in plan order. Besides
        /// them the policy names the account (so that IAM policies decide, as in AWS's default
        /// key policy), the deploy role (the identity that runs `pulumi up`) and the
        /// `publishers`.
        decrypters: Box<[CompactString]>,
        /// The AWS services that publish to the alerts topic this key encrypts: the policy
        /// lets each generate data keys and decrypt with it. Empty without an alerts topic.
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        publishers: &'static [super::AlertPublisher],
    },
    /// Secrets Manager secret `{"username","password"}` for RDS Proxy.
    ProxySecret {
        /// The resource.
        resource: CompactString,
        /// The secret name `<product>/<env>/<resource>/proxy-admin`.
        name: CompactString,
    },
    /// IAM role RDS Proxy assumes; may read the admin's secret and the logins' (no other).
    ProxyRole {
        /// Logical id of the secret.
        secret: CompactString,
        /// Logical ids of the secrets of the consumers' login roles (left out of JSON when none).
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        logins: Box<[CompactString]>,
        /// In the environment previews are `from`: the names of every preview's login secrets
        /// on this proxy, `<product>/pr-*/<resource>/proxy-*`, which `runway preview up`
        /// registers with it (docs/previews.md, "The shared proxy's logins"); left out of
        /// JSON elsewhere. A boxed text: 16 bytes, so the variant fits beside the tag in 64.
        #[serde(skip_serializing_if = "Option::is_none")]
        previews: Option<Box<str>>,
    },
    /// RDS Proxy, TLS required, auth from the secret.
    RdsProxy(Box<RdsProxySpec>),
    /// The proxy's `default` target group.
    RdsProxyTargetGroup {
        /// Logical id of the proxy.
        proxy: CompactString,
    },
    /// The proxy's target.
    RdsProxyTarget(Box<RdsProxyTargetSpec>),
    /// ElastiCache replication group, engine Valkey, TLS and AUTH on.
    CacheReplicationGroup(Box<CacheReplicationGroupSpec>),
    /// SQS queue.
    SqsQueue(Box<SqsQueueSpec>),
    /// SQS dead-letter queue (14 days retention).
    #[serde(rename_all = "camelCase")]
    SqsDeadLetterQueue {
        /// The resource.
        resource: CompactString,
        /// FIFO (as its queue).
        fifo: bool,
        /// Message retention in seconds.
        retention_seconds: u64,
        /// Messages encrypted at rest with SQS-owned keys (SSE-SQS; always true).
        managed_sse: bool,
    },
    /// SNS topic.
    SnsTopic(Box<SnsTopicSpec>),
    /// S3 bucket, public access blocked, encrypted, TLS only.
    S3Bucket(Box<S3BucketSpec>),
    /// Fargate task definition, ARM64, awsvpc.
    TaskDefinition(Box<TaskDefinitionSpec>),
    /// ECS service on Fargate in the program's private subnets input.
    EcsService(Box<EcsServiceSpec>),
    /// Cloud Map service: A records of the tasks.
    CloudMapService(Box<CloudMapServiceSpec>),
    /// ALB target group, target type `ip`.
    AlbTargetGroup(Box<AlbTargetGroupSpec>),
    /// Listener rule: host header -> forward to the target group.
    AlbListenerRule(Box<AlbListenerRuleSpec>),
    /// IAM role ECS assumes (`ecs.amazonaws.com`) to shift a public workload's traffic between
    /// its two target groups during a release: it may read the load balancer's listeners,
    /// rules and targets, modify exactly that workload's listener rule and register targets in
    /// exactly its two target groups.
    TrafficRole(Box<TrafficRoleSpec>),
    /// Application Auto Scaling target (`ecs:service:DesiredCount`).
    ScalingTarget(Box<ScalingTargetSpec>),
    /// Target tracking of one metric: average CPU or memory, requests per target, or a
    /// queue's backlog per task.
    ScalingPolicy(Box<ScalingPolicySpec>),
    /// Route 53 alias record: a public workload's host, in the program's hosted zone input,
    /// resolving to the ALB.
    DnsRecord(Box<DnsRecordSpec>),
    /// A workload's log group: its containers' output, kept for the environment's retention.
    #[serde(rename_all = "camelCase")]
    LogGroup {
        /// The workload.
        workload: CompactString,
        /// Days the log events are kept.
        retention_days: u32,
    },
    /// Monthly cost budget over the costs tagged with the product and environment; its limit
    /// is the cap. It warns, it does not stop anything: the cap refuses plans, the budget
    /// catches what the plan cannot see (usage, resources made by hand).
    Budget(Box<BudgetSpec>),
    /// A VPC endpoint in the program's VPC input: the private subnets reach an AWS service
    /// without a NAT.
    #[serde(rename_all = "camelCase")]
    VpcEndpoint {
        /// `com.amazonaws.<region>.<service>`.
        service_name: CompactString,
        /// A network interface in each private subnet, or routes in the private route tables.
        endpoint_type: EndpointType,
        /// The service's public DNS name resolves to the interfaces inside the VPC (interface
        /// endpoints), so clients need no other address.
        private_dns: bool,
        /// Logical ids of its security groups (interface endpoints; none for a gateway).
        security_groups: Box<[CompactString]>,
        /// Availability Zones it has a network interface in, one private subnet each, and is
        /// billed for (`network.zones`); none for a gateway.
        zones: Option<u32>,
    },
    /// The VPC the program is given (`vpcId`), held for what it charges the environment: it is
    /// not declared (`managedBy: existing`), and no renderer writes it.
    #[serde(rename_all = "camelCase")]
    Vpc {
        /// NAT gateways of the VPC the environment pays for (`network.nat`, or, when it has
        /// workloads and no VPC endpoints, one per zone in production and one elsewhere).
        nat_gateways: u32,
        /// The environment declares interface endpoints, whose data it pays for.
        endpoints: bool,
    },
    /// SNS topic of the environment's alerts (`<product>-<env>-alerts`), encrypted with the
    /// environment's key when it has one (CloudWatch, EventBridge and Budgets cannot publish
    /// under the AWS managed `alias/aws/sns`, whose policy cannot name them; the key's policy
    /// does); its policy lets the publishers publish from this account only; each address of
    /// the program's `alertEmails` input is subscribed by email.
    #[serde(rename_all = "camelCase")]
    AlertTopic {
        /// Who may publish ([`ALERT_PUBLISHERS`](super::ALERT_PUBLISHERS)).
        publishers: &'static [super::AlertPublisher],
        /// Logical id of the key that encrypts it (`kmsMasterKeyId`): the environment's own
        /// key; `None` (not encrypted) when the environment names a key of its own
        /// (`secrets.ssm.kmsKey`), whose policy runway does not write.
        kms_key: Option<CompactString>,
        /// The SSM SecureString parameters holding the HTTPS endpoints it also notifies
        /// (`alerts.https`; `secrets prepare` copies each from Infisical), in the order written;
        /// each value is a secret (a pager's URL carries its key) and never in the plan.
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        https: Box<[CompactString]>,
    },
    /// CloudWatch metric alarm notifying the alerts topic when it fires and when it recovers.
    /// What it watches and how: [`alarm_metric`](super::alarm_metric) of `alarm`.
    #[serde(rename_all = "camelCase")]
    MetricAlarm {
        /// Which alarm.
        alarm: super::AlarmName,
        /// The cache node watched (1-based), for a cache's per-node alarms.
        node: Option<u32>,
        /// The threshold in the file's unit (`environments.<env>.alarms`, else the default).
        threshold: u64,
        /// The threshold in the metric's unit (bytes, seconds, microseconds, connections).
        metric_threshold: f64,
        /// The metric's dimensions.
        dimensions: Box<[super::AlarmDimension]>,
        /// Periods evaluated: the metric's, or more for an alarm on a public service's target
        /// group that must outlast the service's `health.grace`.
        evaluation_periods: u32,
        /// How many of them must breach (as many: a run of breaching periods).
        datapoints_to_alarm: u32,
    },
    /// EventBridge rule on the default bus: the cluster's ECS events in
    /// [`ECS_ALERT_EVENTS`](super::ECS_ALERT_EVENTS) go to the alerts topic.
    EcsEventRule {
        /// Logical id of the ECS cluster.
        cluster: CompactString,
        /// `(detail-type, eventName)` of each event sent.
        events: &'static [(&'static str, &'static str)],
    },
    /// A workload's scheduled run (`schedules.<name>`).
    Schedule(Box<ScheduleSpec>),
}

/// The target of an RDS Proxy ([`ItemSpec::RdsProxyTarget`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RdsProxyTargetSpec {
    /// Logical id of the proxy.
    pub proxy: CompactString,
    /// Logical id of the target group.
    pub target_group: CompactString,
    /// Logical id of the RDS instance or Aurora cluster.
    pub target: CompactString,
}

/// An SNS topic ([`ItemSpec::SnsTopic`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnsTopicSpec {
    /// The resource.
    pub resource: CompactString,
    /// FIFO topic.
    pub fifo: bool,
    /// Monthly requests the size assumes.
    pub monthly_requests: Option<u64>,
    /// The KMS key messages are encrypted at rest with (`alias/aws/sns`, the AWS managed key).
    pub kms_master_key: CompactString,
}

/// A Cloud Map service ([`ItemSpec::CloudMapService`]): A records of a workload's tasks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CloudMapServiceSpec {
    /// The workload.
    pub workload: CompactString,
    /// Logical id of the namespace.
    pub namespace: CompactString,
    /// `<workload>.<env>.<product>.internal`.
    pub dns_name: CompactString,
}

/// The role that shifts a public workload's traffic ([`ItemSpec::TrafficRole`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TrafficRoleSpec {
    /// The workload.
    pub workload: CompactString,
    /// Logical id of its listener rule.
    pub listener_rule: CompactString,
    /// Logical ids of its two target groups.
    pub target_groups: Vec<CompactString>,
}

/// An Application Auto Scaling target ([`ItemSpec::ScalingTarget`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScalingTargetSpec {
    /// The workload.
    pub workload: CompactString,
    /// Logical id of the service.
    pub service: CompactString,
    /// `scale.min`.
    pub min_capacity: u32,
    /// `scale.max`.
    pub max_capacity: u32,
    /// The hours it runs (`scale.<env>.active`): two scheduled actions, one raising the
    /// capacity to its hours' range at the start, one setting it to none at the end.
    /// Boxed: few targets have hours.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active: Option<Box<ActiveHours>>,
}

/// A workload's `schedules.<name>`: EventBridge Scheduler starts its task definition with the
/// command (RunTask on Fargate, one task) at each time of the expression; its own role may run
/// exactly that task definition's family in the cluster and pass exactly its roles.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleSpec {
    /// The workload.
    pub workload: CompactString,
    /// The schedule's name in the file.
    pub schedule: CompactString,
    /// The cron as written (five fields).
    pub cron: CompactString,
    /// EventBridge Scheduler's expression, `cron(M H DOM MON DOW *)`.
    pub expression: CompactString,
    /// The IANA timezone it is read in.
    pub timezone: CompactString,
    /// The container's command.
    pub command: Vec<CompactString>,
    /// Seconds a run may take (priced at, and stated).
    pub timeout_seconds: u64,
    /// Runs a month the cron makes (a 365-day year's matches over 12).
    pub runs_a_month: rust_decimal::Decimal,
    /// Logical id of the cluster.
    pub cluster: CompactString,
    /// Logical id of the task definition it runs (the service's).
    pub task_definition: CompactString,
    /// The container to override (named after the workload).
    pub container: CompactString,
    /// Logical ids of the security groups of its task (the service's).
    pub security_groups: Vec<CompactString>,
    /// Logical ids of the roles its role may pass: the task definition's execution and task
    /// roles.
    pub pass_roles: Vec<CompactString>,
    /// The ECS task group of its runs (`schedule-<name>`): what the failure rule matches.
    pub group: CompactString,
    /// A failed run (a container's exit code not 0, a task that could not start) reaches the
    /// alerts topic: the environment has one.
    pub alerts: bool,
}

/// What an item says about access: a security group's rules, a role's grants, or nothing.
#[derive(Clone, Copy, Debug)]
pub enum Access<'a> {
    /// A security group's rules.
    Rules {
        /// Who may reach what it guards.
        ingress: &'a [SecurityRule],
        /// Where what it guards may go.
        egress: &'a [SecurityRule],
    },
    /// A role's grants.
    Grants(&'a [Grant]),
    /// Neither.
    None,
}

/// How a VPC endpoint joins the VPC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum EndpointType {
    /// Network interfaces in the private subnets, billed per hour in each zone.
    Interface,
    /// Routes in the private route tables (S3); no charge.
    Gateway,
}

impl EndpointType {
    /// The name AWS uses (`Interface`, `Gateway`).
    pub fn as_str(self) -> &'static str {
        match self {
            EndpointType::Interface => "Interface",
            EndpointType::Gateway => "Gateway",
        }
    }
}

/// A scaling target's active hours as Application Auto Scaling's scheduled actions read them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveHours {
    /// When the hours start: `cron(M H ? * DAYS *)`.
    pub start: CompactString,
    /// When they end.
    pub stop: CompactString,
    /// The IANA timezone both are read in.
    pub timezone: CompactString,
    /// Tasks at least within the hours (`scale.min`, at least 1).
    pub min_capacity: u32,
}
