//! Pricing the planned items, the cap check and its diagnostics.

use cost::{Catalogue, Item, Priced};
use runway_schema::{Architecture, Code, Diagnostic, Environment, Money, PostgresEngine};
use rust_decimal::Decimal;

use crate::plan::{CostLine, CostSummary, PlannedItem, Pricing, UnpricedItem, UsageLine, Verdict};

/// An owned description of what to ask the catalogue for an item: its size and the amounts of
/// use the plan assumes (`None`: the size's, or billed by use and not counted).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Priceable {
    Postgres {
        engine: PostgresEngine,
        size: String,
        storage_gb: Option<Decimal>,
        io: Option<Decimal>,
    },
    RdsProxy {
        engine: PostgresEngine,
        size: String,
    },
    Cache {
        size: String,
    },
    Queue {
        fifo: bool,
        size: String,
        requests: Option<Decimal>,
    },
    Topic {
        fifo: bool,
        size: String,
        requests: Option<Decimal>,
    },
    Bucket {
        size: String,
        storage_gb: Option<Decimal>,
        requests: Option<Decimal>,
    },
    Tasks {
        size: String,
        min: u32,
        max: u32,
        architecture: Architecture,
        /// Releases a month and the minutes each runs a second fleet (a strategy other than
        /// rolling); `None` for a rolling update.
        release: Option<(Decimal, u32)>,
    },
    Alb {
        zones: u32,
    },
    PrivateZone,
    Secret,
    KmsKey,
    LogGroup {
        ingested_gb: Option<Decimal>,
        retention_days: u32,
    },
    Budget,
    LogBucket,
    Alarm,
    InterfaceEndpoint {
        zones: u32,
    },
    Vpc {
        nat: u32,
        endpoints: bool,
        nat_gb: Option<Decimal>,
        endpoint_gb: Option<Decimal>,
        internet_gb: Option<Decimal>,
    },
}

impl Priceable {
    /// A service's tasks of `architecture`: `min` for the estimate, `max` for the ceiling.
    pub(crate) fn tasks(size: &str, min: u32, max: u32, architecture: Architecture) -> Priceable {
        Priceable::Tasks { size: size.into(), min, max, architecture, release: None }
    }

    /// Adds a second fleet for `minutes` of each of `releases` releases a month to a service's
    /// tasks (no change to anything else).
    pub(crate) fn with_releases(mut self, releases: Decimal, minutes: u32) -> Priceable {
        if let Priceable::Tasks { release, .. } = &mut self {
            *release = Some((releases, minutes));
        }
        self
    }

    /// The second fleet of its releases, at rest or at most, when it has one.
    fn release_item(&self, ceiling: bool) -> Option<Item<'_>> {
        let Priceable::Tasks { size, min, max, architecture, release: Some((releases, minutes)) } = self
        else {
            return None;
        };
        let tasks = if ceiling { *max } else { *min };
        Some(Item::ReleaseFleet {
            size,
            tasks,
            architecture: *architecture,
            releases: *releases,
            minutes: *minutes,
        })
    }

    /// Its price at rest or at most: the item's, with its releases' second fleet added.
    fn price(&self, catalogue: &Catalogue, region: &str, ceiling: bool) -> Priced {
        let priced = catalogue.price(region, &self.item(ceiling));
        let Some(release) = self.release_item(ceiling) else { return priced };
        match (priced, catalogue.price(region, &release)) {
            (Priced::Lines { mut lines, mut rates }, Priced::Lines { lines: more, rates: more_rates }) => {
                lines.extend(more);
                rates.extend(more_rates);
                Priced::Lines { lines, rates }
            }
            (Priced::Lines { .. }, other) | (other, _) => other,
        }
    }

    /// The catalogue item at rest (`ceiling == false`) or at most.
    fn item(&self, ceiling: bool) -> Item<'_> {
        match self {
            Priceable::Postgres { engine, size, storage_gb, io } => {
                Item::Postgres { engine: *engine, size, storage_gb: *storage_gb, io: *io }
            }
            Priceable::RdsProxy { engine, size } => Item::RdsProxy { engine: *engine, size },
            Priceable::Cache { size } => Item::Cache { size },
            Priceable::Queue { fifo, size, requests } => {
                Item::Queue { fifo: *fifo, size, requests: *requests }
            }
            Priceable::Topic { fifo, size, requests } => {
                Item::Topic { fifo: *fifo, size, requests: *requests }
            }
            Priceable::Bucket { size, storage_gb, requests } => {
                Item::Bucket { size, storage_gb: *storage_gb, requests: *requests }
            }
            Priceable::Tasks { size, min, max, architecture, .. } => {
                Item::Tasks { size, tasks: if ceiling { *max } else { *min }, architecture: *architecture }
            }
            Priceable::Alb { zones } => Item::Alb { zones: *zones },
            Priceable::PrivateZone => Item::PrivateZone,
            Priceable::Secret => Item::Secret,
            Priceable::KmsKey => Item::KmsKey { requests: None },
            Priceable::LogGroup { ingested_gb, retention_days } => {
                Item::LogGroup { ingested_gb: *ingested_gb, retention_days: *retention_days }
            }
            Priceable::Budget => Item::Budget,
            Priceable::LogBucket => Item::LogBucket,
            Priceable::Alarm => Item::Alarm,
            Priceable::InterfaceEndpoint { zones } => Item::InterfaceEndpoint { zones: *zones },
            Priceable::Vpc { nat, endpoints, nat_gb, endpoint_gb, internet_gb } => Item::Vpc {
                nat: *nat,
                endpoints: *endpoints,
                nat_gb: *nat_gb,
                endpoint_gb: *endpoint_gb,
                internet_gb: *internet_gb,
            },
        }
    }

    fn scales(&self) -> bool {
        matches!(self, Priceable::Tasks { min, max, .. } if min != max)
    }
}

