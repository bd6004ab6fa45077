//! Properties of pricing and of the file format (proptest; strategies from `cost::strategies`).
#![cfg(feature = "proptest1")]

use cost::strategies;
use cost::{Catalogue, HOURS_PER_MONTH, Item, Money, Priced};
use proptest::prelude::*;
use runway_schema::PostgresEngine;
use rust_decimal::Decimal;

/// The default architecture's tasks.
const ARM: runway_schema::Architecture = runway_schema::Architecture::Arm64;

/// The built-in catalogue with these prices laid over every key of `region`.
fn with_prices(region: &str, prices: &[(&str, &str, Money)]) -> Catalogue {
    let mut text = format!("regions:\n  {region}:\n");
    for (key, unit, price) in prices {
        text.push_str(&format!(
            "    {key}: {{ unit: {unit}, price: \"{}\", source: test, seen: \"2026-12-02\" }}\n",
            price.0
        ));
    }
    let over = Catalogue::parse("prices.yaml", &text).expect("generated prices parse");
    Catalogue::builtin().extended_with(&over)
}

/// A catalogue with one workload size and one RDS size built from generated values.
fn sized(task: &cost::TaskSize, pg: &cost::PostgresSize) -> Catalogue {
    let text = format!(
        "sizes:\n  workload:\n    t: {{ cpu: {}, memoryMib: {} }}\n  postgres:\n    rds:\n      p: {{ instanceClass: db.t4g.micro, instances: {}, storageGb: {}, multiAz: {}, vcpu: {} }}\n",
        task.cpu, task.memory_mib, pg.instances, pg.storage_gb, pg.multi_az, pg.vcpu
    );
    Catalogue::builtin().extended_with(&Catalogue::parse("sizes.yaml", &text).expect("generated sizes parse"))
}

