//! `AmazonS3`: S3 Standard storage, per GB-month, first tier (the first 50 TB), and tier-one
//! requests (PUT, COPY, POST, LIST: `Requests-Tier1`), per request, written per million.
//! Traps: the other storage classes, the later, cheaper tiers, and the other classes'
//! requests (`Requests-Tier2`, GET; `Requests-SIA-Tier1`, ...).

use super::{Lookup, Rule, units, usage};

/// The rule of an `AmazonS3` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    if key == "s3-requests" {
        return Some(Lookup::Rule(Rule {
            key: key.to_owned(),
            offer: "AmazonS3",
            unit: "million requests",
            offer_units: units::REQUESTS,
            scale: 1_000_000,
            wants: "tier-one requests (API Request, Requests-Tier1: PUT, COPY, POST, LIST)".to_owned(),
            global: false,
            test: Box::new(|p, prefix| p.family == "API Request" && usage(p, prefix, "Requests-Tier1")),
        }));
    }
    (key == "s3-standard").then(|| {
        Lookup::Rule(Rule {
            key: key.to_owned(),
            offer: "AmazonS3",
            unit: "GB-month",
            offer_units: units::GB_MONTH,
            scale: 1,
            wants: "S3 Standard storage (Storage, General Purpose, TimedStorage-ByteHrs)".to_owned(),
            global: false,
            test: Box::new(|p, prefix| {
                p.family == "Storage"
                    && p.attr("storageClass") == "General Purpose"
                    && p.attr("volumeType") == "Standard"
                    && usage(p, prefix, "TimedStorage-ByteHrs")
            }),
        })
    })
}
