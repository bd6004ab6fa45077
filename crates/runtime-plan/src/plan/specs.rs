//! The boxed specs of the large kinds (databases, caches, proxies, task definitions, services,
//! listeners) and of the kinds larger than most, how a database is kept, a budget's alerts, and
//! what a scaling policy's metric is measured on.

use std::sync::Arc;

use compact_str::CompactString;
use cost::{CacheSize, PostgresSize, TaskSize};
use runway_schema::{Deploy, Expose, Money};
use serde::Serialize;

use super::parts::{HealthSpec, ListenerAction, PlainVariables, RepositoryCredentials, TaskSecret};

/// RDS PostgreSQL instance; master password from the proxy secret.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RdsInstanceSpec {
    /// The resource.
    pub resource: CompactString,
    /// Engine version (`16`).
    pub engine_version: CompactString,
    /// Instance class, storage (and the ceiling storage autoscaling grows it to), Multi-AZ
    /// from the catalogue.
    #[serde(flatten)]
    pub size: PostgresSize,
    /// `gp3`.
    pub storage_type: CompactString,
    /// Initial database name.
    pub database: CompactString,
    /// Master user name.
    pub username: CompactString,
    /// Logical id of the secret holding the master password.
    pub admin_secret: CompactString,
    /// The SSM SecureString `secrets prepare` writes the master password to: the program
    /// reads it into the provider's write-only input: in no config, and in the state only as
    /// that input, a Pulumi secret (docs/pulumi.md, "What reaches the state").
    pub admin_password_parameter: CompactString,
    /// Logical id of the DB subnet group.
    pub subnet_group: CompactString,
    /// Logical ids of its security groups.
    pub security_groups: Vec<CompactString>,
    /// Storage encrypted at rest (always true).
    pub storage_encrypted: bool,
    /// Reachable from outside the VPC (always false).
    pub publicly_accessible: bool,
    /// Backups, deletion protection and final snapshot.
    #[serde(flatten)]
    pub protection: DatabaseProtection,
    /// A change takes effect at the deploy, not at the next maintenance window (the plan's
    /// `applyChanges`).
    pub apply_immediately: bool,
}

/// Aurora PostgreSQL cluster; master password from the proxy secret.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuroraClusterSpec {
    /// The resource.
    pub resource: CompactString,
    /// Engine version (`16`).
    pub engine_version: CompactString,
    /// Instance class and count from the catalogue.
    #[serde(flatten)]
    pub size: PostgresSize,
    /// Initial database name.
    pub database: CompactString,
    /// Master user name.
    pub username: CompactString,
    /// Logical id of the secret holding the master password.
    pub admin_secret: CompactString,
    /// The SSM SecureString `secrets prepare` writes the master password to: the program
    /// reads it into the provider's write-only input: in no config, and in the state only as
    /// that input, a Pulumi secret (docs/pulumi.md, "What reaches the state").
    pub admin_password_parameter: CompactString,
    /// Logical id of the DB subnet group.
    pub subnet_group: CompactString,
    /// Logical ids of its security groups.
    pub security_groups: Vec<CompactString>,
    /// Storage encrypted at rest (always true).
    pub storage_encrypted: bool,
    /// Backups, deletion protection and final snapshot.
    #[serde(flatten)]
    pub protection: DatabaseProtection,
    /// A change takes effect at the deploy, not at the next maintenance window (the plan's
    /// `applyChanges`).
    pub apply_immediately: bool,
}

