//! Security groups: each planned group in the VPC input, and each of its rules as a resource of
//! its own (`SecurityGroupIngressRule` / `SecurityGroupEgressRule`), so groups that name each
//! other make no cycle. The members' rule takes the `memberSecurityGroupIds` list input, which
//! only a group's own rule list can hold: it is written on its group, which holds nothing else.

use runtime_plan::{CompactString, ItemSpec, Peer, PlannedItem, SecurityRule};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Input, Tags, unsupported, wrong_spec};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SecurityGroup<'p> {
    name: &'p str,
    description: String,
    vpc_id: String,
    /// The members' rule only.
    ingress: Option<Vec<MembersRule>>,
    region: &'p str,
    tags: Tags<'p>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MembersRule {
    protocol: &'static str,
    from_port: u16,
    to_port: u16,
    security_groups: String,
    description: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule<'p> {
    security_group_id: String,
    referenced_security_group_id: Option<String>,
    cidr_ipv4: Option<&'static str>,
    ip_protocol: &'static str,
    from_port: u16,
    to_port: u16,
    description: String,
    region: &'p str,
    tags: Tags<'p>,
}

/// The group and its rules.
pub(super) fn security_group<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let ItemSpec::SecurityGroup { ingress, egress, .. } = &item.spec else {
        return Err(wrong_spec(item));
    };
    let members: Vec<&SecurityRule> = ingress.iter().filter(|r| r.peer == Peer::Members).collect();
    if !members.is_empty() && (members.len() != ingress.len() || !egress.is_empty()) {
        return Err(unsupported(item, "a group admitting the members holds no other rule"));
    }
    let members_rules = (!members.is_empty()).then(|| {
        let list = cx.input(Input::MemberSecurityGroupIds);
        members
            .iter()
            .map(|r| MembersRule {
                protocol: "tcp",
                from_port: r.port,
                to_port: r.port,
                security_groups: list.clone(),
                description: "the members of the product",
            })
            .collect()
    });
    let props = SecurityGroup {
        name: &item.physical_name,
        description: format!("runway {} {}: {}", cx.plan.product, cx.plan.environment, item.label()),
        vpc_id: cx.input(Input::VpcId),
        ingress: members_rules,
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:ec2/securityGroup:SecurityGroup", props)?;
    let rules = ingress.iter().filter(|r| r.peer != Peer::Members).map(|r| (r, true));
    for (rule, inbound) in rules.chain(egress.iter().map(|r| (r, false))) {
        declare_rule(cx, item, rule, inbound)?;
    }
    Ok(())
}

/// One rule, `<group>--in-<peer>-<port>` or `<group>--out-<peer>-<port>`.
fn declare_rule<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    rule: &SecurityRule,
    inbound: bool,
) -> Result<(), RenderError> {
    let (peer, referenced, cidr) = match &rule.peer {
        Peer::Group { item: group } => (group.as_str(), Some(cx.reference(group, "id")?), None),
        Peer::Internet => ("internet", None, Some("0.0.0.0/0")),
        // The planner resolves members to their security group before rendering.
        Peer::Members => return Err(unsupported(item, "a rule names members, not a security group")),
    };
    let (direction, token, word) = if inbound {
        ("in", "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "from")
    } else {
        ("out", "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", "to")
    };
    let props = Rule {
        security_group_id: cx.reference(&item.id, "id")?,
        referenced_security_group_id: referenced,
        cidr_ipv4: cidr,
        ip_protocol: "tcp",
        from_port: rule.port,
        to_port: rule.port,
        description: format!("{word} {peer} on {}", rule.port),
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare_companion(item, &format!("{direction}-{peer}-{}", rule.port), token, props)
}

/// `${<group>.id}` of each group an item is attached to.
pub(super) fn group_ids(cx: &mut Context<'_>, groups: &[CompactString]) -> Result<Vec<String>, RenderError> {
    groups.iter().map(|g| cx.reference(g, "id")).collect()
}

/// Resources a group renders to: itself and each rule but the members' (written on it).
pub(super) fn resources(ingress: &[SecurityRule], egress: &[SecurityRule]) -> usize {
    1 + ingress.iter().filter(|r| r.peer != Peer::Members).count() + egress.len()
}
