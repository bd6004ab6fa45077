//! The priced size catalogue: what each kind and size declares and costs a month, per region.
//!
//! The catalogue is data (`catalogue.yaml` beside this crate's `Cargo.toml`, embedded at build
//! time). A user's file in the same format replaces or extends it: [`Catalogue::parse`] reads
//! one and [`Catalogue::extended_with`] lays it over another. [`Catalogue::price`] turns a
//! planned [`Item`] into [`Line`]s of checkable arithmetic, or says why it cannot
//! ([`Priced::Unpriced`]): a missing price is never counted as $0.
//!
//! What this crate does not do: it performs no I/O (no file, network, environment or clock),
//! it fetches no live prices, and it never rounds a sum; [`Money`] rounds only for display.
// A match over a kind names every kind, so a new kind is a compile error wherever it needs a
// decision; a projection of one kind is a `let ... else` (ARCHITECTURE.md, "Adding a kind").
#![warn(clippy::wildcard_enum_match_arm)]

use std::sync::Arc;

use indexmap::IndexMap;
pub use runway_schema::Money;
use runway_schema::{Architecture, Diagnostic, PostgresEngine};
use rust_decimal::Decimal;
use serde::Serialize;

mod age;
mod file;
mod render;
mod setting;
mod sizes;

pub use age::{STALE_AFTER_DAYS, StalePrice, date_of_day, day_number};
pub use file::MAX_CATALOGUE_BYTES;
pub use sizes::{CacheSize, PostgresSize, TaskSize};
#[cfg(feature = "proptest1")]
pub mod strategies;

/// Hours in a month, for every hourly price.
pub const HOURS_PER_MONTH: u32 = 730;

/// The default catalogue's text, as embedded in the binary.
pub const BUILTIN_TEXT: &str = include_str!("../catalogue.yaml");

/// Name given to the built-in catalogue in diagnostics.
pub const BUILTIN_FILE: &str = "<builtin catalogue.yaml>";

/// The catalogue: sizes of every kind and the prices per region.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Catalogue {
    pub(crate) sizes: Sizes,
    pub(crate) regions: IndexMap<String, PriceTable>,
}

/// Every size of every kind, in catalogue order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Sizes {
    pub(crate) postgres_rds: IndexMap<String, PostgresSize>,
    pub(crate) postgres_aurora: IndexMap<String, PostgresSize>,
    pub(crate) cache: IndexMap<String, CacheSize>,
    pub(crate) messaging: IndexMap<String, u64>,
    pub(crate) bucket: IndexMap<String, u64>,
    pub(crate) workload: IndexMap<String, TaskSize>,
}

/// One region's prices, keyed by price key (`rds-instance/db.t4g.micro`, `alb-hour`, ...).
pub type PriceTable = IndexMap<String, PriceEntry>;

/// One price of a region: a figure with its unit, source and date, or why there is none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PriceEntry {
    /// The unit one price is for (`hour`, `GB-month`, `million requests`).
    pub unit: String,
    /// The figure, or why there is none.
    #[serde(flatten)]
    pub status: PriceStatus,
}

/// A price, or the reason it is missing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", untagged)]
pub enum PriceStatus {
    /// A figure seen in a public source.
    Priced {
        /// US dollars per unit, exact.
        #[serde(serialize_with = "exact_money")]
        price: Money,
        /// Where the figure was seen (URL or document).
        source: String,
        /// When it was seen (`YYYY-MM-DD`).
        seen: String,
    },
    /// No figure: items needing it are reported as unpriced.
    Unpriced {
        /// Why (`no public source found for eu-west-1`).
        unpriced: String,
    },
}

/// Serializes money exactly (`"0.0128"`), not rounded to cents: unit prices need every digit.
pub(crate) fn exact_money<S: serde::Serializer>(m: &Money, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&m.0.normalize())
}

/// [`exact_money`] for a price that may be missing (`null`).
fn exact_money_opt<S: serde::Serializer>(m: &Option<Money>, s: S) -> Result<S::Ok, S::Error> {
    match m {
        Some(m) => exact_money(m, s),
        None => s.serialize_none(),
    }
}

