#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: test helpers fail loudly
//! `runway init` on a fresh folder, then `runway check` (and `emit`) on what it wrote: from
//! flags alone and from a Compose file, never asking when stdin is not a terminal.

use std::path::Path;
use std::process::Stdio;

use crate::common::{self, PROJECT};

const DIGEST: &str = "sha256:0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e";

/// `runway args` in `dir`, stdin not a terminal: `(code, stdout, stderr)`.
fn runway(dir: &Path, args: &[&str]) -> (i32, String, String) {
    common::Run::of(common::command().args(args).current_dir(dir).stdin(Stdio::null())).parts()
}

/// `runway check --format json`'s diagnostics (exit 1).
fn diagnostics(dir: &Path) -> Vec<serde_json::Value> {
    let (code, stdout, stderr) = runway(dir, &["check", "--format", "json"]);
    assert_eq!(code, 1, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    report["diagnostics"].as_array().unwrap().clone()
}

/// The keys of a YAML file's `config` mapping, `<product>:` left out.
fn config_keys(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let doc: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    let mut keys: Vec<String> =
        doc["config"].as_object().unwrap().keys().map(|k| k.rsplit(':').next().unwrap().to_owned()).collect();
    keys.sort();
    keys
}

#[test]
fn init_from_flags_writes_a_runway_check_refuses_for_its_placeholder_and_passes_once_pinned() {
    let dir = test_support::scratch("init-flags");
    let flags = ["init", "--product", "shop", "--domain", "shop.example", "--postgres", "--queue"];
    let (code, stdout, stderr) = runway(&dir, &flags);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.is_empty(), "nothing asked or said without a terminal: {stderr}");
    for file in [
        "runway.yaml",
        "runway.schema.json",
        "infra/dev/Pulumi.dev.yaml",
        "infra/production/Pulumi.production.yaml",
    ] {
        assert!(stdout.contains(&format!("wrote {file}\n")), "{file} not in:\n{stdout}");
    }
    let root = std::fs::read_to_string(dir.join("runway.yaml")).unwrap();
    assert!(root.starts_with("# yaml-language-server: $schema=runway.schema.json\n"), "{root}");

    let (code, _, stderr) = runway(&dir, &["check"]);
    assert_eq!(code, 1, "the placeholder is refused: {stderr}");
    let diags = diagnostics(&dir);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["code"], "unpinned-image");
    assert_eq!(diags[0]["path"], "workloads.web.image");
    assert_eq!(
        diags[0]["message"],
        "image `REPLACE-ME/web` is the placeholder `runway init` wrote, not an image"
    );

    // Files that exist are never overwritten without `--force`, and each is named.
    let (code, _, stderr) = runway(&dir, &flags);
    assert_eq!(code, 2, "{stderr}");
    for file in ["runway.yaml", "infra/staging/Pulumi.staging.yaml"] {
        assert!(stderr.contains(file), "{file} not named: {stderr}");
    }
    assert_eq!(std::fs::read_to_string(dir.join("runway.yaml")).unwrap(), root, "untouched");

    let image = format!("ghcr.io/acme/web:1.0@{DIGEST}");
    let pinned = [&flags[..], &["--cache", "--bucket", "--image", &image, "--force"]].concat();
    let (code, _, stderr) = runway(&dir, &pinned);
    assert_eq!(code, 0, "{stderr}");
    // Pinned, the one finding left is where the credentials will live: a warning, exit 0.
    let (code, stdout, stderr) = runway(&dir, &["check"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("missing-infisical") && stdout.contains("0 errors, 1 warning"), "{stdout}");
    let with_project = [&pinned[..], &["--infisical-project", PROJECT]].concat();
    let (code, _, stderr) = runway(&dir, &with_project);
    assert_eq!(code, 0, "{stderr}");
    let root = std::fs::read_to_string(dir.join("runway.yaml")).unwrap();
    assert!(root.contains("secrets:\n  infisical:\n") && root.contains(&format!("    project: {PROJECT}\n")));
    let (code, stdout, stderr) = runway(&dir, &["check"]);
    assert_eq!((code, stdout.as_str()), (0, "runway.yaml: ok\n"), "{stderr}");

    // Each environment's stack settings give exactly the inputs its program declares, and
    // `emit` (which checks them) accepts them.
    for env in ["dev", "staging", "production"] {
        let out = format!("infra/{env}");
        let (code, _, stderr) = runway(&dir, &["emit", "pulumi", "--env", env, "--out", &out]);
        assert_eq!(code, 0, "{env}: {stderr}");
        let program = config_keys(&dir.join(&out).join("Pulumi.yaml"));
        let settings = config_keys(&dir.join(&out).join(format!("Pulumi.{env}.yaml")));
        assert_eq!(program, settings, "{env}");
    }
}

