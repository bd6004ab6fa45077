//! Lowering: a validated product and one environment -> a [`Plan`].
//!
//! [`plan()`] reads top to bottom: it picks the environment, collects the resources and their
//! consumers, lays down the environment's platform, lowers each resource by its kind (one
//! module per kind, one `match` line each), binds consumers, lowers the workloads, and prices
//! the result. Every step appends to one lowering context (`context::Cx`), so the plan's
//! item order is the order of these steps.
//!
//! The rooms: `postgres`, `cache`, `queue`, `topic`, `bucket` and `workload` (one per kind);
//! `identity` (each workload's execution and task roles and their grants); `reach` (who reaches
//! what, from the graph) read by `network` (security groups and their rules) and `context`
//! (`Cx`, `NewItem`); `platform` (cluster, namespace, ALB, subnet groups), `budget` (a capped
//! environment's backstop), `alarms` (the alerts topic, alarms and ECS event rule, over the
//! items planned before them), `endpoints` (`network.endpoints`), `protection`; `bindings` and
//! `secrets` (Infisical places, connection variables, SSM parameters); `resources` (declared and
//! implicit resources); physical names in `crate::naming`.

use std::collections::BTreeSet;
use std::ops::Range;

use compact_str::CompactString;
use cost::Catalogue;
use runway_schema::{
    Environment, Expose, Kind, Money, PostgresEngine, Product, RegistryCredentials, ResourceSpec,
    did_you_mean,
};

use crate::naming::{fit_with_suffix, hash6, limit};
use crate::plan::*;
use crate::pricing::summarize;

mod concerns;
mod kinds;

use concerns::{
    alerting, consumers, context, identity, image_route, network, protection, reach, resources,
    secret_layout, task_fingerprint, usage,
};
use kinds::{access_logs, bucket, budget, cache, key, platform, postgres, queue, topic, vpc, workload};

use context::Cx;
use platform::Platform;
use resources::Res;

pub use access_logs::{ALB_LOG_DAYS, ELB_LOG_ACCOUNTS, LOG_DELIVERY_SERVICE, log_delivery};
pub use key::KEY_ID;
pub use protection::{
    ABORT_INCOMPLETE_UPLOADS_DAYS, BACKUP_DAYS, BUCKET_ENCRYPTION, PRODUCTION, PRODUCTION_BACKUP_DAYS,
    PRODUCTION_BACKUP_WINDOW, PRODUCTION_CACHE_SNAPSHOT_DAYS, PRODUCTION_MAINTENANCE_WINDOW, SNS_KMS_KEY,
};
pub use runway_schema::{variable_suffixes, variables};
pub use task_fingerprint::{fingerprint, run_fingerprint};
pub use vpc::nat_gateways;

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
/// Seconds a public workload's new tasks may fail the target group's health checks before
/// ECS replaces them: time to boot, on top of the checks' own unhealthy threshold.
pub const HEALTH_CHECK_GRACE_SECONDS: u32 = 60;

/// The postgres database name of a resource (`main-db` -> `main_db`).
pub fn database_name(resource: &str) -> String {
    resource.replace('-', "_")
}

/// Plans one environment of a product.
///
/// Pure: the same product, environment and catalogue always give the same plan, byte for byte.
/// Cost and planning problems are diagnostics of the plan; only an environment the product
/// does not declare is an error.
pub fn plan(product: &Product, env_name: &str, catalogue: &Catalogue) -> Result<Plan, PlanError> {
    plan_with(product, env_name, catalogue, None, None)
}

/// Plans environments of one product in turn ([`plan()`] of each), sharing what does not
/// depend on the environment: each database's bootstrap is fingerprinted once, not once per
/// environment. `runway check` (through `check_each`, `check.rs`) plans every environment so.
///
/// ```
/// let loaded = runway_schema::load_str(
///     "runway.yaml",
///     "runway: 3\nproduct: shop\nenvironments:\n  dev: { region: us-east-1 }\n",
/// );
/// let product = loaded.product.unwrap();
/// let catalogue = cost::Catalogue::builtin();
/// let mut planner = runtime_plan::Planner::new(&product, &catalogue);
/// assert_eq!(planner.plan("dev").unwrap(), runtime_plan::plan(&product, "dev", &catalogue).unwrap());
/// ```
pub struct Planner<'p> {
    product: &'p Product,
    catalogue: &'p Catalogue,
    fingerprints: task_fingerprint::Fingerprints,
}

