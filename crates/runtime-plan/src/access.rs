//! Who may do what, as the `access` section of the plan's text: each security group's rules
//! (`in tcp 443 from internet`, `out tcp 5432 to <group>`) and each role's grants (actions on
//! resources). The plan's items hold the same in `spec`; this only words them, line by line
//! (a large plan has hundreds of thousands: none is kept).

use std::fmt;

use crate::plan::{Grant, ItemSpec, Peer, Plan, PolicyResource, SecurityRule};

/// Writes the section: one line per security rule and per grant, in item order.
pub(crate) fn write(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    out.write_str("\naccess\n")?;
    let width = p.items.iter().filter(|i| has_access(&i.spec)).map(|i| i.id.chars().count()).max();
    let Some(width) = width else {
        return out.write_str("  (none)\n");
    };
    for item in &p.items {
        match &item.spec {
            ItemSpec::SecurityGroup { ingress, egress, .. } => {
                for r in ingress {
                    write_rule(out, (&item.id, width), ("in", "from"), r)?;
                }
                for r in egress {
                    write_rule(out, (&item.id, width), ("out", "to"), r)?;
                }
            }
            ItemSpec::TaskExecutionRole { grants, .. } | ItemSpec::TaskRole { grants, .. } => {
                for g in grants {
                    write_grant(out, (&item.id, width), g)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Does the item have a line in the section?
fn has_access(spec: &ItemSpec) -> bool {
    match spec {
        ItemSpec::SecurityGroup { ingress, egress, .. } => !ingress.is_empty() || !egress.is_empty(),
        ItemSpec::TaskExecutionRole { grants, .. } | ItemSpec::TaskRole { grants, .. } => !grants.is_empty(),
        _ => false,
    }
}

fn write_rule(
    out: &mut impl fmt::Write,
    (group, width): (&str, usize),
    (direction, word): (&str, &str),
    rule: &SecurityRule,
) -> fmt::Result {
    let port = format!("{direction} tcp {}", rule.port);
    write!(out, "  {group:<width$}  {port:<12}  {word} ")?;
    match &rule.peer {
        Peer::Group { item } => out.write_str(item)?,
        Peer::Internet => out.write_str("internet (0.0.0.0/0)")?,
        Peer::Members => out.write_str("members (memberSecurityGroupIds)")?,
    }
    out.write_char('\n')
}

fn write_grant(out: &mut impl fmt::Write, (role, width): (&str, usize), grant: &Grant) -> fmt::Result {
    write!(out, "  {role:<width$}  {:<12}  {} on", "allow", grant.actions.join(" "))?;
    for r in &grant.resources {
        out.write_char(' ')?;
        match r {
            PolicyResource::Item { item } => out.write_str(item)?,
            PolicyResource::ItemObjects { item } => write!(out, "{item}/*")?,
            PolicyResource::SsmParameters { names } => {
                for (i, n) in names.iter().enumerate() {
                    if i > 0 {
                        out.write_char(' ')?;
                    }
                    out.write_str(n)?;
                }
            }
            PolicyResource::KmsAlias { alias } => out.write_str(alias)?,
            PolicyResource::KmsKeyId { id } => write!(out, "key {id}")?,
            PolicyResource::Arn { arn } => out.write_str(arn)?,
            PolicyResource::Any => out.write_char('*')?,
        }
    }
    out.write_char('\n')
}
