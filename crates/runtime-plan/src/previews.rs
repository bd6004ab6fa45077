//! A pull request's preview (`previews:` of the root; docs/previews.md): the plan of a copy of
//! the product named `pr-<n>`, made from the `from` environment, that shares its costly
//! platform (network, NAT, ALB and HTTPS listener, cluster, Cloud Map namespace, key, database
//! instance and proxy, caches) and adds only what is its own: its tasks and their roles, log
//! groups and security groups, a listener rule and target group per public workload, its
//! queues, topics and buckets, a database `<db>_pr_<n>` with its consumers' logins, its
//! Infisical folder and SSM parameters. It is priced for what it adds only.
//!
//! How: the product is planned as if it declared an environment `pr-<n>` equal to `from` (the
//! same region, sizes and settings; its domain `pr-<n>.<from domain>`; its SSM prefix
//! `<from prefix>/previews/pr-<n>`; its Infisical environment the previews' own, a folder per
//! preview; the `from` environment's key), without the workloads previews leave out; then each
//! item the preview shares takes the `from` environment's physical name, is
//! [`ManagedBy::Shared`] and costs it nothing.

use compact_str::{CompactString, format_compact};
use cost::Catalogue;
use runway_schema::{Money, Previews, Product};

use crate::plan::{
    ItemKind, ManagedBy, Plan, PlannedItem, Preview, Pricing, SharedItem, TagRule, TagValue, Verdict,
};

/// The tag every item of a preview carries, its value `pr-<n>`: how the live previews and
/// their leftovers are found (with the `product` tag), never from a file that can drift.
pub const PREVIEW_TAG: &str = "runway-preview";
/// The tag naming the environment a preview comes from (`dev`).
pub const PREVIEW_FROM_TAG: &str = "runway-preview-from";

/// Why a preview cannot be planned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PreviewError {
    /// The root declares no `previews`.
    #[error(
        "the runway declares no `previews` (add `previews: {{ from: dev, limits: {{ monthly: 120 }} }}`)"
    )]
    NotDeclared,
    /// A pull request number of 0.
    #[error("pull request number {0} is not valid: write a number from 1")]
    InvalidNumber(u64),
    /// The `from` environment could not be planned.
    #[error(transparent)]
    Plan(#[from] crate::PlanError),
}

/// The name of pull request `pr`'s preview: `pr-<n>`.
pub fn preview_name(pr: u64) -> CompactString {
    format_compact!("pr-{pr}")
}

/// Plans pull request `pr`'s preview of `product` (which declares `previews`). Pure.
pub fn preview_plan(product: &Product, pr: u64, catalogue: &Catalogue) -> Result<Plan, PreviewError> {
    let previews = product.root.previews.as_ref().ok_or(PreviewError::NotDeclared)?;
    if pr == 0 {
        return Err(PreviewError::InvalidNumber(pr));
    }
    let from_plan = crate::plan(product, &previews.from, catalogue)?;
    let name = preview_name(pr);
    let (derived, preview) = derive(product, previews, pr, &name, &from_plan);
    let suffix = format!("_pr_{pr}");
    let databases = crate::lower::PreviewDatabases {
        suffix: &suffix,
        from: previews.from.as_str(),
        from_ssm_prefix: &from_plan.secrets.ssm_prefix,
    };
    let mut plan = crate::lower::plan_with(&derived, &name, catalogue, Some(databases), None)?;
    let shares = share(&mut plan, &from_plan, product);
    reprice(&mut plan, &previews.from, previews.monthly);
    plan.tags.push(TagRule { key: PREVIEW_TAG.into(), value: TagValue::Text { value: name.clone() } });
    plan.tags.push(TagRule {
        key: PREVIEW_FROM_TAG.into(),
        value: TagValue::Text { value: previews.from.as_str().into() },
    });
    let databases =
        plan.secrets.bootstraps.iter().map(|b| (b.resource.clone(), b.database.clone())).collect();
    plan.preview = Some(Preview { shares, databases, ..preview });
    Ok(plan)
}