/// A planned item to price. The planner builds these; [`Catalogue::price`] prices them.
///
/// An amount of use (`Option<Decimal>`) is the one the plan assumes: `None` where the size's
/// assumption holds (queue and topic requests, bucket and Aurora storage), or, for what no size
/// assumes, where nobody declared one: that charge's rate is shown ([`Priced::Lines`]'s
/// `rates`), not added.
///
/// Exhaustive on purpose: a new item breaks every match over it, so no price is forgotten.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item<'a> {
    /// A postgres resource's database: RDS instance + storage, or Aurora instances + storage
    /// (+ I/O requests on standard storage).
    Postgres {
        /// RDS or Aurora.
        engine: PostgresEngine,
        /// Catalogue size name.
        size: &'a str,
        /// Aurora: GB stored (`None`: the size's `storageGb`). Not read for RDS, whose storage
        /// is allocated by its size.
        storage_gb: Option<Decimal>,
        /// Aurora: million I/O requests a month (`None`: billed by use, its rate shown). Not
        /// read for RDS (gp3 bills no I/O).
        io: Option<Decimal>,
    },
    /// The RDS Proxy in front of a postgres resource of this engine and size.
    RdsProxy {
        /// RDS or Aurora (Aurora counts the vCPUs of every instance of the cluster).
        engine: PostgresEngine,
        /// Catalogue size name of the target.
        size: &'a str,
    },
    /// A Valkey replication group.
    Cache {
        /// Catalogue size name.
        size: &'a str,
    },
    /// An SQS queue.
    Queue {
        /// FIFO queues have their own request price.
        fifo: bool,
        /// Catalogue size name.
        size: &'a str,
        /// Million requests a month (`None`: the size's `requests`).
        requests: Option<Decimal>,
    },
    /// An SNS topic.
    Topic {
        /// FIFO topics have their own price (unpriced in the built-in catalogue).
        fifo: bool,
        /// Catalogue size name.
        size: &'a str,
        /// Million requests a month (`None`: the size's `requests`).
        requests: Option<Decimal>,
    },
    /// An S3 bucket.
    Bucket {
        /// Catalogue size name.
        size: &'a str,
        /// GB stored (`None`: the size's `storageGb`).
        storage_gb: Option<Decimal>,
        /// Million requests a month, priced at the PUT/COPY/POST/LIST rate (`None`: billed by
        /// use, its rate shown).
        requests: Option<Decimal>,
    },
    /// `tasks` Fargate tasks of a workload size, at the rates of their CPU architecture.
    Tasks {
        /// Catalogue size name.
        size: &'a str,
        /// Tasks running all month.
        tasks: u32,
        /// ARM64 (`fargate-arm-*`) or x86_64 (`fargate-x86-*`).
        architecture: Architecture,
    },
    /// The environment's ALB: hourly, one LCU, and a public IPv4 address in each zone.
    Alb {
        /// Availability Zones it has a node (and a public IPv4 address) in.
        zones: u32,
    },
    /// The Cloud Map namespace's Route 53 private hosted zone.
    PrivateZone,
    /// One Secrets Manager secret.
    Secret,
    /// One customer managed KMS key (the environment's, for its SSM parameters and secrets): a
    /// key-month, and its symmetric requests.
    KmsKey {
        /// Million requests a month (`None`: billed by use, its rate shown).
        requests: Option<Decimal>,
    },
    /// A CloudWatch Logs log group: per GB ingested and per GB-month stored.
    LogGroup {
        /// GB ingested a month (`None`: billed by use, its rates shown).
        ingested_gb: Option<Decimal>,
        /// Days the logs are kept: what is stored at steady state.
        retention_days: u32,
    },
    /// An AWS Budgets cost budget: usage-based, as an account's first budgets are free.
    Budget,
    /// The bucket of the ALB's access logs: S3 Standard storage of what the ALB writes; billed
    /// by use (the traffic decides), its rate shown. Log delivery itself is free.
    LogBucket,
    /// A VPC interface endpoint: billed per hour in each zone of its subnets. The data it
    /// processes is the environment's ([`Item::Vpc`]).
    InterfaceEndpoint {
        /// Availability Zones it has a network interface in.
        zones: u32,
    },
    /// What the VPC the environment runs in charges it: the NAT gateways it pays for (each
    /// with its public IPv4 address), the data they and the interface endpoints process, and
    /// the data out to the internet.
    Vpc {
        /// NAT gateways the environment pays for.
        nat: u32,
        /// The environment declares interface endpoints (their data is charged to it).
        endpoints: bool,
        /// GB a month through the NAT gateways (`None`: billed by use, its rate shown when
        /// `nat` > 0).
        nat_gb: Option<Decimal>,
        /// GB a month through the interface endpoints (`None`: billed by use, its rate shown
        /// when `endpoints`).
        endpoint_gb: Option<Decimal>,
        /// GB a month out to the internet (`None`: billed by use, its rate shown).
        internet_gb: Option<Decimal>,
    },
    /// One CloudWatch standard-resolution metric alarm (one per alarm a plan declares).
    Alarm,
}

/// One line of arithmetic a person can check: quantity x unit price = monthly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Line {
    /// The catalogue's price key (`rds-instance/db.t4g.micro`): which price the line uses.
    pub key: Arc<str>,
    /// What is priced (`db.t4g.micro instance-hours`).
    ///
    /// The texts of a line are shared (`Arc<str>`): a plan repeats the same few lines on
    /// thousands of items, and copies them by reference.
    pub what: Arc<str>,
    /// How many units a month (exact).
    pub quantity: Decimal,
    /// The unit (`hour`, `GB-month`, `million requests`).
    pub unit: Arc<str>,
    /// Price of one unit, exact (serialized with every digit, not rounded to cents).
    #[serde(serialize_with = "exact_money")]
    pub unit_price: Money,
    /// quantity x unit price, exact.
    pub monthly: Money,
    /// Where the price comes from (URL or document) and when it was seen.
    pub source: Arc<str>,
}

