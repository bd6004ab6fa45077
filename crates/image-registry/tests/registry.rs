//! The image checks against a registry on loopback that speaks the distribution API
//! (test-support's `CannedWeb` with `registry` routes): an index with platforms, a single
//! manifest and its config, a 404, a bearer challenge and its token service, a 429, nobody
//! listening. Each check fails on its case and passes a clean one; only GETs are ever sent.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::time::Duration;

use image_registry::{Access, Registries, check_images};
use runtime_plan::preflight::{ImageExpectation, Platform};
use runtime_plan::{Finding, Severity};
use secrecy::SecretString;
use test_support::registry::{behind_bearer, oci_index, oci_manifest, throttled};
use test_support::{Answer, CannedWeb, WebRoute};

const INDEX: &str = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
const SINGLE: &str = "sha256:2222222222222222222222222222222222222222222222222222222222222222";
const MISSING: &str = "sha256:3333333333333333333333333333333333333333333333333333333333333333";

fn expect(image: &str, platform: Platform) -> ImageExpectation {
    ImageExpectation { used_by: vec!["web".into()], image: image.into(), platform, credentials: None }
}

/// `docker.io` and `ghcr.io` both asked at `server`, quickly retried.
fn registries(server: &str) -> Registries {
    let mut r = Registries::default();
    r.pause = Duration::from_millis(10);
    r.with_endpoints(&format!("docker.io={server}, ghcr.io={server}")).unwrap()
}

fn run(registries: &Registries, images: Vec<(ImageExpectation, Access)>) -> Vec<Finding> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let findings = rt.block_on(check_images(registries, images));
    println!("{findings:#?}");
    findings
}

fn only_gets(server: &CannedWeb) {
    let seen = server.seen();
    assert!(!seen.is_empty());
    assert!(seen.iter().all(|s| s.method == "GET"), "{seen:#?}");
}

fn standard() -> Vec<WebRoute> {
    let mut routes = vec![oci_index("acme/web", INDEX, &["linux/amd64", "linux/arm64"])];
    routes.extend(oci_manifest("acme/single", SINGLE, "amd64"));
    routes
}

#[test]
fn a_clean_index_and_a_clean_single_manifest_pass() {
    let server = CannedWeb::start(standard());
    let findings = run(
        &registries(&server.url()),
        vec![
            (expect(&format!("acme/web:1@{INDEX}"), Platform::Arm64), Access::Anonymous),
            (expect(&format!("acme/web:1@{INDEX}"), Platform::Amd64), Access::Anonymous),
            (expect(&format!("ghcr.io/acme/single:2@{SINGLE}"), Platform::Amd64), Access::Anonymous),
        ],
    );
    assert_eq!(findings, []);
    // The config blob of the single manifest was read.
    assert!(server.seen().iter().any(|s| s.target.contains("/blobs/sha256:ccc")));
    only_gets(&server);
}

#[test]
fn an_index_without_the_platform_is_an_error_naming_what_it_offers() {
    let server = CannedWeb::start(vec![oci_index("acme/web", INDEX, &["linux/amd64"])]);
    let findings = run(
        &registries(&server.url()),
        vec![(expect(&format!("acme/web:1@{INDEX}"), Platform::Arm64), Access::Anonymous)],
    );
    assert_eq!(findings.len(), 1);
    let f = &findings[0];
    assert_eq!((f.check.as_str(), f.severity), ("image", Severity::Error));
    assert!(f.message.contains("offers no linux/arm64 (its index offers linux/amd64)"), "{}", f.message);
    assert!(f.help.contains("platform: x86_64"), "{}", f.help);
    only_gets(&server);
}

#[test]
fn a_single_manifest_of_another_architecture_is_an_error() {
    let server = CannedWeb::start(standard());
    let image = format!("ghcr.io/acme/single:2@{SINGLE}");
    let findings =
        run(&registries(&server.url()), vec![(expect(&image, Platform::Arm64), Access::Anonymous)]);
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].severity, Severity::Error);
    assert!(findings[0].message.contains("single-platform image for linux/amd64"), "{}", findings[0].message);
    assert_eq!(findings[0].subject, "web");
    assert!(findings[0].message.starts_with(&image));
}

#[test]
fn a_digest_the_registry_does_not_have_is_an_error() {
    let server = CannedWeb::start(standard());
    let findings = run(
        &registries(&server.url()),
        vec![(expect(&format!("acme/web:1@{MISSING}"), Platform::Arm64), Access::Anonymous)],
    );
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].severity, Severity::Error);
    assert!(findings[0].message.contains("digest not found"), "{}", findings[0].message);
    assert!(findings[0].message.contains(MISSING));
}

