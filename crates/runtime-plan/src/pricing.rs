//! Pricing the planned items, the cap check and its diagnostics.

use compact_str::CompactString;
use cost::{Catalogue, Item, Priced};
use runway_schema::{Architecture, CapOn, Code, Diagnostic, Environment, Money, PostgresEngine};
use rust_decimal::Decimal;

use crate::plan::{CostLine, CostSummary, PlannedItem, Pricing, UnpricedItem, UsageLine, Verdict};

mod sums;

pub(crate) use sums::add;
use sums::exact_sum;

/// An owned description of what to ask the catalogue for an item: its size and the amounts of
/// use the plan assumes (`None`: the size's, or billed by use and not counted).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Priceable {
    Postgres {
        engine: PostgresEngine,
        size: CompactString,
        storage_gb: Option<Decimal>,
        io: Option<Decimal>,
    },
    RdsProxy {
        engine: PostgresEngine,
        size: CompactString,
    },
    Cache {
        size: CompactString,
    },
    Queue {
        fifo: bool,
        size: CompactString,
        requests: Option<Decimal>,
    },
    Topic {
        fifo: bool,
        size: CompactString,
        requests: Option<Decimal>,
    },
    Bucket {
        size: CompactString,
        storage_gb: Option<Decimal>,
        requests: Option<Decimal>,
    },
    Tasks {
        size: CompactString,
        /// Tasks at least (within the active hours).
        min: u32,
        /// The typical count: midway between `min` and `max`, rounded up.
        typical: u32,
        max: u32,
        architecture: Architecture,
        /// Hours a month it runs (`scale.<env>.active`); `None` all month.
        hours: Option<Decimal>,
        /// Releases a month and the minutes each runs a second fleet (a strategy other than
        /// rolling); `None` for a rolling update.
        release: Option<(Decimal, u32)>,
    },
    /// A schedule's runs: one task of the size for `task_hours` a month.
    Runs {
        size: CompactString,
        architecture: Architecture,
        task_hours: Decimal,
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
    /// A service's tasks of `architecture`: `min` within the active `hours` (all month without)
    /// for the estimate (the floor), midway to `max` for the typical figure, `max` all month
    /// for the ceiling.
    pub(crate) fn tasks(
        size: &str,
        (min, max): (u32, u32),
        architecture: Architecture,
        hours: Option<Decimal>,
    ) -> Priceable {
        let typical = min + (max - min).div_ceil(2);
        Priceable::Tasks { size: size.into(), min, typical, max, architecture, hours, release: None }
    }

    /// Adds a second fleet for `minutes` of each of `releases` releases a month to a service's
    /// tasks (no change to anything else).
    pub(crate) fn with_releases(mut self, releases: Decimal, minutes: u32) -> Priceable {
        if let Priceable::Tasks { release, .. } = &mut self {
            *release = Some((releases, minutes));
        }
        self
    }

    /// The second fleet of its releases at `figure` (as many tasks as the first), priced; `None`
    /// without one. Its releases happen whenever it runs: the active hours do not share it.
    fn release_price(&self, catalogue: &Catalogue, region: &str, figure: Figure) -> Option<Priced> {
        let Priceable::Tasks { size, architecture, release: Some((releases, minutes)), .. } = self else {
            return None;
        };
        let Item::Tasks { tasks, .. } = self.item(figure) else { return None };
        let fleet = Item::ReleaseFleet {
            size,
            tasks,
            architecture: *architecture,
            releases: *releases,
            minutes: *minutes,
        };
        Some(catalogue.price(region, &fleet))
    }

    /// A schedule's runs: `task_hours` a month of one task.
    pub(crate) fn runs(size: &str, architecture: Architecture, task_hours: Decimal) -> Priceable {
        Priceable::Runs { size: size.into(), architecture, task_hours }
    }

    /// The catalogue item at `figure`.
    fn item(&self, figure: Figure) -> Item<'_> {
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
            Priceable::Tasks { size, min, typical, max, architecture, .. } => {
                let tasks = match figure {
                    Figure::Floor => *min,
                    Figure::Typical => *typical,
                    Figure::Ceiling => *max,
                };
                Item::Tasks { size, tasks, architecture: *architecture }
            }
            Priceable::Runs { size, architecture, .. } => {
                Item::Tasks { size, tasks: 1, architecture: *architecture }
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
        matches!(self, Priceable::Tasks { min, max, hours, .. } if min != max || hours.is_some())
    }

    /// The share of the month it runs at the floor and typical figures (1 all month).
    fn share(&self) -> Decimal {
        match self {
            Priceable::Tasks { hours: Some(h), .. } => {
                (*h / Decimal::from(cost::HOURS_PER_MONTH)).min(Decimal::ONE)
            }
            Priceable::Runs { task_hours, .. } => *task_hours / Decimal::from(cost::HOURS_PER_MONTH),
            Priceable::Tasks { hours: None, .. }
            | Priceable::Postgres { .. }
            | Priceable::RdsProxy { .. }
            | Priceable::Cache { .. }
            | Priceable::Queue { .. }
            | Priceable::Topic { .. }
            | Priceable::Bucket { .. }
            | Priceable::Alb { .. }
            | Priceable::PrivateZone
            | Priceable::Secret
            | Priceable::KmsKey
            | Priceable::LogGroup { .. }
            | Priceable::Budget
            | Priceable::LogBucket
            | Priceable::Alarm
            | Priceable::InterfaceEndpoint { .. }
            | Priceable::Vpc { .. } => Decimal::ONE,
        }
    }
}

