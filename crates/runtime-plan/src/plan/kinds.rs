//! Every kind of item, one row each: the [`ItemKind`] of each [`ItemSpec`] variant and the
//! facts the planner and the renderers decide by kind. The table is the one place a kind is
//! described; the enum, its names and its predicates are generated from it, so a new kind is
//! one row (the compiler refuses a row that misses a column, and a variant of [`ItemSpec`]
//! without a row).

use runway_schema::AlarmName;
use serde::Serialize;

use super::data::{self, StoredData};
use super::item_spec::{Access, ItemSpec};

/// The note of an item with no price of its own and no other reason given.
const NO_CHARGE: &str = "no charge of its own";
/// The note of the ALB's parts.
const ALB_PRICE: &str = "included in the ALB's hourly and LCU price";
/// The note of the proxy's parts.
const PROXY_PRICE: &str = "included in the RDS Proxy's price";

/// How a workload's `uses` of a resource reaches one of its items: the task role's grant it
/// adds (see `lower::identity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UsedThrough {
    /// Not used through a grant.
    Nothing,
    /// Queue actions (read or write), granted with the resource's other queues.
    Queue,
    /// Publishing to the topic.
    Topic,
    /// The bucket's own actions and its objects'.
    Bucket,
}

item_kinds! {
    /// ECS cluster (one per environment with a workload).
    EcsCluster { .. } = "ecs-cluster" {
        words: "ECS cluster",
        name_limit: Some(255),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// IAM role the ECS agent uses for one workload: pull its image, read its SSM parameters.
    TaskExecutionRole { grants, .. } = "task-execution-role" {
        words: "task execution role",
        name_limit: Some(64),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: true,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::Grants(grants),
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// IAM role one workload's containers run as: what its `uses` need, nothing more.
    TaskRole { grants, .. } = "task-role" {
        words: "task role",
        name_limit: Some(64),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::Grants(grants),
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// Secrets Manager secret `{"username","password"}` of a workload's private registry,
    /// copied from Infisical by `runway secrets prepare` (`registryCredentials: NAME`).
    RegistrySecret { .. } = "registry-secret" {
        words: "registry secret",
        name_limit: Some(512),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: true,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// The environment's customer managed KMS key (`alias/runway/<product>/<env>`): encrypts its
    /// SSM parameters and the secrets `runway secrets prepare` writes, which creates it.
    KmsKey { .. } = "kms-key" {
        words: "KMS key",
        // Its alias, `alias/` included.
        name_limit: Some(256),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        // What the key encrypted (the SSM parameters, the secrets) is readable only with it.
        stored_data: data::KEY,
        database_server: false,
        alarms: [],
    }
    /// VPC security group: who may reach what it guards, on which port, and where that may go.
    SecurityGroup { ingress, egress, .. } = "security-group" {
        words: "security group",
        name_limit: Some(255),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::Rules { ingress, egress },
        stored_data: None,
        database_server: true,
        alarms: [],
    }
    /// Cloud Map private DNS namespace `<env>.<product>.internal`.
    CloudMapNamespace { .. } = "cloud-map-namespace" {
        words: "Cloud Map namespace",
        name_limit: Some(253),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// Application Load Balancer.
    Alb { .. } = "alb" {
        words: "ALB",
        name_limit: Some(32),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [AlbErrors],
    }
    /// HTTPS listener of the ALB.
    AlbListener(_) = "alb-listener" {
        words: "ALB listener",
        name_limit: None,
        included: ALB_PRICE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// S3 bucket the ALB writes its access logs to (production).
    AlbLogBucket(bucket) = "alb-log-bucket" {
        words: "ALB log bucket",
        name_limit: Some(63),
        included: NO_CHARGE,
        billed_by_use: true,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: bucket.protect,
        apply_immediately: None,
        access: Access::None,
        stored_data: data::ACCESS_LOGS,
        database_server: false,
        alarms: [],
    }
    /// DB subnet group (one per environment with a postgres resource).
    DbSubnetGroup {} = "db-subnet-group" {
        words: "DB subnet group",
        name_limit: Some(255),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: true,
        alarms: [],
    }
    /// ElastiCache subnet group (one per environment with a cache).
    CacheSubnetGroup {} = "cache-subnet-group" {
        words: "cache subnet group",
        name_limit: Some(255),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// RDS PostgreSQL instance.
    RdsInstance(db) = "rds-instance" {
        words: "RDS instance",
        name_limit: Some(63),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: db.protection.protect,
        apply_immediately: Some(db.apply_immediately),
        access: Access::None,
        stored_data: data::RDS_INSTANCE,
        database_server: true,
        alarms: [DbCpu, DbFreeStorage, DbFreeableMemory, DbConnections],
    }
    /// Aurora PostgreSQL cluster.
    AuroraCluster(db) = "aurora-cluster" {
        words: "Aurora cluster",
        name_limit: Some(63),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: db.protection.protect,
        apply_immediately: Some(db.apply_immediately),
        access: Access::None,
        stored_data: data::AURORA_CLUSTER,
        database_server: true,
        alarms: [DbCpu, DbFreeableMemory, DbConnections, DbReplicaLag],
    }
    /// Aurora PostgreSQL instance.
    AuroraInstance { apply_immediately, .. } = "aurora-instance" {
        words: "Aurora instance",
        name_limit: Some(63),
        included: "included in the Aurora cluster's price",
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: Some(*apply_immediately),
        access: Access::None,
        // Compute: the cluster's volume holds the data.
        stored_data: None,
        database_server: true,
        alarms: [],
    }
    /// Secrets Manager secret holding the admin credential for RDS Proxy.
    ProxySecret { .. } = "proxy-secret" {
        words: "proxy secret",
        name_limit: Some(512),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: true,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: true,
        alarms: [],
    }
    /// IAM role RDS Proxy assumes to read its secret.
    ProxyRole { .. } = "proxy-role" {
        words: "proxy role",
        name_limit: Some(64),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: true,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: true,
        alarms: [],
    }
    /// RDS Proxy.
    RdsProxy(_) = "rds-proxy" {
        words: "RDS Proxy",
        name_limit: Some(60),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: true,
        alarms: [ProxyBorrowLatency],
    }
    /// The proxy's default target group.
    RdsProxyTargetGroup { .. } = "rds-proxy-target-group" {
        words: "proxy target group",
        name_limit: None,
        included: PROXY_PRICE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: true,
        alarms: [],
    }
    /// The proxy's target (the instance or cluster).
    RdsProxyTarget(_) = "rds-proxy-target" {
        words: "proxy target",
        name_limit: None,
        included: PROXY_PRICE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: true,
        alarms: [],
    }
    /// ElastiCache replication group, engine Valkey.
    CacheReplicationGroup(cache) = "cache-replication-group" {
        words: "ElastiCache",
        name_limit: Some(40),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: Some(cache.apply_immediately),
        access: Access::None,
        stored_data: data::CACHE,
        database_server: false,
        alarms: [CacheCpu, CacheMemory, CacheEvictions],
    }
    /// SQS queue.
    SqsQueue { .. } = "sqs-queue" {
        words: "SQS queue",
        name_limit: Some(80),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Queue,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: data::QUEUE,
        database_server: false,
        alarms: [QueueAge],
    }
    /// SQS dead-letter queue.
    SqsDeadLetterQueue { .. } = "sqs-dead-letter-queue" {
        words: "dead-letter queue",
        name_limit: Some(80),
        included: "requests counted in its queue's size",
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Queue,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: data::DEAD_LETTER_QUEUE,
        database_server: false,
        alarms: [DeadLetters],
    }
    /// SNS topic.
    SnsTopic(_) = "sns-topic" {
        words: "SNS topic",
        name_limit: Some(256),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Topic,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// S3 bucket (public access blocked).
    S3Bucket(bucket) = "s3-bucket" {
        words: "S3 bucket",
        name_limit: Some(63),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Bucket,
        protected: bucket.protect,
        apply_immediately: None,
        access: Access::None,
        stored_data: data::BUCKET,
        database_server: false,
        alarms: [],
    }
    /// ECS Fargate task definition.
    TaskDefinition(_) = "task-definition" {
        words: "task definition",
        name_limit: Some(255),
        included: "tasks are priced on the ECS service",
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// ECS service.
    EcsService(_) = "ecs-service" {
        words: "ECS service",
        name_limit: Some(255),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [ServiceCpu, ServiceMemory],
    }
    /// Cloud Map service of an internal workload.
    CloudMapService(_) = "cloud-map-service" {
        words: "Cloud Map service",
        name_limit: Some(63),
        included: "DNS queries from inside the VPC are free",
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// ALB target group of a public workload.
    AlbTargetGroup { .. } = "alb-target-group" {
        words: "target group",
        name_limit: Some(32),
        included: ALB_PRICE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [TargetErrors, UnhealthyTargets, TargetLatency, RunningTasks],
    }
    /// Listener rule `<workload>.<domain>` -> target group.
    AlbListenerRule { .. } = "alb-listener-rule" {
        words: "listener rule",
        name_limit: None,
        included: ALB_PRICE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// IAM role ECS assumes to shift a public workload's traffic during a release.
    TrafficRole(_) = "traffic-role" {
        words: "traffic role",
        name_limit: Some(64),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// Application Auto Scaling target of a service.
    ScalingTarget(_) = "scaling-target" {
        words: "scaling target",
        name_limit: None,
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// Target-tracking scaling policy of a service.
    ScalingPolicy { .. } = "scaling-policy" {
        words: "scaling policy",
        name_limit: Some(256),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// AWS Budgets monthly cost budget of a capped environment: the cap's backstop.
    Budget { .. } = "budget" {
        words: "budget",
        name_limit: Some(100),
        included: NO_CHARGE,
        billed_by_use: true,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// CloudWatch Logs log group of a workload's containers.
    LogGroup { .. } = "log-group" {
        words: "log group",
        name_limit: Some(512),
        included: NO_CHARGE,
        billed_by_use: true,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: data::LOGS,
        database_server: false,
        alarms: [],
    }
    /// Route 53 alias record of a public workload's host to the ALB.
    DnsRecord { .. } = "dns-record" {
        words: "DNS record",
        name_limit: None,
        included: "alias queries to an ALB are free; the hosted zone is an input",
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// VPC endpoint of an AWS service for the private subnets (`network.endpoints`).
    VpcEndpoint { .. } = "vpc-endpoint" {
        words: "VPC endpoint",
        // Its `Name` tag.
        name_limit: Some(255),
        included: "gateway endpoints have no charge",
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// The VPC the program is given, for what it charges the environment (the NAT gateways it
    /// pays for, data through them and out to the internet): not declared (`managedBy:
    /// existing`).
    Vpc { .. } = "vpc" {
        words: "VPC",
        // Not declared: its name is the program input it stands for.
        name_limit: None,
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// SNS topic of an environment's alerts: its alarms and ECS deployment failures notify
    /// it, and it mails the program's `alertEmails` input.
    AlertTopic { .. } = "alert-topic" {
        words: "alerts topic",
        name_limit: Some(256),
        included: "alerts stay in SNS's free tier (a million publishes and 1,000 emails a month)",
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// CloudWatch metric alarm (standard resolution, one metric), notifying the alerts topic.
    MetricAlarm { .. } = "metric-alarm" {
        words: "alarm",
        name_limit: Some(255),
        included: NO_CHARGE,
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: true,
        alarms: [],
    }
    /// EventBridge rule sending the cluster's ECS deployment failures to the alerts topic.
    EcsEventRule { .. } = "ecs-event-rule" {
        words: "ECS event rule",
        name_limit: Some(64),
        included: "AWS service events on the default event bus are free",
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,
        stored_data: None,
        database_server: false,
        alarms: [],
    }
    /// An EventBridge Scheduler schedule running a workload's task definition with a command,
    /// its role, and the rule sending a failed run to the alerts topic.
    Schedule(..) = "schedule" {
        words: "schedule",
        // Its role is named `<name>-run` (IAM: 64).
        name_limit: Some(60),
        included: "its runs are priced as task-hours; EventBridge Scheduler's first 14 million invocations a month are free",
        billed_by_use: false,
        holds_secret: false,
        decrypts_secrets: false,
        used_through: Nothing,
        protected: false,
        apply_immediately: None,
        access: Access::None,        stored_data: None,
        database_server: false,
        alarms: [],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row's JSON name is its own, kebab-case, and `ALL` holds every kind once.
    #[test]
    fn every_kind_has_its_own_kebab_name() {
        let mut names: Vec<&str> = ItemKind::ALL.iter().map(|k| k.as_str()).collect();
        assert!(
            names.iter().all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')),
            "{names:?}"
        );
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ItemKind::ALL.len());
    }

    /// The columns say what the hand-written lists they replaced said: the kinds billed by
    /// use, the secrets under the environment's key and the roles that read them.
    #[test]
    fn the_columns_keep_the_lists_they_replaced() {
        let with = |column: fn(ItemKind) -> bool| -> Vec<ItemKind> {
            ItemKind::ALL.iter().copied().filter(|k| column(*k)).collect()
        };
        assert_eq!(
            with(ItemKind::billed_by_use),
            [ItemKind::AlbLogBucket, ItemKind::Budget, ItemKind::LogGroup]
        );
        assert_eq!(with(ItemKind::holds_secret), [ItemKind::RegistrySecret, ItemKind::ProxySecret]);
        assert_eq!(with(ItemKind::decrypts_secrets), [ItemKind::TaskExecutionRole, ItemKind::ProxyRole]);
        let queues: Vec<ItemKind> =
            ItemKind::ALL.iter().copied().filter(|k| k.used_through() == UsedThrough::Queue).collect();
        assert_eq!(queues, [ItemKind::SqsQueue, ItemKind::SqsDeadLetterQueue]);
    }

    #[test]
    fn databases_caches_buckets_and_queues_hold_data_and_services_do_not() {
        for kind in [ItemKind::RdsInstance, ItemKind::AuroraCluster, ItemKind::CacheReplicationGroup] {
            assert!(kind.stored_data().is_some(), "{kind:?}");
        }
        for kind in [ItemKind::S3Bucket, ItemKind::SqsQueue, ItemKind::SqsDeadLetterQueue] {
            assert!(kind.stored_data().is_some(), "{kind:?}");
        }
        for kind in
            [ItemKind::EcsService, ItemKind::TaskDefinition, ItemKind::AuroraInstance, ItemKind::SnsTopic]
        {
            assert_eq!(kind.stored_data(), None, "{kind:?}");
        }
        assert_eq!(ItemKind::RdsInstance.stored_data().map(|d| d.noun), Some("database"));
    }
}
