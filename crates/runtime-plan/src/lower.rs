//! Lowering: a validated product and one environment -> a [`Plan`].

use std::collections::BTreeSet;
use std::sync::Arc;

use compact_str::{CompactString, ToCompactString, format_compact};
use cost::{CacheSize, Catalogue, PostgresSize, TaskSize};
use indexmap::IndexMap;
use runway_schema::{
    Code, Diagnostic, Engine, Environment, Expose, HealthCheck, Kind, Money, PostgresEngine, Product,
    ResourceSpec, Runtime, Workload, did_you_mean, values::variable_prefix,
};

use crate::naming::{fit, fit_with_suffix, hash6, limit};
use crate::plan::*;
use crate::pricing::{Priceable, summarize};

/// Why a plan cannot be made at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// The environment is not declared in the root runway.
    #[error("environment `{env}` is not declared (declared: {}){}", known.join(", "), suggestion.as_ref().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    UnknownEnvironment {
        /// The environment asked for.
        env: String,
        /// The declared environments, in file order.
        known: Vec<String>,
        /// The closest declared name, when one is close.
        suggestion: Option<String>,
    },
}

/// Master user name of every postgres resource.
pub const POSTGRES_USER: &str = "runway";
/// Port consumers reach postgres on (through the proxy).
pub const POSTGRES_PORT: u16 = 5432;
/// Port of Valkey.
pub const CACHE_PORT: u16 = 6379;
/// Retention of dead-letter queues: 14 days, the SQS maximum.
pub const DLQ_RETENTION_SECONDS: u64 = 14 * 24 * 3600;
/// Target value of the CPU target-tracking policy, percent.
pub const SCALING_CPU_TARGET: u32 = 70;

/// A resource as the planner sees it: declared or implicit.
struct Res {
    name: CompactString,
    spec: ResourceSpec,
    size: CompactString,
    origin: Origin,
    /// Its variable names in the spec's order, computed once and shared by its bindings.
    vars: Arc<[CompactString]>,
}

/// A consumer and the resources it binds, in order.
struct Consumer {
    name: CompactString,
    kind: ConsumerKind,
    /// (resource, implicit)
    uses: Vec<(CompactString, bool)>,
}

pub use runway_schema::{variable_suffixes, variables};

/// The postgres database name of a resource (`main-db` -> `main_db`).
pub fn database_name(resource: &str) -> String {
    resource.replace('-', "_")
}

struct Builder<'a> {
    product: &'a str,
    env: &'a str,
    region: &'a str,
    items: Vec<PlannedItem>,
    /// What to price for each item of `items`, at the same position.
    prices: Vec<Option<Priceable>>,
    diagnostics: Vec<Diagnostic>,
}

impl Builder<'_> {
    fn base(&self, name: &str) -> CompactString {
        cat(&[self.product, "-", self.env, "-", name])
    }

    fn named(&self, kind: ItemKind, full: CompactString) -> CompactString {
        match limit(kind) {
            Some(l) if full.len() > l => fit(&full, l),
            _ => full,
        }
    }

    #[allow(clippy::too_many_arguments)] // reason: one call per item kind; a struct would only rename them
    fn push(
        &mut self,
        id: CompactString,
        physical_name: CompactString,
        owner: Option<&str>,
        size: Option<&str>,
        managed_by: ManagedBy,
        depends_on: Vec<CompactString>,
        spec: ItemSpec,
        price: Option<Priceable>,
    ) -> CompactString {
        let kind = spec_kind(&spec);
        let included = price.is_none();
        self.items.push(PlannedItem {
            id: id.clone(),
            kind,
            physical_name,
            owner: owner.map(CompactString::from),
            size: size.map(CompactString::from),
            managed_by,
            monthly: included.then_some(Money::ZERO),
            ceiling: included.then_some(Money::ZERO),
            pricing: if included {
                Pricing::Included { note: CompactString::const_new(included_note(kind)) }
            } else {
                Pricing::Priced
            },
            depends_on,
            spec,
        });
        self.prices.push(price);
        id
    }

    fn unknown_size(&mut self, env: &Environment, path: String, what: &str, size: &str) {
        self.diagnostics.push(
            Diagnostic::error(
                Code::UnknownSize,
                env.at.clone(),
                path,
                format!("the catalogue has no {what} size `{size}`"),
            )
            .with_help("use a size the catalogue lists (`runway catalogue`), or extend the catalogue"),
        );
    }
}

/// The parts joined: inline when they fit in 24 bytes (most ids and names), else in one
/// allocation of the exact size (`format!` costs several times more for the short names a plan
/// is made of, and a plan makes tens of thousands).
fn cat(parts: &[&str]) -> CompactString {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    // Most names fit inline: joined on the stack and copied in once (pushing onto a
    // CompactString re-reads its layout per part).
    if len <= INLINE {
        let mut buf = [0u8; INLINE];
        let mut at = 0;
        for p in parts {
            buf[at..at + p.len()].copy_from_slice(p.as_bytes());
            at += p.len();
        }
        // Always UTF-8 (whole `&str`s joined); checking it costs a pass over at most 24 bytes.
        if let Ok(text) = std::str::from_utf8(&buf[..len]) {
            return CompactString::new(text);
        }
    }
    let mut out = String::with_capacity(len);
    for p in parts {
        out.push_str(p);
    }
    CompactString::from(out)
}

/// The longest text a [`CompactString`] holds without a heap allocation.
const INLINE: usize = std::mem::size_of::<CompactString>();

/// Why an item has no price of its own.
fn included_note(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::AlbListener | ItemKind::AlbListenerRule | ItemKind::AlbTargetGroup => {
            "included in the ALB's hourly and LCU price"
        }
        ItemKind::AuroraInstance => "included in the Aurora cluster's price",
        ItemKind::RdsProxyTargetGroup | ItemKind::RdsProxyTarget => "included in the RDS Proxy's price",
        ItemKind::SqsDeadLetterQueue => "requests counted in its queue's size",
        ItemKind::CloudMapService => "DNS queries from inside the VPC are free",
        ItemKind::TaskDefinition => "tasks are priced on the ECS service",
        _ => "no charge of its own",
    }
}

