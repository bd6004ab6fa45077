//! The deploy and operator roles of the example: every AWS call runway's own commands make (read
//! from the adapter's source) is listed for exactly one of them and allowed by it, the deploy
//! role refuses what only the operator role may do (restore, delete a database, the key, the
//! parameters), every resource type the program can declare is granted, calls outside the
//! plan's names are refused, and both fit IAM's managed-policy size limit.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::BTreeMap;

use deploy_policy::{
    DeployRole, GithubTarget, MANAGED_POLICY_LIMIT, OPERATOR_ACTIONS, Options, RUNWAY_ACTIONS, Request,
    allows, derive, derive_operator, derive_with_previews,
};
use runway_schema::{MemFiles, Options as LoadOptions};
use test_support::workspace;

const MEMBERS: [&str; 3] = ["services/orders", "services/billing", "tools/reporting"];
const ACCOUNT: &str = "123456789012";

fn example_roles() -> Vec<DeployRole> {
    example_pairs().into_iter().map(|(deploy, _)| deploy).collect()
}

/// The example product, valid.
fn example_product() -> runway_schema::Product {
    let root = workspace().join("examples/acme-shop");
    let mut files = MemFiles::default();
    for member in MEMBERS {
        let path = format!("{member}/runway.yaml");
        files = files.with(&path, std::fs::read(root.join(&path)).unwrap());
    }
    let text = std::fs::read(root.join("runway.yaml")).unwrap();
    runway_schema::load("runway.yaml", &text, &files, &LoadOptions::default()).product.unwrap()
}

/// Each environment's deploy role and operator role.
fn example_pairs() -> Vec<(DeployRole, DeployRole)> {
    let product = example_product();
    let catalogue = cost::Catalogue::builtin();
    let github = GithubTarget { repository: "acme/shop".into(), environment: "dev".into() };
    product
        .root
        .environments
        .keys()
        .map(|env| {
            let plan = runtime_plan::plan(&product, env, &catalogue).unwrap();
            let options = Options { account: ACCOUNT.into(), github: Some(github.clone()) };
            (derive(&plan, &options).unwrap(), derive_operator(&plan, &options).unwrap())
        })
        .collect()
}

/// The deploy and operator roles of the example with `main-db` on Aurora (its cluster's
/// restore is granted only where a plan has a cluster).
fn aurora_pairs() -> Vec<(DeployRole, DeployRole)> {
    let root = workspace().join("examples/acme-shop");
    let mut files = MemFiles::default();
    for member in MEMBERS {
        let path = format!("{member}/runway.yaml");
        files = files.with(&path, std::fs::read(root.join(&path)).unwrap());
    }
    let text =
        std::fs::read_to_string(root.join("runway.yaml")).unwrap().replace("engine: rds", "engine: aurora");
    let product =
        runway_schema::load("runway.yaml", text.as_bytes(), &files, &LoadOptions::default()).product.unwrap();
    let catalogue = cost::Catalogue::builtin();
    let github = GithubTarget { repository: "acme/shop".into(), environment: "dev".into() };
    product
        .root
        .environments
        .keys()
        .map(|env| {
            let plan = runtime_plan::plan(&product, env, &catalogue).unwrap();
            let options = Options { account: ACCOUNT.into(), github: Some(github.clone()) };
            (derive(&plan, &options).unwrap(), derive_operator(&plan, &options).unwrap())
        })
        .collect()
}

/// What a restore of the Aurora `main-db` asks of `env`.
fn cluster_requests(env: &str) -> Vec<Request> {
    let arn = |rest: &str| format!("arn:aws:rds:us-east-1:{ACCOUNT}:{rest}");
    let base = format!("acme-shop-{env}-main-db");
    vec![
        request("rds:RestoreDBClusterToPointInTime", &arn(&format!("cluster:{base}-restored"))),
        request("rds:RestoreDBClusterToPointInTime", &arn(&format!("cluster:{base}-drill"))),
        request("rds:CreateDBInstance", &arn(&format!("db:{base}-1-drill"))),
        request("rds:DeleteDBInstance", &arn(&format!("db:{base}-1-drill"))),
        request("rds:DeleteDBCluster", &arn(&format!("cluster:{base}-drill"))),
        request("rds:DeleteDBCluster", &arn(&format!("cluster:{base}-old"))),
        request("rds:DeleteDBInstance", &arn(&format!("db:{base}-1-old"))),
    ]
}

