//! The file formats as types, for the JSON Schema editors validate against
//! (`# yaml-language-server: $schema=...`).
//!
//! Validation itself walks the spanned tree by hand (so that it reports every problem at once).
//! Each mapping's properties are laid out by the validator's key list for it
//! (`validate::keys`, which the editor's completion offers too, through
//! [`syntax::fields`](crate::syntax::fields)): one table per mapping; a test fails when a type
//! here has a field the table lacks, or lacks one it has.

#![allow(dead_code)] // reason: these types exist for their JSON Schema; nothing constructs them

use indexmap::IndexMap;
use schemars::{JsonSchema, Schema};

use crate::model::{
    Access, ApplyChanges, Architecture, CapOn, Engine, Expose, Ground, PostgresEngine, Runtime, Teardown,
};
use crate::validate::keys;

mod alarms;
mod deploy;
mod previews;
mod scaling;
use alarms::AlarmsFile;
use previews::PreviewsFile;
use scaling::{ActiveFile, ScaleOnFile, ScheduleFile};

const NAME: &str = r"^[a-z][a-z0-9-]{0,38}[a-z0-9]$";
const DURATION: &str = r"^[0-9]+(ms|s|m|h)$";

/// Lays out a mapping's `properties` in the order of its key list in `validate::keys`. A
/// property the list lacks stays last (the test below fails on it).
struct Keys(&'static [&'static str]);

impl schemars::transform::Transform for Keys {
    fn transform(&mut self, schema: &mut Schema) {
        let Some(props) = schema.get_mut("properties").and_then(serde_json::Value::as_object_mut) else {
            return;
        };
        let mut ordered = serde_json::Map::new();
        for key in self.0 {
            if let Some((k, v)) = props.shift_remove_entry(*key) {
                ordered.insert(k, v);
            }
        }
        ordered.append(props);
        *props = ordered;
    }
}

/// A root `runway.yaml`: the resources and workloads of a product, sized per environment.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "runway root file (format 3)")]
#[schemars(transform = Keys(keys::ROOT))]
pub struct RootFile {
    /// The format version: 3.
    #[schemars(range(min = 3, max = 3))]
    runway: u8,
    /// The product name.
    #[schemars(regex(pattern = r"^[a-z][a-z0-9-]{1,30}[a-z0-9]$"))]
    product: String,
    /// Globs of member folders relative to this file, e.g. `services/*`.
    members: Option<Vec<String>>,
    /// A catalogue file (sizes and prices) relative to this file, laid over the built-in one,
    /// e.g. one written by `runway catalogue import`; `--catalogue` overrides it.
    #[schemars(length(min = 1))]
    catalogue: Option<String>,
    /// Where secrets live; needed only by the secrets adapters.
    secrets: Option<SecretsFile>,
    /// The environments, keyed by name; at least one.
    #[schemars(length(min = 1))]
    environments: IndexMap<String, EnvironmentFile>,
    /// Managed resources, keyed by name.
    resources: Option<IndexMap<String, ResourceFile>>,
    /// Containers, keyed by name.
    workloads: Option<IndexMap<String, WorkloadFile>>,
    /// A running copy of the product per pull request, under one pooled cap
    /// (docs/previews.md).
    previews: Option<PreviewsFile>,
}

/// `secrets`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::SECRETS))]
struct SecretsFile {
    /// Infisical, the source of every runtime secret.
    infisical: Option<InfisicalFile>,
    /// SSM parameters that workloads read.
    ssm: Option<SsmFile>,
}

/// `secrets.infisical`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::INFISICAL))]
struct InfisicalFile {
    /// Base URL (default `https://app.infisical.com`).
    url: Option<String>,
    /// The Infisical project id.
    project: String,
    /// Runway environment -> Infisical environment slug (default: the same name).
    environments: Option<IndexMap<String, String>>,
    /// Folder template (default `/runtime/{resource}`).
    path: Option<String>,
}

