//! `AmazonRoute53`: a hosted zone-month, a global price (`HostedZone`, no region prefix; a
//! row with or without a `regionCode`, in whichever file the offer's index lists). Tiered:
//! the first 25 zones of an account, then less; the first tier is read, as a product's
//! namespace zone is rarely past the 25th.

use super::{Lookup, Rule};

/// The rule of an `AmazonRoute53` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    (key == "route53-zone").then(|| {
        Lookup::Rule(Rule {
            key: key.to_owned(),
            offer: "AmazonRoute53",
            unit: "hosted zone-month",
            offer_units: &["HostedZone", "Hosted Zone"],
            scale: 1,
            wants: "hosted zones (HostedZone)".to_owned(),
            global: true,
            test: Box::new(|p, _| p.attr("usagetype") == "HostedZone"),
        })
    })
}
