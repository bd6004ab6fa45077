//! `ssm publish` and `ssm verify` against a real moto server.

use crate::aws_support;

use std::collections::BTreeMap;

use aws_adapter::aws::{
    Action, ParameterExpectation, ParameterRequest, PublishFailure, UpdateReason, VerifyProblemKind,
};
use aws_sdk_ssm::types::ParameterType;
use aws_support::{Gate, MapSource, clients, scope, sdk_config};
use test_support::Moto;

const KEY: &str = "alias/acme-shop-dev";

fn request(resource: &str, variable: &str) -> ParameterRequest {
    ParameterRequest {
        name: format!("/acme-shop/dev/{resource}/{variable}"),
        resource: resource.to_owned(),
        variable: variable.to_owned(),
        tags: vec![("owner".to_owned(), "platform".to_owned())],
    }
}

fn expect_all(reqs: &[ParameterRequest]) -> Vec<ParameterExpectation> {
    reqs.iter().map(|r| ParameterExpectation { name: r.name.clone(), kms_key: KEY.to_owned() }).collect()
}

/// A stored parameter as the test sees it (the test may read values; the adapter never shows
/// them).
#[derive(Debug, PartialEq, Eq)]
struct Stored {
    value: String,
    version: i64,
    kind: String,
}

/// Everything under `/acme-shop/`, read straight from moto.
async fn state(url: &str) -> BTreeMap<String, Stored> {
    let ssm = aws_sdk_ssm::Client::new(&sdk_config(url).await);
    let mut out = BTreeMap::new();
    let mut token = None;
    loop {
        let page = ssm
            .get_parameters_by_path()
            .path("/acme-shop/")
            .recursive(true)
            .with_decryption(true)
            .set_next_token(token)
            .send()
            .await
            .expect("GetParametersByPath");
        for p in page.parameters() {
            out.insert(
                p.name().expect("name").to_owned(),
                Stored {
                    value: p.value().expect("value").to_owned(),
                    version: p.version(),
                    kind: p.r#type().expect("type").as_str().to_owned(),
                },
            );
        }
        token = page.next_token().map(str::to_owned);
        if token.is_none() {
            break;
        }
    }
    out
}

fn stored(value: &str, version: i64) -> Stored {
    Stored { value: value.to_owned(), version, kind: "SecureString".to_owned() }
}

fn actions(report: &aws_adapter::aws::PublishReport) -> Vec<Action> {
    report.parameters.iter().map(|p| p.action).collect()
}