/// The kind of a spec.
pub fn spec_kind(spec: &ItemSpec) -> ItemKind {
    match spec {
        ItemSpec::EcsCluster {} => ItemKind::EcsCluster,
        ItemSpec::TaskExecutionRole { .. } => ItemKind::TaskExecutionRole,
        ItemSpec::CloudMapNamespace { .. } => ItemKind::CloudMapNamespace,
        ItemSpec::Alb { .. } => ItemKind::Alb,
        ItemSpec::AlbListener { .. } => ItemKind::AlbListener,
        ItemSpec::DbSubnetGroup {} => ItemKind::DbSubnetGroup,
        ItemSpec::CacheSubnetGroup {} => ItemKind::CacheSubnetGroup,
        ItemSpec::RdsInstance { .. } => ItemKind::RdsInstance,
        ItemSpec::AuroraCluster { .. } => ItemKind::AuroraCluster,
        ItemSpec::AuroraInstance { .. } => ItemKind::AuroraInstance,
        ItemSpec::ProxySecret { .. } => ItemKind::ProxySecret,
        ItemSpec::ProxyRole { .. } => ItemKind::ProxyRole,
        ItemSpec::RdsProxy { .. } => ItemKind::RdsProxy,
        ItemSpec::RdsProxyTargetGroup { .. } => ItemKind::RdsProxyTargetGroup,
        ItemSpec::RdsProxyTarget { .. } => ItemKind::RdsProxyTarget,
        ItemSpec::CacheReplicationGroup { .. } => ItemKind::CacheReplicationGroup,
        ItemSpec::SqsQueue { .. } => ItemKind::SqsQueue,
        ItemSpec::SqsDeadLetterQueue { .. } => ItemKind::SqsDeadLetterQueue,
        ItemSpec::SnsTopic { .. } => ItemKind::SnsTopic,
        ItemSpec::S3Bucket { .. } => ItemKind::S3Bucket,
        ItemSpec::TaskDefinition { .. } => ItemKind::TaskDefinition,
        ItemSpec::EcsService { .. } => ItemKind::EcsService,
        ItemSpec::CloudMapService { .. } => ItemKind::CloudMapService,
        ItemSpec::AlbTargetGroup { .. } => ItemKind::AlbTargetGroup,
        ItemSpec::AlbListenerRule { .. } => ItemKind::AlbListenerRule,
        ItemSpec::ScalingTarget { .. } => ItemKind::ScalingTarget,
        ItemSpec::ScalingPolicy { .. } => ItemKind::ScalingPolicy,
    }
}

/// [`variables`] as plan text, each name made once in place (the same prefix and suffixes).
fn resource_variables(name: &str, spec: &ResourceSpec) -> Arc<[CompactString]> {
    let prefix = variable_prefix(name);
    variable_suffixes(spec).into_iter().map(|s| cat(&[&prefix, "_", s])).collect()
}

fn health_spec(w: &Workload) -> Option<HealthSpec> {
    w.health.as_ref().map(|h| {
        let (path, command) = match &h.check {
            HealthCheck::Http(p) => (Some(p.as_str().into()), None),
            HealthCheck::Command(c) => (None, Some(c.iter().map(|a| a.as_str().into()).collect())),
        };
        HealthSpec {
            path,
            command,
            interval_seconds: h.interval.as_secs(),
            timeout_seconds: h.timeout.as_secs(),
            healthy_threshold: h.healthy_threshold,
            unhealthy_threshold: h.unhealthy_threshold,
        }
    })
}

fn empty_postgres() -> PostgresSize {
    PostgresSize { instance_class: String::new(), instances: 0, storage_gb: 0, multi_az: false, vcpu: 0 }
}

