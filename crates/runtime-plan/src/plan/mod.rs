//! The plan: plain data, public fields, serializable, reproducible byte for byte.
//!
//! A [`Plan`] is everything one environment of a product declares, binds, writes and costs.
//! Renderers (the Pulumi emitter, the secrets and SSM adapters, the CLI) read it and decide
//! nothing: every AWS item to declare is one [`PlannedItem`] in [`Plan::items`], with a stable
//! logical id, a physical name and every property the renderer needs.
//!
//! Field names are stable: fields are added, never renamed. JSON keys are camelCase; money is
//! a decimal string rounded to cents (`"35.88"`). Text is [`CompactString`]: it reads as a
//! `&str` and serializes as a string, and up to 24 bytes it lives inline, so a plan of tens of
//! thousands of records does not make a heap allocation per field.

use std::sync::Arc;

pub use compact_str::CompactString;
use cost::{CacheSize, Line, PostgresSize, TaskSize};
use indexmap::IndexMap;
use runway_schema::{Diagnostic, Expose, Kind, Money, PostgresEngine};
use serde::Serialize;

/// The plan of one environment of a product.
///
/// The JSON shape holds the `plan` shape of the spec (section 9): `product`, `environment`,
/// `region`, `resources`, `workloads`, `bindings`, `cost`, `diagnostics`, and more keys.
/// The graph is a view of the plan, built on demand by [`Plan::graph`], not stored in it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// The product name.
    pub product: CompactString,
    /// The environment planned.
    pub environment: CompactString,
    /// Its AWS region.
    pub region: CompactString,
    /// Resources, declared first (file order) then implicit (`shared-<engine>`, engine order).
    pub resources: Vec<PlannedResource>,
    /// Workloads, in file order.
    pub workloads: Vec<PlannedWorkload>,
    /// Who consumes what under which names: consumers in order (workloads, then members), each
    /// consumer's resources in the order it uses them.
    pub bindings: Vec<Binding>,
    /// Monthly estimate, ceiling, cap and verdict.
    pub cost: CostSummary,
    /// Cost and planning diagnostics (`cap-exceeded`, `unpriced`, `uncapped`, ...).
    pub diagnostics: Vec<Diagnostic>,
    /// Every AWS item to declare, in a stable order (platform, resources, workloads).
    pub items: Vec<PlannedItem>,
    /// Values the program exports: what `secrets publish` reads from the stack's outputs.
    pub outputs: Vec<PlannedOutput>,
    /// Generated credentials, connection variables and SSM parameters: names and places only.
    pub secrets: SecretsLayout,
}

/// Where a resource comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Origin {
    /// Declared under `resources`.
    Declared,
    /// An implicit `shared-<engine>` resource from member `requires`.
    Implicit,
}

impl Origin {
    /// As shown (`declared`, `implicit`).
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Declared => "declared",
            Origin::Implicit => "implicit",
        }
    }
}

/// A resource as planned in one environment.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedResource {
    /// The resource name (`main-db`, `shared-queue`).
    pub name: CompactString,
    /// Its kind.
    pub kind: Kind,
    /// Declared or implicit.
    pub origin: Origin,
    /// The size in this environment.
    pub size: CompactString,
    /// Physical name of its main item (the RDS instance, the queue, ...).
    pub physical_name: CompactString,
    /// Exact sum of its items' estimates; `None` when any of them is unpriced.
    pub monthly: Option<Money>,
    /// Engine: `rds` / `aurora` (postgres), `valkey`, `sqs`, `sns`, `s3`.
    pub engine: CompactString,
    /// Engine version, where one applies (postgres, cache).
    pub version: Option<CompactString>,
    /// What the size declares, in words (`db.t4g.micro, 20 GB gp3, single-AZ`).
    pub summary: CompactString,
    /// Logical ids of its items, main item first.
    pub items: Vec<CompactString>,
    /// Consumers (workloads then members) that use it.
    pub consumers: Vec<CompactString>,
}

/// A workload as planned in one environment.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedWorkload {
    /// The workload name.
    pub name: CompactString,
    /// The size in this environment.
    pub size: CompactString,
    /// Tasks at rest (the service's desired count).
    pub min: u32,
    /// Tasks at most.
    pub max: u32,
    /// `internal` or `public`.
    pub expose: Expose,
    /// Estimate at `min` tasks; `None` when unpriced.
    pub monthly: Option<Money>,
    /// Estimate at `max` tasks; `None` when unpriced.
    pub ceiling: Option<Money>,
    /// CPU units and memory of one task.
    pub task: TaskSize,
    /// The pinned image.
    pub image: CompactString,
    /// Container port.
    pub port: u16,
    /// `<workload>.<domain>` when public.
    pub host: Option<CompactString>,
    /// `<workload>.<env>.<product>.internal` when internal.
    pub dns_name: Option<CompactString>,
    /// Resources it uses, in order.
    pub uses: Vec<CompactString>,
    /// Logical ids of its items.
    pub items: Vec<CompactString>,
}

