//! What the account holds that the plan does not say (`runway drift`), priced: resources tagged
//! with the product and environment that no plan item names, SSM parameters under the
//! environment's prefix that the plan does not list, and plan items whose live class, node type
//! or count differs from the plan's; each with its monthly difference, and the environment's
//! estimate with the drift against its cap.
//!
//! Pure: the adapters read the account into [`Observed`]; this module compares. What is
//! compared, and why only that (docs/operations.md, "Drift"):
//!
//! - an RDS instance's class and Multi-AZ, an Aurora instance's class
//!   (`DescribeDBInstances`), a cache's node type and node count (`DescribeReplicationGroups`)
//!   and an ECS service's desired count (`DescribeServices`): what is resized by hand during an
//!   incident and what the bill follows. A task's size lives in its task definition, which a
//!   console change replaces by a new revision: not compared here.
//! - a planned item that is not there at all is a finding too (its estimate is not spent).
//! - parameters under `<prefix>/runway/` are runway's own records (the deploy lease, one-off
//!   task records): never stray.
//!
//! The JSON shape, stable (fields are added, never renamed): `{"product","environment",
//! "findings":[{"kind","subject","owner","what","planned","live","monthly","note"}],
//! "estimate","drifted","cap","overCap","unpriced"}`; money as decimal strings rounded to cents.

use compact_str::CompactString;
use cost::{Catalogue, HOURS_PER_MONTH, Item, PriceStatus};
use runway_schema::{Architecture, Money};
use rust_decimal::Decimal;
use serde::Serialize;

use crate::plan::{ItemSpec, Plan, PlannedItem};

/// What the account holds for one environment, as the adapters read it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Observed {
    /// Every resource the Resource Groups Tagging API lists under the environment's `product`
    /// and `environment` tags.
    pub tagged: Vec<TaggedResource>,
    /// Every SSM parameter under the environment's prefix.
    pub parameters: Vec<ObservedParameter>,
    /// The account's RDS and Aurora DB instances.
    pub databases: Vec<LiveDatabase>,
    /// The account's ElastiCache replication groups.
    pub caches: Vec<LiveCache>,
    /// The environment's ECS services found in its cluster.
    pub services: Vec<LiveService>,
}

/// A resource carrying the environment's tags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaggedResource {
    /// Its ARN.
    pub arn: CompactString,
    /// Its `resource` tag, when it has one.
    pub resource_tag: Option<CompactString>,
    /// Its `runway-item` tag, when it has one.
    pub item_tag: Option<CompactString>,
}

/// An SSM parameter under the environment's prefix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObservedParameter {
    /// Its name.
    pub name: CompactString,
    /// Advanced tier (charged a month; the standard tier is free).
    pub advanced: bool,
}

/// A DB instance as `DescribeDBInstances` tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveDatabase {
    /// The DB instance identifier.
    pub identifier: CompactString,
    /// Its class (`db.t4g.micro`).
    pub instance_class: CompactString,
    /// The engine (`postgres`, `aurora-postgresql`).
    pub engine: CompactString,
    /// Multi-AZ (a standby doubles the instance-hours).
    pub multi_az: bool,
}

/// A replication group as `DescribeReplicationGroups` tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveCache {
    /// The replication group id.
    pub id: CompactString,
    /// Its node type (`cache.t4g.micro`).
    pub node_type: CompactString,
    /// Its nodes (member clusters).
    pub nodes: u32,
}

/// An ECS service as `DescribeServices` tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveService {
    /// The service name.
    pub name: CompactString,
    /// Its desired count.
    pub desired_count: u32,
}

/// What kind of drift a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DriftKind {
    /// A resource carrying the environment's tags that no plan item names.
    Unplanned,
    /// An SSM parameter under the environment's prefix that the plan does not list.
    StrayParameter,
    /// A plan item whose class, node type or count differs.
    Resized,
    /// A plan item that is not there.
    Missing,
}

impl DriftKind {
    /// As the text names it.
    pub fn words(self) -> &'static str {
        match self {
            DriftKind::Unplanned => "unplanned",
            DriftKind::StrayParameter => "stray parameter",
            DriftKind::Resized => "resized",
            DriftKind::Missing => "missing",
        }
    }
}