/// The price of an item: its lines, or why it cannot be priced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "status")]
pub enum Priced {
    /// Priced: the monthly figure is the exact sum of the lines.
    Lines {
        /// The lines.
        lines: Vec<Line>,
        /// The rates of its charges billed by a use nobody declared: shown, not added.
        rates: Vec<Rate>,
    },
    /// The catalogue has no price for it; never counted as $0.
    Unpriced {
        /// Why (`no price for cache.m7g.large in ap-south-2`).
        reason: String,
    },
    /// Billed per unit of a use the plan cannot know (log volume, an account's other budgets):
    /// its rates are shown, and nothing is added to the estimate.
    UsageBased {
        /// The rates, priced or not.
        rates: Vec<Rate>,
    },
}

/// The price of one unit of a usage-based charge.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rate {
    /// The catalogue's price key (`logs-ingestion`).
    pub key: Arc<str>,
    /// What is charged (`CloudWatch Logs ingestion`).
    pub what: Arc<str>,
    /// The unit (`GB`).
    pub unit: Arc<str>,
    /// Price of one unit, exact; `None` when the catalogue has no price for it.
    #[serde(serialize_with = "exact_money_opt")]
    pub unit_price: Option<Money>,
    /// Where the price comes from and when it was seen, or why there is none.
    pub source: Arc<str>,
}

impl Priced {
    /// Exact sum of the lines; `None` when unpriced or usage-based (no amount is known).
    pub fn monthly(&self) -> Option<Money> {
        match self {
            Priced::Lines { lines, .. } => Some(lines.iter().map(|l| l.monthly).sum()),
            Priced::Unpriced { .. } | Priced::UsageBased { .. } => None,
        }
    }
}

/// A price key and the quantity of its unit an item uses a month.
struct Usage {
    what: String,
    key: String,
    quantity: Decimal,
}

/// What an item is charged: quantities of price keys, and the rates (`(what, price key)`) of
/// what it is billed by a use nobody declared.
#[derive(Default)]
struct Charges {
    usages: Vec<Usage>,
    rates: Vec<(&'static str, &'static str)>,
}

impl Charges {
    fn of(usages: Vec<Usage>) -> Charges {
        Charges { usages, rates: Vec::new() }
    }

    /// Adds a usage of `key` when the amount is known, else its rate.
    fn by_use(
        &mut self,
        amount: Option<Decimal>,
        rate: (&'static str, &'static str),
        usage: impl FnOnce(Decimal) -> Usage,
    ) {
        match amount {
            Some(a) => self.usages.push(usage(a)),
            None => self.rates.push(rate),
        }
    }
}

/// GB-months stored at steady state by `gb` ingested a month and kept `days` (at most a year
/// counted: the estimate is of a month of the first year), to the hundredth.
pub fn stored_gb_months(gb: Decimal, days: u32) -> Decimal {
    (gb * Decimal::from(days.min(365)) / Decimal::from(30u32)).round_dp(2)
}

impl Catalogue {
    /// The default catalogue embedded in the binary.
    pub fn builtin() -> Catalogue {
        // The embedded file is checked by the `builtin_catalogue_parses` test; a failure here
        // is a build defect, not user input.
        Catalogue::parse(BUILTIN_FILE, BUILTIN_TEXT)
            .expect("the embedded catalogue.yaml parses (checked by the builtin_catalogue_parses test)")
    }

    /// Parses a catalogue file; errors are diagnostics with line and column.
    ///
    /// Every section is optional, so a user file may hold only what it adds or overrides.
    pub fn parse(file: &str, text: &str) -> Result<Catalogue, Vec<Diagnostic>> {
        file::parse(file, text)
    }

    /// A catalogue of prices only (no sizes), as an importer produces: laid over another with
    /// [`Catalogue::extended_with`], it adds or replaces those regions' prices.
    pub fn with_prices(regions: IndexMap<String, PriceTable>) -> Catalogue {
        Catalogue { sizes: Sizes::default(), regions }
    }