#[test]
fn the_stack_settings_match_the_program_without_a_domain_and_with_an_uncapped_environment() {
    let dir = test_support::scratch("init-internal");
    let image = format!("ghcr.io/acme/api:2.0@{DIGEST}");
    let args = ["init", "--product", "api", "--env", "dev", "--env", "qa", "--image", &image, "--postgres"];
    let (code, _, stderr) = runway(&dir, &args);
    assert_eq!(code, 0, "{stderr}");
    let root = std::fs::read_to_string(dir.join("runway.yaml")).unwrap();
    assert!(
        root.contains("  dev:\n") && root.contains("limits: { monthly: 150 }"),
        "dev's default cap, seen: {root}"
    );
    assert!(!root.contains("expose: public"), "no domain, nothing public: {root}");
    let (code, _, stderr) = runway(&dir, &["check"]);
    assert_eq!(code, 0, "{stderr}");
    for env in ["dev", "qa"] {
        let out = format!("infra/{env}");
        let (code, _, stderr) = runway(&dir, &["emit", "pulumi", "--env", env, "--out", &out]);
        assert_eq!(code, 0, "{env}: {stderr}");
        let program = config_keys(&dir.join(&out).join("Pulumi.yaml"));
        assert_eq!(program, config_keys(&dir.join(&out).join(format!("Pulumi.{env}.yaml"))), "{env}");
    }
}

#[test]
fn init_from_compose_maps_a_web_app_a_worker_postgres_and_redis_and_check_passes() {
    let dir = test_support::scratch("init-compose");
    let compose = format!(
        "services:
  web:
    image: ghcr.io/acme/web:1.2@{DIGEST}
    ports: [\"8000:3000\"]
    environment:
      DATABASE_URL: postgres://app:pw@db:5432/app
      LOG_LEVEL: info
      SESSION_SECRET: canary-9f3e7a
    depends_on: [db, cache]
  worker:
    image: ghcr.io/acme/worker:1.2@{DIGEST}
    command: [bin/worker]
    environment: [\"REDIS_URL=redis://cache:6379\"]
    depends_on: [db]
  assets:
    build: ./assets
  db:
    image: postgres:16-alpine
    environment: {{ POSTGRES_PASSWORD: pw }}
    volumes: [\"pg:/var/lib/postgresql/data\"]
  cache:
    image: redis:7-alpine
volumes:
  pg: {{}}
"
    );
    std::fs::write(dir.join("docker-compose.yml"), &compose).unwrap();
    let args = [
        "init",
        "--product",
        "shop",
        "--domain",
        "shop.example",
        "--from-compose",
        "docker-compose.yml",
        "--infisical-project",
        PROJECT,
    ];
    let (code, _, stderr) = runway(&dir, &args);
    assert_eq!(code, 0, "{stderr}");
    for said in [
        "assets: built from source",
        "db: its volumes and environment",
        "web: `DATABASE_URL` points at `db`",
        "worker: no port",
        "worker: `command`",
        "top-level `volumes`",
    ] {
        assert!(stderr.contains(said), "{said:?} not in:\n{stderr}");
    }
    let root = std::fs::read_to_string(dir.join("runway.yaml")).unwrap();
    assert!(!root.contains("canary-9f3e7a") && !stderr.contains("canary-9f3e7a"), "no secret value written");
    assert!(root.contains("  db:\n    kind: postgres\n    version: \"16\"\n"), "{root}");
    assert!(root.contains("  cache:\n    kind: cache\n"), "{root}");
    assert!(root.contains("    port: 3000\n    # Behind the load balancer, at web."), "{root}");
    assert!(root.contains("secrets: [SESSION_SECRET]"), "{root}");

    let (code, stdout, stderr) = runway(&dir, &["check"]);
    assert_eq!((code, stdout.as_str()), (0, "runway.yaml: ok\n"), "{stderr}");
    let (code, plan, stderr) = runway(&dir, &["plan", "--env", "dev", "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let plan: serde_json::Value = serde_json::from_str(&plan).unwrap();
    assert_eq!(plan["cost"]["verdict"], "within", "the mapped product fits dev's default cap");

    // An unpinned image in the Compose file is carried over and refused with its own message.
    let unpinned = compose.replace(&format!("worker:1.2@{DIGEST}"), "worker:1.2");
    std::fs::write(dir.join("docker-compose.yml"), unpinned).unwrap();
    let (code, _, stderr) = runway(&dir, &[&args[..], &["--force"]].concat());
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("worker: image `ghcr.io/acme/worker:1.2` is not pinned"), "{stderr}");
    let diags = diagnostics(&dir);
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(
        (&diags[0]["code"], &diags[0]["path"]),
        (&"unpinned-image".into(), &"workloads.worker.image".into())
    );
    assert_eq!(diags[0]["message"], "image `ghcr.io/acme/worker:1.2` is not pinned by digest");
}

#[test]
fn init_refuses_what_would_not_be_a_runway_before_writing() {
    let dir = test_support::scratch("init-usage");
    let (code, _, stderr) = runway(&dir, &["init", "--product", "Shop!"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("`Shop!` is not a product name"), "{stderr}");
    let (code, _, stderr) = runway(&dir, &["init", "--product", "shop", "--env", "dev=cheap"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("`cheap` is not an amount"), "{stderr}");
    std::fs::write(dir.join("compose.yml"), "version: '3'\n").unwrap();
    let (code, _, stderr) = runway(&dir, &["init", "--product", "shop", "--from-compose", "compose.yml"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not a Compose file"), "{stderr}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "nothing but the compose file");
}
