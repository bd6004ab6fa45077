//! Statements both `pulumi up` and runway's own commands need: passing the plan's roles, and
//! using the environment's key.

use crate::document::Statement;
use crate::scope::Scope;

/// Passing the plan's roles to ECS (task definitions, one-off tasks, a service's traffic role
/// under a release strategy other than rolling) and RDS (the proxies).
pub(crate) fn pass_role(s: &Scope<'_>) -> Statement {
    Statement::allow(
        "PassThePlansRolesToEcsAndRds",
        &["iam:PassRole"],
        vec![format!("arn:aws:iam::{}:role/{}*", s.account, s.stem)],
    )
    .when("StringEquals", "iam:PassedToService", passed_to(s))
}

/// The services the plan's roles are passed to: ECS itself too when a service shifts a
/// release's traffic with a role of the plan.
fn passed_to(s: &Scope<'_>) -> &'static [&'static str] {
    if s.plan.items.iter().any(|i| i.kind() == runtime_plan::ItemKind::TrafficRole) {
        &["ecs-tasks.amazonaws.com", "ecs.amazonaws.com", "rds.amazonaws.com"]
    } else {
        &["ecs-tasks.amazonaws.com", "rds.amazonaws.com"]
    }
}

/// `actions` on the environment's key: runway's own key by its tags (and creating it, tagged,
/// and its alias), or the key `ssm.kmsKey` names.
pub(crate) fn own_key(s: &Scope<'_>, actions: &[&str]) -> Vec<Statement> {
    let [(_, product), (_, env)] = s.tags();
    let Some(alias) = s.own_key_alias() else {
        return vec![named_key(s, actions)];
    };
    vec![
        // A new key has no ARN before it exists: only the tags it is created with scope it.
        Statement::allow(
            "CreateTheEnvironmentsKeyTaggedSoStar",
            &["kms:CreateKey", "kms:TagResource"],
            vec!["*".to_owned()],
        )
        .when("StringEquals", "aws:RequestTag/product", &[product])
        .when("StringEquals", "aws:RequestTag/environment", &[env]),
        Statement::allow("TheEnvironmentsKeyByItsTags", actions, vec![s.arn("kms", "key/*")])
            .when("StringEquals", "aws:ResourceTag/product", &[product])
            .when("StringEquals", "aws:ResourceTag/environment", &[env]),
        Statement::allow("TheEnvironmentsKeyAlias", &["kms:CreateAlias"], vec![s.arn("kms", alias)]),
    ]
}

/// `actions` on the key `ssm.kmsKey` names: its ARN, or any key with that alias.
fn named_key(s: &Scope<'_>, actions: &[&str]) -> Statement {
    let key = s.plan.secrets.kms_key.as_str();
    if key.starts_with("arn:") && key.contains(":key/") {
        return Statement::allow("TheKeyTheRunwayNames", actions, vec![key.to_owned()]);
    }
    if let Some(alias) = key.strip_prefix("alias/").or_else(|| key.split_once(":alias/").map(|(_, a)| a)) {
        return Statement::allow("TheKeyTheRunwayNames", actions, vec![s.arn("kms", "key/*")]).when(
            "ForAnyValue:StringEquals",
            "kms:ResourceAliases",
            &[&format!("alias/{alias}")],
        );
    }
    Statement::allow("TheKeyTheRunwayNames", actions, vec![s.arn("kms", &format!("key/{key}"))])
}