#[test]
fn larger_sizes_never_cost_less_in_the_builtin_catalogue() {
    let cat = Catalogue::builtin();
    let sizes = ["small", "medium", "large"];
    let kinds: Vec<Box<dyn Fn(&'static str) -> Item<'static>>> = vec![
        Box::new(|size| Item::Postgres { engine: PostgresEngine::Rds, size, storage_gb: None, io: None }),
        Box::new(|size| Item::Postgres { engine: PostgresEngine::Aurora, size, storage_gb: None, io: None }),
        Box::new(|size| Item::RdsProxy { engine: PostgresEngine::Rds, size }),
        Box::new(|size| Item::RdsProxy { engine: PostgresEngine::Aurora, size }),
        Box::new(|size| Item::Cache { size }),
        Box::new(|size| Item::Queue { fifo: false, size, requests: None }),
        Box::new(|size| Item::Queue { fifo: true, size, requests: None }),
        Box::new(|size| Item::Topic { fifo: false, size, requests: None }),
        Box::new(|size| Item::Bucket { size, storage_gb: None, requests: None }),
        Box::new(|size| Item::Tasks { size, tasks: 1, architecture: ARM }),
    ];
    let mut compared = 0;
    for region in cat.regions() {
        for kind in &kinds {
            for pair in sizes.windows(2) {
                let (small, big) = (cat.price(&region, &kind(pair[0])), cat.price(&region, &kind(pair[1])));
                if let (Some(a), Some(b)) = (small.monthly(), big.monthly()) {
                    assert!(a <= b, "{region}: {:?} {a:?} > {:?} {b:?}", kind(pair[0]), kind(pair[1]));
                    compared += 1;
                }
            }
        }
    }
    assert!(compared >= 15, "only {compared} priced pairs compared");
}

proptest! {
    /// With one price per unit, more capacity never costs less (queues, buckets, tasks).
    #[test]
    fn more_capacity_never_costs_less(
        p in strategies::price(), a in 1u64..1_000_000_000, b in 1u64..1_000_000_000,
        ta in strategies::task_size(), tb in strategies::task_size(),
    ) {
        let (lo, hi) = (a.min(b), a.max(b));
        let text = format!(
            "sizes:\n  messaging:\n    lo: {{ requests: {lo} }}\n    hi: {{ requests: {hi} }}\n  bucket:\n    lo: {{ storageGb: {lo} }}\n    hi: {{ storageGb: {hi} }}\n  workload:\n    lo: {{ cpu: {}, memoryMib: {} }}\n    hi: {{ cpu: {}, memoryMib: {} }}\n",
            ta.cpu.min(tb.cpu), ta.memory_mib.min(tb.memory_mib), ta.cpu.max(tb.cpu), ta.memory_mib.max(tb.memory_mib)
        );
        let cat = with_prices("us-east-1", &[
            ("sqs-standard", "million requests", p), ("s3-standard", "GB-month", p),
            ("fargate-arm-vcpu", "vCPU-hour", p), ("fargate-arm-gb", "GB-hour", p),
        ]).extended_with(&Catalogue::parse("s.yaml", &text).expect("parses"));
        for (small, big) in [
            (Item::Queue { fifo: false, size: "lo", requests: None }, Item::Queue { fifo: false, size: "hi", requests: None }),
            (Item::Bucket { size: "lo", storage_gb: None, requests: None }, Item::Bucket { size: "hi", storage_gb: None, requests: None }),
            (Item::Tasks { size: "lo", tasks: 1, architecture: ARM }, Item::Tasks { size: "hi", tasks: 1, architecture: ARM }),
        ] {
            let (x, y) = (cat.price("us-east-1", &small).monthly(), cat.price("us-east-1", &big).monthly());
            prop_assert!(x.is_some() && x <= y, "{small:?} {x:?} vs {big:?} {y:?}");
        }
    }

    /// A total is the exact sum of its lines, and every line is quantity x unit price.
    #[test]
    fn totals_are_exact_sums_of_lines(
        instance in strategies::price(), storage in strategies::price(),
        vcpu in strategies::price(), gb in strategies::price(),
        task in strategies::task_size(), pg in strategies::postgres_size(), tasks in 0u32..50,
    ) {
        let cat = with_prices("us-east-1", &[
            ("rds-instance/db.t4g.micro", "hour", instance), ("rds-storage-gp3", "GB-month", storage),
            ("fargate-arm-vcpu", "vCPU-hour", vcpu), ("fargate-arm-gb", "GB-hour", gb),
        ]).extended_with(&sized(&task, &pg));
        for item in [Item::Postgres { engine: PostgresEngine::Rds, size: "p", storage_gb: None, io: None }, Item::Tasks { size: "t", tasks, architecture: ARM }] {
            let priced = cat.price("us-east-1", &item);
            let Priced::Lines { lines, .. } = &priced else { panic!("priced: {priced:?}") };
            let mut sum = Decimal::ZERO;
            for l in lines {
                prop_assert_eq!(l.monthly.0, l.quantity * l.unit_price.0);
                sum += l.monthly.0;
            }
            prop_assert_eq!(priced.monthly().map(|m| m.0), Some(sum));
        }
    }

    /// Multi-AZ doubles instance-hours and storage, and nothing else changes.
    #[test]
    fn multi_az_doubles_instance_and_storage(pg in strategies::postgres_size()) {
        let task = cost::TaskSize { cpu: 256, memory_mib: 512 };
        let single = sized(&task, &cost::PostgresSize { multi_az: false, ..pg.clone() });
        let multi = sized(&task, &cost::PostgresSize { multi_az: true, ..pg });
        let item = Item::Postgres { engine: PostgresEngine::Rds, size: "p", storage_gb: None, io: None };
        let (Priced::Lines { lines: one, .. }, Priced::Lines { lines: two, .. }) =
            (single.price("us-east-1", &item), multi.price("us-east-1", &item)) else { panic!("priced") };
        prop_assert_eq!(one.len(), 2);
        for (a, b) in one.iter().zip(&two) {
            prop_assert_eq!(b.quantity, a.quantity * Decimal::TWO);
            prop_assert_eq!(b.monthly.0, a.monthly.0 * Decimal::TWO);
            prop_assert_eq!(a.unit_price, b.unit_price);
        }
    }

    /// Scaling a workload from min to max tasks multiplies its cost exactly by max / min.
    #[test]
    fn task_cost_scales_exactly(task in strategies::task_size(), min in 1u32..20, extra in 0u32..20) {
        let max = min + extra;
        let pg = cost::PostgresSize { instance_class: "db.t4g.micro".into(), instances: 1, storage_gb: 20, max_storage_gb: None, multi_az: false, vcpu: 2, max_connections: None };
        let cat = sized(&task, &pg);
        let at_min = cat.price("us-east-1", &Item::Tasks { size: "t", tasks: min, architecture: ARM }).monthly().expect("priced");
        let at_max = cat.price("us-east-1", &Item::Tasks { size: "t", tasks: max, architecture: ARM }).monthly().expect("priced");
        let one = cat.price("us-east-1", &Item::Tasks { size: "t", tasks: 1, architecture: ARM }).monthly().expect("priced");
        prop_assert_eq!(at_max.0 * Decimal::from(min), at_min.0 * Decimal::from(max));
        prop_assert_eq!(at_min.0, one.0 * Decimal::from(min));
        // And the vCPU line is what the arithmetic says: tasks x cpu/1024 x 730 hours.
        let Priced::Lines { lines, .. } = cat.price("us-east-1", &Item::Tasks { size: "t", tasks: max, architecture: ARM }) else { panic!("priced") };
        prop_assert_eq!(lines[0].quantity, Decimal::from(max) * Decimal::from(task.cpu) / Decimal::from(1024) * Decimal::from(HOURS_PER_MONTH));
    }

    /// Printing a catalogue and parsing it back gives the same catalogue.
    #[test]
    fn yaml_round_trips(cat in strategies::catalogue()) {
        let text = cat.to_yaml();
        let back = Catalogue::parse("round-trip.yaml", &text).map_err(|e| TestCaseError::fail(format!("{e:#?}\n{text}")))?;
        prop_assert_eq!(&back, &cat, "{}", text);
        prop_assert_eq!(back.to_yaml(), text);
    }
}

#[test]
fn the_builtin_catalogue_round_trips() {
    let cat = Catalogue::builtin();
    assert_eq!(Catalogue::parse("again.yaml", &cat.to_yaml()).expect("parses"), cat);
}
