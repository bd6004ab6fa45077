//! A canary value never shows in Debug/Display of any type that held it, in errors, or in
//! reports; generated credentials follow each engine's rules.
#![allow(clippy::unwrap_used, missing_docs)]

use crate::common;

use std::collections::HashSet;

use common::client_for;
use secrets_adapter::{
    Auth, ClientConfig, CredentialRule, Error, SecretString, StackOutputs, VariableWrite, publish,
    read_for_proxy_copy,
};
use serde_json::json;
use test_support::ContractServer;
use test_support::contract::{CLIENT_ID, CLIENT_SECRET, PROJECT};

const CANARY: &str = "canary-7f3a9c-do-not-print";

fn assert_clean(what: &str, text: &str) {
    assert!(!text.contains(CANARY), "{what} leaked the canary: {text}");
}

#[tokio::test(flavor = "current_thread")]
async fn canary_never_appears_in_debug_display_errors_or_reports() {
    let server = ContractServer::start();
    let client = client_for(&server.url(), CLIENT_ID, CLIENT_SECRET);
    let write = VariableWrite {
        environment: "dev".into(),
        folder: "/runtime/canary".into(),
        name: "CANARY_VALUE".into(),
        value: SecretString::from(CANARY),
    };
    assert_clean("VariableWrite Debug", &format!("{write:?}"));
    let report = publish(&client, PROJECT, std::slice::from_ref(&write), false).await.unwrap();
    assert_clean("Report Display", &report.to_string());
    assert_clean("Report Debug", &format!("{report:?}"));
    assert_clean("Report JSON", &serde_json::to_string(&report).unwrap());
    assert_eq!(server.value("dev", "/runtime/canary", "CANARY_VALUE").unwrap(), CANARY);

    // Read back (as for the proxy copy): the holder is redacted.
    let spec = secrets_adapter::CredentialSpec {
        resource: "canary".into(),
        environment: "dev".into(),
        folder: "/runtime/canary".into(),
        name: "CANARY_VALUE".into(),
        rule: CredentialRule::PostgresPassword,
    };
    let read = read_for_proxy_copy(&client, PROJECT, &spec).await.unwrap();
    assert_clean("read value Debug", &format!("{read:?}"));

    // A failure while the canary is being written: the error, its Debug and its sources.
    let mut changed = write.clone();
    changed.value = SecretString::from(format!("{CANARY}-2"));
    server.faults(json!({"fail_next_500": 50, "after": 1}));
    let err = publish(&client, PROJECT, &[changed], false).await.unwrap_err();
    assert!(matches!(err.cause, Error::RetriesExhausted { .. }), "{err}");
    assert_clean("RunError Display", &err.to_string());
    assert_clean("RunError Debug", &format!("{err:?}"));
    let mut source: Option<&dyn std::error::Error> = Some(&err);
    while let Some(s) = source {
        assert_clean("error source", &s.to_string());
        source = s.source();
    }
    // Client and config Debug with a canary secret.
    let config = ClientConfig::new(
        server.url().as_str(),
        Auth::UniversalAuth { client_id: "id".into(), client_secret: SecretString::from(CANARY) },
    );
    assert_clean("ClientConfig Debug", &format!("{config:?}"));
    let c = secrets_adapter::Client::new(config).unwrap();
    assert_clean("Client Debug", &format!("{c:?}"));
    let login = c.login().await.unwrap_err();
    assert_clean("login error", &format!("{login} {login:?}"));
    let token = ClientConfig::new(server.url().as_str(), Auth::Token(SecretString::from(CANARY)));
    assert_clean("token Debug", &format!("{token:?}"));
}

#[test]
fn stack_outputs_are_parsed_and_redacted() {
    let json = format!(
        r#"{{"dbHost": "db.internal", "dbPort": 5432, "tls": true, "tags": {{"a": 1}}, "none": null, "pw": "{CANARY}"}}"#
    );
    let outputs = StackOutputs::parse(&json).unwrap();
    assert_eq!(outputs.names().collect::<Vec<_>>(), ["dbHost", "dbPort", "tls", "tags", "pw"]);
    use secrecy::ExposeSecret;
    assert_eq!(outputs.get("dbPort").unwrap().expose_secret(), "5432");
    assert_eq!(outputs.get("tags").unwrap().expose_secret(), r#"{"a":1}"#);
    assert_eq!(outputs.get("pw").unwrap().expose_secret(), CANARY);
    assert_clean("StackOutputs Debug", &format!("{outputs:?}"));

    let masked = StackOutputs::parse(r#"{"pw": "[secret]"}"#).unwrap_err();
    assert!(matches!(&masked, Error::MaskedOutput { name } if name == "pw"), "{masked}");
    let broken = StackOutputs::parse(&format!(r#"{{"pw": "{CANARY}""#)).unwrap_err();
    assert_clean("parse error", &broken.to_string());
    let not_object = StackOutputs::parse(&format!(r#""{CANARY}""#)).unwrap_err();
    assert_clean("parse error", &not_object.to_string());
}

#[test]
fn generated_credentials_follow_each_engines_rules() {
    for rule in [CredentialRule::PostgresPassword, CredentialRule::ValkeyAuthToken] {
        let alphabet = rule.alphabet();
        let mut seen = HashSet::new();
        let mut used = HashSet::new();
        for _ in 0..2000 {
            let value = rule.generate().unwrap();
            use secrecy::ExposeSecret;
            let v = value.expose_secret();
            assert_eq!(v.len(), rule.length());
            rule.check(v).unwrap();
            assert!(v.bytes().all(|b| alphabet.contains(&b)));
            // Never a reference Infisical would expand, never a URL delimiter.
            assert!(!v.contains("${") && !v.contains(['@', '/', ':', '?', '#', '%', ' ']));
            used.extend(v.bytes());
            assert!(seen.insert(v.to_string()), "{rule:?} repeated a value");
        }
        assert_eq!(used.len(), alphabet.len(), "{rule:?} never drew some characters");
    }
    // The checks themselves refuse what the engines refuse.
    assert!(CredentialRule::PostgresPassword.check("short").is_err());
    assert!(CredentialRule::PostgresPassword.check("has/slash-in-it").is_err());
    assert!(CredentialRule::PostgresPassword.check("has@at-in-it-ok").is_err());
    assert!(CredentialRule::PostgresPassword.check("has space in it").is_err());
    assert!(CredentialRule::ValkeyAuthToken.check("only-15-chars-x").is_err());
    assert!(CredentialRule::ValkeyAuthToken.check("sixteen-chars-ok").is_ok());
    assert!(CredentialRule::ValkeyAuthToken.check("sixteen.chars.no").is_err());
    assert!(CredentialRule::ValkeyAuthToken.check(&"a".repeat(129)).is_err());
}
