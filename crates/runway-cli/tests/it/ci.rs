#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: test helpers fail loudly
//! `runway ci init --provider github`: the workflows it writes are the ones docs/ci/ shows,
//! they pass the linters (jactionlint, zizmor, installed into the venv from
//! tools/requirements.txt), and a workflow that differs is never overwritten without `--force`.
//! Also `runway --version` and the commit it names.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use test_support::{copy_dir, example, scratch, workspace};

use crate::common;

/// The install source docs/ci/ is written with (`runway ci init` fills in its own commit).
const DOC_FLAGS: [&str; 4] = ["--runway-git", "https://github.com/OWNER/runway", "--runway-rev", "COMMIT"];

/// The two files, in the order `ci init` writes them.
const FILES: [&str; 2] = ["runway-pull-request.yml", "runway-deploy.yml"];

fn runway(dir: &Path, args: &[&str]) -> (i32, String, String) {
    common::Run::of(common::command().args(args).current_dir(dir).stdin(Stdio::null())).parts()
}

/// A copy of the example with the workflows written as docs/ci/ shows them, into `out`.
fn written(name: &str) -> (test_support::Scratch, PathBuf) {
    let dir = scratch(name);
    copy_dir(&example("acme-shop"), &dir);
    let out = dir.join(".github/workflows");
    let mut args = vec!["ci", "init", "--provider", "github"];
    args.extend(DOC_FLAGS);
    let (code, stdout, stderr) = runway(&dir, &args);
    assert_eq!(code, 0, "{stderr}");
    for file in FILES {
        assert!(stdout.contains(&format!("wrote     .github/workflows/{file}\n")), "{stdout}");
    }
    (dir, out)
}

#[test]
fn docs_ci_holds_what_ci_init_writes_for_the_example() {
    let (_dir, out) = written("ci-docs");
    for file in FILES {
        let generated = std::fs::read_to_string(out.join(file)).unwrap();
        let documented = std::fs::read_to_string(workspace().join("docs/ci").join(file)).unwrap();
        assert!(
            generated == documented,
            "docs/ci/{file} differs from what `runway ci init` writes; from examples/acme-shop run \
             `runway ci init --provider github {} --out ../../docs/ci --force`",
            DOC_FLAGS.join(" ")
        );
    }
    // What the docs promise of the files, read from them.
    let pr = std::fs::read_to_string(out.join(FILES[0])).unwrap();
    let deploy = std::fs::read_to_string(out.join(FILES[1])).unwrap();
    assert!(!pr.contains("pull_request_target") && pr.contains("\n  pull_request:\n"), "{pr}");
    for env in ["dev", "staging", "production"] {
        assert!(pr.contains(&format!("runway preflight --env {env} --no-aws \"$RUNWAY_FILE\"")), "{pr}");
        assert!(deploy.contains(&format!("    environment: {env}\n")), "{deploy}");
        assert!(deploy.contains(&format!("      group: runway-deploy-{env}\n")), "{deploy}");
        assert!(deploy.contains(&format!("role/runway-deploy-acme-shop-{env}\n")), "{deploy}");
        assert!(deploy.contains(&format!("run: runway deploy --env {env} \"$RUNWAY_FILE\"")), "{deploy}");
    }
    assert!(deploy.contains("  staging:\n    name: deploy staging\n    needs: dev\n"), "{deploy}");
    assert!(deploy.contains("  production:\n    name: deploy production\n    needs: staging\n"), "{deploy}");
    for text in [&pr, &deploy] {
        assert!(text.contains("\npermissions: {}\n"), "no permission at the top: {text}");
        for line in text.lines().filter(|l| l.trim_start().starts_with("uses:")) {
            let pin = line.split('@').nth(1).unwrap_or_default();
            assert!(
                pin.len() > 41
                    && pin[..40].bytes().all(|b| b.is_ascii_hexdigit())
                    && pin[40..].starts_with(" # v"),
                "an action not pinned by its full commit: {line}"
            );
        }
    }
}

/// The venv's `bin/` with the linters tools/requirements.txt pins; fails (never skips) when
/// they are missing, saying how to install them.
fn linter(name: &str) -> PathBuf {
    let bin = test_support::python().parent().unwrap().join(name);
    assert!(bin.exists(), "no {} : run `cargo xtask venv` (tools/requirements.txt pins it)", bin.display());
    bin
}