/// `secrets.ssm`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::SSM))]
struct SsmFile {
    /// Parameter prefix (default `/{product}/{env}`).
    prefix: Option<String>,
    /// An existing KMS key for the SecureString parameters and the proxy secrets: `alias/...`,
    /// an alias or key ARN, or a key id (default: the environment's own key,
    /// `alias/runway/<product>/<env>`, which `runway secrets prepare` creates).
    kms_key: Option<String>,
}

/// `environments.<env>`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::ENVIRONMENT))]
struct EnvironmentFile {
    /// An AWS region the catalogue prices.
    region: String,
    /// The AWS account id (exactly 12 digits) the environment lives in: every command that
    /// calls AWS, and `pulumi up` (`aws:allowedAccountIds`), refuses another account.
    account: Option<AccountFile>,
    /// Cost limits.
    limits: Option<LimitsFile>,
    /// Legacy shared-pool sizes (default `small` each).
    shared: Option<SharedFile>,
    /// Domain of public workloads' hosts (`<workload>.<domain>`).
    domain: Option<String>,
    /// The workloads' CloudWatch Logs.
    logs: Option<LogsFile>,
    /// VPC endpoints for the private subnets.
    network: Option<NetworkFile>,
    /// When a change to a database or cache takes effect: `immediately` (at the deploy) or
    /// `maintenance-window` (at its next weekly window). Default `maintenance-window` in
    /// `production`, `immediately` elsewhere.
    apply_changes: Option<ApplyChanges>,
    /// What the environment expects to use a month of what is billed by use: counted in the
    /// estimate (and the cap), each shown with its source in the plan.
    usage: Option<UsageFile>,
    /// The environment's CloudWatch alarms (on in `production`, off elsewhere) and their
    /// thresholds; see docs/planning.md, "Alarms".
    alarms: Option<AlarmsFile>,
    /// The postgres bootstrap tasks of the environment (the one-off tasks that make each
    /// database's login roles).
    bootstrap: Option<BootstrapFile>,
    /// Where the alerts topic sends besides the `alertEmails` stack input.
    alerts: Option<AlertsFile>,
    /// Whether `runway teardown --confirm <env>` may destroy the environment: `allowed` or
    /// `refused`. Default `refused` in `production`, `allowed` elsewhere.
    teardown: Option<Teardown>,
}

/// `environments.<env>.bootstrap`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::BOOTSTRAP))]
struct BootstrapFile {
    /// The image of the bootstrap tasks, pinned by digest: a PostgreSQL 16 or later client image
    /// with `sh` and `psql`, e.g. a mirror in the environment's private ECR or a pull-through
    /// cache (default: `postgres:16-alpine` from ECR Public, which needs a NAT to reach).
    #[schemars(regex(pattern = r"^[^@\s]+@sha256:[0-9a-f]{64}$"))]
    image: Option<String>,
}

/// `environments.<env>.alerts`.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = Keys(keys::ALERTS))]
struct AlertsFile {
    /// Names of Infisical secrets, in the environment's `_alerts` folder, each holding an HTTPS
    /// endpoint the alerts topic notifies (a PagerDuty or Opsgenie integration URL); `runway
    /// secrets prepare` copies each to an SSM SecureString the program reads.
    #[schemars(extend("uniqueItems" = true), inner(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]*$")))]
    https: Option<Vec<String>>,
}

