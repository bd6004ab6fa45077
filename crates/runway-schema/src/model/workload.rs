//! The typed workload (`workloads.<name>`) and the values only workloads take: how it is
//! reached, sized, checked, and why it is not a managed service.

use serde::Serialize;

use super::{DEFAULT_SIZE, Kind, Scaling, Schedule};
use crate::SmallMap;
use crate::values::{Duration, ImageRef};

/// `workloads.<name>`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Workload {
    /// The image, pinned by digest.
    pub image: ImageRef,
    /// The CPU architecture the image is built for (`platform`, default `arm64`).
    pub platform: Architecture,
    /// Where the credentials of the image's registry are (`registryCredentials`), when it
    /// needs them.
    pub registry_credentials: Option<RegistryCredentials>,
    /// The container's entry point, word by word (`entryPoint`), replacing the image's
    /// ENTRYPOINT; `None` keeps the image's own.
    pub entry_point: Option<Vec<String>>,
    /// Container port; `None` for a worker, which listens on none: no load balancer, no Cloud
    /// Map service, no ingress.
    pub port: Option<u16>,
    /// Health check, when declared.
    pub health: Option<Health>,
    /// Why a worker runs without a health check (`health: { none: <why> }`), when it says so;
    /// a workload without a port declares a `command` check or this.
    pub unchecked: Option<String>,
    /// Plain environment values.
    pub env: SmallMap<String>,
    /// Environment variables whose value is a variable the workload is bound to (`env` values
    /// written `${VAR}`): name -> bound variable. Delivered from that variable's SSM
    /// parameter, never as plain text.
    pub env_from: SmallMap<String>,
    /// Names of secrets the workload reads; values are set by people.
    pub secrets: Vec<String>,
    /// Resources it consumes, in file order.
    pub uses: Vec<String>,
    /// The access mode of each resource of `uses` written with one (`{ uploads: read }`), by
    /// name; a resource written by its name alone is used with [`Access::Write`]. See
    /// [`Workload::access_to`].
    pub access: SmallMap<Access>,
    /// Internal (Cloud Map) or public (ALB).
    pub expose: Expose,
    /// Size per environment as written; see [`Workload::size_in`].
    pub size: SmallMap<String>,
    /// Scale per environment as written; see [`Workload::scale_in`].
    pub scale: SmallMap<Scale>,
    /// How a release replaces the running tasks, per environment as written (`deploy`); see
    /// [`Workload::deploy_in`].
    pub deploy: SmallMap<Deploy>,
    /// What the desired count follows and when it runs, per environment as written
    /// (`scale.<env>.on`, `.active`); see [`Workload::scaling_in`].
    pub scaling: SmallMap<Scaling>,
    /// Its scheduled runs (`schedules`), by name in file order.
    pub schedules: SmallMap<Schedule>,
    /// ECS Exec: a shell into a running task (`aws ecs execute-command`) is allowed (`exec`,
    /// default false).
    pub exec: bool,
    /// Why this workload is not a managed service.
    pub reason: Reason,
    /// The one-off task the deploy job runs with the new image before any task of it takes
    /// traffic (`migrate`), when declared.
    pub migrate: Option<Migrate>,
}

/// `migrate`: a command run once per release as a one-off task, with the workload's image,
/// bindings, size and network, before its service is updated (`runway migrate`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Migrate {
    /// The container's entry point as written (`migrate.entryPoint`); `None` runs the
    /// workload's ([`Workload::migrate_entry_point`]).
    pub entry_point: Option<Vec<String>>,
    /// The container's command, word by word (exec form: no shell unless it names one). It
    /// replaces the image's CMD: without an entry point of the runway it is handed, as its
    /// arguments, to the image's ENTRYPOINT when the image has one.
    pub command: Vec<String>,
}

impl Workload {
    /// The size in an environment (default `small`).
    pub fn size_in(&self, env: &str) -> &str {
        self.size.get(env).map_or(DEFAULT_SIZE, String::as_str)
    }

    /// The scale in an environment (default `{min: 1, max: 1}`).
    pub fn scale_in(&self, env: &str) -> Scale {
        self.scale.get(env).copied().unwrap_or(Scale { min: 1, max: 1 })
    }

    /// How a release replaces the running tasks in an environment (default rolling).
    pub fn deploy_in(&self, env: &str) -> Deploy {
        self.deploy.get(env).copied().unwrap_or(Deploy::ROLLING)
    }

    /// What the desired count follows and when it runs in an environment (default: CPU, all
    /// the time).
    pub fn scaling_in(&self, env: &str) -> Scaling {
        self.scaling.get(env).cloned().unwrap_or_default()
    }

    /// The entry point its `migrate` runs with: the migrate's own, else the workload's (its
    /// image is the workload's, so is what starts it); `None` for the image's ENTRYPOINT or
    /// without `migrate`.
    pub fn migrate_entry_point(&self) -> Option<&[String]> {
        let migrate = self.migrate.as_ref()?;
        migrate.entry_point.as_deref().or(self.entry_point.as_deref())
    }

