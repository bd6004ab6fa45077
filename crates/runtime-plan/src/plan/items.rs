//! The items of a plan: one AWS item to declare each, its kind, who manages it and how it is
//! priced.

use compact_str::CompactString;
use runway_schema::Money;
use serde::Serialize;

use super::item_spec::ItemSpec;

/// Who creates an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ManagedBy {
    /// Declared by the emitted Pulumi program.
    Pulumi,
    /// Created and filled by `runway secrets prepare` before `pulumi up`; the program only
    /// looks it up by name.
    SecretsAdapter,
    /// Already there, outside runway: part of the VPC the program is given (its NAT gateways).
    /// Nothing declares or looks it up; the plan holds it for what it charges the environment.
    Existing,
}

/// Declares [`ItemKind`] from one list: each kind's doc, its JSON name and the words the plan's
/// text uses. The enum, [`ItemKind::ALL`], [`ItemKind::as_str`] and [`ItemKind::words`] come
/// from it, so a new kind is written once and the compiler asks for it everywhere it matters.
macro_rules! item_kinds {
    ($($(#[$doc:meta])* $variant:ident = $json:literal, $words:literal;)*) => {
        /// The kind of an AWS item (its type, without properties).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        pub enum ItemKind { $($(#[$doc])* #[serde(rename = $json)] $variant,)* }

        impl ItemKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [ItemKind] = &[$(ItemKind::$variant,)*];

            /// The kebab-case name (as in JSON).
            pub fn as_str(self) -> &'static str {
                match self { $(ItemKind::$variant => $json,)* }
            }

            /// What the item is, in the words a person reads in the plan's text (`RDS instance`,
            /// `ALB`, `task definition`).
            pub fn words(self) -> &'static str {
                match self { $(ItemKind::$variant => $words,)* }
            }
        }
    };
}

