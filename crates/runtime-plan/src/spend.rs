//! The bill against the estimate (`runway spend`): a month's actual cost per `resource` tag
//! value set beside the plan's estimate of each resource, workload and the environment's
//! shared items, the totals against the cap, and for a difference over 20% the usage that
//! would explain it.
//!
//! Pure: the CLI reads the clock (which month) and the bill (the AWS adapter); this module
//! compares. The JSON shape, stable (fields are added, never renamed):
//! `{"environment","month","rows":[{"name","kind","estimate","actual","difference","hint"}],
//! "untagged","total":{"estimate","actual"},"cap","verdict","estimated","partial"}`; money as
//! decimal strings rounded to cents, as in the plan.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use compact_str::CompactString;
use indexmap::IndexMap;
use runway_schema::Money;
use rust_decimal::Decimal;
use serde::Serialize;

use crate::plan::{Plan, Pricing, UsageLine, Verdict};

/// The `resource` tag value of the environment's shared items (the platform: cluster, ALB,
/// endpoints, budget): what [`crate::PlannedItem::owner_name`] says for an item without owner.
pub const ENVIRONMENT_ROW: &str = "environment";

/// A difference is worth a hint when it is over this share of the estimate (20%).
const HINT_SHARE: Decimal = Decimal::from_parts(2, 0, 0, false, 1);

/// A calendar month, as `YYYY-MM`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Month {
    /// The year (1970 to 9999).
    pub year: u16,
    /// The month, 1 to 12.
    pub month: u8,
}

/// Why a month was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a month (write it as YYYY-MM, e.g. `2026-11`)")]
pub struct MonthError(pub String);

impl Month {
    /// Parses `YYYY-MM`.
    pub fn parse(text: &str) -> Result<Month, MonthError> {
        let bad = || MonthError(text.to_owned());
        let (y, m) = text.split_once('-').ok_or_else(bad)?;
        let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(y, 4) || !digits(m, 2) {
            return Err(bad());
        }
        let year: u16 = y.parse().map_err(|_| bad())?;
        let month: u8 = m.parse().map_err(|_| bad())?;
        if !(1970..=9999).contains(&year) || !(1..=12).contains(&month) {
            return Err(bad());
        }
        Ok(Month { year, month })
    }

    /// The month before.
    #[must_use]
    pub fn previous(self) -> Month {
        match self.month {
            1 => Month { year: self.year - 1, month: 12 },
            m => Month { year: self.year, month: m - 1 },
        }
    }

    /// The month after.
    #[must_use]
    pub fn next(self) -> Month {
        match self.month {
            12 => Month { year: self.year + 1, month: 1 },
            m => Month { year: self.year, month: m + 1 },
        }
    }

    /// Its first day, `YYYY-MM-01`.
    pub fn first_day(self) -> String {
        format!("{self}-01")
    }
}

impl fmt::Display for Month {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

impl Serialize for Month {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// What the bill says for one month of one environment: the cost under each value of the
/// `resource` tag (as Cost Explorer groups it), the cost without one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Actuals {
    /// `(tag value, amount)`, in the order the bill lists them.
    pub by_resource: Vec<(CompactString, Money)>,
    /// The cost with the `product` and `environment` tags but no (or an empty) `resource` tag.
    pub untagged: Money,
    /// The bill is not final yet (Cost Explorer's `Estimated`).
    pub estimated: bool,
    /// The month is not over: the actuals are month to date.
    pub partial: bool,
}

/// What a row of the report stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum RowKind {
    /// A resource of the plan.
    Resource,
    /// A workload of the plan.
    Workload,
    /// The environment's shared items (tag value `environment`).
    Environment,
    /// A tag value the plan does not name (a resource since removed, a tag set by hand).
    Unplanned,
}

impl RowKind {
    /// As the text shows it (`resource`, `workload`, `shared`, `not in the plan`).
    pub fn words(self) -> &'static str {
        match self {
            RowKind::Resource => "resource",
            RowKind::Workload => "workload",
            RowKind::Environment => "shared",
            RowKind::Unplanned => "not in the plan",
        }
    }
}