/// `environments.<env>.usage`: amounts a month; each applies to every owner of the kinds it
/// applies to, or (the network's) to the environment.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::USAGE))]
struct UsageFile {
    /// GB of logs each workload sends to CloudWatch Logs a month.
    #[schemars(range(min = 0, max = 1_000_000_000))]
    logs: Option<f64>,
    /// Million requests a month, per queue, topic and bucket (default for queues and topics:
    /// the size's).
    #[schemars(range(min = 0, max = 1_000_000_000))]
    requests: Option<f64>,
    /// GB stored, per bucket and Aurora cluster (default: the size's).
    #[schemars(range(min = 0, max = 1_000_000_000))]
    storage_gb: Option<f64>,
    /// Million I/O requests a month, per Aurora cluster (standard storage).
    #[schemars(range(min = 0, max = 1_000_000_000))]
    aurora_io: Option<f64>,
    /// Releases a month, per workload: what a strategy other than rolling runs two fleets for
    /// (default 20).
    #[schemars(range(min = 0, max = 1_000_000_000))]
    releases: Option<f64>,
    /// GB a month through the environment's NAT gateways.
    #[schemars(range(min = 0, max = 1_000_000_000))]
    nat_gb: Option<f64>,
    /// GB a month through the environment's VPC interface endpoints.
    #[schemars(range(min = 0, max = 1_000_000_000))]
    endpoint_gb: Option<f64>,
    /// GB a month out to the internet (priced at the first paid tier).
    #[schemars(range(min = 0, max = 1_000_000_000))]
    internet_gb: Option<f64>,
    /// One resource's or workload's amounts, overriding the environment's.
    #[serde(rename = "for")]
    for_: Option<IndexMap<String, UsageForFile>>,
}

/// `environments.<env>.usage.for.<name>`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::USAGE_FOR))]
struct UsageForFile {
    /// GB of logs the workload sends to CloudWatch Logs a month.
    #[schemars(range(min = 0, max = 1_000_000_000))]
    logs: Option<f64>,
    /// Million requests a month to the queue, topic or bucket.
    #[schemars(range(min = 0, max = 1_000_000_000))]
    requests: Option<f64>,
    /// GB the bucket or Aurora cluster stores.
    #[schemars(range(min = 0, max = 1_000_000_000))]
    storage_gb: Option<f64>,
    /// Million I/O requests a month of the Aurora cluster.
    #[schemars(range(min = 0, max = 1_000_000_000))]
    aurora_io: Option<f64>,
    /// Releases a month of the workload (default 20).
    #[schemars(range(min = 0, max = 1_000_000_000))]
    releases: Option<f64>,
}

/// `environments.<env>.network`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::NETWORK))]
struct NetworkFile {
    /// Interface endpoints (ssm, ecr.api, ecr.dkr, logs, and secretsmanager, sqs, sns when
    /// used) and the S3 gateway endpoint, so tasks reach AWS without a NAT: `true` declares
    /// them, `existing` says the VPC already has them (none declared or charged), `false` (the
    /// default) uses none.
    endpoints: Option<EndpointsFile>,
    /// Availability Zones of the private subnets given to the program; interface endpoints are
    /// billed per zone (default 2).
    #[schemars(range(min = 2, max = 6))]
    zones: Option<u32>,
    /// NAT gateways of the VPC the environment pays for, each priced per hour with its public
    /// IPv4 address (default with workloads and no endpoints: one per zone in `production`, one
    /// elsewhere; else 0; `0` when the VPC's NAT is shared and paid elsewhere).
    #[schemars(range(min = 0, max = 12))]
    nat: Option<u32>,
}

/// `environments.<env>.network.endpoints`.
#[derive(JsonSchema)]
#[serde(untagged)]
enum EndpointsFile {
    /// `true`: the program declares them; `false`: none.
    Declare(bool),
    /// `existing`: the VPC already has them.
    Existing(ExistingEndpoints),
}

/// The word `existing`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
enum ExistingEndpoints {
    /// The VPC already has the endpoints.
    Existing,
}

/// `environments.<env>.logs`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::LOGS))]
struct LogsFile {
    /// Days the workloads' logs are kept (default 14; 90 in `production`); one of the values
    /// CloudWatch Logs accepts.
    #[schemars(extend("enum" = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653]))]
    retention_days: Option<u32>,
}

