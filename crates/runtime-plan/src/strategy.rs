//! Proptest strategies that generate valid runways (feature `proptest1`).
//!
//! [`product()`] generates [`Product`] values that pass the loader's validation: valid and
//! unique names (long ones too, to exercise the AWS name limits), declared environments only,
//! catalogue sizes, pinned images, `min <= max`, resources used by name, no Encore member on
//! postgres, and no variable collisions.

use indexmap::IndexMap;
use proptest::prelude::*;
use runway_schema::{
    Access, DEFAULT_INFISICAL_PATH, DEFAULT_INFISICAL_URL, DeadLetter, Duration, Engine, Environment, Expose,
    Ground, Health, HealthCheck, ImageRef, Infisical, Kind, Location, Member, Money, PostgresEngine, Product,
    Reason, Resource, ResourceSpec, Runtime, Runway, Scale, Secrets, Ssm, Workload,
};

/// The catalogue's default size names.
pub const SIZES: [&str; 3] = ["small", "medium", "large"];

/// A size name.
pub fn size() -> impl Strategy<Value = String> + Clone {
    prop::sample::select(SIZES.to_vec()).prop_map(str::to_owned)
}

/// A word for names: 1 to 30 lowercase letters and digits, starting with a letter.
fn word() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9]{0,29}"
}

/// A product name (`^[a-z][a-z0-9-]{1,30}[a-z0-9]$`), up to 32 characters.
pub fn product_name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9-]{1,30}[a-z0-9]"
}

/// A resource spec of any kind with its options.
pub fn resource_spec() -> impl Strategy<Value = ResourceSpec> {
    // Every kind, through a match that names each: a new kind must say how it is generated.
    prop::sample::select(Kind::ALL).prop_flat_map(|kind| match kind {
        Kind::Postgres => prop::bool::ANY
            .prop_map(|aurora| ResourceSpec::Postgres {
                engine: if aurora { PostgresEngine::Aurora } else { PostgresEngine::Rds },
                version: "16".into(),
            })
            .boxed(),
        Kind::Queue => (prop::bool::ANY, 0u64..=43_200, prop::option::of(1u32..=10))
            .prop_map(|(fifo, secs, dl)| ResourceSpec::Queue {
                fifo,
                visibility_timeout: Duration::from_millis(secs * 1000),
                dead_letter: dl.map(|max_receives| DeadLetter { max_receives }),
            })
            .boxed(),
        Kind::Topic => prop::bool::ANY.prop_map(|fifo| ResourceSpec::Topic { fifo }).boxed(),
        Kind::Cache => Just(ResourceSpec::Cache { version: "8.0".into() }).boxed(),
        Kind::Bucket => prop::option::of(1u32..=3650)
            .prop_map(|keep| ResourceSpec::Bucket {
                versioning: keep.map(|keep_days| runway_schema::Versioning { keep_days }),
            })
            .boxed(),
    })
}

fn per_env<T: Clone + std::fmt::Debug>(
    envs: Vec<String>,
    value: impl Strategy<Value = T>,
) -> impl Strategy<Value = IndexMap<String, T>> {
    prop::collection::vec(prop::option::of(value), envs.len())
        .prop_map(move |vals| envs.iter().zip(vals).filter_map(|(e, v)| v.map(|v| (e.clone(), v))).collect())
}

fn loc() -> Location {
    Location { file: "runway.yaml".into(), line: 1, column: 1, offset: 0, len: 0 }
}

/// A valid product: 1 to 3 environments, up to 5 resources, up to 3 workloads, up to 3 members.
pub fn product() -> impl Strategy<Value = Product> {
    let envs = prop::sample::subsequence(vec!["dev", "staging", "production", "qa"], 1..=4);
    (product_name(), envs)
        .prop_flat_map(|(product, envs)| {
            let envs: Vec<String> = envs.into_iter().map(str::to_owned).collect();
            let environments = prop::collection::vec(
                (
                    prop::sample::select(vec!["us-east-1", "eu-central-1"]),
                    prop::option::of(0u32..2_000),
                    prop::option::of(size()),
                    prop::option::of(size()),
                    prop::option::of(size()),
                    prop::option::of(size()),
                ),
                envs.len(),
            );
            let resources =
                prop::collection::vec((word(), resource_spec(), per_env(envs.clone(), size())), 0..=5);
            let workloads = prop::collection::vec(
                (
                    word(),
                    per_env(envs.clone(), size()),
                    per_env(envs.clone(), (1u32..=3, 0u32..=3)),
                    prop::bool::ANY,
                    prop::collection::vec(any::<prop::sample::Index>(), 0..=3),
                    prop::option::of(prop::bool::ANY),
                    0usize..=2,
                ),
                0..=3,
            );
            let members = prop::collection::vec(
                (
                    word(),
                    prop::bool::ANY,
                    prop::sample::subsequence(Engine::ALL.to_vec(), 0..=4),
                    prop::collection::vec(any::<prop::sample::Index>(), 0..=2),
                ),
                0..=3,
            );
            (Just(product), Just(envs), environments, resources, workloads, members)
        })
        .prop_map(|(product, envs, environments, resources, workloads, members)| {
            build(product, &envs, environments, resources, workloads, members)
        })
}

