//! `AmazonS3`: S3 Standard storage, per GB-month, first tier (the first 50 TB). Traps: the
//! other storage classes and the later, cheaper tiers.

use super::{Lookup, Rule, units, usage};

/// The rule of an `AmazonS3` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
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