item_kinds! {
    /// ECS cluster (one per environment with a workload).
    EcsCluster = "ecs-cluster", "ECS cluster";
    /// IAM role the ECS agent uses for one workload: pull its image, read its SSM parameters.
    TaskExecutionRole = "task-execution-role", "task execution role";
    /// IAM role one workload's containers run as: what its `uses` need, nothing more.
    TaskRole = "task-role", "task role";
    /// Secrets Manager secret `{"username","password"}` of a workload's private registry,
    /// copied from Infisical by `runway secrets prepare` (`registryCredentials: NAME`).
    RegistrySecret = "registry-secret", "registry secret";
    /// The environment's customer managed KMS key (`alias/runway/<product>/<env>`): encrypts its
    /// SSM parameters and the secrets `runway secrets prepare` writes, which creates it.
    KmsKey = "kms-key", "KMS key";
    /// VPC security group: who may reach what it guards, on which port, and where that may go.
    SecurityGroup = "security-group", "security group";
    /// Cloud Map private DNS namespace `<env>.<product>.internal`.
    CloudMapNamespace = "cloud-map-namespace", "Cloud Map namespace";
    /// Application Load Balancer.
    Alb = "alb", "ALB";
    /// HTTPS listener of the ALB.
    AlbListener = "alb-listener", "ALB listener";
    /// S3 bucket the ALB writes its access logs to (production).
    AlbLogBucket = "alb-log-bucket", "ALB log bucket";
    /// DB subnet group (one per environment with a postgres resource).
    DbSubnetGroup = "db-subnet-group", "DB subnet group";
    /// ElastiCache subnet group (one per environment with a cache).
    CacheSubnetGroup = "cache-subnet-group", "cache subnet group";
    /// RDS PostgreSQL instance.
    RdsInstance = "rds-instance", "RDS instance";
    /// Aurora PostgreSQL cluster.
    AuroraCluster = "aurora-cluster", "Aurora cluster";
    /// Aurora PostgreSQL instance.
    AuroraInstance = "aurora-instance", "Aurora instance";
    /// Secrets Manager secret holding the admin credential for RDS Proxy.
    ProxySecret = "proxy-secret", "proxy secret";
    /// IAM role RDS Proxy assumes to read its secret.
    ProxyRole = "proxy-role", "proxy role";
    /// RDS Proxy.
    RdsProxy = "rds-proxy", "RDS Proxy";
    /// The proxy's default target group.
    RdsProxyTargetGroup = "rds-proxy-target-group", "proxy target group";
    /// The proxy's target (the instance or cluster).
    RdsProxyTarget = "rds-proxy-target", "proxy target";
    /// ElastiCache replication group, engine Valkey.
    CacheReplicationGroup = "cache-replication-group", "ElastiCache";
    /// SQS queue.
    SqsQueue = "sqs-queue", "SQS queue";
    /// SQS dead-letter queue.
    SqsDeadLetterQueue = "sqs-dead-letter-queue", "dead-letter queue";
    /// SNS topic.
    SnsTopic = "sns-topic", "SNS topic";
    /// S3 bucket (public access blocked).
    S3Bucket = "s3-bucket", "S3 bucket";
    /// ECS Fargate task definition.
    TaskDefinition = "task-definition", "task definition";
    /// ECS service.
    EcsService = "ecs-service", "ECS service";
    /// Cloud Map service of an internal workload.
    CloudMapService = "cloud-map-service", "Cloud Map service";
    /// ALB target group of a public workload.
    AlbTargetGroup = "alb-target-group", "target group";
    /// Listener rule `<workload>.<domain>` -> target group.
    AlbListenerRule = "alb-listener-rule", "listener rule";
    /// Application Auto Scaling target of a service.
    ScalingTarget = "scaling-target", "scaling target";
    /// Target-tracking scaling policy of a service.
    ScalingPolicy = "scaling-policy", "scaling policy";
    /// AWS Budgets monthly cost budget of a capped environment: the cap's backstop.
    Budget = "budget", "budget";
    /// CloudWatch Logs log group of a workload's containers.
    LogGroup = "log-group", "log group";
    /// Route 53 alias record of a public workload's host to the ALB.
    DnsRecord = "dns-record", "DNS record";
    /// VPC endpoint of an AWS service for the private subnets (`network.endpoints`).
    VpcEndpoint = "vpc-endpoint", "VPC endpoint";
    /// The VPC the program is given, for what it charges the environment (the NAT gateways it
    /// pays for, data through them and out to the internet): not declared (`managedBy:
    /// existing`).
    Vpc = "vpc", "VPC";
    /// SNS topic of an environment's alerts: its alarms and ECS deployment failures notify
    /// it, and it mails the program's `alertEmails` input.
    AlertTopic = "alert-topic", "alerts topic";
    /// CloudWatch metric alarm (standard resolution, one metric), notifying the alerts topic.
    MetricAlarm = "metric-alarm", "alarm";
    /// EventBridge rule sending the cluster's ECS deployment failures to the alerts topic.
    EcsEventRule = "ecs-event-rule", "ECS event rule";
}

impl ItemKind {
    /// Whether items of this kind are billed by a use the plan cannot know (log volume, an
    /// account's other budgets): their rates are shown, they have no amount.
    pub fn billed_by_use(self) -> bool {
        matches!(self, ItemKind::LogGroup | ItemKind::Budget | ItemKind::AlbLogBucket)
    }

    /// An item's monthly figure as people read it: `$x`, `by use`, or `unpriced`.
    pub fn price_text(self, monthly: Option<Money>) -> String {
        match monthly {
            Some(m) => format!("${m}"),
            None if self.billed_by_use() => "by use".to_owned(),
            None => "unpriced".to_owned(),
        }
    }
}

/// How an item's monthly figure was found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "status")]
pub enum Pricing {
    /// Priced by the catalogue; its lines are in [`CostSummary::lines`](super::CostSummary::lines).
    Priced,
    /// No charge of its own: free, or counted in another item's price.
    Included {
        /// Why (`included in the ALB's hourly price`).
        note: CompactString,
    },
    /// The catalogue cannot price it; never counted as $0.
    Unpriced {
        /// Why.
        reason: CompactString,
    },
    /// Billed by a use the plan cannot know (log volume, an account's other budgets): not in
    /// the estimate; its rates are in [`CostSummary::usage_based`](super::CostSummary::usage_based).
    UsageBased,
}

