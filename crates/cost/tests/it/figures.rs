//! Hand-computed us-east-1 figures for every kind and size of the built-in catalogue.
//! Each expectation writes out its arithmetic; the catalogue must reproduce it exactly.

use std::str::FromStr;

use cost::{Catalogue, Item, Priced};
use runway_schema::PostgresEngine::{Aurora, Rds};
use rust_decimal::Decimal;

/// The default architecture's tasks.
const ARM: runway_schema::Architecture = runway_schema::Architecture::Arm64;

fn d(text: &str) -> Decimal {
    Decimal::from_str(text).expect("test decimal")
}

/// `lines`: (quantity, unit price, monthly) per line, in order; `total`: their exact sum.
fn check(region: &str, item: Item<'_>, lines: &[(&str, &str, &str)], total: &str) {
    let cat = Catalogue::builtin();
    let priced = cat.price(region, &item);
    let Priced::Lines { lines: got, .. } = &priced else {
        panic!("{item:?} in {region} should be priced, got {priced:?}");
    };
    assert_eq!(got.len(), lines.len(), "{item:?}: {got:#?}");
    for (line, (q, p, m)) in got.iter().zip(lines) {
        assert_eq!(line.quantity, d(q), "{item:?} quantity of `{}`", line.what);
        assert_eq!(line.unit_price.0, d(p), "{item:?} unit price of `{}`", line.what);
        assert_eq!(line.monthly.0, d(m), "{item:?} monthly of `{}`", line.what);
        // Every line names its source and when the figure was seen.
        assert!(line.source.starts_with("https://") && line.source.contains("(seen 20"), "{}", line.source);
    }
    assert_eq!(priced.monthly().map(|m| m.0), Some(d(total)), "{item:?} total");
}

fn unpriced(region: &str, item: Item<'_>, reason_has: &str) {
    match Catalogue::builtin().price(region, &item) {
        Priced::Unpriced { reason } => assert!(reason.contains(reason_has), "{item:?}: {reason}"),
        other => panic!("{item:?} in {region} should be unpriced, got {other:?}"),
    }
}

const US: &str = "us-east-1";

#[test]
fn rds_postgres() {
    // small: db.t4g.micro 0.016 x 730 = 11.68; gp3 0.115 x 20 GB = 2.30; single-AZ.
    check(
        US,
        Item::Postgres { engine: Rds, size: "small", storage_gb: None, io: None },
        &[("730", "0.016", "11.68"), ("20", "0.115", "2.30")],
        "13.98",
    );
    // medium: Multi-AZ doubles both: 0.065 x 730 x 2 = 94.90; 0.115 x 100 x 2 = 23.00.
    check(
        US,
        Item::Postgres { engine: Rds, size: "medium", storage_gb: None, io: None },
        &[("1460", "0.065", "94.90"), ("200", "0.115", "23.00")],
        "117.90",
    );
    // large: 0.168 x 730 x 2 = 245.28; 0.115 x 200 x 2 = 46.00.
    check(
        US,
        Item::Postgres { engine: Rds, size: "large", storage_gb: None, io: None },
        &[("1460", "0.168", "245.28"), ("400", "0.115", "46.00")],
        "291.28",
    );
}

#[test]
fn rds_proxy() {
    // Every RDS size targets a 2-vCPU instance: 2 x 0.015 x 730 = 21.90 (the minimum is 2 anyway).
    for size in ["small", "medium", "large"] {
        check(US, Item::RdsProxy { engine: Rds, size }, &[("1460", "0.015", "21.90")], "21.90");
    }
    // Aurora counts every instance of the cluster: small 1 x 2 vCPU = 2 -> 21.90;
    // medium 2 x 2 = 4 -> 4 x 0.015 x 730 = 43.80; large 2 x 4 = 8 -> 87.60.
    check(US, Item::RdsProxy { engine: Aurora, size: "small" }, &[("1460", "0.015", "21.90")], "21.90");
    check(US, Item::RdsProxy { engine: Aurora, size: "medium" }, &[("2920", "0.015", "43.80")], "43.80");
    check(US, Item::RdsProxy { engine: Aurora, size: "large" }, &[("5840", "0.015", "87.60")], "87.60");
}