impl<'p> Planner<'p> {
    /// A planner of `product`'s environments, priced with `catalogue`.
    pub fn new(product: &'p Product, catalogue: &'p Catalogue) -> Self {
        Planner { product, catalogue, fingerprints: task_fingerprint::Fingerprints::default() }
    }

    /// The plan of `env_name`, the same as [`plan()`]'s, byte for byte.
    pub fn plan(&mut self, env_name: &str) -> Result<Plan, PlanError> {
        plan_with(self.product, env_name, self.catalogue, None, Some(&mut self.fingerprints))
    }
}

/// How a pull request's preview plans the postgres resources whose instance, proxy and admin
/// it shares with its `from` environment (docs/previews.md, "Data").
#[derive(Clone, Copy, Debug)]
pub(crate) struct PreviewDatabases<'a> {
    /// What its databases', logins' and groups' names end with: `_pr_7` (`main_db_pr_7`,
    /// `app_api_pr_7`, `runway_write_pr_7`).
    pub(crate) suffix: &'a str,
    /// The `from` environment (`dev`): its admin secret is the one the preview's bootstrap
    /// logs in with; the preview writes none.
    pub(crate) from: &'a str,
    /// That environment's SSM prefix, where the admin's password is (`/acme-shop/dev`).
    pub(crate) from_ssm_prefix: &'a str,
}

/// [`plan()`]; a preview's (`preview`) with its own database `<db><suffix>` in each shared
/// instance (`main_db_pr_7`), its own logins and groups, and `from`'s admin.
pub(crate) fn plan_with(
    product: &Product,
    env_name: &str,
    catalogue: &Catalogue,
    preview: Option<PreviewDatabases<'_>>,
    fingerprints: Option<&mut task_fingerprint::Fingerprints>,
) -> Result<Plan, PlanError> {
    let root = &product.root;
    let env = environment(product, env_name)?;
    // What is planned: the resources, and who consumes which.
    let resources = resources::collect(product, env_name, env);
    let consumers = consumers::consumers(product, &resources);
    let mut logins_of = consumers::logins_of(&resources, &consumers);
    // A preview's logins are roles of the shared instance: named apart from `from`'s.
    if let Some(p) = preview {
        logins_of.iter_mut().flatten().for_each(|login| login.role.push_str(p.suffix));
    }
    // Room for every connection variable: the resources' own, and each login's in its folder.
    // A `PASSWORD` is a generated credential, never a connection variable (room for them was
    // 1 MB never used at N = 10,000).
    let connection_variables: usize = (resources.iter().zip(&logins_of))
        .map(|(r, logins)| {
            (r.vars.len() - usize::from(r.var_index("PASSWORD").is_some())) * (1 + logins.len())
        })
        .sum();
    let mut secrets = secret_layout::Layout::new(root, env_name, connection_variables);
    let bindings = consumers::bind(&consumers, &resources, &secrets);
    secrets.reserve_parameters(expected_parameters(&bindings, &resources, &logins_of, root, env));
    // A postgres resource's admin password and bootstrap, each login's password, a cache's token.
    let kind_count = |kind: Kind| resources.iter().filter(|r| r.spec.kind() == kind).count();
    let (databases, caches) = (kind_count(Kind::Postgres), kind_count(Kind::Cache));
    let logins: usize = logins_of.iter().map(Vec::len).sum();
    secrets.reserve_generated(resources.len(), databases + logins + caches, databases);
    let network = reach::Network::new(&bindings, &resources, &root.workloads, !product.members.is_empty());
    let expected = expected_items(product, &resources, env_name, catalogue);
    let room = (expected, resources.output_count());
    let mut cx = Cx::new(&root.product, env_name, env, catalogue, room, (secrets, network));
    cx.previews_from = preview.is_none() && root.previews.as_ref().is_some_and(|p| p.from == env_name);
    cx.preview = preview;
    cx.fingerprints = fingerprints;
    // The databases' bootstraps, then the workloads' migrations.
    cx.tasks.reserve_exact(databases + root.workloads.values().filter(|w| w.migrate.is_some()).count());

    // The items, in plan order: platform, resources, workloads.
    let platform = platform::lower(&mut cx, &root.workloads, &resources);
    let consumers_of = consumers::consumers_of(&resources, &consumers);
    let planned_resources: Lowered<PlannedResource> = (resources.iter().zip(consumers_of).zip(&logins_of))
        .map(|((r, consumers), logins)| lower_resource(&mut cx, r, (consumers, logins), &platform))
        .unzip();
    // The consumers and their logins are read by the resources alone: gone before the workloads
    // grow the plan to its largest (seventh pass: 1.5 MB at planning's peak, N = 10,000).
    drop((consumers, logins_of));
    let used = workload::Used { resources: &resources, items: &planned_resources.1 };
    // The databases' bootstraps run first: a migration logs in with its workload's own role.
    let mut tasks = std::mem::take(&mut cx.tasks);
    let workloads = workload::lower_all(&mut cx, &root.workloads, &bindings, &used, &platform, &mut tasks);
    // Who reaches what is read by the security groups alone (the workloads' are the last).
    drop(std::mem::take(&mut cx.network));
    key::lower(&mut cx);
    alerting::lower(&mut cx);
    budget::lower(&mut cx);
    // What only the lowering read goes before pricing, where the plan is largest (the peak).
    drop(resources);
    let mut plan = finish(cx, bindings, planned_resources, workloads);
    plan.tasks = tasks;
    Ok(plan)
}