/// What kind of consumer a binding is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum ConsumerKind {
    /// A workload of the root runway.
    Workload,
    /// A member with `runtime: encore`.
    EncoreMember,
    /// A member with `runtime: other`.
    OtherMember,
}

/// How a consumer receives its variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Delivery {
    /// SSM parameters referenced by the task definition.
    Ssm,
    /// Infisical's sync into Encore secrets; the plan only records the binding.
    EncoreSync,
    /// Read from Infisical by the member itself; the plan only records the binding.
    Infisical,
}

/// One consumer's use of one resource.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Binding {
    /// The workload or member name.
    pub consumer: CompactString,
    /// The resource name.
    pub resource: CompactString,
    /// Variable names the consumer gets (spec section 6), in the spec's order.
    ///
    /// Shared with every other binding of the same resource (`Arc`): a resource bound by many
    /// consumers holds its names once.
    pub variables: Arc<[CompactString]>,
    /// Infisical display form, `<infisical-env>:<folder>`.
    pub infisical: CompactString,
    /// SSM parameter names (workloads only; empty for members), one per variable.
    pub ssm: Arc<[CompactString]>,
    /// Workload, Encore member or other member.
    pub consumer_kind: ConsumerKind,
    /// How the variables reach the consumer.
    pub delivery: Delivery,
    /// Implicit binding from a member's `requires`.
    pub implicit: bool,
}

/// A place in Infisical.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InfisicalPlace {
    /// Infisical environment slug.
    pub environment: CompactString,
    /// Folder (`/runtime/main-db`).
    pub folder: CompactString,
    /// Secret name (`MAIN_DB_PASSWORD`).
    pub name: CompactString,
}

impl InfisicalPlace {
    /// The display form `<env>:<folder>`.
    pub fn display(&self) -> String {
        format!("{}:{}", self.environment, self.folder)
    }
}

/// What a generated credential is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum CredentialKind {
    /// The postgres admin password (also copied to Secrets Manager for RDS Proxy).
    PostgresAdminPassword,
    /// The Valkey AUTH token.
    CacheAuthToken,
}

/// A credential the secrets adapter generates and writes blind. Names and places, no value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GeneratedSecret {
    /// The resource it belongs to.
    pub resource: CompactString,
    /// What it is.
    pub kind: CredentialKind,
    /// The variable name (`MAIN_DB_PASSWORD`).
    pub variable: CompactString,
    /// Where it is written in Infisical.
    pub infisical: InfisicalPlace,
    /// Secrets Manager secret name of the proxy copy (`<product>/<env>/<resource>/proxy-admin`),
    /// postgres only.
    pub secrets_manager: Option<CompactString>,
    /// The admin user name written with the password into the Secrets Manager copy
    /// (`{"username", "password"}`, as RDS Proxy reads it); postgres only.
    pub secrets_manager_username: Option<CompactString>,
}

/// Where a non-generated connection variable's value comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "from")]
#[non_exhaustive]
pub enum ConnectionSource {
    /// A stack output of the emitted program (see [`PlannedOutput`]).
    Output {
        /// Output name (equal to the variable name).
        output: CompactString,
    },
    /// A value the plan knows (a port, a database name, a region).
    Literal {
        /// The value (never a secret).
        value: CompactString,
    },
    /// A string built from other variables of the same Infisical folder with Infisical
    /// references (`postgresql://${MAIN_DB_USER}:${MAIN_DB_PASSWORD}@...`).
    Template {
        /// The template, written as is; Infisical expands the references.
        template: CompactString,
    },
}

/// A connection variable `secrets publish` writes to Infisical (not a generated credential).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionVariable {
    /// The resource.
    pub resource: CompactString,
    /// Where it is written.
    pub infisical: InfisicalPlace,
    /// Where the value comes from.
    pub source: ConnectionSource,
}

/// Who sets an SSM parameter's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ParameterSource {
    /// A resource variable, copied from Infisical (sync or `runway ssm publish`).
    Resource,
    /// A workload's own secret, set by people.
    WorkloadSecret,
}