type EnvGen = (&'static str, Option<u32>, Option<String>, Option<String>, Option<String>, Option<String>);
type WorkloadGen = (
    String,
    IndexMap<String, String>,
    IndexMap<String, (u32, u32)>,
    bool,
    Vec<prop::sample::Index>,
    Option<bool>,
    usize,
);
type MemberGen = (String, bool, Vec<Engine>, Vec<prop::sample::Index>);

/// The registry of a generated workload's image: ECR for some words, another registry else.
fn registry(word: &str) -> &'static str {
    if word.len().is_multiple_of(2) {
        "123456789012.dkr.ecr.us-east-1.amazonaws.com"
    } else {
        "registry.example"
    }
}

/// The CPU architecture of a generated workload: x86_64 for some words, arm64 for the others.
fn platform(word: &str) -> runway_schema::Architecture {
    if word.len().is_multiple_of(3) {
        runway_schema::Architecture::X86_64
    } else {
        runway_schema::Architecture::Arm64
    }
}

/// The registry credentials of a generated workload: none on ECR (its execution role pulls);
/// elsewhere Infisical secrets for some words, an existing secret's ARN for others.
fn registry_credentials(word: &str) -> Option<runway_schema::RegistryCredentials> {
    match word.len() % 4 {
        1 => Some(runway_schema::RegistryCredentials::Infisical("REGISTRY_PULL".to_owned())),
        3 => Some(runway_schema::RegistryCredentials::SecretArn(
            "arn:aws:secretsmanager:us-east-1:123456789012:secret:registry-pull-Ab12Cd".to_owned(),
        )),
        _ => None,
    }
}

/// The SSM key of a generated product: the environment's own (none named, half of them), an
/// alias, a key ARN, a key id or the AWS managed key.
fn kms_key(product: &str) -> Option<String> {
    match product.len() % 8 {
        0 => Some("alias/runway".to_owned()),
        1 => Some("arn:aws:kms:us-east-1:123456789012:key/0b6c5b9e-3f1a-4c2d-9e8f-7a6b5c4d3e2f".to_owned()),
        2 => Some("0b6c5b9e-3f1a-4c2d-9e8f-7a6b5c4d3e2f".to_owned()),
        3 => Some("alias/aws/ssm".to_owned()),
        _ => None,
    }
}

/// The network of a generated environment: endpoints declared in some, existing in `qa`, over
/// 2 to 4 zones.
fn network(env: &str) -> runway_schema::Network {
    let zones = 2 + u32::try_from(env.len() % 3).unwrap_or(0);
    let endpoints = match env {
        "qa" => runway_schema::Endpoints::Existing,
        _ if env.len() % 2 == 1 => runway_schema::Endpoints::Declared,
        _ => runway_schema::Endpoints::None,
    };
    // One NAT gateway where the name's length is a multiple of four, the default elsewhere.
    let nat = env.len().is_multiple_of(4).then_some(1);
    runway_schema::Network { endpoints, zones, nat }
}

/// `usage` of a generated environment: none where the name's length is odd; else amounts for
/// the environment, and for the first resource and workload their own (which may not apply to
/// the resource's kind: the planner reads only what does).
fn usage(env: &str, resource: Option<&String>, workload: Option<&String>) -> runway_schema::Usage {
    use runway_schema::UsageKey;
    let mut usage = runway_schema::Usage::default();
    if env.len() % 2 == 1 {
        return usage;
    }
    let d = |n: i64, scale: u32| rust_decimal::Decimal::new(n, scale);
    usage.amounts = [
        (UsageKey::Logs, d(15, 1)),
        (UsageKey::Requests, d(3, 0)),
        (UsageKey::AuroraIo, d(25, 0)),
        (UsageKey::NatGb, d(10, 0)),
        (UsageKey::EndpointGb, d(4, 0)),
        (UsageKey::InternetGb, d(5, 0)),
    ]
    .into_iter()
    .collect();
    for (owner, key, amount) in [
        (resource, UsageKey::StorageGb, d(42, 0)),
        (resource, UsageKey::Requests, d(7, 1)),
        (workload, UsageKey::Logs, d(4, 0)),
    ] {
        if let Some(owner) = owner {
            usage.overrides.entry(owner.clone()).or_default().insert(key, amount);
        }
    }
    usage
}

