//! `AmazonSNS`: standard topic publish requests (`Requests-Tier1`), per request, written per
//! million; the first million a month is a free tier, so the paid tier is read. FIFO topics
//! are billed for publish requests and for their payload, which a request price alone would
//! understate: left unpriced.

use super::{Lookup, Rule, units, usage};

/// The rule of an `AmazonSNS` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    match key {
        "sns-standard" => Some(Lookup::Rule(Rule {
            key: key.to_owned(),
            offer: "AmazonSNS",
            unit: "million requests",
            offer_units: units::REQUESTS,
            scale: 1_000_000,
            wants: "standard topic API requests (API Request, Requests-Tier1)".to_owned(),
            global: false,
            test: Box::new(|p, prefix| p.family == "API Request" && usage(p, prefix, "Requests-Tier1")),
        })),
        "sns-fifo" => Some(Lookup::NotModelled {
            unit: "million requests",
            reason: "SNS FIFO topics are billed for publish requests and for the payload published (per GB); a request price alone would understate them, so it is not read (no row or figure for the pair was confirmed)",
        }),
        _ => None,
    }
}
