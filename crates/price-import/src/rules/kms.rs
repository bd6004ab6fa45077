//! `awskms`: a customer managed key's month and its symmetric requests. Traps: the requests of
//! asymmetric keys (`KMS-Requests-Asymmetric`, `KMS-Requests-RSA`, `KMS-Requests-ECC`) and
//! GenerateDataKeyPair, priced higher, and the free tier's row.

use super::{Lookup, Rule, units, usage};

/// The rule of an `awskms` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    match key {
        "kms-key" => Some(Lookup::Rule(Rule {
            key: key.to_owned(),
            offer: "awskms",
            unit: "key-month",
            offer_units: &["Keys", "Key", "Key-Month", "Keys-Month"],
            scale: 1,
            wants: "customer managed keys stored (KMS-Keys)".to_owned(),
            global: false,
            test: Box::new(|p, prefix| usage(p, prefix, "KMS-Keys")),
        })),
        "kms-requests" => Some(Lookup::Rule(Rule {
            key: key.to_owned(),
            offer: "awskms",
            unit: "million requests",
            offer_units: units::REQUESTS,
            scale: 1_000_000,
            wants: "symmetric key requests (KMS-Requests)".to_owned(),
            global: false,
            test: Box::new(|p, prefix| usage(p, prefix, "KMS-Requests")),
        })),
        _ => None,
    }
}
