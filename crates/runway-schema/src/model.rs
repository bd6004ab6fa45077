//! The typed, validated runway: what the planner reads.
//!
//! Every value here has passed validation: names match their pattern, references resolve,
//! sizes and environments are declared. Defaults of the format are already applied, so the
//! planner never has to know them.

use indexmap::IndexMap;
use serde::Serialize;

use crate::diagnostic::Location;
use crate::values::{Duration, Money};

mod previews;
mod scaling;
mod schedule;
mod workload;
pub use crate::owners::OwnerKind;
pub use previews::*;
pub use scaling::*;
pub use schedule::*;
pub use workload::*;

/// The default size every environment a `size` map does not name gets.
pub const DEFAULT_SIZE: &str = "small";

/// A whole product: the root runway and its members.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Product {
    /// The root `runway.yaml`.
    pub root: Runway,
    /// The members matched by the root's `members` globs, in path order.
    pub members: Vec<Member>,
}

/// The root runway file.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Runway {
    /// File the root was read from, as given to the loader.
    pub file: String,
    /// The product name (`product`).
    pub product: String,
    /// Globs of member folders relative to the root file (`members`).
    pub members: Vec<String>,
    /// The catalogue file the product is priced with (`catalogue`), relative to the root file;
    /// `--catalogue` overrides it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalogue: Option<String>,
    /// Where secrets live (`secrets`), defaults applied.
    pub secrets: Secrets,
    /// Declared environments, in file order.
    pub environments: IndexMap<String, Environment>,
    /// Declared resources, in file order.
    pub resources: IndexMap<String, Resource>,
    /// Declared workloads, in file order.
    pub workloads: IndexMap<String, Workload>,
    /// Preview environments per pull request (`previews`), when declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previews: Option<Previews>,
}

/// The `secrets` block with every default applied.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Secrets {
    /// `secrets.infisical`, when the block is present.
    pub infisical: Option<Infisical>,
    /// `secrets.ssm`, defaults applied whether or not the block is present.
    pub ssm: Ssm,
}

/// `secrets.infisical`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Infisical {
    /// Base URL of the Infisical server (default `https://app.infisical.com`).
    pub url: String,
    /// The Infisical project id.
    pub project: String,
    /// Runway environment -> Infisical environment slug; an environment not named maps to itself.
    pub environments: IndexMap<String, String>,
    /// Folder template, `{resource}` replaced by the resource name (default `/runtime/{resource}`).
    pub path: String,
}

/// `secrets.ssm`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Ssm {
    /// Parameter prefix template with `{product}` and `{env}` (default `/{product}/{env}`).
    pub prefix: String,
    /// An existing KMS key for the SecureString parameters and the secrets `secrets prepare`
    /// writes (an alias, an alias or key ARN, or a key id); `None` (the default): the
    /// environment's own customer managed key, which `secrets prepare` creates
    /// (`alias/runway/<product>/<env>`).
    pub kms_key: Option<String>,
}

/// Default Infisical base URL.
pub const DEFAULT_INFISICAL_URL: &str = "https://app.infisical.com";
/// Default Infisical folder template.
pub const DEFAULT_INFISICAL_PATH: &str = "/runtime/{resource}";
/// Default SSM prefix template.
pub const DEFAULT_SSM_PREFIX: &str = "/{product}/{env}";

impl Default for Ssm {
    fn default() -> Self {
        Self { prefix: DEFAULT_SSM_PREFIX.to_owned(), kms_key: None }
    }
}

impl Infisical {
    /// The Infisical environment slug a runway environment maps to.
    pub fn environment_slug<'a>(&'a self, env: &'a str) -> &'a str {
        self.environments.get(env).map_or(env, String::as_str)
    }

    /// The folder of a resource's variables.
    pub fn folder(&self, resource: &str) -> String {
        self.path.replace("{resource}", resource)
    }
}

impl Ssm {
    /// The alias of an environment's own key (`alias/runway/<product>/<env>`), when
    /// `kmsKey` names none.
    pub fn environment_key_alias(product: &str, env: &str) -> String {
        format!("alias/runway/{product}/{env}")
    }

    /// The parameter prefix of an environment, without a trailing `/`.
    pub fn prefix_for(&self, product: &str, env: &str) -> String {
        let p = self.prefix.replace("{product}", product).replace("{env}", env);
        p.trim_end_matches('/').to_owned()
    }
}