/// The product as if it declared the preview's environment, and the preview's settings.
fn derive(
    product: &Product,
    previews: &Previews,
    pr: u64,
    name: &CompactString,
    from_plan: &Plan,
) -> (Product, Preview) {
    let mut derived = product.clone();
    let root = &mut derived.root;
    let from = previews.from.as_str();
    let mut env = root.environments[from].clone();
    env.domain = env.domain.as_ref().map(|d| format!("{name}.{d}"));
    // The pool is the cap (checked with the live previews by the command); the preview alone
    // is priced, not capped by `from`'s cap.
    env.monthly_limit = None;
    env.limit_at = None;
    env.increase_limit = None;
    let domain = env.domain.as_deref().map(CompactString::from);
    root.environments.insert(name.to_string(), env);
    for r in root.resources.values_mut() {
        if let Some(size) = r.size.get(from).cloned() {
            r.size.insert(name.to_string(), size);
        }
    }
    root.workloads.retain(|w, _| previews.runs(w));
    for w in root.workloads.values_mut() {
        if let Some(size) = w.size.get(from).cloned() {
            w.size.insert(name.to_string(), size);
        }
        if let Some(scale) = w.scale.get(from).cloned() {
            w.scale.insert(name.to_string(), scale);
        }
    }
    let ssm_prefix = format!("{}/previews/{name}", from_plan.secrets.ssm_prefix);
    root.secrets.ssm.prefix.clone_from(&ssm_prefix);
    // The `from` environment's key: the preview shares it, and plans none of its own.
    root.secrets.ssm.kms_key = Some(from_plan.secrets.kms_key.to_string());
    let folder = format!("/previews/{name}");
    if let Some(infisical) = root.secrets.infisical.as_mut() {
        infisical.environments.insert(name.to_string(), previews.infisical_environment.clone());
        infisical.path = format!("{folder}{}", infisical.path);
    }
    let left_out = (product.root.workloads.keys())
        .filter(|w| !previews.runs(w))
        .map(|w| CompactString::from(w.as_str()))
        .collect();
    let preview = Preview {
        pr,
        name: name.clone(),
        from: from.into(),
        domain,
        shares: Vec::new(),
        databases: Vec::new(),
        infisical_environment: previews.infisical_environment.as_str().into(),
        infisical_folder: folder.into(),
        ssm_prefix: ssm_prefix.into(),
        expire_after_seconds: previews.expire_after.as_secs(),
        max: previews.max,
        pool_cap: previews.monthly,
        left_out,
    };
    (derived, preview)
}

/// Does a preview share this item with its `from` environment? The environment's own items
/// (network, ALB and listener, cluster, namespace, endpoints, alerts, budget) and a database's
/// or cache's server side (instance or cluster, proxy, its admin secret and role, subnet group,
/// security group, alarms) are shared; a database's bootstrap and logins, and everything of a
/// queue, topic, bucket or workload are the preview's own.
fn shared_kind(item: &PlannedItem, product: &Product) -> bool {
    let Some(owner) = item.owner.as_deref() else { return true };
    let Some(resource) = product.root.resources.get(owner) else {
        // Implicit `shared-<engine>` resources follow their kind; workloads are their own.
        return owner == "shared-cache";
    };
    match resource.kind() {
        runway_schema::Kind::Cache => true,
        runway_schema::Kind::Postgres => postgres_server(item),
        runway_schema::Kind::Queue | runway_schema::Kind::Topic | runway_schema::Kind::Bucket => false,
    }
}

/// A postgres resource's server side, which a preview shares: not its bootstrap task nor its
/// consumers' logins (the kinds table's `database_server`; of the proxy's secrets, only the
/// admin's).
fn postgres_server(item: &PlannedItem) -> bool {
    let id = item.id.as_str();
    if id.contains("bootstrap") {
        return false;
    }
    if item.kind() == ItemKind::ProxySecret {
        return id.ends_with("_proxy-secret");
    }
    item.kind().database_server()
}

/// Marks the shared items: the `from` environment's physical names, [`ManagedBy::Shared`]
/// (the key and the VPC stay as they are looked up or given), and returns them.
fn share(plan: &mut Plan, from: &Plan, product: &Product) -> Vec<SharedItem> {
    let mut shares = Vec::new();
    let mut renamed: Vec<(CompactString, CompactString)> = Vec::new();
    for item in &mut plan.items {
        if !shared_kind(item, product) {
            continue;
        }
        if let Some(theirs) = from.item(&item.id) {
            renamed.push((item.physical_name.clone(), theirs.physical_name.clone()));
            item.physical_name.clone_from(&theirs.physical_name);
        }
        // The admin's proxy secret is `from`'s (named so by the lowering): the preview never
        // writes it, nor pays for it.
        let admin_secret = item.kind() == ItemKind::ProxySecret;
        if item.managed_by == ManagedBy::Pulumi || admin_secret {
            item.managed_by = ManagedBy::Shared;
        }
        shares.push(SharedItem {
            id: item.id.clone(),
            kind: item.kind(),
            physical_name: item.physical_name.clone(),
            owner: item.owner.clone(),
        });
    }
    // A one-off task waits for the shared proxy, by the `from` environment's name.
    for task in &mut plan.tasks {
        if let Some(proxy) = task.proxy.as_mut()
            && let Some((_, theirs)) = renamed.iter().find(|(ours, _)| ours == proxy)
        {
            proxy.clone_from(theirs);
        }
    }
    shares
}