/// Fargate task definition, awsvpc, on the workload's CPU architecture.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskDefinitionSpec {
    /// The workload.
    pub workload: CompactString,
    /// The pinned image: one text shared with the workload's record and its other task
    /// definitions (`Arc`).
    pub image: Arc<str>,
    /// Where the image's registry credentials are read from; `None` for an image pulled
    /// anonymously (or from ECR, with the execution role).
    pub repository_credentials: Option<RepositoryCredentials>,
    /// CPU units and memory from the catalogue.
    #[serde(flatten)]
    pub task: TaskSize,
    /// `ARM64` or `X86_64` (`runtimePlatform.cpuArchitecture`), from the workload's `platform`.
    pub cpu_architecture: CompactString,
    /// Container port; `None` for a task that listens on none (a database's bootstrap).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// Health check, when declared.
    pub health: Option<HealthSpec>,
    /// Plain environment values, in file order.
    pub environment: PlainVariables,
    /// Secrets read from SSM, by variable name, in binding order then the workload's own.
    pub secrets: Vec<TaskSecret>,
    /// Logical id of the execution role.
    pub execution_role: CompactString,
    /// Logical id of the task role; `None` when the workload uses nothing IAM guards.
    pub task_role: Option<CompactString>,
    /// Logical id of the log group its container writes to (the `awslogs` driver).
    pub log_group: CompactString,
    /// The container's entry point (ECS `entryPoint`, replacing the image's ENTRYPOINT): the
    /// workload's `entryPoint`, for its `migrate` the migrate's own else the workload's;
    /// `None` runs the image's ENTRYPOINT.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_point: Option<Vec<CompactString>>,
    /// The container's command (ECS `command`, replacing the image's CMD; handed to the
    /// ENTRYPOINT as its arguments when there is one), for the task definition of a one-off
    /// task (a workload's `migrate`); `None` for a service's, which runs the image's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<CompactString>>,
}

/// ElastiCache replication group, engine Valkey, TLS and AUTH on.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheReplicationGroupSpec {
    /// The resource.
    pub resource: CompactString,
    /// `valkey`.
    pub engine: CompactString,
    /// Engine version (`8.0`).
    pub engine_version: CompactString,
    /// Node type and count from the catalogue.
    #[serde(flatten)]
    pub size: CacheSize,
    /// Automatic failover and Multi-AZ (more than one node).
    pub automatic_failover: bool,
    /// Transit encryption (required for AUTH).
    pub transit_encryption: bool,
    /// Encrypted at rest (always true).
    pub at_rest_encryption: bool,
    /// Days a daily snapshot is kept; 0 takes none.
    pub snapshot_retention_days: u32,
    /// SSM parameter holding the AUTH token the program reads.
    pub auth_token_parameter: CompactString,
    /// Logical id of the cache subnet group.
    pub subnet_group: CompactString,
    /// Logical ids of its security groups.
    pub security_groups: Vec<CompactString>,
    /// A change takes effect at the deploy, not at the next maintenance window (the plan's
    /// `applyChanges`).
    pub apply_immediately: bool,
}

/// ECS service on Fargate in the program's private subnets input.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EcsServiceSpec {
    /// The workload.
    pub workload: CompactString,
    /// Logical id of the cluster.
    pub cluster: CompactString,
    /// Logical id of the task definition.
    pub task_definition: CompactString,
    /// `scale.min`.
    pub desired_count: u32,
    /// Internal or public.
    pub expose: Expose,
    /// Logical id of the Cloud Map service (internal).
    pub discovery_service: Option<CompactString>,
    /// Logical id of the target group (public).
    pub target_group: Option<CompactString>,
    /// Container port registered with discovery or the target group; `None` for a worker,
    /// which is registered with neither.
    pub port: Option<u16>,
    /// Logical ids of its tasks' security groups.
    pub security_groups: Vec<CompactString>,
    /// A deployment whose tasks do not become healthy stops and rolls back to the last
    /// working one (the deployment circuit breaker with rollback).
    pub rollback_failed_deployments: bool,
    /// Seconds failing health checks are ignored after a task starts (`health.grace`, 60
    /// without `health`): the target group's (public workloads) and the container's (a
    /// container health check); `None` when the service has neither.
    pub health_check_grace_period_seconds: Option<u32>,
    /// The deploy waits until the service is steady (its tasks running and healthy), so a
    /// crash-looping deployment fails the deploy.
    pub wait_for_steady_state: bool,
    /// Its tasks carry the service's tags (the plan's [`tags`](super::Plan::tags)) and the
    /// ones ECS manages (cluster and service names), so the bill and the budget see the tasks'
    /// compute by product, environment and resource.
    pub propagate_tags: bool,
    /// ECS Exec: a shell into a running task with `aws ecs execute-command` is allowed (the
    /// workload's `exec`); its task role holds the Session Manager channel actions.
    pub enable_execute_command: bool,
    /// Logical ids of the alarms whose firing during a deployment rolls it back (ECS
    /// deployment alarms): the service's own `target-5xx` and `unhealthy-targets`; empty
    /// without alarms.
    pub deployment_alarms: Vec<CompactString>,
    /// How a release replaces its tasks: ECS's deployment strategy, from the workload's
    /// `deploy` in this environment (left out of JSON when rolling).
    #[serde(skip_serializing_if = "Deploy::is_rolling")]
    pub release: Deploy,
    /// What ECS shifts a public workload's traffic with, under a strategy other than rolling
    /// (left out of JSON when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub traffic: Option<TrafficShift>,
}

