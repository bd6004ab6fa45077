//! The fixed charges of a plan's text, shown before its resources: what the environment pays
//! whatever the sizes of what it declares (the VPC's NAT gateways, the ALB, the environment's
//! key, the private zone, ...), and each database's RDS Proxy, whose two-vCPU minimum costs the
//! same under the smallest database. Sizing a resource down does not change these; the
//! network settings and the kinds declared do (docs/planning.md, "NAT gateways").

use std::fmt;

use runway_schema::Money;

use crate::table::{Line, write_twice};
use runtime_plan::plan::{ItemSpec, Plan, PlannedItem};

/// The section: one row per fixed charge and their total, or nothing when there is none.
pub(super) fn write(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    // Made again for each use rather than held: a large plan has thousands.
    let fixed = || {
        p.items.iter().filter_map(|i| {
            let m = i.monthly.filter(|m| *m != Money::ZERO)?;
            Some((label(p, i)?, m))
        })
    };
    if fixed().next().is_none() {
        return Ok(());
    }
    let total: Money = fixed().map(|(_, m)| m).sum();
    writeln!(
        out,
        "\nfixed charges (a month, whatever the sizes: ${total} of the estimate ${})",
        p.cost.monthly
    )?;
    write_twice(out, (2, &["charge", "monthly"], Some(0)), |emit| {
        fixed().try_for_each(|(what, m)| emit(Line::Cells(&[what, format!("${m}")])))
    })
}

/// What a fixed charge is called, or `None` for a charge that follows a size.
fn label(p: &Plan, item: &PlannedItem) -> Option<String> {
    if let ItemSpec::Vpc { nat_gateways, .. } = &item.spec {
        let what = if *nat_gateways == 1 {
            "NAT gateway and its address"
        } else {
            "NAT gateways and their addresses"
        };
        // The item's figure holds the data `usage` declares through the VPC too: say so.
        let data = if p.cost.usage.iter().any(|u| u.item == item.id) {
            ", with the data usage declares"
        } else {
            ""
        };
        return Some(format!("{nat_gateways} {what} in the VPC (network.nat){data}"));
    }
    if let ItemSpec::RdsProxy(_) = &item.spec {
        return Some(format!("{} (its minimum, at every database size)", item.label()));
    }
    item.owner.is_none().then(|| item.label())
}
