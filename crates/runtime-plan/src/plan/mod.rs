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
//!
//! One module per concern: [`items`](PlannedItem) and their kinds, the [`ItemSpec`] of each
//! type and the boxed specs of the large kinds, [bindings](Binding), the
//! [secrets layout](SecretsLayout), and the [cost](CostSummary) with its [`Verdict`]. Every
//! type is re-exported here: `runtime_plan::plan::X` and `runtime_plan::X` name the same thing.

mod alarms;
mod bindings;
mod bootstrap;
mod data;
mod item_spec;
mod items;
#[macro_use]
mod kind_columns;
mod kinds;
mod parts;
mod preview_of;
mod rotation;
mod secrets;
mod specs;
mod tags;
mod tasks;
mod verdict;

use std::sync::Arc;

pub use compact_str::CompactString;
use cost::TaskSize;
pub use runway_schema::{ApplyChanges, Endpoints};
use runway_schema::{Architecture, Diagnostic, Expose, Kind, Money, PostgresEngine};
use serde::Serialize;

pub use alarms::{
    ALERT_PUBLISHERS, ALERT_PUBLISHERS_WITH_BUDGET, ALERTS_TOPIC_ID, AlarmDimension, AlarmMetric, AlarmName,
    AlarmSetting, AlertPublisher, Comparison, DimensionValue, ECS_ALERT_EVENTS, MAX_ALARM_WINDOW_SECONDS,
    alarm_metric, periods_past_grace,
};
pub use bindings::{Binding, ConsumerKind, Delivery};
pub use bootstrap::{
    ATTEMPTS, ATTEMPTS_VARIABLE, BOOTSTRAP_COMMAND, BOOTSTRAP_IMAGE, CONNECT_TIMEOUT_SECONDS,
    DatabaseBootstrap, DatabaseLogin, OwnDatabase, PAUSE_SECONDS, PAUSE_VARIABLE, READ_GROUP, SQL_VARIABLE,
    WRITE_GROUP, bootstrap_sql,
};
pub use data::StoredData;
pub use item_spec::{
    Access, ActiveHours, CloudMapServiceSpec, EndpointType, ItemSpec, RdsProxyTargetSpec, ScalingTargetSpec,
    ScheduleSpec, SnsTopicSpec, TrafficRoleSpec,
};
pub use items::{ManagedBy, PlannedItem, Pricing};
pub use kinds::{ItemKind, UsedThrough};
pub use parts::{
    Grant, HealthSpec, ListenerAction, Peer, PlainVariables, PolicyResource, RepositoryCredentials,
    SecurityRule, TaskSecret,
};
pub use preview_of::{Preview, SharedItem};
pub use rotation::{
    PENDING_FOLDER, RotatedParameter, Rotation, RotationError, RotationTarget, ServiceRestart,
};
pub use secrets::{
    ConnectionSource, ConnectionVariable, CredentialKind, GeneratedSecret, InfisicalFolder, InfisicalPlace,
    ParameterSource, ParameterType, ParameterWriter, RegistryCopy, SECURE_STRING, SecretsLayout,
    SsmParameter,
};
pub use specs::{
    AlbListenerRuleSpec, AlbListenerSpec, AlbLogBucketSpec, AlbSpec, AlbTargetGroupSpec, AuroraClusterSpec,
    BucketLifecycle, BudgetAlert, BudgetBasis, BudgetSpec, CacheReplicationGroupSpec, DatabaseProtection,
    DnsRecordSpec, EcsServiceSpec, LogDelivery, RdsInstanceSpec, RdsProxySpec, S3BucketSpec,
    ScalingPolicySpec, ScalingSource, SqsQueueSpec, TaskDefinitionSpec, TrafficShift,
};
pub use tags::{ENVIRONMENT_TAG, ITEM_TAG, PRODUCT_TAG, RESOURCE_TAG, TagRule, TagValue, tag_rules};
pub use tasks::{OneOffTask, TaskPurpose, TaskRecord};
pub use verdict::{CostLine, CostSummary, UnpricedItem, UsageAssumption, UsageLine, UsageSource, Verdict};

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
    /// The AWS account it is pinned to (`account`), when it is: the commands that call AWS
    /// and the program's provider (`allowedAccountIds`) refuse any other.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account: Option<CompactString>,
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
    /// The tags every AWS item carries, each a rule over the item ([`Plan::tags_of`]).
    pub tags: Vec<TagRule>,
    /// When a change to a database or cache takes effect (`applyChanges`); each database's and
    /// cache's `applyImmediately` follows it.
    pub apply_changes: ApplyChanges,
    /// Who provides the VPC endpoints of the private subnets (`network.endpoints`): nobody, the
    /// program (its `vpc-endpoint` items), or the VPC already (`existing`: assumed present,
    /// none declared or charged).
    pub vpc_endpoints: Endpoints,
    /// The one-off tasks the deploy job runs (a workload's `migrate`), in workload order.
    pub tasks: Vec<OneOffTask>,
    /// When the plan is a pull request's preview: what it shares with the environment it
    /// comes from, and what it adds (docs/previews.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<Preview>,
}

