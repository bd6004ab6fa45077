//! Which price-list row prices each catalogue key: one module per offer, and the one
//! resolution every rule shares (region, on-demand terms, the paid tier, the unit).

use std::str::FromStr;

use cost::{Money, PriceEntry, PriceStatus};
use rust_decimal::Decimal;

use crate::offer::{Dimension, Offer, Product};
use crate::region::usage_is;

mod cloudwatch;
mod ec2;
mod ecs;
mod elasticache;
mod elb;
mod kms;
mod rds;
mod route53;
mod s3;
mod secretsmanager;
mod sns;
mod sqs;
mod transfer;
mod vpc;

/// The offers the catalogue's keys are read from, in the order they are fetched.
pub const OFFERS: &[&str] = &[
    "AmazonRDS",
    "AmazonElastiCache",
    "AmazonECS",
    "AWSELB",
    "AWSQueueService",
    "AmazonSNS",
    "AmazonS3",
    "AWSSecretsManager",
    "awskms",
    "AmazonRoute53",
    "AmazonVPC",
    "AmazonCloudWatch",
    "AWSDataTransfer",
    // The largest (about 480 MB for us-east-1), read last: the NAT gateway's rows.
    "AmazonEC2",
];

/// A product test: the product and the region's usage-type prefix.
pub(crate) type Test = Box<dyn Fn(&Product, &str) -> bool + Send + Sync>;

/// How one catalogue price key is read from an offer.
pub(crate) struct Rule {
    /// The catalogue price key (`rds-instance/db.t4g.micro`).
    pub key: String,
    /// The offer holding it (`AmazonRDS`).
    pub offer: &'static str,
    /// The catalogue's unit for the key (`hour`).
    pub unit: &'static str,
    /// The offer units a matching row may have (`Hrs`), compared without case.
    pub offer_units: &'static [&'static str],
    /// Catalogue units per offer unit's price: 1, or 1,000,000 for a price per request
    /// written per million requests (a change of unit, not an estimate).
    pub scale: u32,
    /// What the rule looks for, as an unpriced reason shows it.
    pub wants: String,
    /// A global price (Route 53): rows match whatever their `regionCode`, and any file of the
    /// offer may be read when its index lists none for the region.
    pub global: bool,
    /// The product test (besides the region).
    pub test: Test,
}

/// What the importer does with a catalogue key.
pub(crate) enum Lookup {
    /// Read it with this rule.
    Rule(Rule),
    /// Write it unpriced with this unit and reason: the catalogue does not model its billing.
    NotModelled { unit: &'static str, reason: &'static str },
    /// A key this importer does not read: left out of the file, so the catalogue's own entry
    /// (built-in or the user's) stays.
    Unknown,
}

/// The rule of a catalogue key.
pub(crate) fn lookup(key: &str) -> Lookup {
    for module in [
        rds::rule,
        elasticache::rule,
        ecs::rule,
        elb::rule,
        sqs::rule,
        sns::rule,
        s3::rule,
        secretsmanager::rule,
        kms::rule,
        route53::rule,
        vpc::rule,
        cloudwatch::rule,
        transfer::rule,
        ec2::rule,
    ] {
        if let Some(found) = module(key) {
            return found;
        }
    }
    Lookup::Unknown
}

/// The usage kind of a `usagetype` in a region: the text after the region's own prefix, or
/// the whole text when it has none (`InstanceUsage:db.r7g.xl`).
pub(crate) fn usage_kind<'a>(usagetype: &'a str, prefix: &str) -> &'a str {
    usagetype.strip_prefix(prefix).and_then(|r| r.strip_prefix('-')).unwrap_or(usagetype)
}

/// Does the product's `usagetype` name `kind` in the region of `prefix`?
pub(crate) fn usage(p: &Product, prefix: &str, kind: &str) -> bool {
    usage_is(p.attr("usagetype"), prefix, kind)
}

/// A row chosen for a rule: its product and the dimension priced.
struct Candidate<'a> {
    product: &'a Product,
    dimension: &'a Dimension,
    price: Decimal,
}