#[test]
fn aurora_postgres() {
    // small: 1 x db.t4g.medium 0.073 x 730 = 53.29; Aurora storage 0.10 x 20 GB = 2.00.
    check(
        US,
        Item::Postgres { engine: Aurora, size: "small", storage_gb: None, io: None },
        &[("730", "0.073", "53.29"), ("20", "0.10", "2.00")],
        "55.29",
    );
    // medium: 2 x db.r7g.large: 1460 h x 0.276 = 402.96; storage counted once: 100 x 0.10 = 10.
    check(
        US,
        Item::Postgres { engine: Aurora, size: "medium", storage_gb: None, io: None },
        &[("1460", "0.276", "402.96"), ("100", "0.10", "10.00")],
        "412.96",
    );
    // large: 2 x db.r7g.xlarge: 1460 h x 0.553 = 807.38; 200 GB x 0.10 = 20.
    check(
        US,
        Item::Postgres { engine: Aurora, size: "large", storage_gb: None, io: None },
        &[("1460", "0.553", "807.38"), ("200", "0.10", "20.00")],
        "827.38",
    );
}

#[test]
fn cache() {
    // small: 1 x cache.t4g.micro 0.0128 x 730 = 9.344.
    check(US, Item::Cache { size: "small" }, &[("730", "0.0128", "9.344")], "9.344");
    // medium: 2 x cache.t4g.medium (Valkey 0.052): 1460 node-hours x 0.052 = 75.92.
    check(US, Item::Cache { size: "medium" }, &[("1460", "0.052", "75.92")], "75.92");
    // large: 2 x cache.m7g.large (Valkey 0.1264): 2 x 730 = 1460 node-hours x 0.1264 = 184.544.
    check(US, Item::Cache { size: "large" }, &[("1460", "0.1264", "184.544")], "184.544");
}

/// us-east-1 prices every key the sizes need, except FIFO topics, which are not modelled.
#[test]
fn us_east_1_is_complete() {
    let cat = Catalogue::builtin();
    let table = cat.price_table(US).expect("us-east-1");
    for key in cat.price_keys() {
        let entry = table.get(&key).unwrap_or_else(|| panic!("no {key}"));
        match &entry.status {
            cost::PriceStatus::Priced { source, .. } => {
                assert!(source.contains("directness "), "{key}: the source says how direct it is: {source}");
            }
            cost::PriceStatus::Unpriced { unpriced } => assert_eq!(key, "sns-fifo", "{key}: {unpriced}"),
        }
    }
}

#[test]
fn queues_and_topics() {
    // SQS standard 0.40 per million: 1M -> 0.40, 10M -> 4.00, 100M -> 40.00.
    check(US, Item::Queue { fifo: false, size: "small", requests: None }, &[("1", "0.40", "0.40")], "0.40");
    check(US, Item::Queue { fifo: false, size: "medium", requests: None }, &[("10", "0.40", "4.00")], "4.00");
    check(
        US,
        Item::Queue { fifo: false, size: "large", requests: None },
        &[("100", "0.40", "40.00")],
        "40.00",
    );
    // SQS FIFO 0.50 per million.
    check(US, Item::Queue { fifo: true, size: "small", requests: None }, &[("1", "0.50", "0.50")], "0.50");
    check(
        US,
        Item::Queue { fifo: true, size: "large", requests: None },
        &[("100", "0.50", "50.00")],
        "50.00",
    );
    // SNS standard 0.50 per million.
    check(US, Item::Topic { fifo: false, size: "small", requests: None }, &[("1", "0.50", "0.50")], "0.50");
    check(US, Item::Topic { fifo: false, size: "medium", requests: None }, &[("10", "0.50", "5.00")], "5.00");
    check(
        US,
        Item::Topic { fifo: false, size: "large", requests: None },
        &[("100", "0.50", "50.00")],
        "50.00",
    );
    unpriced(US, Item::Topic { fifo: true, size: "small", requests: None }, "sns-fifo");
}