/// One difference between the plan and the account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DriftFinding {
    /// What kind of drift.
    pub kind: DriftKind,
    /// The ARN, parameter name or item id.
    pub subject: CompactString,
    /// The resource or workload it belongs to (`environment` for shared items), when known.
    pub owner: Option<CompactString>,
    /// What differs or what it is (`instance class`, `RDS instance`).
    pub what: CompactString,
    /// The plan's value, when the plan has one.
    pub planned: Option<CompactString>,
    /// The account's value, when there is one.
    pub live: Option<CompactString>,
    /// What it adds to (or takes from) the month; `None` when it cannot be priced.
    pub monthly: Option<Money>,
    /// How it was priced, or why it could not be.
    pub note: CompactString,
}

/// The drift of one environment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DriftReport {
    /// The product.
    pub product: CompactString,
    /// The environment.
    pub environment: CompactString,
    /// Every difference, in the order: resized and missing items (plan order), unplanned
    /// resources (by ARN), stray parameters (by name).
    pub findings: Vec<DriftFinding>,
    /// The plan's monthly estimate.
    pub estimate: Money,
    /// The estimate with every priced difference added.
    pub drifted: Money,
    /// The environment's cap.
    pub cap: Option<Money>,
    /// Whether the drifted estimate is over the cap.
    pub over_cap: bool,
    /// Findings that could not be priced (the drifted estimate leaves them out).
    pub unpriced: usize,
}

impl DriftReport {
    /// Whether the account differs from the plan (exit 1).
    pub fn drifted(&self) -> bool {
        !self.findings.is_empty()
    }
}

/// Compares the account as read with the plan, and prices each difference with `catalogue`.
pub fn drift(plan: &Plan, catalogue: &Catalogue, observed: &Observed) -> DriftReport {
    let prices = Prices { catalogue, region: &plan.region };
    let mut findings = Vec::new();
    for item in &plan.items {
        findings.extend(item_drift(plan, item, observed, &prices));
    }
    let mut unplanned: Vec<&TaggedResource> =
        observed.tagged.iter().filter(|t| !names_an_item(plan, t) && !is_parameter(&t.arn)).collect();
    unplanned.sort_by(|a, b| a.arn.cmp(&b.arn));
    findings.extend(unplanned.into_iter().map(|t| unplanned_finding(t, observed, &prices)));
    let mut stray: Vec<&ObservedParameter> =
        observed.parameters.iter().filter(|p| is_stray(plan, &p.name)).collect();
    stray.sort_by(|a, b| a.name.cmp(&b.name));
    findings.extend(stray.into_iter().map(stray_finding));
    let estimate = plan.cost.monthly;
    let drifted = estimate + findings.iter().filter_map(|f| f.monthly).sum::<Money>();
    let cap = plan.cost.cap;
    DriftReport {
        product: plan.product.clone(),
        environment: plan.environment.clone(),
        unpriced: findings.iter().filter(|f| f.monthly.is_none()).count(),
        findings,
        estimate,
        drifted,
        cap,
        over_cap: cap.is_some_and(|c| drifted.cents() > c.cents()),
    }
}

/// Unit prices from the catalogue's table of the plan's region.
struct Prices<'a> {
    catalogue: &'a Catalogue,
    region: &'a str,
}

impl Prices<'_> {
    /// The price of one unit of `key`, when the catalogue has one.
    fn unit(&self, key: &str) -> Option<Money> {
        match self.catalogue.price_table(self.region)?.get(key).map(|e| &e.status) {
            Some(PriceStatus::Priced { price, .. }) => Some(*price),
            Some(PriceStatus::Unpriced { .. }) | None => None,
        }
    }

    /// A month of `count` units billed by the hour under `key`.
    fn hours(&self, key: &str, count: u32) -> Option<Money> {
        self.unit(key).map(|p| p.times(Decimal::from(HOURS_PER_MONTH) * Decimal::from(count)))
    }

    /// The difference between a month of `live` and of `planned` hourly units.
    fn hourly_difference(&self, planned: (&str, u32), live: (&str, u32)) -> (Option<Money>, CompactString) {
        match (self.hours(planned.0, planned.1), self.hours(live.0, live.1)) {
            (Some(p), Some(l)) => {
                (Some(l - p), format!("{} x {} against {} x {}", live.1, live.0, planned.1, planned.0).into())
            }
            (_, None) => (None, format!("no price `{}` in {} in the catalogue", live.0, self.region).into()),
            (None, Some(_)) => {
                (None, format!("no price `{}` in {} in the catalogue", planned.0, self.region).into())
            }
        }
    }

    /// A month of `tasks` Fargate tasks of a workload size.
    fn tasks(&self, size: &str, tasks: u32, architecture: Architecture) -> Option<Money> {
        self.catalogue.price(self.region, &Item::Tasks { size, tasks, architecture }).monthly()
    }
}