/// An SSM SecureString parameter something in the plan references.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SsmParameter {
    /// Full parameter name (`/acme-shop/dev/main-db/MAIN_DB_URL`).
    pub name: CompactString,
    /// The variable name (`MAIN_DB_URL`) or the workload secret's name.
    pub variable: CompactString,
    /// Resource variable or workload secret.
    pub source: ParameterSource,
    /// The resource (for resource variables) or the workload (for its own secrets).
    pub owner: CompactString,
    /// Infisical place the value is copied from (resource variables only).
    pub infisical: Option<InfisicalPlace>,
    /// Logical ids of the items that reference it (task definitions, a cache's AUTH token).
    pub referenced_by: Vec<CompactString>,
    /// Always `SecureString`.
    pub r#type: CompactString,
    /// The KMS key (`ssm.kmsKey`).
    pub kms_key: CompactString,
}

/// The secrets layout of a plan: names and places, never values.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretsLayout {
    /// The Infisical project id, when `secrets.infisical` is configured.
    pub infisical_project: Option<CompactString>,
    /// SSM parameter prefix of this environment (`/acme-shop/dev`).
    pub ssm_prefix: CompactString,
    /// SSM KMS key.
    pub kms_key: CompactString,
    /// Credentials `secrets prepare` generates, in resource order.
    pub generated: Vec<GeneratedSecret>,
    /// Connection variables `secrets publish` writes, in resource then spec order.
    pub connection: Vec<ConnectionVariable>,
    /// SSM parameters referenced by the plan, sorted by name.
    pub ssm_parameters: Vec<SsmParameter>,
}

/// A value the emitted program exports as a stack output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedOutput {
    /// Output name: the connection variable it fills (`MAIN_DB_HOST`).
    pub name: CompactString,
    /// Logical id of the item.
    pub item: CompactString,
    /// The Pulumi AWS property of the item (`endpoint`, `primaryEndpointAddress`, `url`, `arn`, `bucket`).
    pub attribute: CompactString,
}

/// Who creates an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ManagedBy {
    /// Declared by the emitted Pulumi program.
    Pulumi,
    /// Created and filled by `runway secrets prepare` before `pulumi up`; the program only
    /// looks it up by name.
    SecretsAdapter,
}

/// The kind of an AWS item (its type, without properties).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ItemKind {
    /// ECS cluster (one per environment with a workload).
    EcsCluster,
    /// IAM role the ECS agent uses for one workload: pull its image, read its SSM parameters.
    TaskExecutionRole,
    /// IAM role one workload's containers run as: what its `uses` need, nothing more.
    TaskRole,
    /// VPC security group: who may reach what it guards, on which port, and where that may go.
    SecurityGroup,
    /// Cloud Map private DNS namespace `<env>.<product>.internal`.
    CloudMapNamespace,
    /// Application Load Balancer.
    Alb,
    /// HTTPS listener of the ALB.
    AlbListener,
    /// DB subnet group (one per environment with a postgres resource).
    DbSubnetGroup,
    /// ElastiCache subnet group (one per environment with a cache).
    CacheSubnetGroup,
    /// RDS PostgreSQL instance.
    RdsInstance,
    /// Aurora PostgreSQL cluster.
    AuroraCluster,
    /// Aurora PostgreSQL instance.
    AuroraInstance,
    /// Secrets Manager secret holding the admin credential for RDS Proxy.
    ProxySecret,
    /// IAM role RDS Proxy assumes to read its secret.
    ProxyRole,
    /// RDS Proxy.
    RdsProxy,
    /// The proxy's default target group.
    RdsProxyTargetGroup,
    /// The proxy's target (the instance or cluster).
    RdsProxyTarget,
    /// ElastiCache replication group, engine Valkey.
    CacheReplicationGroup,
    /// SQS queue.
    SqsQueue,
    /// SQS dead-letter queue.
    SqsDeadLetterQueue,
    /// SNS topic.
    SnsTopic,
    /// S3 bucket (public access blocked).
    S3Bucket,
    /// ECS Fargate task definition.
    TaskDefinition,
    /// ECS service.
    EcsService,
    /// Cloud Map service of an internal workload.
    CloudMapService,
    /// ALB target group of a public workload.
    AlbTargetGroup,
    /// Listener rule `<workload>.<domain>` -> target group.
    AlbListenerRule,
    /// Application Auto Scaling target of a service.
    ScalingTarget,
    /// Target-tracking scaling policy of a service.
    ScalingPolicy,
    /// AWS Budgets monthly cost budget of a capped environment: the cap's backstop.
    Budget,
    /// CloudWatch Logs log group of a workload's containers.
    LogGroup,
    /// Route 53 alias record of a public workload's host to the ALB.
    DnsRecord,
    /// VPC endpoint of an AWS service for the private subnets (`network.endpoints`).
    VpcEndpoint,
}

