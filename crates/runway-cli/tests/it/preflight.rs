//! `runway preflight` end to end: the real binary, a registry on loopback that speaks the
//! distribution API (test-support's `CannedWeb`), moto for the account (Secrets Manager, KMS)
//! and a canned loopback endpoint for what moto does not answer (Cost Explorer's cost
//! allocation tags). A scratch copy of `examples/acme-shop`, `dev`; each problem of the issue
//! has its test, and a clean one passes. Only reads are sent; nothing is written.
//!
//! Needs the workspace venv: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;
use std::process::Command;

use crate::common::Run;
use serde_json::Value;
use test_support::registry::{behind_bearer, oci_index, oci_manifest};
use test_support::{Answer, CannedAws, CannedWeb, Moto, Route, Scratch, WebRoute};

use crate::common;

const METABASE: &str = "sha256:9f2b1c4e5d6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c";
const PDF: &str = "sha256:0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e";
const WORKER: &str = "sha256:7a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9";
const POSTGRES: &str = "sha256:57c72fd2a128e416c7fcc499958864df5301e940bca0a56f58fddf30ffc07777";
/// `bot:pa55-canary`, as HTTP Basic sends it.
const BASIC: &str = "Basic Ym90OnBhNTUtY2FuYXJ5";
const PASSWORD: &str = "pa55-canary";

/// The example's registries as they are in 2024: metabase amd64 only, the bootstrap's postgres
/// for both (ECR Public hands out anonymous bearer tokens), pdf-render and jobs-worker arm64
/// images behind credentials (a token only for `bot`).
fn registry() -> CannedWeb {
    let mut routes = vec![oci_index("metabase/metabase", METABASE, &["linux/amd64"])];
    routes.extend(behind_bearer(
        vec![oci_index("docker/library/postgres", POSTGRES, &["linux/amd64", "linux/arm64"])],
        "anonymous-token",
    ));
    for (repository, digest) in [("acme/pdf-render", PDF), ("acme/jobs-worker", WORKER)] {
        let challenge = format!(
            r#"Bearer realm="{{url}}/ghcr-token",service="ghcr.io",scope="repository:{repository}:pull""#
        );
        for route in oci_manifest(repository, digest, "arm64") {
            let refused = Answer::new("401 Unauthorized", &[("WWW-Authenticate", challenge.as_str())], "{}");
            let path = route.path.clone();
            routes.push(route.when("authorization", "Bearer ghcr-token-canary"));
            routes.push(WebRoute::new("GET", &path, vec![refused]));
        }
    }
    let token =
        Answer::new("200 OK", &[("Content-Type", "application/json")], r#"{"token":"ghcr-token-canary"}"#);
    routes.push(WebRoute::new("GET", "/ghcr-token", vec![token]).when("authorization", BASIC));
    routes.push(WebRoute::new("GET", "/ghcr-token", vec![Answer::new("401 Unauthorized", &[], "{}")]));
    CannedWeb::start(routes)
}

/// A scratch copy of the example, pdf-render's and jobs-worker's credentials in the plan's own
/// secrets (`registryCredentials: GHCR_PULL`), with `edit` applied to its runway.yaml.
fn example(name: &str, edit: impl Fn(String) -> String) -> Scratch {
    let dir = test_support::scratch(name);
    test_support::copy_dir(&test_support::example("acme-shop"), &dir);
    let root = dir.join("runway.yaml");
    let text = std::fs::read_to_string(&root).unwrap();
    let arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:acme/ghcr-pull-Q3xR7p";
    assert_eq!(text.matches(arn).count(), 2, "pdf-render's and jobs-worker's");
    std::fs::write(&root, edit(text.replace(arn, "GHCR_PULL"))).unwrap();
    dir
}

fn command(dir: &Path, registry: &CannedWeb, aws: Option<&str>) -> Command {
    let mut cmd = match aws {
        Some(url) => common::aws_command(url, "runway-preflight-test-home"),
        None => common::command(),
    };
    let url = registry.url();
    cmd.env("RUNWAY_REGISTRY_ENDPOINTS", format!("docker.io={url},ghcr.io={url},public.ecr.aws={url}"))
        .arg("preflight")
        .args(["--env", "dev"])
        .arg(dir.join("runway.yaml"));
    cmd
}

/// Runs `cmd` with `--format json`: its run and its report.
fn run(cmd: &mut Command) -> (Run, Value) {
    let run = Run::of_utf8(cmd.args(["--format", "json"]));
    println!("exit {}\n{}{}", run.code, run.stdout, run.stderr);
    let report = serde_json::from_str(&run.stdout).unwrap();
    (run, report)
}

fn findings<'a>(report: &'a Value, check: &str) -> Vec<&'a Value> {
    report["findings"].as_array().unwrap().iter().filter(|f| f["check"] == check).collect()
}

/// Every file under `dir` with its contents: what a run must leave as it was.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(snapshot(&path));
        } else {
            files.push((path.display().to_string(), std::fs::read(&path).unwrap()));
        }
    }
    files.sort();
    files
}