/// How many unpriced items the `unpriced` diagnostic names before `and N more`.
const UNPRICED_NAMED: usize = 10;

/// Prices every item, sets each item's figures, and checks the cap.
pub(crate) fn summarize(
    catalogue: &Catalogue,
    region: &str,
    items: &mut [PlannedItem],
    prices: &[Option<Priceable>],
    env: &Environment,
    env_name: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> CostSummary {
    let mut lines = Vec::new();
    let mut unpriced = Vec::new();
    let mut usage_based = Vec::new();
    // What the `unpriced` diagnostic names: the first few unpriced items, as people name them.
    let mut unpriced_labels: Vec<String> = Vec::new();
    let mut monthly = Money::ZERO;
    let mut ceiling = Money::ZERO;
    // Each distinct thing to price is asked of the catalogue once (a product has few sizes and
    // many items of each): its lines at rest and its figure at most.
    let mut asked: std::collections::BTreeMap<&Priceable, (Priced, Money)> =
        std::collections::BTreeMap::new();
    for (item, p) in items.iter_mut().zip(prices) {
        let Some(p) = p else { continue };
        let (priced, c) = asked.entry(p).or_insert_with(|| {
            let priced = p.price(catalogue, region, false);
            let m = priced.monthly().unwrap_or(Money::ZERO);
            let c = if p.scales() {
                // The same catalogue priced the item at rest; at most it is priced the same way.
                p.price(catalogue, region, true).monthly().unwrap_or(m)
            } else {
                m
            };
            (priced, c)
        });
        let c = *c;
        match priced {
            Priced::Lines { lines: item_lines, rates } => {
                let m: Money = item_lines.iter().map(|l| l.monthly).sum();
                item.monthly = Some(m);
                item.ceiling = Some(c);
                item.pricing = Pricing::Priced;
                monthly = monthly + m;
                ceiling = ceiling + c;
                lines.extend(item_lines.iter().map(|line| CostLine {
                    item: item.id.clone(),
                    owner: item.owner.clone(),
                    line: line.clone(),
                }));
                // What the item is billed by a use nobody declared: shown, never added.
                usage_based.extend(usage_lines(item, rates));
            }
            Priced::UsageBased { rates } => {
                item.monthly = None;
                item.ceiling = None;
                item.pricing = Pricing::UsageBased;
                usage_based.extend(usage_lines(item, rates));
            }
            Priced::Unpriced { reason } => {
                item.monthly = None;
                item.ceiling = None;
                item.pricing = Pricing::Unpriced { reason: reason.as_str().into() };
                if unpriced_labels.len() < UNPRICED_NAMED {
                    unpriced_labels.push(format!("`{}`", item.label()));
                }
                unpriced.push(UnpricedItem {
                    item: item.id.clone(),
                    physical_name: item.physical_name.clone(),
                    reason: reason.as_str().into(),
                });
            }
        }
    }

    let cap = env.cap(env_name);
    let shown = monthly.cents();
    let verdict = match cap {
        None => Verdict::Uncapped,
        Some(cap) if shown > cap => Verdict::Over,
        // Under a cap the estimate must be whole: an unpriced item refuses the plan.
        Some(_) if !unpriced.is_empty() => Verdict::RefusedUnpriced,
        Some(_) => Verdict::Within,
    };
    let (at, path) = match &env.limit_at {
        Some(l) => (l.clone(), format!("environments.{env_name}.limits.monthly")),
        None => (env.at.clone(), format!("environments.{env_name}")),
    };
    let largest = largest_owners(items, 3);
    let cap_help = format!("raise `environments.{env_name}.limits.monthly`, or plan smaller sizes");
    match (cap, verdict) {
        (Some(cap), Verdict::Over) => diagnostics.push(
            Diagnostic::error(
                Code::CapExceeded,
                at.clone(),
                path.clone(),
                format!(
                    "the estimate ${shown} a month of `{env_name}` is over its cap ${cap}; largest: {largest}",
                    cap = cap.cents()
                ),
            )
            .with_help(cap_help),
        ),
        (None, _) => diagnostics.push(
            Diagnostic::warning(
                Code::Uncapped,
                at.clone(),
                path.clone(),
                format!(
                    "`{env_name}` has no cap, so no AWS Budgets backstop; the estimate is ${shown} a month (ceiling ${}); largest: {largest}",
                    ceiling.cents()
                ),
            )
            .with_help(format!("set `environments.{env_name}.limits.monthly` to cap it (and get a budget)")),
        ),
        _ => {}
    }
    if !unpriced.is_empty() {
        diagnostics.push(unpriced_diagnostic(
            (at, path),
            (env_name, region),
            cap,
            &unpriced,
            unpriced_labels,
        ));
    }
    let refused = diagnostics.iter().any(Diagnostic::is_error);
    CostSummary { monthly, ceiling, cap, verdict, unpriced, lines, usage_based, usage: Vec::new(), refused }
}

/// The `unpriced` diagnostic: an error under a cap (a capped plan must be fully priced), a
/// warning without one; it names the first few unpriced items.
fn unpriced_diagnostic(
    (at, path): (runway_schema::Location, String),
    (env_name, region): (&str, &str),
    cap: Option<Money>,
    unpriced: &[UnpricedItem],
    unpriced_labels: Vec<String>,
) -> Diagnostic {
    // A large product may have thousands: the message names the first few, the plan's cost
    // lists them all.
    let mut names = unpriced_labels;
    if unpriced.len() > UNPRICED_NAMED {
        names.push(format!("and {} more", unpriced.len() - UNPRICED_NAMED));
    }
    let message = format!(
        "{} item(s) of `{env_name}` cannot be priced: {} (reasons in the plan's cost)",
        unpriced.len(),
        names.join(", ")
    );
    let help = format!(
        "import the region's prices with `runway catalogue import --region {region} --out prices.yaml` and \
         name the file (`catalogue: prices.yaml` in the root, or `--catalogue prices.yaml`), or plan sizes \
         the catalogue prices"
    );
    match cap {
        Some(cap) => Diagnostic::error(
            Code::Unpriced,
            at,
            path,
            format!("{message}; a plan under a cap (${}) must be fully priced", cap.cents()),
        )
        .with_help(help),
        None => Diagnostic::warning(Code::Unpriced, at, path, message).with_help(help),
    }
}

/// The rates an item is billed by a use nobody declared, as the plan lists them.
fn usage_lines<'a>(item: &'a PlannedItem, rates: &'a [cost::Rate]) -> impl Iterator<Item = UsageLine> + 'a {
    rates.iter().map(|rate| UsageLine {
        item: item.id.clone(),
        owner: item.owner.clone(),
        rate: rate.clone(),
    })
}

/// The `n` largest owners (resource, workload, or platform item) by estimate, as
/// `name $amount` joined with commas; ties keep plan order.
fn largest_owners(items: &[PlannedItem], n: usize) -> String {
    let mut totals: Vec<(String, Money)> = Vec::new();
    // Position of each owner in `totals` (first-seen order is kept for the stable sort).
    let mut at: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for item in items {
        let Some(m) = item.monthly else { continue };
        // A platform item is named by its kind as people read it (`environment ALB`), not by
        // its id: the items of one kind (the VPC endpoints) add up to one owner.
        let label;
        let key: &str = match item.owner.as_deref() {
            Some(owner) => owner,
            None => {
                label = format!("{} {}", item.owner_name(), item.kind().words());
                &label
            }
        };
        // An owner's items are next to each other: most items add to the last owner seen.
        if let Some(last) = totals.last_mut().filter(|t| t.0 == key) {
            last.1 = last.1 + m;
            continue;
        }
        match at.get(key) {
            Some(&i) => totals[i].1 = totals[i].1 + m,
            None => {
                at.insert(key.to_owned(), totals.len());
                totals.push((key.to_owned(), m));
            }
        }
    }
    // Stable sort: equal amounts keep plan order.
    totals.sort_by_key(|t| std::cmp::Reverse(t.1));
    let shown: Vec<String> =
        totals.iter().filter(|(_, m)| *m > Money::ZERO).take(n).map(|(k, m)| format!("{k} ${m}")).collect();
    if shown.is_empty() { "nothing priced".into() } else { shown.join(", ") }
}
