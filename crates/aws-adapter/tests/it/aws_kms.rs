//! The environment's own KMS key against a real moto server (issue 32): `secrets prepare`
//! creates it with its alias once, and the SSM parameters and the proxy and registry secrets it
//! writes name it; an older secret under Secrets Manager's own key is re-encrypted with it.

use crate::aws_support;

use aws_adapter::aws::{
    Action, EnvironmentKey, ParameterExpectation, ParameterRequest, ProxyAdminCopy, RegistryCredentialsCopy,
};
use aws_support::{MapSource, clients, scope, sdk_config};
use secrecy::SecretString;
use test_support::Moto;

const ALIAS: &str = "alias/runway/acme-shop/dev";

fn key() -> EnvironmentKey {
    EnvironmentKey { alias: ALIAS.to_owned(), tags: Vec::new() }
}

fn proxy_copy(name: &str, kms_key: Option<&str>) -> ProxyAdminCopy {
    ProxyAdminCopy {
        secret_name: name.to_owned(),
        resource: "main-db".to_owned(),
        username: "runway".to_owned(),
        password: SecretString::from("pw-1".to_owned()),
        kms_key: kms_key.map(str::to_owned),
        tags: Vec::new(),
    }
}

/// The key id the alias names, as KMS resolves it.
async fn key_of(url: &str, reference: &str) -> String {
    let kms = aws_sdk_kms::Client::new(&sdk_config(url).await);
    let described = kms.describe_key().key_id(reference).send().await.expect("DescribeKey");
    described.key_metadata().expect("metadata").key_id().to_owned()
}

