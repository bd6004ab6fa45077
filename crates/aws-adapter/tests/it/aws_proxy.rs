//! The Secrets Manager copies (the RDS Proxy's credential, a workload's registry credentials)
//! against a real moto server.

use crate::aws_support;

use aws_adapter::aws::{Action, ProxyAdminCopy, RegistryCredentialsCopy};
use aws_support::{clients, scope, sdk_config};
use secrecy::SecretString;
use test_support::Moto;

const NAME: &str = "acme-shop/dev/main-db/proxy-admin";

fn copy(password: &str) -> ProxyAdminCopy {
    ProxyAdminCopy {
        secret_name: NAME.to_owned(),
        resource: "main-db".to_owned(),
        username: "runway_admin".to_owned(),
        password: SecretString::from(password.to_owned()),
        kms_key: None,
        tags: Vec::new(),
    }
}

/// (version count, current JSON), read straight from moto.
async fn stored(url: &str) -> (usize, serde_json::Value) {
    stored_in(url, NAME).await
}

/// (version count, current JSON) of the secret `name`.
async fn stored_in(url: &str, name: &str) -> (usize, serde_json::Value) {
    let sm = aws_sdk_secretsmanager::Client::new(&sdk_config(url).await);
    let versions = sm.list_secret_version_ids().secret_id(name).send().await.expect("ListSecretVersionIds");
    let current = sm.get_secret_value().secret_id(name).send().await.expect("GetSecretValue");
    let json = serde_json::from_str(current.secret_string().expect("string")).expect("json");
    (versions.versions().len(), json)
}

#[tokio::test]
async fn proxy_copy_creates_once_and_adds_a_version_only_on_change() {
    let moto = Moto::start();
    let aws = clients(&moto.url()).await;

    let dry = aws.copy_proxy_admin(&scope(), &copy("pw-1"), true).await.expect("dry");
    assert_eq!(dry.action, Action::Created);
    let sm = aws_sdk_secretsmanager::Client::new(&sdk_config(&moto.url()).await);
    let listed = sm.list_secrets().send().await.expect("ListSecrets");
    assert!(listed.secret_list().is_empty(), "a dry run created a secret");

    let first = aws.copy_proxy_admin(&scope(), &copy("pw-1"), false).await.expect("create");
    assert_eq!(first.action, Action::Created);
    assert_eq!(first.to_string(), format!("created   {NAME}\n"));
    let expected_1 = serde_json::json!({"username": "runway_admin", "password": "pw-1"});
    assert_eq!(stored(&moto.url()).await, (1, expected_1.clone()));

    let same = aws.copy_proxy_admin(&scope(), &copy("pw-1"), false).await.expect("same");
    assert_eq!(same.action, Action::Unchanged);
    assert_eq!(stored(&moto.url()).await, (1, expected_1.clone()), "no new version");

    let dry = aws.copy_proxy_admin(&scope(), &copy("pw-2"), true).await.expect("dry");
    assert_eq!(dry.action, Action::Updated);
    assert_eq!(dry.to_string(), format!("dry run: nothing written\nwould update {NAME}\n"));
    assert_eq!(stored(&moto.url()).await, (1, expected_1), "a dry run wrote a version");

    let changed = aws.copy_proxy_admin(&scope(), &copy("pw-2"), false).await.expect("change");
    assert_eq!(changed.action, Action::Updated);
    let expected_2 = serde_json::json!({"username": "runway_admin", "password": "pw-2"});
    assert_eq!(stored(&moto.url()).await, (2, expected_2.clone()), "exactly one new version");

    let again = aws.copy_proxy_admin(&scope(), &copy("pw-2"), false).await.expect("again");
    assert_eq!(again.action, Action::Unchanged);
    assert_eq!(stored(&moto.url()).await, (2, expected_2));

    let described = sm.describe_secret().secret_id(NAME).send().await.expect("describe");
    let mut tags: Vec<(String, String)> = described
        .tags()
        .iter()
        .map(|t| (t.key().unwrap_or_default().to_owned(), t.value().unwrap_or_default().to_owned()))
        .collect();
    tags.sort();
    assert_eq!(
        tags,
        vec![
            ("environment".to_owned(), "dev".to_owned()),
            ("product".to_owned(), "acme-shop".to_owned()),
            ("resource".to_owned(), "main-db".to_owned()),
        ]
    );
}