/// The drift of one plan item whose live size the adapters read; nothing for other kinds.
fn item_drift(
    plan: &Plan,
    item: &PlannedItem,
    observed: &Observed,
    prices: &Prices<'_>,
) -> Option<DriftFinding> {
    let compared = Compared { item, observed, prices };
    compared
        .rds()
        .or_else(|| compared.aurora())
        .or_else(|| compared.cache())
        .or_else(|| compared.service(plan))
}

/// One plan item, the account as read and the prices: the comparisons of each kind read.
struct Compared<'a> {
    item: &'a PlannedItem,
    observed: &'a Observed,
    prices: &'a Prices<'a>,
}

impl Compared<'_> {
    /// A finding about the item: resized when there is a live value, else missing.
    fn finding(
        &self,
        what: &str,
        planned: String,
        live: Option<String>,
        priced: (Option<Money>, CompactString),
    ) -> Option<DriftFinding> {
        Some(DriftFinding {
            kind: if live.is_some() { DriftKind::Resized } else { DriftKind::Missing },
            subject: self.item.id.clone(),
            owner: Some(self.item.owner_name().into()),
            what: what.into(),
            planned: Some(planned.into()),
            live: live.map(Into::into),
            monthly: priced.0,
            note: priced.1,
        })
    }

    /// A missing item: its estimate is not spent.
    fn missing(&self, what: &str, planned: String) -> Option<DriftFinding> {
        let monthly = self.item.monthly.map(|m| Money(-m.0));
        self.finding(what, planned, None, (monthly, "the plan's estimate of it, not spent".into()))
    }

    /// An RDS instance: its class and Multi-AZ.
    fn rds(&self) -> Option<DriftFinding> {
        let ItemSpec::RdsInstance(spec) = &self.item.spec else { return None };
        let planned = spec.size.instance_class.as_str();
        let shown = |class: &str, multi: bool| format!("{class}{}", if multi { " Multi-AZ" } else { "" });
        let Some(live) = database(self.observed, &self.item.physical_name) else {
            return self.missing("RDS instance", shown(planned, spec.size.multi_az));
        };
        if live.instance_class == planned && live.multi_az == spec.size.multi_az {
            return None;
        }
        let copies = |multi: bool| if multi { 2 } else { 1 };
        let (p, l) = (format!("rds-instance/{planned}"), format!("rds-instance/{}", live.instance_class));
        self.finding(
            "instance class",
            shown(planned, spec.size.multi_az),
            Some(shown(&live.instance_class, live.multi_az)),
            self.prices.hourly_difference((&p, copies(spec.size.multi_az)), (&l, copies(live.multi_az))),
        )
    }

    /// An Aurora instance: its class.
    fn aurora(&self) -> Option<DriftFinding> {
        let ItemSpec::AuroraInstance { instance_class, .. } = &self.item.spec else { return None };
        let Some(live) = database(self.observed, &self.item.physical_name) else {
            return self.missing("Aurora instance", instance_class.to_string());
        };
        if live.instance_class == *instance_class {
            return None;
        }
        let (p, l) =
            (format!("aurora-instance/{instance_class}"), format!("aurora-instance/{}", live.instance_class));
        self.finding(
            "instance class",
            instance_class.to_string(),
            Some(live.instance_class.to_string()),
            self.prices.hourly_difference((&p, 1), (&l, 1)),
        )
    }

    /// A cache: its node type and node count.
    fn cache(&self) -> Option<DriftFinding> {
        let ItemSpec::CacheReplicationGroup(spec) = &self.item.spec else { return None };
        let planned = format!("{} x {}", spec.size.nodes, spec.size.node_type);
        let Some(live) = self.observed.caches.iter().find(|c| c.id == self.item.physical_name) else {
            return self.missing("cache", planned);
        };
        if live.node_type == spec.size.node_type && live.nodes == spec.size.nodes {
            return None;
        }
        let (p, l) =
            (format!("cache-node/{}", spec.size.node_type), format!("cache-node/{}", live.node_type));
        self.finding(
            "node type and count",
            planned,
            Some(format!("{} x {}", live.nodes, live.node_type)),
            self.prices.hourly_difference((&p, spec.size.nodes), (&l, live.nodes)),
        )
    }

    /// An ECS service: its desired count, priced as tasks of its workload's size.
    fn service(&self, plan: &Plan) -> Option<DriftFinding> {
        let ItemSpec::EcsService(spec) = &self.item.spec else { return None };
        let planned = spec.desired_count;
        let Some(live) = self.observed.services.iter().find(|s| s.name == self.item.physical_name) else {
            return self.missing("ECS service", format!("{planned} tasks"));
        };
        if live.desired_count == planned {
            return None;
        }
        let workload = plan.workloads.iter().find(|w| w.name == spec.workload);
        let priced = workload.and_then(|w| {
            let now = self.prices.tasks(&w.size, live.desired_count, w.platform)?;
            let then = self.prices.tasks(&w.size, planned, w.platform)?;
            Some((now - then, format!("{} tasks of size {} against {planned}", live.desired_count, w.size)))
        });
        let priced = match priced {
            Some((m, n)) => (Some(m), n.into()),
            None => (None, "the workload's size has no price in the catalogue".into()),
        };
        self.finding(
            "desired count",
            format!("{planned} tasks"),
            Some(format!("{} tasks", live.desired_count)),
            priced,
        )
    }
}