#[tokio::test]
async fn publish_is_idempotent_and_updates_only_what_differs() {
    let moto = Moto::start();
    let aws = clients(&moto.url()).await;
    let reqs = vec![
        request("main-db", "MAIN_DB_URL"),
        request("main-db", "MAIN_DB_PASSWORD"),
        request("cache", "CACHE_URL"),
    ];
    let source = MapSource::new(&[
        ("main-db/MAIN_DB_URL", "postgres://proxy/main"),
        ("main-db/MAIN_DB_PASSWORD", "pw-1"),
        ("cache/CACHE_URL", "rediss://cache:6379"),
    ]);

    let first = aws.ssm_publish(&scope(), KEY, &reqs, &source, false).await.expect("publish 1");
    assert_eq!(actions(&first), vec![Action::Created; 3]);
    assert_eq!(
        first.to_string(),
        "created   /acme-shop/dev/main-db/MAIN_DB_URL\n\
         created   /acme-shop/dev/main-db/MAIN_DB_PASSWORD\n\
         created   /acme-shop/dev/cache/CACHE_URL\n"
    );
    let after_first = state(&moto.url()).await;
    assert_eq!(
        after_first,
        BTreeMap::from([
            ("/acme-shop/dev/cache/CACHE_URL".to_owned(), stored("rediss://cache:6379", 1)),
            ("/acme-shop/dev/main-db/MAIN_DB_PASSWORD".to_owned(), stored("pw-1", 1)),
            ("/acme-shop/dev/main-db/MAIN_DB_URL".to_owned(), stored("postgres://proxy/main", 1)),
        ])
    );
    let verify = aws.ssm_verify(&expect_all(&reqs)).await.expect("verify 1");
    assert!(verify.is_ok(), "{verify}");

    let second = aws.ssm_publish(&scope(), KEY, &reqs, &source, false).await.expect("publish 2");
    assert_eq!(actions(&second), vec![Action::Unchanged; 3]);
    assert_eq!(state(&moto.url()).await, after_first, "no new versions");
    assert!(aws.ssm_verify(&expect_all(&reqs)).await.expect("verify 2").is_ok());

    source.set("main-db/MAIN_DB_PASSWORD", "pw-2");
    let third = aws.ssm_publish(&scope(), KEY, &reqs, &source, false).await.expect("publish 3");
    assert_eq!(actions(&third), vec![Action::Unchanged, Action::Updated, Action::Unchanged]);
    assert_eq!(third.parameters[1].reasons, vec![UpdateReason::Value]);
    let after_third = state(&moto.url()).await;
    assert_eq!(after_third["/acme-shop/dev/main-db/MAIN_DB_PASSWORD"], stored("pw-2", 2));
    assert_eq!(after_third["/acme-shop/dev/main-db/MAIN_DB_URL"].version, 1);
    assert_eq!(after_third["/acme-shop/dev/cache/CACHE_URL"].version, 1);
    assert!(aws.ssm_verify(&expect_all(&reqs)).await.expect("verify 3").is_ok());

    // Tags: product, environment, resource and the extra one.
    let ssm = aws_sdk_ssm::Client::new(&sdk_config(&moto.url()).await);
    for name in ["/acme-shop/dev/main-db/MAIN_DB_PASSWORD", "/acme-shop/dev/cache/CACHE_URL"] {
        let tags = ssm
            .list_tags_for_resource()
            .resource_type(aws_sdk_ssm::types::ResourceTypeForTagging::Parameter)
            .resource_id(name)
            .send()
            .await
            .expect("tags");
        let mut got: Vec<(String, String)> =
            tags.tag_list().iter().map(|t| (t.key().to_owned(), t.value().to_owned())).collect();
        got.sort();
        let resource = name.split('/').nth(3).expect("resource part");
        assert_eq!(
            got,
            vec![
                ("environment".to_owned(), "dev".to_owned()),
                ("owner".to_owned(), "platform".to_owned()),
                ("product".to_owned(), "acme-shop".to_owned()),
                ("resource".to_owned(), resource.to_owned()),
            ],
            "{name}"
        );
    }
}

#[tokio::test]
async fn verify_reports_missing_wrong_type_and_wrong_key_without_decrypting() {
    let moto = Moto::start();
    let ssm = aws_sdk_ssm::Client::new(&sdk_config(&moto.url()).await);
    let put = |name: &'static str, kind: ParameterType, key: Option<&'static str>| {
        ssm.put_parameter().name(name).value("x").r#type(kind).set_key_id(key.map(str::to_owned)).send()
    };
    put("/acme-shop/dev/a/GOOD", ParameterType::SecureString, Some(KEY)).await.expect("put");
    put("/acme-shop/dev/a/PLAIN", ParameterType::String, None).await.expect("put");
    put("/acme-shop/dev/a/OTHER_KEY", ParameterType::SecureString, Some("alias/other")).await.expect("put");
    let names = ["GOOD", "PLAIN", "OTHER_KEY", "MISSING"];
    let expected: Vec<ParameterExpectation> = names
        .iter()
        .map(|n| ParameterExpectation { name: format!("/acme-shop/dev/a/{n}"), kms_key: KEY.into() })
        .collect();

    let aws = clients(&moto.url()).await;
    let report = aws.ssm_verify(&expected).await.expect("verify");
    assert!(!report.is_ok());
    assert_eq!(report.checked, 4);
    let problems: Vec<(&str, &VerifyProblemKind)> =
        report.problems.iter().map(|p| (p.name.as_str(), &p.kind)).collect();
    assert_eq!(
        problems,
        vec![
            ("/acme-shop/dev/a/PLAIN", &VerifyProblemKind::WrongType { found: "String".to_owned() }),
            (
                "/acme-shop/dev/a/OTHER_KEY",
                &VerifyProblemKind::WrongKey {
                    found: Some("alias/other".to_owned()),
                    expected: KEY.to_owned()
                }
            ),
            ("/acme-shop/dev/a/MISSING", &VerifyProblemKind::Missing),
        ]
    );
    assert_eq!(
        report.to_string(),
        "wrong type /acme-shop/dev/a/PLAIN: String, expected SecureString\n\
         wrong key  /acme-shop/dev/a/OTHER_KEY: alias/other, expected alias/acme-shop-dev\n\
         missing    /acme-shop/dev/a/MISSING\n\
         4 parameter(s) checked, 3 problem(s)"
    );
    let json = serde_json::to_value(&report).expect("json");
    assert_eq!(
        json["problems"][2],
        serde_json::json!({"name": "/acme-shop/dev/a/MISSING", "problem": "missing"})
    );

    // Publishing fixes type and key (never deleting anything), and verify then passes.
    let reqs: Vec<ParameterRequest> = names.iter().map(|n| request("a", n)).collect();
    let source =
        MapSource::new(&[("a/GOOD", "x"), ("a/PLAIN", "x"), ("a/OTHER_KEY", "x"), ("a/MISSING", "y")]);
    let fixed = aws.ssm_publish(&scope(), KEY, &reqs, &source, false).await.expect("publish");
    // GOOD was put without tags: only tags are written.
    assert_eq!(actions(&fixed), vec![Action::Retagged, Action::Updated, Action::Updated, Action::Created]);
    assert_eq!(fixed.parameters[1].reasons, vec![UpdateReason::Type { found: "String".to_owned() }]);
    assert_eq!(
        fixed.parameters[2].reasons,
        vec![UpdateReason::Key { found: Some("alias/other".to_owned()) }]
    );
    assert!(aws.ssm_verify(&expected).await.expect("verify").is_ok());
    let again = aws.ssm_publish(&scope(), KEY, &reqs, &source, false).await.expect("publish");
    assert_eq!(actions(&again), vec![Action::Unchanged; 4]);
}

