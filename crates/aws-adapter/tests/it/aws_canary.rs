//! A canary value never shows up in Display, Debug or JSON of any input, report or error that
//! held or handled it.

use crate::aws_support;

use std::sync::Arc;

use aws_adapter::aws::{ParameterRequest, ParameterWrite, ProxyAdminCopy};
use aws_support::{Gate, MapSource, clients, scope};
use secrecy::SecretString;
use test_support::Moto;

const CANARY: &str = "CANARY-7f3a9c-s3cr3t";
const KEY: &str = "alias/acme-shop-dev";

fn assert_clean(what: &str, text: &str) {
    assert!(!text.contains(CANARY), "{what} shows the canary: {text}");
    assert!(!text.contains("7f3a9c"), "{what} shows part of the canary: {text}");
}

fn check<T: std::fmt::Debug + std::fmt::Display + serde::Serialize>(what: &str, v: &T) {
    assert_clean(what, &v.to_string());
    assert_clean(what, &format!("{v:?}"));
    assert_clean(what, &format!("{v:#?}"));
    assert_clean(what, &serde_json::to_string(v).expect("json"));
}

#[tokio::test]
async fn the_canary_never_shows() {
    let moto = Moto::start();
    let gate = Arc::new(Gate::start(moto.port));
    let aws = clients(&gate.url()).await;

    let write = ParameterWrite {
        name: "/acme-shop/dev/main-db/MAIN_DB_PASSWORD".to_owned(),
        value: SecretString::from(CANARY),
        resource: "main-db".to_owned(),
        tags: Vec::new(),
    };
    assert_clean("ParameterWrite", &format!("{write:?}"));
    let copy = ProxyAdminCopy {
        secret_name: "acme-shop/dev/main-db/proxy-admin".to_owned(),
        resource: "main-db".to_owned(),
        username: "admin".to_owned(),
        password: SecretString::from(CANARY),
        kms_key: None,
        tags: Vec::new(),
    };
    assert_clean("ProxyAdminCopy", &format!("{copy:?}"));

    // Dry run, create, unchanged, update (the stored value is the canary, then differs).
    let writes = std::slice::from_ref(&write);
    check("dry-run report", &aws.ssm_publish_values(&scope(), KEY, writes, true).await.expect("dry"));
    check("created report", &aws.ssm_publish_values(&scope(), KEY, writes, false).await.expect("create"));
    check("unchanged report", &aws.ssm_publish_values(&scope(), KEY, writes, false).await.expect("same"));
    let reqs = vec![
        ParameterRequest {
            name: write.name.clone(),
            resource: "main-db".to_owned(),
            variable: "MAIN_DB_PASSWORD".to_owned(),
            tags: Vec::new(),
        },
        ParameterRequest {
            name: "/acme-shop/dev/main-db/MAIN_DB_URL".to_owned(),
            resource: "main-db".to_owned(),
            variable: "MAIN_DB_URL".to_owned(),
            tags: Vec::new(),
        },
    ];
    let other = format!("{CANARY}-changed");
    let url = format!("postgres://admin:{CANARY}@proxy/main");
    let source = MapSource::new(&[
        ("main-db/MAIN_DB_PASSWORD", other.as_str()),
        ("main-db/MAIN_DB_URL", url.as_str()),
    ]);
    check("updated report", &aws.ssm_publish(&scope(), KEY, &reqs, &source, false).await.expect("update"));

    check("proxy created", &aws.copy_proxy_admin(&scope(), &copy, false).await.expect("proxy"));
    check("proxy unchanged", &aws.copy_proxy_admin(&scope(), &copy, false).await.expect("proxy"));

    // Failures while the canary is in flight.
    gate.close();
    let err = aws.ssm_publish(&scope(), KEY, &reqs, &source, false).await.expect_err("cut");
    check("publish error", &err);
    let err = aws.copy_proxy_admin(&scope(), &copy, false).await.expect_err("cut");
    check("proxy error", &err);
}
