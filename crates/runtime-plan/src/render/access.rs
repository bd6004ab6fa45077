//! Who may do what, as the `access` section of the plan's text: each security group's rules
//! (`in tcp 443` `from internet`, `out tcp 5432` `to metabase security group (tasks)`) and each
//! role's grants (`allow` actions on resources), items named by their labels. The plan's items
//! hold the same in `spec`; this only words them, row by row (a large plan has hundreds of
//! thousands: none is kept), the last column wrapped to the width.

use std::collections::BTreeMap;
use std::fmt;

use super::table::{WIDTH, width, wrap};
use crate::plan::{Grant, ItemSpec, Peer, Plan, PlannedItem, PolicyResource, SecurityRule};

const HEADER: [&str; 3] = ["item", "rule", "peer / actions on resources"];

/// The items a rule or grant names, by id: their labels are what the text shows.
type Named<'p> = BTreeMap<&'p str, &'p PlannedItem>;
/// The rule column: `out tcp 65535`.
const RULE: usize = 13;
/// The narrowest the last column is beside the others.
const LAST: usize = 32;

/// Writes the section: a header, then one row per security rule and per grant, in item order.
pub(super) fn write(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    out.write_str("\naccess\n")?;
    let labels = p.items.iter().filter(|i| has_access(&i.spec)).map(|i| width(&i.label())).max();
    let Some(labels) = labels else {
        return out.write_str("  (none)\n");
    };
    let first = labels.max(width(HEADER[0]));
    let named: Named = p
        .items
        .iter()
        .filter(|i| matches!(i.spec, ItemSpec::SecurityGroup { .. }) || named_by_grants(&i.spec))
        .map(|i| (i.id.as_str(), i))
        .collect();
    write_row(out, first, (HEADER[0], HEADER[1]), HEADER[2])?;
    for item in &p.items {
        let label = item.label();
        match &item.spec {
            ItemSpec::SecurityGroup { ingress, egress, .. } => {
                for r in ingress {
                    write_row(out, first, (&label, &rule_text("in", r)), &peer_text(&named, "from", r))?;
                }
                for r in egress {
                    write_row(out, first, (&label, &rule_text("out", r)), &peer_text(&named, "to", r))?;
                }
            }
            ItemSpec::TaskExecutionRole { grants, .. } | ItemSpec::TaskRole { grants, .. } => {
                for g in grants {
                    write_row(out, first, (&label, "allow"), &grant_text(&named, g))?;
                }
            }
            ItemSpec::EcsCluster { .. }
            | ItemSpec::CloudMapNamespace { .. }
            | ItemSpec::Alb { .. }
            | ItemSpec::AlbListener(_)
            | ItemSpec::DbSubnetGroup { .. }
            | ItemSpec::CacheSubnetGroup { .. }
            | ItemSpec::RdsInstance(_)
            | ItemSpec::AuroraCluster(_)
            | ItemSpec::AuroraInstance { .. }
            | ItemSpec::ProxySecret { .. }
            | ItemSpec::ProxyRole { .. }
            | ItemSpec::RdsProxy(_)
            | ItemSpec::RdsProxyTargetGroup { .. }
            | ItemSpec::RdsProxyTarget { .. }
            | ItemSpec::CacheReplicationGroup(_)
            | ItemSpec::SqsQueue { .. }
            | ItemSpec::SqsDeadLetterQueue { .. }
            | ItemSpec::SnsTopic { .. }
            | ItemSpec::S3Bucket { .. }
            | ItemSpec::TaskDefinition(_)
            | ItemSpec::EcsService(_)
            | ItemSpec::CloudMapService { .. }
            | ItemSpec::AlbTargetGroup { .. }
            | ItemSpec::AlbListenerRule { .. }
            | ItemSpec::ScalingTarget { .. }
            | ItemSpec::ScalingPolicy { .. }
            | ItemSpec::DnsRecord { .. }
            | ItemSpec::LogGroup { .. }
            | ItemSpec::Budget { .. }
            | ItemSpec::VpcEndpoint { .. } => {}
        }
    }
    Ok(())
}

