//! Which declared usage would have made an owner's estimate match what AWS billed it: for
//! `runway spend`, which reads the month's bill back per `resource` tag and, where the actual
//! and the estimate differ by more than 20%, says what `usage` to declare.
//!
//! Pure arithmetic over the plan: the owner's items, the unit price of each of its charges
//! billed by use (a cost line's, when the plan counts an amount, else its rate in
//! `cost.usageBased`), and the amount the plan counts now (`cost.usage`, else 0).

use compact_str::CompactString;
use runway_schema::{Money, UsageKey};
use rust_decimal::Decimal;
use serde::Serialize;

use crate::plan::{ItemSpec, Plan};

/// The usage value that would have matched an owner's bill.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageHint {
    /// The resource or workload; `None` for the environment's own (data through NAT and
    /// endpoints, out to the internet).
    pub owner: Option<CompactString>,
    /// The `usage` key to declare.
    pub usage: UsageKey,
    /// The amount a month that would have matched, to the hundredth (a decimal string).
    pub amount: Decimal,
    /// Its unit (`GB ingested`).
    pub unit: &'static str,
    /// Where to write it (`environments.production.usage.for.metabase.logs`).
    pub setting: String,
}

/// The order keys are tried in: what a plan most often lacks first (log volume, Aurora I/O,
/// requests, data through NAT and out), the sizes' storage last.
const HINT_ORDER: [UsageKey; 7] = [
    UsageKey::Logs,
    UsageKey::AuroraIo,
    UsageKey::Requests,
    UsageKey::NatGb,
    UsageKey::InternetGb,
    UsageKey::EndpointGb,
    UsageKey::StorageGb,
];

/// The first `usage` key of `owner` (in [`HINT_ORDER`]: logs, auroraIo, requests, natGb,
/// internetGb, endpointGb, storageGb) whose amount would make the owner's estimate equal
/// `actual`: the amount the plan counts now plus the difference over its unit price. `None`
/// when the owner has no charge billed by use, none with a price, or the difference would need
/// a negative amount of every one.
pub fn usage_hint(plan: &Plan, owner: Option<&str>, actual: Money) -> Option<UsageHint> {
    let items: Vec<_> = plan.items.iter().filter(|i| i.owner.as_deref() == owner).collect();
    let estimate: Money = items.iter().filter_map(|i| i.monthly).sum();
    let difference = actual.0 - estimate.0;
    for key in HINT_ORDER {
        for item in &items {
            let Some(per_unit) = unit_price(plan, item.id.as_str(), &item.spec, key) else { continue };
            if per_unit.is_zero() {
                continue;
            }
            let now = plan
                .cost
                .usage
                .iter()
                .find(|u| u.item == item.id && u.usage == key)
                .map_or(Decimal::ZERO, |u| u.amount);
            let amount = (now + difference / per_unit).round_dp(2);
            if amount.is_sign_negative() {
                continue;
            }
            let at = match owner {
                Some(o) => format!("environments.{}.usage.for.{o}.{}", plan.environment, key.as_str()),
                None => format!("environments.{}.usage.{}", plan.environment, key.as_str()),
            };
            return Some(UsageHint {
                owner: owner.map(CompactString::from),
                usage: key,
                amount: amount.normalize(),
                unit: key.unit(),
                setting: at,
            });
        }
    }
    None
}

/// The price of one unit of `key` on an item: the unit price of its line or rate of the price
/// key the usage is billed by (log ingestion with the storage it keeps).
fn unit_price(plan: &Plan, item: &str, spec: &ItemSpec, key: UsageKey) -> Option<Decimal> {
    let price_of = |price_key: &str| {
        let line = plan.cost.lines.iter().find(|l| l.item == item && &*l.line.key == price_key);
        line.map(|l| l.line.unit_price.0).or_else(|| {
            let rate = plan.cost.usage_based.iter().find(|r| r.item == item && &*r.rate.key == price_key);
            rate.and_then(|r| r.rate.unit_price).map(|p| p.0)
        })
    };
    let keys: &[&str] = match key {
        UsageKey::Logs => {
            let ItemSpec::LogGroup { retention_days, .. } = spec else { return None };
            let stored = cost::stored_gb_months(Decimal::ONE, *retention_days);
            return Some(price_of("logs-ingestion")? + stored * price_of("logs-storage").unwrap_or_default());
        }
        UsageKey::Requests => &["sqs-standard", "sqs-fifo", "sns-standard", "sns-fifo", "s3-requests"],
        UsageKey::StorageGb => &["s3-standard", "aurora-storage"],
        UsageKey::AuroraIo => &["aurora-io"],
        // A release's second fleet shares its price keys with the service's own tasks: the
        // difference cannot be told apart, so no hint names releases.
        UsageKey::Releases => return None,
        UsageKey::NatGb => &["nat-gateway-gb"],
        UsageKey::EndpointGb => &["vpc-endpoint-gb"],
        UsageKey::InternetGb => &["internet-out-gb"],
    };
    keys.iter().find_map(|k| price_of(k))
}