/// The live DB instance of that identifier.
fn database<'o>(observed: &'o Observed, identifier: &str) -> Option<&'o LiveDatabase> {
    observed.databases.iter().find(|d| d.identifier == identifier)
}

/// Whether a tagged resource is one of the plan's items: its `runway-item` tag names one; or,
/// without that tag (what `secrets prepare` makes carries `product`, `environment` and
/// `resource` only), the environment's KMS key when the plan has one, a Secrets Manager secret
/// whose name (without the six characters AWS appends) is an item's, or anything else whose
/// ARN ends with an item's physical name.
pub(crate) fn names_an_item(plan: &Plan, tagged: &TaggedResource) -> bool {
    if let Some(id) = &tagged.item_tag {
        return plan.item(id).is_some();
    }
    let arn = tagged.arn.as_str();
    let kind = arn_service_and_type(arn);
    if kind == Some(("kms", "key")) {
        return plan.items.iter().any(|i| matches!(i.spec, ItemSpec::KmsKey { .. }));
    }
    if kind == Some(("secretsmanager", "secret")) {
        let resource = arn.splitn(6, ':').nth(5).unwrap_or(arn);
        let name = resource.strip_prefix("secret:").unwrap_or(resource);
        let bare = name.rsplit_once('-').filter(|(_, tail)| tail.len() == 6).map_or(name, |(head, _)| head);
        return plan.items.iter().any(|i| i.physical_name == name || i.physical_name == bare);
    }
    let name = arn_name(arn);
    plan.items.iter().any(|i| i.physical_name == name || arn_name(&i.physical_name) == name)
}

/// SSM parameters are compared by name under the prefix ([`is_stray`]), not by their tags.
pub(crate) fn is_parameter(arn: &str) -> bool {
    arn_service_and_type(arn).is_some_and(|(service, kind)| service == "ssm" && kind == "parameter")
}

/// Whether a parameter under the prefix is one the plan does not list (runway's own records
/// under `<prefix>/runway/` are not).
fn is_stray(plan: &Plan, name: &str) -> bool {
    let own = format!("{}/runway/", plan.secrets.ssm_prefix);
    !name.starts_with(&own) && !plan.secrets.ssm_parameters.iter().any(|p| *p.name == *name)
}

/// The last part of an ARN (`db:main` -> `main`, `service/cluster/api` -> `api`).
fn arn_name(arn: &str) -> &str {
    let resource = arn.splitn(6, ':').nth(5).unwrap_or(arn);
    resource.rsplit(['/', ':']).next().unwrap_or(resource)
}

