//! IAM: the one policy document type every role and policy of the program uses, the role
//! resource workloads (`identity.rs`) and postgres (RDS Proxy) declare, and the role's
//! permissions as a `RolePolicy` beside it (the role's `inlinePolicies` and
//! `managedPolicyArns` are deprecated in pulumi-aws v7).

use runtime_plan::{Grant, PlannedItem, PolicyResource};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, ROLE_POLICY, Tags};
use super::expr::{ToJson, to_json};

/// The resource type of a role.
pub(super) const ROLE: &str = "aws:iam/role:Role";

/// An IAM policy document, written with `fn::toJSON`.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct PolicyDocument {
    version: &'static str,
    statement: Vec<Statement>,
}

impl PolicyDocument {
    /// A document of the current policy language version.
    pub(super) fn new(statement: Vec<Statement>) -> Self {
        Self { version: "2012-10-17", statement }
    }
}

/// One statement of a policy document, fields in the order AWS documents them.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct Statement {
    effect: Effect,
    /// Who may assume a role (trust policies only).
    principal: Option<Principal>,
    action: Action,
    /// What the actions apply to (permission policies only).
    resource: Option<Vec<String>>,
    /// When it applies (trust policies: the account, and the ARNs, the service acts for).
    condition: Option<TrustCondition>,
}

impl Statement {
    /// Allows `action` on `resource`.
    pub(super) fn allow(action: Action, resource: Vec<String>) -> Self {
        Self { effect: Effect::Allow, principal: None, action, resource: Some(resource), condition: None }
    }
}

/// The condition of a trust policy (the confused-deputy guard): the service may assume the role
/// only when it acts for this account (`aws:SourceAccount`), and, where the service names a
/// stable ARN, for this account's resources (`aws:SourceArn`). Written only for a service
/// whose guide shows it sends them (ECS); see [`Assumer::Rds`].
#[derive(Serialize)]
struct TrustCondition {
    #[serde(rename = "StringEquals")]
    string_equals: SourceAccount,
    #[serde(rename = "ArnLike")]
    arn_like: Option<SourceArn>,
}

#[derive(Serialize)]
struct SourceAccount {
    #[serde(rename = "aws:SourceAccount")]
    account: String,
}

#[derive(Serialize)]
struct SourceArn {
    #[serde(rename = "aws:SourceArn")]
    arn: String,
}

/// Only allows: what is not allowed is denied.
#[derive(Serialize)]
enum Effect {
    Allow,
}

/// An AWS service as a principal.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Principal {
    service: &'static str,
}

/// One action, written as a string, or several, written as a list.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum Action {
    One(&'static str),
    Many(Vec<&'static str>),
}

/// A service that assumes a role, and whether it names the ARN of what it acts for.
#[derive(Clone, Copy)]
pub(super) enum Assumer {
    /// ECS for a task's containers (`ecs-tasks.amazonaws.com`, the task role): `aws:SourceArn`
    /// is an ECS ARN of this account and region, as the ECS guide's task role shows.
    EcsTasks,
    /// ECS's agent for a task (`ecs-tasks.amazonaws.com`, the execution role): the account only.
    EcsAgent,
    /// RDS for a proxy (`rds.amazonaws.com`): no condition, as AWS's RDS Proxy guide writes the
    /// role ("RDS - Add Role to Database"). No AWS page says RDS Proxy sends `aws:SourceAccount`
    /// when it assumes the role, and a condition on a key it does not send denies every
    /// assumption: every login through the proxy would fail (docs/pulumi.md, "Trust").
    Rds,
    /// ECS itself (`ecs.amazonaws.com`), to move a release's traffic between two target
    /// groups: no condition, as the ECS guide writes its infrastructure role's trust.
    Ecs,
    /// EventBridge Scheduler for a schedule's runs (`scheduler.amazonaws.com`): the account
    /// only, as the Scheduler guide's execution role writes it.
    Scheduler,
}

/// The trust policy of a role an AWS service assumes, for this account only.
pub(super) fn assumed_by(cx: &mut Context<'_>, assumer: Assumer) -> PolicyDocument {
    let (service, condition) = match assumer {
        Assumer::EcsTasks => {
            let account = cx.account();
            let arn = format!("arn:aws:ecs:{}:{account}:*", cx.region());
            let arn_like = Some(SourceArn { arn });
            (
                "ecs-tasks.amazonaws.com",
                Some(TrustCondition { string_equals: SourceAccount { account }, arn_like }),
            )
        }
        Assumer::EcsAgent => {
            let account = cx.account();
            (
                "ecs-tasks.amazonaws.com",
                Some(TrustCondition { string_equals: SourceAccount { account }, arn_like: None }),
            )
        }
        Assumer::Rds => ("rds.amazonaws.com", None),
        Assumer::Ecs => ("ecs.amazonaws.com", None),
        Assumer::Scheduler => {
            let account = cx.account();
            (
                "scheduler.amazonaws.com",
                Some(TrustCondition { string_equals: SourceAccount { account }, arn_like: None }),
            )
        }
    };
    PolicyDocument::new(vec![Statement {
        effect: Effect::Allow,
        principal: Some(Principal { service }),
        action: Action::One("sts:AssumeRole"),
        resource: None,
        condition,
    }])
}

/// The properties of a role.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Role<'p> {
    pub(super) name: &'p str,
    pub(super) assume_role_policy: ToJson<PolicyDocument>,
    pub(super) tags: Tags<'p>,
}

