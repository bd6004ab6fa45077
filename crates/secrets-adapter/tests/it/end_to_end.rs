//! prepare / publish end to end over loopback HTTP against the contract server (or a real
//! Infisical with `INFISICAL_URL`).
#![allow(clippy::unwrap_used, missing_docs)]

use crate::common;

use common::Target;
use secrecy::ExposeSecret;
use secrets_adapter::{
    Action, CredentialRule, CredentialSpec, SecretString, VariableWrite, prepare, publish,
    read_for_proxy_copy,
};

fn specs(root: &str) -> Vec<CredentialSpec> {
    let spec = |resource: &str, env: &str, name: &str, rule| CredentialSpec {
        resource: resource.into(),
        environment: env.into(),
        folder: format!("{root}/runtime/{resource}"),
        name: name.into(),
        rule,
    };
    vec![
        spec("main-db", "dev", "MAIN_DB_PASSWORD", CredentialRule::PostgresPassword),
        spec("cache", "dev", "CACHE_PASSWORD", CredentialRule::ValkeyAuthToken),
        spec("main-db", "prod", "MAIN_DB_PASSWORD", CredentialRule::PostgresPassword),
    ]
}

fn var(env: &str, folder: &str, name: &str, value: &str) -> VariableWrite {
    VariableWrite {
        environment: env.into(),
        folder: folder.into(),
        name: name.into(),
        value: SecretString::from(value),
    }
}

#[tokio::test(flavor = "current_thread")]
async fn prepare_creates_every_credential_and_folder_then_nothing() {
    let t = Target::new();
    let specs = specs(&t.root);
    let first = prepare(&t.client, &t.project, &specs, &[], false).await.unwrap();
    for s in &specs {
        assert_eq!(first.action_at(&s.location()), Some(Action::Created), "{first}");
        assert_eq!(
            first.action_at(&format!("{}:{}", s.environment, s.folder)),
            Some(Action::Created),
            "folder of {}\n{first}",
            s.location()
        );
    }
    let line = format!("created  dev:{}/runtime/main-db/MAIN_DB_PASSWORD", t.root);
    assert!(first.to_string().lines().any(|l| l == line), "{first}");

    let second = prepare(&t.client, &t.project, &specs, &[], false).await.unwrap();
    assert_eq!(second.entries.len(), specs.len(), "{second}");
    assert_eq!(second.count(Action::Exists), specs.len(), "{second}");

    if let Some(server) = t.contract() {
        let versions = server.versions();
        assert_eq!(versions.len(), specs.len());
        assert!(versions.values().all(|v| *v == 1), "{versions:?}");
        for s in &specs {
            let value = server.value(&s.environment, &s.folder, &s.name).unwrap();
            s.rule.check(&value).unwrap();
        }
    }
    // The proxy copy reads exactly what Infisical holds.
    let copy = read_for_proxy_copy(&t.client, &t.project, &specs[0]).await.unwrap();
    assert_eq!(copy.expose_secret().len(), CredentialRule::PostgresPassword.length());
    if let Some(server) = t.contract() {
        let stored = server.value("dev", &specs[0].folder, "MAIN_DB_PASSWORD").unwrap();
        assert_eq!(copy.expose_secret(), stored);
    }
}

#[tokio::test(flavor = "current_thread")]
async fn dry_run_only_reads_and_reports_what_would_change() {
    let t = Target::new();
    let specs = specs(&t.root);
    let report = prepare(&t.client, &t.project, &specs, &[], true).await.unwrap();
    assert_eq!(report.count(Action::WouldCreate), specs.len() * 2, "{report}");
    if let Some(server) = t.contract() {
        assert!(server.versions().is_empty());
        let writes: Vec<_> = server
            .requests()
            .into_iter()
            .filter(|(m, p)| m != "GET" && p != "/api/v1/auth/universal-auth/login")
            .collect();
        assert!(writes.is_empty(), "dry run wrote: {writes:?}");
    }
    prepare(&t.client, &t.project, &specs, &[], false).await.unwrap();
    let rotate = vec!["cache".to_string()];
    let dry = prepare(&t.client, &t.project, &specs, &rotate, true).await.unwrap();
    assert_eq!(dry.action_at(&specs[1].location()), Some(Action::WouldRotate), "{dry}");
    assert_eq!(dry.count(Action::Exists), 2, "{dry}");
}