#[tokio::test]
async fn dry_run_writes_nothing() {
    let moto = Moto::start();
    let aws = clients(&moto.url()).await;
    let reqs = vec![request("main-db", "MAIN_DB_URL"), request("main-db", "MAIN_DB_PASSWORD")];
    let source = MapSource::new(&[("main-db/MAIN_DB_URL", "u1"), ("main-db/MAIN_DB_PASSWORD", "p1")]);

    let dry = aws.ssm_publish(&scope(), KEY, &reqs, &source, true).await.expect("dry run");
    assert_eq!(actions(&dry), vec![Action::Created; 2]);
    assert!(dry.to_string().contains("would create /acme-shop/dev/main-db/MAIN_DB_URL"), "{dry}");
    assert!(state(&moto.url()).await.is_empty(), "a dry run created something");

    aws.ssm_publish(&scope(), KEY, &reqs, &source, false).await.expect("publish");
    let before = state(&moto.url()).await;
    source.set("main-db/MAIN_DB_URL", "u2");
    let dry = aws.ssm_publish(&scope(), KEY, &reqs, &source, true).await.expect("dry run");
    assert_eq!(actions(&dry), vec![Action::Updated, Action::Unchanged]);
    assert_eq!(state(&moto.url()).await, before, "a dry run changed something");
}