#[test]
fn only_the_operator_role_restores_a_cluster_beside_the_live_one() {
    let mut seen = Vec::new();
    for (deploy, operator) in aurora_pairs() {
        let env = deploy.environment.clone();
        let (deploy_docs, operator_docs) = (deploy.documents(), operator.documents());
        for r in cluster_requests(&env) {
            assert!(
                !allows(&deploy_docs, &r),
                "{env}: the deploy role allows {} on {:?}",
                r.action,
                r.resources
            );
            assert!(
                allows(&operator_docs, &r),
                "{env}: the operator role refuses {} on {:?}",
                r.action,
                r.resources
            );
            seen.push(r.action);
        }
        // The deploy role still makes the plan's own instances (`pulumi up`).
        let own = request(
            "rds:CreateDBInstance",
            &format!("arn:aws:rds:us-east-1:{ACCOUNT}:db:acme-shop-{env}-main-db-1"),
        );
        assert!(allows(&deploy_docs, &own), "{env}: the deploy role cannot make the plan's instance");
    }
    for action in ["rds:RestoreDBClusterToPointInTime", "rds:CreateDBInstance", "rds:DeleteDBCluster"] {
        assert!(seen.iter().any(|a| a == action), "no request tries {action}");
    }
}

fn dev() -> DeployRole {
    example_roles().into_iter().find(|r| r.environment == "dev").unwrap()
}

/// `Client.<field>` of the adapter -> the IAM service prefix. (ECR is called through a client
/// made for its registry's region, `from_conf`: its one call is listed by hand.)
const CLIENTS: [(&str, &str); 15] = [
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
    ("s3", "s3"),
    ("sqs", "sqs"),
];

/// The operations whose IAM action has another name (Service Authorization Reference, "Actions
/// defined by Amazon S3"): listing versions is `s3:ListBucketVersions`; `DeleteObjects` of
/// versions is `s3:DeleteObjectVersion` per object (runway always names the version).
const IAM_NAMES: [(&str, &str); 2] =
    [("s3:ListObjectVersions", "s3:ListBucketVersions"), ("s3:DeleteObjects", "s3:DeleteObjectVersion")];

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
                    let call = format!("{service}:{pascal}");
                    let iam = IAM_NAMES.iter().find(|(op, _)| *op == call).map(|(_, iam)| (*iam).to_owned());
                    calls.push(iam.unwrap_or(call));
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
    let lower = |list: &[&str]| list.iter().map(|a| a.to_ascii_lowercase()).collect::<Vec<String>>();
    let (deploy, operator) = (lower(RUNWAY_ACTIONS), lower(OPERATOR_ACTIONS));
    for call in &calls {
        let call = call.to_ascii_lowercase();
        let lists = usize::from(deploy.contains(&call)) + usize::from(operator.contains(&call));
        assert_eq!(
            lists, 1,
            "{call} is called by aws-adapter: it must be in exactly one of RUNWAY_ACTIONS and OPERATOR_ACTIONS"
        );
    }
    for (deploy_role, operator_role) in example_pairs() {
        for action in RUNWAY_ACTIONS {
            assert!(
                allowed_somewhere(&deploy_role, action),
                "{} does not allow {action}",
                deploy_role.environment
            );
            assert!(
                allowed_somewhere(&operator_role, action),
                "{} operator: {action}",
                operator_role.environment
            );
        }
        // A cluster's restore is granted where the plan has a cluster (the Aurora example).
        let aurora = aurora_pairs().into_iter().find(|(d, _)| d.environment == operator_role.environment);
        for action in OPERATOR_ACTIONS {
            assert!(
                allowed_somewhere(&operator_role, action)
                    || aurora.as_ref().is_some_and(|(_, o)| allowed_somewhere(o, action)),
                "{} operator: {action}",
                operator_role.environment
            );
        }
    }
}

