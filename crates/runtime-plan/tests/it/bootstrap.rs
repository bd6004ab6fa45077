//! A postgres resource's bootstrap task and its environment (issue 39, item 8): the image an
//! environment sets (`bootstrap.image`) in its task definition, its record and its grants; the
//! `unreachable-image` warning when the private subnets have no route to that image; the VPC
//! endpoints a bootstrap needs when it is the environment's only task; the proxy `runway
//! migrate` waits for; and the bounded connection attempts in its environment.
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: tests

use crate::common;

use cost::Catalogue;
use runtime_plan::plan::*;
use runtime_plan::*;
use runway_schema::{Bootstrap, Code, Endpoints, ImageRef, Location, Product, Severity};

const DIGEST: &str = "sha256:57c72fd2a128e416c7fcc499958864df5301e940bca0a56f58fddf30ffc07777";

fn cat() -> Catalogue {
    Catalogue::builtin()
}

/// A private ECR mirror of the default image in `region`.
fn mirror(region: &str) -> String {
    format!("123456789012.dkr.ecr.{region}.amazonaws.com/mirror/postgres:16-alpine@{DIGEST}")
}

/// The shipped example's dev (one NAT gateway, no endpoints) changed by `change`.
fn dev(change: impl FnOnce(&mut runway_schema::Environment)) -> Product {
    let mut p = common::shipped_example();
    change(p.root.environments.get_mut("dev").unwrap());
    p
}

/// Sets the environment's bootstrap image, written at line 30.
fn image(env: &mut runway_schema::Environment, image: &str) {
    let at = Location { line: 30, column: 14, ..common::loc() };
    env.bootstrap = Bootstrap { image: Some(ImageRef::parse(image).unwrap()), at: Some(at) };
}

/// The `unreachable-image` warnings of dev's plan.
fn unreachable(p: &Product) -> Vec<runway_schema::Diagnostic> {
    let plan = plan(p, "dev", &cat()).unwrap();
    plan.diagnostics.into_iter().filter(|d| d.code == Code::UnreachableImage).collect()
}

/// The bootstrap's task definition of `resource` in `plan`.
fn definition<'p>(plan: &'p Plan, resource: &str) -> &'p TaskDefinitionSpec {
    let id = format!("{resource}_bootstrap-task");
    let ItemSpec::TaskDefinition(def) = &plan.item(&id).unwrap().spec else { panic!() };
    def
}

#[test]
fn the_environments_image_is_the_task_definitions_and_the_records_and_ecr_is_granted() {
    let p = plan(&dev(|e| image(e, &mirror("us-east-1"))), "dev", &cat()).unwrap();
    let def = definition(&p, "main-db");
    assert_eq!(*def.image, *mirror("us-east-1"));
    let task = p.tasks.iter().find(|t| t.name == "bootstrap-main-db").unwrap();
    assert_eq!(*task.record.image, *mirror("us-east-1"), "another image runs the bootstrap again");
    // The mirror is pulled with the execution role: the token on `*`, the pull on its repository.
    let ItemSpec::TaskExecutionRole { grants, .. } = &p.item(&def.execution_role).unwrap().spec else {
        panic!()
    };
    let actions: Vec<&str> = grants.iter().flat_map(|g| g.actions.iter().copied()).collect();
    assert!(actions.contains(&"ecr:GetAuthorizationToken") && actions.contains(&"ecr:BatchGetImage"));
    let pull = grants.iter().find(|g| g.actions.contains(&"ecr:BatchGetImage")).unwrap();
    let shown = format!("{:?}", pull.resources);
    assert!(shown.contains("arn:aws:ecr:us-east-1:123456789012:repository/mirror/postgres"), "{shown}");

    // Without the setting: the pinned default from ECR Public, and no ECR grant.
    let p = plan(&common::shipped_example(), "dev", &cat()).unwrap();
    let def = definition(&p, "main-db");
    assert_eq!(&*def.image, BOOTSTRAP_IMAGE);
    let ItemSpec::TaskExecutionRole { grants, .. } = &p.item(&def.execution_role).unwrap().spec else {
        panic!()
    };
    assert!(!grants.iter().any(|g| g.actions.iter().any(|a| a.starts_with("ecr:"))));
}

#[test]
fn a_nat_reaches_any_registry_so_nothing_warns() {
    // dev pays for one NAT gateway: the default image from ECR Public is reached.
    assert!(unreachable(&common::shipped_example()).is_empty());
    // Endpoints too, and NAT written: still reached.
    let p = dev(|e| e.network.endpoints = Endpoints::Declared);
    assert!(unreachable(&p).is_empty());
    // `nat: 0` without endpoints is a NAT shared and paid elsewhere (the reference's meaning).
    let p = dev(|e| e.network.nat = Some(0));
    assert!(unreachable(&p).is_empty());
}

