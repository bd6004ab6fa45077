//! `AWSDataTransfer`: data out to the internet (`DataTransfer-Out-Bytes`, transfer type `AWS
//! Outbound`, to `External`), the first paid tier (up to 10 TB a month; an account's first 100
//! GB are free, not subtracted). Its rows name their region `fromRegionCode` (read as the
//! row's region). Traps: data between zones (`DataTransfer-Regional-Bytes`), to other regions
//! (`InterRegion Outbound`) and in (`DataTransfer-In-Bytes`, free).

use super::{Lookup, Rule, units, usage};

/// The rule of an `AWSDataTransfer` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    (key == "internet-out-gb").then(|| {
        Lookup::Rule(Rule {
            key: key.to_owned(),
            offer: "AWSDataTransfer",
            unit: "GB",
            offer_units: units::GB,
            scale: 1,
            wants: "data out to the internet (DataTransfer-Out-Bytes, AWS Outbound to External)".to_owned(),
            global: false,
            test: Box::new(|p, prefix| {
                p.attr("transferType") == "AWS Outbound"
                    && p.attr("toLocation") == "External"
                    && usage(p, prefix, "DataTransfer-Out-Bytes")
            }),
        })
    })
}
