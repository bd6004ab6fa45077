//! `AmazonElastiCache`: Valkey node-hours. Traps: Redis OSS and Memcached rows for the same
//! node type (Valkey costs less), and extra Valkey rows that are not the node's base rate;
//! the base rate is the `NodeUsage:` row of family `Cache Instance`.

use super::{Lookup, Rule, units, usage};

/// The rule of an `AmazonElastiCache` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    let node = key.strip_prefix("cache-node/").filter(|n| !n.is_empty())?.to_owned();
    Some(Lookup::Rule(Rule {
        key: key.to_owned(),
        offer: "AmazonElastiCache",
        unit: "node-hour",
        offer_units: units::HOURS,
        scale: 1,
        wants: format!("Valkey {node} node-hours (Cache Instance, NodeUsage:{node})"),
        global: false,
        test: Box::new(move |p, prefix| {
            p.family == "Cache Instance"
                && p.attr("cacheEngine") == "Valkey"
                && p.attr("instanceType") == node
                && usage(p, prefix, &format!("NodeUsage:{node}"))
        }),
    }))
}