    /// Every price key the sizes of this catalogue need to be priced, in catalogue order, each
    /// once: instances, storage and proxy of every postgres size, nodes of every cache size,
    /// standard and FIFO requests of queues and topics, bucket storage, Fargate vCPU and GB,
    /// the per-environment ALB (with its public IPv4 addresses), private zone, secret, VPC
    /// endpoint and NAT gateway, and an alarm; then the rates of what is billed by use that
    /// an environment may declare (`usage`): log ingestion and storage, Aurora I/O, bucket
    /// requests, data through NAT and endpoints and out to the internet. The budget's rate is
    /// not among them: no amount of it is ever counted.
    pub fn price_keys(&self) -> Vec<String> {
        // Every section named: a new one is a compile error here.
        let Sizes { postgres_rds, postgres_aurora, cache, messaging, bucket, workload } = &self.sizes;
        let one = Some(Decimal::ONE);
        let mut items: Vec<Item<'_>> = Vec::new();
        for (engine, map) in
            [(PostgresEngine::Rds, &postgres_rds), (PostgresEngine::Aurora, &postgres_aurora)]
        {
            for size in map.keys() {
                items.push(Item::Postgres { engine, size, storage_gb: None, io: None });
                items.push(Item::RdsProxy { engine, size });
            }
        }
        items.extend(cache.keys().map(|size| Item::Cache { size }));
        for size in messaging.keys() {
            items.extend([
                Item::Queue { fifo: false, size, requests: None },
                Item::Queue { fifo: true, size, requests: None },
                Item::Topic { fifo: false, size, requests: None },
                Item::Topic { fifo: true, size, requests: None },
            ]);
        }
        items.extend(bucket.keys().map(|size| Item::Bucket { size, storage_gb: None, requests: None }));
        for size in workload.keys() {
            items.extend(Architecture::ALL.map(|architecture| Item::Tasks { size, tasks: 1, architecture }));
        }
        items.extend([
            Item::Alb { zones: 2 },
            Item::PrivateZone,
            Item::Secret,
            Item::KmsKey { requests: None },
            Item::InterfaceEndpoint { zones: 2 },
            Item::Vpc { nat: 1, endpoints: false, nat_gb: None, endpoint_gb: None, internet_gb: None },
            Item::Alarm,
        ]);
        // What an environment may declare a use of.
        let aurora = postgres_aurora.keys().next();
        items.extend(aurora.map(|size| Item::Postgres {
            engine: PostgresEngine::Aurora,
            size,
            storage_gb: one,
            io: one,
        }));
        items.extend(bucket.keys().next().map(|size| Item::Bucket { size, storage_gb: one, requests: one }));
        items.extend([
            Item::LogGroup { ingested_gb: one, retention_days: 30 },
            Item::KmsKey { requests: one },
            Item::Vpc { nat: 1, endpoints: true, nat_gb: one, endpoint_gb: one, internet_gb: one },
        ]);
        let mut keys: Vec<String> = Vec::new();
        for item in &items {
            let usages = self.charges(item).map(|c| c.usages).unwrap_or_default();
            for usage in usages {
                if !keys.contains(&usage.key) {
                    keys.push(usage.key);
                }
            }
        }
        keys
    }

    /// The catalogue in its YAML file format; [`Catalogue::parse`] reads it back unchanged.
    pub fn to_yaml(&self) -> String {
        file::to_yaml(self)
    }

    /// This catalogue with `other` laid over it: new sizes and regions added, prices overridden.
    ///
    /// A size named in both is replaced whole by `other`'s; a price key named in both regions
    /// is replaced by `other`'s. Order: this catalogue's entries first, then `other`'s new ones.
    #[must_use]
    pub fn extended_with(&self, other: &Catalogue) -> Catalogue {
        fn lay<V: Clone>(base: &IndexMap<String, V>, over: &IndexMap<String, V>) -> IndexMap<String, V> {
            let mut out = base.clone();
            for (k, v) in over {
                out.insert(k.clone(), v.clone());
            }
            out
        }
        let s = &self.sizes;
        let o = &other.sizes;
        let sizes = Sizes {
            postgres_rds: lay(&s.postgres_rds, &o.postgres_rds),
            postgres_aurora: lay(&s.postgres_aurora, &o.postgres_aurora),
            cache: lay(&s.cache, &o.cache),
            messaging: lay(&s.messaging, &o.messaging),
            bucket: lay(&s.bucket, &o.bucket),
            workload: lay(&s.workload, &o.workload),
        };
        let mut regions = self.regions.clone();
        for (name, table) in &other.regions {
            let merged = match regions.get(name) {
                Some(base) => lay(base, table),
                None => table.clone(),
            };
            regions.insert(name.clone(), merged);
        }
        Catalogue { sizes, regions }
    }

