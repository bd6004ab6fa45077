//! `AmazonVPC`: an AWS PrivateLink interface endpoint's hour (`VpcEndpoint-Hours`, per
//! endpoint and zone). Traps: `VpcEndpoint-Service-Hours`, the endpoint's data-processing row
//! (`VpcEndpoint-Bytes`, per GB) and the public IPv4 address rows of the same offer.

use super::{Lookup, Rule, units, usage};

/// The rule of an `AmazonVPC` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    (key == "vpc-endpoint-hour").then(|| {
        Lookup::Rule(Rule {
            key: key.to_owned(),
            offer: "AmazonVPC",
            unit: "hour",
            offer_units: units::HOURS,
            scale: 1,
            wants: "interface endpoint hours (VpcEndpoint-Hours)".to_owned(),
            global: false,
            test: Box::new(|p, prefix| usage(p, prefix, "VpcEndpoint-Hours")),
        })
    })
}