/// Is the product in the region (by `regionCode`, or `fromRegionCode` for data transfer's
/// rows, never by the `location` text, which differs between sources)? A global price (Route
/// 53) is the same wherever its row says it is, so its rows match whatever their `regionCode`,
/// or without one.
fn in_region(p: &Product, region: &str, global: bool) -> bool {
    let code = p.attributes.get("regionCode").or_else(|| p.attributes.get("fromRegionCode"));
    global || code.is_some_and(|code| code == region)
}

/// Does the rule want this product in this region? Used to keep products while reading.
pub(crate) fn wants(rule: &Rule, p: &Product, region: &str, prefix: &str) -> bool {
    in_region(p, region, rule.global) && (rule.test)(p, prefix)
}

/// The paid tier of a SKU's on-demand terms: the dimension with the lowest `beginRange`
/// whose USD price is above zero (a free first tier, as SNS has, is skipped). `Err` names
/// what is wrong with the row.
fn paid_tier<'a>(dims: impl Iterator<Item = &'a Dimension>) -> Result<(&'a Dimension, Decimal), String> {
    let mut best: Option<(Decimal, &Dimension, Decimal)> = None;
    for d in dims {
        let Some(text) = d.price.get("USD") else { continue };
        let price =
            Decimal::from_str(text.trim()).map_err(|_| format!("its USD price `{text}` is not a decimal"))?;
        if price.is_sign_negative() {
            return Err(format!("its USD price `{text}` is negative"));
        }
        if price.is_zero() {
            continue;
        }
        let begin = Decimal::from_str(d.begin.trim()).unwrap_or(Decimal::ZERO);
        if best.as_ref().is_none_or(|(b, _, _)| begin < *b) {
            best = Some((begin, d, price));
        }
    }
    best.map(|(_, d, p)| (d, p)).ok_or_else(|| "it has no paid USD tier".to_owned())
}

/// Prices a rule from an offer read for `region`: the on-demand rows it matches, their paid
/// tier, in the catalogue's unit. No row, rows that disagree or a row in another unit give
/// an unpriced entry that names the offer, its version and what was looked for.
pub(crate) fn resolve(rule: &Rule, offer: &Offer, region: &str, prefix: &str, url: &str) -> PriceEntry {
    let unpriced = |why: String| PriceEntry {
        unit: rule.unit.to_owned(),
        status: PriceStatus::Unpriced {
            unpriced: format!("AWS Price List offer {} version {} ({url}): {why}", offer.code, offer.version),
        },
    };
    let mut candidates: Vec<Candidate<'_>> = Vec::new();
    let mut rejected: Vec<String> = Vec::new();
    for product in offer.products.values().filter(|p| wants(rule, p, region, prefix)) {
        let Some(terms) = offer.on_demand.get(&product.sku) else { continue };
        match paid_tier(terms.iter().flat_map(|t| t.dimensions.values())) {
            Ok((dimension, price)) => {
                if rule.offer_units.iter().any(|u| u.eq_ignore_ascii_case(dimension.unit.trim())) {
                    candidates.push(Candidate { product, dimension, price });
                } else {
                    rejected.push(format!(
                        "SKU {} is in `{}`, not {}",
                        product.sku,
                        dimension.unit,
                        rule.offer_units.join(" or ")
                    ));
                }
            }
            Err(why) => rejected.push(format!("SKU {}: {why}", product.sku)),
        }
    }
    let Some(first) = candidates.first() else {
        let also = if rejected.is_empty() { String::new() } else { format!(" ({})", rejected.join("; ")) };
        return unpriced(format!("no on-demand row in {region} is {}{also}", rule.wants));
    };
    if let Some(other) = candidates.iter().find(|c| c.price != first.price) {
        return unpriced(format!(
            "on-demand rows in {region} that are {} disagree: SKU {} ${} and SKU {} ${}; not chosen between",
            rule.wants,
            first.product.sku,
            first.price.normalize(),
            other.product.sku,
            other.price.normalize()
        ));
    }
    // A price no real row has (past 28 digits once scaled) is refused, not a panic.
    let Some(price) = first.price.checked_mul(Decimal::from(rule.scale)) else {
        return unpriced(format!("SKU {}: its USD price {} is out of range", first.product.sku, first.price));
    };
    let price = price.normalize();
    let agree =
        if candidates.len() > 1 { format!(", {} rows agree", candidates.len()) } else { String::new() };
    let description = first.dimension.description.trim();
    let described = if description.is_empty() { String::new() } else { format!(", '{description}'") };
    PriceEntry {
        unit: rule.unit.to_owned(),
        status: PriceStatus::Priced {
            price: Money(price),
            source: format!(
                "{url} (AWS Price List offer {} version {}, SKU {}, usage type {}{described}{agree})",
                offer.code,
                offer.version,
                first.product.sku,
                first.product.attr("usagetype"),
            ),
            seen: offer.published.get(..10).unwrap_or_default().to_owned(),
        },
    }
}