#[test]
fn buckets() {
    // S3 Standard 0.023 per GB-month: 10 -> 0.23, 100 -> 2.30, 1024 -> 23.552.
    check(
        US,
        Item::Bucket { size: "small", storage_gb: None, requests: None },
        &[("10", "0.023", "0.23")],
        "0.23",
    );
    check(
        US,
        Item::Bucket { size: "medium", storage_gb: None, requests: None },
        &[("100", "0.023", "2.30")],
        "2.30",
    );
    check(
        US,
        Item::Bucket { size: "large", storage_gb: None, requests: None },
        &[("1024", "0.023", "23.552")],
        "23.552",
    );
}

#[test]
fn fargate_tasks() {
    // small, 1 task: 0.25 vCPU x 730 = 182.5 vCPU-h x 0.03238 = 5.90935;
    //                0.5 GB x 730 = 365 GB-h x 0.00356 = 1.2994; total 7.20875.
    check(
        US,
        Item::Tasks { size: "small", tasks: 1, architecture: ARM },
        &[("182.5", "0.03238", "5.90935"), ("365", "0.00356", "1.2994")],
        "7.20875",
    );
    // medium, 1 task: 1 x 730 x 0.03238 = 23.6374; 2 x 730 = 1460 x 0.00356 = 5.1976; total 28.835.
    check(
        US,
        Item::Tasks { size: "medium", tasks: 1, architecture: ARM },
        &[("730", "0.03238", "23.6374"), ("1460", "0.00356", "5.1976")],
        "28.835",
    );
    // large, 3 tasks: 3 x 2 x 730 = 4380 x 0.03238 = 141.8244; 3 x 4 x 730 = 8760 x 0.00356 = 31.1856.
    check(
        US,
        Item::Tasks { size: "large", tasks: 3, architecture: ARM },
        &[("4380", "0.03238", "141.8244"), ("8760", "0.00356", "31.1856")],
        "173.01",
    );
}

/// x86_64 tasks at the Linux/x86 rates, in each region the built-in catalogue prices them.
#[test]
fn fargate_x86_tasks() {
    let x86 = runway_schema::Architecture::X86_64;
    // small, 1 task: 0.25 vCPU x 730 = 182.5 vCPU-h x 0.04048 = 7.3876;
    //                0.5 GB x 730 = 365 GB-h x 0.004445 = 1.622425; total 9.010025.
    check(
        US,
        Item::Tasks { size: "small", tasks: 1, architecture: x86 },
        &[("182.5", "0.04048", "7.3876"), ("365", "0.004445", "1.622425")],
        "9.010025",
    );
    // medium, 2 tasks: 2 x 1 x 730 = 1460 x 0.04048 = 59.1008; 2 x 2 x 730 = 2920 x 0.004445 = 12.9794.
    check(
        US,
        Item::Tasks { size: "medium", tasks: 2, architecture: x86 },
        &[("1460", "0.04048", "59.1008"), ("2920", "0.004445", "12.9794")],
        "72.0802",
    );
    // eu-west-1 has the us-east-1 x86 rates.
    check(
        "eu-west-1",
        Item::Tasks { size: "small", tasks: 1, architecture: x86 },
        &[("182.5", "0.04048", "7.3876"), ("365", "0.004445", "1.622425")],
        "9.010025",
    );
    // eu-central-1 (Frankfurt), large, 1 task: 2 x 730 = 1460 x 0.04656 = 67.9776;
    //                                          4 x 730 = 2920 x 0.00511 = 14.9212; total 82.8988.
    check(
        "eu-central-1",
        Item::Tasks { size: "large", tasks: 1, architecture: x86 },
        &[("1460", "0.04656", "67.9776"), ("2920", "0.00511", "14.9212")],
        "82.8988",
    );
    // The same task costs more on x86 than on ARM, and the lines say which rates they use.
    let cat = Catalogue::builtin();
    let arm = cat.price(US, &Item::Tasks { size: "small", tasks: 1, architecture: ARM });
    let intel = cat.price(US, &Item::Tasks { size: "small", tasks: 1, architecture: x86 });
    assert!(intel.monthly() > arm.monthly());
    let Priced::Lines { lines, .. } = intel else { panic!("priced") };
    assert_eq!(lines[0].key.as_ref(), "fargate-x86-vcpu");
    assert!(lines[0].what.contains("Fargate x86_64 vCPU-hours"), "{}", lines[0].what);
}

