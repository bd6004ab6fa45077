//! The deploy role of the example: it allows every AWS call runway's own commands make (read
//! from the adapter's source), grants for every resource type the program can declare, refuses
//! calls outside the plan's names, and fits IAM's managed-policy size limit.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::BTreeMap;

use deploy_policy::{
    DeployRole, GithubTarget, MANAGED_POLICY_LIMIT, Options, RUNWAY_ACTIONS, Request, allows, derive,
};
use runway_schema::{MemFiles, Options as LoadOptions};
use test_support::workspace;

const MEMBERS: [&str; 3] = ["services/orders", "services/billing", "tools/reporting"];
const ACCOUNT: &str = "123456789012";

fn example_roles() -> Vec<DeployRole> {
    let root = workspace().join("examples/acme-shop");
    let mut files = MemFiles::default();
    for member in MEMBERS {
        let path = format!("{member}/runway.yaml");
        files = files.with(&path, std::fs::read(root.join(&path)).unwrap());
    }
    let text = std::fs::read(root.join("runway.yaml")).unwrap();
    let product = runway_schema::load("runway.yaml", &text, &files, &LoadOptions::default()).product.unwrap();
    let catalogue = cost::Catalogue::builtin();
    let github = GithubTarget { repository: "acme/shop".into(), environment: "dev".into() };
    product
        .root
        .environments
        .keys()
        .map(|env| {
            let plan = runtime_plan::plan(&product, env, &catalogue).unwrap();
            derive(&plan, &Options { account: ACCOUNT.into(), github: Some(github.clone()) }).unwrap()
        })
        .collect()
}

fn dev() -> DeployRole {
    example_roles().into_iter().find(|r| r.environment == "dev").unwrap()
}

/// `Client.<field>` of the adapter -> the IAM service prefix. (ECR is called through a client
/// made for its registry's region, `from_conf`: its one call is listed by hand.)
const CLIENTS: [(&str, &str); 13] = [
    ("ssm", "ssm"),
    ("secrets", "secretsmanager"),
    ("kms", "kms"),
    ("ecs", "ecs"),
    ("rds", "rds"),
    ("elasticache", "elasticache"),
    ("ce", "ce"),
    ("ec2", "ec2"),
    ("acm", "acm"),
    ("iam", "iam"),
    ("quotas", "servicequotas"),
    ("route53", "route53"),
    ("tagging", "tag"),
];

/// Every SDK call of crates/aws-adapter/src/aws: a client field (`.ssm`) followed, across
/// whitespace, by `.operation()`; the operation in IAM's PascalCase.
fn adapter_calls() -> Vec<String> {
    let dir = workspace().join("crates/aws-adapter/src/aws");
    let mut calls = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let squeezed: String = text.split_whitespace().collect();
        for (field, service) in CLIENTS {
            let needle = format!(".{field}.");
            let mut rest = squeezed.as_str();
            while let Some(at) = rest.find(&needle) {
                rest = &rest[at + needle.len()..];
                let op: String = rest.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
                if rest[op.len()..].starts_with("()") && !op.is_empty() {
                    let pascal: String =
                        op.split('_').map(|w| w[..1].to_ascii_uppercase() + &w[1..]).collect();
                    calls.push(format!("{service}:{pascal}"));
                }
            }
        }
    }
    calls.sort();
    calls.dedup();
    calls
}

fn allowed_somewhere(role: &DeployRole, action: &str) -> bool {
    role.policies.iter().flat_map(|p| &p.document.statement).any(|s| {
        s.action.iter().any(|a| {
            let a = a.to_ascii_lowercase();
            let action = action.to_ascii_lowercase();
            a == action || a.strip_suffix('*').is_some_and(|head| action.starts_with(head))
        })
    })
}

#[test]
fn every_sdk_call_of_the_adapter_is_listed_and_allowed() {
    let calls = adapter_calls();
    assert!(calls.len() >= 25, "the scan found the adapter's calls: {calls:?}");
    let listed: Vec<String> = RUNWAY_ACTIONS.iter().map(|a| a.to_ascii_lowercase()).collect();
    for call in &calls {
        assert!(
            listed.contains(&call.to_ascii_lowercase()),
            "{call} is called by aws-adapter but not in RUNWAY_ACTIONS"
        );
    }
    for role in example_roles() {
        for action in RUNWAY_ACTIONS {
            assert!(allowed_somewhere(&role, action), "{} does not allow {action}", role.environment);
        }
    }
}