/// One AWS item to declare.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedItem {
    /// Stable logical id, `<owner>_<role>` (`main-db_proxy`, `env_ecs-cluster`); unique in a plan.
    pub id: CompactString,
    /// Its type.
    pub kind: ItemKind,
    /// The AWS name (within the AWS limit of its kind), or for items AWS names itself the
    /// qualified address of the item (`<proxy>/default`); unique in a plan.
    pub physical_name: CompactString,
    /// The resource or workload it belongs to; `None` for environment platform items.
    pub owner: Option<CompactString>,
    /// The size it is planned from, when it has one.
    pub size: Option<CompactString>,
    /// Who creates it.
    pub managed_by: ManagedBy,
    /// Monthly estimate (workloads at `scale.min`); `Some(0)` for included items; `None` when
    /// unpriced or usage-based.
    pub monthly: Option<Money>,
    /// Monthly figure at `scale.max`; equal to `monthly` for anything that does not scale.
    pub ceiling: Option<Money>,
    /// How the figure was found.
    pub pricing: Pricing,
    /// Logical ids of the items it references, in order.
    pub depends_on: Vec<CompactString>,
    /// Every property a renderer needs.
    pub spec: ItemSpec,
}

impl PlannedItem {
    /// What the item is within its owner, as a person reads it (`RDS instance`,
    /// `Aurora instance 2`).
    pub fn what(&self) -> String {
        // The kind's words (every kind has them), told apart where one owner has several.
        if let ItemSpec::AuroraInstance { index, .. } = &self.spec {
            return format!("Aurora instance {index}");
        }
        if let ItemSpec::SecurityGroup { guards, .. } = &self.spec {
            return format!("security group ({guards})");
        }
        // `com.amazonaws.<region>.<service>`: the service is what tells endpoints apart.
        if let ItemSpec::VpcEndpoint { service_name, .. } = &self.spec {
            let service = service_name.splitn(4, '.').nth(3).unwrap_or(service_name);
            return format!("VPC endpoint ({service})");
        }
        if let ItemSpec::Vpc { .. } = &self.spec {
            return "VPC (not declared)".to_owned();
        }
        if let ItemSpec::MetricAlarm { alarm, node, .. } = &self.spec {
            return match node {
                Some(n) => format!("alarm {} (node {n})", alarm.as_str()),
                None => format!("alarm {}", alarm.as_str()),
            };
        }
        // A postgres resource's bootstrap task (`<resource>_bootstrap-...`): its own items.
        if self.id.split_once('_').is_some_and(|(_, role)| role.starts_with("bootstrap-"))
            && matches!(
                self.kind,
                ItemKind::TaskDefinition | ItemKind::TaskExecutionRole | ItemKind::LogGroup
            )
        {
            return format!("bootstrap {}", self.kind.words());
        }
        // A one-off task's (a workload's `migrate`) beside the service's.
        if let ItemSpec::TaskDefinition(task) = &self.spec
            && task.command.is_some()
        {
            return "one-off task definition".to_owned();
        }
        self.kind.words().to_owned()
    }

    /// The owner a person reads: the resource or workload name, or `environment` for the
    /// environment's platform items.
    pub fn owner_name(&self) -> &str {
        self.owner.as_deref().unwrap_or("environment")
    }