#[tokio::test]
async fn a_publish_cut_part_way_fails_typed_and_a_rerun_completes_it() {
    // The network to moto is cut (moto itself keeps running, so its state survives, as AWS's
    // would): the gate refuses everything from the third value on.
    let moto = Moto::start();
    let gate = std::sync::Arc::new(Gate::start(moto.port));
    let aws = clients(&gate.url()).await;
    let reqs: Vec<ParameterRequest> =
        ["A", "B", "C", "D", "E"].iter().map(|v| request("main-db", v)).collect();
    let values =
        [("main-db/A", "a"), ("main-db/B", "b"), ("main-db/C", "c"), ("main-db/D", "d"), ("main-db/E", "e")];
    let mut source = MapSource::new(&values);
    let cut = std::sync::Arc::clone(&gate);
    source.before_read = Some((2, Box::new(move || cut.close())));

    let err = aws.ssm_publish(&scope(), KEY, &reqs, &source, false).await.expect_err("cut");
    let done: Vec<(&str, Action)> = err.done.iter().map(|o| (o.name.as_str(), o.action)).collect();
    assert_eq!(
        done,
        vec![("/acme-shop/dev/main-db/A", Action::Created), ("/acme-shop/dev/main-db/B", Action::Created)]
    );
    assert_eq!(err.failed, "/acme-shop/dev/main-db/C");
    assert_eq!(err.not_done, vec!["/acme-shop/dev/main-db/D", "/acme-shop/dev/main-db/E"]);
    let PublishFailure::Remote(remote) = &err.failure else {
        panic!("expected a remote failure, got {:?}", err.failure)
    };
    assert_eq!(remote.operation, "DescribeParameters");
    assert_eq!(remote.code, None, "no service answered: {remote}");
    let text = err.to_string();
    eprintln!("{text}");
    // A dropped connection may surface as a reset (an I/O error, which leads with "AWS did not
    // answer" and puts the call on a `cause:` line) or as a closed connection (the call alone).
    assert!(text.starts_with("ssm publish stopped at `/acme-shop/dev/main-db/C`: "), "{text}");
    let first_lines: String = text.lines().take(2).collect::<Vec<_>>().join("\n");
    assert!(first_lines.contains("DescribeParameters failed: "), "{text}");
    assert!(
        text.contains(
            "done (2):\n  created   /acme-shop/dev/main-db/A\n  created   /acme-shop/dev/main-db/B\n"
        ),
        "{text}"
    );
    assert!(text.contains("not done (3):\n  failed    /acme-shop/dev/main-db/C\n  pending   /acme-shop/dev/main-db/D\n  pending   /acme-shop/dev/main-db/E\n"), "{text}");
    // Straight from moto: exactly what was reported done.
    let partial: Vec<String> = state(&moto.url()).await.into_keys().collect();
    assert_eq!(partial, vec!["/acme-shop/dev/main-db/A", "/acme-shop/dev/main-db/B"]);

    gate.open();
    let mut source = MapSource::new(&values);
    source.before_read = None;
    let rerun = aws.ssm_publish(&scope(), KEY, &reqs, &source, false).await.expect("rerun");
    assert_eq!(
        actions(&rerun),
        vec![Action::Unchanged, Action::Unchanged, Action::Created, Action::Created, Action::Created]
    );
    let end = state(&moto.url()).await;
    let expected: BTreeMap<String, Stored> =
        values.iter().map(|(k, v)| (format!("/acme-shop/dev/{k}"), stored(v, 1))).collect();
    assert_eq!(end, expected);
    assert!(aws.ssm_verify(&expect_all(&reqs)).await.expect("verify").is_ok());
}

#[tokio::test]
async fn a_value_missing_in_the_source_stops_before_writing_it() {
    let moto = Moto::start();
    let aws = clients(&moto.url()).await;
    let reqs = vec![request("q", "Q_URL"), request("q", "Q_ARN"), request("q", "Q_DLQ_URL")];
    let source = MapSource::new(&[("q/Q_URL", "https://sqs/q"), ("q/Q_DLQ_URL", "https://sqs/dlq")]);
    let err = aws.ssm_publish(&scope(), KEY, &reqs, &source, false).await.expect_err("missing");
    assert_eq!(
        err.failure,
        PublishFailure::MissingInSource { resource: "q".to_owned(), variable: "Q_ARN".to_owned() }
    );
    assert_eq!(err.done.len(), 1);
    assert_eq!(err.not_done, vec!["/acme-shop/dev/q/Q_DLQ_URL"]);
    let names: Vec<String> = state(&moto.url()).await.into_keys().collect();
    assert_eq!(names, vec!["/acme-shop/dev/q/Q_URL"]);
}

#[test]
fn publish_and_verify_futures_are_send() {
    // The CLI may run them on a multi-threaded runtime; this fails to compile if not Send.
    fn assert_send<T: Send>(_: T) {}
    let settings = aws_support::settings("http://127.0.0.1:9");
    let source = MapSource::new(&[]);
    let scope = scope();
    assert_send(async {
        let aws = aws_adapter::aws::AwsClients::connect(&settings).await;
        let _ = aws.ssm_publish(&scope, KEY, &[], &source, true).await;
        let _ = aws.ssm_verify(&[]).await;
    });
}