/// What ECS needs to shift a public service's traffic between two target groups (its load
/// balancer's `advancedConfiguration`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TrafficShift {
    /// Logical id of the alternate target group (the new fleet's, every other release).
    pub alternate_target_group: CompactString,
    /// Logical id of the production listener rule, whose weights ECS moves.
    pub listener_rule: CompactString,
    /// Logical id of the role ECS assumes to move them.
    pub role: CompactString,
}

/// RDS Proxy, TLS required, auth from the secret.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RdsProxySpec {
    /// The resource.
    pub resource: CompactString,
    /// `POSTGRESQL`.
    pub engine_family: CompactString,
    /// Logical id of the secret.
    pub secret: CompactString,
    /// Logical ids of the secrets of the consumers' login roles, one `auth` each (left out of
    /// JSON when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub logins: Vec<CompactString>,
    /// Logical id of the role.
    pub role: CompactString,
    /// TLS required.
    pub require_tls: bool,
    /// Logical ids of its security groups.
    pub security_groups: Vec<CompactString>,
}

/// A listener of the ALB: HTTPS on 443 with the program's certificate input (a host no
/// rule matches gets a 404), or HTTP on 80 redirecting everything to HTTPS.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlbListenerSpec {
    /// The ALB.
    pub alb: CompactString,
    /// 443 or 80.
    pub port: u16,
    /// `HTTPS` or `HTTP`.
    pub protocol: CompactString,
    /// The TLS policy (HTTPS only).
    pub ssl_policy: Option<CompactString>,
    /// What a request no rule matches gets.
    pub default_action: ListenerAction,
}

/// How a database is kept: its backups, what refuses its deletion, and the snapshot its
/// deletion leaves. Decided per environment: `production` keeps more and refuses more.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseProtection {
    /// Days of automated backups (the point-in-time recovery window).
    pub backup_retention_days: u32,
    /// AWS refuses to delete it until this is turned off (RDS deletion protection).
    pub deletion_protection: bool,
    /// The deploy refuses to delete or replace it (Pulumi `protect`).
    pub protect: bool,
    /// The snapshot its deletion takes; `None` when it is deleted without one.
    pub final_snapshot: Option<CompactString>,
    /// Its snapshots (automated, final) carry its tags (always true): a kept snapshot is billed
    /// to its product, environment and resource.
    pub copy_tags_to_snapshot: bool,
    /// The daily window (UTC, `hh24:mi-hh24:mi`) of its automated backups: in production a
    /// fixed one, before the maintenance window and apart from it; `None` elsewhere (RDS picks
    /// one at random).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup_window: Option<CompactString>,
    /// The weekly window (UTC, `ddd:hh24:mi-ddd:hh24:mi`) in which RDS applies pending
    /// changes and patches: in production a fixed one after the backup window; `None`
    /// elsewhere (RDS picks one at random).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maintenance_window: Option<CompactString>,
}

/// What S3 deletes from a bucket by itself (its lifecycle configuration), each rule over the
/// whole bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BucketLifecycle {
    /// Days after which a multipart upload never completed is aborted and its parts deleted
    /// (parts are billed as storage but no object shows them).
    pub abort_incomplete_uploads_days: u32,
    /// Days a version is kept once it is no longer current, with the delete markers left
    /// behind (versioned buckets); `None`: the bucket is not versioned.
    pub noncurrent_version_days: Option<u32>,
    /// Days after which every object is deleted (the ALB's log bucket); `None`: objects stay.
    pub expire_days: Option<u32>,
}