/// Plans one environment of a product.
///
/// Pure: the same product, environment and catalogue always give the same plan, byte for byte.
/// Cost and planning problems are diagnostics of the plan; only an environment the product
/// does not declare is an error.
pub fn plan(product: &Product, env_name: &str, catalogue: &Catalogue) -> Result<Plan, PlanError> {
    let root = &product.root;
    let Some(env) = root.environments.get(env_name) else {
        let known: Vec<String> = root.environments.keys().cloned().collect();
        let suggestion = did_you_mean(env_name, known.iter().map(String::as_str)).map(str::to_owned);
        return Err(PlanError::UnknownEnvironment { env: env_name.to_owned(), known, suggestion });
    };
    let p = root.product.as_str();
    let e = env_name;
    // Room for every item at once: a large plan's item list is never copied while it grows.
    let expected = expected_items(product, e);
    let mut b = Builder {
        product: p,
        env: e,
        region: &env.region,
        items: Vec::with_capacity(expected),
        prices: Vec::with_capacity(expected),
        diagnostics: Vec::new(),
    };

    // ---- resources: declared, then implicit shared-<engine> ----
    let mut resources: Vec<Res> = root
        .resources
        .iter()
        .map(|(name, r)| Res {
            name: name.as_str().into(),
            spec: r.spec.clone(),
            size: r.size_in(e).into(),
            origin: Origin::Declared,
            vars: resource_variables(name, &r.spec),
        })
        .collect();
    for engine in Engine::ALL {
        if product.members.iter().any(|m| m.requires.contains(&engine)) {
            let name = cat(&["shared-", engine.as_str()]);
            let spec = ResourceSpec::default_for(engine);
            resources.push(Res {
                vars: resource_variables(&name, &spec),
                name,
                spec,
                size: env.shared_size(engine).into(),
                origin: Origin::Implicit,
            });
        }
    }

    // ---- consumers: workloads then members ----
    let mut consumers: Vec<Consumer> = root
        .workloads
        .iter()
        .map(|(name, w)| Consumer {
            name: name.as_str().into(),
            kind: ConsumerKind::Workload,
            uses: w.uses.iter().map(|u| (u.as_str().into(), false)).collect(),
        })
        .collect();
    for m in &product.members {
        let mut uses: Vec<(CompactString, bool)> =
            m.uses.iter().map(|u| (u.as_str().into(), false)).collect();
        for engine in Engine::ALL {
            if m.requires.contains(&engine) {
                let name = cat(&["shared-", engine.as_str()]);
                if !uses.iter().any(|(u, _)| *u == name) {
                    uses.push((name, true));
                }
            }
        }
        consumers.push(Consumer {
            name: m.name.as_str().into(),
            kind: match m.runtime {
                Runtime::Encore => ConsumerKind::EncoreMember,
                Runtime::Other => ConsumerKind::OtherMember,
            },
            uses,
        });
    }
    // Resource positions by name (the first of a name: collected in reverse, a later insert
    // of a name keeps its place and takes the earlier position). Hashed, for lookups only.
    let res_index: IndexMap<&str, usize> =
        resources.iter().enumerate().rev().map(|(i, r)| (r.name.as_str(), i)).collect();
    // Only resources that exist are bound (the loader reports unknown ones).
    for c in &mut consumers {
        c.uses.retain(|(u, _)| res_index.contains_key(u.as_str()));
    }
    // The consumers of each resource, in consumer order, each once.
    let mut consumers_of: Vec<Vec<CompactString>> = vec![Vec::new(); resources.len()];
    for c in &consumers {
        for (u, _) in &c.uses {
            if let Some(&i) = res_index.get(u.as_str())
                && consumers_of[i].last() != Some(&c.name)
            {
                consumers_of[i].push(c.name.clone());
            }
        }
    }

    // ---- secrets places ----
    let infisical_env =
        root.secrets.infisical.as_ref().map_or_else(|| e.to_owned(), |i| i.environment_slug(e).to_owned());
    let folder_of = |resource: &str| match &root.secrets.infisical {
        Some(i) => CompactString::from(i.folder(resource)),
        None => runway_schema::DEFAULT_INFISICAL_PATH.replace("{resource}", resource).into(),
    };
    // Each resource's folder, made once (places are made for every variable of every consumer).
    // By resource position: a place is found without looking its resource's name up.
    let folders: Vec<CompactString> = resources.iter().map(|r| folder_of(&r.name)).collect();
    let place = |resource: usize, name: CompactString| InfisicalPlace {
        environment: infisical_env.as_str().into(),
        folder: folders[resource].clone(),
        name,
    };
    let ssm_prefix = root.secrets.ssm.prefix_for(p, e);
    let kms_key = CompactString::from(root.secrets.ssm.kms_key.as_str());
    let ssm_name = |owner: &str, var: &str| cat(&[&ssm_prefix, "/", owner, "/", var]);
    let mut ssm = SsmParams::default();

    // ---- platform ----
    let has_workloads = !root.workloads.is_empty();
    let has_internal = root.workloads.values().any(|w| w.expose == Expose::Internal);
    let has_public = root.workloads.values().any(|w| w.expose == Expose::Public);
    let has_postgres = resources.iter().any(|r| r.spec.kind() == Kind::Postgres);
    let has_cache = resources.iter().any(|r| r.spec.kind() == Kind::Cache);
    let env_base = cat(&[p, "-", e]);
    let mut cluster_id = None;
    let mut exec_role_id = None;
    let mut namespace = None;
    let mut listener_id = None;
    let mut db_subnets = None;
    let mut cache_subnets = None;
    if has_workloads {
        let name = b.named(ItemKind::EcsCluster, env_base.clone());
        cluster_id = Some(b.push(
            "env_ecs-cluster".into(),
            name,
            None,
            None,
            ManagedBy::Pulumi,
            vec![],
            ItemSpec::EcsCluster {},
            None,
        ));
        let name = b.named(ItemKind::TaskExecutionRole, cat(&[&env_base, "-task-execution"]));
        exec_role_id = Some(b.push(
            "env_task-execution-role".into(),
            name,
            None,
            None,
            ManagedBy::Pulumi,
            vec![],
            ItemSpec::TaskExecutionRole { ssm_prefix: ssm_prefix.as_str().into(), kms_key: kms_key.clone() },
            None,
        ));
    }
    if has_internal {
        let dns = cat(&[e, ".", p, ".internal"]);
        let id = b.push(
            "env_namespace".into(),
            dns.clone(),
            None,
            None,
            ManagedBy::Pulumi,
            vec![],
            ItemSpec::CloudMapNamespace { name: dns.clone() },
            Some(Priceable::PrivateZone),
        );
        namespace = Some((id, dns));
    }
    if has_public {
        match &env.domain {
            Some(domain) => {
                let alb_name = b.named(ItemKind::Alb, cat(&[&env_base, "-alb"]));
                let alb = b.push(
                    "env_alb".into(),
                    alb_name.clone(),
                    None,
                    None,
                    ManagedBy::Pulumi,
                    vec![],
                    ItemSpec::Alb { domain: domain.as_str().into() },
                    Some(Priceable::Alb),
                );
                listener_id = Some(b.push(
                    "env_alb-listener".into(),
                    cat(&[&alb_name, "/https-443"]),
                    None,
                    None,
                    ManagedBy::Pulumi,
                    vec![alb.clone()],
                    ItemSpec::AlbListener { alb, port: 443, protocol: "HTTPS".into() },
                    None,
                ));
            }
            None => {
                let public: Vec<&str> = root
                    .workloads
                    .iter()
                    .filter(|(_, w)| w.expose == Expose::Public)
                    .map(|(n, _)| n.as_str())
                    .collect();
                b.diagnostics.push(
                    Diagnostic::error(
                        Code::MissingDomain,
                        env.at.clone(),
                        format!("environments.{e}.domain"),
                        format!(
                            "environment `{e}` has public workloads ({}) but no `domain`",
                            public.join(", ")
                        ),
                    )
                    .with_help(format!("set `environments.{e}.domain`")),
                );
            }
        }
    }
    if has_postgres {
        let name = b.named(ItemKind::DbSubnetGroup, cat(&[&env_base, "-db-subnets"]));
        db_subnets = Some(b.push(
            "env_db-subnets".into(),
            name,
            None,
            None,
            ManagedBy::Pulumi,
            vec![],
            ItemSpec::DbSubnetGroup {},
            None,
        ));
    }
    if has_cache {
        let name = b.named(ItemKind::CacheSubnetGroup, cat(&[&env_base, "-cache-subnets"]));
        cache_subnets = Some(b.push(
            "env_cache-subnets".into(),
            name,
            None,
            None,
            ManagedBy::Pulumi,
            vec![],
            ItemSpec::CacheSubnetGroup {},
            None,
        ));
    }

    // ---- resources ----
    // Sized up front (a resource has a connection variable and an output per variable at
    // most): the large lists are never copied while they grow.
    let var_count: usize = resources.iter().map(|r| r.vars.len()).sum();
    let mut generated = Vec::new();
    let mut connection = Vec::with_capacity(var_count);
    let mut outputs = Vec::with_capacity(var_count);
    let mut planned_resources = Vec::with_capacity(resources.len());
    // Where each resource's and workload's items are in the item list (their sums read them).
    let mut resource_ranges = Vec::with_capacity(resources.len());
    let mut workload_ranges = Vec::with_capacity(root.workloads.len());
    for (ri, r) in resources.iter().enumerate() {
        let first_item = b.items.len();
        let first_connection = connection.len();
        let base = b.base(&r.name);
        let size = r.size.as_str();
        let rp = variable_prefix(&r.name);
        let var = |s: &str| cat(&[&rp, "_", s]);
        // Made only when a diagnostic needs it.
        let path = || match r.origin {
            Origin::Declared => format!("resources.{}.size", r.name),
            _ => format!("environments.{e}.shared"),
        };
        let output = |outputs: &mut Vec<PlannedOutput>,
                      connection: &mut Vec<ConnectionVariable>,
                      item: &str,
                      attribute: &str,
                      v: CompactString| {
            outputs.push(PlannedOutput { name: v.clone(), item: item.into(), attribute: attribute.into() });
            connection.push(ConnectionVariable {
                resource: r.name.clone(),
                infisical: place(ri, v.clone()),
                source: ConnectionSource::Output { output: v },
            });
        };
        let (engine, version, summary);
        match &r.spec {
            ResourceSpec::Postgres { engine: pg_engine, version: pg_version } => {
                let sizing = catalogue.postgres(*pg_engine, size);
                if sizing.is_none() {
                    b.unknown_size(
                        env,
                        path(),
                        &format!("postgres {}", postgres_engine_str(*pg_engine)),
                        size,
                    );
                }
                let sizing = sizing.unwrap_or_else(empty_postgres);
                let subnet_group = db_subnets.clone().unwrap_or_default();
                let secret_name = cat(&[p, "/", e, "/", &r.name, "/proxy-admin"]);
                let secret = b.push(
                    cat(&[&r.name, "_proxy-secret"]),
                    secret_name.clone(),
                    Some(&r.name),
                    None,
                    ManagedBy::SecretsAdapter,
                    vec![],
                    ItemSpec::ProxySecret { resource: r.name.clone(), name: secret_name.clone() },
                    Some(Priceable::Secret),
                );
                let db_id = cat(&[&r.name, "_db"]);
                let (db_item, db_spec) = match pg_engine {
                    PostgresEngine::Rds => (
                        ItemKind::RdsInstance,
                        ItemSpec::RdsInstance {
                            resource: r.name.clone(),
                            engine_version: pg_version.as_str().into(),
                            size: sizing.clone(),
                            storage_type: "gp3".into(),
                            database: database_name(&r.name).into(),
                            username: POSTGRES_USER.into(),
                            admin_secret: secret.clone(),
                            subnet_group: subnet_group.clone(),
                        },
                    ),
                    PostgresEngine::Aurora => (
                        ItemKind::AuroraCluster,
                        ItemSpec::AuroraCluster {
                            resource: r.name.clone(),
                            engine_version: pg_version.as_str().into(),
                            size: sizing.clone(),
                            database: database_name(&r.name).into(),
                            username: POSTGRES_USER.into(),
                            admin_secret: secret.clone(),
                            subnet_group: subnet_group.clone(),
                        },
                    ),
                };
                let db_name = b.named(db_item, base.clone());
                // The database goes first in the resource's item list (its main item).
                let db = b.push(
                    db_id,
                    db_name.clone(),
                    Some(&r.name),
                    Some(size),
                    ManagedBy::Pulumi,
                    vec![subnet_group.clone(), secret.clone()],
                    db_spec,
                    Some(Priceable::Postgres { engine: *pg_engine, size: size.into() }),
                );
                if let (Some(main), Some(price)) = (b.items.pop(), b.prices.pop()) {
                    b.items.insert(first_item, main);
                    b.prices.insert(first_item, price);
                }
                if *pg_engine == PostgresEngine::Aurora {
                    for i in 1..=sizing.instances {
                        let full = format_compact!("{base}-{i}");
                        let name = if full.len() > 63 {
                            format_compact!("{}-{i}", fit(&base, 63 - 1 - i.to_string().len()))
                        } else {
                            full
                        };
                        b.push(
                            format_compact!("{}_instance-{i}", r.name),
                            name,
                            Some(&r.name),
                            Some(size),
                            ManagedBy::Pulumi,
                            vec![db.clone()],
                            ItemSpec::AuroraInstance {
                                cluster: db.clone(),
                                instance_class: sizing.instance_class.as_str().into(),
                                index: i,
                            },
                            None,
                        );
                    }
                }
                let role_name = b.named(ItemKind::ProxyRole, cat(&[&base, "-proxy-role"]));
                let role = b.push(
                    cat(&[&r.name, "_proxy-role"]),
                    role_name,
                    Some(&r.name),
                    None,
                    ManagedBy::Pulumi,
                    vec![secret.clone()],
                    ItemSpec::ProxyRole { secret: secret.clone() },
                    None,
                );
                let proxy_name = b.named(ItemKind::RdsProxy, cat(&[&base, "-proxy"]));
                let proxy = b.push(
                    cat(&[&r.name, "_proxy"]),
                    proxy_name.clone(),
                    Some(&r.name),
                    Some(size),
                    ManagedBy::Pulumi,
                    vec![secret.clone(), role.clone()],
                    ItemSpec::RdsProxy {
                        resource: r.name.clone(),
                        engine_family: "POSTGRESQL".into(),
                        secret: secret.clone(),
                        role: role.clone(),
                        require_tls: true,
                    },
                    Some(Priceable::RdsProxy { engine: *pg_engine, size: size.into() }),
                );
                let tg = b.push(
                    cat(&[&r.name, "_proxy-target-group"]),
                    cat(&[&proxy_name, "/default"]),
                    Some(&r.name),
                    None,
                    ManagedBy::Pulumi,
                    vec![proxy.clone()],
                    ItemSpec::RdsProxyTargetGroup { proxy: proxy.clone() },
                    None,
                );
                b.push(
                    cat(&[&r.name, "_proxy-target"]),
                    cat(&[&proxy_name, "/default/", &db_name]),
                    Some(&r.name),
                    None,
                    ManagedBy::Pulumi,
                    vec![proxy.clone(), tg.clone(), db.clone()],
                    ItemSpec::RdsProxyTarget { proxy: proxy.clone(), target_group: tg, target: db.clone() },
                    None,
                );
                generated.push(GeneratedSecret {
                    resource: r.name.clone(),
                    kind: CredentialKind::PostgresAdminPassword,
                    variable: var("PASSWORD"),
                    infisical: place(ri, var("PASSWORD")),
                    secrets_manager: Some(secret_name),
                    secrets_manager_username: Some(POSTGRES_USER.into()),
                });
                let url = format_compact!(
                    "postgresql://${{{u}}}:${{{pw}}}@${{{h}}}:${{{po}}}/${{{d}}}?sslmode=require",
                    u = var("USER"),
                    pw = var("PASSWORD"),
                    h = var("HOST"),
                    po = var("PORT"),
                    d = var("DATABASE"),
                );
                connection.push(ConnectionVariable {
                    resource: r.name.clone(),
                    infisical: place(ri, var("URL")),
                    source: ConnectionSource::Template { template: url },
                });
                output(&mut outputs, &mut connection, &proxy, "endpoint", var("HOST"));
                for (s, v) in [
                    ("PORT", POSTGRES_PORT.to_compact_string()),
                    ("DATABASE", database_name(&r.name).into()),
                    ("USER", POSTGRES_USER.into()),
                ] {
                    connection.push(ConnectionVariable {
                        resource: r.name.clone(),
                        infisical: place(ri, var(s)),
                        source: ConnectionSource::Literal { value: v },
                    });
                }
                engine = postgres_engine_str(*pg_engine).into();
                version = Some(pg_version.as_str().into());
                summary = postgres_summary(*pg_engine, &sizing);
            }
            ResourceSpec::Cache { version: v } => {
                let sizing = catalogue.cache(size);
                if sizing.is_none() {
                    b.unknown_size(env, path(), "cache", size);
                }
                let sizing = sizing.unwrap_or(CacheSize { node_type: String::new(), nodes: 0 });
                let token_param = ssm_name(&r.name, &var("PASSWORD"));
                let name = b.named(ItemKind::CacheReplicationGroup, base.clone());
                let subnet_group = cache_subnets.clone().unwrap_or_default();
                let id = b.push(
                    cat(&[&r.name, "_cache"]),
                    name,
                    Some(&r.name),
                    Some(size),
                    ManagedBy::Pulumi,
                    vec![subnet_group.clone()],
                    ItemSpec::CacheReplicationGroup {
                        resource: r.name.clone(),
                        engine: "valkey".into(),
                        engine_version: v.as_str().into(),
                        automatic_failover: sizing.nodes > 1,
                        transit_encryption: true,
                        auth_token_parameter: token_param.clone(),
                        subnet_group,
                        size: sizing.clone(),
                    },
                    Some(Priceable::Cache { size: size.into() }),
                );
                let pw = r.vars.iter().position(|v| *v == var("PASSWORD")).unwrap_or(usize::MAX);
                ssm.reference((ri, pw), &id, || SsmParameter {
                    name: token_param.clone(),
                    variable: var("PASSWORD"),
                    source: ParameterSource::Resource,
                    owner: r.name.clone(),
                    infisical: Some(place(ri, var("PASSWORD"))),
                    referenced_by: vec![],
                    r#type: "SecureString".into(),
                    kms_key: kms_key.clone(),
                });
                generated.push(GeneratedSecret {
                    resource: r.name.clone(),
                    kind: CredentialKind::CacheAuthToken,
                    variable: var("PASSWORD"),
                    infisical: place(ri, var("PASSWORD")),
                    secrets_manager: None,
                    secrets_manager_username: None,
                });
                let url = format_compact!(
                    "rediss://:${{{}}}@${{{}}}:${{{}}}",
                    var("PASSWORD"),
                    var("HOST"),
                    var("PORT")
                );
                connection.push(ConnectionVariable {
                    resource: r.name.clone(),
                    infisical: place(ri, var("URL")),
                    source: ConnectionSource::Template { template: url },
                });
                output(&mut outputs, &mut connection, &id, "primaryEndpointAddress", var("HOST"));
                connection.push(ConnectionVariable {
                    resource: r.name.clone(),
                    infisical: place(ri, var("PORT")),
                    source: ConnectionSource::Literal { value: CACHE_PORT.to_compact_string() },
                });
                engine = "valkey".into();
                version = Some(v.as_str().into());
                summary = if sizing.nodes == 0 {
                    "unknown size".into()
                } else {
                    format!("{} x {}", sizing.nodes, sizing.node_type)
                };
            }
            ResourceSpec::Queue { fifo, visibility_timeout, dead_letter } => {
                let requests = catalogue.requests(size);
                if requests.is_none() {
                    b.unknown_size(env, path(), "queue", size);
                }
                let sfx = if *fifo { ".fifo" } else { "" };
                let queue_id = cat(&[&r.name, "_queue"]);
                let dlq = dead_letter.map(|_| {
                    let name = fit_with_suffix(&cat(&[&base, "-dlq"]), sfx, 80);
                    (cat(&[&r.name, "_dlq"]), name)
                });
                let name = fit_with_suffix(&base, sfx, 80);
                b.push(
                    queue_id.clone(),
                    name,
                    Some(&r.name),
                    Some(size),
                    ManagedBy::Pulumi,
                    dlq.iter().map(|(id, _)| id.clone()).collect(),
                    ItemSpec::SqsQueue {
                        resource: r.name.clone(),
                        fifo: *fifo,
                        visibility_timeout_seconds: visibility_timeout.as_secs(),
                        dead_letter_queue: dlq.as_ref().map(|(id, _)| id.clone()),
                        max_receives: dead_letter.map(|d| d.max_receives),
                        monthly_requests: requests,
                    },
                    Some(Priceable::Queue { fifo: *fifo, size: size.into() }),
                );
                if let Some((id, name)) = &dlq {
                    b.push(
                        id.clone(),
                        name.clone(),
                        Some(&r.name),
                        None,
                        ManagedBy::Pulumi,
                        vec![],
                        ItemSpec::SqsDeadLetterQueue {
                            resource: r.name.clone(),
                            fifo: *fifo,
                            retention_seconds: DLQ_RETENTION_SECONDS,
                        },
                        None,
                    );
                }
                output(&mut outputs, &mut connection, &queue_id, "url", var("URL"));
                output(&mut outputs, &mut connection, &queue_id, "arn", var("ARN"));
                if let Some((id, _)) = &dlq {
                    output(&mut outputs, &mut connection, id, "url", var("DLQ_URL"));
                }
                engine = "sqs".into();
                version = None;
                summary = format!(
                    "{}{}, visibility {visibility_timeout}{}",
                    if *fifo { "FIFO" } else { "standard" },
                    requests.map(|n| format!(", {} requests/month", group(n))).unwrap_or_default(),
                    dead_letter
                        .map(|d| format!(", dead-letter after {}", d.max_receives))
                        .unwrap_or_default()
                );
            }
            ResourceSpec::Topic { fifo } => {
                let requests = catalogue.requests(size);
                if requests.is_none() {
                    b.unknown_size(env, path(), "topic", size);
                }
                let sfx = if *fifo { ".fifo" } else { "" };
                let id = b.push(
                    cat(&[&r.name, "_topic"]),
                    fit_with_suffix(&base, sfx, 256),
                    Some(&r.name),
                    Some(size),
                    ManagedBy::Pulumi,
                    vec![],
                    ItemSpec::SnsTopic { resource: r.name.clone(), fifo: *fifo, monthly_requests: requests },
                    Some(Priceable::Topic { fifo: *fifo, size: size.into() }),
                );
                output(&mut outputs, &mut connection, &id, "arn", var("ARN"));
                engine = "sns".into();
                version = None;
                summary = format!(
                    "{}{}",
                    if *fifo { "FIFO" } else { "standard" },
                    requests.map(|n| format!(", {} requests/month", group(n))).unwrap_or_default()
                );
            }
            ResourceSpec::Bucket { versioning } => {
                let gb = catalogue.bucket_gb(size);
                if gb.is_none() {
                    b.unknown_size(env, path(), "bucket", size);
                }
                let id = b.push(
                    cat(&[&r.name, "_bucket"]),
                    b.named(ItemKind::S3Bucket, base.to_ascii_lowercase()),
                    Some(&r.name),
                    Some(size),
                    ManagedBy::Pulumi,
                    vec![],
                    ItemSpec::S3Bucket {
                        resource: r.name.clone(),
                        versioning: *versioning,
                        block_public_access: true,
                        storage_gb: gb,
                    },
                    Some(Priceable::Bucket { size: size.into() }),
                );
                output(&mut outputs, &mut connection, &id, "bucket", var("NAME"));
                output(&mut outputs, &mut connection, &id, "arn", var("ARN"));
                connection.push(ConnectionVariable {
                    resource: r.name.clone(),
                    infisical: place(ri, var("REGION")),
                    source: ConnectionSource::Literal { value: env.region.as_str().into() },
                });
                engine = "s3".into();
                version = None;
                summary = format!(
                    "{}{}",
                    gb.map(|g| format!("{g} GB")).unwrap_or_else(|| "unknown size".into()),
                    if *versioning { ", versioned" } else { "" }
                );
            }
            #[allow(unreachable_patterns)] // reason: ResourceSpec is non_exhaustive
            _ => {
                engine = CompactString::default();
                version = None;
                summary = "kind not planned by this version".into();
            }
        }
        // This resource's connection variables in the spec's variable order (resources are
        // already in order: each sorts only its own, with a key computed once per variable).
        connection[first_connection..]
            .sort_by_cached_key(|c| r.vars.iter().position(|v| *v == c.infisical.name).unwrap_or(usize::MAX));
        let items: Vec<CompactString> = b.items[first_item..].iter().map(|i| i.id.clone()).collect();
        let physical_name = b.items.get(first_item).map(|i| i.physical_name.clone()).unwrap_or_default();
        resource_ranges.push(first_item..b.items.len());
        planned_resources.push(PlannedResource {
            name: r.name.clone(),
            kind: r.spec.kind(),
            origin: r.origin,
            size: r.size.clone(),
            physical_name,
            monthly: None,
            engine,
            version,
            summary: summary.into(),
            items,
            consumers: res_index
                .get(r.name.as_str())
                .map(|&i| std::mem::take(&mut consumers_of[i]))
                .unwrap_or_default(),
        });
    }

    // ---- bindings ----
    let mut bindings = Vec::with_capacity(consumers.iter().map(|c| c.uses.len()).sum());
    // Per resource, made on its first binding: its SSM parameter names and Infisical display.
    let mut params_of: Vec<Option<Arc<[CompactString]>>> = vec![None; resources.len()];
    // Members get no SSM parameters: one empty list shared by all of them.
    let no_params: Arc<[CompactString]> = Arc::from(Vec::new());
    let mut display_of: Vec<Option<CompactString>> = vec![None; resources.len()];
    for c in &consumers {
        for (u, implicit) in &c.uses {
            let Some(&ri) = res_index.get(u.as_str()) else { continue };
            let r = &resources[ri];
            let is_workload = c.kind == ConsumerKind::Workload;
            let params = if is_workload {
                params_of[ri]
                    .get_or_insert_with(|| r.vars.iter().map(|v| ssm_name(&r.name, v)).collect())
                    .clone()
            } else {
                no_params.clone()
            };
            bindings.push(Binding {
                consumer: c.name.clone(),
                resource: r.name.clone(),
                variables: r.vars.clone(),
                infisical: display_of[ri]
                    .get_or_insert_with(|| place(ri, CompactString::default()).display().into())
                    .clone(),
                ssm: params,
                consumer_kind: c.kind,
                delivery: match c.kind {
                    ConsumerKind::Workload => Delivery::Ssm,
                    ConsumerKind::EncoreMember => Delivery::EncoreSync,
                    _ => Delivery::Infisical,
                },
                implicit: *implicit,
            });
        }
    }

    // ---- workloads ----
    let mut planned_workloads = Vec::with_capacity(root.workloads.len());
    let mut public_index = 0u32;
    // Bindings by consumer name, in binding order, grouped once (not filtered per workload).
    let mut bindings_of: IndexMap<&str, Vec<&Binding>> = IndexMap::new();
    for bnd in &bindings {
        bindings_of.entry(bnd.consumer.as_str()).or_default().push(bnd);
    }
    for (wi, (wname, w)) in root.workloads.iter().enumerate() {
        let first_item = b.items.len();
        let base = b.base(wname);
        let own_bindings: &[&Binding] = bindings_of.get(wname.as_str()).map_or(&[], Vec::as_slice);
        let size = w.size_in(e);
        let scale = w.scale_in(e);
        let task = catalogue.task(size);
        if task.is_none() {
            b.unknown_size(env, format!("workloads.{wname}.size"), "workload", size);
        }
        let task = task.unwrap_or(TaskSize { cpu: 0, memory_mib: 0 });
        let exec_role = exec_role_id.clone().unwrap_or_default();
        let cluster = cluster_id.clone().unwrap_or_default();
        let mut secrets = Vec::new();
        for bnd in own_bindings {
            for (v, param) in bnd.variables.iter().zip(bnd.ssm.iter()) {
                secrets.push(TaskSecret { name: v.clone(), parameter: param.clone() });
            }
        }
        for s in &w.secrets {
            secrets.push(TaskSecret { name: s.as_str().into(), parameter: ssm_name(wname, s) });
        }
        let td_id = cat(&[wname, "_task"]);
        for bnd in own_bindings {
            // Bindings name existing resources only (consumers' uses were filtered above).
            let Some(&ri) = res_index.get(bnd.resource.as_str()) else { continue };
            for (vi, (v, param)) in bnd.variables.iter().zip(bnd.ssm.iter()).enumerate() {
                ssm.reference((ri, vi), &td_id, || SsmParameter {
                    name: param.clone(),
                    variable: v.clone(),
                    source: ParameterSource::Resource,
                    owner: bnd.resource.clone(),
                    infisical: Some(place(ri, v.clone())),
                    referenced_by: vec![],
                    r#type: "SecureString".into(),
                    kms_key: kms_key.clone(),
                });
            }
        }
        for (si, s) in w.secrets.iter().enumerate() {
            let name = ssm_name(wname, s);
            ssm.reference((resources.len() + wi, si), &td_id, || SsmParameter {
                name: name.clone(),
                variable: s.as_str().into(),
                source: ParameterSource::WorkloadSecret,
                owner: wname.as_str().into(),
                infisical: None,
                referenced_by: vec![],
                r#type: "SecureString".into(),
                kms_key: kms_key.clone(),
            });
        }
        let health = health_spec(w);
        b.push(
            td_id.clone(),
            b.named(ItemKind::TaskDefinition, base.clone()),
            Some(wname),
            Some(size),
            ManagedBy::Pulumi,
            vec![exec_role.clone()],
            ItemSpec::TaskDefinition {
                workload: wname.as_str().into(),
                image: w.image.as_str().into(),
                task: task.clone(),
                cpu_architecture: "ARM64".into(),
                port: w.port,
                health: health.clone(),
                environment: w
                    .env
                    .iter()
                    .map(|(k, v)| (k.as_str().into(), v.as_str().into()))
                    .collect::<IndexMap<_, _>>(),
                secrets,
                execution_role: exec_role,
            },
            None,
        );
        let mut discovery = None;
        let mut target_group = None;
        let mut host = None;
        let mut dns_name = None;
        match w.expose {
            Expose::Internal => {
                if let Some((ns, dns)) = &namespace {
                    let d = cat(&[wname, ".", dns]);
                    discovery = Some(b.push(
                        cat(&[wname, "_discovery"]),
                        b.named(ItemKind::CloudMapService, wname.as_str().into()),
                        Some(wname),
                        None,
                        ManagedBy::Pulumi,
                        vec![ns.clone()],
                        ItemSpec::CloudMapService {
                            workload: wname.as_str().into(),
                            namespace: ns.clone(),
                            dns_name: d.clone(),
                        },
                        None,
                    ));
                    dns_name = Some(d);
                }
            }
            Expose::Public => {
                if let (Some(listener), Some(domain)) = (&listener_id, &env.domain) {
                    public_index += 1;
                    let h = health.as_ref();
                    let tg = b.push(
                        cat(&[wname, "_target-group"]),
                        b.named(ItemKind::AlbTargetGroup, cat(&[&base, "-tg"])),
                        Some(wname),
                        None,
                        ManagedBy::Pulumi,
                        vec![],
                        ItemSpec::AlbTargetGroup {
                            workload: wname.as_str().into(),
                            port: w.port,
                            protocol: "HTTP".into(),
                            health_path: h.and_then(|h| h.path.clone()).unwrap_or_else(|| "/".into()),
                            health_interval_seconds: h.map_or(30, |h| h.interval_seconds),
                            health_timeout_seconds: h.map_or(5, |h| h.timeout_seconds),
                            healthy_threshold: h.map_or(2, |h| h.healthy_threshold),
                            unhealthy_threshold: h.map_or(3, |h| h.unhealthy_threshold),
                        },
                        None,
                    );
                    let hostname = cat(&[wname, ".", domain]);
                    let listener_name =
                        b.items.iter().find(|i| i.id == *listener).map(|i| i.physical_name.clone());
                    b.push(
                        cat(&[wname, "_listener-rule"]),
                        cat(&[&listener_name.unwrap_or_default(), "/", &hostname]),
                        Some(wname),
                        None,
                        ManagedBy::Pulumi,
                        vec![listener.clone(), tg.clone()],
                        ItemSpec::AlbListenerRule {
                            workload: wname.as_str().into(),
                            listener: listener.clone(),
                            target_group: tg.clone(),
                            host: hostname.clone(),
                            priority: public_index,
                        },
                        None,
                    );
                    target_group = Some(tg);
                    host = Some(hostname);
                }
            }
        }
        let svc_name = b.named(ItemKind::EcsService, cat(&[&base, "-service"]));
        let mut deps = vec![cluster.clone(), td_id.clone()];
        deps.extend(discovery.iter().cloned());
        deps.extend(target_group.iter().cloned());
        let svc = b.push(
            cat(&[wname, "_service"]),
            svc_name.clone(),
            Some(wname),
            Some(size),
            ManagedBy::Pulumi,
            deps,
            ItemSpec::EcsService {
                workload: wname.as_str().into(),
                cluster: cluster.clone(),
                task_definition: td_id.clone(),
                desired_count: scale.min,
                expose: w.expose,
                discovery_service: discovery,
                target_group,
                port: w.port,
            },
            Some(Priceable::tasks(size, scale.min, scale.max)),
        );
        if scale.max > scale.min {
            let cluster_name = b.items.iter().find(|i| i.id == cluster).map(|i| i.physical_name.clone());
            let target = b.push(
                cat(&[wname, "_scaling-target"]),
                cat(&["service/", &cluster_name.unwrap_or_default(), "/", &svc_name]),
                Some(wname),
                None,
                ManagedBy::Pulumi,
                vec![svc.clone()],
                ItemSpec::ScalingTarget {
                    workload: wname.as_str().into(),
                    service: svc.clone(),
                    min_capacity: scale.min,
                    max_capacity: scale.max,
                },
                None,
            );
            b.push(
                cat(&[wname, "_scaling-policy"]),
                b.named(ItemKind::ScalingPolicy, cat(&[&base, "-cpu"])),
                Some(wname),
                None,
                ManagedBy::Pulumi,
                vec![target.clone()],
                ItemSpec::ScalingPolicy {
                    workload: wname.as_str().into(),
                    target,
                    metric: "ECSServiceAverageCPUUtilization".into(),
                    target_value: SCALING_CPU_TARGET,
                },
                None,
            );
        }
        workload_ranges.push(first_item..b.items.len());
        planned_workloads.push(PlannedWorkload {
            name: wname.as_str().into(),
            size: size.into(),
            min: scale.min,
            max: scale.max,
            expose: w.expose,
            monthly: None,
            ceiling: None,
            task,
            image: w.image.as_str().into(),
            port: w.port,
            host,
            dns_name,
            uses: w.uses.iter().map(|u| u.as_str().into()).collect(),
            items: b.items[first_item..].iter().map(|i| i.id.clone()).collect(),
        });
    }

    dedupe_physical_names(&mut b.items);

    // ---- cost ----
    let Builder { items, prices, mut diagnostics, region, .. } = b;
    let mut items = items;
    let cost = summarize(catalogue, region, &mut items, &prices, env, e, &mut diagnostics);
    for (r, range) in planned_resources.iter_mut().zip(resource_ranges) {
        r.monthly = sum_items(&items[range], |i| i.monthly);
    }
    for (w, range) in planned_workloads.iter_mut().zip(workload_ranges) {
        w.monthly = sum_items(&items[range.clone()], |i| i.monthly);
        w.ceiling = sum_items(&items[range], |i| i.ceiling);
    }

    let secrets = SecretsLayout {
        infisical_project: root.secrets.infisical.as_ref().map(|i| i.project.as_str().into()),
        ssm_prefix: ssm_prefix.as_str().into(),
        kms_key: kms_key.clone(),
        generated,
        connection,
        ssm_parameters: ssm.into_sorted(),
    };
    Ok(Plan {
        product: p.into(),
        environment: e.into(),
        region: env.region.as_str().into(),
        resources: planned_resources,
        workloads: planned_workloads,
        bindings,
        cost,
        diagnostics,
        items,
        outputs,
        secrets,
    })
}