/// Which of an item's three figures.
#[derive(Clone, Copy)]
enum Figure {
    Floor,
    Typical,
    Ceiling,
}

/// `lines` for `share` of the month: quantities and amounts scaled (all of them at 1).
fn for_share(lines: &[cost::Line], share: Decimal) -> Vec<cost::Line> {
    lines
        .iter()
        .map(|l| {
            let mut l = l.clone();
            if share != Decimal::ONE {
                l.quantity *= share;
                l.monthly = l.unit_price.times(l.quantity);
            }
            l
        })
        .collect()
}

/// `priced` with its releases' second fleet's lines and rates added; an unpriced or usage-based
/// fleet makes the whole so.
fn with_release(priced: Priced, release: Option<Priced>) -> Priced {
    let Some(release) = release else { return priced };
    match (priced, release) {
        (Priced::Lines { mut lines, mut rates }, Priced::Lines { lines: more, rates: more_rates }) => {
            lines.extend(more);
            rates.extend(more_rates);
            Priced::Lines { lines, rates }
        }
        (Priced::Lines { .. }, other) | (other, _) => other,
    }
}

/// How many unpriced items the `unpriced` diagnostic names before `and N more`.
const UNPRICED_NAMED: usize = 10;

/// What the catalogue says of one distinct thing to price: its lines at the floor (for its
/// share of the month) and its three monthly figures.
struct Asked {
    priced: Priced,
    monthly: Money,
    typical: Money,
    ceiling: Money,
}

/// What lowering found to price: each distinct [`Priceable`] once (a product has few sizes and
/// many items of each), and for each item that has a price of its own, its position among the
/// items and its question's. Alive at planning's peak, so a question is kept once, not copied
/// per item (sixth pass: a `Priceable` per item was 2.9 MB at N = 10,000). Found by hash
/// (foldhash, fixed seed: the same path every run); the questions are asked in the order first
/// found, and the answers are only indexed, never iterated into output.
#[derive(Default)]
pub(crate) struct Prices {
    questions: indexmap::IndexSet<Priceable, foldhash::fast::FixedState>,
    of: Positions,
}

impl Prices {
    /// The item at position `at` is priced as `p`.
    pub(crate) fn push(&mut self, at: usize, p: Priceable) {
        let (k, _) = self.questions.insert_full(p);
        self.of.push((position(at), position(k)));
    }
}

/// Each priced item's position among the items and its question's, in item order, as `u32`s (8
/// bytes an item, not 16: no plan holds 2^32 items).
type Positions = Vec<(u32, u32)>;

/// Asks the catalogue once for each of the questions of `prices`; the answers are in the
/// questions' order, which an item's entry indexes.
fn ask_each(
    catalogue: &Catalogue,
    region: &str,
    questions: &indexmap::IndexSet<Priceable, foldhash::fast::FixedState>,
) -> Vec<Asked> {
    questions.iter().map(|p| ask(catalogue, region, p)).collect()
}

/// A position in the items or the questions as [`Prices`] holds it (`u32::MAX` past 2^32, which
/// no plan reaches).
fn position(at: usize) -> u32 {
    u32::try_from(at).unwrap_or(u32::MAX)
}

