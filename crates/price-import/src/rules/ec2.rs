//! `AmazonEC2`: a NAT gateway's hour and the data it processes (`NatGateway-Hours`,
//! `NatGateway-Bytes`, product family `NAT Gateway`), for the NAT gateways an environment pays
//! for (`network.nat`). Traps: the regional NAT gateway's rows (`RegionalNatGateway-Hours`,
//! `RegionalNatGateway-Bytes`) and the provisioned-bandwidth ones (`NatGateway-Prvd-*`) beside
//! them, confirmed in a slice of the real offer file of 2026-09-04 (docs/catalogue.md). The
//! offer is the largest the importer reads: about 480 MB for us-east-1.

use super::{Lookup, Rule, units, usage};

/// The rule of an `AmazonEC2` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    let (unit, offer_units, kind, wants): (_, &'static [&'static str], _, _) = match key {
        "nat-gateway-hour" => {
            ("hour", units::HOURS, "NatGateway-Hours", "NAT gateway hours (NAT Gateway, NatGateway-Hours)")
        }
        "nat-gateway-gb" => (
            "GB",
            units::GB,
            "NatGateway-Bytes",
            "data processed by NAT gateways (NAT Gateway, NatGateway-Bytes)",
        ),
        _ => return None,
    };
    Some(Lookup::Rule(Rule {
        key: key.to_owned(),
        offer: "AmazonEC2",
        unit,
        offer_units,
        scale: 1,
        wants: wants.to_owned(),
        global: false,
        test: Box::new(move |p, prefix| p.family == "NAT Gateway" && usage(p, prefix, kind)),
    }))
}
