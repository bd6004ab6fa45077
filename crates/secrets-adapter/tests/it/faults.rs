//! Remote failures mid-run: each ends in a typed error saying what was and was not done, and a
//! re-run finishes with nothing generated twice. Contract server only.
#![allow(clippy::unwrap_used, missing_docs)]

use crate::common;

use std::time::{Duration, Instant};

use common::client_for;
use secrets_adapter::{
    Action, Auth, Client, ClientConfig, CredentialRule, CredentialSpec, Error, RetryPolicy, SecretString,
    prepare,
};
use serde_json::{Value, json};
use test_support::ContractServer;
use test_support::contract::{CLIENT_ID, CLIENT_SECRET, PROJECT};

fn specs() -> Vec<CredentialSpec> {
    ["alpha-db", "beta-db", "gamma-db", "delta-db"]
        .iter()
        .map(|r| CredentialSpec {
            resource: (*r).into(),
            environment: "dev".into(),
            folder: format!("/runtime/{r}"),
            name: format!("{}_PASSWORD", r.to_uppercase().replace('-', "_")),
            rule: CredentialRule::PostgresPassword,
        })
        .collect()
}

/// Runs prepare with `fault` switched on after `after` API requests; expects a typed failure
/// partway, then a clean re-run with every credential at version 1.
async fn fails_midway_then_rerun_completes(fault: Value, check: impl Fn(&Error)) {
    let server = ContractServer::start();
    let client = client_for(&server.url(), CLIENT_ID, CLIENT_SECRET);
    let specs = specs();
    let mut switch = fault.clone();
    // login + (check, folder, create) for the first credential, then the fault.
    switch["after"] = json!(4);
    server.faults(switch);
    let err = prepare(&client, PROJECT, &specs, &[], false).await.unwrap_err();
    check(&err.cause);
    assert_eq!(err.completed.action_at(&specs[0].location()), Some(Action::Created), "{err}");
    assert!(err.not_done.contains(&specs[1].location()), "{err}");
    assert_eq!(err.not_done.len(), specs.len() - 1, "{err}");
    let text = err.to_string();
    assert!(text.contains("not done (3):") && text.contains("run the same command again"), "{text}");

    server.clear_faults();
    let rerun = prepare(&client, PROJECT, &specs, &[], false).await.unwrap();
    assert_eq!(rerun.action_at(&specs[0].location()), Some(Action::Exists), "{rerun}");
    assert_eq!(rerun.count(Action::Created), 2 * (specs.len() - 1), "{rerun}");
    let versions = server.versions();
    assert_eq!(versions.len(), specs.len(), "{versions:?}");
    assert!(versions.values().all(|v| *v == 1), "generated twice: {versions:?}");
}

fn exhausted(expect: impl Fn(&Error) -> bool) -> impl Fn(&Error) {
    move |e| match e {
        Error::RetriesExhausted { attempts: 4, last, .. } => {
            assert!(expect(last), "last failure: {last}")
        }
        other => panic!("expected RetriesExhausted, got {other}"),
    }
}

#[tokio::test(flavor = "current_thread")]
async fn persistent_500_stops_with_typed_error_and_rerun_completes() {
    fails_midway_then_rerun_completes(json!({"fail_next_500": 50}), exhausted(|e| e.status() == Some(500)))
        .await;
}