#[test]
fn every_type_the_program_can_declare_is_granted() {
    let mut missing = Vec::new();
    // Every source file of the program's crate, its module folders included.
    let mut files = Vec::new();
    let mut folders = vec![workspace().join("crates/pulumi-program/src")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() { folders.push(path) } else { files.push(path) }
        }
    }
    assert!(files.len() > 20, "the program's sources were found: {files:?}");
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        for piece in text.split('"').skip(1).step_by(2) {
            let is_type =
                piece.starts_with("aws:") && piece.matches(':').count() == 2 && !piece.contains(' ');
            if is_type && !deploy_policy::KNOWN_TYPES.contains(&piece) {
                missing.push(piece.to_owned());
            }
        }
    }
    assert!(missing.is_empty(), "types the policy grants nothing for: {missing:?}");
    for role in example_roles() {
        assert!(role.uncovered_types.is_empty(), "{:?}", role.uncovered_types);
    }
}

fn request(action: &str, resource: &str) -> Request {
    Request { action: action.into(), resources: vec![resource.into()], context: BTreeMap::new() }
}

#[test]
fn calls_on_the_plans_names_are_allowed_and_others_refused() {
    let role = dev();
    let docs = role.documents();
    let param = "arn:aws:ssm:us-east-1:123456789012:parameter/acme-shop/dev/main-db/MAIN_DB_PASSWORD";
    assert!(allows(&docs, &request("ssm:PutParameter", param)));
    // Another environment's parameter, another action, another account.
    let prod = "arn:aws:ssm:us-east-1:123456789012:parameter/acme-shop/production/main-db/MAIN_DB_PASSWORD";
    assert!(!allows(&docs, &request("ssm:PutParameter", prod)));
    assert!(!allows(&docs, &request("ssm:DeleteParameters", param)));
    assert!(!allows(&docs, &request("ssm:PutParameter", &param.replace("123456789012", "210987654321"))));
    assert!(!allows(&docs, &request("iam:CreateUser", "arn:aws:iam::123456789012:user/x")));
    // The role cannot rewrite itself.
    let own = format!("arn:aws:iam::123456789012:role/{}", role.role_name);
    assert!(!allows(&docs, &request("iam:PutRolePolicy", &own)));
    assert!(allows(
        &docs,
        &request("iam:PutRolePolicy", "arn:aws:iam::123456789012:role/acme-shop-dev-metabase-execution")
    ));
    // The key: only with the environment's tags.
    let key = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";
    let mut tagged = request("kms:Decrypt", key);
    tagged.context.insert("aws:ResourceTag/product".into(), vec!["acme-shop".into()]);
    tagged.context.insert("aws:ResourceTag/environment".into(), vec!["dev".into()]);
    assert!(allows(&docs, &tagged));
    tagged.context.insert("aws:ResourceTag/environment".into(), vec!["production".into()]);
    assert!(!allows(&docs, &tagged));
    assert!(!allows(&docs, &request("kms:Decrypt", key)));
    // Passing a role: only to ECS or RDS.
    let mut pass = request("iam:PassRole", "arn:aws:iam::123456789012:role/acme-shop-dev-pdf-render-task");
    pass.context.insert("iam:PassedToService".into(), vec!["ecs-tasks.amazonaws.com".into()]);
    assert!(allows(&docs, &pass));
    pass.context.insert("iam:PassedToService".into(), vec!["lambda.amazonaws.com".into()]);
    assert!(!allows(&docs, &pass));
}

#[test]
fn each_environment_fits_managed_policies_under_the_limit() {
    for role in example_roles() {
        assert!(
            !role.policies.is_empty() && role.policies.len() <= 10,
            "{}: {}",
            role.environment,
            role.policies.len()
        );
        for p in &role.policies {
            let counted = serde_json::to_string(&p.document).unwrap().len();
            assert_eq!(counted, p.characters);
            assert!(counted <= MANAGED_POLICY_LIMIT, "{} is {counted} characters", p.name);
        }
        let everything: usize = role.policies.iter().map(|p| p.document.statement.len()).sum();
        assert!(everything >= 20, "{} has {everything} statements", role.environment);
    }
}

#[test]
fn the_trust_policy_admits_one_repository_environment_through_github_oidc() {
    let role = dev();
    let trust = serde_json::to_value(role.trust_policy.unwrap()).unwrap();
    let s = &trust["Statement"][0];
    assert_eq!(s["Action"][0], "sts:AssumeRoleWithWebIdentity");
    assert_eq!(
        s["Principal"]["Federated"],
        "arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com"
    );
    assert_eq!(
        s["Condition"]["StringEquals"]["token.actions.githubusercontent.com:aud"][0],
        "sts.amazonaws.com"
    );
    assert_eq!(
        s["Condition"]["StringEquals"]["token.actions.githubusercontent.com:sub"][0],
        "repo:acme/shop:environment:dev"
    );
}