/// Can a grant name the item (a queue, topic, bucket or log group)?
fn named_by_grants(spec: &ItemSpec) -> bool {
    match spec {
        ItemSpec::SqsQueue { .. }
        | ItemSpec::SqsDeadLetterQueue { .. }
        | ItemSpec::SnsTopic { .. }
        | ItemSpec::S3Bucket { .. }
        | ItemSpec::LogGroup { .. } => true,
        ItemSpec::EcsCluster { .. }
        | ItemSpec::TaskExecutionRole { .. }
        | ItemSpec::TaskRole { .. }
        | ItemSpec::SecurityGroup { .. }
        | ItemSpec::CloudMapNamespace { .. }
        | ItemSpec::Alb { .. }
        | ItemSpec::AlbListener(_)
        | ItemSpec::DbSubnetGroup { .. }
        | ItemSpec::CacheSubnetGroup { .. }
        | ItemSpec::RdsInstance(_)
        | ItemSpec::AuroraCluster(_)
        | ItemSpec::AuroraInstance { .. }
        | ItemSpec::ProxySecret { .. }
        | ItemSpec::ProxyRole { .. }
        | ItemSpec::RdsProxy(_)
        | ItemSpec::RdsProxyTargetGroup { .. }
        | ItemSpec::RdsProxyTarget { .. }
        | ItemSpec::CacheReplicationGroup(_)
        | ItemSpec::TaskDefinition(_)
        | ItemSpec::EcsService(_)
        | ItemSpec::CloudMapService { .. }
        | ItemSpec::AlbTargetGroup { .. }
        | ItemSpec::AlbListenerRule { .. }
        | ItemSpec::ScalingTarget { .. }
        | ItemSpec::ScalingPolicy { .. }
        | ItemSpec::DnsRecord { .. }
        | ItemSpec::Budget { .. }
        | ItemSpec::VpcEndpoint { .. } => false,
    }
}

/// The label of a named item (its id when the plan lacks it).
fn label(named: &Named, id: &str) -> String {
    named.get(id).map_or_else(|| id.to_owned(), |i| i.label())
}

/// Does the item have a row in the section?
fn has_access(spec: &ItemSpec) -> bool {
    match spec {
        ItemSpec::SecurityGroup { ingress, egress, .. } => !ingress.is_empty() || !egress.is_empty(),
        ItemSpec::TaskExecutionRole { grants, .. } | ItemSpec::TaskRole { grants, .. } => !grants.is_empty(),
        ItemSpec::EcsCluster { .. }
        | ItemSpec::CloudMapNamespace { .. }
        | ItemSpec::Alb { .. }
        | ItemSpec::AlbListener(_)
        | ItemSpec::DbSubnetGroup { .. }
        | ItemSpec::CacheSubnetGroup { .. }
        | ItemSpec::RdsInstance(_)
        | ItemSpec::AuroraCluster(_)
        | ItemSpec::AuroraInstance { .. }
        | ItemSpec::ProxySecret { .. }
        | ItemSpec::ProxyRole { .. }
        | ItemSpec::RdsProxy(_)
        | ItemSpec::RdsProxyTargetGroup { .. }
        | ItemSpec::RdsProxyTarget { .. }
        | ItemSpec::CacheReplicationGroup(_)
        | ItemSpec::SqsQueue { .. }
        | ItemSpec::SqsDeadLetterQueue { .. }
        | ItemSpec::SnsTopic { .. }
        | ItemSpec::S3Bucket { .. }
        | ItemSpec::TaskDefinition(_)
        | ItemSpec::EcsService(_)
        | ItemSpec::CloudMapService { .. }
        | ItemSpec::AlbTargetGroup { .. }
        | ItemSpec::AlbListenerRule { .. }
        | ItemSpec::ScalingTarget { .. }
        | ItemSpec::ScalingPolicy { .. }
        | ItemSpec::DnsRecord { .. }
        | ItemSpec::LogGroup { .. }
        | ItemSpec::Budget { .. }
        | ItemSpec::VpcEndpoint { .. } => false,
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

fn peer_text(named: &Named, word: &str, rule: &SecurityRule) -> String {
    match &rule.peer {
        Peer::Group { item } => format!("{word} {}", label(named, item)),
        Peer::Internet => format!("{word} internet (0.0.0.0/0)"),
        Peer::Members => format!("{word} members (memberSecurityGroupIds)"),
    }
}

fn grant_text(named: &Named, grant: &Grant) -> String {
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
                    text.extend([" ", n.as_str(), ","]);
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