fn only_gets(registry: &CannedWeb) {
    let seen = registry.seen();
    assert!(seen.iter().all(|s| s.method == "GET"), "{seen:#?}");
}

#[test]
fn the_pr_job_checks_the_public_images_and_says_what_it_left() {
    let registry = registry();
    let dir = example("preflight-clean", |t| t);
    let before = snapshot(&dir);
    let (run, report) = run(command(&dir, &registry, None).arg("--no-aws"));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(report["verdict"], "ready");
    assert_eq!(report["errors"], 0);
    for f in report["findings"].as_array().unwrap() {
        let keys: Vec<&str> = f.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["check", "subject", "severity", "message", "help"]);
        assert_eq!(f["severity"], "warning");
    }
    // Not silent: the private images and the account are named as not checked.
    let images = findings(&report, "image");
    let subjects: Vec<&str> = images.iter().map(|f| f["subject"].as_str().unwrap()).collect();
    assert_eq!(subjects, ["pdf-render", "jobs-worker"]);
    for image in &images {
        assert!(image["message"].as_str().unwrap().contains("not read without AWS"), "{image}");
    }
    assert_eq!(findings(&report, "account").len(), 1);
    // metabase and the bootstrap's postgres were read (the bootstrap through a bearer token).
    let targets: Vec<String> = registry.seen().iter().map(|s| s.target.clone()).collect();
    assert!(targets.contains(&format!("/v2/metabase/metabase/manifests/{METABASE}")), "{targets:?}");
    assert!(targets.iter().any(|t| t.starts_with("/token?")), "{targets:?}");
    only_gets(&registry);
    assert_eq!(snapshot(&dir), before, "preflight wrote into the runway's folder");
    // The text form: one line per finding and the verdict.
    let text = Run::of_utf8(command(&dir, &registry, None).args(["--no-aws", "--format", "text"]));
    assert!(
        text.stdout.contains("preflight dev: 0 error(s), 3 warning(s); ready to deploy"),
        "{}",
        text.stdout
    );
}

#[test]
fn an_image_without_an_arm64_variant_on_the_default_platform_stops_the_deploy() {
    let registry = registry();
    let dir = example("preflight-arm", |t| t.replace("    platform: x86_64\n", ""));
    let (run, report) = run(command(&dir, &registry, None).arg("--no-aws"));
    assert_eq!(run.code, 1);
    assert_eq!(report["verdict"], "blocked");
    let errors: Vec<&Value> =
        report["findings"].as_array().unwrap().iter().filter(|f| f["severity"] == "error").collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["subject"], "metabase");
    assert!(
        errors[0]["message"]
            .as_str()
            .unwrap()
            .contains("offers no linux/arm64 (its index offers linux/amd64)")
    );
    assert!(errors[0]["help"].as_str().unwrap().contains("platform: x86_64"));
}

#[test]
fn a_digest_that_does_not_exist_stops_the_deploy() {
    let registry = registry();
    let wrong = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
    let dir = example("preflight-digest", |t| t.replace(METABASE, wrong));
    let (run, report) = run(command(&dir, &registry, None).arg("--no-aws"));
    assert_eq!(run.code, 1);
    let errors: Vec<&Value> =
        report["findings"].as_array().unwrap().iter().filter(|f| f["severity"] == "error").collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0]["message"].as_str().unwrap().contains("digest not found"));
    assert!(errors[0]["message"].as_str().unwrap().contains(wrong));
}