/// Who puts the ALB's access logs into its bucket, by region: the bucket policy's principal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "by")]
pub enum LogDelivery {
    /// A region opened before August 2022: the Elastic Load Balancing account of the region.
    #[serde(rename_all = "camelCase")]
    Account {
        /// The account id (`127311923021` in us-east-1).
        account_id: CompactString,
    },
    /// A region opened since: the log delivery service principal.
    Service {
        /// `logdelivery.elasticloadbalancing.amazonaws.com`.
        principal: CompactString,
    },
}

/// One notification of a budget: when `basis` spend passes `percent` of the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetAlert {
    /// Forecast or actual spend.
    pub basis: BudgetBasis,
    /// Percent of the limit.
    pub percent: u32,
}

/// What a budget alert compares with its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum BudgetBasis {
    /// The month's forecast spend.
    Forecasted,
    /// The month's spend so far.
    Actual,
}

// The specs of the kinds boxed because they are larger than most (a plan item is as large as
// its largest spec; docs/benchmarks.md, "memory, fourth pass"). Their JSON is the variant's,
// field for field.

/// Internet-facing ALB in the program's public subnets input.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlbSpec {
    /// The environment's domain.
    pub domain: CompactString,
    /// Logical ids of its security groups.
    pub security_groups: Vec<CompactString>,
    /// Requests with header names that are not valid HTTP are dropped, never forwarded.
    pub drop_invalid_header_fields: bool,
    /// AWS refuses to delete it until this is turned off (production).
    pub deletion_protection: bool,
    /// Logical id of the bucket it writes its access logs to (production); `None`: no
    /// access logs.
    pub access_logs: Option<CompactString>,
}

/// S3 bucket of the ALB's access logs: public access blocked, SSE-S3 (the only encryption
/// ALB log delivery supports), reachable over TLS only, its objects deleted after a while;
/// its policy lets the region's Elastic Load Balancing log delivery put objects under
/// `AWSLogs/`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlbLogBucketSpec {
    /// What follows the account id in the bucket's name (`-<region>-an`): the bucket is in
    /// the account-regional namespace, named `<physical name>-<account id><nameSuffix>`.
    pub name_suffix: CompactString,
    /// Public access blocked (always true).
    pub block_public_access: bool,
    /// Default encryption of new objects: `AES256` (SSE-S3).
    pub encryption: CompactString,
    /// A bucket policy denies every request not made over TLS (always true).
    pub tls_only: bool,
    /// What S3 deletes by itself: unfinished uploads, and every log after its days.
    pub lifecycle: BucketLifecycle,
    /// Who delivers the logs in the environment's region.
    pub log_delivery: LogDelivery,
    /// The deploy refuses to delete or replace it (Pulumi `protect`): production.
    pub protect: bool,
}

/// SQS queue.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SqsQueueSpec {
    /// The resource.
    pub resource: CompactString,
    /// FIFO queue.
    pub fifo: bool,
    /// Visibility timeout in seconds.
    pub visibility_timeout_seconds: u64,
    /// Logical id of the dead-letter queue, when one.
    pub dead_letter_queue: Option<CompactString>,
    /// Receives before moving to the dead-letter queue, when one.
    pub max_receives: Option<u32>,
    /// Monthly requests the size assumes.
    pub monthly_requests: Option<u64>,
    /// Messages encrypted at rest with SQS-owned keys (SSE-SQS; always true).
    pub managed_sse: bool,
}

/// S3 bucket, public access blocked, encrypted, TLS only.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct S3BucketSpec {
    /// The resource.
    pub resource: CompactString,
    /// In the account's own regional namespace (`account-regional`: nobody else can take
    /// the name first): its name is the physical name, `-`, the deploying account's id, then
    /// this suffix (`-<region>-an`), composed by the program, which knows the account.
    pub name_suffix: CompactString,
    /// Versioning enabled.
    pub versioning: bool,
    /// What S3 deletes by itself: unfinished uploads, and noncurrent versions when
    /// versioned.
    pub lifecycle: BucketLifecycle,
    /// Public access blocked (always true).
    pub block_public_access: bool,
    /// GB the size assumes.
    pub storage_gb: Option<u64>,
    /// Default encryption of new objects: `AES256` (SSE-S3).
    pub encryption: CompactString,
    /// A bucket policy denies every request not made over TLS (always true).
    pub tls_only: bool,
    /// The deploy refuses to delete or replace it (Pulumi `protect`): production.
    pub protect: bool,
}

