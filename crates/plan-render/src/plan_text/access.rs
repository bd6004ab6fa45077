//! Who may do what, as the `access` section of the plan's text: each security group's rules
//! (`in tcp 443` `from internet`, `out tcp 5432` `to metabase security group (tasks)`) and each
//! role's grants (`allow` actions on resources), items named by their labels. The plan's items
//! hold the same in `spec`; this only words them, row by row (a large plan has hundreds of
//! thousands: none is kept), the last column wrapped to the width.

use std::fmt;

use super::sorted::Sorted;
use crate::table::{WIDTH, width, wrap};
use runtime_plan::plan::{Access, Grant, ItemSpec, Peer, Plan, PlannedItem, PolicyResource, SecurityRule};

const HEADER: [&str; 3] = ["item", "rule", "peer / actions on resources"];

/// The plan's items by id: the labels of those a rule or grant names are what the text shows.
type Named<'i, 'p> = &'i Sorted<'p, PlannedItem>;
/// The rule column: `out tcp 65535`.
const RULE: usize = 13;
/// The narrowest the last column is beside the others.
const LAST: usize = 32;

/// Writes the section: a header, then one row per security rule and per grant, in item order.
pub(super) fn write(p: &Plan, named: Named<'_, '_>, out: &mut impl fmt::Write) -> fmt::Result {
    out.write_str("\naccess\n")?;
    let labels = p.items.iter().filter(|i| has_access(&i.spec)).map(|i| width(&i.label())).max();
    let Some(labels) = labels else {
        return out.write_str("  (none)\n");
    };
    let first = labels.max(width(HEADER[0]));
    write_row(out, first, (HEADER[0], HEADER[1]), HEADER[2])?;
    for item in &p.items {
        let label = item.label();
        match item.spec.access() {
            Access::Rules { ingress, egress } => {
                for r in ingress {
                    write_row(out, first, (&label, &rule_text("in", r)), &peer_text(named, "from", r))?;
                }
                for r in egress {
                    write_row(out, first, (&label, &rule_text("out", r)), &peer_text(named, "to", r))?;
                }
            }
            Access::Grants(grants) => {
                for g in grants {
                    write_row(out, first, (&label, "allow"), &grant_text(named, g))?;
                }
            }
            Access::None => {}
        }
    }
    Ok(())
}

/// The label of a named item (its id when the plan lacks it).
fn label(named: Named<'_, '_>, id: &str) -> String {
    named.get(id).map_or_else(|| id.to_owned(), PlannedItem::label)
}

/// Does the item have a row in the section?
fn has_access(spec: &ItemSpec) -> bool {
    match spec.access() {
        Access::Rules { ingress, egress } => !ingress.is_empty() || !egress.is_empty(),
        Access::Grants(grants) => !grants.is_empty(),
        Access::None => false,
    }
}

/// One row: the item, the rule, and the last column wrapped under itself; when the first two
/// leave it less than [`LAST`] columns, on its own lines indented under the row.
fn write_row(out: &mut impl fmt::Write, first: usize, (item, rule): (&str, &str), last: &str) -> fmt::Result {
    let at = 2 + first + 2 + RULE + 2;
    if WIDTH.saturating_sub(at) < LAST {
        writeln!(out, "  {item:<first$}  {rule}")?;
        for line in wrap(last, WIDTH - 6) {
            writeln!(out, "      {line}")?;
        }
        return Ok(());
    }
    for (i, line) in wrap(last, WIDTH - at).iter().enumerate() {
        if i == 0 {
            writeln!(out, "  {item:<first$}  {rule:<RULE$}  {line}")?;
        } else {
            writeln!(out, "{:at$}{line}", "")?;
        }
    }
    Ok(())
}

fn rule_text(direction: &str, rule: &SecurityRule) -> String {
    format!("{direction} tcp {}", rule.port)
}

fn peer_text(named: Named<'_, '_>, word: &str, rule: &SecurityRule) -> String {
    match &rule.peer {
        Peer::Group { item } => format!("{word} {}", label(named, item)),
        Peer::Internet => format!("{word} internet (0.0.0.0/0)"),
        Peer::Members => format!("{word} members (memberSecurityGroupIds)"),
        Peer::Vpc => format!("{word} the VPC (vpcCidrBlocks)"),
    }
}

fn grant_text(named: Named<'_, '_>, grant: &Grant) -> String {
    let mut text = grant.actions.join(" ");
    text.push_str(" on");
    for r in &grant.resources {
        match r {
            PolicyResource::Item { item } => text.extend([" ", &label(named, item), ","]),
            PolicyResource::ItemObjects { item } => {
                text.extend([" the objects of ", &label(named, item), ","])
            }
            PolicyResource::ItemLogStreams { item } => {
                text.extend([" the streams of ", &label(named, item), ","])
            }
            PolicyResource::SsmParameters { names } => {
                for n in names.iter() {
                    text.extend([" ", &**n, ","]);
                }
            }
            PolicyResource::KmsAlias { alias } => text.extend([" the key of ", alias.as_str(), ","]),
            PolicyResource::KmsKeyId { id } => text.extend([" key ", id.as_str(), ","]),
            PolicyResource::Arn { arn } => text.extend([" ", arn.as_str(), ","]),
            PolicyResource::Any => text.push_str(" *,"),
        }
    }
    if text.ends_with(',') {
        text.pop();
    }
    text
}