/// Where the records' items are in the plan's item list, one range per record.
type Lowered<T> = (Vec<T>, Vec<Range<usize>>);

/// Lowers one resource by its kind into its items, outputs and variables; returns its record
/// (used by `consumers`) and where its items are in the plan's item list.
fn lower_resource(
    cx: &mut Cx,
    r: &Res,
    (consumers, logins): (Vec<CompactString>, &[consumers::Login]),
    platform: &Platform,
) -> (PlannedResource, Range<usize>) {
    let first_item = cx.items.len();
    let first_variable = cx.secrets.variable_count();
    let described = match &r.spec {
        ResourceSpec::Postgres { engine, version } => {
            postgres::lower(cx, r, (*engine, version), platform, logins)
        }
        ResourceSpec::Cache { version } => cache::lower(cx, r, version, platform),
        ResourceSpec::Queue { fifo, visibility_timeout, dead_letter } => {
            queue::lower(cx, r, *fifo, *visibility_timeout, *dead_letter)
        }
        ResourceSpec::Topic { fifo } => topic::lower(cx, r, *fifo),
        ResourceSpec::Bucket { versioning } => bucket::lower(cx, r, *versioning),
    };
    cx.secrets.order_variables(r, first_variable);
    let items = &cx.items[first_item..];
    let record = PlannedResource {
        name: r.name.clone(),
        kind: r.spec.kind(),
        origin: r.origin,
        size: r.size.clone(),
        physical_name: items.first().map(|i| i.physical_name.clone()).unwrap_or_default(),
        monthly: None,
        engine: described.engine,
        version: described.version,
        summary: described.summary.into(),
        items: items.iter().map(|i| i.id.clone()).collect(),
        consumers,
        restore_check: r.restore_check.clone(),
    };
    (record, first_item..cx.items.len())
}

/// What a resource's kind says about it in its record: engine, version and size in words.
struct Described {
    engine: CompactString,
    version: Option<CompactString>,
    summary: String,
}