/// `applyChanges` of a generated environment: written in `staging` (the window) and `qa` (at
/// the deploy), the default elsewhere.
fn apply_changes(env: &str) -> Option<runway_schema::ApplyChanges> {
    match env {
        "staging" => Some(runway_schema::ApplyChanges::MaintenanceWindow),
        "qa" => Some(runway_schema::ApplyChanges::Immediately),
        _ => None,
    }
}

/// A generated health check: an HTTP path or a command, its grace varied by the name.
fn generated_health(http: bool, w: &str) -> Health {
    Health {
        check: if http {
            HealthCheck::Http("/health".into())
        } else {
            HealthCheck::Command(vec!["CMD".into(), "true".into()])
        },
        interval: Duration::from_millis(30_000),
        timeout: Duration::from_millis(5_000),
        healthy_threshold: 2,
        unhealthy_threshold: 3,
        grace: Duration::from_millis(30_000 * (w.len() % 5) as u64),
    }
}

/// One generated environment: its region, cap and shared sizes; its network and when changes
/// apply follow its name; its usage is filled in once the resources and workloads are named.
fn environment(name: &str, product: &str, (region, cap, q, t, c, bk): EnvGen) -> Environment {
    let mut shared = IndexMap::new();
    for (engine, s) in [(Engine::Queue, q), (Engine::Topic, t), (Engine::Cache, c), (Engine::Bucket, bk)] {
        if let Some(s) = s {
            shared.insert(engine, s);
        }
    }
    Environment {
        region: region.to_owned(),
        // Production pins its account (the program's `aws:allowedAccountIds`).
        account: (name == "production").then(|| "123456789012".to_owned()),
        monthly_limit: cap.map(|c| Money(c.into())),
        shared,
        domain: Some(format!("{name}.{product}.example")),
        at: loc(),
        limit_at: cap.map(|_| loc()),
        increase_limit: None,
        cap_on: runway_schema::CapOn::Floor,
        log_retention_days: None,
        network: network(name),
        apply_changes: apply_changes(name),
        // Filled in once the resources and workloads are named.
        usage: runway_schema::Usage::default(),
        alarms: runway_schema::Alarms::default(),
        bootstrap: runway_schema::Bootstrap::default(),
        teardown: None,
    }
}

/// The canary release some generated public workloads declare.
const CANARY: runway_schema::Deploy = runway_schema::Deploy {
    strategy: runway_schema::Strategy::Canary,
    percent_tenths: 100,
    step_minutes: 10,
    bake_minutes: 10,
};

