//! `AWSELB`: the Application Load Balancer's hour and LCU-hour. Trap: the Network and
//! Gateway load balancers use the same usage kinds (`LoadBalancerUsage`, `LCUUsage`); only
//! the family `Load Balancer-Application` tells the application one apart.

use super::{Lookup, Rule, usage};

/// The rule of an `AWSELB` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    let (unit, kind, offer_units): (_, _, &'static [&'static str]) = match key {
        "alb-hour" => ("hour", "LoadBalancerUsage", &["Hrs", "Hours"]),
        "alb-lcu" => ("LCU-hour", "LCUUsage", &["LCU-Hrs", "LCU-Hours"]),
        _ => return None,
    };
    Some(Lookup::Rule(Rule {
        key: key.to_owned(),
        offer: "AWSELB",
        unit,
        offer_units,
        scale: 1,
        wants: format!("the Application Load Balancer's {kind} (Load Balancer-Application)"),
        global: false,
        test: Box::new(move |p, prefix| p.family == "Load Balancer-Application" && usage(p, prefix, kind)),
    }))
}