/// About how many items a plan of the product declares: at most 8 platform items, up to 8 for each
/// implicit `shared-<engine>` resource, each declared resource's items by kind (an Aurora cluster
/// with its instances counted as 8), and each workload's items in this environment.
fn expected_items(product: &Product, env: &str) -> usize {
    let resources: usize = product
        .root
        .resources
        .values()
        .map(|r| match &r.spec {
            ResourceSpec::Postgres { engine: PostgresEngine::Rds, .. } => 6,
            ResourceSpec::Postgres { .. } => 8,
            ResourceSpec::Queue { dead_letter: Some(_), .. } => 2,
            _ => 1,
        })
        .sum();
    // A service and its task definition, its discovery service (internal) or target group and
    // listener rule (public), and a scaling target and policy when it scales in this environment.
    let workloads: usize = product
        .root
        .workloads
        .values()
        .map(|w| {
            let scale = w.scale_in(env);
            2 + if w.expose == Expose::Public { 2 } else { 1 } + if scale.max > scale.min { 2 } else { 0 }
        })
        .sum();
    8 + 8 * Engine::ALL.len() + resources + workloads
}

/// The SSM parameters of a plan, each made once, in the order first referenced; the plan lists
/// them by name. A parameter is known by its owner and variable positions, (resource, variable)
/// or (resources + workload, secret): its name is `<prefix>/<owner>/<variable>`, and owner
/// names are unique and never hold a `/`, so the pair names it exactly as its name does, and
/// is found without comparing names. The parameters stay in one list (a map of them and its
/// sorted copy would be held at once, the largest transient of a large plan).
#[derive(Default)]
struct SsmParams {
    list: Vec<SsmParameter>,
    at: IndexMap<(usize, usize), usize>,
}

