//! The account: the environment's key, the cost allocation tags, the ECS service-linked role,
//! the service quotas; with the stack settings, the certificate, the hosted zone and the network.

use aws_adapter::aws::{AwsClients, KeyFacts};
use pulumi_program::StackInputs;
use runtime_plan::preflight::{COST_TAGS, ECS_SERVICE_LINKED_ROLE, Expectations, certificate_covers};
use runtime_plan::{Finding, Plan};
use rust_decimal::Decimal;
use rust_decimal::prelude::FromPrimitive;

use super::not_checked;

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
    let key = async {
        match &expected.key_alias {
            Some(alias) => key(aws, alias).await,
            None => Vec::new(),
        }
    };
    let (mut findings, tags, role, quotas) =
        tokio::join!(key, cost_tags(aws), role(aws, expected), quotas(aws, expected));
    findings.extend(tags.into_iter().chain(role).chain(quotas));
    let Some(inputs) = inputs else {
        findings.push(Finding::warning(
            "network",
            &plan.environment,
            "the subnets and the certificate were not checked: no stack settings given",
            "pass the stack settings the program is deployed with: `--stack infra/ENV/Pulumi.<stack>.yaml`",
        ));
        return findings;
    };
    let public = expected.domain.is_some();
    let (network, certificate, zone) = tokio::join!(
        super::network::check(aws, expected, inputs, public),
        certificate(aws, expected, inputs),
        zone(aws, expected, inputs)
    );
    findings.extend(network.into_iter().chain(certificate).chain(zone));
    findings
}

/// The ECS service-linked role, which a fresh account lacks until something creates it.
async fn role(aws: &AwsClients, expected: &Expectations) -> Vec<Finding> {
    if !expected.ecs_services {
        return Vec::new();
    }
    match aws.role_exists(ECS_SERVICE_LINKED_ROLE).await {
        Ok(true) => Vec::new(),
        Ok(false) => vec![Finding::error(
            "ecs-role",
            ECS_SERVICE_LINKED_ROLE,
            format!(
                "the account has no {ECS_SERVICE_LINKED_ROLE}: the first ECS service would fail to create"
            ),
            "create it once per account: `aws iam create-service-linked-role --aws-service-name ecs.amazonaws.com`",
        )],
        Err(e) => vec![not_checked("ecs-role", ECS_SERVICE_LINKED_ROLE, &e)],
    }
}

/// Each quota against what the plan needs at its ceiling (the account's other use counts too).
async fn quotas(aws: &AwsClients, expected: &Expectations) -> Vec<Finding> {
    let mut findings = Vec::new();
    for need in &expected.quotas {
        let (service, code) = need.quota.codes();
        let name = need.quota.name();
        let value = match aws.service_quota(service, code).await {
            Ok(Some(v)) => v,
            Ok(None) => {
                let help = "check it in the Service Quotas console";
                findings.push(Finding::warning(
                    "quota",
                    name,
                    format!("the quota {name} ({code}) is unknown"),
                    help,
                ));
                continue;
            }
            Err(e) => {
                findings.push(not_checked("quota", name, &e));
                continue;
            }
        };
        let Some(have) = Decimal::from_f64(value) else { continue };
        if have < need.needed {
            findings.push(Finding::error(
                "quota",
                name,
                format!("the quota {name} is {have}; the plan needs {} at its ceiling (max tasks, NAT, instances, nodes)", need.needed),
                format!(
                    "request an increase: `aws service-quotas request-service-quota-increase --service-code {service} \
                     --quota-code {code} --desired-value {}` (granted in hours to days)",
                    need.needed.ceil()
                ),
            ));
        }
    }
    findings
}