impl ItemKind {
    /// Whether items of this kind are billed by a use the plan cannot know (log volume, an
    /// account's other budgets): their rates are shown, they have no amount.
    pub fn billed_by_use(self) -> bool {
        matches!(self, ItemKind::LogGroup | ItemKind::Budget)
    }

    /// An item's monthly figure as people read it: `$x`, `by use`, or `unpriced`.
    pub fn price_text(self, monthly: Option<Money>) -> String {
        match monthly {
            Some(m) => format!("${m}"),
            None if self.billed_by_use() => "by use".to_owned(),
            None => "unpriced".to_owned(),
        }
    }

    /// The kebab-case name (as in JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            ItemKind::EcsCluster => "ecs-cluster",
            ItemKind::TaskExecutionRole => "task-execution-role",
            ItemKind::TaskRole => "task-role",
            ItemKind::SecurityGroup => "security-group",
            ItemKind::CloudMapNamespace => "cloud-map-namespace",
            ItemKind::Alb => "alb",
            ItemKind::AlbListener => "alb-listener",
            ItemKind::DbSubnetGroup => "db-subnet-group",
            ItemKind::CacheSubnetGroup => "cache-subnet-group",
            ItemKind::RdsInstance => "rds-instance",
            ItemKind::AuroraCluster => "aurora-cluster",
            ItemKind::AuroraInstance => "aurora-instance",
            ItemKind::ProxySecret => "proxy-secret",
            ItemKind::ProxyRole => "proxy-role",
            ItemKind::RdsProxy => "rds-proxy",
            ItemKind::RdsProxyTargetGroup => "rds-proxy-target-group",
            ItemKind::RdsProxyTarget => "rds-proxy-target",
            ItemKind::CacheReplicationGroup => "cache-replication-group",
            ItemKind::SqsQueue => "sqs-queue",
            ItemKind::SqsDeadLetterQueue => "sqs-dead-letter-queue",
            ItemKind::SnsTopic => "sns-topic",
            ItemKind::S3Bucket => "s3-bucket",
            ItemKind::TaskDefinition => "task-definition",
            ItemKind::EcsService => "ecs-service",
            ItemKind::CloudMapService => "cloud-map-service",
            ItemKind::AlbTargetGroup => "alb-target-group",
            ItemKind::AlbListenerRule => "alb-listener-rule",
            ItemKind::ScalingTarget => "scaling-target",
            ItemKind::ScalingPolicy => "scaling-policy",
            ItemKind::Budget => "budget",
            ItemKind::LogGroup => "log-group",
            ItemKind::DnsRecord => "dns-record",
            ItemKind::VpcEndpoint => "vpc-endpoint",
        }
    }
}

impl ItemKind {
    /// What the item is, in the words a person reads in the plan's text (`RDS instance`,
    /// `ALB`, `task definition`).
    pub fn words(self) -> &'static str {
        match self {
            ItemKind::EcsCluster => "ECS cluster",
            ItemKind::TaskExecutionRole => "task execution role",
            ItemKind::CloudMapNamespace => "Cloud Map namespace",
            ItemKind::Alb => "ALB",
            ItemKind::AlbListener => "ALB listener",
            ItemKind::DbSubnetGroup => "DB subnet group",
            ItemKind::CacheSubnetGroup => "cache subnet group",
            ItemKind::RdsInstance => "RDS instance",
            ItemKind::AuroraCluster => "Aurora cluster",
            ItemKind::AuroraInstance => "Aurora instance",
            ItemKind::ProxySecret => "proxy secret",
            ItemKind::ProxyRole => "proxy role",
            ItemKind::RdsProxy => "RDS Proxy",
            ItemKind::RdsProxyTargetGroup => "proxy target group",
            ItemKind::RdsProxyTarget => "proxy target",
            ItemKind::CacheReplicationGroup => "ElastiCache",
            ItemKind::SqsQueue => "SQS queue",
            ItemKind::SqsDeadLetterQueue => "dead-letter queue",
            ItemKind::SnsTopic => "SNS topic",
            ItemKind::S3Bucket => "S3 bucket",
            ItemKind::TaskDefinition => "task definition",
            ItemKind::EcsService => "ECS service",
            ItemKind::CloudMapService => "Cloud Map service",
            ItemKind::AlbTargetGroup => "target group",
            ItemKind::AlbListenerRule => "listener rule",
            ItemKind::ScalingTarget => "scaling target",
            ItemKind::ScalingPolicy => "scaling policy",
            ItemKind::Budget => "budget",
            ItemKind::LogGroup => "log group",
            ItemKind::TaskRole => "task role",
            ItemKind::SecurityGroup => "security group",
            ItemKind::DnsRecord => "DNS record",
            ItemKind::VpcEndpoint => "VPC endpoint",
        }
    }
}