/// ALB target group, target type `ip`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlbTargetGroupSpec {
    /// The workload.
    pub workload: CompactString,
    /// Container port.
    pub port: u16,
    /// `HTTP`.
    pub protocol: CompactString,
    /// Health check (an HTTP path; `/` when the workload declares none or a command).
    pub health_path: CompactString,
    /// Health check interval in seconds.
    pub health_interval_seconds: u64,
    /// Health check timeout in seconds.
    pub health_timeout_seconds: u64,
    /// Successes before healthy.
    pub healthy_threshold: u32,
    /// Failures before unhealthy.
    pub unhealthy_threshold: u32,
}

/// Listener rule: host header -> forward to the target group.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlbListenerRuleSpec {
    /// The workload.
    pub workload: CompactString,
    /// Logical id of the listener.
    pub listener: CompactString,
    /// Logical id of the target group.
    pub target_group: CompactString,
    /// `<workload>.<domain>`.
    pub host: CompactString,
    /// Rule priority (1-based order of the public workloads).
    pub priority: u32,
    /// Logical id of the alternate target group of a workload released by a strategy
    /// other than rolling: the rule forwards to both, by weights ECS moves (left out of
    /// JSON when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alternate_target_group: Option<CompactString>,
}

/// Target tracking of one metric: average CPU or memory, requests per target, or a
/// queue's backlog per task.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScalingPolicySpec {
    /// The workload.
    pub workload: CompactString,
    /// Logical id of the scaling target.
    pub target: CompactString,
    /// The predefined metric (`ECSServiceAverageCPUUtilization`,
    /// `ECSServiceAverageMemoryUtilization`, `ALBRequestCountPerTarget`), or
    /// `SQSBacklogPerTask` for a queue's metric math.
    pub metric: CompactString,
    /// Target value: percent, requests per target, or messages per task.
    pub target_value: u32,
    /// What a metric beyond the service's own is measured on: the load balancer and target
    /// group (requests), or the queue (backlog).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<ScalingSource>,
}

/// Route 53 alias record: a public workload's host, in the program's hosted zone input,
/// resolving to the ALB.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DnsRecordSpec {
    /// The workload.
    pub workload: CompactString,
    /// `<workload>.<domain>`.
    pub host: CompactString,
    /// `A` (the ALB is IPv4).
    pub record_type: CompactString,
    /// Logical id of the ALB the alias points to.
    pub alb: CompactString,
    /// Route 53 answers only while the ALB has a healthy target for the host.
    pub evaluate_target_health: bool,
}

/// Monthly cost budget over the costs tagged with the product and environment; its limit
/// is the cap. It warns, it does not stop anything: the cap refuses plans, the budget
/// catches what the plan cannot see (usage, resources made by hand).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetSpec {
    /// The environment's cap, USD a month.
    pub limit: Money,
    /// The `product` tag value its costs carry.
    pub product: CompactString,
    /// The `environment` tag value its costs carry.
    pub environment: CompactString,
    /// When to notify, in order.
    pub alerts: Vec<BudgetAlert>,
    /// Each alert also goes to the alerts topic ([`ALERTS_TOPIC_ID`](super::ALERTS_TOPIC_ID)),
    /// in an environment with alarms (a flag, not an id: every item stays as small).
    #[serde(rename = "alertTopic")]
    pub alert_topic: bool,
}

/// What a scaling policy's metric is measured on, beyond the service.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ScalingSource {
    /// `ALBRequestCountPerTarget`: the environment's ALB and the workload's target group
    /// (its resource label `app/.../targetgroup/...`).
    Requests {
        /// Logical id of the ALB.
        alb: CompactString,
        /// Logical id of the target group.
        target_group: CompactString,
    },
    /// A queue's visible messages divided by the service's running tasks
    /// (`ApproximateNumberOfMessagesVisible` / Container Insights' `RunningTaskCount`).
    Queue {
        /// Logical id of the SQS queue.
        queue: CompactString,
        /// Logical id of the ECS service.
        service: CompactString,
    },
}
