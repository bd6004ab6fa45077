//! What a plan says `runway rotate` and `runway ssm publish` do: the rotation of each kind of
//! generated credential, and the services that read given parameters.
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: tests

use crate::common;

use cost::Catalogue;
use runtime_plan::plan::*;
use runtime_plan::*;
use runway_schema::{PostgresEngine, ResourceSpec};

fn dev() -> Plan {
    plan(&common::example(), "dev", &Catalogue::builtin()).unwrap()
}

#[test]
fn a_postgres_rotation_sets_the_instance_then_the_proxy_and_restarts_its_readers() {
    let p = dev();
    let r = p.rotation("main-db").unwrap();
    let RotationTarget::RdsInstance { identifier, proxy_secret, username } = &r.target else {
        panic!("{:?}", r.target)
    };
    let db = p.items.iter().find(|i| i.kind() == ItemKind::RdsInstance).unwrap();
    assert_eq!(identifier, &db.physical_name);
    assert_eq!(proxy_secret, "acme-shop/dev/main-db/proxy-admin");
    assert_eq!(username, r.credential.secrets_manager_username.as_ref().unwrap());
    assert_eq!(&*r.pending.folder, PENDING_FOLDER);
    assert_eq!(r.pending.name, "MAIN_DB_PASSWORD");
    assert_eq!(r.pending.environment, r.credential.infisical.environment);
    // The admin's password is read by the bootstrap of the roles alone: its parameter is the
    // only one written again (no consumer's URL embeds it) and no service restarts.
    let names: Vec<&str> = r.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["/acme-shop/dev/main-db/MAIN_DB_PASSWORD"]);
    assert!(r.restarts.is_empty(), "{:?}", r.restarts);
}

#[test]
fn an_aurora_rotation_modifies_the_cluster() {
    let mut product = common::example();
    let db = product.root.resources.get_mut("main-db").unwrap();
    db.spec = ResourceSpec::Postgres { engine: PostgresEngine::Aurora, version: "16".into() };
    let p = plan(&product, "dev", &Catalogue::builtin()).unwrap();
    let r = p.rotation("main-db").unwrap();
    let RotationTarget::AuroraCluster { identifier, .. } = &r.target else { panic!("{:?}", r.target) };
    let cluster = p.items.iter().find(|i| i.kind() == ItemKind::AuroraCluster).unwrap();
    assert_eq!(identifier, &cluster.physical_name);
}

#[test]
fn a_cache_rotation_names_its_replication_group_and_the_services_using_it() {
    let p = dev();
    let r = p.rotation("sessions").unwrap();
    let RotationTarget::CacheReplicationGroup { replication_group_id } = &r.target else {
        panic!("{:?}", r.target)
    };
    let group = p.items.iter().find(|i| i.kind() == ItemKind::CacheReplicationGroup).unwrap();
    assert_eq!(replication_group_id, &group.physical_name);
    let workloads: Vec<&str> = r.restarts.iter().map(|s| s.workload.as_str()).collect();
    assert_eq!(workloads, ["shop"]);
}

#[test]
fn a_rotation_names_the_members_using_the_resource() {
    let p = dev();
    for resource in ["main-db", "sessions", "shared-cache"] {
        let r = p.rotation(resource).unwrap();
        let expected: Vec<&str> = p
            .bindings
            .iter()
            .filter(|b| b.resource == resource && b.consumer_kind != ConsumerKind::Workload)
            .map(|b| b.consumer.as_str())
            .collect();
        let members: Vec<&str> = r.members.iter().map(|m| m.as_str()).collect();
        assert_eq!(members, expected, "{resource}");
        assert!(!r.members.iter().any(|m| r.restarts.iter().any(|s| s.workload == *m)));
    }
    // The spec's example: orders `requires` a cache, so it uses the shared one.
    assert_eq!(p.rotation("shared-cache").unwrap().members, ["orders"]);
    assert!(p.rotation("main-db").unwrap().members.is_empty());
}

#[test]
fn a_resource_without_a_generated_credential_has_no_rotation() {
    let p = dev();
    let err = p.rotation("uploads").unwrap_err();
    assert!(matches!(err, RotationError::NoCredential { .. }));
    assert!(err.to_string().contains("main-db"), "{err}");
    assert!(matches!(p.rotation("nothing"), Err(RotationError::NoCredential { .. })));
}

#[test]
fn only_the_services_reading_a_parameter_restart() {
    let p = dev();
    assert!(p.services_reading(&[]).is_empty());
    assert!(p.services_reading(&["/acme-shop/dev/nothing/X"]).is_empty());
    // Each task's secrets: a parameter read by one workload restarts that one alone (a
    // database's bootstrap is a one-off task: no service to restart).
    for item in &p.items {
        let ItemSpec::TaskDefinition(task) = &item.spec else { continue };
        if !p.workloads.iter().any(|w| w.name == task.workload) {
            continue;
        }
        for secret in &task.secrets {
            let restarts = p.services_reading(&[&*secret.parameter]);
            assert!(restarts.iter().any(|s| s.workload == task.workload), "{secret:?}");
            for s in &restarts {
                assert_eq!(s.parameters, std::slice::from_ref(&secret.parameter));
            }
        }
    }
}

/// A consumer's own login (issue 32): set by the resource's bootstrap task, its own proxy
/// secret, its own parameters (the password first, then the URL composed from it), its own
/// reader; its pending value apart from the admin's.
#[test]
fn a_login_rotation_runs_the_bootstrap_and_restarts_its_consumer_alone() {
    let p = dev();
    let r = p.login_rotation("main-db", "metabase").unwrap();
    let RotationTarget::Login { consumer, bootstrap, proxy_secret, username } = &r.target else {
        panic!("{:?}", r.target)
    };
    assert_eq!(
        (consumer.as_str(), bootstrap.as_str(), proxy_secret.as_str(), username.as_str()),
        ("metabase", "bootstrap-main-db", "acme-shop/dev/main-db/proxy-metabase", "app_metabase")
    );
    assert!(p.tasks.iter().any(|t| t.name == *bootstrap));
    assert_eq!(
        (&*r.pending.folder, r.pending.name.as_str()),
        ("/runway/pending/metabase", "MAIN_DB_PASSWORD")
    );
    let names: Vec<&str> = r.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["/acme-shop/dev/main-db/metabase/MAIN_DB_PASSWORD", "/acme-shop/dev/main-db/metabase/MAIN_DB_URL"]
    );
    let workloads: Vec<&str> = r.restarts.iter().map(|s| s.workload.as_str()).collect();
    assert_eq!(workloads, ["metabase"]);
    assert!(r.members.is_empty());
    // Not a consumer of main-db, or not a postgres resource.
    let err = p.login_rotation("main-db", "pdf-render").unwrap_err();
    assert!(matches!(&err, RotationError::NoLogin { .. }), "{err}");
    assert!(err.to_string().contains("(these do: metabase"), "{err}");
    assert!(p.login_rotation("sessions", "metabase").is_err());
    // A member's login (the shipped example's `reporting`): runway restarts nothing, the
    // member is named for people to redeploy.
    let shipped = plan(&common::shipped_example(), "dev", &Catalogue::builtin()).unwrap();
    let member = shipped.login_rotation("main-db", "reporting").unwrap();
    assert!(member.restarts.is_empty());
    assert_eq!(member.members, ["reporting"]);
}