/// How an item's monthly figure was found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "status")]
#[non_exhaustive]
pub enum Pricing {
    /// Priced by the catalogue; its lines are in [`CostSummary::lines`].
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
    /// the estimate; its rates are in [`CostSummary::usage_based`].
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

/// A health check as the task definition and target group take it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HealthSpec {
    /// HTTP path, when an HTTP check.
    pub path: Option<CompactString>,
    /// Command, when a command check.
    pub command: Option<Vec<CompactString>>,
    /// Seconds between checks.
    pub interval_seconds: u64,
    /// Seconds a check may take.
    pub timeout_seconds: u64,
    /// Successes before healthy.
    pub healthy_threshold: u32,
    /// Failures before unhealthy.
    pub unhealthy_threshold: u32,
}

/// A secret of a task definition: the container variable and the SSM parameter it reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSecret {
    /// The variable name in the container.
    pub name: CompactString,
    /// The SSM parameter name (`valueFrom`).
    pub parameter: CompactString,
}

/// One permission statement of a role: these actions allowed on these resources.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    /// IAM actions (`sqs:SendMessage`), sorted; never a wildcard. A list the planner holds
    /// once for every grant of its kind.
    pub actions: &'static [&'static str],
    /// What they apply to.
    pub resources: Vec<PolicyResource>,
}

/// A resource of a [`Grant`], as the plan knows it; the renderer writes its ARN.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase", tag = "is")]
#[non_exhaustive]
pub enum PolicyResource {
    /// The ARN of an item of the plan.
    Item {
        /// Its logical id.
        item: CompactString,
    },
    /// Every object of a bucket item: its ARN followed by `/*`.
    ItemObjects {
        /// Logical id of the bucket.
        item: CompactString,
    },
    /// Every log stream of a log group item: its ARN followed by `:*`.
    ItemLogStreams {
        /// Logical id of the log group.
        item: CompactString,
    },
    /// SSM parameters of the deploying account, in the plan's region.
    SsmParameters {
        /// Their full names (`/acme-shop/dev/main-db/MAIN_DB_URL`); a binding's list is shared
        /// with the binding (`Arc`).
        names: Arc<[CompactString]>,
    },
    /// The KMS key an alias names, looked up when the program runs.
    KmsAlias {
        /// `alias/...`.
        alias: CompactString,
    },
    /// A KMS key of the deploying account, in the plan's region, by key id.
    KmsKeyId {
        /// The key id.
        id: CompactString,
    },
    /// An ARN the plan knows in full (a key ARN, an ECR repository).
    Arn {
        /// The ARN.
        arn: CompactString,
    },
    /// Every resource: only for an action AWS authorizes on no resource
    /// (`ecr:GetAuthorizationToken`).
    Any,
}

/// One rule of a security group: TCP on one port, from (ingress) or to (egress) a peer.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SecurityRule {
    /// Who is on the other side.
    pub peer: Peer,
    /// The TCP port.
    pub port: u16,
}

/// The other side of a [`SecurityRule`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase", tag = "is")]
#[non_exhaustive]
pub enum Peer {
    /// Whatever another security group of the plan is attached to.
    Group {
        /// Logical id of the group.
        item: CompactString,
    },
    /// Any IPv4 address (`0.0.0.0/0`).
    Internet,
    /// The members' security groups: the program's `memberSecurityGroupIds` input.
    Members,
}

/// What a listener does with a request no rule matches.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "is")]
#[non_exhaustive]
pub enum ListenerAction {
    /// A fixed `404 not found`.
    NotFound,
    /// A redirect to the same host and path over HTTPS.
    #[serde(rename_all = "camelCase")]
    RedirectToHttps {
        /// The HTTPS port (443).
        port: u16,
        /// `HTTP_301` (permanent).
        status_code: CompactString,
    },
}