#[test]
fn the_bearer_challenge_is_answered_with_a_token_and_the_request_made_again() {
    let server = CannedWeb::start(behind_bearer(standard(), "t0ken-canary"));
    let findings = run(
        &registries(&server.url()),
        vec![(expect(&format!("ghcr.io/acme/single:2@{SINGLE}"), Platform::Amd64), Access::Anonymous)],
    );
    assert_eq!(findings, []);
    let seen = server.seen();
    let targets: Vec<&str> = seen.iter().map(|s| s.target.as_str()).collect();
    assert!(targets[0].starts_with("/v2/acme/single/manifests/"), "{targets:?}");
    assert!(
        targets[1].starts_with("/token?scope=repository%3Ax%3Apull&service=test-registry"),
        "{targets:?}"
    );
    let bearer = |s: &test_support::Seen| {
        s.headers.iter().any(|(k, v)| k == "authorization" && v == "Bearer t0ken-canary")
    };
    assert!(!bearer(&seen[0]) && bearer(&seen[2]) && bearer(&seen[3]), "{seen:#?}");
    only_gets(&server);
}

#[test]
fn refused_pulls_are_errors_anonymous_or_with_credentials() {
    let challenge = r#"Bearer realm="{url}/token",service="s""#;
    let refused = Answer::new("401 Unauthorized", &[("WWW-Authenticate", challenge)], "{}");
    let no_token = Answer::new("401 Unauthorized", &[], "{}");
    let routes = vec![
        WebRoute::new("GET", &format!("/v2/acme/private/manifests/{INDEX}"), vec![refused]),
        WebRoute::new("GET", "/token", vec![no_token]),
    ];
    let server = CannedWeb::start(routes);
    let image = format!("ghcr.io/acme/private@{INDEX}");
    let basic = Access::Basic { username: "bot".into(), password: SecretString::from("pa55-canary") };
    let findings = run(
        &registries(&server.url()),
        vec![(expect(&image, Platform::Arm64), Access::Anonymous), (expect(&image, Platform::Amd64), basic)],
    );
    assert_eq!(findings.len(), 2, "{findings:?}");
    assert!(findings.iter().all(|f| f.severity == Severity::Error));
    assert!(findings[0].message.contains("refused an anonymous pull"));
    assert!(findings[1].message.contains("refused the pull credentials"));
    // The password went to the token service as Basic auth, and is in no finding.
    assert!(
        server
            .seen()
            .iter()
            .any(|s| s.target.starts_with("/token") && s.headers.iter().any(|(k, _)| k == "authorization"))
    );
    assert!(!format!("{findings:?}").contains("pa55-canary"));
}

#[test]
fn a_throttled_registry_is_retried_then_a_warning_naming_it() {
    let server = CannedWeb::start(vec![throttled("acme/web", INDEX)]);
    let findings = run(
        &registries(&server.url()),
        vec![(expect(&format!("acme/web@{INDEX}"), Platform::Arm64), Access::Anonymous)],
    );
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].severity, Severity::Warning);
    assert!(findings[0].message.contains("docker.io answered 429 to 3 attempts"), "{}", findings[0].message);
    assert_eq!(server.seen().len(), 3);
}

#[test]
fn an_unreachable_registry_is_a_warning_naming_it_never_a_pass() {
    let port = test_support::free_port();
    let registries = registries(&format!("http://127.0.0.1:{port}"));
    let findings = run(
        &registries,
        vec![(expect(&format!("ghcr.io/acme/web@{INDEX}"), Platform::Arm64), Access::Anonymous)],
    );
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].severity, Severity::Warning);
    assert!(findings[0].message.contains("ghcr.io is unreachable"), "{}", findings[0].message);
}

#[test]
fn private_ecr_without_a_token_and_unreadable_credentials_are_warnings() {
    let ecr = format!("123456789012.dkr.ecr.us-east-1.amazonaws.com/app@{INDEX}");
    let findings = run(
        &Registries::default(),
        vec![
            (expect(&ecr, Platform::Arm64), Access::Anonymous),
            (
                expect("ghcr.io/acme/x@sha256:1", Platform::Arm64),
                Access::Unavailable { reason: "cannot read the secret acme/pull".into() },
            ),
        ],
    );
    assert_eq!(findings.len(), 2);
    assert!(findings.iter().all(|f| f.severity == Severity::Warning));
    assert!(findings[0].message.contains("not checked: private ECR"));
    assert!(findings[1].message.contains("cannot read the secret acme/pull"));
}