#[test]
fn per_environment_items() {
    // ALB: 0.0225 x 730 = 16.425 hours + one LCU every hour 0.008 x 730 = 5.84; total 22.265.
    check(
        US,
        Item::Alb { zones: 2 },
        &[("730", "0.0225", "16.425"), ("730", "0.008", "5.84"), ("1460", "0.005", "7.30")],
        "29.565",
    );
    check(US, Item::PrivateZone, &[("1", "0.50", "0.50")], "0.50");
    check(US, Item::Secret, &[("1", "0.40", "0.40")], "0.40");
}

#[test]
fn a_small_environment_adds_up_to_the_cent() {
    // small RDS 13.98 + proxy 21.90 + secret 0.40 + one small task 7.20875 + zone 0.50 = 43.98875,
    // shown as 43.99 (half away from zero).
    let cat = Catalogue::builtin();
    let items = [
        Item::Postgres { engine: Rds, size: "small", storage_gb: None, io: None },
        Item::RdsProxy { engine: Rds, size: "small" },
        Item::Secret,
        Item::Tasks { size: "small", tasks: 1, architecture: ARM },
        Item::PrivateZone,
    ];
    let total: cost::Money = items.iter().map(|i| cat.price(US, i).monthly().expect("priced")).sum();
    assert_eq!(total.0, d("43.98875"));
    assert_eq!(total.to_string(), "43.99");
}

#[test]
fn other_regions_say_what_they_lack() {
    unpriced(
        "eu-central-1",
        Item::Tasks { size: "small", tasks: 1, architecture: ARM },
        "runway catalogue import --region eu-central-1",
    );
    unpriced(
        "eu-west-1",
        Item::Postgres { engine: Rds, size: "small", storage_gb: None, io: None },
        "runway catalogue import --region eu-west-1",
    );
    unpriced("ap-south-2", Item::Alb { zones: 2 }, "no price table for region `ap-south-2`");
    unpriced(
        US,
        Item::Bucket { size: "xlarge", storage_gb: None, requests: None },
        "no bucket size `xlarge`",
    );
    // Route 53 hosted zones are a global price.
    check("eu-west-1", Item::PrivateZone, &[("1", "0.50", "0.50")], "0.50");
    // eu-west-1 Fargate Linux/ARM has the us-east-1 rates, 0.03238 / 0.00356:
    // small, 1 task: 0.25 x 730 = 182.5 vCPU-h x 0.03238 = 5.90935; 0.5 x 730 = 365 GB-h x 0.00356 = 1.2994.
    check(
        "eu-west-1",
        Item::Tasks { size: "small", tasks: 1, architecture: ARM },
        &[("182.5", "0.03238", "5.90935"), ("365", "0.00356", "1.2994")],
        "7.20875",
    );
    // medium, 2 tasks: 2 x 1 x 730 = 1460 x 0.03238 = 47.2748; 2 x 2 x 730 = 2920 x 0.00356 = 10.3952.
    check(
        "eu-west-1",
        Item::Tasks { size: "medium", tasks: 2, architecture: ARM },
        &[("1460", "0.03238", "47.2748"), ("2920", "0.00356", "10.3952")],
        "57.67",
    );
}

