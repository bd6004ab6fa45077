//! IAM: the one policy document type every role and policy of the program uses, and the role
//! resource both the platform (task execution) and postgres (RDS Proxy) declare.

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

use super::context::Tags;
use super::expr::ToJson;

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
    resource: Option<String>,
    condition: Option<Condition>,
}

impl Statement {
    /// Allows `action` on `resource`.
    pub(super) fn allow(action: Action, resource: String) -> Self {
        Self { effect: Effect::Allow, principal: None, action, resource: Some(resource), condition: None }
    }

    /// The statement, only when `condition` holds.
    pub(super) fn when(self, condition: Condition) -> Self {
        Self { condition: Some(condition), ..self }
    }
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

/// `{operator: {key: value}}`, such as `ForAnyValue:StringEquals` of `kms:ResourceAliases`.
pub(super) struct Condition {
    pub(super) operator: &'static str,
    pub(super) key: &'static str,
    pub(super) value: String,
}

impl Serialize for Condition {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        BTreeMap::from([(self.operator, BTreeMap::from([(self.key, &self.value)]))]).serialize(serializer)
    }
}

/// The trust policy of a role an AWS service assumes.
pub(super) fn assumed_by(service: &'static str) -> PolicyDocument {
    PolicyDocument::new(vec![Statement {
        effect: Effect::Allow,
        principal: Some(Principal { service }),
        action: Action::One("sts:AssumeRole"),
        resource: None,
        condition: None,
    }])
}

/// The properties of a role.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Role<'p> {
    pub(super) name: &'p str,
    pub(super) assume_role_policy: ToJson<PolicyDocument>,
    pub(super) managed_policy_arns: Option<Vec<&'static str>>,
    pub(super) inline_policies: Vec<InlinePolicy>,
    pub(super) tags: Tags<'p>,
}

/// A policy embedded in its role.
#[derive(Serialize)]
pub(super) struct InlinePolicy {
    pub(super) name: &'static str,
    pub(super) policy: ToJson<PolicyDocument>,
}