/// Every property of an item, by type. Item references are logical ids.
///
/// Every item is as large as the largest spec, so the specs of the large kinds (databases,
/// caches, proxies, task definitions, services, listeners) are boxed structs: a plan of tens of
/// thousands of items stays small, and a renderer takes the one struct it reads.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "type")]
#[non_exhaustive]
pub enum ItemSpec {
    /// ECS cluster.
    EcsCluster {},
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
    /// Security group in the program's VPC input; what it may not do is denied (no default
    /// egress).
    SecurityGroup {
        /// What of its owner it guards, in words (`ALB`, `tasks`, `proxy`, `members on 5432`).
        guards: CompactString,
        /// Who may connect, on which port.
        ingress: Vec<SecurityRule>,
        /// Where what it guards may connect, on which port.
        egress: Vec<SecurityRule>,
    },
    /// Cloud Map private DNS namespace, in the program's VPC input.
    CloudMapNamespace {
        /// DNS name `<env>.<product>.internal`.
        name: CompactString,
    },
    /// Internet-facing ALB in the program's public subnets input.
    #[serde(rename_all = "camelCase")]
    Alb {
        /// The environment's domain.
        domain: CompactString,
        /// Logical ids of its security groups.
        security_groups: Vec<CompactString>,
        /// Requests with header names that are not valid HTTP are dropped, never forwarded.
        drop_invalid_header_fields: bool,
    },
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
    },
    /// Secrets Manager secret `{"username","password"}` for RDS Proxy.
    ProxySecret {
        /// The resource.
        resource: CompactString,
        /// The secret name `<product>/<env>/<resource>/proxy-admin`.
        name: CompactString,
    },
    /// IAM role RDS Proxy assumes; may read the one secret.
    ProxyRole {
        /// Logical id of the secret.
        secret: CompactString,
    },
    /// RDS Proxy, TLS required, auth from the secret.
    RdsProxy(Box<RdsProxySpec>),
    /// The proxy's `default` target group.
    RdsProxyTargetGroup {
        /// Logical id of the proxy.
        proxy: CompactString,
    },
    /// The proxy's target.
    #[serde(rename_all = "camelCase")]
    RdsProxyTarget {
        /// Logical id of the proxy.
        proxy: CompactString,
        /// Logical id of the target group.
        target_group: CompactString,
        /// Logical id of the RDS instance or Aurora cluster.
        target: CompactString,
    },
    /// ElastiCache replication group, engine Valkey, TLS and AUTH on.
    CacheReplicationGroup(Box<CacheReplicationGroupSpec>),
    /// SQS queue.
    #[serde(rename_all = "camelCase")]
    SqsQueue {
        /// The resource.
        resource: CompactString,
        /// FIFO queue.
        fifo: bool,
        /// Visibility timeout in seconds.
        visibility_timeout_seconds: u64,
        /// Logical id of the dead-letter queue, when one.
        dead_letter_queue: Option<CompactString>,
        /// Receives before moving to the dead-letter queue, when one.
        max_receives: Option<u32>,
        /// Monthly requests the size assumes.
        monthly_requests: Option<u64>,
        /// Messages encrypted at rest with SQS-owned keys (SSE-SQS; always true).
        managed_sse: bool,
    },
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
    #[serde(rename_all = "camelCase")]
    SnsTopic {
        /// The resource.
        resource: CompactString,
        /// FIFO topic.
        fifo: bool,
        /// Monthly requests the size assumes.
        monthly_requests: Option<u64>,
        /// The KMS key messages are encrypted at rest with (`alias/aws/sns`, the AWS managed key).
        kms_master_key: CompactString,
    },
    /// S3 bucket, public access blocked, encrypted, TLS only.
    #[serde(rename_all = "camelCase")]
    S3Bucket {
        /// The resource.
        resource: CompactString,
        /// Versioning enabled.
        versioning: bool,
        /// Public access blocked (always true).
        block_public_access: bool,
        /// GB the size assumes.
        storage_gb: Option<u64>,
        /// Default encryption of new objects: `AES256` (SSE-S3).
        encryption: CompactString,
        /// A bucket policy denies every request not made over TLS (always true).
        tls_only: bool,
        /// The deploy refuses to delete or replace it (Pulumi `protect`): production.
        protect: bool,
    },
    /// Fargate task definition, ARM64, awsvpc.
    TaskDefinition(Box<TaskDefinitionSpec>),
    /// ECS service on Fargate in the program's private subnets input.
    EcsService(Box<EcsServiceSpec>),
    /// Cloud Map service: A records of the tasks.
    #[serde(rename_all = "camelCase")]
    CloudMapService {
        /// The workload.
        workload: CompactString,
        /// Logical id of the namespace.
        namespace: CompactString,
        /// `<workload>.<env>.<product>.internal`.
        dns_name: CompactString,
    },
    /// ALB target group, target type `ip`.
    #[serde(rename_all = "camelCase")]
    AlbTargetGroup {
        /// The workload.
        workload: CompactString,
        /// Container port.
        port: u16,
        /// `HTTP`.
        protocol: CompactString,
        /// Health check (an HTTP path; `/` when the workload declares none or a command).
        health_path: CompactString,
        /// Health check interval in seconds.
        health_interval_seconds: u64,
        /// Health check timeout in seconds.
        health_timeout_seconds: u64,
        /// Successes before healthy.
        healthy_threshold: u32,
        /// Failures before unhealthy.
        unhealthy_threshold: u32,
    },
    /// Listener rule: host header -> forward to the target group.
    #[serde(rename_all = "camelCase")]
    AlbListenerRule {
        /// The workload.
        workload: CompactString,
        /// Logical id of the listener.
        listener: CompactString,
        /// Logical id of the target group.
        target_group: CompactString,
        /// `<workload>.<domain>`.
        host: CompactString,
        /// Rule priority (1-based order of the public workloads).
        priority: u32,
    },
    /// Application Auto Scaling target (`ecs:service:DesiredCount`).
    #[serde(rename_all = "camelCase")]
    ScalingTarget {
        /// The workload.
        workload: CompactString,
        /// Logical id of the service.
        service: CompactString,
        /// `scale.min`.
        min_capacity: u32,
        /// `scale.max`.
        max_capacity: u32,
    },
    /// Target tracking on average CPU.
    #[serde(rename_all = "camelCase")]
    ScalingPolicy {
        /// The workload.
        workload: CompactString,
        /// Logical id of the scaling target.
        target: CompactString,
        /// `ECSServiceAverageCPUUtilization`.
        metric: CompactString,
        /// Target value in percent.
        target_value: u32,
    },
    /// Route 53 alias record: a public workload's host, in the program's hosted zone input,
    /// resolving to the ALB.
    #[serde(rename_all = "camelCase")]
    DnsRecord {
        /// The workload.
        workload: CompactString,
        /// `<workload>.<domain>`.
        host: CompactString,
        /// `A` (the ALB is IPv4).
        record_type: CompactString,
        /// Logical id of the ALB the alias points to.
        alb: CompactString,
        /// Route 53 answers only while the ALB has a healthy target for the host.
        evaluate_target_health: bool,
    },
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
    #[serde(rename_all = "camelCase")]
    Budget {
        /// The environment's cap, USD a month.
        limit: Money,
        /// The `product` tag value its costs carry.
        product: CompactString,
        /// The `environment` tag value its costs carry.
        environment: CompactString,
        /// When to notify, in order.
        alerts: Vec<BudgetAlert>,
    },
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
        security_groups: Vec<CompactString>,
        /// Availability Zones it has a network interface in, one private subnet each, and is
        /// billed for (`network.zones`); none for a gateway.
        zones: Option<u32>,
    },
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

