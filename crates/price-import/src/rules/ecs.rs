//! `AmazonECS`: Fargate on Linux, per vCPU-hour and per GB-hour, on ARM (Graviton) and on x86.
//! The rows differ only in their usage type: ARM's name `ARM` (`Fargate-ARM-vCPU-Hours:perCPU`),
//! x86's name no architecture (`Fargate-vCPU-Hours:perCPU`, `Fargate-GB-Hours`). Traps: each
//! architecture's rows beside the other's, and the Windows (`Fargate-Windows-...`), Spot
//! (`SpotUsage-Fargate-...`) and ephemeral-storage rows; the usage type is matched whole, so
//! none of them is taken for another.

use super::{Lookup, Rule, units, usage};

/// The rule of an `AmazonECS` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    let (unit, kind, what) = match key {
        "fargate-arm-vcpu" => ("vCPU-hour", "Fargate-ARM-vCPU-Hours:perCPU", "Linux/ARM vCPU-hours"),
        "fargate-arm-gb" => ("GB-hour", "Fargate-ARM-GB-Hours", "Linux/ARM GB-hours"),
        "fargate-x86-vcpu" => ("vCPU-hour", "Fargate-vCPU-Hours:perCPU", "Linux/x86 vCPU-hours"),
        "fargate-x86-gb" => ("GB-hour", "Fargate-GB-Hours", "Linux/x86 GB-hours"),
        _ => return None,
    };
    Some(Lookup::Rule(Rule {
        key: key.to_owned(),
        offer: "AmazonECS",
        unit,
        offer_units: units::HOURS,
        scale: 1,
        wants: format!("Fargate {what} ({kind})"),
        global: false,
        test: Box::new(move |p, prefix| usage(p, prefix, kind)),
    }))
}