/// The catalogue's answer for `p`: its lines at the floor and its typical and ceiling figures.
fn ask(catalogue: &Catalogue, region: &str, p: &Priceable) -> Asked {
    let mut priced = catalogue.price(region, &p.item(Figure::Floor));
    if let Priced::Lines { lines, .. } = &mut priced {
        *lines = for_share(lines, p.share());
    }
    let priced = with_release(priced, p.release_price(catalogue, region, Figure::Floor));
    let m = priced.monthly().unwrap_or(Money::ZERO);
    let (t, c) = if p.scales() {
        // The same catalogue priced the item at rest; the other figures alike.
        let at = |f| catalogue.price(region, &p.item(f)).monthly();
        let release = |f| {
            let priced = p.release_price(catalogue, region, f);
            priced.and_then(|r| r.monthly()).unwrap_or(Money::ZERO)
        };
        (
            at(Figure::Typical).map_or(m, |t| t.times(p.share()) + release(Figure::Typical)),
            at(Figure::Ceiling).map_or(m, |c| c + release(Figure::Ceiling)),
        )
    } else {
        (m, m)
    };
    Asked { priced, monthly: m, typical: t, ceiling: c }
}

/// Prices every item that has a price of its own (`prices`: its position in `items` and what
/// to ask the catalogue, in item order), sets each item's figures, and checks the cap; the cost
/// and usage lines are left to [`Summary::with_lines`].
///
/// Those lines are the plan's largest lists after its items, made last: what is alive beside
/// them sets a peak (seventh pass: the owners' totals, 2.3 MB at N = 10,000, were beside them;
/// now they are taken first, the questions are dropped once asked, and the caller sums its
/// records' figures in between).
pub(crate) fn summarize(
    catalogue: &Catalogue,
    region: &str,
    items: &mut [PlannedItem],
    prices: Prices,
    env: &Environment,
    env_name: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Summary {
    let mut unpriced = Vec::new();
    // What the `unpriced` diagnostic names: the first few unpriced items, as people name them.
    let mut unpriced_labels: Vec<String> = Vec::new();
    let Prices { questions, of } = prices;
    let table = ask_each(catalogue, region, &questions);
    drop(questions);
    // How many items each answer prices with lines: the sums are taken by answer (sixth pass:
    // three additions per priced item were a third of pricing).
    let mut counts = vec![0u64; table.len()];
    // Room for every line and usage line, counted from the table (growing these lists by
    // doubling copied their records again and again).
    let (mut line_count, mut rate_count) = (0, 0);
    for &(at, k) in &of {
        let item = &mut items[at as usize];
        let Asked { priced, monthly: m, ceiling: c, .. } = &table[k as usize];
        match priced {
            Priced::Lines { lines, rates } => {
                (line_count, rate_count) = (line_count + lines.len(), rate_count + rates.len());
                counts[k as usize] += 1;
                item.monthly = Some(*m);
                item.ceiling = Some(*c);
                item.pricing = Pricing::Priced;
            }
            Priced::UsageBased { rates } => {
                rate_count += rates.len();
                item.monthly = None;
                item.ceiling = None;
                item.pricing = Pricing::UsageBased;
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
    let [monthly, typical, ceiling] = [|a: &Asked| a.monthly, |a: &Asked| a.typical, |a: &Asked| a.ceiling]
        .map(|f| total(&table, (&of, &counts), f));
    drop(counts);
    // Every item's figures are set: the owners' totals are taken (and freed) before the lines.
    let largest = largest_owners(items, 3);

    let cap = env.cap(env_name);
    // The figure the cap refuses on (`limits.on`, the floor by default: the estimate).
    let judged = match env.cap_on {
        CapOn::Floor => monthly,
        CapOn::Typical => typical,
        CapOn::Ceiling => ceiling,
    };
    let shown = judged.cents();
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
    if let Some(d) = cap_diagnostic((&at, &path), (env, env_name), (cap, verdict), (shown, ceiling), &largest)
    {
        diagnostics.push(d);
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
    // Shown apart only where it differs from the floor (a workload scales or sleeps).
    let typical = (typical != monthly).then_some(typical);
    let cap_on = env.cap_on;
    let cost = CostSummary {
        monthly,
        typical,
        ceiling,
        cap,
        cap_on,
        verdict,
        unpriced,
        lines: Vec::new(),
        usage_based: Vec::new(),
        usage: Vec::new(),
        refused,
    };
    Summary { cost, table, of, room: (line_count, rate_count) }
}

/// A plan's cost without its lines yet: the answers and the priced items' positions that make
/// them, and how many there are of each kind.
pub(crate) struct Summary {
    cost: CostSummary,
    table: Vec<Asked>,
    of: Positions,
    /// Cost lines and usage lines.
    room: (usize, usize),
}

impl Summary {
    /// The cost with its cost and usage lines, in item order (`items`: the items
    /// [`summarize`] priced). The positions are freed once their lines are made.
    pub(crate) fn with_lines(self, items: &[PlannedItem]) -> CostSummary {
        let Summary { mut cost, table, of, room } = self;
        (cost.lines, cost.usage_based) = cost_lines(items, (&table, of), room);
        cost
    }
}

/// The cap's diagnostic: `cap-exceeded` over it (naming the figure `limits.on` chose when it is
/// not the floor), `uncapped` without one; none within.
fn cap_diagnostic(
    (at, path): (&runway_schema::Location, &str),
    (env, env_name): (&Environment, &str),
    (cap, verdict): (Option<Money>, Verdict),
    (shown, ceiling): (Money, Money),
    largest: &str,
) -> Option<Diagnostic> {
    match (cap, verdict) {
        (Some(cap), Verdict::Over) => Some(
            Diagnostic::error(
                Code::CapExceeded,
                at.clone(),
                path.to_owned(),
                match env.cap_on {
                    CapOn::Floor => format!(
                        "the estimate ${shown} a month of `{env_name}` is over its cap ${cap}; largest: {largest}",
                        cap = cap.cents()
                    ),
                    on @ (CapOn::Typical | CapOn::Ceiling) => format!(
                        "the {on} estimate ${shown} a month of `{env_name}` is over its cap ${cap} (`limits.on: {on}`); largest: {largest}",
                        on = on.as_str(),
                        cap = cap.cents()
                    ),
                },
            )
            .with_help(format!("raise `environments.{env_name}.limits.monthly`, or plan smaller sizes")),
        ),
        (None, _) => Some(
            Diagnostic::warning(
                Code::Uncapped,
                at.clone(),
                path.to_owned(),
                format!(
                    "`{env_name}` has no cap, so no AWS Budgets backstop; the estimate is ${shown} a month (ceiling ${}); largest: {largest}",
                    ceiling.cents()
                ),
            )
            .with_help(format!("set `environments.{env_name}.limits.monthly` to cap it (and get a budget)")),
        ),
        (Some(_), Verdict::Within | Verdict::RefusedUnpriced | Verdict::Uncapped) => None,
    }
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

/// The sum of one figure of the items priced with lines, in item order, as `Decimal` adds them:
/// taken by answer (`counts`: how many items each answer of `table` prices), which is the same
/// sum bit for bit when no term is negative and the whole is exact (see [`exact_sum`]); else
/// added item by item (`of`: each item's answer, in item order).
fn total(table: &[Asked], (of, counts): (&Positions, &[u64]), figure: impl Fn(&Asked) -> Money) -> Money {
    let mut answers = of.iter().map(|&(_, k)| &table[k as usize]);
    let lines = |a: &&Asked| matches!(a.priced, Priced::Lines { .. });
    match exact_sum(table.iter().map(&figure).zip(counts.iter().copied())) {
        Some(Some(sum)) => sum,
        // Every term zero: `Decimal` gives the last one added (a zero's scale is kept).
        Some(None) => answers.rfind(lines).map_or(Money::ZERO, figure),
        None => answers.filter(lines).fold(Money::ZERO, |sum, a| sum + figure(a)),
    }
}

/// The cost lines and usage lines of the priced items (`of`: each one's position and answer,
/// in item order), in lists of exactly `(lines, rates)` records.
fn cost_lines(
    items: &[PlannedItem],
    (table, of): (&[Asked], Positions),
    (lines, rates): (usize, usize),
) -> (Vec<CostLine>, Vec<UsageLine>) {
    let (mut cost, mut usage) = (Vec::with_capacity(lines), Vec::with_capacity(rates));
    for (at, k) in of {
        let item = &items[at as usize];
        match &table[k as usize].priced {
            Priced::Lines { lines, rates } => {
                cost.extend(lines.iter().map(|line| CostLine {
                    item: item.id.clone(),
                    owner: item.owner.clone(),
                    line: line.clone(),
                }));
                // What the item is billed by a use nobody declared: shown, never added.
                usage.extend(usage_lines(item, rates));
            }
            Priced::UsageBased { rates } => usage.extend(usage_lines(item, rates)),
            Priced::Unpriced { .. } => {}
        }
    }
    (cost, usage)
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
    // Names as `CompactString`s: a name of up to 24 bytes (most) is held without an allocation.
    let mut totals: Vec<(CompactString, Money)> = Vec::new();
    // Position of each owner in `totals` (first-seen order is kept for ties). Looked up by hash
    // (foldhash, fixed seed), never iterated.
    let mut at: indexmap::IndexMap<CompactString, usize, foldhash::fast::FixedState> =
        indexmap::IndexMap::default();
    // Position in `totals` of each platform kind's owner, by the kind's words (a few kinds:
    // found by a scan; the label is joined once, when first seen, not formatted per item).
    let mut platform: Vec<(&'static str, usize)> = Vec::new();
    for item in items {
        let Some(m) = item.monthly else { continue };
        // A platform item is named by its kind as people read it (`environment ALB`), not by
        // its id: the items of one kind (the VPC endpoints) add up to one owner. An owner's
        // name holds no space, a platform label always one: the two never meet.
        let Some(key) = item.owner.as_deref() else {
            let words = item.kind().words();
            match platform.iter().find(|(w, _)| *w == words) {
                Some(&(_, i)) => totals[i].1 = add(totals[i].1, m),
                None => {
                    platform.push((words, totals.len()));
                    totals.push(([item.owner_name(), " ", words].into_iter().collect(), m));
                }
            }
            continue;
        };
        // An owner's items are next to each other: most items add to the last owner seen. A
        // zero added to a nonzero sum leaves it as it is (`Decimal`'s rule; most items are
        // included in another's price, at zero).
        if let Some(last) = totals.last_mut().filter(|t| t.0 == key) {
            if !m.0.is_zero() || last.1.0.is_zero() {
                last.1 = add(last.1, m);
            }
            continue;
        }
        match at.get(key) {
            Some(&i) => totals[i].1 = add(totals[i].1, m),
            None => {
                at.insert(key.into(), totals.len());
                totals.push((key.into(), m));
            }
        }
    }
    let shown: Vec<String> = largest(&totals, n).map(|(k, m)| format!("{k} ${m}")).collect();
    if shown.is_empty() { "nothing priced".into() } else { shown.join(", ") }
}

/// The first `n` of `totals` with an amount over zero, largest first, equal amounts in their
/// order in `totals`: what a stable sort by amount would put first, in one pass (sorting every
/// owner to show three was a tenth of pricing).
fn largest(totals: &[(CompactString, Money)], n: usize) -> impl Iterator<Item = &(CompactString, Money)> {
    let mut best: Vec<usize> = Vec::with_capacity(n + 1);
    for (i, (_, m)) in totals.iter().enumerate() {
        if *m <= Money::ZERO || (best.len() == n && best.last().is_none_or(|&b| *m <= totals[b].1)) {
            continue;
        }
        // After every kept amount at least as large: an earlier owner stays ahead on a tie.
        let place = best.iter().position(|&b| totals[b].1 < *m).unwrap_or(best.len());
        best.insert(place, i);
        best.truncate(n);
    }
    best.into_iter().map(move |i| &totals[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_is_what_a_stable_sort_puts_first() {
        let m = |cents: i64, scale: u32| Money(Decimal::new(cents, scale));
        // Ties (of equal value written with other scales too), zeros, fewer owners than asked.
        let amounts =
            [m(500, 2), m(0, 0), m(5, 0), m(700, 2), m(50, 1), m(700, 2), m(1, 2), m(0, 2), m(9, 0)];
        for len in 0..=amounts.len() {
            let totals: Vec<(CompactString, Money)> =
                amounts[..len].iter().enumerate().map(|(i, a)| (format!("o{i}").into(), *a)).collect();
            for n in 0..5 {
                let mut sorted = totals.clone();
                sorted.sort_by_key(|t| std::cmp::Reverse(t.1));
                let want: Vec<&str> = sorted
                    .iter()
                    .filter(|(_, a)| *a > Money::ZERO)
                    .take(n)
                    .map(|(k, _)| k.as_str())
                    .collect();
                let got: Vec<&str> = largest(&totals, n).map(|(k, _)| k.as_str()).collect();
                assert_eq!(got, want, "{len} owners, {n} shown");
            }
        }
    }
}