/// One row: a resource, a workload, the environment's shared items, or a tag value the plan
/// does not name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpendRow {
    /// The `resource` tag value: the resource or workload name, `environment`, or what the bill
    /// says.
    pub name: CompactString,
    /// What it stands for.
    pub kind: RowKind,
    /// The plan's estimate; `None` when unpriced or not in the plan.
    pub estimate: Option<Money>,
    /// What the bill says (zero when it names nothing under this value).
    pub actual: Money,
    /// `actual - estimate`, each rounded to cents as shown, when there is an estimate.
    pub difference: Option<Money>,
    /// For a difference over 20% of the estimate (the month over): what would explain it.
    pub hint: Option<Hint>,
}

/// What would explain a row's difference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Hint {
    /// Declaring one of these usages (each alone) would make the estimate match the bill.
    Usage {
        /// One per usage-based rate of the row's items, in plan order.
        matches: Vec<UsageMatch>,
        /// The declaration that would have matched, as written in the runway file
        /// (`environments.dev.usage.for.metabase.logs: 20`, from [`crate::usage_hint`]); `None`
        /// when no `usage` key covers the row's rates.
        setting: Option<String>,
        /// The same, as a person reads it.
        text: String,
    },
    /// No usage left out of the estimate explains it.
    Unexplained {
        /// Why, and where to look.
        text: String,
    },
}

impl Hint {
    /// The hint as a person reads it.
    pub fn text(&self) -> &str {
        match self {
            Hint::Usage { text, .. } | Hint::Unexplained { text } => text,
        }
    }
}

/// A usage that would match the bill: the quantity of one rate that the difference pays for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageMatch {
    /// The item billed by this rate.
    pub item: CompactString,
    /// The catalogue's price key (`logs-ingestion`).
    pub key: CompactString,
    /// What is charged (`CloudWatch Logs ingestion`).
    pub what: CompactString,
    /// The unit (`GB`).
    pub unit: CompactString,
    /// The price of one unit, exact.
    #[serde(serialize_with = "exact")]
    pub unit_price: Money,
    /// Units a month that cost the difference (rounded for reading).
    pub quantity: Decimal,
}

/// The estimate and the bill added up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SpendTotal {
    /// The plan's estimate ([`crate::CostSummary::monthly`]).
    pub estimate: Money,
    /// Everything the bill lists under the environment's tags, untagged spend included.
    pub actual: Money,
}

/// The `spend` report of one environment and month.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpendReport {
    /// The product.
    pub product: CompactString,
    /// The environment.
    pub environment: CompactString,
    /// The month read.
    pub month: Month,
    /// Resources (plan order), workloads (plan order), `environment`, then tag values the plan
    /// does not name (bill order).
    pub rows: Vec<SpendRow>,
    /// The cost without a `resource` tag.
    pub untagged: Money,
    /// The totals.
    pub total: SpendTotal,
    /// The environment's cap, when it has one.
    pub cap: Option<Money>,
    /// The actual total against the cap: `within`, `over` or `uncapped`.
    pub verdict: Verdict,
    /// The bill is not final yet (Cost Explorer marks it estimated).
    pub estimated: bool,
    /// The month is not over: the actuals are month to date, the estimates a whole month.
    pub partial: bool,
}

impl SpendReport {
    /// Is the actual total over the cap (exit 3)?
    pub fn over_cap(&self) -> bool {
        self.verdict == Verdict::Over
    }
}