    /// How it uses resource `resource`: as written in `uses`, `write` by default.
    pub fn access_to(&self, resource: &str) -> Access {
        self.access.get(resource).copied().unwrap_or_default()
    }
}

/// How a consumer uses a resource (`uses: [{ uploads: read }]`): the IAM actions and the
/// database grants follow it (docs/runway-reference.md, "Access modes").
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum Access {
    /// Reads only: a bucket's objects got and listed, a queue's messages consumed (received,
    /// deleted, their visibility changed), a database read through a read-only role.
    Read,
    /// Everything `read` allows and writes (the default, and the only mode of a topic): objects
    /// put and deleted, messages sent, topics published to, a database's tables written and
    /// its schema changed.
    #[default]
    Write,
}

impl Access {
    /// Both, in the order the reference lists them.
    pub const ALL: [Access; 2] = [Access::Read, Access::Write];
    /// As written in files.
    pub const NAMES: [&'static str; 2] = ["read", "write"];

    /// As written in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
        }
    }

    /// The mode a file names, if any.
    pub fn from_name(name: &str) -> Option<Access> {
        Access::ALL.into_iter().find(|a| a.as_str() == name)
    }

    /// The modes a resource of `kind` takes: none for a cache (one token reads and writes),
    /// `write` only for a topic (it is only published to; its readers are its subscriptions).
    pub fn of_kind(kind: Kind) -> &'static [Access] {
        match kind {
            Kind::Postgres | Kind::Queue | Kind::Bucket => &Access::ALL,
            Kind::Topic => &[Access::Write],
            Kind::Cache => &[],
        }
    }
}

/// The CPU architecture of a workload's tasks (`platform`): what its image is built for.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
pub enum Architecture {
    /// 64-bit ARM (Graviton), the default: Fargate's cheaper rates.
    #[default]
    #[serde(rename = "arm64")]
    Arm64,
    /// 64-bit x86 (`amd64`), for an image published for it only.
    #[serde(rename = "x86_64")]
    X86_64,
}

impl Architecture {
    /// Both, in the order the reference lists them.
    pub const ALL: [Architecture; 2] = [Architecture::Arm64, Architecture::X86_64];

    /// As written in files (`platform:`).
    pub fn as_str(self) -> &'static str {
        match self {
            Architecture::Arm64 => "arm64",
            Architecture::X86_64 => "x86_64",
        }
    }
}

/// Where the credentials of a private registry are (`registryCredentials`); ECS reads them as
/// a Secrets Manager secret holding `{"username", "password"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum RegistryCredentials {
    /// `NAME`: the Infisical secrets `NAME_USERNAME` and `NAME_PASSWORD` in the workload's
    /// folder, which `runway secrets prepare` copies to a Secrets Manager secret of the plan.
    Infisical(String),
    /// `arn:...:secretsmanager:...:secret:...`: an existing secret, by its full ARN.
    SecretArn(String),
}

/// How a workload is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Expose {
    /// Cloud Map service discovery inside the environment (the default).
    Internal,
    /// Behind the environment's ALB at `<workload>.<domain>`.
    Public,
}

impl Expose {
    /// As written in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Expose::Internal => "internal",
            Expose::Public => "public",
        }
    }
}

/// `scale.<env>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Scale {
    /// Tasks at rest (desired count); 0 only outside production with `active` hours, whose
    /// runs then start at least one.
    pub min: u32,
    /// Tasks at most (autoscaling ceiling).
    pub max: u32,
}

/// A workload's health check.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    /// HTTP path or command.
    pub check: HealthCheck,
    /// Time between checks (default 30s).
    pub interval: Duration,
    /// Time a check may take (default 5s).
    pub timeout: Duration,
    /// Successes before healthy (default 2).
    pub healthy_threshold: u32,
    /// Failures before unhealthy (default 3).
    pub unhealthy_threshold: u32,
    /// Time after a task starts in which failing health checks are ignored (`grace`, default
    /// 60s, whole seconds up to [`MAX_HEALTH_GRACE_SECONDS`]).
    pub grace: Duration,
}

/// Default `health.grace`, in seconds.
pub const DEFAULT_HEALTH_GRACE_SECONDS: u32 = 60;
/// Longest `health.grace`, in seconds (one hour). ECS takes up to 2,147,483,647 s; a longer
/// grace would keep a hung task in service for that long and outlast the deploy's wait.
pub const MAX_HEALTH_GRACE_SECONDS: u32 = 3600;

/// What a health check runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum HealthCheck {
    /// An HTTP GET of this path.
    Http(String),
    /// A command run in the container.
    Command(Vec<String>),
}

/// A workload's `reason`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reason {
    /// The ground; `None` for the legacy plain-string form.
    pub ground: Option<Ground>,
    /// The explanation.
    pub detail: String,
}