/// RDS PostgreSQL instance; master password from the proxy secret.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RdsInstanceSpec {
    /// The resource.
    pub resource: CompactString,
    /// Engine version (`16`).
    pub engine_version: CompactString,
    /// Instance class, storage, Multi-AZ from the catalogue.
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
    /// Logical id of the DB subnet group.
    pub subnet_group: CompactString,
    /// Logical ids of its security groups.
    pub security_groups: Vec<CompactString>,
    /// Storage encrypted at rest (always true).
    pub storage_encrypted: bool,
    /// Backups, deletion protection and final snapshot.
    #[serde(flatten)]
    pub protection: DatabaseProtection,
}

/// Fargate task definition, ARM64, awsvpc.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskDefinitionSpec {
    /// The workload.
    pub workload: CompactString,
    /// The pinned image.
    pub image: CompactString,
    /// CPU units and memory from the catalogue.
    #[serde(flatten)]
    pub task: TaskSize,
    /// `ARM64`.
    pub cpu_architecture: CompactString,
    /// Container port.
    pub port: u16,
    /// Health check, when declared.
    pub health: Option<HealthSpec>,
    /// Plain environment values, in file order.
    pub environment: IndexMap<CompactString, CompactString>,
    /// Secrets read from SSM, by variable name, in binding order then the workload's own.
    pub secrets: Vec<TaskSecret>,
    /// Logical id of the execution role.
    pub execution_role: CompactString,
    /// Logical id of the task role; `None` when the workload uses nothing IAM guards.
    pub task_role: Option<CompactString>,
    /// Logical id of the log group its container writes to (the `awslogs` driver).
    pub log_group: CompactString,
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
    /// Container port registered with discovery or the target group.
    pub port: u16,
    /// Logical ids of its tasks' security groups.
    pub security_groups: Vec<CompactString>,
    /// A deployment whose tasks do not become healthy stops and rolls back to the last
    /// working one (the deployment circuit breaker with rollback).
    pub rollback_failed_deployments: bool,
    /// Seconds the target group's failing health checks are ignored after a task starts
    /// (public workloads); `None` without a target group.
    pub health_check_grace_period_seconds: Option<u32>,
    /// The deploy waits until the service is steady (its tasks running and healthy), so a
    /// crash-looping deployment fails the deploy.
    pub wait_for_steady_state: bool,
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