/// `(service, resource type)` of an ARN (`("rds", "db")`, `("ecs", "service")`).
fn arn_service_and_type(arn: &str) -> Option<(&str, &str)> {
    let mut parts = arn.splitn(6, ':');
    let service = parts.nth(2)?;
    let resource = parts.nth(2)?;
    let kind = resource.split(['/', ':']).next()?;
    Some((service, kind))
}

/// An unplanned resource, priced where the catalogue prices its kind.
fn unplanned_finding(tagged: &TaggedResource, observed: &Observed, prices: &Prices<'_>) -> DriftFinding {
    let name = arn_name(&tagged.arn);
    let (what, live, monthly, note): (String, Option<String>, Option<Money>, String) =
        match arn_service_and_type(&tagged.arn) {
            Some(("rds", "db")) => match database(observed, name) {
                Some(d) => {
                    let prefix =
                        if d.engine.starts_with("aurora") { "aurora-instance" } else { "rds-instance" };
                    let key = format!("{prefix}/{}", d.instance_class);
                    let copies = if d.multi_az { 2 } else { 1 };
                    let note = format!("{copies} x {key} for a month");
                    (
                        "DB instance".into(),
                        Some(d.instance_class.to_string()),
                        prices.hours(&key, copies),
                        note,
                    )
                }
                None => ("DB instance".into(), None, None, "not found by DescribeDBInstances".into()),
            },
            Some(("elasticache", "replicationgroup")) => {
                match observed.caches.iter().find(|c| c.id == name) {
                    Some(c) => {
                        let key = format!("cache-node/{}", c.node_type);
                        let live = format!("{} x {}", c.nodes, c.node_type);
                        (
                            "cache".into(),
                            Some(live),
                            prices.hours(&key, c.nodes),
                            format!("{} x {key} for a month", c.nodes),
                        )
                    }
                    None => ("cache".into(), None, None, "not found by DescribeReplicationGroups".into()),
                }
            }
            Some(("secretsmanager", "secret")) => {
                ("secret".into(), None, prices.unit("secret"), "a secret-month".into())
            }
            Some((service, kind)) => (
                format!("{service} {kind}"),
                None,
                None,
                format!("the catalogue prices no {service} {kind}: see `runway spend`"),
            ),
            None => ("resource".into(), None, None, "not an ARN runway reads".into()),
        };
    let note = match monthly {
        Some(_) => note,
        None if note.starts_with("the catalogue") || note.starts_with("not ") => note,
        None => format!("{note}; no price in the catalogue"),
    };
    DriftFinding {
        kind: DriftKind::Unplanned,
        subject: tagged.arn.clone(),
        owner: tagged.resource_tag.clone(),
        what: what.into(),
        planned: None,
        live: live.map(Into::into),
        monthly,
        note: note.into(),
    }
}

/// A stray parameter: the standard tier is free, the advanced tier is not in the catalogue.
fn stray_finding(p: &ObservedParameter) -> DriftFinding {
    let (monthly, note) = if p.advanced {
        (None, "advanced tier: charged a month, no price in the catalogue")
    } else {
        (Some(Money(Decimal::ZERO)), "standard tier: no charge")
    };
    DriftFinding {
        kind: DriftKind::StrayParameter,
        subject: p.name.clone(),
        owner: None,
        what: "SSM parameter".into(),
        planned: None,
        live: Some(if p.advanced { "advanced" } else { "standard" }.into()),
        monthly,
        note: note.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::{arn_name, arn_service_and_type};

    #[test]
    fn arns_give_their_service_type_and_name() {
        assert_eq!(
            arn_name("arn:aws:rds:us-east-1:123456789012:db:acme-shop-dev-main-db"),
            "acme-shop-dev-main-db"
        );
        assert_eq!(arn_name("arn:aws:ecs:us-east-1:1:service/cluster/api"), "api");
        assert_eq!(
            arn_service_and_type("arn:aws:ecs:us-east-1:1:service/cluster/api"),
            Some(("ecs", "service"))
        );
        assert_eq!(arn_service_and_type("arn:aws:rds:us-east-1:1:db:x"), Some(("rds", "db")));
        assert_eq!(arn_service_and_type("arn:aws:ssm:us-east-1:1:parameter/a/b"), Some(("ssm", "parameter")));
        assert_eq!(arn_service_and_type("nonsense"), None);
    }
}
