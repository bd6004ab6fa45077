//! `AWSQueueService` (SQS): standard and FIFO requests, priced per request and written per
//! million. The first paid tier is read (the price drops past billions of requests).

use super::{Lookup, Rule, units};

/// The rule of an `AWSQueueService` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    let queue_type = match key {
        "sqs-standard" => "Standard",
        "sqs-fifo" => "FIFO",
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