/// `environments.<env>`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Environment {
    /// AWS region.
    pub region: String,
    /// `account`: the AWS account (12 digits) the environment lives in, when pinned; every
    /// command that calls AWS refuses another caller's account.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    /// `limits.monthly` as written; `None` when the file sets no cap (see [`Environment::cap`]).
    pub monthly_limit: Option<Money>,
    /// Legacy shared-pool sizes by engine, as written.
    pub shared: IndexMap<Engine, String>,
    /// Public domain of the environment's ALB host rules.
    pub domain: Option<String>,
    /// Where the environment is declared (its key).
    pub at: Location,
    /// Where `limits.monthly` is written, when it is.
    pub limit_at: Option<Location>,
    /// `limits.increase`: the rise one change may bring without a warning in review.
    pub increase_limit: Option<Increase>,
    /// `limits.on`: which estimate the cap refuses on (default the floor, the estimate at
    /// `scale.min`).
    pub cap_on: CapOn,
    /// `logs.retentionDays` as written; `None` for the planner's default (90 days in
    /// `production`, 14 elsewhere).
    pub log_retention_days: Option<u32>,
    /// `network` as written, defaults applied.
    pub network: Network,
    /// `applyChanges` as written; `None` for the planner's default (`maintenance-window` in
    /// `production`, `immediately` elsewhere).
    pub apply_changes: Option<ApplyChanges>,
    /// `usage` as written: what the environment expects to use a month of what is billed by
    /// use (empty when the file declares none).
    pub usage: Usage,
    /// `alarms` as written: whether the environment declares its alarms, and their thresholds.
    pub alarms: crate::alarms::Alarms,
    /// `bootstrap` as written: the image of its postgres bootstrap tasks.
    pub bootstrap: crate::bootstrap::Bootstrap,
    /// `teardown` as written; `None` for the default of its name (`refused` in `production`,
    /// `allowed` elsewhere): whether `runway teardown` may destroy the environment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub teardown: Option<Teardown>,
}

/// `environments.<env>.teardown`: whether `runway teardown` may destroy the environment (it
/// also asks for the environment's name repeated, `--confirm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Teardown {
    /// `runway teardown --confirm <env>` destroys it.
    Allowed,
    /// `runway teardown` lists what it holds and destroys nothing.
    Refused,
}

impl Teardown {
    /// Every value, in the order the reference lists them.
    pub const ALL: [Teardown; 2] = [Teardown::Allowed, Teardown::Refused];
    /// Every value, as written in files.
    pub const NAMES: &'static [&'static str] = &["allowed", "refused"];

    /// The value written `name`, if it is one.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// As written in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Teardown::Allowed => "allowed",
            Teardown::Refused => "refused",
        }
    }

    /// The setting of the environment named `name`: as written, else `refused` for
    /// `production` and `allowed` elsewhere.
    pub fn of(written: Option<Teardown>, name: &str) -> Teardown {
        written.unwrap_or(if name == "production" { Teardown::Refused } else { Teardown::Allowed })
    }
}

/// `environments.<env>.applyChanges`: when a change to a database or cache takes effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ApplyChanges {
    /// At the deploy that makes it (`applyImmediately`): a resize or an engine change may
    /// restart the database or cache during the deploy.
    Immediately,
    /// At the resource's next weekly maintenance window; until then it keeps running as it was.
    MaintenanceWindow,
}

impl ApplyChanges {
    /// Every value, in the order the reference lists them.
    pub const ALL: [ApplyChanges; 2] = [ApplyChanges::Immediately, ApplyChanges::MaintenanceWindow];
    /// Every value, as written in files.
    pub const NAMES: &'static [&'static str] = &["immediately", "maintenance-window"];

    /// The value written `name`, if it is one.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.as_str() == name)
    }

    /// As written in files.
    pub fn as_str(self) -> &'static str {
        match self {
            ApplyChanges::Immediately => "immediately",
            ApplyChanges::MaintenanceWindow => "maintenance-window",
        }
    }
}

/// `limits.increase`: how much one change may raise an environment's estimate before review
/// (`runway diff --base-ref`) warns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Increase {
    /// US dollars a month.
    Dollars(Money),
    /// A percentage of the base's estimate.
    Percent(Money),
}

impl Increase {
    /// The rise allowed from an estimate of `before`.
    pub fn allowed(self, before: Money) -> Money {
        match self {
            Increase::Dollars(d) => d,
            Increase::Percent(p) => Money(before.0 * p.0 / rust_decimal::Decimal::ONE_HUNDRED),
        }
    }

