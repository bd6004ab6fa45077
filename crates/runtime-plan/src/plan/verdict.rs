//! The cost of a plan: its priced and usage lines, unpriced items, and the cap's verdict.

use compact_str::CompactString;
use cost::Line;
use runway_schema::{Money, UsageKey};
use rust_decimal::Decimal;
use serde::Serialize;

/// The verdict of the cost check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    /// The shown estimate is at or under the cap.
    Within,
    /// The shown estimate is over the cap.
    Over,
    /// The shown estimate is at or under the cap, but some items cannot be priced: a plan
    /// under a cap must be fully priced, so it is refused.
    #[serde(rename = "refused-unpriced")]
    RefusedUnpriced,
    /// No cap.
    Uncapped,
}

impl Verdict {
    /// As shown (`within`, `over`, `refused-unpriced`, `uncapped`), in text and JSON alike.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Within => "within",
            Verdict::Over => "over",
            Verdict::RefusedUnpriced => "refused-unpriced",
            Verdict::Uncapped => "uncapped",
        }
    }

    /// Does the cost check itself refuse the plan (over, or unpriced under a cap)?
    pub fn refuses(self) -> bool {
        matches!(self, Verdict::Over | Verdict::RefusedUnpriced)
    }

    /// The verdict as a person reads it: its word, then `, refused` when the plan is refused
    /// (exit 3) and the word does not already say so.
    pub fn text(self, refused: bool) -> String {
        if refused && self != Verdict::RefusedUnpriced {
            format!("{}, refused", self.as_str())
        } else {
            self.as_str().to_owned()
        }
    }
}

/// One priced line of one item.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CostLine {
    /// Logical id of the item.
    pub item: CompactString,
    /// The resource or workload it belongs to.
    pub owner: Option<CompactString>,
    /// The catalogue's line.
    #[serde(flatten)]
    pub line: Line,
}

/// One rate of a usage-based item: shown with its unit price, never added to the estimate.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageLine {
    /// Logical id of the item.
    pub item: CompactString,
    /// The resource or workload it belongs to.
    pub owner: Option<CompactString>,
    /// The catalogue's rate.
    #[serde(flatten)]
    pub rate: cost::Rate,
}

/// Where an amount of use the estimate counts comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum UsageSource {
    /// The environment's `usage` declares it.
    Declared,
    /// The item's size assumes it (the catalogue's requests or storage of the size).
    Default,
}

impl UsageSource {
    /// As shown (`declared`, `default`), in text and JSON alike.
    pub fn as_str(self) -> &'static str {
        match self {
            UsageSource::Declared => "declared",
            UsageSource::Default => "default",
        }
    }
}

/// One amount of use the estimate counts: what, of which item, how much, and where it comes
/// from. JSON: `{"owner", "item", "usage", "amount", "unit", "source", "from"}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageAssumption {
    /// The resource or workload; `None` for the environment's own (data through NAT, endpoints,
    /// out to the internet).
    pub owner: Option<CompactString>,
    /// Logical id of the item it prices.
    pub item: CompactString,
    /// The `usage` key (`logs`, `requests`, `storageGb`, `auroraIo`, `natGb`, `endpointGb`,
    /// `internetGb`).
    pub usage: UsageKey,
    /// How much a month, in `unit`, exact (a decimal string in JSON).
    pub amount: Decimal,
    /// The unit of the amount (`million requests`, `GB ingested`).
    pub unit: &'static str,
    /// Declared in the file, or the default of the item's size.
    pub source: UsageSource,
    /// Where: the file's key (`environments.production.usage.for.jobs.requests`) or the size
    /// (`size medium`).
    pub from: CompactString,
}

/// An item the catalogue cannot price.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnpricedItem {
    /// Logical id.
    pub item: CompactString,
    /// Physical name.
    pub physical_name: CompactString,
    /// Why.
    pub reason: CompactString,
}

/// The cost of a plan.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CostSummary {
    /// Exact sum of the priced lines (workloads at `scale.min`, within their active hours: the
    /// floor); shown rounded to cents.
    pub monthly: Money,
    /// Exact sum with every workload at its typical count (midway between `scale.min` and
    /// `scale.max`, rounded up) within its active hours; `None` where it equals `monthly`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typical: Option<Money>,
    /// Exact sum at `scale.max`.
    pub ceiling: Money,
    /// The cap (explicit or default), when there is one.
    pub cap: Option<Money>,
    /// Which figure the cap refuses on (`limits.on`); the floor, `monthly`, by default.
    #[serde(skip_serializing_if = "is_floor")]
    pub cap_on: runway_schema::CapOn,
    /// Within, over, refused-unpriced or uncapped: the cost check's verdict.
    pub verdict: Verdict,
    /// Items the catalogue cannot price.
    pub unpriced: Vec<UnpricedItem>,
    /// Lines of the estimate, in item order.
    pub lines: Vec<CostLine>,
    /// Rates of what is billed by a use nobody declared (and no size assumes), in item order:
    /// not in the estimate.
    pub usage_based: Vec<UsageLine>,
    /// The amounts of use the estimate counts, declared or the sizes' defaults, in item order.
    pub usage: Vec<UsageAssumption>,
    /// The plan may not be applied: over the cap, or unpriced under a cap.
    pub refused: bool,
}

/// The default `limits.on`, left out of the JSON form.
fn is_floor(on: &runway_schema::CapOn) -> bool {
    *on == runway_schema::CapOn::Floor
}
