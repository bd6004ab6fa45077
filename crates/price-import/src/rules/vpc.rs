//! `AmazonVPC`: an AWS PrivateLink interface endpoint's hour (`VpcEndpoint-Hours`, per
//! endpoint and zone) and the data it processes (`VpcEndpoint-Bytes`, the first tier: up to a
//! petabyte a month), and a public IPv4 address's hour (`PublicIPv4:InUseAddress`: the ALB's,
//! one per zone, and each NAT gateway's). Traps: `VpcEndpoint-Service-Hours`, idle addresses
//! (`PublicIPv4:IdleAddress`, the same price but not what runway's resources hold).

use super::{Lookup, Rule, units, usage};

/// The rule of an `AmazonVPC` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    let (unit, offer_units, kind, wants): (_, &'static [&'static str], _, _) = match key {
        "vpc-endpoint-hour" => {
            ("hour", units::HOURS, "VpcEndpoint-Hours", "interface endpoint hours (VpcEndpoint-Hours)")
        }
        "vpc-endpoint-gb" => (
            "GB",
            units::GB,
            "VpcEndpoint-Bytes",
            "data processed by interface endpoints (VpcEndpoint-Bytes)",
        ),
        "public-ipv4-hour" => (
            "address-hour",
            units::HOURS,
            "PublicIPv4:InUseAddress",
            "in-use public IPv4 address hours (PublicIPv4:InUseAddress)",
        ),
        _ => return None,
    };
    Some(Lookup::Rule(Rule {
        key: key.to_owned(),
        offer: "AmazonVPC",
        unit,
        offer_units,
        scale: 1,
        wants: wants.to_owned(),
        global: false,
        test: Box::new(move |p, prefix| usage(p, prefix, kind)),
    }))
}