/// The hosted zone the public hosts' records go in: there, public, named for the domain.
async fn zone(aws: &AwsClients, expected: &Expectations, inputs: &StackInputs) -> Vec<Finding> {
    let Some(domain) = expected.domain.as_deref().filter(|_| !expected.public_hosts.is_empty()) else {
        return Vec::new();
    };
    let Some(id) = &inputs.hosted_zone_id else {
        let help = "set it: `pulumi config set hostedZoneId Z...` (the public zone of the domain)";
        return vec![Finding::error(
            "dns",
            "hostedZoneId",
            "the stack sets no hostedZoneId, where the hosts' records go",
            help,
        )];
    };
    let zone = match aws.hosted_zone(id).await {
        Ok(Some(zone)) => zone,
        Ok(None) => {
            let help = "check `hostedZoneId` (`aws route53 list-hosted-zones`)";
            return vec![Finding::error("dns", id, format!("Route 53 has no hosted zone {id}"), help)];
        }
        Err(e) => return vec![not_checked("dns", id, &e)],
    };
    let mut findings = Vec::new();
    if zone.name != domain.to_ascii_lowercase() {
        findings.push(Finding::error(
            "dns",
            id,
            format!("the hosted zone {id} serves {}, not the environment's domain {domain}", zone.name),
            format!("give the hosted zone of {domain} (its records are `<workload>.{domain}`)"),
        ));
    }
    if zone.private {
        findings.push(Finding::error(
            "dns",
            id,
            format!(
                "the hosted zone {id} ({}) is private: the public hosts would not resolve outside the VPC",
                zone.name
            ),
            "give the public hosted zone of the domain",
        ));
    }
    findings
}

/// Days before expiry under which a certificate is reported.
const EXPIRY_DAYS: i64 = 30;

/// The certificate of the public hosts: there, issued, not about to expire, covering each.
async fn certificate(aws: &AwsClients, expected: &Expectations, inputs: &StackInputs) -> Vec<Finding> {
    if expected.public_hosts.is_empty() {
        return Vec::new();
    }
    let Some(arn) = &inputs.certificate_arn else {
        let help = "set it: `pulumi config set certificateArn arn:aws:acm:...`";
        return vec![Finding::error(
            "certificate",
            "certificateArn",
            "the stack sets no certificateArn, which the HTTPS listener needs",
            help,
        )];
    };
    let facts = match aws.certificate(arn).await {
        Ok(Some(facts)) => facts,
        Ok(None) => {
            let help = "request or import it in ACM in the environment's region, then set `certificateArn`";
            return vec![Finding::error(
                "certificate",
                arn,
                format!("ACM has no certificate {arn} in this region"),
                help,
            )];
        }
        Err(e) => return vec![not_checked("certificate", arn, &e)],
    };
    let mut findings = Vec::new();
    if facts.status != "ISSUED" {
        findings.push(Finding::error(
            "certificate",
            arn,
            format!("the certificate is {}, not ISSUED: the HTTPS listener refuses it", facts.status),
            "finish its validation (its DNS records) or request a new one",
        ));
    }
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let now = i64::try_from(now).unwrap_or(i64::MAX);
    if let Some(end) = facts.not_after {
        let days = (end - now).div_euclid(86_400);
        if end <= now {
            findings.push(Finding::error(
                "certificate",
                arn,
                "the certificate has expired",
                "renew or replace it, then set `certificateArn`",
            ));
        } else if days < EXPIRY_DAYS {
            findings.push(Finding::warning(
                "certificate",
                arn,
                format!("the certificate expires in {days} day(s)"),
                "an imported certificate is not renewed by ACM: import its renewal (an ACM-issued one renews if its validation records remain)",
            ));
        }
    }
    for host in &expected.public_hosts {
        if !facts.names.iter().any(|n| certificate_covers(n, host)) {
            findings.push(Finding::error(
                "certificate",
                host,
                format!("the certificate ({}) does not cover {host}", facts.names.join(", ")),
                format!(
                    "a wildcard covers one label only: request a certificate for `{host}` or `*.{}`",
                    host.split_once('.').map_or("", |(_, rest)| rest)
                ),
            ));
        }
    }
    findings
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
