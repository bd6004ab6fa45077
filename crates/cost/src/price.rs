//! Pricing: an [`Item`] turned into [`Line`]s of checkable arithmetic, or the reason it cannot
//! be ([`Priced::Unpriced`]), and the charges each kind of item is billed by.

use std::sync::Arc;

use runway_schema::{Architecture, Money, PostgresEngine};
use rust_decimal::Decimal;
use serde::Serialize;

use crate::{
    Catalogue, HOURS_PER_MONTH, Item, PostgresSize, PriceStatus, Sizes, exact_money, exact_money_opt,
};

/// The texts of a [`Line`] or a [`Rate`]: which price, what is charged, its unit and where the
/// price comes from. A plan repeats the same few lines on thousands of items: each line's
/// texts are one record its copies share (`Arc`, 8 bytes a line, where four shared texts were
/// 64: 1.6 MB at 32,000 lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineText {
    /// The catalogue's price key (`rds-instance/db.t4g.micro`, `logs-ingestion`).
    pub key: Box<str>,
    /// What is charged (`db.t4g.micro instance-hours`, `CloudWatch Logs ingestion`).
    pub what: Box<str>,
    /// The unit (`hour`, `GB-month`, `million requests`).
    pub unit: Box<str>,
    /// Where the price comes from (URL or document) and when it was seen, or why there is none.
    pub source: Box<str>,
}

impl LineText {
    /// The texts as one shared record.
    pub fn shared(key: &str, what: &str, unit: &str, source: &str) -> Arc<LineText> {
        Arc::new(LineText { key: key.into(), what: what.into(), unit: unit.into(), source: source.into() })
    }
}

/// One line of arithmetic a person can check: quantity x unit price = monthly.
///
/// It reads as its texts (`line.key`, `line.what`, `line.unit`, `line.source`: [`Deref`]) and
/// serializes as `{"key", "what", "quantity", "unit", "unitPrice", "monthly", "source"}`.
///
/// [`Deref`]: std::ops::Deref
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Its texts, shared by every copy of the line.
    pub text: Arc<LineText>,
    /// How many units a month (exact).
    pub quantity: Decimal,
    /// Price of one unit, exact (serialized with every digit, not rounded to cents).
    pub unit_price: Money,
    /// quantity x unit price, exact.
    pub monthly: Money,
}

impl std::ops::Deref for Line {
    type Target = LineText;

    fn deref(&self) -> &LineText {
        &self.text
    }
}

/// The JSON of a [`Line`], as it always was.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LineJson<'a> {
    key: &'a str,
    what: &'a str,
    quantity: Decimal,
    unit: &'a str,
    #[serde(serialize_with = "exact_money")]
    unit_price: Money,
    monthly: Money,
    source: &'a str,
}

impl Serialize for Line {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = &*self.text;
        LineJson {
            key: &t.key,
            what: &t.what,
            quantity: self.quantity,
            unit: &t.unit,
            unit_price: self.unit_price,
            monthly: self.monthly,
            source: &t.source,
        }
        .serialize(s)
    }
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
///
/// It reads as its texts (`rate.key`, `rate.what`, `rate.unit`, `rate.source`: [`Deref`]) and
/// serializes as `{"key", "what", "unit", "unitPrice", "source"}`.
///
/// [`Deref`]: std::ops::Deref
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rate {
    /// Its texts (the key `logs-ingestion`, what is charged, the unit, where the price comes
    /// from and when it was seen or why there is none), shared by every copy of the rate.
    pub text: Arc<LineText>,
    /// Price of one unit, exact; `None` when the catalogue has no price for it.
    pub unit_price: Option<Money>,
}

impl std::ops::Deref for Rate {
    type Target = LineText;

    fn deref(&self) -> &LineText {
        &self.text
    }
}

/// The JSON of a [`Rate`], as it always was.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RateJson<'a> {
    key: &'a str,
    what: &'a str,
    unit: &'a str,
    #[serde(serialize_with = "exact_money_opt")]
    unit_price: Option<Money>,
    source: &'a str,
}

impl Serialize for Rate {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = &*self.text;
        RateJson { key: &t.key, what: &t.what, unit: &t.unit, unit_price: self.unit_price, source: &t.source }
            .serialize(s)
    }
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
                    text: LineText::shared(&u.key, &u.what, &entry.unit, &format!("{source} (seen {seen})")),
                    quantity: u.quantity,
                    unit_price: *price,
                    monthly: price.times(u.quantity),
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
                Rate { text: LineText::shared(key, what, unit, &source), unit_price }
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
                Charges::of(task_usages(&t, (tasks, architecture), hours, ""))
            }
            Item::ReleaseFleet { size, tasks, architecture, releases, minutes } => {
                let t = self.task(size).ok_or_else(|| unknown("workload", size))?;
                // To the second, as Fargate bills: a whole number of seconds in hours, rounded
                // to six places so the quantity reads (and is reproduced) as written.
                let hours = (releases * Decimal::from(minutes) / Decimal::from(60u32)).round_dp(6);
                let during = format!(" of a second fleet, {} releases x {minutes} min", releases.normalize());
                Charges::of(task_usages(&t, (tasks, architecture), hours, &during))
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

/// The vCPU-hours and GB-hours of `tasks` Fargate tasks of a size for `hours`; `during` ends
/// what each line says.
fn task_usages(
    t: &crate::TaskSize,
    (tasks, architecture): (u32, Architecture),
    hours: Decimal,
    during: &str,
) -> Vec<Usage> {
    let per = Decimal::from(1024u32);
    let n = Decimal::from(tasks);
    let (arch, key) = fargate_rates(architecture);
    vec![
        Usage {
            what: format!("{tasks} x {} CPU units Fargate {arch} vCPU-hours{during}", t.cpu),
            key: format!("{key}-vcpu"),
            quantity: n * Decimal::from(t.cpu) / per * hours,
        },
        Usage {
            what: format!("{tasks} x {} MiB Fargate {arch} GB-hours{during}", t.memory_mib),
            key: format!("{key}-gb"),
            quantity: n * Decimal::from(t.memory_mib) / per * hours,
        },
    ]
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