/// Units of the offers, by kind of price.
pub(crate) mod units {
    /// Per hour.
    pub(crate) const HOURS: &[&str] = &["Hrs", "Hours", "hour", "Hr"];
    /// Per GB-month.
    pub(crate) const GB_MONTH: &[&str] = &["GB-Mo", "GB-Month"];
    /// Per request (scaled to per million).
    pub(crate) const REQUESTS: &[&str] = &["Requests", "Request"];
    /// Per I/O request (scaled to per million).
    pub(crate) const IOS: &[&str] = &["IOs", "IO"];
    /// Per GB (of data processed, transferred or ingested).
    pub(crate) const GB: &[&str] = &["GB", "GigaBytes"];
    /// Per alarm a month.
    pub(crate) const ALARMS: &[&str] = &["Alarms", "Alarm"];
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offer::Term;

    fn dim(begin: &str, usd: &str) -> Dimension {
        Dimension {
            description: String::new(),
            unit: "Requests".into(),
            begin: begin.into(),
            end: "Inf".into(),
            price: [("USD".to_owned(), usd.to_owned())].into(),
        }
    }

    #[test]
    fn the_paid_tier_is_the_lowest_priced_range_above_zero() {
        let dims = [dim("1000000", "0.0000005"), dim("0", "0"), dim("5000000", "0.0000004")];
        let (d, price) = paid_tier(dims.iter()).unwrap();
        assert_eq!((d.begin.as_str(), price), ("1000000", Decimal::from_str("0.0000005").unwrap()));
        assert!(paid_tier([dim("0", "0")].iter()).is_err());
        assert!(paid_tier([dim("0", "-1")].iter()).is_err());
        assert!(paid_tier([dim("0", "0,5")].iter()).is_err());
    }