impl SsmParams {
    /// Records that item `by` references the parameter `key`, making it on first use.
    fn reference(&mut self, key: (usize, usize), by: &str, make: impl FnOnce() -> SsmParameter) {
        match self.at.get(&key) {
            Some(&i) => self.list[i].referenced_by.push(by.into()),
            None => {
                let mut p = make();
                p.referenced_by.push(by.into());
                self.at.insert(key, self.list.len());
                self.list.push(p);
            }
        }
    }

    /// The parameters by name, ordered in place (each is moved at most once into its place).
    fn into_sorted(self) -> Vec<SsmParameter> {
        let mut list = self.list;
        // Every name starts with the same prefix (`/<product>/<env>/`): names are ordered by
        // what follows it, first by its next 16 bytes as one number, and only on a tie by the
        // rest (half the instructions of comparing whole names).
        let first = list.first().map_or("", |p| p.name.as_str());
        let common = list.iter().fold(first.len(), |n, p| {
            first.as_bytes()[..n].iter().zip(p.name.as_bytes()).take_while(|(a, b)| a == b).count()
        });
        let key = |name: &str| {
            let mut head = [0u8; 16];
            let tail = &name.as_bytes()[common..];
            let n = tail.len().min(16);
            head[..n].copy_from_slice(&tail[..n]);
            u128::from_be_bytes(head)
        };
        let mut order: Vec<(u128, usize)> = list.iter().enumerate().map(|(i, p)| (key(&p.name), i)).collect();
        order.sort_unstable_by(|&(ka, a), &(kb, b)| {
            ka.cmp(&kb)
                .then_with(|| list[a].name.as_bytes()[common..].cmp(&list[b].name.as_bytes()[common..]))
        });
        // rank[i]: where the parameter now at position i belongs.
        let mut rank = vec![0; list.len()];
        for (k, &(_, i)) in order.iter().enumerate() {
            rank[i] = k;
        }
        for i in 0..list.len() {
            while rank[i] != i {
                let r = rank[i];
                list.swap(i, r);
                rank.swap(i, r);
            }
        }
        list
    }
}

