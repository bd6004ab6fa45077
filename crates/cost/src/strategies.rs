//! Proptest strategies for catalogue sizes, prices and whole catalogues (feature `proptest1`).
//!
//! Downstream tools use these to property-test their own sizing against arbitrary catalogues.

use indexmap::IndexMap;
use proptest::prelude::*;
use rust_decimal::Decimal;

use crate::{
    CacheSize, Catalogue, Money, PostgresSize, PriceEntry, PriceStatus, PriceTable, Sizes, TaskSize,
};

/// A size name such as `small` or `x2large`.
pub fn size_name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9]{0,9}"
}

/// A non-negative price with up to 6 decimal places, below $10,000.
pub fn price() -> impl Strategy<Value = Money> {
    (0i64..10_000_000_000, 0u32..=6).prop_map(|(mantissa, scale)| Money(Decimal::new(mantissa, scale)))
}

/// A postgres size (1-3 instances, 1-2048 GB, 1-64 vCPU).
pub fn postgres_size() -> impl Strategy<Value = PostgresSize> {
    ("db\\.[a-z0-9]{2,4}\\.[a-z0-9]{4,8}", 1u32..=3, 1u32..=2048, any::<bool>(), 1u32..=64).prop_map(
        |(instance_class, instances, storage_gb, multi_az, vcpu)| PostgresSize {
            instance_class,
            instances,
            storage_gb,
            max_storage_gb: None,
            multi_az,
            vcpu,
            max_connections: Some(vcpu * 100),
        },
    )
}

/// A cache size (1-6 nodes).
pub fn cache_size() -> impl Strategy<Value = CacheSize> {
    ("cache\\.[a-z0-9]{2,4}\\.[a-z0-9]{4,8}", 1u32..=6)
        .prop_map(|(node_type, nodes)| CacheSize { node_type, nodes })
}

/// A Fargate task size (256-16384 CPU units, 512-122880 MiB).
pub fn task_size() -> impl Strategy<Value = TaskSize> {
    (256u32..=16_384, 512u32..=122_880).prop_map(|(cpu, memory_mib)| TaskSize { cpu, memory_mib })
}

/// A price entry: a figure with source and date, or a reason it is unpriced.
pub fn price_entry() -> impl Strategy<Value = PriceEntry> {
    let priced = (price(), "[ -~]{1,40}", (2020u32..2030, 1u32..=12, 1u32..=28)).prop_map(
        |(price, source, (y, m, d))| PriceStatus::Priced {
            price,
            source: source.trim().to_owned() + "x",
            seen: format!("{y:04}-{m:02}-{d:02}"),
        },
    );
    let unpriced = "[ -~]{0,40}".prop_map(|unpriced| PriceStatus::Unpriced { unpriced });
    ("[a-zA-Z][a-zA-Z -]{0,15}", prop_oneof![3 => priced, 1 => unpriced])
        .prop_map(|(unit, status)| PriceEntry { unit, status })
}

fn named<T: std::fmt::Debug>(
    value: impl Strategy<Value = T>,
    max: usize,
) -> impl Strategy<Value = IndexMap<String, T>> {
    proptest::collection::vec((size_name(), value), 0..=max).prop_map(|v| v.into_iter().collect())
}

/// A whole catalogue: arbitrary sizes of every kind and up to three regions of prices.
pub fn catalogue() -> impl Strategy<Value = Catalogue> {
    let sizes = (
        named(postgres_size(), 3),
        named(postgres_size(), 3),
        named(cache_size(), 3),
        named(1u64..=10_000_000_000, 3),
        named(1u64..=100_000, 3),
        named(task_size(), 3),
    )
        .prop_map(|(postgres_rds, postgres_aurora, cache, messaging, bucket, workload)| Sizes {
            postgres_rds,
            postgres_aurora,
            cache,
            messaging,
            bucket,
            workload,
        });
    let table = proptest::collection::vec(("[a-z0-9][a-z0-9./-]{0,20}", price_entry()), 0..6)
        .prop_map(|v| v.into_iter().collect::<PriceTable>());
    let regions = proptest::collection::vec(("[a-z]{2}-[a-z]{4,9}-[1-3]", table), 0..=3)
        .prop_map(|v| v.into_iter().collect());
    (sizes, regions).prop_map(|(sizes, regions)| Catalogue { sizes, regions })
}