/// `environments.<env>.limits`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::LIMITS))]
struct LimitsFile {
    /// Monthly cap in US dollars (defaults: dev 150, staging 500, others none).
    monthly: Option<MoneyFile>,
    /// The rise of the estimate one change may bring without a warning in review
    /// (`runway diff --base-ref`): US dollars (`50`) or a percentage of the base's estimate
    /// (`"20%"`).
    increase: Option<IncreaseFile>,
    /// Which estimate the cap refuses on: `floor` (default: `scale.min` within active hours),
    /// `typical` (midway between `min` and `max`) or `ceiling` (`max` all month).
    on: Option<CapOn>,
}

/// `limits.increase`: dollars, or a percentage.
#[derive(JsonSchema)]
#[serde(untagged)]
enum IncreaseFile {
    /// US dollars.
    Dollars(MoneyFile),
    /// A percentage of the base's estimate (`"20%"`).
    Percent(#[schemars(regex(pattern = r"^[0-9]+(\.[0-9]+)?%$"))] String),
}

/// An AWS account id: 12 digits, quoted (which keeps a leading 0) or as a number.
#[derive(JsonSchema)]
#[serde(untagged)]
enum AccountFile {
    /// As a string.
    Text(#[schemars(regex(pattern = r"^[0-9]{12}$"))] String),
    /// As a number (no leading 0).
    Number(#[schemars(range(min = 100_000_000_000_u64, max = 999_999_999_999_u64))] u64),
}

/// An amount of US dollars.
#[derive(JsonSchema)]
#[serde(untagged)]
enum MoneyFile {
    /// As a number.
    Number(#[schemars(range(min = 0))] f64),
    /// As a decimal string.
    Text(#[schemars(regex(pattern = r"^[0-9]+(\.[0-9]+)?$"))] String),
}

/// `environments.<env>.shared`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::SHARED))]
struct SharedFile {
    /// Size of `shared-queue`.
    queue: Option<String>,
    /// Size of `shared-topic`.
    topic: Option<String>,
    /// Size of `shared-cache`.
    cache: Option<String>,
    /// Size of `shared-bucket`.
    bucket: Option<String>,
}

/// `resources.<name>`, by kind.
#[derive(JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
enum ResourceFile {
    /// PostgreSQL behind RDS Proxy.
    #[schemars(transform = Keys(keys::POSTGRES))]
    Postgres {
        /// `rds` (default) or `aurora`.
        engine: Option<PostgresEngine>,
        /// Major version (default "16").
        version: Option<String>,
        /// Size per environment (default `small`).
        size: Option<IndexMap<String, String>>,
        /// What `runway restore` runs against a restored copy.
        restore: Option<RestoreFile>,
    },
    /// An SQS queue.
    #[serde(rename_all = "camelCase")]
    #[schemars(transform = Keys(keys::QUEUE))]
    Queue {
        /// FIFO queue (default false).
        fifo: Option<bool>,
        /// Visibility timeout, 0s..12h (default 30s).
        #[schemars(regex(pattern = DURATION))]
        visibility_timeout: Option<String>,
        /// Declares a dead-letter queue.
        dead_letter: Option<DeadLetterFile>,
        /// Size per environment (default `small`).
        size: Option<IndexMap<String, String>>,
    },
    /// An SNS topic.
    #[schemars(transform = Keys(keys::TOPIC))]
    Topic {
        /// FIFO topic (default false).
        fifo: Option<bool>,
        /// Size per environment (default `small`).
        size: Option<IndexMap<String, String>>,
    },
    /// An ElastiCache Valkey replication group.
    #[schemars(transform = Keys(keys::CACHE))]
    Cache {
        /// Valkey version (default "8.0").
        version: Option<String>,
        /// Size per environment (default `small`).
        size: Option<IndexMap<String, String>>,
    },
    /// An S3 bucket, public access blocked.
    #[schemars(transform = Keys(keys::BUCKET))]
    Bucket {
        /// Object versioning (default off): `true` keeps a replaced or deleted version 30
        /// days, `{ keepDays: N }` N days.
        versioning: Option<VersioningFile>,
        /// Size per environment (default `small`).
        size: Option<IndexMap<String, String>>,
    },
}

/// A bucket's `versioning`.
#[derive(JsonSchema)]
#[serde(untagged)]
enum VersioningFile {
    /// `true`: on, noncurrent versions kept 30 days; `false`: off.
    On(bool),
    /// On, noncurrent versions kept as said.
    Keep(VersioningKeepFile),
}

/// `versioning: { keepDays: N }`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::VERSIONING))]
struct VersioningKeepFile {
    /// Days a version is kept once a newer one replaced it or it was deleted (1..3650,
    /// default 30).
    #[schemars(range(min = 1, max = 3650))]
    keep_days: Option<u32>,
}

/// A postgres resource's `restore`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::RESTORE))]
struct RestoreFile {
    /// A query run as the admin against a restored copy, read-only, before the copy is called
    /// usable (`select count(*) from orders`); it passes when it runs without an error.
    #[schemars(length(min = 1, max = 2000))]
    check: Option<String>,
}

/// `deadLetter`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::DEAD_LETTER))]
struct DeadLetterFile {
    /// Receives before a message moves to the dead-letter queue (1..1000).
    #[schemars(range(min = 1, max = 1000))]
    max_receives: u32,
}

/// `workloads.<name>`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::WORKLOAD))]
struct WorkloadFile {
    /// Image pinned by digest: `[registry/]name[:tag]@sha256:<64 hex>`.
    #[schemars(regex(pattern = r"^[^@\s]+@sha256:[0-9a-f]{64}$"))]
    image: String,
    /// CPU architecture the image is built for: `arm64` (default) or `x86_64` (amd64).
    platform: Option<Architecture>,
    /// Credentials of a private registry: `NAME` for the Infisical secrets `NAME_USERNAME` and
    /// `NAME_PASSWORD` (copied to Secrets Manager by `runway secrets prepare`), or the full ARN
    /// of an existing Secrets Manager secret holding `{"username", "password"}`.
    #[schemars(regex(
        pattern = r"^([A-Za-z_][A-Za-z0-9_]*|arn:aws[a-z0-9-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6})$"
    ))]
    registry_credentials: Option<String>,
    /// The container's entry point, word by word (exec form), replacing the image's
    /// ENTRYPOINT (default: the image's own); its `migrate` runs with it too unless it sets its
    /// own.
    #[schemars(length(min = 1), inner(length(min = 1)))]
    entry_point: Option<Vec<String>>,
    /// Container port; none for a worker (no load balancer, no Cloud Map service, no ingress),
    /// which then declares a `command` health check or `health: { none: <why> }`.
    #[schemars(range(min = 1, max = 65535))]
    port: Option<u16>,
    /// HTTP (`path`) or command (`command`) health check, or `none: <why>` for a worker.
    health: Option<HealthFile>,
    /// Environment values: plain text, or exactly `${VAR}` for a variable of a used resource
    /// (delivered from its SSM parameter, under this name).
    env: Option<IndexMap<String, String>>,
    /// Names of secrets the workload reads; values are set by people.
    secrets: Option<Vec<String>>,
    /// Resources it consumes: a name (used `write`), or `{ <name>: read | write }`.
    uses: Option<Vec<UseFile>>,
    /// `internal` (default) or `public`.
    expose: Option<Expose>,
    /// Size per environment (default `small`).
    size: Option<IndexMap<String, String>>,
    /// Scale per environment (default min 1, max 1).
    scale: Option<IndexMap<String, ScaleFile>>,
    /// How a release replaces the running tasks, per environment (default `rolling`).
    deploy: Option<IndexMap<String, deploy::DeployFile>>,
    /// Scheduled runs of its task definition with a command (EventBridge Scheduler), by name.
    schedules: Option<IndexMap<String, ScheduleFile>>,
    /// ECS Exec: allow a shell into a running task with `aws ecs execute-command` (default
    /// false).
    exec: Option<bool>,
    /// Why no managed service fits.
    reason: ReasonFile,
    /// A command run once per release as a one-off Fargate task with the new image, the
    /// workload's bindings, size and network, before its service is updated (`runway migrate`).
    migrate: Option<MigrateFile>,
}

/// `migrate`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::MIGRATE))]
struct MigrateFile {
    /// The container's entry point, word by word, replacing the image's ENTRYPOINT (default:
    /// the workload's `entryPoint`, else the image's own).
    #[schemars(length(min = 1), inner(length(min = 1)))]
    entry_point: Option<Vec<String>>,
    /// The container's command, word by word (exec form), e.g. `["./manage.py", "migrate"]`.
    /// It replaces the image's CMD: without an entry point it is handed to the image's
    /// ENTRYPOINT as its arguments.
    #[schemars(length(min = 1), inner(length(min = 1)))]
    command: Vec<String>,
}

/// One entry of a workload's `uses`.
#[derive(JsonSchema)]
#[serde(untagged)]
enum UseFile {
    /// A resource name: used with the `write` mode.
    Name(String),
    /// `{ <name>: read | write }`: one resource and its access mode.
    #[schemars(extend("minProperties" = 1, "maxProperties" = 1))]
    WithMode(IndexMap<String, Access>),
}

/// `health`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::HEALTH))]
struct HealthFile {
    /// HTTP path checked with GET.
    path: Option<String>,
    /// Command run in the container.
    command: Option<Vec<String>>,
    /// Whole seconds, 5s..5m (default 30s).
    #[schemars(regex(pattern = DURATION))]
    interval: Option<String>,
    /// Whole seconds, 2s..1m, shorter than the interval (default 5s).
    #[schemars(regex(pattern = DURATION))]
    timeout: Option<String>,
    /// Default 2.
    #[schemars(range(min = 1, max = 10))]
    healthy_threshold: Option<u32>,
    /// Default 3.
    #[schemars(range(min = 1, max = 10))]
    unhealthy_threshold: Option<u32>,
    /// Time after a task starts in which failing health checks are ignored: whole seconds from
    /// 0s to 1h (default 60s).
    #[schemars(regex(pattern = DURATION))]
    grace: Option<String>,
    /// No check, and why: only for a workload without a `port`, and alone.
    #[schemars(length(min = 1))]
    none: Option<String>,
}

/// `scale.<env>`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::SCALE))]
struct ScaleFile {
    /// Tasks at rest (>= 1; 0 outside production with `active` hours).
    #[schemars(range(min = 0))]
    min: Option<u32>,
    /// Tasks at most (>= min).
    #[schemars(range(min = 1))]
    max: Option<u32>,
    /// What the desired count follows (default: CPU at 60%).
    on: Option<ScaleOnFile>,
    /// The hours it runs, outside production: none outside them.
    active: Option<ActiveFile>,
}

/// `reason`.
#[derive(JsonSchema)]
#[serde(untagged)]
enum ReasonFile {
    /// The long form: a ground and a detail.
    Grounded(GroundedReason),
    /// The legacy plain string (warns: it names no ground).
    Plain(String),
}

/// `reason: { ground, detail }`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::REASON))]
struct GroundedReason {
    /// One of the three allowed grounds.
    ground: Ground,
    /// Why; non-empty.
    #[schemars(length(min = 1))]
    detail: String,
}

/// A member `runway.yaml`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "runway member file (format 3)")]
#[schemars(transform = Keys(keys::MEMBER))]
pub struct MemberFile {
    /// The format version: 3.
    #[schemars(range(min = 3, max = 3))]
    runway: u8,
    /// Member name (default: the folder's name).
    #[schemars(regex(pattern = NAME))]
    member: Option<String>,
    /// `encore` (default) or `other`.
    runtime: Option<Runtime>,
    /// Legacy engines (read as `shared-<engine>` resources).
    requires: Option<Vec<Engine>>,
    /// Named resources of the root runway.
    uses: Option<Vec<String>>,
}

/// The JSON Schema of the root format, pretty-printed.
pub fn root_schema() -> String {
    pretty(&schemars::schema_for!(RootFile))
}

/// The JSON Schema of the member format, pretty-printed.
pub fn member_schema() -> String {
    pretty(&schemars::schema_for!(MemberFile))
}

fn pretty(schema: &schemars::Schema) -> String {
    // A Schema is a JSON value: serializing it cannot fail.
    let mut s = serde_json::to_string_pretty(schema).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::keys;

    fn props(schema: &Value, def: Option<&str>) -> Vec<String> {
        let obj = match def {
            None => schema,
            Some(d) => &schema["$defs"][d],
        };
        obj["properties"].as_object().expect("properties").keys().cloned().collect()
    }

    fn listed(k: &[&str]) -> Vec<String> {
        k.iter().map(|s| (*s).to_owned()).collect()
    }

    /// The schema editors see and the validator accept exactly the same fields, in the order of
    /// the validator's key lists.
    #[test]
    fn schema_fields_match_validation() {
        let root: Value = serde_json::from_str(&super::root_schema()).unwrap();
        assert_eq!(props(&root, None), listed(keys::ROOT));
        for (def, k) in [
            ("SecretsFile", keys::SECRETS),
            ("PreviewsFile", keys::PREVIEWS),
            ("PreviewLimitsFile", keys::PREVIEW_LIMITS),
            ("InfisicalFile", keys::INFISICAL),
            ("SsmFile", keys::SSM),
            ("EnvironmentFile", keys::ENVIRONMENT),
            ("LimitsFile", keys::LIMITS),
            ("LogsFile", keys::LOGS),
            ("AlarmsFile", keys::ALARMS),
            ("AlarmsForFile", keys::ALARMS_FOR),
            ("AlertsFile", keys::ALERTS),
            ("NetworkFile", keys::NETWORK),
            ("BootstrapFile", keys::BOOTSTRAP),
            ("UsageFile", keys::USAGE),
            ("UsageForFile", keys::USAGE_FOR),
            ("SharedFile", keys::SHARED),
            ("DeadLetterFile", keys::DEAD_LETTER),
            ("VersioningKeepFile", keys::VERSIONING),
            ("RestoreFile", keys::RESTORE),
            ("WorkloadFile", keys::WORKLOAD),
            ("HealthFile", keys::HEALTH),
            ("ScaleFile", keys::SCALE),
            ("DeployFile", keys::DEPLOY),
            ("ScaleOnFile", keys::SCALE_ON),
            ("ActiveFile", keys::ACTIVE),
            ("ScheduleFile", keys::SCHEDULE),
            ("MigrateFile", keys::MIGRATE),
            ("GroundedReason", keys::REASON),
        ] {
            assert_eq!(props(&root, Some(def)), listed(k), "{def}");
        }
        let variants = root["$defs"]["ResourceFile"]["oneOf"].as_array().unwrap();
        assert_eq!(variants.len(), crate::Kind::ALL.len(), "one schema variant per kind");
        for &kind in crate::Kind::ALL {
            let (_, k) = crate::validate::kind_keys(kind);
            let kind = kind.as_str();
            let v = variants.iter().find(|v| v["properties"]["kind"]["const"] == kind).expect(kind);
            assert_eq!(props(v, None), listed(k), "{kind}");
        }
        let member: Value = serde_json::from_str(&super::member_schema()).unwrap();
        assert_eq!(props(&member, None), listed(keys::MEMBER));
    }
}
