#![allow(clippy::unwrap_used)] // reason: test helpers fail loudly
//! `runway diff --pulumi-preview` through the binary: the example committed in a repository,
//! a change in the work tree, both versions emitted (`runway emit pulumi`), the preview of the
//! new program against the old one's state computed by the test stand-in
//! (`tools/pulumi_preview.py`, Pulumi's `preview --json` shape), and the review of it. A
//! database replaced warns and names what is lost; a resize is an update without a warning; a
//! file that is no preview of this program is exit 2.
//!
//! Needs the workspace venv (`cargo xtask venv`, or `RUNWAY_PYTHON`): PyYAML for the stand-in.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

use crate::common::{edit, git};
use test_support::{Scratch, scratch};

fn runway_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    common::Run::of(common::repo_command(dir).args(args)).parts()
}

/// A repository `repo/` holding the example under `app/` as shipped (committed), with dev's
/// program of that commit emitted into `old/` (the stack's state); dev's cap raised to $400 in
/// the work tree, so that a larger database still plans.
fn repo(tag: &str) -> Scratch {
    let top = scratch(&format!("pulumi-preview-{tag}"));
    let dir = top.join("repo");
    test_support::copy_dir(&test_support::example("acme-shop"), &dir.join("app"));
    git(&dir, &["init", "-q", "-b", "main"]);
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "as shipped"]);
    emit(&top, "old");
    edit(&dir.join("app/runway.yaml"), "      monthly: 200\n", "      monthly: 400\n");
    top
}

/// `runway emit pulumi --env dev` of the work tree into `<top>/<folder>`.
fn emit(top: &Path, folder: &str) -> PathBuf {
    let out = top.join(folder);
    let (code, _, err) = runway_in(
        &top.join("repo"),
        &["emit", "pulumi", "--env", "dev", "--out", out.to_str().unwrap(), "app/runway.yaml"],
    );
    assert_eq!(code, 0, "{err}");
    out
}

/// The stand-in's `pulumi preview --json` of `<top>/new` against the state `<top>/old`, written
/// to `<top>/preview.json`.
fn preview(top: &Path) -> PathBuf {
    let out = Command::new(test_support::python())
        .arg(test_support::workspace().join("tools/pulumi_preview.py"))
        .arg(top.join("new"))
        .args(["--state", top.join("old").to_str().unwrap(), "--stack", "dev"])
        .output()
        .unwrap();
    assert!(out.status.success(), "pulumi_preview.py: {}", String::from_utf8_lossy(&out.stderr));
    let file = top.join("preview.json");
    std::fs::write(&file, &out.stdout).unwrap();
    file
}

fn review(top: &Path, format: &str, preview: &str) -> (i32, String, String) {
    let arg = format!("dev={preview}");
    let args = ["diff", "--base-ref", "HEAD", "--env", "dev", "--format", format, "--pulumi-preview", &arg];
    runway_in(&top.join("repo"), &[&args[..], &["app/runway.yaml"]].concat())
}

#[test]
fn a_database_of_another_engine_is_a_replacement_that_warns_what_is_lost() {
    let top = repo("engine");
    edit(&top.join("repo/app/runway.yaml"), "    engine: rds\n", "    engine: aurora\n");
    emit(&top, "new");
    let file = preview(&top);
    let (code, out, err) = review(&top, "markdown", file.to_str().unwrap());
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "> `dev`: Pulumi **replaces database `main-db`**: a new cluster, the data is not copied"
        ),
        "{out}"
    );
    insta::assert_snapshot!("preview-engine.md", out);
    // The terminal's view says the same.
    let (code, text, err) = review(&top, "text", file.to_str().unwrap());
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("  ! replaces database main-db: a new cluster, the data is not copied"), "{text}");
}

#[test]
fn an_input_that_forces_a_replacement_is_a_replace_step_and_a_warning() {
    let top = repo("force");
    let new = emit(&top, "new");
    // No runway setting renames the database inside it; the program is edited as a later
    // runway could write it, to see the stand-in mark `dbName` as forcing a replacement.
    edit(&new.join("Pulumi.yaml"), "      dbName: main_db\n", "      dbName: main_data\n");
    let file = preview(&top);
    let (code, out, err) = review(&top, "json", file.to_str().unwrap());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let items = &v["environments"][0]["pulumi"]["items"];
    assert_eq!(items[0]["id"], "main-db_db", "{items}");
    assert_eq!(items[0]["change"], "replaced");
    assert_eq!(items[0]["loss"], "a new instance, the data is not copied");
    assert_eq!(items[0]["steps"][0]["op"], "replace");
    assert_eq!(items[0]["steps"][0]["reasons"], serde_json::json!(["dbName"]));
}

#[test]
fn a_resized_database_is_an_update_without_a_warning() {
    let top = repo("size");
    edit(
        &top.join("repo/app/runway.yaml"),
        "    size: { staging: medium, production: large }\n",
        "    size: { dev: medium, staging: medium, production: large }\n",
    );
    emit(&top, "new");
    let file = preview(&top);
    let (code, out, err) = review(&top, "markdown", file.to_str().unwrap());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("| updated | `main-db_db` | rds-instance | `main-db_db` `update` ("), "{out}");
    assert!(out.contains("`instanceClass`"), "{out}");
    assert!(!out.contains("Pulumi **"), "no loss warning for a resize:\n{out}");
    assert!(!out.contains("**replaced**"), "{out}");
}

#[test]
fn a_file_that_is_no_preview_of_this_program_is_a_usage_error() {
    let top = repo("bad");
    let write = |name: &str, text: &str| {
        let path = top.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let cases = [
        (write("broken.json", "{\"steps\": [\n"), "not the JSON `pulumi preview --json` prints"),
        (write("array.json", "[1, 2]"), "not a `pulumi preview --json` document: a JSON array"),
        (
            write(
                "other.json",
                r#"{"steps": [{"op": "create", "urn": "urn:pulumi:dev::billing::aws:s3/bucket:Bucket::b"}]}"#,
            ),
            "the preview is of Pulumi project `billing`, not `acme-shop`",
        ),
        (top.join("missing.json").to_str().unwrap().to_owned(), "--pulumi-preview"),
    ];
    for (file, message) in cases {
        let (code, out, err) = review(&top, "markdown", &file);
        assert_eq!(code, 2, "{file}: {out}{err}");
        assert!(err.contains(message) && err.contains(&file), "{file}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(out.is_empty(), "nothing printed before the refusal: {out}");
    }
}
