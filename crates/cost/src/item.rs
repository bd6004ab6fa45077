//! What the planner asks a price of: one [`Item`] per planned thing that costs.

use runway_schema::{Architecture, PostgresEngine};
use rust_decimal::Decimal;

/// A planned item to price. The planner builds these;
/// [`Catalogue::price`](crate::Catalogue::price) prices them.
///
/// An amount of use (`Option<Decimal>`) is the one the plan assumes: `None` where the size's
/// assumption holds (queue and topic requests, bucket and Aurora storage), or, for what no size
/// assumes, where nobody declared one: that charge's rate is shown (the `rates` of
/// `Priced::Lines`), not added.
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
    /// The second fleet a release runs under a strategy other than rolling: `tasks` more tasks
    /// of the size for `minutes` of each of `releases` releases a month.
    ReleaseFleet {
        /// Catalogue size name.
        size: &'a str,
        /// Tasks of the second fleet (the service's count).
        tasks: u32,
        /// ARM64 or x86_64, as the service's.
        architecture: Architecture,
        /// Releases a month.
        releases: Decimal,
        /// Minutes each release runs both fleets (`Deploy::two_fleet_minutes`).
        minutes: u32,
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
