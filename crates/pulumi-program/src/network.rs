//! Security groups: each planned group in the VPC input, and each of its rules as a resource of
//! its own (`SecurityGroupIngressRule` / `SecurityGroupEgressRule`), so groups that name each
//! other make no cycle. A rule whose peer is a list input (the members' rule and its
//! `memberSecurityGroupIds`, the VPC endpoints' rule and its `vpcCidrBlocks`) is written on its
//! group, as only a group's own rule list can hold a list: such a group holds nothing else.

use runtime_plan::{CompactString, Peer, PlannedItem, SecurityRule};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Input, Tags, unsupported};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SecurityGroup<'p> {
    name: &'p str,
    description: String,
    vpc_id: String,
    /// The rules whose peer is a list input only.
    ingress: Option<Vec<ListRule>>,
    region: &'p str,
    tags: Tags<'p>,
}

/// A rule of a group's own list: its peer is a list input.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ListRule {
    protocol: &'static str,
    from_port: u16,
    to_port: u16,
    /// The members' groups (`memberSecurityGroupIds`).
    security_groups: Option<String>,
    /// The VPC's CIDR blocks (`vpcCidrBlocks`).
    cidr_blocks: Option<String>,
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
pub(super) fn security_group<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    ingress: &'p [SecurityRule],
    egress: &'p [SecurityRule],
) -> Result<(), RenderError> {
    let listed: Vec<&SecurityRule> = ingress.iter().filter(|r| r.peer.is_list_input()).collect();
    if !listed.is_empty() && (listed.len() != ingress.len() || !egress.is_empty()) {
        return Err(unsupported(
            item,
            "a group admitting a list input (members, the VPC) holds no other rule",
        ));
    }
    let list_rules = (!listed.is_empty())
        .then(|| listed.iter().map(|r| list_rule(cx, item, r)).collect::<Result<Vec<_>, _>>())
        .transpose()?;
    let props = SecurityGroup {
        name: &item.physical_name,
        description: format!("runway {} {}: {}", cx.plan.product, cx.plan.environment, item.label()),
        vpc_id: cx.input(Input::VpcId),
        ingress: list_rules,
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:ec2/securityGroup:SecurityGroup", props)?;
    let rules = ingress.iter().filter(|r| !r.peer.is_list_input()).map(|r| (r, true));
    for (rule, inbound) in rules.chain(egress.iter().map(|r| (r, false))) {
        declare_rule(cx, item, rule, inbound)?;
    }
    Ok(())
}

/// A rule of the group's own list, admitting a list input on its port.
fn list_rule(cx: &mut Context<'_>, item: &PlannedItem, rule: &SecurityRule) -> Result<ListRule, RenderError> {
    let (security_groups, cidr_blocks, description) = match &rule.peer {
        Peer::Members => (Some(cx.input(Input::MemberSecurityGroupIds)), None, "the members of the product"),
        Peer::Vpc => (None, Some(cx.input(Input::VpcCidrBlocks)), "every address of the VPC"),
        Peer::Group { .. } | Peer::Internet => {
            return Err(unsupported(item, "only a list input is written on the group"));
        }
    };
    Ok(ListRule {
        protocol: "tcp",
        from_port: rule.port,
        to_port: rule.port,
        security_groups,
        cidr_blocks,
        description,
    })
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
        // Written on the group (`list_rule`).
        Peer::Members | Peer::Vpc => {
            return Err(unsupported(item, "a list input is written on its group, not as a rule of its own"));
        }
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

/// Resources a group renders to: itself and each rule but those of list inputs (written on it).
pub(super) fn resources(ingress: &[SecurityRule], egress: &[SecurityRule]) -> usize {
    1 + ingress.iter().filter(|r| !r.peer.is_list_input()).count() + egress.len()
}
