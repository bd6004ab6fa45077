//! The bootstrap's image as the environment sets it (`bootstrap.image`, a mirror in the
//! account's ECR: `tests/fixtures/valid/shared-vpc.yaml`, whose programs the SDK check runs in
//! `pulumi_emit.rs`), and the proxy role's trust (no condition, as AWS's RDS Proxy guide writes
//! it) beside the ECS roles' (the account, and for task roles ECS ARNs).

#![allow(clippy::disallowed_methods)] // reason: the test reads a fixture from disk

use pulumi_program::{PROGRAM_FILE, render};
use runway_schema::{MemFiles, Options};
use serde_json::Value;
use test_support::workspace;

const FIXTURE: &str = "tests/fixtures/valid/shared-vpc.yaml";
const MIRROR: &str = "123456789012.dkr.ecr.us-east-1.amazonaws.com/mirror/postgres:16-alpine@sha256:57c72fd2a128e416c7fcc499958864df5301e940bca0a56f58fddf30ffc07777";

/// The program of `env` of the fixture, as a JSON value, and the plan's diagnostics.
fn program(env: &str) -> (Value, Vec<runway_schema::Diagnostic>) {
    let text = std::fs::read(workspace().join(FIXTURE)).expect("the fixture");
    let loaded = runway_schema::load(FIXTURE, &text, &MemFiles::default(), &Options::default());
    let product = loaded.product.unwrap_or_else(|| panic!("fixture invalid: {:?}", loaded.diagnostics));
    let plan = runtime_plan::plan(&product, env, &cost::Catalogue::builtin()).expect("plan");
    let program = render(&plan).expect("render");
    let doc = serde_saphyr::from_str(program.file(PROGRAM_FILE).expect("Pulumi.yaml")).expect("YAML");
    (doc, plan.diagnostics)
}

#[test]
fn the_bootstrap_runs_the_environments_image_and_the_proxy_role_trusts_rds_alone() {
    for env in ["staging", "production"] {
        let (doc, diagnostics) = program(env);
        // The mirror is reached through the ECR endpoints: nothing to warn about.
        assert!(
            !diagnostics.iter().any(|d| d.code == runway_schema::Code::UnreachableImage),
            "{diagnostics:?}"
        );
        let resources = doc["resources"].as_object().expect("resources");
        let task = &resources["main-db_bootstrap-task"];
        let containers =
            task["properties"]["containerDefinitions"]["fn::toJSON"].as_array().expect("containers");
        assert_eq!(containers[0]["image"], MIRROR, "{env}");
        for (id, resource) in resources {
            if resource["type"] != "aws:iam/role:Role" {
                continue;
            }
            let statement = &resource["properties"]["assumeRolePolicy"]["fn::toJSON"]["Statement"][0];
            let service = statement["Principal"]["Service"].as_str().expect("a service");
            match service {
                "rds.amazonaws.com" => assert!(statement.get("Condition").is_none(), "{id}: {statement}"),
                "ecs-tasks.amazonaws.com" => {
                    let account = &statement["Condition"]["StringEquals"]["aws:SourceAccount"];
                    assert_eq!(account, "${aws-account-id}", "{id}");
                }
                other => panic!("{id}: an unexpected assumer {other}"),
            }
        }
        assert!(resources.contains_key("main-db_proxy-role"), "{env}");
    }
}

/// In the environment previews are `from`, the proxy role may read every preview's login
/// secrets on that proxy (`<product>/pr-*/<resource>/proxy-*`) besides its own, which `runway
/// preview up` registers with the proxy; another environment's role may not
/// (docs/previews.md, "The shared proxy's logins").
#[test]
fn the_proxy_role_of_the_previews_from_environment_reads_their_login_secrets() {
    let text = "runway: 3\nproduct: shop\nsecrets: { infisical: { project: p } }\n\
        environments:\n  dev: { region: us-east-1 }\n  staging: { region: us-east-1 }\n\
        resources:\n  main-db: { kind: postgres }\n\
        workloads:\n  api:\n    image: nginx:1.27@sha256:0000000000000000000000000000000000000000000000000000000000000000\n    \
        port: 80\n    reason: { ground: no-managed-fit, detail: An API. }\n    uses: [main-db]\n\
        previews: { from: dev, limits: { monthly: 50 } }\n";
    let loaded = runway_schema::load_str("runway.yaml", text);
    let product = loaded.product.unwrap_or_else(|| panic!("{:?}", loaded.diagnostics));
    let pattern = "arn:aws:secretsmanager:us-east-1:${aws-account-id}:secret:shop/pr-*/main-db/proxy-*";
    for (env, reads) in [("dev", true), ("staging", false)] {
        let plan = runtime_plan::plan(&product, env, &cost::Catalogue::builtin()).expect("plan");
        let program = render(&plan).expect("render");
        let doc: Value =
            serde_saphyr::from_str(program.file(PROGRAM_FILE).expect("Pulumi.yaml")).expect("YAML");
        let resources = doc["resources"].as_object().expect("resources");
        let policies: Vec<String> = resources
            .values()
            .filter(|r| {
                r["type"] == "aws:iam/rolePolicy:RolePolicy" && r["properties"]["name"] == "read-proxy-secret"
            })
            .map(|r| r["properties"]["policy"].to_string())
            .collect();
        assert_eq!(policies.len(), 1, "{env}: {policies:?}");
        assert_eq!(policies[0].contains(pattern), reads, "{env}: {}", policies[0]);
        // Its own secrets are read either way: the admin's and the login's.
        assert!(policies[0].contains("main-db_proxy-secret-api"), "{env}: {}", policies[0]);
    }
}
