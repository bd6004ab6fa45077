//! The VPC the program is given (its `vpcId` input): runway declares nothing of it, but the
//! plan holds what it charges the environment as one item, `env_vpc` (`managedBy: existing`,
//! which no renderer writes): the NAT gateways it pays for (`network.nat`; by default, when it
//! has workloads and no VPC endpoints, one per zone in production and one elsewhere), each with
//! its public IPv4 address, and the
//! data through them, through the interface endpoints and out to the internet, counted where
//! the environment's `usage` declares it.

use runway_schema::{Code, Diagnostic, Endpoints, UsageKey};

use super::context::{Cx, NewItem};
use super::protection::production;
use super::usage;
use crate::plan::{ItemSpec, ManagedBy};
use crate::pricing::Priceable;

/// The item's logical id and its name: the program input it stands for.
const ID: &str = "env_vpc";
const NAME: &str = "vpcId";

/// NAT gateways the environment pays for: `network.nat` as written; else, when it has
/// workloads (their images and AWS calls leave through NAT) and no VPC endpoints, one per zone
/// in `production` (a zone's outage leaves the other zones their egress) and one elsewhere (its
/// zones share it: at about $36.50 a month each, a second NAT was a quarter of the smallest
/// product's dev estimate; docs/planning.md, "NAT gateways"); else 0.
pub fn nat_gateways(network: &runway_schema::Network, workloads: bool, env_name: &str) -> u32 {
    let default = match (workloads && network.endpoints == Endpoints::None, production(env_name)) {
        (false, _) => 0,
        (true, true) => network.zones,
        (true, false) => 1,
    };
    network.nat.unwrap_or(default)
}

/// Holds the VPC's charges to the environment, when it has any: workloads, NAT gateways, or
/// data it declares.
pub(in crate::lower) fn lower(cx: &mut Cx, workloads: bool) {
    let network = cx.env.network;
    let nat = nat_gateways(&network, workloads, cx.env_name);
    let endpoints = network.endpoints == Endpoints::Declared;
    let nat_gb = usage::declared(cx, None, UsageKey::NatGb);
    let endpoint_gb = usage::declared(cx, None, UsageKey::EndpointGb);
    let internet_gb = usage::declared(cx, None, UsageKey::InternetGb);
    let declares = nat_gb.is_some() || endpoint_gb.is_some() || internet_gb.is_some();
    if !workloads && nat == 0 && !declares {
        return;
    }
    // Data through gateways the environment does not pay for is not its charge.
    let nat_gb =
        not_applied(cx, nat_gb, nat > 0, UsageKey::NatGb, "pays for no NAT gateway (`network.nat` is 0)");
    let endpoint_gb = not_applied(
        cx,
        endpoint_gb,
        endpoints,
        UsageKey::EndpointGb,
        "declares no VPC endpoints (`network.endpoints`)",
    );
    let spec = ItemSpec::Vpc { nat_gateways: nat, endpoints };
    let item = NewItem::new(ID.into(), NAME.into(), None, spec).managed_by(ManagedBy::Existing);
    // The item's id is known before it is pushed: the amounts are recorded first.
    let owner_item = (None, ID);
    let nat_gb = usage::count(cx, owner_item, UsageKey::NatGb, nat_gb, None);
    let endpoint_gb = usage::count(cx, owner_item, UsageKey::EndpointGb, endpoint_gb, None);
    let internet_gb = usage::count(cx, owner_item, UsageKey::InternetGb, internet_gb, None);
    cx.add(item.priced(Priceable::Vpc { nat, endpoints, nat_gb, endpoint_gb, internet_gb }));
    cx.vpc_nat = Some(nat);
}

/// `declared` when it applies; else a warning that it is not counted, and `None`.
fn not_applied<T>(cx: &mut Cx, declared: Option<T>, applies: bool, key: UsageKey, why: &str) -> Option<T> {
    if applies || declared.is_none() {
        return declared;
    }
    let e = cx.env_name;
    cx.diagnostics.push(
        Diagnostic::warning(
            Code::InvalidValue,
            cx.env.at.clone(),
            format!("environments.{e}.usage.{}", key.as_str()),
            format!("`usage.{}` of `{e}` is not counted: the environment {why}", key.as_str()),
        )
        .with_help(format!(
            "remove `usage.{}`, or set `network` so the environment pays for what it names",
            key.as_str()
        )),
    );
    None
}