/// What `runway restore` and `runway teardown` ask of `env`, one request per operator action
/// (and the environment key's deletion, which the deploy side also calls on an extra key).
fn operator_requests(env: &str) -> Vec<Request> {
    let db = |name: &str| format!("arn:aws:rds:us-east-1:{ACCOUNT}:db:acme-shop-{env}-main-db{name}");
    let cache = |name: &str| {
        format!("arn:aws:elasticache:us-east-1:{ACCOUNT}:replicationgroup:acme-shop-{env}-sessions{name}")
    };
    let alias = format!("alias/runway/acme-shop/{env}");
    let key = format!("arn:aws:kms:us-east-1:{ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab");
    let key_request = |action: &str| {
        let mut r = request(action, &key);
        r.context.insert("aws:ResourceTag/product".into(), vec!["acme-shop".into()]);
        r.context.insert("aws:ResourceTag/environment".into(), vec![env.into()]);
        r.context.insert("kms:ResourceAliases".into(), vec![alias.clone()]);
        r
    };
    let mut delete_alias = key_request("kms:DeleteAlias");
    delete_alias.resources.push(format!("arn:aws:kms:us-east-1:{ACCOUNT}:{alias}"));
    let mut out = vec![
        request("rds:RestoreDBInstanceToPointInTime", &db("-restored")),
        request("rds:RestoreDBInstanceToPointInTime", &db("-drill")),
        request("rds:DeleteDBInstance", &db("-drill")),
        request("rds:DeleteDBInstance", &db("-old")),
        request(
            "ssm:DeleteParameters",
            &format!("arn:aws:ssm:us-east-1:{ACCOUNT}:parameter/acme-shop/{env}/main-db/MAIN_DB_HOST"),
        ),
        delete_alias,
        key_request("kms:ScheduleKeyDeletion"),
        request("elasticache:CreateReplicationGroup", &cache("-restored")),
        request("elasticache:DeleteReplicationGroup", &cache("-drill")),
        request(
            "elasticache:DescribeSnapshots",
            &format!(
                "arn:aws:elasticache:us-east-1:{ACCOUNT}:snapshot:automatic.acme-shop-{env}-sessions-001-2026-12-06-05-10"
            ),
        ),
    ];
    if env == "production" {
        // Production's database is protected: deleting it is an operation, never a deploy's.
        out.push(request("rds:DeleteDBInstance", &db("")));
    }
    out
}