    /// As written in the file (`50`, `20%`).
    pub fn text(self) -> String {
        match self {
            Increase::Dollars(d) => d.0.normalize().to_string(),
            Increase::Percent(p) => format!("{}%", p.0.normalize()),
        }
    }
}

/// `environments.<env>.network`: VPC endpoints for the private subnets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Network {
    /// Interface endpoints for the AWS APIs the environment's tasks and proxies call, and the
    /// S3 gateway endpoint, so the private subnets need no NAT for AWS (default none).
    pub endpoints: Endpoints,
    /// Availability Zones of the private subnets the program is given: interface endpoints are
    /// billed per zone (default and minimum 2).
    pub zones: u32,
    /// `nat` as written: how many NAT gateways of the VPC the environment pays for; `None` for
    /// the planner's default (with workloads and no VPC endpoints: one per zone in `production`,
    /// one elsewhere; else 0).
    pub nat: Option<u32>,
}

impl Default for Network {
    fn default() -> Self {
        Network { endpoints: Endpoints::None, zones: MIN_ZONES, nat: None }
    }
}

/// `environments.<env>.network.endpoints`: who provides the VPC endpoints of the AWS APIs the
/// environment calls from its private subnets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Endpoints {
    /// `false` (the default): none; the private subnets reach AWS through the account's NAT.
    None,
    /// `true`: the program declares the endpoints the environment needs, priced in the plan.
    Declared,
    /// `existing`: the VPC already has them (another environment or the network team made
    /// them); none is declared or charged, and they are assumed present.
    Existing,
}

/// Fewest Availability Zones an environment's subnets span (RDS Proxy, the ALB and DB subnet
/// groups refuse fewer than two).
pub const MIN_ZONES: u32 = 2;
/// Most Availability Zones a region has.
pub const MAX_ZONES: u32 = 6;

/// Most NAT gateways `network.nat` may count (one per zone of the largest region, twice over).
pub const MAX_NAT: u32 = 2 * MAX_ZONES;

/// `environments.<env>.usage`: what the environment expects to use a month of what AWS bills by
/// use. The environment's amounts apply to every owner of a kind the key applies to (or, for
/// the network keys, to the environment as a whole); `for` overrides them per resource or
/// workload.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// The environment's amounts, by key.
    pub amounts: std::collections::BTreeMap<UsageKey, rust_decimal::Decimal>,
    /// `for`: the amounts of one resource or workload, by its name, overriding the
    /// environment's.
    pub overrides: IndexMap<String, std::collections::BTreeMap<UsageKey, rust_decimal::Decimal>>,
}

impl Usage {
    /// The amount of `key` for `owner` (a resource or workload; `None` for the environment's
    /// own keys) and where the file writes it (`usage.for.jobs.requests`, `usage.requests`),
    /// when it declares one.
    pub fn amount(&self, owner: Option<&str>, key: UsageKey) -> Option<(rust_decimal::Decimal, String)> {
        if let Some(owner) = owner
            && let Some(amount) = self.overrides.get(owner).and_then(|o| o.get(&key))
        {
            return Some((*amount, format!("usage.for.{owner}.{}", key.as_str())));
        }
        self.amounts.get(&key).map(|a| (*a, format!("usage.{}", key.as_str())))
    }
}

/// Releases a month a workload is assumed to have when `usage.releases` leaves it out (about
/// one a working day): what prices the second fleet of a strategy other than rolling.
pub const DEFAULT_RELEASES_PER_MONTH: u32 = 20;

/// What an environment may declare under `usage`: each key, its unit and what it applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum UsageKey {
    /// GB of logs a workload sends to CloudWatch Logs a month.
    Logs,
    /// Million requests a month to a queue, topic or bucket.
    Requests,
    /// GB a bucket or an Aurora cluster stores.
    StorageGb,
    /// Million I/O requests a month of an Aurora cluster (standard storage).
    AuroraIo,
    /// Releases a month of a workload (what a strategy other than rolling runs two fleets
    /// for; default [`DEFAULT_RELEASES_PER_MONTH`]).
    Releases,
    /// GB a month through the environment's NAT gateways.
    NatGb,
    /// GB a month through the environment's VPC interface endpoints.
    EndpointGb,
    /// GB a month out to the internet.
    InternetGb,
}

/// What a usage key applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UsageScope {
    /// Each owner of these kinds (`workload` for workloads), set for all of them at the
    /// environment's level or for one under `for`.
    Owners(&'static [OwnerKind]),
    /// The environment as a whole: never under `for`.
    Environment,
}