/// The environment asked for, or the error naming the declared ones.
fn environment<'p>(product: &'p Product, env_name: &str) -> Result<&'p Environment, PlanError> {
    let environments = &product.root.environments;
    environments.get(env_name).ok_or_else(|| {
        let known: Vec<String> = environments.keys().cloned().collect();
        let suggestion = did_you_mean(env_name, known.iter().map(String::as_str)).map(str::to_owned);
        PlanError::UnknownEnvironment { env: env_name.to_owned(), known, suggestion }
    })
}

/// Makes physical names unique, prices the items and sums each resource's and workload's, and
/// assembles the plan.
fn finish(
    cx: Cx,
    bindings: Vec<Binding>,
    (mut resources, resource_items): Lowered<PlannedResource>,
    (mut workloads, workload_items): Lowered<PlannedWorkload>,
) -> Plan {
    let Cx {
        product,
        env_name,
        env,
        catalogue,
        mut items,
        prices,
        mut diagnostics,
        outputs,
        secrets,
        usage,
        ..
    } = cx;
    dedupe_physical_names(&mut items);
    // The layout first: its parameters are sorted before pricing adds the cost lines (the peak).
    let secrets = secrets.into_layout();
    let summary = summarize(catalogue, &env.region, &mut items, prices, env, env_name, &mut diagnostics);
    // The records' sums, once the items are priced: their ranges are freed before the lines are
    // made (seventh pass: 0.24 MB beside them at N = 10,000).
    for (r, range) in resources.iter_mut().zip(resource_items) {
        r.monthly = sum_items(&items[range], |i| i.monthly);
    }
    for (w, range) in workloads.iter_mut().zip(workload_items) {
        w.monthly = sum_items(&items[range.clone()], |i| i.monthly);
        w.ceiling = sum_items(&items[range], |i| i.ceiling);
    }
    let mut cost = summary.with_lines(&items);
    cost.usage = usage;
    alerting::attach(&items, &mut resources, &mut workloads);
    Plan {
        product: product.into(),
        environment: env_name.into(),
        region: env.region.as_str().into(),
        account: env.account.as_deref().map(Into::into),
        resources,
        workloads,
        bindings,
        cost,
        diagnostics,
        items,
        outputs,
        secrets,
        tags: tag_rules(product, env_name),
        apply_changes: protection::apply_changes(env_name, env.apply_changes),
        vpc_endpoints: env.network.endpoints,
        tasks: Vec::new(),
        preview: None,
    }
}