#[tokio::test]
async fn an_existing_right_value_without_tags_is_only_retagged() {
    let moto = Moto::start();
    let sm = aws_sdk_secretsmanager::Client::new(&sdk_config(&moto.url()).await);
    sm.create_secret()
        .name(NAME)
        .secret_string(r#"{"password":"pw-1","username":"runway_admin"}"#)
        .send()
        .await
        .expect("create by hand");
    let aws = clients(&moto.url()).await;
    let dry = aws.copy_proxy_admin(&scope(), &copy("pw-1"), true).await.expect("dry");
    assert_eq!(dry.action, Action::Retagged);
    let described = sm.describe_secret().secret_id(NAME).send().await.expect("describe");
    assert!(described.tags().is_empty(), "a dry run tagged");
    let report = aws.copy_proxy_admin(&scope(), &copy("pw-1"), false).await.expect("retag");
    assert_eq!(report.action, Action::Retagged);
    let expected = serde_json::json!({"username": "runway_admin", "password": "pw-1"});
    assert_eq!(stored(&moto.url()).await, (1, expected), "retagging wrote no version");
    let described = sm.describe_secret().secret_id(NAME).send().await.expect("describe");
    assert_eq!(described.tags().len(), 3);
    let again = aws.copy_proxy_admin(&scope(), &copy("pw-1"), false).await.expect("again");
    assert_eq!(again.action, Action::Unchanged);
}

const REGISTRY: &str = "acme-shop/dev/pdf-render/registry-credentials";

fn registry(username: &str, password: &str) -> RegistryCredentialsCopy {
    RegistryCredentialsCopy {
        secret_name: REGISTRY.to_owned(),
        workload: "pdf-render".to_owned(),
        username: SecretString::from(username.to_owned()),
        password: SecretString::from(password.to_owned()),
        kms_key: None,
        tags: Vec::new(),
    }
}

/// A registry's credentials: the `{"username","password"}` ECS reads, tagged with the workload;
/// a new version only when either value changes; the report names the secret, never a value.
#[tokio::test]
async fn registry_copy_writes_the_pair_ecs_reads_once_per_change() {
    let moto = Moto::start();
    let aws = clients(&moto.url()).await;
    let dry = aws.copy_registry_credentials(&scope(), &registry("bot", "ghp_1"), true).await.expect("dry");
    assert_eq!(dry.action, Action::Created);
    let first =
        aws.copy_registry_credentials(&scope(), &registry("bot", "ghp_1"), false).await.expect("create");
    assert_eq!(first.to_string(), format!("created   {REGISTRY}\n"));
    let pair = serde_json::json!({"username": "bot", "password": "ghp_1"});
    assert_eq!(stored_in(&moto.url(), REGISTRY).await, (1, pair.clone()));
    let same = aws.copy_registry_credentials(&scope(), &registry("bot", "ghp_1"), false).await.expect("same");
    assert_eq!(same.action, Action::Unchanged);
    // A new user name alone is a change too.
    let renamed =
        aws.copy_registry_credentials(&scope(), &registry("bot2", "ghp_1"), false).await.expect("user");
    assert_eq!(renamed.action, Action::Updated);
    let pair = serde_json::json!({"username": "bot2", "password": "ghp_1"});
    assert_eq!(stored_in(&moto.url(), REGISTRY).await, (2, pair));
    let sm = aws_sdk_secretsmanager::Client::new(&sdk_config(&moto.url()).await);
    let described = sm.describe_secret().secret_id(REGISTRY).send().await.expect("describe");
    let resource = described.tags().iter().find(|t| t.key() == Some("resource")).and_then(|t| t.value());
    assert_eq!(resource, Some("pdf-render"));
    for report in [&dry, &first, &same, &renamed] {
        let text = format!("{report} {report:?} {}", serde_json::to_string(report).unwrap());
        assert!(!text.contains("ghp_1") && !text.contains("bot"), "{text}");
    }
}