/// The grounds that allow a workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Ground {
    /// No managed resource or vendor cloud fits.
    NoManagedFit,
    /// Residency forces self-hosting.
    Residency,
    /// Parity with an on-prem deployment.
    OnPremParity,
}

/// How a release of a workload replaces its running tasks (`deploy.<env>`): ECS's native
/// deployment strategies (`deploymentConfiguration.strategy`). ECS's bounds and defaults, in
/// docs/runway-reference.md ("Release strategies").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Deploy {
    /// The strategy.
    pub strategy: Strategy,
    /// The share of production traffic a canary takes, or each linear step shifts, in tenths
    /// of a percent (`percent`; canary 1..=1000, default 50; linear 30..=1000, default 100);
    /// 0 for rolling and blue/green.
    pub percent_tenths: u16,
    /// Minutes the canary bakes before the rest shifts, or each linear step before the next
    /// (`step`; 0..=1440, canary default 10, linear 6); 0 for rolling and blue/green.
    pub step_minutes: u32,
    /// Minutes both fleets run once all traffic is on the new one, before the old stops
    /// (`bake`; 0..=1440, default [`DEFAULT_BAKE_MINUTES`]); 0 for rolling.
    pub bake_minutes: u32,
}

/// `bake` when a strategy other than rolling leaves it out: ECS requires one for blue/green
/// and states no default; runway's is 10 minutes.
pub const DEFAULT_BAKE_MINUTES: u32 = 10;
/// The longest `step` and `bake` ECS takes, in minutes (24 hours).
pub const MAX_BAKE_MINUTES: u32 = 1440;

impl Deploy {
    /// Today's behaviour: a rolling update with the circuit breaker.
    pub const ROLLING: Deploy =
        Deploy { strategy: Strategy::Rolling, percent_tenths: 0, step_minutes: 0, bake_minutes: 0 };

    /// Is it a rolling update (what a plan leaves out of its JSON)?
    pub fn is_rolling(&self) -> bool {
        self.strategy == Strategy::Rolling
    }

    /// The minutes one release keeps two fleets running: every step's bake and the final bake
    /// (a rolling update replaces tasks as it goes: none).
    pub fn two_fleet_minutes(&self) -> u32 {
        match self.strategy {
            Strategy::Rolling => 0,
            Strategy::BlueGreen => self.bake_minutes,
            Strategy::Canary => self.step_minutes + self.bake_minutes,
            Strategy::Linear => self.step_minutes * self.linear_steps() + self.bake_minutes,
        }
    }

    /// The bakes of a linear release between its shifts: 100 / step (one less when it divides
    /// evenly; no bake follows the last shift), as CloudFormation counts them.
    pub fn linear_steps(&self) -> u32 {
        let step = u32::from(self.percent_tenths.max(1));
        if 1000 % step == 0 { 1000 / step - 1 } else { 1000 / step }
    }
}

/// A release strategy (`deploy.<env>.strategy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// New tasks replace old ones a few at a time (ECS `ROLLING`, the default).
    Rolling,
    /// A share of the traffic to the new tasks for `step`, then the rest (ECS `CANARY`).
    Canary,
    /// The traffic in equal shares, `step` apart (ECS `LINEAR`).
    Linear,
    /// All traffic at once to a full new fleet, the old kept for `bake` (ECS `BLUE_GREEN`).
    BlueGreen,
}

impl Strategy {
    /// Every strategy, in the order the reference lists them.
    pub const ALL: [Strategy; 4] =
        [Strategy::Rolling, Strategy::Canary, Strategy::Linear, Strategy::BlueGreen];
    /// As written in files.
    pub const NAMES: [&'static str; 4] = ["rolling", "canary", "linear", "blue-green"];

    /// As written in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Rolling => "rolling",
            Strategy::Canary => "canary",
            Strategy::Linear => "linear",
            Strategy::BlueGreen => "blue-green",
        }
    }

    /// ECS's name (`deploymentConfiguration.strategy`).
    pub fn ecs_name(self) -> &'static str {
        match self {
            Strategy::Rolling => "ROLLING",
            Strategy::Canary => "CANARY",
            Strategy::Linear => "LINEAR",
            Strategy::BlueGreen => "BLUE_GREEN",
        }
    }
}

#[cfg(test)]
mod sizes {
    use std::mem::size_of;

    use super::*;
    use crate::model::Resource;

    /// A product holds one of each per declaration through planning (docs/benchmarks.md, "The
    /// product and `check`, sixth pass"): 880 and 128 bytes before their maps were
    /// [`SmallMap`]s.
    #[test]
    fn the_products_records_stay_small() {
        let sizes = [
            ("Workload", size_of::<Workload>(), 432),
            ("Resource", size_of::<Resource>(), 72),
            ("SmallMap<String>", size_of::<SmallMap<String>>(), 16),
        ];
        for (name, size, limit) in sizes {
            println!("{name}: {size} bytes (limit {limit})");
        }
        for (name, size, limit) in sizes {
            assert!(size <= limit, "{name} is {size} bytes, over {limit}");
        }
    }
}