/// Sets the bill beside the plan: one row per resource, workload and the environment's shared
/// items, then one per tag value the plan does not name; the totals against the cap.
pub fn spend_report(plan: &Plan, month: Month, actuals: &Actuals) -> SpendReport {
    // Each tag value once, amounts added, in bill order (a plan may have thousands of rows).
    let mut billed: IndexMap<&str, Money> = IndexMap::new();
    for (name, amount) in &actuals.by_resource {
        let sum = billed.entry(name.as_str()).or_insert(Money::ZERO);
        *sum = *sum + *amount;
    }
    let mut rows: Vec<SpendRow> = Vec::with_capacity(plan.resources.len() + plan.workloads.len() + 1);
    let planned = plan.resources.iter().map(|r| (&r.name, RowKind::Resource, r.monthly));
    let planned = planned.chain(plan.workloads.iter().map(|w| (&w.name, RowKind::Workload, w.monthly)));
    let environment = CompactString::const_new(ENVIRONMENT_ROW);
    let planned = planned.chain(std::iter::once((&environment, RowKind::Environment, shared_estimate(plan))));
    // The usage-based rates of each owner (`None`: the environment's), grouped once.
    let mut rates: BTreeMap<Option<&str>, Vec<&UsageLine>> = BTreeMap::new();
    for u in &plan.cost.usage_based {
        rates.entry(u.owner.as_deref()).or_default().push(u);
    }
    let mut named = BTreeSet::new();
    for (name, kind, estimate) in planned {
        named.insert(name.as_str());
        let actual = billed.get(name.as_str()).copied().unwrap_or(Money::ZERO);
        let owner = (kind != RowKind::Environment).then_some(name.as_str());
        let own = rates.get(&owner).map_or(&[][..], Vec::as_slice);
        let hint = estimate.filter(|_| !actuals.partial).and_then(|e| {
            hint_from(own, &plan.region, owner, e, actual).map(|h| with_setting(plan, owner, e, actual, h))
        });
        let difference = estimate.map(|e| actual.cents() - e.cents());
        rows.push(SpendRow { name: name.clone(), kind, estimate, actual, difference, hint });
    }
    for (name, actual) in billed.iter().filter(|(name, _)| !named.contains(*name)) {
        let (name, kind, actual) = ((*name).into(), RowKind::Unplanned, *actual);
        rows.push(SpendRow { name, kind, estimate: None, actual, difference: None, hint: None });
    }
    let actual: Money = actuals.by_resource.iter().map(|(_, m)| *m).sum::<Money>() + actuals.untagged;
    let cap = plan.cost.cap;
    let verdict = match cap {
        None => Verdict::Uncapped,
        Some(cap) if actual.cents() > cap.cents() => Verdict::Over,
        Some(_) => Verdict::Within,
    };
    SpendReport {
        product: plan.product.clone(),
        environment: plan.environment.clone(),
        month,
        rows,
        untagged: actuals.untagged,
        total: SpendTotal { estimate: plan.cost.monthly, actual },
        cap,
        verdict,
        estimated: actuals.estimated,
        partial: actuals.partial,
    }
}

/// The estimate of the environment's shared items (those without an owner), as a resource's
/// is summed: usage-based items leave it whole, an unpriced one makes it unknown.
fn shared_estimate(plan: &Plan) -> Option<Money> {
    let mut total = Money::ZERO;
    for item in plan.items.iter().filter(|i| i.owner.is_none() && i.pricing != Pricing::UsageBased) {
        total = total + item.monthly?;
    }
    Some(total)
}

/// The hint for a row whose `actual` is more than 20% away from its `estimate`, both rounded
/// to cents as shown (`None` when it is not): the quantity of each usage-based rate of the row's items (`owner`, `None` for the
/// environment's) that the difference pays for, or why no usage explains it.
pub fn hint(plan: &Plan, owner: Option<&str>, estimate: Money, actual: Money) -> Option<Hint> {
    let rates: Vec<&UsageLine> =
        plan.cost.usage_based.iter().filter(|u| u.owner.as_deref() == owner).collect();
    let hint = hint_from(&rates, &plan.region, owner, estimate, actual)?;
    Some(with_setting(plan, owner, estimate, actual, hint))
}

/// A usage hint with the declaration that would have matched ([`crate::usage_hint`]), which
/// counts every charge of that use (log ingestion and its storage): the one figure the text
/// shows then, `matches` keeping each rate alone.
fn with_setting(plan: &Plan, owner: Option<&str>, estimate: Money, actual: Money, mut hint: Hint) -> Hint {
    // `usage_hint` measures from the owner's items as the plan prices them: hand it the bill
    // that leaves the same difference as the row shows.
    let items: Money =
        plan.items.iter().filter(|i| i.owner.as_deref() == owner).filter_map(|i| i.monthly).sum();
    if let Hint::Usage { setting, text, .. } = &mut hint
        && let Some(u) = crate::usage_hint(plan, owner, items + (actual.cents() - estimate.cents()))
    {
        let declared = format!("{}: {}", u.setting, u.amount.normalize());
        *text = format!("declaring `{declared}` ({} a month) would match the bill", u.unit);
        *setting = Some(declared);
    }
    hint
}