/// The verdict of the cost check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Verdict {
    /// The shown estimate is at or under the cap.
    Within,
    /// The shown estimate is over the cap.
    Over,
    /// The shown estimate is at or under the cap, but some items cannot be priced: a plan
    /// under a cap must be fully priced, so it is refused.
    #[serde(rename = "refused-unpriced")]
    RefusedUnpriced,
    /// No cap.
    Uncapped,
}

impl Verdict {
    /// As shown (`within`, `over`, `refused-unpriced`, `uncapped`), in text and JSON alike.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Within => "within",
            Verdict::Over => "over",
            Verdict::RefusedUnpriced => "refused-unpriced",
            Verdict::Uncapped => "uncapped",
        }
    }

    /// Does the cost check itself refuse the plan (over, or unpriced under a cap)?
    pub fn refuses(self) -> bool {
        matches!(self, Verdict::Over | Verdict::RefusedUnpriced)
    }

    /// The verdict as a person reads it: its word, then `, refused` when the plan is refused
    /// (exit 3) and the word does not already say so.
    pub fn text(self, refused: bool) -> String {
        if refused && self != Verdict::RefusedUnpriced {
            format!("{}, refused", self.as_str())
        } else {
            self.as_str().to_owned()
        }
    }
}

/// One priced line of one item.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CostLine {
    /// Logical id of the item.
    pub item: CompactString,
    /// The resource or workload it belongs to.
    pub owner: Option<CompactString>,
    /// The catalogue's line.
    #[serde(flatten)]
    pub line: Line,
}

/// One rate of a usage-based item: shown with its unit price, never added to the estimate.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageLine {
    /// Logical id of the item.
    pub item: CompactString,
    /// The resource or workload it belongs to.
    pub owner: Option<CompactString>,
    /// The catalogue's rate.
    #[serde(flatten)]
    pub rate: cost::Rate,
}

/// An item the catalogue cannot price.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnpricedItem {
    /// Logical id.
    pub item: CompactString,
    /// Physical name.
    pub physical_name: CompactString,
    /// Why.
    pub reason: CompactString,
}

/// The cost of a plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CostSummary {
    /// Exact sum of the priced lines (workloads at `scale.min`); shown rounded to cents.
    pub monthly: Money,
    /// Exact sum at `scale.max`.
    pub ceiling: Money,
    /// The cap (explicit or default), when there is one.
    pub cap: Option<Money>,
    /// Within, over, refused-unpriced or uncapped: the cost check's verdict.
    pub verdict: Verdict,
    /// Items the catalogue cannot price.
    pub unpriced: Vec<UnpricedItem>,
    /// Lines of the estimate, in item order.
    pub lines: Vec<CostLine>,
    /// Rates of the usage-based items, in item order: not in the estimate, whatever the use.
    pub usage_based: Vec<UsageLine>,
    /// The plan may not be applied: over the cap, or unpriced under a cap.
    pub refused: bool,
}

impl PlannedItem {
    /// What the item is within its owner, as a person reads it (`RDS instance`,
    /// `Aurora instance 2`).
    pub fn what(&self) -> String {
        match &self.spec {
            ItemSpec::AuroraInstance { index, .. } => format!("Aurora instance {index}"),
            ItemSpec::SecurityGroup { guards, .. } => format!("security group ({guards})"),
            // `com.amazonaws.<region>.<service>`: the service is what tells endpoints apart.
            ItemSpec::VpcEndpoint { service_name, .. } => {
                let service = service_name.splitn(4, '.').nth(3).unwrap_or(service_name);
                format!("VPC endpoint ({service})")
            }
            _ => self.kind.words().to_owned(),
        }
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
            ItemSpec::S3Bucket { protect, .. } => *protect,
            _ => false,
        }
    }

    /// The item as the plan's text names it: its owner and what it is (`main-db RDS
    /// instance`, `environment ALB`, `pdf-render task definition`). JSON keeps the logical id.
    pub fn label(&self) -> String {
        format!("{} {}", self.owner_name(), self.what())
    }
}

impl Plan {
    /// The item with this logical id.
    pub fn item(&self, id: &str) -> Option<&PlannedItem> {
        self.items.iter().find(|i| i.id == id)
    }

    /// Does the plan have an error diagnostic (refused: nothing may be applied)?
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Serde helper for the engine of a postgres resource.
pub fn postgres_engine_str(engine: PostgresEngine) -> &'static str {
    match engine {
        PostgresEngine::Rds => "rds",
        PostgresEngine::Aurora => "aurora",
    }
}
