//! `AmazonECS`: Fargate on Linux/ARM (Graviton), per vCPU-hour and per GB-hour. Trap: the
//! x86 rows (`Fargate-vCPU-Hours:perCPU`, `Fargate-GB-Hours`) beside the ARM ones, and
//! Windows and Spot rows.

use super::{Lookup, Rule, units, usage};

/// The rule of an `AmazonECS` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    let (unit, kind, what) = match key {
        "fargate-arm-vcpu" => ("vCPU-hour", "Fargate-ARM-vCPU-Hours:perCPU", "vCPU-hours"),
        "fargate-arm-gb" => ("GB-hour", "Fargate-ARM-GB-Hours", "GB-hours"),
        _ => return None,
    };
    Some(Lookup::Rule(Rule {
        key: key.to_owned(),
        offer: "AmazonECS",
        unit,
        offer_units: units::HOURS,
        scale: 1,
        wants: format!("Fargate Linux/ARM {what} ({kind})"),
        global: false,
        test: Box::new(move |p, prefix| usage(p, prefix, kind)),
    }))
}
