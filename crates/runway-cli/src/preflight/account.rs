//! The account: the environment's key, the cost allocation tags (and, with the stack
//! settings, the network and the certificate).

use aws_adapter::aws::{AwsClients, KeyFacts};
use pulumi_program::StackInputs;
use runtime_plan::preflight::{COST_TAGS, Expectations};
use runtime_plan::{Finding, Plan};

use crate::output::chain;

/// The findings of the account's checks; without AWS, one warning saying they were not run.
pub(crate) async fn check(
    plan: &Plan,
    expected: &Expectations,
    inputs: Option<&StackInputs>,
    aws: Option<&AwsClients>,
) -> Vec<Finding> {
    let Some(aws) = aws else {
        return vec![Finding::warning(
            "account",
            &plan.environment,
            "the account and the network were not checked (--no-aws)",
            "run `runway preflight` with the deploy job's AWS credentials before `pulumi up`",
        )];
    };
    let mut findings = Vec::new();
    if let Some(alias) = &expected.key_alias {
        findings.extend(key(aws, alias).await);
    }
    findings.extend(cost_tags(aws).await);
    if inputs.is_none() {
        findings.push(Finding::warning(
            "network",
            &plan.environment,
            "the subnets and the certificate were not checked: no stack settings given",
            "pass the stack settings the program is deployed with: `--stack infra/ENV/Pulumi.<stack>.yaml`",
        ));
    }
    findings
}

/// A call that failed: the check could not be made (a warning, never a pass).
fn not_checked(check: &str, subject: &str, error: &(dyn std::error::Error + 'static)) -> Finding {
    Finding::warning(
        check,
        subject,
        format!("not checked: {}", chain(error)),
        "give the identity that runs preflight the read permissions of docs/preflight.md",
    )
}

/// The environment's key, when it exists: enabled, and its policy lets the account manage it.
async fn key(aws: &AwsClients, alias: &str) -> Vec<Finding> {
    let facts = match aws.key_facts(alias).await {
        Ok(Some(facts)) => facts,
        // `secrets prepare` creates it: nothing to check yet.
        Ok(None) => return Vec::new(),
        Err(e) => return vec![not_checked("key", alias, &e)],
    };
    let mut findings = Vec::new();
    if !facts.enabled() {
        findings.push(Finding::error(
            "key",
            alias,
            format!(
                "the environment's key {} is {}: nothing encrypted with it can be read",
                facts.arn, facts.state
            ),
            format!("enable it (`aws kms enable-key --key-id {}`), or cancel its deletion first", facts.arn),
        ));
    }
    if !has_account_statement(&facts) {
        let account = facts.account().unwrap_or("<account>");
        findings.push(Finding::error(
            "key",
            alias,
            format!("the policy of {alias} has no statement for the account (`arn:aws:iam::{account}:root`)"),
            "without it only the principals named can manage the key, and `pulumi up` cannot set its policy: \
             add the account statement (docs/secrets.md, \"The environment's key\")",
        ));
    }
    findings
}

/// Does the key policy allow `kms:*` to the account's root principal?
fn has_account_statement(facts: &KeyFacts) -> bool {
    let Some(account) = facts.account() else { return false };
    let root = format!("arn:aws:iam::{account}:root");
    let Some(policy) =
        facts.policy.as_deref().and_then(|p| serde_json::from_str::<serde_json::Value>(p).ok())
    else {
        return false;
    };
    let statements = match &policy["Statement"] {
        serde_json::Value::Array(list) => list.clone(),
        one => vec![one.clone()],
    };
    let names = |v: &serde_json::Value, wanted: &str| match v {
        serde_json::Value::String(s) => s == wanted,
        serde_json::Value::Array(list) => list.iter().any(|s| s == wanted),
        _ => false,
    };
    statements.iter().any(|s| {
        s["Effect"] == "Allow"
            && (names(&s["Principal"]["AWS"], &root) || names(&s["Principal"]["AWS"], account))
            && names(&s["Action"], "kms:*")
    })
}

/// The cost allocation tags `runway spend` reads the bill by: active, else a warning.
async fn cost_tags(aws: &AwsClients) -> Vec<Finding> {
    let found = match aws.cost_allocation_tags(&COST_TAGS).await {
        Ok(found) => found,
        Err(e) => return vec![not_checked("cost-tags", "cost allocation tags", &e)],
    };
    COST_TAGS
        .iter()
        .filter_map(|tag| {
            let status = found.iter().find(|(k, _)| k == tag).map(|(_, s)| s.as_str());
            if status == Some("Active") {
                return None;
            }
            let why = match status {
                Some(s) => format!("is {s}"),
                None => "is unknown to Cost Explorer (no resource carries it yet, or Cost Explorer is off)"
                    .to_owned(),
            };
            Some(Finding::warning(
                "cost-tags",
                tag,
                format!("the cost allocation tag `{tag}` {why}: `runway spend` will find no cost under it"),
                format!(
                    "activate it in the payer account: `aws ce update-cost-allocation-tags-status \
                     --cost-allocation-tags-status TagKey={tag},Status=Active` (activation does not backfill)"
                ),
            ))
        })
        .collect()
}