#[tokio::test]
async fn the_key_is_created_once_with_its_alias_and_everything_written_names_it() {
    let moto = Moto::start();
    let url = moto.url();
    let aws = clients(&url).await;
    let kms = aws_sdk_kms::Client::new(&sdk_config(&url).await);

    // A dry run creates nothing.
    let dry = aws.ensure_environment_key(&scope(), &key(), true).await.expect("dry");
    assert_eq!((dry.action, dry.key_id.as_deref()), (Action::Created, None));
    assert!(kms.list_keys().send().await.expect("ListKeys").keys().is_empty(), "a dry run created a key");

    let created = aws.ensure_environment_key(&scope(), &key(), false).await.expect("create");
    assert_eq!(created.action, Action::Created);
    let id = created.key_id.clone().expect("the key's id");
    assert_eq!(key_of(&url, ALIAS).await, id, "the alias names the new key");
    let tags = kms.list_resource_tags().key_id(&id).send().await.expect("ListResourceTags");
    let mut tags: Vec<(String, String)> =
        tags.tags().iter().map(|t| (t.tag_key().to_owned(), t.tag_value().to_owned())).collect();
    tags.sort();
    assert_eq!(
        tags,
        [("environment", "dev"), ("product", "acme-shop"), ("resource", "environment")]
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
    );

    // Idempotent: the same key, nothing created.
    let again = aws.ensure_environment_key(&scope(), &key(), false).await.expect("again");
    assert_eq!((again.action, again.key_id.as_deref()), (Action::Unchanged, Some(id.as_str())));
    assert_eq!(kms.list_keys().send().await.expect("ListKeys").keys().len(), 1);

    // SSM parameters `secrets prepare` and `ssm publish` write name it.
    let requests = vec![ParameterRequest {
        name: "/acme-shop/dev/main-db/MAIN_DB_PASSWORD".to_owned(),
        resource: "main-db".to_owned(),
        variable: "MAIN_DB_PASSWORD".to_owned(),
        tags: Vec::new(),
    }];
    let source = MapSource::new(&[("main-db/MAIN_DB_PASSWORD", "pw-1")]);
    aws.ssm_publish(&scope(), ALIAS, &requests, &source, false).await.expect("publish");
    let ssm = aws_sdk_ssm::Client::new(&sdk_config(&url).await);
    let described = ssm.describe_parameters().send().await.expect("DescribeParameters");
    let stored = described.parameters()[0].key_id().expect("a key id").to_owned();
    assert_eq!(key_of(&url, &stored).await, id, "the parameter names the environment's key ({stored})");
    let expect = [ParameterExpectation { name: requests[0].name.clone(), kms_key: ALIAS.to_owned() }];
    assert!(aws.ssm_verify(&expect).await.expect("verify").is_ok());
    let again = aws.ssm_publish(&scope(), ALIAS, &requests, &source, false).await.expect("publish again");
    assert_eq!(again.parameters[0].action, Action::Unchanged);

    // The proxy secret and a registry secret name it too, and a second copy changes nothing.
    let sm = aws_sdk_secretsmanager::Client::new(&sdk_config(&url).await);
    let proxy = "acme-shop/dev/main-db/proxy-admin";
    let first = aws.copy_proxy_admin(&scope(), &proxy_copy(proxy, Some(ALIAS)), false).await.expect("proxy");
    assert_eq!(first.action, Action::Created);
    let registry = RegistryCredentialsCopy {
        secret_name: "acme-shop/dev/pdf-render/registry-credentials".to_owned(),
        workload: "pdf-render".to_owned(),
        username: SecretString::from("bot".to_owned()),
        password: SecretString::from("token".to_owned()),
        kms_key: Some(ALIAS.to_owned()),
        tags: Vec::new(),
    };
    aws.copy_registry_credentials(&scope(), &registry, false).await.expect("registry");
    for name in [proxy, registry.secret_name.as_str()] {
        let d = sm.describe_secret().secret_id(name).send().await.expect("DescribeSecret");
        let stored = d.kms_key_id().expect("a KMS key");
        assert_eq!(key_of(&url, stored).await, id, "{name} names the environment's key ({stored})");
    }
    let same = aws.copy_proxy_admin(&scope(), &proxy_copy(proxy, Some(ALIAS)), false).await.expect("same");
    assert_eq!(same.action, Action::Unchanged);

    // A secret an earlier run wrote under Secrets Manager's own key is re-encrypted with it, its
    // value kept.
    let old = "acme-shop/dev/reports-db/proxy-admin";
    aws.copy_proxy_admin(&scope(), &proxy_copy(old, None), false).await.expect("old");
    assert!(sm.describe_secret().secret_id(old).send().await.expect("describe").kms_key_id().is_none());
    let moved = aws.copy_proxy_admin(&scope(), &proxy_copy(old, Some(ALIAS)), false).await.expect("move");
    assert_eq!(moved.action, Action::Updated);
    let d = sm.describe_secret().secret_id(old).send().await.expect("describe");
    assert_eq!(key_of(&url, d.kms_key_id().expect("a key")).await, id);
    let value = sm.get_secret_value().secret_id(old).send().await.expect("GetSecretValue");
    let json: serde_json::Value = serde_json::from_str(value.secret_string().expect("string")).expect("json");
    assert_eq!(json, serde_json::json!({"username": "runway", "password": "pw-1"}));
    let settled =
        aws.copy_proxy_admin(&scope(), &proxy_copy(old, Some(ALIAS)), false).await.expect("settled");
    assert_eq!(settled.action, Action::Unchanged);
}

#[tokio::test]
async fn a_disabled_key_stops_prepare_before_anything_is_written() {
    let moto = Moto::start();
    let url = moto.url();
    let aws = clients(&url).await;
    let created = aws.ensure_environment_key(&scope(), &key(), false).await.expect("create");
    let kms = aws_sdk_kms::Client::new(&sdk_config(&url).await);
    kms.disable_key().key_id(created.key_id.expect("id")).send().await.expect("DisableKey");
    let err = aws.ensure_environment_key(&scope(), &key(), false).await.expect_err("disabled");
    let text = err.to_string();
    assert!(text.contains(ALIAS) && text.contains("Disabled") && text.contains("enable-key"), "{text}");
    assert!(err.done.is_empty());
}