/// About how many items a plan of the product declares (room for all of them at once: a large
/// plan's item list is never copied while it grows, nor much larger than it needs): the
/// platform's, each resource's items by kind (declared and implicit `shared-<engine>` ones, at
/// their size in this environment: an Aurora cluster's instances, a cache's nodes), and each
/// workload's items in this environment, with their alarms when the environment has them.
fn expected_items(
    product: &Product,
    collected: &resources::Resources,
    env: &str,
    catalogue: &Catalogue,
) -> usize {
    // The kind of a declared resource, found among the collected ones (hashed with foldhash:
    // the product's own map's SipHash was 2% of planning, sixth pass).
    let declared_kind =
        |name: &str| collected.get(name).filter(|r| r.origin == Origin::Declared).map(|r| r.spec.kind());
    // Using a queue, topic or bucket grants the task role something (`identity.rs`).
    let granting = |name: &str| {
        declared_kind(name).is_some_and(|kind| match kind {
            Kind::Queue | Kind::Topic | Kind::Bucket => true,
            Kind::Postgres | Kind::Cache => false,
        })
    };
    let alarms = product
        .root
        .environments
        .get(env)
        .is_some_and(|e| e.alarms.enabled.unwrap_or(env == protection::PRODUCTION));
    // A consumer's own login on a postgres resource: a proxy secret each (`postgres.rs`).
    let postgres = |u: &String| declared_kind(u) == Some(Kind::Postgres);
    let workload_uses = product.root.workloads.values().flat_map(|w| &w.uses);
    let logins =
        workload_uses.chain(product.members.iter().flat_map(|m| &m.uses)).filter(|u| postgres(u)).count();
    // Seventh pass: the alarms as the alerting plans them (`alerting.rs`, `watch_item`): an
    // Aurora writer's four and its readers' lag alarm when it has more than one instance (six
    // were counted, one or two too many per cluster), three per cache
    // node (three per cache: 4,287 items short, and its list of 140,061 items was copied whole
    // to grow); an Aurora cluster's items are an RDS instance's with the cluster in the
    // instance's place, and its instances (one more was counted: 0.4 MB of room at dev's peak).
    let resources: usize = collected
        .iter()
        .map(|r| {
            let (items, watched) = match &r.spec {
                // Six, a group for the database and one for the proxy, the bootstrap's four.
                ResourceSpec::Postgres { engine: PostgresEngine::Rds, .. } => (12, 5),
                ResourceSpec::Postgres { engine: PostgresEngine::Aurora, .. } => {
                    let instances =
                        catalogue.postgres(PostgresEngine::Aurora, &r.size).map_or(1, |s| s.instances);
                    let instances = usize::try_from(instances).unwrap_or(1);
                    (12 + instances, 4 + usize::from(instances > 1))
                }
                ResourceSpec::Cache { .. } => {
                    let nodes = catalogue.cache(&r.size).map_or(1, |c| c.nodes);
                    (2, 3 * usize::try_from(nodes).unwrap_or(1))
                }
                ResourceSpec::Queue { dead_letter: Some(_), .. } => (2, 2),
                ResourceSpec::Queue { dead_letter: None, .. } => (1, 1),
                ResourceSpec::Topic { .. } | ResourceSpec::Bucket { .. } => (1, 0),
            };
            items + if alarms { watched } else { 0 }
        })
        .sum();
    // A log group, an execution role, a security group, a service and its task definition; a
    // task role when it uses a queue, topic or bucket; its discovery service (internal) or
    // target group, listener rule and DNS record (public), and a second target group and the
    // role moving traffic between them (a release strategy other than rolling, with its 5xx
    // alarm); a scaling target and policy when it scales in this environment; a registry
    // secret when its credentials are in Infisical; the task definition of its `migrate`; with
    // alarms, its service's CPU and memory alarms.
    let workloads: usize = product
        .root
        .workloads
        .values()
        .map(|w| {
            let scale = w.scale_in(env);
            5 + usize::from(w.uses.iter().any(|u| granting(u)))
                + usize::from(matches!(w.registry_credentials, Some(RegistryCredentials::Infisical(_))))
                + if w.expose == Expose::Public {
                    let two = usize::from(!w.deploy_in(env).is_rolling());
                    3 + 4 * usize::from(alarms) + two * (2 + usize::from(alarms))
                } else {
                    usize::from(w.port.is_some())
                }
                + {
                    let how = w.scaling_in(env);
                    let policies = how.on.as_ref().map_or(1, |o| 3 + o.queue.len());
                    if scale.max > scale.min || how.active.is_some() { 1 + policies } else { 0 }
                }
                + usize::from(w.migrate.is_some())
                + w.schedules.len()
                + 2 * usize::from(alarms)
        })
        .sum();
    // The platform, and its members' groups (one per port of an internal workload, 5432, 6379);
    // with alarms, the topic, the ALB's alarm and the ECS rule.
    let ports: BTreeSet<u16> = product.root.workloads.values().filter_map(|w| w.port).collect();
    13 + ports.len() + 3 * usize::from(alarms) + resources + logins + workloads
}

