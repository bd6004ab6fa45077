//! The priced size catalogue: what each kind and size declares and costs a month, per region.
//!
//! SKELETON — the API contract shared by the planner; the cost issue fills it in.
//! This crate performs no I/O: the default catalogue is embedded at build time and a user's
//! catalogue arrives as text.

use indexmap::IndexMap;
pub use runway_schema::Money;
use runway_schema::{Diagnostic, PostgresEngine};
use rust_decimal::Decimal;
use serde::Serialize;

/// Hours in a month, for every hourly price.
pub const HOURS_PER_MONTH: u32 = 730;

/// The catalogue: sizes of every kind and the prices per region.
#[derive(Clone, Debug, PartialEq)]
pub struct Catalogue {
    // filled in by the cost issue
    _private: (),
}

/// What a postgres size declares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PostgresSize {
    /// Instance class (`db.t4g.micro`).
    pub instance_class: String,
    /// Instances (1 for RDS; Aurora writer + readers).
    pub instances: u32,
    /// Allocated gp3 storage in GB (RDS) or the storage the estimate assumes (Aurora).
    pub storage_gb: u32,
    /// Multi-AZ (RDS).
    pub multi_az: bool,
    /// vCPUs of one instance (RDS Proxy is priced per vCPU of its target).
    pub vcpu: u32,
}

/// What a cache (Valkey) size declares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheSize {
    /// Node type (`cache.t4g.micro`).
    pub node_type: String,
    /// Nodes in the replication group.
    pub nodes: u32,
}

/// What a workload size declares (one Fargate ARM64 task).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSize {
    /// CPU units (1024 = 1 vCPU), as ECS takes them.
    pub cpu: u32,
    /// Memory in MiB, as ECS takes it.
    pub memory_mib: u32,
}

/// A planned item to price. The planner builds these; [`Catalogue::price`] prices them.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Item<'a> {
    /// A postgres resource's database: RDS instance + storage, or Aurora instances + storage.
    Postgres { engine: PostgresEngine, size: &'a str },
    /// The RDS Proxy in front of a postgres resource of this engine and size.
    RdsProxy { engine: PostgresEngine, size: &'a str },
    /// A Valkey replication group.
    Cache { size: &'a str },
    /// An SQS queue (its monthly requests from the size).
    Queue { fifo: bool, size: &'a str },
    /// An SNS topic.
    Topic { fifo: bool, size: &'a str },
    /// An S3 bucket.
    Bucket { size: &'a str },
    /// `tasks` Fargate ARM64 tasks of a workload size.
    Tasks { size: &'a str, tasks: u32 },
    /// The environment's ALB (hourly + one LCU).
    Alb,
    /// The Cloud Map namespace's Route 53 private hosted zone.
    PrivateZone,
    /// One Secrets Manager secret.
    Secret,
}

/// One line of arithmetic a person can check: quantity x unit price = monthly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Line {
    /// What is priced (`db.t4g.micro instance-hours`).
    pub what: String,
    /// How many units a month (exact).
    pub quantity: Decimal,
    /// The unit (`hour`, `GB-month`, `million requests`).
    pub unit: String,
    /// Price of one unit, exact.
    pub unit_price: Money,
    /// quantity x unit price, exact.
    pub monthly: Money,
    /// Where the price comes from (URL or document) and when it was seen.
    pub source: String,
}

/// The price of an item: its lines, or why it cannot be priced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "status")]
pub enum Priced {
    /// Priced: the monthly figure is the exact sum of the lines.
    Lines {
        /// The lines.
        lines: Vec<Line>,
    },
    /// The catalogue has no price for it; never counted as $0.
    Unpriced {
        /// Why (`no price for cache.m7g.large in ap-south-2`).
        reason: String,
    },
}

impl Priced {
    /// Exact sum of the lines; `None` when unpriced.
    pub fn monthly(&self) -> Option<Money> {
        match self {
            Priced::Lines { lines } => Some(lines.iter().map(|l| l.monthly).sum()),
            Priced::Unpriced { .. } => None,
        }
    }
}

impl Catalogue {
    /// The default catalogue embedded in the binary.
    pub fn builtin() -> Catalogue {
        unimplemented!("cost issue")
    }

    /// Parses a catalogue file; errors are diagnostics with line and column.
    pub fn parse(_file: &str, _text: &str) -> Result<Catalogue, Vec<Diagnostic>> {
        unimplemented!("cost issue")
    }

    /// This catalogue with `other` laid over it: new sizes and regions added, prices overridden.
    #[must_use]
    pub fn extended_with(&self, _other: &Catalogue) -> Catalogue {
        unimplemented!("cost issue")
    }

    /// Every size name of any kind (for `unknown-size` checks), in catalogue order.
    pub fn size_names(&self) -> Vec<String> {
        unimplemented!("cost issue")
    }

    /// Regions with a price table.
    pub fn regions(&self) -> Vec<String> {
        unimplemented!("cost issue")
    }

    /// What a postgres size declares; `None` for a size the catalogue lacks.
    pub fn postgres(&self, _engine: PostgresEngine, _size: &str) -> Option<PostgresSize> {
        unimplemented!("cost issue")
    }

    /// What a cache size declares.
    pub fn cache(&self, _size: &str) -> Option<CacheSize> {
        unimplemented!("cost issue")
    }

    /// What a workload size declares.
    pub fn task(&self, _size: &str) -> Option<TaskSize> {
        unimplemented!("cost issue")
    }

    /// Monthly requests a queue or topic size assumes.
    pub fn requests(&self, _size: &str) -> Option<u64> {
        unimplemented!("cost issue")
    }

    /// GB a bucket size assumes.
    pub fn bucket_gb(&self, _size: &str) -> Option<u64> {
        unimplemented!("cost issue")
    }

    /// Prices an item in a region.
    pub fn price(&self, _region: &str, _item: &Item<'_>) -> Priced {
        unimplemented!("cost issue")
    }
}

#[doc(hidden)]
pub type _Unused = IndexMap<String, String>;