/// Where a resource comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
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
    /// `restore.check` of a postgres resource: the query `runway restore` runs against a
    /// restored copy before it reports it usable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restore_check: Option<CompactString>,
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
    /// The CPU architecture of its tasks (`arm64`, `x86_64`): the Fargate rates it is priced at.
    pub platform: Architecture,
    /// The pinned image, shared with its task definitions (`Arc`).
    pub image: Arc<str>,
    /// Container port; `None` for a worker.
    pub port: Option<u16>,
    /// `<workload>.<domain>` when public.
    pub host: Option<CompactString>,
    /// `<workload>.<env>.<product>.internal` when internal.
    pub dns_name: Option<CompactString>,
    /// Resources it uses, in order.
    pub uses: Vec<CompactString>,
    /// Logical ids of its items.
    pub items: Vec<CompactString>,
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

impl Plan {
    /// The item with this logical id: a search of the list, for one look-up. A caller that
    /// looks up an item per item or per workload takes [`Plan::items_by_id`] once instead.
    pub fn item(&self, id: &str) -> Option<&PlannedItem> {
        self.items.iter().find(|i| i.id == id)
    }

    /// Every item by its logical id, for many look-ups (a plan of 10,000 resources has about
    /// 90,000 items: a search per look-up is quadratic).
    pub fn items_by_id(&self) -> std::collections::BTreeMap<&str, &PlannedItem> {
        self.items.iter().map(|i| (i.id.as_str(), i)).collect()
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

/// The sizes of the records a large plan holds by the ten thousand: every item is as large as
/// its largest spec, so a new large variant or field grows every item of every plan (peak RSS
/// of a 10,000-resource plan, docs/benchmarks.md). Box what is large and rare.
#[cfg(test)]
mod sizes {
    use std::mem::size_of;

    use super::*;

    #[test]
    fn the_plans_records_stay_small() {
        let sizes = [
            // 264 until its size was a shared text and its spec 64 bytes (seventh pass).
            ("PlannedItem", size_of::<PlannedItem>(), 240),
            // 80 until the seventh pass boxed the specs of three words.
            ("ItemSpec", size_of::<ItemSpec>(), 64),
            // 192 and 136 until a place held its folder by reference, and the parameter its
            // readers in a boxed list and no copy of the plan's key (seventh pass).
            ("SsmParameter", size_of::<SsmParameter>(), 144),
            ("ConnectionVariable", size_of::<ConnectionVariable>(), 112),
            ("InfisicalPlace", size_of::<InfisicalPlace>(), 32),
            ("GeneratedSecret", size_of::<GeneratedSecret>(), 160),
            // 160 and 136 until a line's four texts were one shared record (seventh pass).
            ("CostLine", size_of::<CostLine>(), 104),
            ("UsageLine", size_of::<verdict::UsageLine>(), 80),
            // 216 until `restore.check` (issue 44) added its query: one per resource, 0.24 MB
            // at N = 10,000, kept.
            ("PlannedResource", size_of::<PlannedResource>(), 240),
            ("PlannedWorkload", size_of::<PlannedWorkload>(), 224),
            ("PlannedOutput", size_of::<PlannedOutput>(), 72),
            ("Binding", size_of::<Binding>(), 136),
            ("Pricing", size_of::<Pricing>(), 24),
        ];
        for (name, size, limit) in sizes {
            println!("{name}: {size} bytes (limit {limit})");
        }
        for (name, size, limit) in sizes {
            assert!(size <= limit, "{name} is {size} bytes, over {limit}");
        }
    }
}