#[test]
fn endpoints_without_nat_and_a_public_image_warn_with_a_code_a_place_and_help() {
    let p = dev(|e| {
        e.network.endpoints = Endpoints::Declared;
        e.network.nat = None;
    });
    let warnings = unreachable(&p);
    assert_eq!(warnings.len(), 1, "one per postgres resource: {warnings:#?}");
    let w = &warnings[0];
    assert_eq!(w.severity, Severity::Warning);
    assert_eq!(w.path, "environments.dev.network");
    assert!(
        w.message.contains("bootstrap of `main-db`") && w.message.contains("public.ecr.aws/"),
        "{}",
        w.message
    );
    let help = w.help.as_deref().unwrap();
    assert!(help.contains("environments.dev.bootstrap.image") && help.contains("network.nat"), "{help}");

    // A mirror in this region's private ECR is reached through the ECR endpoints.
    let p = dev(|e| {
        e.network.endpoints = Endpoints::Declared;
        e.network.nat = Some(0);
        image(e, &mirror("us-east-1"));
    });
    assert!(unreachable(&p).is_empty());
    let p = dev(|e| {
        e.network.endpoints = Endpoints::Existing;
        e.network.nat = None;
        image(e, &mirror("us-east-1"));
    });
    assert!(unreachable(&p).is_empty());
    // In another region it is not (an interface endpoint serves its own region); the warning
    // points at the setting.
    let p = dev(|e| {
        e.network.endpoints = Endpoints::Declared;
        e.network.nat = None;
        image(e, &mirror("eu-west-1"));
    });
    let warnings = unreachable(&p);
    assert_eq!(warnings.len(), 1);
    assert_eq!(
        (warnings[0].path.as_str(), warnings[0].location.line),
        ("environments.dev.bootstrap.image", 30)
    );
}

#[test]
fn a_product_whose_only_consumers_are_members_reaches_nothing_by_default() {
    // No workloads: no NAT by default and no endpoints; even a private ECR mirror is not reached.
    let members_only = |change: fn(&mut runway_schema::Environment)| {
        let mut p = dev(|e| {
            e.network.nat = None;
            change(e);
        });
        p.root.workloads.clear();
        p
    };
    let warnings = unreachable(&members_only(|_| {}));
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].message.contains("no NAT gateway"), "{}", warnings[0].message);
    assert_eq!(unreachable(&members_only(|e| image(e, &mirror("us-east-1")))).len(), 1);
    // With endpoints, the bootstrap (the only task) gets what it calls: SSM for its secrets,
    // ECR and S3 for its image, CloudWatch Logs.
    let p = members_only(|e| {
        e.network.endpoints = Endpoints::Declared;
        image(e, &mirror("us-east-1"));
    });
    assert!(unreachable(&p).is_empty());
    let planned = plan(&p, "dev", &cat()).unwrap();
    let services: Vec<String> = planned
        .items
        .iter()
        .filter_map(|i| match &i.spec {
            ItemSpec::VpcEndpoint { service_name, .. } => Some(service_name.to_string()),
            _ => None,
        })
        .collect();
    for s in ["ssm", "ecr.api", "ecr.dkr", "logs", "secretsmanager", "s3"] {
        assert!(services.contains(&format!("com.amazonaws.us-east-1.{s}")), "{s}: {services:?}");
    }
}

#[test]
fn the_bootstrap_waits_for_its_proxy_and_its_connection_attempts_are_bounded() {
    let p = plan(&common::shipped_example(), "dev", &cat()).unwrap();
    let task = p.tasks.iter().find(|t| t.name == "bootstrap-main-db").unwrap();
    let proxy = p.item("main-db_proxy").unwrap();
    assert_eq!(task.proxy.as_deref(), Some(proxy.physical_name.as_str()));
    assert!(p.tasks.iter().filter(|t| t.name.starts_with("migrate-")).all(|t| t.proxy.is_none()));
    let def = definition(&p, "main-db");
    let env = |k: &str| def.environment.get(k).map(|v| v.to_string());
    assert_eq!(env(ATTEMPTS_VARIABLE), Some(ATTEMPTS.to_string()));
    assert_eq!(env(PAUSE_VARIABLE), Some(PAUSE_SECONDS.to_string()));
    assert_eq!(env("PGCONNECT_TIMEOUT"), Some(CONNECT_TIMEOUT_SECONDS.to_string()));
    // The whole of the trying fits well inside `runway migrate`'s default timeout (30 minutes).
    let worst = ATTEMPTS * CONNECT_TIMEOUT_SECONDS + (ATTEMPTS - 1) * PAUSE_SECONDS;
    assert!(worst <= 5 * 60, "{worst} s");
    // The command retries psql's exit 2 only, and stops after the attempts.
    let script = BOOTSTRAP_COMMAND[2];
    assert!(script.contains("-eq 2 ] || exit") && script.contains("RUNWAY_BOOTSTRAP_ATTEMPTS"), "{script}");
}