/// At most how many SSM parameters the plan references, so their list is never copied while it
/// grows (6 M instructions at N = 1,000) nor reserved far beyond its length (seventh pass: the
/// estimate was 10% high at N = 10,000, 0.8 MB of room held at planning's peak): each variable
/// of a resource a workload binds (shared by its workloads), a database's admin password and
/// endpoint (its bootstrap) and the token of a cache no workload binds (a bound one's is among
/// its variables); each variable of a workload's own login (its password is the one its
/// bootstrap reads), and a member's login's password (its bootstrap); the workloads' own
/// secrets; the alerts' endpoints.
fn expected_parameters(
    bindings: &[Binding],
    resources: &resources::Resources,
    logins_of: &[Vec<consumers::Login>],
    root: &runway_schema::Runway,
    env: &Environment,
) -> usize {
    let mut bound = vec![false; resources.len()];
    let mut count = 0;
    for b in bindings.iter().filter(|b| b.consumer_kind == ConsumerKind::Workload) {
        let Some(r) = resources.get(&b.resource) else { continue };
        // A login's are its own; a resource's are counted on its first binding.
        if b.login.is_some() || !std::mem::replace(&mut bound[r.index], true) {
            count += r.vars.len();
        }
    }
    let own: usize = resources
        .iter()
        .map(|r| match r.spec.kind() {
            Kind::Postgres => 2,
            Kind::Cache => usize::from(!bound[r.index]),
            Kind::Queue | Kind::Topic | Kind::Bucket => 0,
        })
        .sum();
    // Consumers are workloads first: a login of a later position is a member's.
    let workloads = root.workloads.len();
    let logins = logins_of.iter().flatten().filter(|l| l.index >= workloads).count();
    let secrets: usize = root.workloads.values().map(|w| w.secrets.len()).sum();
    count + own + logins + secrets + env.alarms.https.len()
}

/// The parts joined into one name (inline, without a heap allocation, up to 24 bytes: most ids
/// and names of a plan).
fn cat(parts: &[&str]) -> CompactString {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    if len <= INLINE {
        return parts.iter().copied().collect();
    }
    // Longer: one exact allocation, kept by the CompactString. Collecting grew it part by
    // part, reallocating and copying as it went (issue 45's profile).
    let mut out = String::with_capacity(len);
    for p in parts {
        out.push_str(p);
    }
    CompactString::from(out)
}

/// The longest text a `CompactString` holds inline (no heap allocation).
const INLINE: usize = std::mem::size_of::<CompactString>();

/// Exact sum of the figures of these items; `None` when any is unknown.
fn sum_items(items: &[PlannedItem], f: impl Fn(&PlannedItem) -> Option<Money>) -> Option<Money> {
    let mut total = Money::ZERO;
    // Usage-based items have no amount; they leave the sum whole (their rates are shown).
    for i in items.iter().filter(|i| i.pricing != Pricing::UsageBased) {
        // `pricing::add` keeps `Decimal`'s rule for zeros (most items are included in another's
        // price, at zero) without its general addition.
        total = crate::pricing::add(total, f(i)?);
    }
    Some(total)
}

/// Makes physical names unique: an item whose name an earlier item already has (possible only
/// when a name of the file spells another's derived name, such as a queue `x-proxy` beside a
/// postgres `x`) gets a hash of its logical id appended, cut to its kind's limit.
fn dedupe_physical_names(items: &mut [PlannedItem]) {
    // The common case, no repeat at all, is found with borrowed names (no copy of every name),
    // hashed: membership only, nothing is iterated in hash order.
    let mut names: std::collections::HashSet<&str, foldhash::fast::FixedState> =
        std::collections::HashSet::with_capacity_and_hasher(
            items.len(),
            foldhash::fast::FixedState::default(),
        );
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
            item.physical_name = match limit(item.kind()) {
                Some(l) => fit_with_suffix(&full, sfx, l),
                None => cat(&[&full, sfx]),
            };
            seen.insert(item.physical_name.clone());
        }
    }
}