#[tokio::test(flavor = "current_thread")]
async fn rotate_replaces_exactly_one_resource() {
    let t = Target::new();
    let specs = specs(&t.root);
    prepare(&t.client, &t.project, &specs, &[], false).await.unwrap();
    let before: Vec<_> = match t.contract() {
        Some(s) => {
            let mut v = Vec::new();
            for spec in &specs {
                v.push(s.value(&spec.environment, &spec.folder, &spec.name).unwrap());
            }
            v
        }
        None => Vec::new(),
    };
    let rotate = vec!["cache".to_string()];
    let report = prepare(&t.client, &t.project, &specs, &rotate, false).await.unwrap();
    assert_eq!(report.count(Action::Rotated), 1, "{report}");
    assert_eq!(report.action_at(&specs[1].location()), Some(Action::Rotated));
    assert_eq!(report.count(Action::Exists), 2, "{report}");
    if let Some(server) = t.contract() {
        for (spec, old) in specs.iter().zip(&before) {
            let now = server.value(&spec.environment, &spec.folder, &spec.name).unwrap();
            assert_eq!(&now != old, spec.resource == "cache", "{}", spec.location());
            spec.rule.check(&now).unwrap();
        }
        let versions = server.versions();
        assert_eq!(versions[&specs[1].location()], 2);
        assert_eq!(versions[&specs[0].location()], 1);
    }
    let err = prepare(&t.client, &t.project, &specs, &["nope".to_string()], false).await.unwrap_err();
    assert!(err.to_string().contains("`nope`"), "{err}");
}

#[tokio::test(flavor = "current_thread")]
async fn publish_writes_then_changes_nothing_then_only_what_differs() {
    let t = Target::new();
    let folder = format!("{}/runtime/main-db", t.root);
    let vars = vec![
        var("dev", &folder, "MAIN_DB_HOST", "db.internal"),
        var("dev", &folder, "MAIN_DB_PORT", "5432"),
        var("dev", &folder, "MAIN_DB_URL", "postgres://app:${MAIN_DB_PASSWORD}@db.internal:5432/app"),
        var("dev", &folder, "MULTI", "line one\nline two"),
    ];
    let first = publish(&t.client, &t.project, &vars, false).await.unwrap();
    assert_eq!(first.count(Action::Created), vars.len() + 1, "{first}");
    let second = publish(&t.client, &t.project, &vars, false).await.unwrap();
    assert_eq!(second.count(Action::Unchanged), vars.len(), "{second}");
    assert_eq!(second.entries.len(), vars.len(), "{second}");

    let mut changed = vars.clone();
    changed[0].value = SecretString::from("db2.internal");
    let dry = publish(&t.client, &t.project, &changed, true).await.unwrap();
    assert_eq!(dry.action_at(&changed[0].location()), Some(Action::WouldUpdate), "{dry}");
    let third = publish(&t.client, &t.project, &changed, false).await.unwrap();
    assert_eq!(third.count(Action::Updated), 1, "{third}");
    assert_eq!(third.count(Action::Unchanged), vars.len() - 1, "{third}");
    if let Some(server) = t.contract() {
        let versions = server.versions();
        assert_eq!(versions[&changed[0].location()], 2);
        assert_eq!(versions[&changed[1].location()], 1);
        // The reference is stored as written, not expanded.
        let url = server.value("dev", &folder, "MAIN_DB_URL").unwrap();
        assert!(url.contains("${MAIN_DB_PASSWORD}"));
    }
}