#[test]
fn eu_alb_hours_are_priced_but_the_alb_stays_unpriced_without_an_lcu_rate() {
    let cat = Catalogue::builtin();
    // `seen` is the date of the source's data: the billing period's end, or the page's read.
    for (region, hourly, date) in
        [("eu-central-1", "0.027", "2024-09-30"), ("eu-west-1", "0.0252", "2026-12-02")]
    {
        let table = cat.price_table(region).expect("region table");
        let entry = table.get("alb-hour").expect("alb-hour");
        assert_eq!(entry.unit, "hour");
        let cost::PriceStatus::Priced { price, seen, .. } = &entry.status else {
            panic!("alb-hour in {region} should be priced: {entry:?}");
        };
        assert_eq!(price.0, d(hourly), "{region}");
        assert_eq!(seen, date, "{region}");
        // 730 h x 0.027 = 19.71 (eu-central-1); 730 h x 0.0252 = 18.396 (eu-west-1); but no
        // public source gave the LCU-hour rate, so the ALB item as a whole is unpriced.
        unpriced(region, Item::Alb { zones: 2 }, "alb-lcu");
    }
}

/// The rate keys of a price, in order (what is billed by a use nobody declared).
fn rate_keys(region: &str, item: &Item<'_>) -> Vec<String> {
    match Catalogue::builtin().price(region, item) {
        Priced::Lines { rates, .. } | Priced::UsageBased { rates } => {
            rates.iter().map(|r| r.key.to_string()).collect()
        }
        Priced::Unpriced { reason } => panic!("{item:?}: {reason}"),
    }
}

#[test]
fn the_vpc_charges_nat_gateways_their_addresses_and_declared_data() {
    // 2 NAT gateways: 2 x 730 x 0.045 = 65.70; their addresses 2 x 730 x 0.005 = 7.30.
    let none = Item::Vpc { nat: 2, endpoints: false, nat_gb: None, endpoint_gb: None, internet_gb: None };
    check(US, none.clone(), &[("1460", "0.045", "65.70"), ("1460", "0.005", "7.30")], "73.00");
    // Data through NAT and out to the internet nobody declared: rates, not amounts.
    assert_eq!(rate_keys(US, &none), ["nat-gateway-gb", "internet-out-gb"]);
    // Declared: 100 GB x 0.045 = 4.50 through NAT; 50 GB x 0.09 = 4.50 out.
    let declared = Item::Vpc {
        nat: 2,
        endpoints: false,
        nat_gb: Some(d("100")),
        endpoint_gb: None,
        internet_gb: Some(d("50")),
    };
    check(
        US,
        declared.clone(),
        &[
            ("1460", "0.045", "65.70"),
            ("1460", "0.005", "7.30"),
            ("100", "0.045", "4.50"),
            ("50", "0.09", "4.50"),
        ],
        "82.00",
    );
    assert!(rate_keys(US, &declared).is_empty());
    // No NAT (endpoints instead): nothing fixed; endpoint data at 0.01 when declared.
    let endpoints = Item::Vpc {
        nat: 0,
        endpoints: true,
        nat_gb: Some(d("100")),
        endpoint_gb: Some(d("20")),
        internet_gb: None,
    };
    check(US, endpoints.clone(), &[("20", "0.01", "0.20")], "0.20");
    assert_eq!(rate_keys(US, &endpoints), ["internet-out-gb"]);
    let nothing = Item::Vpc { nat: 0, endpoints: false, nat_gb: None, endpoint_gb: None, internet_gb: None };
    assert!(matches!(Catalogue::builtin().price(US, &nothing), Priced::UsageBased { .. }));
    // eu-west-1 prices the NAT gateway; eu-central-1 does not yet.
    check("eu-west-1", none.clone(), &[("1460", "0.048", "70.08"), ("1460", "0.005", "7.30")], "77.38");
    unpriced("eu-central-1", none, "nat-gateway-hour");
}