/// Exact sum of the figures of these items; `None` when any is unknown.
fn sum_items(items: &[PlannedItem], f: impl Fn(&PlannedItem) -> Option<Money>) -> Option<Money> {
    let mut total = Money::ZERO;
    for i in items {
        total = total + f(i)?;
    }
    Some(total)
}

/// Makes physical names unique: an item whose name an earlier item already has (possible only
/// when a name of the file spells another's derived name, such as a queue `x-proxy` beside a
/// postgres `x`) gets a hash of its logical id appended, cut to its kind's limit.
fn dedupe_physical_names(items: &mut [PlannedItem]) {
    // The common case, no repeat at all, is found with borrowed names (no copy of every name),
    // hashed: membership only, nothing is iterated in hash order.
    let mut names = std::collections::HashSet::with_capacity(items.len());
    if items.iter().all(|i| names.insert(i.physical_name.as_str())) {
        return;
    }
    let mut seen = BTreeSet::new();
    for item in items.iter_mut() {
        if !seen.insert(item.physical_name.clone()) {
            let fifo = item.physical_name.ends_with(".fifo");
            let stem = item.physical_name.trim_end_matches(".fifo");
            let full = format!("{stem}-{}", hash6(&item.id));
            let sfx = if fifo { ".fifo" } else { "" };
            item.physical_name = match limit(item.kind) {
                Some(l) => fit_with_suffix(&full, sfx, l),
                None => cat(&[&full, sfx]),
            };
            seen.insert(item.physical_name.clone());
        }
    }
}