#[test]
fn the_deploy_role_refuses_what_only_the_operator_role_may_do() {
    let mut seen = Vec::new();
    for (deploy, operator) in example_pairs() {
        let env = deploy.environment.clone();
        let (deploy_docs, operator_docs) = (deploy.documents(), operator.documents());
        for r in operator_requests(&env) {
            assert!(
                !allows(&deploy_docs, &r),
                "{env}: the deploy role allows {} on {:?}",
                r.action,
                r.resources
            );
            assert!(
                allows(&operator_docs, &r),
                "{env}: the operator role refuses {} on {:?}",
                r.action,
                r.resources
            );
            seen.push(r.action.to_ascii_lowercase());
        }
        // The deploy side still schedules a concurrent run's extra key, which has no alias.
        let mut extra =
            operator_requests(&env).into_iter().find(|r| r.action == "kms:ScheduleKeyDeletion").unwrap();
        extra.context.remove("kms:ResourceAliases");
        assert!(allows(&deploy_docs, &extra), "{env}: the deploy role cannot delete an extra key");
        assert_eq!(operator.role_name, format!("runway-operate-acme-shop-{env}"));
        let trust = serde_json::to_value(operator.trust_policy.unwrap()).unwrap();
        assert_eq!(
            trust["Statement"][0]["Condition"]["StringEquals"]["token.actions.githubusercontent.com:sub"][0],
            "repo:acme/shop:environment:dev-operations"
        );
    }
    for action in OPERATOR_ACTIONS {
        let of_a_cluster = cluster_requests("dev").iter().any(|r| r.action.eq_ignore_ascii_case(action));
        assert!(seen.contains(&action.to_ascii_lowercase()) || of_a_cluster, "no request tries {action}");
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

/// The traffic role of a workload released by canary (the example's Metabase in production)
/// may be passed to ECS itself; dev, which releases rolling, passes no role to ECS itself.
#[test]
fn the_traffic_role_is_passed_to_ecs_only_where_a_workload_releases_by_canary() {
    let roles = example_roles();
    let pass = |env: &str, service: &str| {
        let role = roles.iter().find(|r| r.environment == env).unwrap();
        let arn = format!("arn:aws:iam::123456789012:role/acme-shop-{env}-metabase-traffic");
        let mut pass = request("iam:PassRole", &arn);
        pass.context.insert("iam:PassedToService".into(), vec![service.into()]);
        allows(&role.documents(), &pass)
    };
    assert!(pass("production", "ecs.amazonaws.com"));
    assert!(!pass("production", "lambda.amazonaws.com"));
    assert!(!pass("dev", "ecs.amazonaws.com"));
    assert!(pass("dev", "ecs-tasks.amazonaws.com"));
}

#[test]
fn each_environment_fits_managed_policies_under_the_limit() {
    for role in example_pairs().into_iter().flat_map(|(deploy, operator)| [deploy, operator]) {
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

/// Dev's deploy role, which the pull requests' preview jobs assume, grants `pulumi up` and
/// `secrets prepare` on any preview's own names (planned for one, written `pr-*`), which dev's
/// role alone refused, and still nothing of another environment (docs/previews.md).
#[test]
fn devs_role_covers_the_previews_own_names_and_no_other_environments() {
    let product = example_product();
    let catalogue = cost::Catalogue::builtin();
    let dev_plan = runtime_plan::plan(&product, "dev", &catalogue).unwrap();
    let preview = runtime_plan::preview_plan(&product, 1, &catalogue).unwrap();
    let options = Options { account: ACCOUNT.into(), github: None };
    let with = derive_with_previews(&dev_plan, Some(&preview), &options).unwrap();
    let without = derive(&dev_plan, &options).unwrap();
    let (docs, alone) = (with.documents(), without.documents());
    let arn = |service: &str, rest: &str| format!("arn:aws:{service}:us-east-1:{ACCOUNT}:{rest}");
    let iam = |rest: &str| format!("arn:aws:iam::{ACCOUNT}:{rest}");
    // Pull request 42's own names (another number than the one planned).
    let own = [
        (
            "secretsmanager:CreateSecret",
            arn("secretsmanager", "secret:acme-shop/pr-42/main-db/proxy-metabase-AbCdEf"),
        ),
        (
            "secretsmanager:PutSecretValue",
            arn("secretsmanager", "secret:acme-shop/pr-42/main-db/proxy-metabase-AbCdEf"),
        ),
        ("iam:CreateRole", iam("role/acme-shop-pr-42-metabase-execution")),
        ("iam:PutRolePolicy", iam("role/acme-shop-pr-42-main-db-bootstrap-execution")),
        ("sqs:CreateQueue", arn("sqs", "acme-shop-pr-42-jobs")),
        ("sns:CreateTopic", arn("sns", "acme-shop-pr-42-events")),
        ("logs:CreateLogGroup", arn("logs", "log-group:/runway/acme-shop/pr-42/metabase")),
    ];
    for (action, resource) in &own {
        assert!(allows(&docs, &request(action, resource)), "{action} on {resource} refused");
        assert!(!allows(&alone, &request(action, resource)), "{action} on {resource} was already granted");
    }
    let param = arn("ssm", "parameter/acme-shop/dev/previews/pr-42/main-db/metabase/MAIN_DB_PASSWORD");
    assert!(allows(&docs, &request("ssm:PutParameter", &param)));
    // `preview up` and `down`: its logins' secrets found by name, then listed on (and taken
    // off) dev's proxy, whose ARN RDS names by its generated id (docs/previews.md).
    let login = arn("secretsmanager", "secret:acme-shop/pr-42/main-db/proxy-metabase-AbCdEf");
    assert!(allows(&docs, &request("secretsmanager:DescribeSecret", &login)));
    let dev_proxy = arn("rds", "db-proxy:prx-0123456789abcdef0");
    for action in ["rds:DescribeDBProxies", "rds:ModifyDBProxy"] {
        assert!(allows(&docs, &request(action, &dev_proxy)), "{action} on dev's proxy refused");
    }
    // A preview's security group, created tagged as one.
    let mut group = request("ec2:CreateSecurityGroup", &arn("ec2", "security-group/*"));
    group.context.insert("aws:RequestTag/product".into(), vec!["acme-shop".into()]);
    group.context.insert("aws:RequestTag/environment".into(), vec!["pr-42".into()]);
    assert!(allows(&docs, &group));
    group.context.insert("aws:RequestTag/environment".into(), vec!["production".into()]);
    assert!(!allows(&docs, &group), "a security group tagged for production");
    // Another environment's names stay refused.
    for env in ["production", "staging"] {
        for (action, resource) in &own {
            let theirs = resource.replace("pr-42", env);
            assert!(!allows(&docs, &request(action, &theirs)), "{action} on {theirs} allowed");
        }
        let theirs = arn("ssm", &format!("parameter/acme-shop/{env}/main-db/MAIN_DB_PASSWORD"));
        assert!(!allows(&docs, &request("ssm:PutParameter", &theirs)));
    }
    assert!(with.policies.len() <= 10, "{} managed policies", with.policies.len());
    for p in &with.policies {
        assert!(p.characters <= MANAGED_POLICY_LIMIT, "{} is {} characters", p.name, p.characters);
    }
}