    /// Every size name of any kind (for `unknown-size` checks), in catalogue order.
    pub fn size_names(&self) -> Vec<String> {
        // Every section named: a new one is a compile error here.
        let Sizes { postgres_rds, postgres_aurora, cache, messaging, bucket, workload } = &self.sizes;
        let mut names: Vec<String> = Vec::new();
        let all = postgres_rds
            .keys()
            .chain(postgres_aurora.keys())
            .chain(cache.keys())
            .chain(messaging.keys())
            .chain(bucket.keys())
            .chain(workload.keys());
        for name in all {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        names
    }

    /// Regions with a price table.
    pub fn regions(&self) -> Vec<String> {
        self.regions.keys().cloned().collect()
    }

    /// A region's price table, in file order.
    pub fn price_table(&self, region: &str) -> Option<&PriceTable> {
        self.regions.get(region)
    }

    /// What a postgres size declares; `None` for a size the catalogue lacks.
    pub fn postgres(&self, engine: PostgresEngine, size: &str) -> Option<PostgresSize> {
        match engine {
            PostgresEngine::Rds => self.sizes.postgres_rds.get(size).cloned(),
            PostgresEngine::Aurora => self.sizes.postgres_aurora.get(size).cloned(),
        }
    }

    /// What a cache size declares.
    pub fn cache(&self, size: &str) -> Option<CacheSize> {
        self.sizes.cache.get(size).cloned()
    }

    /// What a workload size declares.
    pub fn task(&self, size: &str) -> Option<TaskSize> {
        self.sizes.workload.get(size).cloned()
    }

    /// Monthly requests a queue or topic size assumes.
    pub fn requests(&self, size: &str) -> Option<u64> {
        self.sizes.messaging.get(size).copied()
    }

    /// GB a bucket size assumes.
    pub fn bucket_gb(&self, size: &str) -> Option<u64> {
        self.sizes.bucket.get(size).copied()
    }

    /// Prices an item in a region: its lines, and the rates of what it is billed by a use
    /// nobody declared. An item with no line and only rates (a log group whose volume nobody
    /// declared, a budget) is [`Priced::UsageBased`]. A line whose price is missing makes the
    /// item unpriced; a rate whose price is missing is shown as such.
    pub fn price(&self, region: &str, item: &Item<'_>) -> Priced {
        let charges = match self.charges(item) {
            Ok(c) => c,
            Err(reason) => return Priced::Unpriced { reason },
        };
        if charges.usages.is_empty() && !charges.rates.is_empty() {
            return Priced::UsageBased { rates: self.rates(region, &charges.rates) };
        }
        let Some(table) = self.regions.get(region) else {
            return Priced::Unpriced {
                reason: format!("no price table for region `{region}` in the catalogue"),
            };
        };
        let mut lines = Vec::with_capacity(charges.usages.len());
        for u in charges.usages {
            let Some(entry) = table.get(&u.key) else {
                return Priced::Unpriced { reason: format!("no price `{}` in {region}", u.key) };
            };
            match &entry.status {
                PriceStatus::Priced { price, source, seen } => lines.push(Line {
                    key: u.key.as_str().into(),
                    what: u.what.into(),
                    quantity: u.quantity,
                    unit: entry.unit.as_str().into(),
                    unit_price: *price,
                    monthly: price.times(u.quantity),
                    source: format!("{source} (seen {seen})").into(),
                }),
                PriceStatus::Unpriced { unpriced } => {
                    return Priced::Unpriced {
                        reason: format!("no price `{}` in {region}: {unpriced}", u.key),
                    };
                }
            }
        }
        Priced::Lines { lines, rates: self.rates(region, &charges.rates) }
    }

    /// The rates of charges billed by use (`(what, price key)`), priced or not.
    fn rates(&self, region: &str, charges: &[(&str, &str)]) -> Vec<Rate> {
        let table = self.regions.get(region);
        charges
            .iter()
            .map(|&(what, key)| {
                let entry = table.and_then(|t| t.get(key));
                let (unit_price, source) = match entry.map(|e| &e.status) {
                    Some(PriceStatus::Priced { price, source, seen }) => {
                        (Some(*price), format!("{source} (seen {seen})"))
                    }
                    Some(PriceStatus::Unpriced { unpriced }) => {
                        (None, format!("no price `{key}` in {region}: {unpriced}"))
                    }
                    None => (None, format!("no price `{key}` in {region}")),
                };
                let unit = entry.map_or("", |e| e.unit.as_str());
                Rate {
                    key: key.into(),
                    what: what.into(),
                    unit: unit.into(),
                    unit_price,
                    source: source.into(),
                }
            })
            .collect()
    }

    /// What an item is charged: the price keys and monthly quantities it uses, and the rates
    /// of what it is billed by a use nobody declared; or why its size is unknown.
    fn charges(&self, item: &Item<'_>) -> Result<Charges, String> {
        let hours = Decimal::from(HOURS_PER_MONTH);
        let unknown = |kind: &str, size: &str| format!("no {kind} size `{size}` in the catalogue");
        let charges = match *item {
            Item::Postgres { engine, size, storage_gb, io } => {
                let kind = match engine {
                    PostgresEngine::Rds => "postgres rds",
                    PostgresEngine::Aurora => "postgres aurora",
                };
                let p = self.postgres(engine, size).ok_or_else(|| unknown(kind, size))?;
                postgres_charges(engine, &p, storage_gb, io)
            }
            Item::RdsProxy { engine, size } => {
                let kind = match engine {
                    PostgresEngine::Rds => "postgres rds",
                    PostgresEngine::Aurora => "postgres aurora",
                };
                let p = self.postgres(engine, size).ok_or_else(|| unknown(kind, size))?;
                let vcpus = proxy_vcpus(engine, &p);
                Charges::of(vec![Usage {
                    what: format!("RDS Proxy {vcpus} vCPU-hours (min 2 vCPU)"),
                    key: "rds-proxy".to_owned(),
                    quantity: hours * Decimal::from(vcpus),
                }])
            }
            Item::Cache { size } => {
                let c = self.cache(size).ok_or_else(|| unknown("cache", size))?;
                Charges::of(vec![Usage {
                    what: format!("{} x {} node-hours", c.nodes, c.node_type),
                    key: format!("cache-node/{}", c.node_type),
                    quantity: hours * Decimal::from(c.nodes),
                }])
            }
            Item::Queue { fifo, size, requests } | Item::Topic { fifo, size, requests } => {
                let (kind, key) = match (matches!(item, Item::Queue { .. }), fifo) {
                    (true, false) => ("queue", "sqs-standard"),
                    (true, true) => ("queue", "sqs-fifo"),
                    (false, false) => ("topic", "sns-standard"),
                    (false, true) => ("topic", "sns-fifo"),
                };
                let default = self.requests(size).ok_or_else(|| unknown(kind, size))?;
                let millions = requests.unwrap_or_else(|| Decimal::from(default) / Decimal::from(MILLION));
                Charges::of(vec![Usage {
                    what: format!("{key} {} requests", (millions * Decimal::from(MILLION)).normalize()),
                    key: key.to_owned(),
                    quantity: millions,
                }])
            }
            Item::Bucket { size, storage_gb, requests } => {
                let default = self.bucket_gb(size).ok_or_else(|| unknown("bucket", size))?;
                let gb = storage_gb.unwrap_or_else(|| Decimal::from(default));
                let mut c = Charges::of(vec![Usage {
                    what: format!("S3 Standard {} GB", gb.normalize()),
                    key: "s3-standard".to_owned(),
                    quantity: gb,
                }]);
                c.by_use(requests, ("S3 requests, at the PUT rate", "s3-requests"), |m| Usage {
                    what: format!(
                        "S3 {} requests at the PUT, COPY, POST, LIST rate",
                        (m * Decimal::from(MILLION)).normalize()
                    ),
                    key: "s3-requests".to_owned(),
                    quantity: m,
                });
                c
            }
            Item::Tasks { size, tasks, architecture } => {
                let t = self.task(size).ok_or_else(|| unknown("workload", size))?;
                let per = Decimal::from(1024u32);
                let n = Decimal::from(tasks);
                let (arch, key) = fargate_rates(architecture);
                Charges::of(vec![
                    Usage {
                        what: format!("{tasks} x {} CPU units Fargate {arch} vCPU-hours", t.cpu),
                        key: format!("{key}-vcpu"),
                        quantity: n * Decimal::from(t.cpu) / per * hours,
                    },
                    Usage {
                        what: format!("{tasks} x {} MiB Fargate {arch} GB-hours", t.memory_mib),
                        key: format!("{key}-gb"),
                        quantity: n * Decimal::from(t.memory_mib) / per * hours,
                    },
                ])
            }
            Item::Alb { zones } => Charges::of(vec![
                Usage { what: "ALB hours".to_owned(), key: "alb-hour".to_owned(), quantity: hours },
                Usage { what: "ALB 1 LCU every hour".to_owned(), key: "alb-lcu".to_owned(), quantity: hours },
                Usage {
                    what: format!("ALB public IPv4 addresses, one in each of {zones} zones"),
                    key: PUBLIC_IPV4.to_owned(),
                    quantity: hours * Decimal::from(zones),
                },
            ]),
            Item::PrivateZone => Charges::of(vec![Usage {
                what: "Route 53 private hosted zone".to_owned(),
                key: "route53-zone".to_owned(),
                quantity: Decimal::ONE,
            }]),
            Item::Secret => Charges::of(vec![Usage {
                what: "Secrets Manager secret".to_owned(),
                key: "secret".to_owned(),
                quantity: Decimal::ONE,
            }]),
            Item::KmsKey { requests } => kms_charges(requests),
            Item::InterfaceEndpoint { zones } => Charges::of(vec![Usage {
                what: format!("endpoint hours in {zones} zones"),
                key: "vpc-endpoint-hour".to_owned(),
                quantity: hours * Decimal::from(zones),
            }]),
            Item::LogGroup { ingested_gb, retention_days } => log_charges(ingested_gb, retention_days),
            Item::Budget => Charges {
                usages: Vec::new(),
                rates: vec![("AWS Budgets, past an account's first two", "budget")],
            },
            Item::LogBucket => Charges {
                usages: Vec::new(),
                rates: vec![("S3 Standard storage of the ALB's access logs", "s3-standard")],
            },
            Item::Vpc { nat, endpoints, nat_gb, endpoint_gb, internet_gb } => {
                vpc_charges(nat, endpoints, nat_gb, endpoint_gb, internet_gb)
            }
            Item::Alarm => Charges::of(vec![Usage {
                what: "CloudWatch standard alarm".to_owned(),
                key: "alarm".to_owned(),
                quantity: Decimal::ONE,
            }]),
        };
        Ok(charges)
    }
}

/// A million, the unit of request prices and amounts.
const MILLION: u32 = 1_000_000;

/// The price key of a public IPv4 address-hour (the ALB's, the NAT gateways').
const PUBLIC_IPV4: &str = "public-ipv4-hour";

/// A database's charges: instance-hours and storage (both doubled when Multi-AZ), and
/// Aurora's I/O requests on standard storage.
fn postgres_charges(
    engine: PostgresEngine,
    p: &PostgresSize,
    storage_gb: Option<Decimal>,
    io: Option<Decimal>,
) -> Charges {
    let hours = Decimal::from(HOURS_PER_MONTH);
    let (prefix, storage_key, storage_what) = match engine {
        PostgresEngine::Rds => ("rds-instance", "rds-storage-gp3", "gp3 storage"),
        PostgresEngine::Aurora => ("aurora-instance", "aurora-storage", "Aurora storage"),
    };
    // RDS storage is what the size allocates; Aurora's is what it stores.
    let gb = match engine {
        PostgresEngine::Rds => Decimal::from(p.storage_gb),
        PostgresEngine::Aurora => storage_gb.unwrap_or_else(|| Decimal::from(p.storage_gb)),
    };
    let copies = Decimal::from(if p.multi_az { 2u32 } else { 1 });
    let az = if p.multi_az { " (Multi-AZ: primary + standby)" } else { "" };
    let mut c = Charges::of(vec![
        Usage {
            what: format!("{} x {} instance-hours{az}", p.instances, p.instance_class),
            key: format!("{prefix}/{}", p.instance_class),
            quantity: hours * Decimal::from(p.instances) * copies,
        },
        Usage {
            what: match (engine, p.max_storage_gb) {
                (PostgresEngine::Rds, Some(max)) => {
                    format!("{storage_what} {} GB{az}, grows to {max} GB as used", gb.normalize())
                }
                (PostgresEngine::Rds | PostgresEngine::Aurora, _) => {
                    format!("{storage_what} {} GB{az}", gb.normalize())
                }
            },
            key: storage_key.to_owned(),
            quantity: gb * copies,
        },
    ]);
    if engine == PostgresEngine::Aurora {
        c.by_use(io, ("Aurora I/O requests (standard storage)", "aurora-io"), |m| Usage {
            what: format!("Aurora I/O {} million requests", m.normalize()),
            key: "aurora-io".to_owned(),
            quantity: m,
        });
    }
    c
}

/// A log group's charges: ingestion and storage at steady state, or both rates.
fn log_charges(ingested_gb: Option<Decimal>, retention_days: u32) -> Charges {
    let Some(gb) = ingested_gb else {
        return Charges {
            usages: Vec::new(),
            rates: vec![
                ("CloudWatch Logs ingestion", "logs-ingestion"),
                ("CloudWatch Logs storage", "logs-storage"),
            ],
        };
    };
    let kept = retention_days.min(365);
    Charges::of(vec![
        Usage {
            what: format!("CloudWatch Logs ingestion {} GB", gb.normalize()),
            key: "logs-ingestion".to_owned(),
            quantity: gb,
        },
        Usage {
            what: format!("CloudWatch Logs storage, {} GB a month kept {kept} days", gb.normalize()),
            key: "logs-storage".to_owned(),
            quantity: stored_gb_months(gb, retention_days),
        },
    ])
}

/// A KMS key's charges: the key-month, and its requests when declared (a rate otherwise).
fn kms_charges(requests: Option<Decimal>) -> Charges {
    let key = Usage {
        what: "KMS customer managed key".to_owned(),
        key: "kms-key".to_owned(),
        quantity: Decimal::ONE,
    };
    match requests {
        Some(quantity) => Charges::of(vec![
            key,
            Usage { what: "KMS requests (million)".to_owned(), key: "kms-requests".to_owned(), quantity },
        ]),
        None => Charges { usages: vec![key], rates: vec![("KMS requests", "kms-requests")] },
    }
}

/// What the VPC charges the environment.
fn vpc_charges(
    nat: u32,
    endpoints: bool,
    nat_gb: Option<Decimal>,
    endpoint_gb: Option<Decimal>,
    internet_gb: Option<Decimal>,
) -> Charges {
    let hours = Decimal::from(HOURS_PER_MONTH);
    let mut c = Charges::default();
    if nat > 0 {
        c.usages.push(Usage {
            what: format!("{nat} x NAT gateway-hours"),
            key: "nat-gateway-hour".to_owned(),
            quantity: hours * Decimal::from(nat),
        });
        c.usages.push(Usage {
            what: format!("{nat} x NAT gateway public IPv4 address-hours"),
            key: PUBLIC_IPV4.to_owned(),
            quantity: hours * Decimal::from(nat),
        });
        c.by_use(nat_gb, ("data processed by the NAT gateways", "nat-gateway-gb"), |gb| Usage {
            what: format!("{} GB processed by the NAT gateways", gb.normalize()),
            key: "nat-gateway-gb".to_owned(),
            quantity: gb,
        });
    }
    if endpoints {
        c.by_use(endpoint_gb, ("data processed by the VPC endpoints", "vpc-endpoint-gb"), |gb| Usage {
            what: format!("{} GB processed by the VPC endpoints", gb.normalize()),
            key: "vpc-endpoint-gb".to_owned(),
            quantity: gb,
        });
    }
    c.by_use(internet_gb, ("data out to the internet (first paid tier)", "internet-out-gb"), |gb| Usage {
        what: format!("{} GB out to the internet (first paid tier)", gb.normalize()),
        key: "internet-out-gb".to_owned(),
        quantity: gb,
    });
    c
}

/// How the Fargate lines of an architecture name it, and the stem of its price keys
/// (`fargate-arm-vcpu`, `fargate-x86-gb`).
fn fargate_rates(architecture: Architecture) -> (&'static str, &'static str) {
    match architecture {
        Architecture::Arm64 => ("ARM64", "fargate-arm"),
        Architecture::X86_64 => ("x86_64", "fargate-x86"),
    }
}

/// vCPUs RDS Proxy bills for: the target instance's vCPUs for RDS (a Multi-AZ standby is not
/// a target), every instance's vCPUs for an Aurora cluster; at least 2.
pub fn proxy_vcpus(engine: PostgresEngine, size: &PostgresSize) -> u32 {
    let vcpus = match engine {
        PostgresEngine::Rds => size.vcpu,
        PostgresEngine::Aurora => size.vcpu.saturating_mul(size.instances),
    };
    vcpus.max(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_catalogue_parses() {
        let cat = Catalogue::parse(BUILTIN_FILE, BUILTIN_TEXT).expect("builtin parses");
        assert_eq!(cat.regions(), ["us-east-1", "eu-central-1", "eu-west-1"]);
        assert_eq!(cat.size_names(), ["small", "medium", "large"]);
        // Every price key the sizes need exists in every region, priced or with a reason.
        for region in cat.regions() {
            let table = cat.price_table(&region).expect("table");
            let us = cat.price_table("us-east-1").expect("us table");
            assert_eq!(table.keys().collect::<Vec<_>>(), us.keys().collect::<Vec<_>>(), "{region}");
        }
    }

    /// Every price names where a reader can check it: a URL (a repository file is cited by its
    /// GitHub URL), never an id only a search index understands.
    #[test]
    fn builtin_sources_are_urls() {
        let cat = Catalogue::parse(BUILTIN_FILE, BUILTIN_TEXT).expect("builtin parses");
        for region in cat.regions() {
            for (key, entry) in cat.price_table(&region).expect("table") {
                if let PriceStatus::Priced { source, .. } = &entry.status {
                    assert!(source.starts_with("https://"), "{region} {key}: source is not a URL: {source}");
                    assert!(!source.contains("index file id"), "{region} {key}: {source}");
                }
            }
        }
    }

    #[test]
    fn default_sizes_follow_the_spec() {
        let cat = Catalogue::builtin();
        let t = cat.task("medium").expect("medium");
        assert_eq!((t.cpu, t.memory_mib), (1024, 2048));
        let p = cat.postgres(PostgresEngine::Rds, "medium").expect("medium");
        assert_eq!((p.instance_class.as_str(), p.storage_gb, p.multi_az), ("db.t4g.medium", 100, true));
        let a = cat.postgres(PostgresEngine::Aurora, "large").expect("large");
        assert_eq!((a.instance_class.as_str(), a.instances), ("db.r7g.xlarge", 2));
        assert_eq!(
            cat.cache("large").map(|c| (c.node_type, c.nodes)),
            Some(("cache.m7g.large".to_owned(), 2))
        );
        assert_eq!(cat.requests("medium"), Some(10_000_000));
        assert_eq!(cat.bucket_gb("large"), Some(1024));
        assert_eq!(cat.task("xlarge"), None);
    }
}