impl UsageKey {
    /// Every key, in the order the reference lists them.
    pub const ALL: [UsageKey; 8] = [
        UsageKey::Logs,
        UsageKey::Requests,
        UsageKey::StorageGb,
        UsageKey::AuroraIo,
        UsageKey::Releases,
        UsageKey::NatGb,
        UsageKey::EndpointGb,
        UsageKey::InternetGb,
    ];

    /// As written in files.
    pub fn as_str(self) -> &'static str {
        match self {
            UsageKey::Logs => "logs",
            UsageKey::Requests => "requests",
            UsageKey::StorageGb => "storageGb",
            UsageKey::AuroraIo => "auroraIo",
            UsageKey::Releases => "releases",
            UsageKey::NatGb => "natGb",
            UsageKey::EndpointGb => "endpointGb",
            UsageKey::InternetGb => "internetGb",
        }
    }

    /// The key written `name`, if it is one.
    pub fn from_name(name: &str) -> Option<UsageKey> {
        UsageKey::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// The unit of its amount (`GB ingested`, `million requests`).
    pub fn unit(self) -> &'static str {
        match self {
            UsageKey::Logs => "GB ingested",
            UsageKey::Requests => "million requests",
            UsageKey::StorageGb => "GB stored",
            UsageKey::AuroraIo => "million I/O requests",
            UsageKey::Releases => "releases",
            UsageKey::NatGb => "GB through NAT",
            UsageKey::EndpointGb => "GB through endpoints",
            UsageKey::InternetGb => "GB out to the internet",
        }
    }

    /// What it applies to: the kinds of owner (`workload`, `queue`, `postgres aurora`, ...), or
    /// the environment.
    pub fn scope(self) -> UsageScope {
        match self {
            UsageKey::Logs | UsageKey::Releases => UsageScope::Owners(&[OwnerKind::Workload]),
            UsageKey::Requests => {
                UsageScope::Owners(&[OwnerKind::Queue, OwnerKind::Topic, OwnerKind::Bucket])
            }
            UsageKey::StorageGb => UsageScope::Owners(&[OwnerKind::Bucket, OwnerKind::PostgresAurora]),
            UsageKey::AuroraIo => UsageScope::Owners(&[OwnerKind::PostgresAurora]),
            UsageKey::NatGb | UsageKey::EndpointGb | UsageKey::InternetGb => UsageScope::Environment,
        }
    }
}