#[test]
fn declared_usage_is_counted_and_the_rest_is_a_rate() {
    // 5 GB ingested x 0.50 = 2.50; kept 90 days: 5 x 90 / 30 = 15 GB-months x 0.03 = 0.45.
    let logs = Item::LogGroup { ingested_gb: Some(d("5")), retention_days: 90 };
    check(US, logs, &[("5", "0.50", "2.50"), ("15", "0.03", "0.45")], "2.95");
    // Kept 14 days: 5 x 14 / 30 = 2.333.. -> 2.33 GB-months; a retention past a year counts a year.
    check(
        US,
        Item::LogGroup { ingested_gb: Some(d("5")), retention_days: 14 },
        &[("5", "0.50", "2.50"), ("2.33", "0.03", "0.0699")],
        "2.5699",
    );
    check(
        US,
        Item::LogGroup { ingested_gb: Some(d("1")), retention_days: 3653 },
        &[("1", "0.50", "0.50"), ("12.17", "0.03", "0.3651")],
        "0.8651",
    );
    let undeclared = Item::LogGroup { ingested_gb: None, retention_days: 90 };
    assert!(matches!(Catalogue::builtin().price(US, &undeclared), Priced::UsageBased { .. }));
    // Queue requests declared: 2.5 million x 0.40 = 1.00 (the size's 1 million overridden).
    check(
        US,
        Item::Queue { fifo: false, size: "small", requests: Some(d("2.5")) },
        &[("2.5", "0.40", "1.00")],
        "1.00",
    );
    // Bucket: 50 GB x 0.023 = 1.15; 3 million requests x 5.00 = 15.00.
    check(
        US,
        Item::Bucket { size: "small", storage_gb: Some(d("50")), requests: Some(d("3")) },
        &[("50", "0.023", "1.15"), ("3", "5.00", "15.00")],
        "16.15",
    );
    assert_eq!(
        rate_keys(US, &Item::Bucket { size: "small", storage_gb: None, requests: None }),
        ["s3-requests"]
    );
    // Aurora small, 40 GB stored and 50 million I/O: 0.073 x 730 = 53.29; 40 x 0.10 = 4.00; 50 x 0.20 = 10.00.
    check(
        US,
        Item::Postgres { engine: Aurora, size: "small", storage_gb: Some(d("40")), io: Some(d("50")) },
        &[("730", "0.073", "53.29"), ("40", "0.10", "4.00"), ("50", "0.20", "10.00")],
        "67.29",
    );
    assert_eq!(
        rate_keys(US, &Item::Postgres { engine: Aurora, size: "small", storage_gb: None, io: None }),
        ["aurora-io"]
    );
    // RDS storage is what its size allocates; neither amount is read.
    let rds = Item::Postgres { engine: Rds, size: "small", storage_gb: Some(d("999")), io: Some(d("999")) };
    check(US, rds.clone(), &[("730", "0.016", "11.68"), ("20", "0.115", "2.30")], "13.98");
    assert!(rate_keys(US, &rds).is_empty());
    // An alarm, for the operations issue: 0.10 a month.
    check(US, Item::Alarm, &[("1", "0.10", "0.10")], "0.10");
}

#[test]
fn every_new_key_is_among_the_price_keys() {
    let keys = Catalogue::builtin().price_keys();
    for key in [
        "public-ipv4-hour",
        "nat-gateway-hour",
        "alarm",
        "aurora-io",
        "s3-requests",
        "logs-ingestion",
        "logs-storage",
        "nat-gateway-gb",
        "vpc-endpoint-gb",
        "internet-out-gb",
    ] {
        assert!(keys.iter().any(|k| k == key), "{key} in {keys:?}");
    }
    assert!(!keys.iter().any(|k| k == "budget"), "no amount of a budget is counted");
}
