//! `AWSQueueService` (SQS): standard and FIFO requests, priced per request and written per
//! million. The first paid tier is read (the price drops past billions of requests). The offer
//! spells the queue types `Standard` and `FIFO (first-in, first-out)` (and has `Fair` rows
//! besides, which neither key reads): confirmed in a fixture of the live Price List API of
//! 2026-10-08 (us-east-1, usage types `Requests-RBP` / `Requests-FIFO-RBP`) and in a second
//! tool's tests (docs/catalogue.md, "Import rules").

use super::{Lookup, Rule, units};

/// The rule of an `AWSQueueService` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    let queue_type = match key {
        "sqs-standard" => "Standard",
        "sqs-fifo" => "FIFO (first-in, first-out)",
        _ => return None,
    };
    Some(Lookup::Rule(Rule {
        key: key.to_owned(),
        offer: "AWSQueueService",
        unit: "million requests",
        offer_units: units::REQUESTS,
        scale: 1_000_000,
        wants: format!("{queue_type} queue requests (API Request, queueType {queue_type})"),
        global: false,
        test: Box::new(move |p, _| p.family == "API Request" && p.attr("queueType") == queue_type),
    }))
}