/// The retention values CloudWatch Logs accepts, in days.
pub const LOG_RETENTION_DAYS: [u32; 22] =
    [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

/// Default cap of an environment named `dev`.
pub const DEFAULT_DEV_CAP: &str = "150";
/// Default cap of an environment named `staging`.
pub const DEFAULT_STAGING_CAP: &str = "500";

impl Environment {
    /// The cap of the environment named `name`: explicit, or the default of its name
    /// (`dev` $150, `staging` $500), or none.
    pub fn cap(&self, name: &str) -> Option<Money> {
        self.monthly_limit.or_else(|| match name {
            "dev" => Money::parse(DEFAULT_DEV_CAP).ok(),
            "staging" => Money::parse(DEFAULT_STAGING_CAP).ok(),
            _ => None,
        })
    }

    /// The shared size of an engine (default `small`).
    pub fn shared_size(&self, engine: Engine) -> &str {
        self.shared.get(&engine).map_or(DEFAULT_SIZE, String::as_str)
    }
}

/// Declares [`Engine`] from one list (each engine's doc, its name in files and the kind of its
/// implicit resource): the enum, [`Engine::ALL`], [`Engine::NAMES`], [`Engine::as_str`] and
/// [`Engine::kind`] come from it, so a new engine is one row.
macro_rules! engines {
    ($($(#[$doc:meta])* $variant:ident = $name:literal => $kind:ident,)*) => {
        /// The engines a legacy member can `require`; each becomes an implicit `shared-<engine>` resource.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema)]
        pub enum Engine { $($(#[$doc])* #[serde(rename = $name)] $variant,)* }

        impl Engine {
            /// All engines, in the order implicit resources are planned.
            pub const ALL: [Engine; [$($name),*].len()] = [$(Engine::$variant,)*];

            /// Every engine's name as written in files, in [`Engine::ALL`]'s order: the words a
            /// file may write (`requires`, `shared`).
            pub const NAMES: [&'static str; [$($name),*].len()] = [$($name,)*];

            /// The engine's name as written in files.
            pub const fn as_str(self) -> &'static str {
                match self { $(Engine::$variant => $name,)* }
            }

            /// The kind of the implicit resource.
            pub fn kind(self) -> Kind {
                match self { $(Engine::$variant => Kind::$kind,)* }
            }

            /// The implicit resource's kind of owner (`usage.for`, `alarms.for`).
            pub fn owner_kind(self) -> OwnerKind {
                match self { $(Engine::$variant => OwnerKind::$kind,)* }
            }
        }
    };
}

engines! {
    /// SQS queue.
    Queue = "queue" => Queue,
    /// SNS topic.
    Topic = "topic" => Topic,
    /// Valkey cache.
    Cache = "cache" => Cache,
    /// S3 bucket.
    Bucket = "bucket" => Bucket,
}

/// Declares [`Kind`] from one list (each kind's doc and its name in files): the enum,
/// [`Kind::ALL`], [`Kind::NAMES`], [`Kind::as_str`] and [`Kind::from_name`] come from it.
macro_rules! kinds {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)*) => {
        /// Resource kinds.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        pub enum Kind { $($(#[$doc])* #[serde(rename = $name)] $variant,)* }

        impl Kind {
            /// Every kind, in the order the reference lists them.
            pub const ALL: &'static [Kind] = &[$(Kind::$variant,)*];
            /// Every kind's name as written in files (`kind:`), in the same order.
            pub const NAMES: &'static [&'static str] = &[$($name,)*];

            /// The kind's name as written in files.
            pub fn as_str(self) -> &'static str {
                match self { $(Kind::$variant => $name,)* }
            }

            /// The kind a file names, if any.
            pub fn from_name(name: &str) -> Option<Kind> {
                match name { $($name => Some(Kind::$variant),)* _ => None }
            }
        }
    };
}

kinds! {
    /// PostgreSQL (RDS or Aurora).
    Postgres = "postgres",
    /// SQS queue.
    Queue = "queue",
    /// SNS topic.
    Topic = "topic",
    /// ElastiCache Valkey.
    Cache = "cache",
    /// S3 bucket.
    Bucket = "bucket",
}

/// `resources.<name>`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// Kind and kind-specific options.
    pub spec: ResourceSpec,
    /// Size per environment as written; see [`Resource::size_in`].
    pub size: crate::SmallMap<String>,
    /// `restore` (a postgres resource's only): what `runway restore` runs against a restored
    /// copy before it calls it usable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restore: Option<RestoreSettings>,
}

/// `resources.<name>.restore` of a postgres resource (docs/operations.md, "Restore and drill").
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RestoreSettings {
    /// `check`: a query run as the database's admin against a restored copy, in a read-only
    /// transaction, before the copy is reported usable (`select count(*) from orders`): it
    /// passes when it runs without an error.
    pub check: Option<String>,
}

/// The most characters `restore.check` may hold (it travels in an ECS container override,
/// whose whole request is bounded at 8 KiB).
pub const MAX_RESTORE_CHECK_CHARS: usize = 2000;

impl Resource {
    /// The resource's kind.
    pub fn kind(&self) -> Kind {
        self.spec.kind()
    }

    /// The size in an environment (default `small`).
    pub fn size_in(&self, env: &str) -> &str {
        self.size.get(env).map_or(DEFAULT_SIZE, String::as_str)
    }
}

/// Kind-specific options of a resource, defaults applied.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ResourceSpec {
    /// `kind: postgres`.
    Postgres {
        /// `engine` (default rds).
        engine: PostgresEngine,
        /// `version` (default "16").
        version: String,
    },
    /// `kind: queue`.
    #[serde(rename_all = "camelCase")]
    Queue {
        /// `fifo` (default false).
        fifo: bool,
        /// `visibilityTimeout` (default 30s).
        visibility_timeout: Duration,
        /// `deadLetter`, when set.
        dead_letter: Option<DeadLetter>,
    },
    /// `kind: topic`.
    Topic {
        /// `fifo` (default false).
        fifo: bool,
    },
    /// `kind: cache` (Valkey).
    Cache {
        /// `version` (default "8.0").
        version: String,
    },
    /// `kind: bucket`.
    Bucket {
        /// `versioning` (default off): `true`, or `{ keepDays: N }`.
        versioning: Option<Versioning>,
    },
}