/// Runs a boto3 script against moto (`ENDPOINT` is set) to set the account up.
fn boto(moto: &Moto, script: &str) {
    let out = Command::new(test_support::python())
        .args(["-c", &format!("import boto3, json\nENDPOINT = '{}'\n{script}", moto.url())])
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("AWS_DEFAULT_REGION", "us-east-1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Cost Explorer's cost allocation tags, answered on loopback (moto has no such call).
fn cost_explorer(statuses: &[(&str, &str)]) -> CannedAws {
    let tags: Vec<Value> = statuses
        .iter()
        .map(|(k, s)| serde_json::json!({"TagKey": k, "Type": "UserDefined", "Status": s}))
        .collect();
    CannedAws::start(vec![Route::ok(
        "ListCostAllocationTags",
        &serde_json::json!({"CostAllocationTags": tags}).to_string(),
    )])
}

#[test]
fn the_deploy_job_reads_pull_credentials_the_key_and_the_tags() {
    let registry = registry();
    let moto = Moto::start();
    boto(
        &moto,
        &format!(
            "sm = boto3.client('secretsmanager', endpoint_url=ENDPOINT)\n\
             for workload in ['pdf-render', 'jobs-worker']:\n    \
             sm.create_secret(Name=f'acme-shop/dev/{{workload}}/registry-credentials', \
             SecretString=json.dumps({{'username': 'bot', 'password': '{PASSWORD}'}}))\n\
             kms = boto3.client('kms', endpoint_url=ENDPOINT)\n\
             key = kms.create_key()['KeyMetadata']['KeyId']\n\
             kms.create_alias(AliasName='alias/runway/acme-shop/dev', TargetKeyId=key)\n\
             kms.put_key_policy(KeyId=key, PolicyName='default', Policy=json.dumps({{'Version': '2012-10-17', \
             'Statement': [{{'Effect': 'Allow', 'Principal': {{'AWS': 'arn:aws:iam::123456789012:role/deploy'}}, \
             'Action': 'kms:*', 'Resource': '*'}}]}}))\n"
        ),
    );
    let ce = cost_explorer(&[("product", "Active"), ("environment", "Active"), ("resource", "Inactive")]);
    let dir = example("preflight-aws", |t| t);
    let mut cmd = command(&dir, &registry, Some(&moto.url()));
    cmd.env("AWS_ENDPOINT_URL_COST_EXPLORER", ce.url());
    let (run, report) = run(&mut cmd);
    assert_eq!(run.code, 1, "the key policy without the account statement is an error");
    // The private images were read with the credentials (token for `bot`), and pass.
    assert_eq!(findings(&report, "image").len(), 0, "{report}");
    assert!(registry.seen().iter().any(|s| s.target.starts_with("/ghcr-token")));
    for digest in [PDF, WORKER] {
        assert!(
            registry.seen().iter().any(|s| s.target.ends_with(&format!("/manifests/{digest}"))),
            "{digest}"
        );
    }
    let key = findings(&report, "key");
    assert_eq!(key.len(), 1, "{key:?}");
    assert_eq!(key[0]["severity"], "error");
    assert!(key[0]["message"].as_str().unwrap().contains("arn:aws:iam::123456789012:root"));
    let tags = findings(&report, "cost-tags");
    assert_eq!(tags.len(), 1, "{tags:?}");
    assert_eq!(
        (tags[0]["subject"].as_str(), tags[0]["severity"].as_str()),
        (Some("resource"), Some("warning"))
    );
    assert_eq!(ce.asked(), ["ListCostAllocationTags"]);
    // No credential in the output.
    assert!(!run.stdout.contains(PASSWORD) && !run.stderr.contains(PASSWORD));
    assert!(!run.stdout.contains("ghcr-token-canary"));
    only_gets(&registry);
}

#[test]
fn a_private_ecr_image_is_read_with_an_authorization_token() {
    // moto's token for account 123456789012: the Base64 of `AWS:123456789012-auth-token`.
    let token = "Basic QVdTOjEyMzQ1Njc4OTAxMi1hdXRoLXRva2Vu";
    let mut routes = Vec::new();
    let private = [oci_manifest("pdf-render", PDF, "arm64"), oci_manifest("jobs-worker", WORKER, "arm64")];
    for route in private.into_iter().flatten() {
        let challenge = r#"Basic realm="https://123456789012.dkr.ecr.us-east-1.amazonaws.com/",service="ecr.amazonaws.com""#;
        let refused = Answer::new("401 Unauthorized", &[("WWW-Authenticate", challenge)], "{}");
        let path = route.path.clone();
        routes.push(route.when("authorization", token));
        routes.push(WebRoute::new("GET", &path, vec![refused]));
    }
    routes.push(oci_index("metabase/metabase", METABASE, &["linux/amd64"]));
    routes.push(oci_index("docker/library/postgres", POSTGRES, &["linux/amd64", "linux/arm64"]));
    let registry = CannedWeb::start(routes);
    let ecr = "123456789012.dkr.ecr.us-east-1.amazonaws.com";
    let dir = example("preflight-ecr", |t| {
        t.replace("ghcr.io/acme/", &format!("{ecr}/")).replace("    registryCredentials: GHCR_PULL\n", "")
    });
    // Without AWS: said, not passed.
    let mut cmd = command(&dir, &registry, None);
    cmd.arg("--no-aws").env(
        "RUNWAY_REGISTRY_ENDPOINTS",
        format!("{ecr}={url},docker.io={url},public.ecr.aws={url}", url = registry.url()),
    );
    let (run_no_aws, report) = run(&mut cmd);
    assert_eq!(run_no_aws.code, 0);
    let images = findings(&report, "image");
    assert_eq!(images.len(), 2, "{report}");
    assert!(images.iter().all(|f| f["message"].as_str().unwrap().contains("private ECR")), "{report}");
    // With moto's ECR token, the manifest and its config are read and pass.
    let moto = Moto::start();
    let mut cmd = command(&dir, &registry, Some(&moto.url()));
    cmd.env(
        "RUNWAY_REGISTRY_ENDPOINTS",
        format!("{ecr}={url},docker.io={url},public.ecr.aws={url}", url = registry.url()),
    );
    let (_, report) = run(&mut cmd);
    assert_eq!(findings(&report, "image").len(), 0, "{report}");
    for repository in ["pdf-render", "jobs-worker"] {
        assert!(registry.seen().iter().any(|s| s.target.contains(&format!("/v2/{repository}/blobs/"))));
    }
    assert!(!report.to_string().contains("QVdTOjEy"), "the token is never shown");
    only_gets(&registry);
}