/// [`hint`] with the row's usage-based rates at hand (`region` for the message).
fn hint_from(
    rates: &[&UsageLine],
    region: &str,
    owner: Option<&str>,
    estimate: Money,
    actual: Money,
) -> Option<Hint> {
    // Both as shown, to the cent: the hint explains the difference a person sees.
    let (estimate, actual) = (estimate.cents(), actual.cents());
    let difference = actual - estimate;
    if difference.0.abs() <= estimate.0 * HINT_SHARE || difference == Money::ZERO {
        return None;
    }
    let name = owner.unwrap_or(ENVIRONMENT_ROW);
    if difference.0.is_sign_negative() {
        return Some(Hint::Unexplained {
            text: format!(
                "under the estimate, which no usage explains (usage only adds cost): was an item of \
                 `{name}` created, stopped or scaled in during the month, or a credit applied?"
            ),
        });
    }
    let matches: Vec<UsageMatch> = rates
        .iter()
        .filter_map(|u| {
            let price = u.rate.unit_price.filter(|p| !p.0.is_zero())?;
            Some(UsageMatch {
                item: u.item.clone(),
                key: u.rate.key.as_ref().into(),
                what: u.rate.what.as_ref().into(),
                unit: u.rate.unit.as_ref().into(),
                unit_price: price,
                quantity: readable(difference.0 / price.0),
            })
        })
        .collect();
    if matches.is_empty() {
        let why = if rates.is_empty() {
            format!("no usage of `{name}` is billed outside the estimate")
        } else {
            format!("the usage-based rates of `{name}` have no price in {region}")
        };
        return Some(Hint::Unexplained {
            text: format!(
                "{why}: compare its sizes and task counts in the plan with the bill (Cost Explorer, \
                 tag resource = {name}, grouped by usage type)"
            ),
        });
    }
    let text = usage_text(&matches);
    Some(Hint::Usage { matches, setting: None, text })
}

/// `declaring usage of 20 GB a month of CloudWatch Logs ingestion (logs-ingestion at $0.5 per
/// GB), or ... would match the bill`.
fn usage_text(matches: &[UsageMatch]) -> String {
    let each: Vec<String> = matches
        .iter()
        .map(|m| {
            // `GB-month` is a month's quantity already.
            let a_month = if m.unit.ends_with("-month") { "" } else { " a month" };
            let price = exact_text(m.unit_price);
            format!("{} {}{a_month} of {} ({} at ${price} per {})", m.quantity, m.unit, m.what, m.key, m.unit)
        })
        .collect();
    format!("declaring usage of {} would match the bill", each.join(", or "))
}

/// A quantity rounded for reading: to 2 decimals, or 3 significant digits below 0.01.
fn readable(q: Decimal) -> Decimal {
    let two = q.round_dp(2);
    let shown = if two.is_zero() { q.round_sf(3).unwrap_or(two) } else { two };
    shown.normalize()
}

/// A unit price with every digit it has, as the plan shows it (`0.5`, `0.0000004`).
fn exact_text(m: Money) -> String {
    m.0.normalize().to_string()
}

/// Serializes a unit price with every digit ([`exact_text`]).
fn exact<S: serde::Serializer>(m: &Money, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&exact_text(*m))
}

#[cfg(test)]
mod tests {
    use super::{Month, readable};

    #[test]
    fn months_parse_and_step() {
        let m = Month::parse("2026-01").unwrap();
        assert_eq!(m.previous().to_string(), "2025-12");
        assert_eq!(m.next().first_day(), "2026-02-01");
        assert_eq!(Month::parse("2026-12").unwrap().next().to_string(), "2027-01");
        for bad in ["2026-13", "2026-00", "26-01", "2026-1", "2026/01", "", "2026-01-01", "１９９９-01"] {
            assert!(Month::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn quantities_read_as_a_person_would_write_them() {
        assert_eq!(readable("20.000".parse().unwrap()).to_string(), "20");
        assert_eq!(readable("333.3333333".parse().unwrap()).to_string(), "333.33");
        assert_eq!(readable("0.000123456".parse().unwrap()).to_string(), "0.000123");
    }
}