    /// A row: SKU, family, attributes, unit, USD price.
    type Row<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], &'a str, &'a str);

    /// An offer of `rows`, all on-demand.
    fn offer(code: &str, rows: &[Row<'_>]) -> Offer {
        let mut o = Offer {
            code: code.into(),
            version: "1".into(),
            published: "2026-11-01".into(),
            ..Offer::default()
        };
        for (sku, family, attrs, unit, usd) in rows {
            let attributes = attrs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
            o.products
                .insert((*sku).into(), Product { sku: (*sku).into(), family: (*family).into(), attributes });
            let dimension = Dimension { unit: (*unit).into(), ..dim("0", usd) };
            o.on_demand
                .insert((*sku).into(), vec![Term { dimensions: [("r".to_owned(), dimension)].into() }]);
        }
        o
    }

    fn price_of(key: &str, offer: &Offer) -> Option<String> {
        let Lookup::Rule(rule) = lookup(key) else { panic!("{key} has no rule") };
        match resolve(&rule, offer, "us-east-1", "USE1", "url").status {
            PriceStatus::Priced { price, .. } => Some(price.0.normalize().to_string()),
            PriceStatus::Unpriced { .. } => None,
        }
    }

    /// us-east-1 writes some usage types bare and keeps `USE1-` on others (Fargate, Secrets
    /// Manager, RDS Proxy): both are read; another region's prefix, or a row of another
    /// `regionCode`, never is.
    #[test]
    fn us_east_1_usage_types_bare_or_prefixed() {
        let us = ("regionCode", "us-east-1");
        let pg = [
            us,
            ("databaseEngine", "PostgreSQL"),
            ("deploymentOption", "Single-AZ"),
            ("instanceType", "db.t4g.micro"),
        ];
        let rds = offer(
            "AmazonRDS",
            &[
                (
                    "A",
                    "Database Instance",
                    &[pg[0], pg[1], pg[2], pg[3], ("usagetype", "InstanceUsage:db.t4g.micro")],
                    "Hrs",
                    "0.016",
                ),
                (
                    "B",
                    "",
                    &[us, ("databaseEngine", "PostgreSQL"), ("usagetype", "USE1-RDS:ProxyUsage")],
                    "Hrs",
                    "0.015",
                ),
                // Decoys: another region's row and prefix.
                (
                    "C",
                    "Database Instance",
                    &[
                        ("regionCode", "us-west-2"),
                        pg[1],
                        pg[2],
                        pg[3],
                        ("usagetype", "USW2-InstanceUsage:db.t4g.micro"),
                    ],
                    "Hrs",
                    "0.9",
                ),
                (
                    "D",
                    "",
                    &[us, ("databaseEngine", "PostgreSQL"), ("usagetype", "USW2-RDS:ProxyUsage")],
                    "Hrs",
                    "0.9",
                ),
            ],
        );
        assert_eq!(price_of("rds-instance/db.t4g.micro", &rds).as_deref(), Some("0.016"));
        assert_eq!(price_of("rds-proxy", &rds).as_deref(), Some("0.015"));
        let ecs = offer(
            "AmazonECS",
            &[
                (
                    "E",
                    "Compute",
                    &[us, ("usagetype", "USE1-Fargate-ARM-vCPU-Hours:perCPU")],
                    "hours",
                    "0.03238",
                ),
                ("F", "Compute", &[us, ("usagetype", "USE1-Fargate-vCPU-Hours:perCPU")], "hours", "0.04048"),
            ],
        );
        assert_eq!(price_of("fargate-arm-vcpu", &ecs).as_deref(), Some("0.03238"));
        let elb = offer(
            "AWSELB",
            &[
                (
                    "G",
                    "Load Balancer-Application",
                    &[us, ("usagetype", "LoadBalancerUsage")],
                    "Hrs",
                    "0.0225",
                ),
                (
                    "H",
                    "Load Balancer-Application",
                    &[us, ("usagetype", "TS-LoadBalancerUsage")],
                    "Hrs",
                    "0.9",
                ),
            ],
        );
        assert_eq!(price_of("alb-hour", &elb).as_deref(), Some("0.0225"));
        // SQS names its us-east-1 request rows `Requests-RBP` in some sources: read by queue type.
        let sqs = offer(
            "AWSQueueService",
            &[(
                "I",
                "API Request",
                &[us, ("queueType", "Standard"), ("usagetype", "Requests-RBP")],
                "Requests",
                "0.0000004",
            )],
        );
        assert_eq!(price_of("sqs-standard", &sqs).as_deref(), Some("0.4"));
    }

    /// The SQS offer's queue types as it spells them: each key reads its own rows, and the
    /// `Fair` rows beside them are read by neither.
    #[test]
    fn sqs_queue_types_as_the_offer_spells_them() {
        let us = ("regionCode", "us-east-1");
        let row = |sku, queue_type, usagetype, usd| {
            (
                sku,
                "API Request",
                vec![us, ("queueType", queue_type), ("usagetype", usagetype)],
                "Requests",
                usd,
            )
        };
        let rows = [
            row("S", "Standard", "Requests-RBP", "0.0000004"),
            row("F", "FIFO (first-in, first-out)", "Requests-FIFO-RBP", "0.0000005"),
            row("R", "Fair", "Requests-Fair-RBP", "0.0000001"),
        ];
        let rows: Vec<Row<'_>> = rows.iter().map(|(s, f, a, u, p)| (*s, *f, a.as_slice(), *u, *p)).collect();
        let sqs = offer("AWSQueueService", &rows);
        assert_eq!(price_of("sqs-standard", &sqs).as_deref(), Some("0.4"));
        assert_eq!(price_of("sqs-fifo", &sqs).as_deref(), Some("0.5"));
    }

    /// The rows of the fixed network charges and of what is billed by use, as the offers spell
    /// them in us-east-1 (bare, or `USE1-`), each beside the row a naive reader would take.
    #[test]
    fn network_and_usage_rows_beside_their_decoys() {
        let us = ("regionCode", "us-east-1");
        let ec2 = offer(
            "AmazonEC2",
            &[
                ("N1", "NAT Gateway", &[us, ("usagetype", "NatGateway-Hours")], "Hrs", "0.045"),
                ("N2", "NAT Gateway", &[us, ("usagetype", "RegionalNatGateway-Hours")], "Hrs", "0.9"),
                ("N3", "NAT Gateway", &[us, ("usagetype", "NatGateway-Prvd-Hours")], "Gbps-hrs", "1.076"),
                ("N4", "NAT Gateway", &[us, ("usagetype", "NatGateway-Bytes")], "GB", "0.045"),
                ("N5", "NAT Gateway", &[us, ("usagetype", "RegionalNatGateway-Bytes")], "GB", "0.9"),
                ("N6", "Compute Instance", &[us, ("usagetype", "BoxUsage:t3.micro")], "Hrs", "0.0104"),
            ],
        );
        assert_eq!(price_of("nat-gateway-hour", &ec2).as_deref(), Some("0.045"));
        assert_eq!(price_of("nat-gateway-gb", &ec2).as_deref(), Some("0.045"));
        let vpc = offer(
            "AmazonVPC",
            &[
                (
                    "V1",
                    "VPC Public IPv4 Address",
                    &[us, ("usagetype", "USE1-PublicIPv4:InUseAddress")],
                    "Hrs",
                    "0.005",
                ),
                (
                    "V2",
                    "VPC Public IPv4 Address",
                    &[us, ("usagetype", "USE1-PublicIPv4:IdleAddress")],
                    "Hrs",
                    "0.9",
                ),
                ("V3", "VpcEndpoint", &[us, ("usagetype", "USE1-VpcEndpoint-Bytes")], "GB", "0.01"),
                ("V4", "VpcEndpoint", &[us, ("usagetype", "USE1-VpcEndpoint-Hours")], "Hrs", "0.01"),
            ],
        );
        assert_eq!(price_of("public-ipv4-hour", &vpc).as_deref(), Some("0.005"));
        assert_eq!(price_of("vpc-endpoint-gb", &vpc).as_deref(), Some("0.01"));
        // Data transfer names its region `fromRegionCode`; between zones, to another region
        // and in are other rows.
        let from = ("fromRegionCode", "us-east-1");
        let out = [
            from,
            ("toLocation", "External"),
            ("transferType", "AWS Outbound"),
            ("usagetype", "DataTransfer-Out-Bytes"),
        ];
        let transfer = offer(
            "AWSDataTransfer",
            &[
                ("T1", "Data Transfer", &out, "GB", "0.09"),
                (
                    "T2",
                    "Data Transfer",
                    &[
                        from,
                        ("toLocation", "US East (N. Virginia)"),
                        ("transferType", "IntraRegion"),
                        ("usagetype", "DataTransfer-Regional-Bytes"),
                    ],
                    "GB",
                    "0.01",
                ),
                (
                    "T3",
                    "Data Transfer",
                    &[
                        from,
                        ("toLocation", "EU (Ireland)"),
                        ("transferType", "InterRegion Outbound"),
                        ("usagetype", "USE1-EU-AWS-Out-Bytes"),
                    ],
                    "GB",
                    "0.02",
                ),
                (
                    "T4",
                    "Data Transfer",
                    &[
                        ("fromRegionCode", "eu-west-1"),
                        out[1],
                        out[2],
                        ("usagetype", "EU-DataTransfer-Out-Bytes"),
                    ],
                    "GB",
                    "0.9",
                ),
            ],
        );
        assert_eq!(price_of("internet-out-gb", &transfer).as_deref(), Some("0.09"));
        let cw = offer(
            "AmazonCloudWatch",
            &[
                ("C1", "Alarm", &[us, ("usagetype", "CW:AlarmMonitorUsage")], "Alarms", "0.10"),
                ("C2", "Alarm", &[us, ("usagetype", "CW:HighResAlarmMonitorUsage")], "Alarms", "0.30"),
                ("C3", "Data Payload", &[us, ("usagetype", "USE1-DataProcessing-Bytes")], "GB", "0.50"),
                ("C4", "Data Payload", &[us, ("usagetype", "USE1-DataProcessingIA-Bytes")], "GB", "0.25"),
                ("C5", "Data Payload", &[us, ("usagetype", "USE1-VendedLog-Bytes")], "GB", "0.75"),
                (
                    "C6",
                    "Storage Snapshot",
                    &[us, ("usagetype", "USE1-TimedStorage-ByteHrs")],
                    "GB-Mo",
                    "0.03",
                ),
            ],
        );
        assert_eq!(price_of("alarm", &cw).as_deref(), Some("0.1"));
        assert_eq!(price_of("logs-ingestion", &cw).as_deref(), Some("0.5"));
        assert_eq!(price_of("logs-storage", &cw).as_deref(), Some("0.03"));
        // Per request or I/O, written per million.
        let s3 = offer(
            "AmazonS3",
            &[
                ("S1", "API Request", &[us, ("usagetype", "Requests-Tier1")], "Requests", "0.000005"),
                ("S2", "API Request", &[us, ("usagetype", "Requests-Tier2")], "Requests", "0.0000004"),
                ("S3", "API Request", &[us, ("usagetype", "Requests-SIA-Tier1")], "Requests", "0.00001"),
            ],
        );
        assert_eq!(price_of("s3-requests", &s3).as_deref(), Some("5"));
        let rds = offer(
            "AmazonRDS",
            &[
                (
                    "R1",
                    "System Operation",
                    &[us, ("databaseEngine", "Any"), ("usagetype", "Aurora:StorageIOUsage")],
                    "IOs",
                    "0.0000002",
                ),
                (
                    "R2",
                    "Database Storage",
                    &[us, ("databaseEngine", "Any"), ("usagetype", "Aurora:IO-OptimizedStorageUsage")],
                    "GB-Mo",
                    "0.225",
                ),
            ],
        );
        assert_eq!(price_of("aurora-io", &rds).as_deref(), Some("0.2"));
    }

    #[test]
    fn every_offer_key_has_a_rule_and_others_are_unknown() {
        for key in [
            "rds-instance/db.t4g.micro",
            "aurora-instance/db.r7g.xlarge",
            "aurora-storage",
            "rds-proxy",
            "rds-storage-gp3",
            "cache-node/cache.t4g.medium",
            "fargate-arm-vcpu",
            "fargate-arm-gb",
            "alb-hour",
            "alb-lcu",
            "sqs-standard",
            "sqs-fifo",
            "sns-standard",
            "s3-standard",
            "secret",
            "route53-zone",
            "vpc-endpoint-hour",
            "vpc-endpoint-gb",
            "public-ipv4-hour",
            "nat-gateway-hour",
            "nat-gateway-gb",
            "internet-out-gb",
            "aurora-io",
            "s3-requests",
            "alarm",
            "logs-ingestion",
            "logs-storage",
        ] {
            assert!(matches!(lookup(key), Lookup::Rule(_)), "{key}");
        }
        // Every key the built-in catalogue's sizes and usages need has a rule (or is not
        // modelled): none is left to the catalogue's own entry by accident.
        for key in cost::Catalogue::builtin().price_keys() {
            assert!(!matches!(lookup(&key), Lookup::Unknown), "{key} has no rule");
        }
        assert!(matches!(lookup("sns-fifo"), Lookup::NotModelled { .. }));
        for key in ["budget", "rds-instance/", "cache-node/"] {
            assert!(matches!(lookup(key), Lookup::Unknown), "{key}");
        }
    }
}