/// `versioning` of a bucket: every object keeps its earlier versions, each for `keep_days`
/// after a newer one replaced it (or it was deleted); then S3 deletes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Versioning {
    /// Days a version is kept once it is no longer current (`keepDays`, default
    /// [`DEFAULT_VERSION_KEEP_DAYS`]).
    pub keep_days: u32,
}

/// Days a bucket keeps a noncurrent object version when `versioning: true` says no more.
pub const DEFAULT_VERSION_KEEP_DAYS: u32 = 30;
/// The most days `versioning.keepDays` may keep a noncurrent version (ten years).
pub const MAX_VERSION_KEEP_DAYS: u32 = 3650;

/// Default postgres version.
pub const DEFAULT_POSTGRES_VERSION: &str = "16";
/// Default Valkey version.
pub const DEFAULT_VALKEY_VERSION: &str = "8.0";
/// Default queue visibility timeout, in milliseconds.
pub const DEFAULT_VISIBILITY_TIMEOUT_MS: u64 = 30_000;

impl ResourceSpec {
    /// The resource's kind of owner (`usage.for`, `alarms.for`): postgres by its engine.
    pub fn owner_kind(&self) -> OwnerKind {
        match self {
            ResourceSpec::Postgres { engine: PostgresEngine::Rds, .. } => OwnerKind::PostgresRds,
            ResourceSpec::Postgres { engine: PostgresEngine::Aurora, .. } => OwnerKind::PostgresAurora,
            ResourceSpec::Queue { .. } => OwnerKind::Queue,
            ResourceSpec::Topic { .. } => OwnerKind::Topic,
            ResourceSpec::Cache { .. } => OwnerKind::Cache,
            ResourceSpec::Bucket { .. } => OwnerKind::Bucket,
        }
    }

    /// The kind of this spec.
    pub fn kind(&self) -> Kind {
        match self {
            ResourceSpec::Postgres { .. } => Kind::Postgres,
            ResourceSpec::Queue { .. } => Kind::Queue,
            ResourceSpec::Topic { .. } => Kind::Topic,
            ResourceSpec::Cache { .. } => Kind::Cache,
            ResourceSpec::Bucket { .. } => Kind::Bucket,
        }
    }

    /// The spec an implicit `shared-<engine>` resource gets: every option at its default.
    pub fn default_for(engine: Engine) -> Self {
        match engine {
            Engine::Queue => ResourceSpec::Queue {
                fifo: false,
                visibility_timeout: Duration::from_millis(DEFAULT_VISIBILITY_TIMEOUT_MS),
                dead_letter: None,
            },
            Engine::Topic => ResourceSpec::Topic { fifo: false },
            Engine::Cache => ResourceSpec::Cache { version: DEFAULT_VALKEY_VERSION.to_owned() },
            Engine::Bucket => ResourceSpec::Bucket { versioning: None },
        }
    }
}

/// Postgres engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum PostgresEngine {
    /// RDS for PostgreSQL (the default).
    Rds,
    /// Aurora PostgreSQL.
    Aurora,
}

impl PostgresEngine {
    /// Every postgres engine's name as written in files (`engine:`).
    pub const NAMES: [&'static str; 2] = [PostgresEngine::Rds.as_str(), PostgresEngine::Aurora.as_str()];

    /// The engine's name as written in files.
    pub const fn as_str(self) -> &'static str {
        match self {
            PostgresEngine::Rds => "rds",
            PostgresEngine::Aurora => "aurora",
        }
    }
}

/// `deadLetter` of a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeadLetter {
    /// Receives before a message moves to the dead-letter queue.
    pub max_receives: u32,
}

/// A member runway file.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    /// The file it was read from.
    pub file: String,
    /// Member name (default: the folder's name).
    pub name: String,
    /// Encore or other.
    pub runtime: Runtime,
    /// Legacy engines it requires.
    pub requires: Vec<Engine>,
    /// Named root resources it uses.
    pub uses: Vec<String>,
}

/// A member's runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Runtime {
    /// An Encore app (the default): gets variables through Infisical's Encore sync.
    Encore,
    /// Anything else.
    Other,
}

#[cfg(test)]
mod tests {
    use super::ApplyChanges;

    #[test]
    fn apply_changes_names_are_its_values() {
        let names: Vec<&str> = ApplyChanges::ALL.iter().map(|a| a.as_str()).collect();
        assert_eq!(names, ApplyChanges::NAMES);
        for a in ApplyChanges::ALL {
            assert_eq!(ApplyChanges::from_name(a.as_str()), Some(a));
        }
        assert_eq!(ApplyChanges::from_name("maintenance"), None);
    }
}
