//! Runs `tools/pulumi_check.py` (the provider-SDK check) for the Pulumi tests, and writes a
//! rendered program into a directory for it (the crate itself writes no file).
//!
//! A module of the `pulumi_*` tests (a folder, so it is not a test target of its own).
#![allow(dead_code)] // reason: each test file uses a part of the helpers
#![allow(clippy::disallowed_methods, clippy::disallowed_types)] // reason: the tests write programs and run Python

use std::path::Path;
use std::process::Command;

use pulumi_program::Program;
use test_support::{python, workspace};

/// Writes the program's files into `dir` (which exists), as `runway emit pulumi` does.
pub fn write(dir: &Path, program: &Program) {
    for (name, text) in &program.files {
        std::fs::write(dir.join(name), text).expect("write the program");
    }
}

/// The outcome of one run of the check.
pub struct Outcome {
    /// Exit code 0.
    pub success: bool,
    /// Standard output and standard error together.
    pub output: String,
}

/// Runs the check over program directories, every tag of the plan's rule required on every
/// resource whose type takes tags.
pub fn check(dirs: &[&Path]) -> Outcome {
    run_check(dirs, &[])
}

/// [`check`], every resource and function call also required to pin the pulumi-aws version
/// the check runs (as every emitted program does).
pub fn check_pinned(dirs: &[&Path]) -> Outcome {
    run_check(dirs, &["--require-version"])
}

fn run_check(dirs: &[&Path], flags: &[&str]) -> Outcome {
    let out = Command::new(python())
        .arg(workspace().join("tools/pulumi_check.py"))
        .args(["--require-tags", &pulumi_program::TAG_KEYS.join(",")])
        .args(flags)
        .args(dirs)
        .output()
        .expect("cannot start the Python check");
    let output = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!output.contains("run `cargo xtask venv`"), "the Python check cannot run: {output}");
    Outcome { success: out.status.success(), output }
}

/// Asserts what the tags of a rendered program say: every resource that has tags carries the
/// plan's tags of its item (product, environment, its resource or workload, `environment` for
/// the environment's items, and its logical id), and every ECS service propagates its tags to
/// its tasks (`propagateTags: SERVICE`, `enableEcsManagedTags`). Which types take tags at all,
/// and that every one of them has them, is the SDK check's (`--require-tags`). Returns how many
/// services it saw.
pub fn assert_tags(plan: &runtime_plan::Plan, program: &Program) -> usize {
    let text = program.file(pulumi_program::PROGRAM_FILE).expect("Pulumi.yaml");
    let doc: serde_json::Value = serde_saphyr::from_str(text).expect("the program is YAML");
    let resources = doc["resources"].as_object().expect("resources");
    let mut services = 0;
    for (name, resource) in resources {
        let id = name.split("--").next().unwrap_or(name);
        let props = &resource["properties"];
        // An SSM parameter the program writes is no item: tagged as its owner's.
        let parameter = plan.secrets.ssm_parameters.iter().find(|p| p.program_id() == *name);
        let (owner, expected) = match (plan.item(id), parameter) {
            (Some(item), _) => (item.owner_name(), plan.tags_of(item)),
            (None, Some(p)) => (p.owner.as_str(), plan.tags_with(&p.owner, name)),
            (None, None) => panic!("{name}: no item {id} and no parameter the program writes"),
        };
        if let Some(tags) = props.get("tags") {
            for (key, value) in expected {
                assert_eq!(tags[key].as_str(), Some(value), "{}: {name} tag {key}", plan.environment);
            }
            assert_eq!(tags["resource"].as_str(), Some(owner), "{name}");
        }
        if resource["type"] == "aws:ecs/service:Service" {
            services += 1;
            assert_eq!(props["propagateTags"], "SERVICE", "{}: {name} propagates no tags", plan.environment);
            assert_eq!(props["enableEcsManagedTags"], true, "{}: {name}", plan.environment);
        }
    }
    services
}

/// Asserts that no credential reaches the program's config, and that in the state it is only
/// ever a write-only input (issues 32 and 39): no config key is secret (nothing for a
/// `Pulumi.<stack>.yaml`), every decrypted credential variable (`${credential-...}`) is read by
/// a write-only input (a property whose name ends in `Wo`, beside its `...WoVersion`), and no
/// `fn::secret` value is an ordinary input. A write-only input is not read back into the
/// resource's outputs, but the state keeps it in the resource's inputs as a Pulumi secret
/// (pulumi-terraform-bridge#3201): this does not keep credentials out of the state, it keeps
/// them out of everything but those secret inputs. Returns how many write-only inputs it saw.
pub fn assert_credentials_write_only(program: &Program) -> usize {
    let text = program.file(pulumi_program::PROGRAM_FILE).expect("Pulumi.yaml");
    let doc: serde_json::Value = serde_saphyr::from_str(text).expect("the program is YAML");
    if let Some(config) = doc.get("config").and_then(|c| c.as_object()) {
        for (key, declaration) in config {
            assert_ne!(
                declaration.get("secret"),
                Some(&serde_json::Value::Bool(true)),
                "config `{key}` is secret"
            );
        }
    }
    let mut seen = 0;
    let resources = doc.get("resources").and_then(|r| r.as_object()).expect("resources");
    for (id, resource) in resources {
        let Some(properties) = resource.get("properties") else { continue };
        walk_credentials(id, "", properties, &mut seen);
    }
    seen
}

/// Every string under `value` that names a credential variable, or a secret value, must sit
/// under a write-only property (`key` the nearest property name above it).
fn walk_credentials(id: &str, key: &str, value: &serde_json::Value, seen: &mut usize) {
    let write_only = key.ends_with("Wo");
    match value {
        serde_json::Value::String(s) => {
            let names_credential = s
                .split("${credential-")
                .skip(1)
                .any(|rest| !rest.split('}').next().unwrap_or("").ends_with("-version"));
            if names_credential {
                assert!(write_only, "`{id}`: `{key}` is not write-only and holds a credential: {s}");
                *seen += 1;
            }
        }
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                if k == "fn::secret" {
                    assert!(write_only, "`{id}`: `{key}` is not write-only and holds a secret");
                    walk_credentials(id, key, v, seen);
                } else if k.starts_with("fn::") {
                    walk_credentials(id, key, v, seen);
                } else {
                    walk_credentials(id, k, v, seen);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| walk_credentials(id, key, v, seen)),
        serde_json::Value::Null | serde_json::Value::Bool(_) | serde_json::Value::Number(_) => {}
    }
}