fn build(
    product: String,
    envs: &[String],
    environments: Vec<EnvGen>,
    resources: Vec<(String, ResourceSpec, IndexMap<String, String>)>,
    workloads: Vec<WorkloadGen>,
    members: Vec<MemberGen>,
) -> Product {
    let environments: IndexMap<String, Environment> = envs
        .iter()
        .zip(environments)
        .map(|(name, generated)| (name.clone(), environment(name, &product, generated)))
        .collect();
    // Names: `r<i>-<word>` and `w<i>-<word>`, cut to 40: unique across resources and workloads.
    let name = |prefix: char, i: usize, w: &str| {
        let n: String = format!("{prefix}{i}-{w}").chars().take(40).collect();
        n.trim_end_matches('-').to_owned()
    };
    let resources: IndexMap<String, Resource> = resources
        .into_iter()
        .enumerate()
        .map(|(i, (w, spec, size))| (name('r', i, &w), Resource { spec, size: size.into(), restore: None }))
        .collect();
    let resource_names: Vec<String> = resources.keys().cloned().collect();
    let digest = "0".repeat(64);
    let workloads: IndexMap<String, Workload> = workloads
        .into_iter()
        .enumerate()
        .map(|(i, (w, size, scale, public, uses, health, secrets))| {
            let mut used: Vec<String> = Vec::new();
            if !resource_names.is_empty() {
                for ix in uses {
                    let r = ix.get(&resource_names).clone();
                    if !used.contains(&r) {
                        used.push(r);
                    }
                }
            }
            let workload = Workload {
                // A valid reference: the digest is 64 lowercase hex digits. Some on ECR (their
                // execution role may pull from the repository), the others elsewhere.
                image: ImageRef::parse(&format!("{}/app/{w}:1.0@sha256:{digest}", registry(&w)))
                    .unwrap_or_else(|_| unreachable!("a generated image reference is valid")),
                platform: platform(&w),
                registry_credentials: registry_credentials(&w),
                // Some replace the image's entry point; their `migrate` inherits it.
                entry_point: (w.len() % 4 == 1).then(|| vec!["/sbin/tini".to_owned(), "--".to_owned()]),
                port: Some(8080),
                health: health.map(|http| generated_health(http, &w)),
                unchecked: None,
                env: [("APP_MODE".to_owned(), "on".to_owned())].into_iter().collect(),
                // The image's own name for the first variable of its first resource.
                env_from: used
                    .first()
                    .and_then(|r| runway_schema::variables(r, &resources[r].spec).into_iter().next())
                    .map(|v| ("APP_FIRST".to_owned(), v))
                    .into_iter()
                    .collect(),
                secrets: (0..secrets).map(|k| format!("APP_SECRET_{k}")).collect(),
                // Every other use read-only where the kind takes it: both modes are generated.
                access: used
                    .iter()
                    .enumerate()
                    .filter(|(k, r)| {
                        (i + k) % 2 == 1
                            && Access::of_kind(resources[r.as_str()].spec.kind()).contains(&Access::Read)
                    })
                    .map(|(_, r)| (r.clone(), Access::Read))
                    .collect(),
                uses: used,
                expose: if public { Expose::Public } else { Expose::Internal },
                size: size.into(),
                // Some public ones release by canary where they scale: the second target
                // group, the weighted rule and the traffic role.
                deploy: scale
                    .keys()
                    .filter(|_| public && w.len() % 2 == 0)
                    .map(|e| (e.clone(), CANARY))
                    .collect(),
                scale: scale
                    .into_iter()
                    .map(|(e, (min, extra))| (e, Scale { min, max: min + extra }))
                    .collect(),
                scaling: Default::default(),
                schedules: Default::default(),
                exec: w.len() % 3 == 0,
                reason: Reason { ground: Some(Ground::NoManagedFit), detail: "generated".into() },
                // Some migrate before their release (a one-off task of the plan), some with an
                // entry point of their own.
                migrate: (secrets % 2 == 1).then(|| runway_schema::Migrate {
                    entry_point: (w.len() % 3 == 1).then(|| vec!["/app/migrate.sh".to_owned()]),
                    command: vec!["./migrate".to_owned(), w.clone()],
                }),
            };
            (name('w', i, &w), workload)
        })
        .collect();
    let mut environments = environments;
    for (name, env) in &mut environments {
        env.usage = usage(name, resources.keys().next(), workloads.keys().next());
    }
    let members = members
        .into_iter()
        .enumerate()
        .map(|(i, (w, encore, requires, uses))| {
            let runtime = if encore { Runtime::Encore } else { Runtime::Other };
            let mut used: Vec<String> = Vec::new();
            let allowed: Vec<&String> = resource_names
                .iter()
                .filter(|r| !(encore && matches!(resources[*r].spec, ResourceSpec::Postgres { .. })))
                .collect();
            if !allowed.is_empty() {
                for ix in uses {
                    let r = ix.get(&allowed).to_string();
                    if !used.contains(&r) {
                        used.push(r);
                    }
                }
            }
            let name = name('m', i, &w);
            Member { file: format!("services/{name}/runway.yaml"), name, runtime, requires, uses: used }
        })
        .collect();
    let ssm = Ssm { kms_key: kms_key(&product), ..Ssm::default() };
    Product {
        root: Runway {
            file: "runway.yaml".into(),
            product,
            members: vec!["services/*".into()],
            catalogue: None,
            secrets: Secrets {
                infisical: Some(Infisical {
                    url: DEFAULT_INFISICAL_URL.into(),
                    project: "00000000-0000-0000-0000-000000000000".into(),
                    environments: IndexMap::new(),
                    path: DEFAULT_INFISICAL_PATH.into(),
                }),
                ssm,
            },
            environments,
            resources,
            workloads,
            previews: None,
        },
        members,
    }
}
