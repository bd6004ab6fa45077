//! Who may do what, as rows of the plan's text: each security group's rules (`in tcp 443 from
//! internet`, `out tcp 5432 to <group>`) and each role's grants (actions on resources). The plan's items
//! hold the same in `spec`; this only words them.

use crate::plan::{Grant, ItemSpec, Peer, Plan, PolicyResource, SecurityRule};

/// One row per security rule and per grant, in item order.
pub(crate) fn rows(p: &Plan) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for item in &p.items {
        match &item.spec {
            ItemSpec::SecurityGroup { ingress, egress, .. } => {
                rows.extend(ingress.iter().map(|r| rule_row(&item.id, ("in", "from"), r)));
                rows.extend(egress.iter().map(|r| rule_row(&item.id, ("out", "to"), r)));
            }
            ItemSpec::TaskExecutionRole { grants, .. } | ItemSpec::TaskRole { grants, .. } => {
                rows.extend(grants.iter().map(|g| grant_row(&item.id, g)));
            }
            _ => {}
        }
    }
    rows
}

fn rule_row(group: &str, (direction, word): (&str, &str), rule: &SecurityRule) -> Vec<String> {
    let peer = match &rule.peer {
        Peer::Group { item } => item.to_string(),
        Peer::Internet => "internet (0.0.0.0/0)".to_owned(),
        Peer::Members => "members (memberSecurityGroupIds)".to_owned(),
    };
    vec![group.to_owned(), format!("{direction} tcp {}", rule.port), format!("{word} {peer}")]
}

fn grant_row(role: &str, grant: &Grant) -> Vec<String> {
    let resources: Vec<String> = grant
        .resources
        .iter()
        .map(|r| match r {
            PolicyResource::Item { item } => item.to_string(),
            PolicyResource::ItemObjects { item } => format!("{item}/*"),
            PolicyResource::SsmParameter { name } => name.to_string(),
            PolicyResource::KmsAlias { alias } => alias.to_string(),
            PolicyResource::KmsKeyId { id } => format!("key {id}"),
            PolicyResource::Arn { arn } => arn.to_string(),
            PolicyResource::Any => "*".to_owned(),
        })
        .collect();
    vec![
        role.to_owned(),
        "allow".to_owned(),
        format!("{} on {}", grant.actions.join(" "), resources.join(" ")),
    ]
}