/// Runs a linter: `(code, stdout + stderr)`. The venv's `bin/` first on `PATH`, so jactionlint
/// finds shellcheck there and checks each `run:` script too.
fn lint(bin: &Path, args: &[&str], files: &[PathBuf]) -> (i32, String) {
    let path = format!("{}:{}", bin.parent().unwrap().display(), std::env::var("PATH").unwrap_or_default());
    let out = Command::new(bin).args(args).args(files).env("PATH", path).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn the_workflows_pass_jactionlint_and_zizmor_which_do_catch_an_injection() {
    let (dir, out) = written("ci-lint");
    let files: Vec<PathBuf> = FILES.iter().map(|f| out.join(f)).collect();
    let actionlint = linter("jactionlint");
    let zizmor = linter("zizmor");
    let shellcheck = linter("shellcheck");
    assert!(shellcheck.exists());
    let (code, text) = lint(&actionlint, &[], &files);
    assert_eq!(code, 0, "jactionlint:\n{text}");
    // Offline: no GitHub API here (the pins are checked against the actions' repositories by
    // the test above and docs/ci.md, not by zizmor's online audits).
    let (code, text) = lint(&zizmor, &["--offline", "--no-progress"], &files);
    assert_eq!(code, 0, "zizmor:\n{text}");

    // The same linters on a step that pastes the pull request's title into a script: both
    // object, so a pass above is theirs, not a linter that checks nothing.
    let pr = std::fs::read_to_string(&files[0]).unwrap();
    let bad = pr.replace(
        "run: runway check \"$RUNWAY_FILE\"",
        "run: echo ${{ github.event.pull_request.title }} $RUNWAY_FILE",
    );
    assert_ne!(bad, pr);
    let bad_file = dir.join("bad.yml");
    std::fs::write(&bad_file, bad).unwrap();
    let (code, text) = lint(&actionlint, &[], std::slice::from_ref(&bad_file));
    assert_ne!(code, 0, "{text}");
    assert!(text.contains("potentially untrusted") && text.contains("SC2086"), "{text}");
    let (code, text) = lint(&zizmor, &["--offline", "--no-progress"], &[bad_file]);
    assert_ne!(code, 0, "{text}");
    assert!(text.contains("template-injection"), "{text}");
}

#[test]
fn a_workflow_that_differs_is_kept_without_force_and_a_rerun_says_unchanged() {
    let (dir, out) = written("ci-force");
    let mut args = vec!["ci", "init", "--provider", "github"];
    args.extend(DOC_FLAGS);
    let (code, stdout, stderr) = runway(&dir, &args);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("unchanged .github/workflows/runway-deploy.yml\n"), "{stdout}");

    let deploy = out.join(FILES[1]);
    std::fs::write(&deploy, "# ours\n").unwrap();
    let (code, stdout, stderr) = runway(&dir, &args);
    assert_eq!(code, 2, "{stdout}");
    assert!(
        stderr.contains(
            ".github/workflows/runway-deploy.yml exists and differs; nothing written (`--force` overwrites)"
        ),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&deploy).unwrap(), "# ours\n");
    // Fewer environments change the pull request's workflow too: both are named, neither written.
    let only_dev = [args.as_slice(), &["--env", "dev"]].concat();
    let (code, _, stderr) = runway(&dir, &only_dev);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("runway-pull-request.yml, .github/workflows/runway-deploy.yml exist and differ"),
        "{stderr}"
    );
    assert!(std::fs::read_to_string(out.join(FILES[0])).unwrap().contains("--env production"));

    let (code, stdout, stderr) = runway(&dir, &[only_dev.as_slice(), &["--force"]].concat());
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("wrote     .github/workflows/runway-deploy.yml\n"), "{stdout}");
    let text = std::fs::read_to_string(&deploy).unwrap();
    assert!(text.contains("environment: dev") && !text.contains("environment: staging"), "{text}");

    let (code, _, stderr) = runway(&dir, &[args.as_slice(), &["--env", "qa"]].concat());
    assert_eq!(code, 2);
    assert!(
        stderr.contains("no environment `qa` in runway.yaml (it declares dev, staging, production)"),
        "{stderr}"
    );
    let (code, _, stderr) =
        runway(&dir, &["ci", "init", "--provider", "github", "--runway-rev", "COMMIT", "../runway.yaml"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("relative to the repository's root"), "{stderr}");
}

#[test]
fn version_names_the_commit_the_binary_was_built_from() {
    let (code, stdout, stderr) = runway(&workspace(), &["--version"]);
    assert_eq!(code, 0, "{stderr}");
    let version = env!("CARGO_PKG_VERSION");
    let head = Command::new("git").args(["rev-parse", "HEAD"]).current_dir(workspace()).output();
    let expected = match head {
        Ok(out) if out.status.success() => String::from_utf8(out.stdout).unwrap().trim().to_owned(),
        // A source tree without git (a tarball): the build script says so rather than failing.
        _ => "unknown".to_owned(),
    };
    assert_eq!(stdout, format!("runway {version} (commit {expected})\n"));
}