/// Prices only what the preview adds: a shared item costs it nothing; the estimate, ceiling
/// and lines are the added items'; the cap is the pool's (a preview alone over the whole pool
/// is refused here; with the live previews, by `runway preview up`).
fn reprice(plan: &mut Plan, from: &str, pool_cap: Money) {
    let note: CompactString = format_compact!("shared with {from}");
    let mut shared_ids = std::collections::BTreeSet::new();
    for item in plan.items.iter_mut().filter(|i| i.managed_by == ManagedBy::Shared || shared_id(i)) {
        shared_ids.insert(item.id.clone());
        item.monthly = Some(Money::ZERO);
        item.ceiling = Some(Money::ZERO);
        item.pricing = Pricing::Included { note: note.clone() };
    }
    let cost = &mut plan.cost;
    cost.lines.retain(|l| !shared_ids.contains(&l.item));
    cost.usage_based.retain(|l| !shared_ids.contains(&l.item));
    cost.unpriced.retain(|u| !shared_ids.contains(&u.item));
    let added = plan.items.iter().filter(|i| !shared_ids.contains(&i.id));
    let (monthly, ceiling) = added.fold((Money::ZERO, Money::ZERO), |(m, c), i| {
        (m + i.monthly.unwrap_or(Money::ZERO), c + i.ceiling.unwrap_or(Money::ZERO))
    });
    cost.monthly = monthly;
    cost.ceiling = ceiling;
    cost.cap = Some(pool_cap);
    cost.verdict = if monthly.cents() > pool_cap.cents() {
        Verdict::Over
    } else if !cost.unpriced.is_empty() {
        Verdict::RefusedUnpriced
    } else {
        Verdict::Within
    };
    cost.refused = cost.verdict.refuses();
    for r in &mut plan.resources {
        r.monthly = Some(
            r.items
                .iter()
                .filter_map(|id| plan.items.iter().find(|i| i.id == *id))
                .fold(Money::ZERO, |m, i| m + i.monthly.unwrap_or(Money::ZERO)),
        );
    }
    // The `from` environment's own cap diagnostics do not apply; the pool's verdict does.
    plan.diagnostics.retain(|d| !matches!(d.code.as_str(), "uncapped" | "cap-exceeded" | "unpriced"));
}

/// Items the preview shares that it never declared anyway (the given VPC, the key looked up).
fn shared_id(item: &PlannedItem) -> bool {
    item.owner.is_none() && item.managed_by != ManagedBy::Pulumi
}

/// A proxy a preview shares with its `from` environment, and the preview's login secrets it
/// must admit: `runway preview up` adds them to the proxy's `auth`, `down` takes them out
/// (docs/previews.md, "The shared proxy's logins").
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SharedProxyLogins {
    /// The postgres resource (`main-db`).
    pub resource: CompactString,
    /// The `from` environment's proxy, by its name (`acme-shop-dev-main-db-proxy`).
    pub proxy: CompactString,
    /// The names of the preview's login secrets on it (`acme-shop/pr-7/main-db/proxy-api`),
    /// in plan order.
    pub secrets: Vec<CompactString>,
    /// What every login secret's name of the preview on it begins with, a consumer's that left
    /// since included (`acme-shop/pr-7/main-db/proxy-`): what `down` takes out.
    pub prefix: CompactString,
}

/// The proxies a preview's plan shares and its logins' secrets on each, in plan order; empty
/// for a declared environment's plan (its own program lists its logins in `auth`). Pure.
pub fn shared_proxy_logins(plan: &Plan) -> Vec<SharedProxyLogins> {
    let Some(preview) = &plan.preview else { return Vec::new() };
    let shared = plan.items.iter().filter(|i| i.managed_by == ManagedBy::Shared);
    let mut out = Vec::new();
    for item in shared {
        let crate::plan::ItemSpec::RdsProxy(spec) = &item.spec else { continue };
        out.push(SharedProxyLogins {
            resource: spec.resource.clone(),
            proxy: item.physical_name.clone(),
            secrets: (spec.logins.iter())
                .filter_map(|id| plan.item(id).map(|s| s.physical_name.clone()))
                .collect(),
            // As the lowering names a login's secret: `<product>/<env>/<resource>/proxy-<consumer>`.
            prefix: format_compact!("{}/{}/{}/proxy-", plan.product, preview.name, spec.resource),
        });
    }
    out
}

/// The plan of `env` as a command names it: a declared environment's, else, when the product
/// declares `previews` and `env` is `pr-<n>`, pull request `n`'s preview (so that every
/// command acting on an environment — `secrets prepare`, `emit`, `migrate`, `rollout`, `ssm`,
/// `runway deploy` — acts on a preview given `--env pr-<n>`). A declared environment wins.
pub fn plan_named(product: &Product, env: &str, catalogue: &Catalogue) -> Result<Plan, PreviewError> {
    let preview = crate::preview_pool::pr_of(env)
        .filter(|_| product.root.previews.is_some() && !product.root.environments.contains_key(env));
    match preview {
        Some(pr) => preview_plan(product, pr, catalogue),
        None => Ok(crate::plan(product, env, catalogue)?),
    }
}