#[tokio::test(flavor = "current_thread")]
async fn persistent_429_stops_with_typed_error_and_rerun_completes() {
    fails_midway_then_rerun_completes(
        json!({"throttle_next": 50, "retry_after": 1}),
        exhausted(|e| matches!(e, Error::Api { status: 429, message, .. } if message.contains("try again in 1 seconds"))),
    )
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn dropped_connections_stop_with_typed_error_and_rerun_completes() {
    fails_midway_then_rerun_completes(
        json!({"drop_next_connection": 50}),
        exhausted(|e| matches!(e, Error::Transport { .. })),
    )
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn transient_faults_are_retried_transparently() {
    for fault in
        [json!({"fail_next_500": 2}), json!({"throttle_next": 3}), json!({"drop_next_connection": 2})]
    {
        let server = ContractServer::start();
        let client = client_for(&server.url(), CLIENT_ID, CLIENT_SECRET);
        let mut switch = fault.clone();
        switch["after"] = json!(2);
        server.faults(switch);
        let report = prepare(&client, PROJECT, &specs(), &[], false).await.unwrap();
        assert_eq!(report.count(Action::Created), 8, "{fault}: {report}");
        assert!(server.versions().values().all(|v| *v == 1));
    }
}

#[tokio::test(flavor = "current_thread")]
async fn retry_waits_for_the_servers_hint() {
    let server = ContractServer::start();
    let mut config = ClientConfig::new(
        server.url().as_str(),
        Auth::UniversalAuth { client_id: CLIENT_ID.into(), client_secret: SecretString::from(CLIENT_SECRET) },
    );
    config.retry = RetryPolicy {
        max_attempts: 4,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_secs(5),
    };
    let client = Client::new(config).unwrap();
    client.login().await.unwrap();
    server.faults(json!({"throttle_next": 1, "retry_after": 1}));
    let start = Instant::now();
    assert!(client.list_secrets(PROJECT, "dev", "/").await.unwrap().is_empty());
    assert!(start.elapsed() >= Duration::from_millis(950), "{:?}", start.elapsed());
}

#[tokio::test(flavor = "current_thread")]
async fn expired_token_mid_run_relogs_in_once_and_finishes() {
    let server = ContractServer::start();
    let client = client_for(&server.url(), CLIENT_ID, CLIENT_SECRET);
    server.faults(json!({"expire_tokens_now": true, "after": 4}));
    let report = prepare(&client, PROJECT, &specs(), &[], false).await.unwrap();
    assert_eq!(report.count(Action::Created), 8, "{report}");
    let state = server.state(false);
    assert_eq!(state["logins"]["ok"], 2, "{}", state["logins"]);
    assert!(server.versions().values().all(|v| *v == 1));
}

#[tokio::test(flavor = "current_thread")]
async fn token_expired_again_after_relogin_is_a_typed_error_not_a_loop() {
    // Every token the server issues is already expired.
    let server = ContractServer::start_with(&["--token-ttl", "0"]);
    let client = client_for(&server.url(), CLIENT_ID, CLIENT_SECRET);
    let err = prepare(&client, PROJECT, &specs(), &[], false).await.unwrap_err();
    assert!(matches!(err.cause, Error::TokenExpired { .. }), "{err}");
    assert_eq!(err.not_done.len(), 4);
    assert_eq!(server.state(false)["logins"]["ok"], 2);
    // Re-run after the token problem is fixed finishes (new server lifetime = new tokens).
}

#[tokio::test(flavor = "current_thread")]
async fn ready_token_that_expires_is_a_typed_error() {
    let server = ContractServer::start();
    // Obtain a real token the way a CI would get one, then hand it over as INFISICAL_TOKEN.
    let token: Value = reqwest::Client::new()
        .post(format!("{}/api/v1/auth/universal-auth/login", server.url()))
        .json(&json!({"clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut config = ClientConfig::new(
        server.url().as_str(),
        Auth::Token(SecretString::from(token["accessToken"].as_str().unwrap())),
    );
    config.retry = common::fast_retry();
    let client = Client::new(config).unwrap();
    assert!(client.list_secrets(PROJECT, "dev", "/").await.unwrap().is_empty());
    server.faults(json!({"expire_tokens_now": true}));
    let err = client.list_secrets(PROJECT, "dev", "/").await.unwrap_err();
    assert!(matches!(err, Error::TokenExpired { .. }), "{err}");
}

#[tokio::test(flavor = "current_thread")]
async fn refused_login_is_final_and_lockout_is_reported() {
    let server = ContractServer::start();
    let client = client_for(&server.url(), CLIENT_ID, "wrong-secret");
    let err = prepare(&client, PROJECT, &specs(), &[], false).await.unwrap_err();
    assert!(
        matches!(&err.cause, Error::LoginRefused { status: 401, message } if message == "Invalid credentials"),
        "{err}"
    );
    // The same client never logs in again.
    let again = prepare(&client, PROJECT, &specs(), &[], false).await.unwrap_err();
    assert!(matches!(again.cause, Error::LoginRefused { .. }));
    assert_eq!(server.state(false)["logins"]["failed"], 1);
    // Two more failing clients lock the identity; even the right secret is refused then.
    for _ in 0..2 {
        let c = client_for(&server.url(), CLIENT_ID, "wrong-secret");
        assert!(c.login().await.is_err());
    }
    let right = client_for(&server.url(), CLIENT_ID, CLIENT_SECRET);
    let locked = right.login().await.unwrap_err();
    assert!(
        matches!(&locked, Error::LoginRefused { status: 401, message } if message.contains("temporarily locked")),
        "{locked}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn api_errors_are_typed_from_the_error_body() {
    let server = ContractServer::start();
    let client = client_for(&server.url(), CLIENT_ID, CLIENT_SECRET);
    let err = client.list_secrets("no-such-project", "dev", "/").await.unwrap_err();
    match &err {
        Error::Api { status: 404, message, req_id, .. } => {
            assert!(message.contains("no-such-project"), "{err}");
            assert!(!req_id.is_empty());
        }
        other => panic!("{other}"),
    }
    // A bad folder name is rejected before any call.
    let bad = CredentialSpec {
        resource: "x".into(),
        environment: "dev".into(),
        folder: "/runtime/bad name".into(),
        name: "X".into(),
        rule: CredentialRule::PostgresPassword,
    };
    let err = prepare(&client, PROJECT, &[bad], &[], false).await.unwrap_err();
    assert!(matches!(err.cause, Error::InvalidInput(_)), "{err}");
    // Unknown environment: 404 from Infisical, typed, not mistaken for "absent".
    let spec = CredentialSpec { environment: "nope".into(), ..specs()[0].clone() };
    let err = prepare(&client, PROJECT, &[spec], &[], true).await.unwrap_err();
    assert_eq!(err.cause.status(), Some(404), "{err}");
}