/// The properties of a role's inline policy. Has no `tags` input.
#[derive(Serialize)]
pub(super) struct RolePolicy {
    pub(super) name: &'static str,
    pub(super) role: String,
    pub(super) policy: ToJson<PolicyDocument>,
}

/// Declares the item's role, assumed by `assumer`, and its permissions `statements` (when
/// there are any) as the companion `<id>--policy` named `policy_name`.
pub(super) fn role_with_policy<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    assumer: Assumer,
    policy_name: &'static str,
    statements: Vec<Statement>,
) -> Result<(), RenderError> {
    let props = Role {
        name: &item.physical_name,
        assume_role_policy: to_json(assumed_by(cx, assumer)),
        tags: cx.tags(item),
    };
    cx.declare(item, ROLE, props)?;
    if statements.is_empty() {
        return Ok(());
    }
    let props = RolePolicy {
        name: policy_name,
        role: cx.reference(&item.id, "name")?,
        policy: to_json(PolicyDocument::new(statements)),
    };
    cx.declare_companion(item, "policy", ROLE_POLICY, props)
}

/// The statements of the plan's grants: one each, its actions on its resources' ARNs.
pub(super) fn statements(cx: &mut Context<'_>, grants: &[Grant]) -> Result<Vec<Statement>, RenderError> {
    let mut out = Vec::with_capacity(grants.len());
    for g in grants {
        let mut resources = Vec::with_capacity(g.resources.len());
        for r in &g.resources {
            arns(cx, r, &mut resources)?;
        }
        out.push(Statement::allow(Action::Many(g.actions.to_vec()), resources));
    }
    Ok(out)
}

/// The ARNs of a resource of a grant, added to `out`: an item's `arn` output, or built from
/// the account of the deploying identity and the plan's region.
fn arns(cx: &mut Context<'_>, resource: &PolicyResource, out: &mut Vec<String>) -> Result<(), RenderError> {
    let region = cx.region();
    out.push(match resource {
        PolicyResource::Item { item } => cx.reference(item, "arn")?,
        PolicyResource::ItemObjects { item } => format!("{}/*", cx.reference(item, "arn")?),
        PolicyResource::ItemLogStreams { item } => format!("{}:*", cx.reference(item, "arn")?),
        PolicyResource::SsmParameters { names } => {
            let account = cx.account();
            for name in names.iter() {
                let slash = if name.starts_with('/') { "" } else { "/" };
                out.push(format!("arn:aws:ssm:{region}:{account}:parameter{slash}{name}"));
            }
            return Ok(());
        }
        PolicyResource::KmsAlias { alias } => cx.kms_alias_target(alias),
        PolicyResource::KmsKeyId { id } => format!("arn:aws:kms:{region}:{}:key/{id}", cx.account()),
        PolicyResource::Arn { arn } => arn.to_string(),
        PolicyResource::Any => "*".to_owned(),
    });
    Ok(())
}