/// `10000000` -> `10,000,000`.
pub(crate) fn group(n: u64) -> String {
    let s = compact_str::ToCompactString::to_compact_string(&n);
    // Digits and commas, in one allocation (fifth pass).
    let mut out = String::with_capacity(s.len() + s.len() / 3);
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

    #[test]
    fn cat_joins_inline_and_long_names_alike() {
        assert_eq!(cat(&[]), "");
        assert_eq!(cat(&["main-db", "_", "proxy"]), "main-db_proxy");
        let exact = "a".repeat(std::mem::size_of::<CompactString>());
        assert_eq!(cat(&[&exact[..10], &exact[10..]]), exact.as_str());
        let long = "/acme-shop/production/main-db/MAIN_DB_URL";
        assert_eq!(cat(&["/acme-shop/production", "/", "main-db", "/", "MAIN_DB_URL"]), long);
        assert_eq!(cat(&["é", "ü"]), "éü");
    }

    /// The shipped example (`examples/acme-shop`), loaded from the files built in.
    pub(crate) fn example() -> runway_schema::Product {
        let root = include_str!("../../../../examples/acme-shop/runway.yaml");
        let files = runway_schema::MemFiles::default()
            .with(
                "services/billing/runway.yaml",
                include_str!("../../../../examples/acme-shop/services/billing/runway.yaml"),
            )
            .with(
                "services/orders/runway.yaml",
                include_str!("../../../../examples/acme-shop/services/orders/runway.yaml"),
            )
            .with(
                "tools/reporting/runway.yaml",
                include_str!("../../../../examples/acme-shop/tools/reporting/runway.yaml"),
            );
        let c = Catalogue::builtin();
        let options = runway_schema::Options { sizes: c.size_names(), regions: c.regions() };
        let loaded = runway_schema::load("examples/acme-shop/runway.yaml", root.as_bytes(), &files, &options);
        loaded.product.unwrap()
    }

    /// The item list of every environment of a generated product is reserved once and at
    /// about its length: production's alarms (a cache's per node, an Aurora cluster's readers'
    /// only with readers) and Aurora's instances are counted as they are planned (the estimate
    /// was short in production, and its list copied whole to grow).
    #[test]
    fn the_expected_items_hold_every_generated_environment() {
        let files = synthetic::product(300);
        let mut mem = runway_schema::MemFiles::default();
        for (path, text) in &files[1..] {
            mem = mem.with(path, text.as_bytes().to_vec());
        }
        let c = Catalogue::builtin();
        let options = runway_schema::Options { sizes: c.size_names(), regions: c.regions() };
        let product =
            runway_schema::load("runway.yaml", files[0].1.as_bytes(), &mem, &options).product.unwrap();
        for env in synthetic::ENVIRONMENTS {
            let planned = plan(&product, env, &c).unwrap().items.len();
            let collected = resources::collect(&product, env, &product.root.environments[env]);
            let expected = expected_items(&product, &collected, env, &c);
            assert!(
                planned <= expected && expected <= planned + planned / 50,
                "{env}: {planned} items, {expected} expected"
            );
        }
    }

    /// The SSM parameters' list is reserved once, at its length: the estimate counts each
    /// parameter of the shipped example once in every environment (none read twice counted
    /// twice), and a preview's too.
    #[test]
    fn the_expected_parameters_are_the_parameters() {
        let product = example();
        let catalogue = Catalogue::builtin();
        for env in ["dev", "staging", "production"] {
            let e = &product.root.environments[env];
            let resources = resources::collect(&product, env, e);
            let consumers = consumers::consumers(&product, &resources);
            let logins_of = consumers::logins_of(&resources, &consumers);
            let layout = secret_layout::Layout::new(&product.root, env, 0);
            let bindings = consumers::bind(&consumers, &resources, &layout);
            let expected = expected_parameters(&bindings, &resources, &logins_of, &product.root, e);
            let planned = plan(&product, env, &catalogue).unwrap().secrets.ssm_parameters.len();
            assert_eq!(expected, planned, "{env}");
        }
    }

    /// The item list is reserved once: the estimate holds every item of the shipped example in
    /// each environment (alarms, bootstraps and logins included) without reserving far more.
    #[test]
    fn the_expected_items_hold_the_example_in_one_reservation() {
        let product = example();
        for env in ["dev", "staging", "production"] {
            let planned = plan(&product, env, &Catalogue::builtin()).unwrap().items.len();
            let e = &product.root.environments[env];
            let collected = resources::collect(&product, env, e);
            let expected = expected_items(&product, &collected, env, &Catalogue::builtin());
            // The platform part is estimated for every implicit shared resource: a constant.
            assert!(
                planned <= expected && expected <= planned + planned / 10 + 32,
                "{env}: {planned} items, {expected} expected"
            );
        }
    }
}