fn postgres_summary(engine: PostgresEngine, s: &PostgresSize) -> String {
    if s.instances == 0 {
        return "unknown size".into();
    }
    match engine {
        PostgresEngine::Rds => format!(
            "{}, {} GB gp3, {}",
            s.instance_class,
            s.storage_gb,
            if s.multi_az { "Multi-AZ" } else { "single-AZ" }
        ),
        PostgresEngine::Aurora => format!("{} x {}", s.instances, s.instance_class),
    }
}

/// `10000000` -> `10,000,000`.
pub(crate) fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(name: &str) -> SsmParameter {
        SsmParameter {
            name: name.into(),
            variable: "V".into(),
            source: ParameterSource::Resource,
            owner: "o".into(),
            infisical: None,
            referenced_by: vec![],
            r#type: "SecureString".into(),
            kms_key: "alias/aws/ssm".into(),
        }
    }

    #[test]
    fn cat_joins_inline_and_long_names_alike() {
        assert_eq!(cat(&[]), "");
        assert_eq!(cat(&["main-db", "_", "proxy"]), "main-db_proxy");
        let exact = "a".repeat(INLINE);
        assert_eq!(cat(&[&exact[..10], &exact[10..]]), exact.as_str());
        let long = "/acme-shop/production/main-db/MAIN_DB_URL";
        assert_eq!(cat(&["/acme-shop/production", "/", "main-db", "/", "MAIN_DB_URL"]), long);
        assert_eq!(cat(&["é", "ü"]), "éü");
    }

    #[test]
    fn ssm_parameters_come_out_by_name_each_once_with_every_reference() {
        // Names first referenced out of order, some again, in cycles of several lengths.
        let names = ["/p/e/f", "/p/e/b", "/p/e/a", "/p/e/e", "/p/e/c", "/p/e/d", "/p/e/b-1", "/p/e/a/X"];
        let mut ssm = SsmParams::default();
        for (i, n) in names.iter().enumerate() {
            ssm.reference((i, 0), &format!("item{i}"), || param(n));
        }
        ssm.reference((2, 0), "again", || panic!("made twice"));
        let list = ssm.into_sorted();
        let got: Vec<&str> = list.iter().map(|p| p.name.as_str()).collect();
        let mut want = names.to_vec();
        want.sort_unstable();
        assert_eq!(got, want);
        let a = list.iter().find(|p| p.name == "/p/e/a").unwrap();
        assert_eq!(a.referenced_by, ["item2", "again"]);
    }

    #[test]
    fn ssm_order_is_by_whole_name_past_the_sixteen_byte_key() {
        // Ties on the 16 bytes after the shared prefix, a name that is a prefix of another,
        // a byte below `/`, names that share no prefix at all, and multi-byte text.
        for names in [
            &["/p/e/queue-1234567890123/B", "/p/e/queue-1234567890123/A", "/p/e/queue-1234567890123"][..],
            &[
                "/p/e/aaaaaaaaaaaaaaaaZ",
                "/p/e/aaaaaaaaaaaaaaaa",
                "/p/e/aaaaaaaaaaaaaaaa-",
                "/p/e/aaaaaaaaaaaaaaa",
            ],
            &["/x/db/URL", "/a/db/URL", "/x/db", "/x/d\u{e9}/URL", "/x/d\u{e8}/URL"],
            &["/p/e/a", "/p/e/a"],
            &["/p/e/only"],
        ] {
            let mut ssm = SsmParams::default();
            for (i, n) in names.iter().enumerate() {
                ssm.reference((i, 0), "item", || param(n));
            }
            let list = ssm.into_sorted();
            let got: Vec<&str> = list.iter().map(|p| p.name.as_str()).collect();
            let mut want = names.to_vec();
            want.sort_unstable();
            assert_eq!(got, want);
        }
    }
}