    /// Must the deploy refuse to delete or replace it (Pulumi `protect`)? Production
    /// databases and buckets.
    pub fn protected(&self) -> bool {
        match &self.spec {
            ItemSpec::RdsInstance(db) => db.protection.protect,
            ItemSpec::AuroraCluster(db) => db.protection.protect,
            ItemSpec::S3Bucket { protect, .. } | ItemSpec::AlbLogBucket { protect, .. } => *protect,
            ItemSpec::EcsCluster { .. }
            | ItemSpec::TaskExecutionRole { .. }
            | ItemSpec::TaskRole { .. }
            | ItemSpec::SecurityGroup { .. }
            | ItemSpec::CloudMapNamespace { .. }
            | ItemSpec::Alb { .. }
            | ItemSpec::AlbListener(_)
            | ItemSpec::DbSubnetGroup { .. }
            | ItemSpec::CacheSubnetGroup { .. }
            | ItemSpec::AuroraInstance { .. }
            | ItemSpec::ProxySecret { .. }
            | ItemSpec::RegistrySecret { .. }
            | ItemSpec::KmsKey { .. }
            | ItemSpec::ProxyRole { .. }
            | ItemSpec::RdsProxy(_)
            | ItemSpec::RdsProxyTargetGroup { .. }
            | ItemSpec::RdsProxyTarget { .. }
            | ItemSpec::CacheReplicationGroup(_)
            | ItemSpec::SqsQueue { .. }
            | ItemSpec::SqsDeadLetterQueue { .. }
            | ItemSpec::SnsTopic { .. }
            | ItemSpec::TaskDefinition(_)
            | ItemSpec::EcsService(_)
            | ItemSpec::CloudMapService { .. }
            | ItemSpec::AlbTargetGroup { .. }
            | ItemSpec::AlbListenerRule { .. }
            | ItemSpec::ScalingTarget { .. }
            | ItemSpec::ScalingPolicy { .. }
            | ItemSpec::DnsRecord { .. }
            | ItemSpec::LogGroup { .. }
            | ItemSpec::Budget { .. }
            | ItemSpec::VpcEndpoint { .. }
            | ItemSpec::Vpc { .. }
            | ItemSpec::AlertTopic { .. }
            | ItemSpec::MetricAlarm { .. }
            | ItemSpec::EcsEventRule { .. } => false,
        }
    }

    /// Whether a change to it takes effect at the deploy (`Some(true)`) or at its next
    /// maintenance window (`Some(false)`); `None` for an item without a maintenance window.
    /// Databases and caches (the plan's `applyChanges`).
    pub fn apply_immediately(&self) -> Option<bool> {
        match &self.spec {
            ItemSpec::RdsInstance(db) => Some(db.apply_immediately),
            ItemSpec::AuroraCluster(db) => Some(db.apply_immediately),
            ItemSpec::AuroraInstance { apply_immediately, .. } => Some(*apply_immediately),
            ItemSpec::CacheReplicationGroup(cache) => Some(cache.apply_immediately),
            ItemSpec::EcsCluster { .. }
            | ItemSpec::TaskExecutionRole { .. }
            | ItemSpec::TaskRole { .. }
            | ItemSpec::SecurityGroup { .. }
            | ItemSpec::CloudMapNamespace { .. }
            | ItemSpec::Alb { .. }
            | ItemSpec::AlbListener(_)
            | ItemSpec::DbSubnetGroup { .. }
            | ItemSpec::CacheSubnetGroup { .. }
            | ItemSpec::ProxySecret { .. }
            | ItemSpec::ProxyRole { .. }
            | ItemSpec::RdsProxy(_)
            | ItemSpec::RdsProxyTargetGroup { .. }
            | ItemSpec::RdsProxyTarget { .. }
            | ItemSpec::SqsQueue { .. }
            | ItemSpec::SqsDeadLetterQueue { .. }
            | ItemSpec::SnsTopic { .. }
            | ItemSpec::S3Bucket { .. }
            | ItemSpec::AlbLogBucket { .. }
            | ItemSpec::TaskDefinition(_)
            | ItemSpec::EcsService(_)
            | ItemSpec::CloudMapService { .. }
            | ItemSpec::AlbTargetGroup { .. }
            | ItemSpec::AlbListenerRule { .. }
            | ItemSpec::ScalingTarget { .. }
            | ItemSpec::ScalingPolicy { .. }
            | ItemSpec::DnsRecord { .. }
            | ItemSpec::LogGroup { .. }
            | ItemSpec::Budget { .. }
            | ItemSpec::VpcEndpoint { .. }
            | ItemSpec::RegistrySecret { .. }
            | ItemSpec::Vpc { .. }
            | ItemSpec::AlertTopic { .. }
            | ItemSpec::MetricAlarm { .. }
            | ItemSpec::EcsEventRule { .. }
            | ItemSpec::KmsKey { .. } => None,
        }
    }

    /// The item as the plan's text names it: its owner and what it is (`main-db RDS
    /// instance`, `environment ALB`, `pdf-render task definition`). JSON keeps the logical id.
    pub fn label(&self) -> String {
        format!("{} {}", self.owner_name(), self.what())
    }
}
