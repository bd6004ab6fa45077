//! IAM policy documents as plain data, merged and split to fit IAM's size limit.

use std::collections::BTreeMap;

use serde::Serialize;

/// A policy document (`Version` 2012-10-17).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PolicyDocument {
    /// Always `2012-10-17`.
    #[serde(rename = "Version")]
    pub version: &'static str,
    /// The statements.
    #[serde(rename = "Statement")]
    pub statement: Vec<Statement>,
}

/// One statement: actions allowed (or, the deploy role's few, denied) on resources (or, in a
/// trust policy, a principal), under conditions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Statement {
    /// What it is for; a statement on `*` says why in it.
    #[serde(rename = "Sid")]
    pub sid: String,
    /// `Allow`, or `Deny` for what the deploy role must never do even where an `Allow` (what
    /// `pulumi up` needs) would reach it: an explicit deny wins (docs/iam.md, "Two roles").
    #[serde(rename = "Effect")]
    pub effect: &'static str,
    /// A trust policy's principal: `{"Federated": "<provider ARN>"}`.
    #[serde(rename = "Principal", skip_serializing_if = "Option::is_none")]
    pub principal: Option<BTreeMap<String, String>>,
    /// The actions, `service:Name`, `*` allowed in names.
    #[serde(rename = "Action")]
    pub action: Vec<String>,
    /// The resources' ARNs (`*` allowed); none in a trust policy.
    #[serde(rename = "Resource", skip_serializing_if = "Vec::is_empty")]
    pub resource: Vec<String>,
    /// Operator -> context key -> values.
    #[serde(rename = "Condition", skip_serializing_if = "Condition::is_empty")]
    pub condition: Condition,
}

/// A statement's conditions: `{"StringEquals": {"aws:ResourceTag/product": ["acme"]}}`.
pub type Condition = BTreeMap<String, BTreeMap<String, Vec<String>>>;

impl Statement {
    /// An `Allow` of `actions` on `resources`.
    pub fn allow(sid: &str, actions: &[&str], resources: Vec<String>) -> Statement {
        Statement {
            sid: sid.to_owned(),
            effect: "Allow",
            principal: None,
            action: actions.iter().map(|a| (*a).to_owned()).collect(),
            resource: resources,
            condition: Condition::new(),
        }
    }

    /// A `Deny` of `actions` on `resources`: it wins over every `Allow`.
    pub fn deny(sid: &str, actions: &[&str], resources: Vec<String>) -> Statement {
        Statement { effect: "Deny", ..Statement::allow(sid, actions, resources) }
    }

    /// The statement with one more condition.
    #[must_use]
    pub fn when(mut self, operator: &str, key: &str, values: &[&str]) -> Statement {
        self.condition
            .entry(operator.to_owned())
            .or_default()
            .insert(key.to_owned(), values.iter().map(|v| (*v).to_owned()).collect());
        self
    }
}

impl PolicyDocument {
    /// A document of `statements`.
    pub fn new(statement: Vec<Statement>) -> PolicyDocument {
        PolicyDocument { version: "2012-10-17", statement }
    }

    /// Its length as IAM counts it: the JSON without whitespace.
    pub fn minified_len(&self) -> usize {
        serde_json::to_string(self).map_or(0, |s| s.len())
    }
}

/// Statements with the same Sid joined (actions and resources unioned, each sorted and
/// deduplicated), in the order each Sid first appears.
pub(crate) fn merge(statements: Vec<Statement>) -> Vec<Statement> {
    let mut out: Vec<Statement> = Vec::new();
    for s in statements {
        match out.iter_mut().find(|o| o.sid == s.sid) {
            Some(o) => {
                o.action.extend(s.action);
                o.resource.extend(s.resource);
            }
            None => out.push(s),
        }
    }
    for s in &mut out {
        s.action.sort_by_key(|a| a.to_ascii_lowercase());
        s.action.dedup_by(|a, b| a.eq_ignore_ascii_case(b));
        s.resource.sort();
        s.resource.dedup();
    }
    out
}

/// The statements packed, in order, into as few documents as keep each under `limit`
/// characters (a statement larger than the limit alone gets a document of its own).
pub(crate) fn split(statements: Vec<Statement>, limit: usize) -> Vec<PolicyDocument> {
    let mut docs: Vec<PolicyDocument> = Vec::new();
    for s in statements {
        if let Some(last) = docs.last_mut() {
            last.statement.push(s);
            if last.minified_len() <= limit {
                continue;
            }
            let s = last.statement.pop();
            docs.extend(s.map(|s| PolicyDocument::new(vec![s])));
        } else {
            docs.push(PolicyDocument::new(vec![s]));
        }
    }
    docs
}
