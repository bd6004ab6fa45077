#![allow(clippy::unwrap_used)] // reason: test helpers fail loudly
//! `runway diff --base-ref` through the binary, on a git repository the test makes (two
//! commits of the shipped example): golden markdown, exit codes and the error cases.

use std::path::{Path, PathBuf};

use crate::common;

use crate::common::{edit, git};

fn runway_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    common::Run::of(common::repo_command(dir).args(args)).parts()
}

/// A fresh folder `<tmp>/runway-review-<tag>-<pid>/` holding a repository `repo/` with the
/// example under `app/`: a first commit as shipped, a second that renames `sessions`, drops
/// `reporting`'s use of main-db and removes `jobs`' dead-letter queue. The work tree is then
/// edited per `work` (uncommitted).
fn repo(tag: &str) -> PathBuf {
    let top = std::env::temp_dir().join(format!("runway-review-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&top);
    let dir = top.join("repo");
    test_support::copy_dir(&test_support::example("acme-shop"), &dir.join("app"));
    git(&dir, &["init", "-q", "-b", "main"]);
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "as shipped"]);
    let app = dir.join("app");
    edit(&app.join("runway.yaml"), "  sessions:\n", "  user-sessions:\n");
    edit(&app.join("runway.yaml"), "    deadLetter: { maxReceives: 5 }\n", "");
    edit(&app.join("services/orders/runway.yaml"), "[events, sessions]", "[events, user-sessions]");
    edit(&app.join("tools/reporting/runway.yaml"), "[main-db, uploads]", "[uploads]");
    git(&dir, &["commit", "-q", "-a", "-m", "rename sessions"]);
    dir
}

fn done(dir: &Path) {
    std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
}

#[test]
fn golden_markdown_of_the_last_commit() {
    let dir = repo("golden");
    let (code, out, err) =
        runway_in(&dir, &["diff", "--base-ref", "HEAD~1", "--format", "markdown", "app/runway.yaml"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("review-head-1.md", out);
    // Deterministic: the same command prints the same bytes.
    assert_eq!(
        runway_in(&dir, &["diff", "--base-ref", "HEAD~1", "--format", "markdown", "app/runway.yaml"]).1,
        out
    );
    done(&dir);
}

#[test]
fn a_revision_against_itself_is_empty() {
    let dir = repo("same");
    let (code, out, err) =
        runway_in(&dir, &["diff", "--base-ref", "HEAD", "--format", "json", "app/runway.yaml"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let envs = v["environments"].as_array().unwrap();
    assert_eq!(envs.len(), 3);
    for e in envs {
        assert_eq!(e["items"].as_array().unwrap().len(), 0, "{e}");
        assert_eq!(e["breaking"].as_array().unwrap().len(), 0, "{e}");
        assert_eq!(e["delta"], "0.00");
    }
    // From inside the root's folder, with the default FILE, and one environment.
    let (code, out, _) = runway_in(&dir.join("app"), &["diff", "--base-ref", "main", "--env", "dev"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("review of acme-shop against main\ndev: "), "{out}");
    assert!(out.contains("no item changes"), "{out}");
    done(&dir);
}

#[test]
fn json_carries_cost_items_and_breaking_per_environment() {
    let dir = repo("json");
    let (code, out, _) =
        runway_in(&dir, &["diff", "--base-ref", "HEAD~1", "--format", "json", "app/runway.yaml"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["product"].as_str(), v["base"].as_str()), (Some("acme-shop"), Some("HEAD~1")));
    let dev = &v["environments"][0];
    for key in ["name", "before", "after", "delta", "items", "breaking"] {
        assert!(dev.get(key).is_some(), "missing {key}: {dev}");
    }
    for key in ["monthly", "ceiling", "cap", "verdict", "refused"] {
        assert!(dev["after"].get(key).is_some(), "missing after.{key}");
    }
    let causes: Vec<&str> =
        dev["breaking"].as_array().unwrap().iter().map(|b| b["cause"].as_str().unwrap()).collect();
    // pdf-render and the worker jobs-worker lose JOBS_DLQ_URL, orders its sessions, reporting main-db.
    assert_eq!(causes, ["variables-dropped", "variables-dropped", "resource-renamed", "use-dropped"]);
    let consumers: Vec<&str> =
        dev["breaking"].as_array().unwrap().iter().map(|b| b["consumer"].as_str().unwrap()).collect();
    assert_eq!(consumers, ["pdf-render", "jobs-worker", "orders", "reporting"]);
    done(&dir);
}

#[test]
fn exit_3_when_the_working_version_is_over_its_cap() {
    let dir = repo("cap");
    edit(&dir.join("app/runway.yaml"), "monthly: 200", "monthly: 10");
    let (code, out, err) =
        runway_in(&dir, &["diff", "--base-ref", "HEAD", "--format", "markdown", "app/runway.yaml"]);
    assert_eq!(code, 3, "{err}");
    assert!(out.contains("| dev | $170.65 | $170.65 | $0.00 | $10.00 | over, refused |"), "{out}");
    assert!(err.contains("refused: the dev plan of acme-shop"), "{err}");
    done(&dir);
}

/// A change that raises dev by more than its `limits.increase: 10%` but stays under the cap is
/// a warning in every format and exit 0; the golden markdown shows it.
#[test]
fn a_rise_over_limits_increase_warns_and_exits_0() {
    let dir = repo("increase");
    // Dev's cap at $250 in the base: the example's $200 is $17.72 above dev's ceiling (the worker
    // at its max), less than this rise.
    edit(&dir.join("app/runway.yaml"), "monthly: 200", "monthly: 250");
    git(&dir, &["commit", "-q", "-a", "-m", "a higher cap"]);
    // pdf-render medium in dev: +$21.63 on $170.65, over 10% ($17.07), under the $250 cap.
    edit(
        &dir.join("app/runway.yaml"),
        "    uses: [jobs, uploads]\n",
        "    uses: [jobs, uploads]\n    size: { dev: medium }\n",
    );
    let diff = |format: &str| {
        runway_in(&dir, &["diff", "--base-ref", "HEAD", "--format", format, "app/runway.yaml"])
    };
    let (code, md, err) = diff("markdown");
    assert_eq!(code, 0, "{err}");
    assert!(md.contains("> [!WARNING]\n> `dev`: this change raises the estimate by +$"), "{md}");
    insta::assert_snapshot!("review-increase.md", md);
    let (code, text, _) = diff("text");
    assert_eq!(code, 0);
    assert!(
        text.contains("  warning: the rise is over its limit `limits.increase: 10%` ($17.07 a month)"),
        "{text}"
    );
    let (code, json, _) = diff("json");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        v["environments"][0]["increase"],
        serde_json::json!({"limit": "10%", "allowed": "17.07", "over": true})
    );
    assert_eq!(v["environments"][2]["increase"]["over"], false, "production is within its $200");
    // The base's limit applies: raising it in the same change does not silence the warning.
    edit(&dir.join("app/runway.yaml"), "increase: 10%", "increase: 50%");
    assert!(diff("markdown").1.contains("[!WARNING]"));
    // Once the new limit is in the base, the same rise is within it: no warning (the cap
    // raised with it, so the larger pdf-render stays under it).
    edit(&dir.join("app/runway.yaml"), "monthly: 250", "monthly: 300");
    git(&dir, &["commit", "-q", "-a", "-m", "a higher limit"]);
    edit(&dir.join("app/runway.yaml"), "size: { dev: medium }", "size: { dev: large }");
    git(&dir, &["commit", "-q", "-a", "-m", "a larger pdf-render"]);
    let (code, md, _) =
        runway_in(&dir, &["diff", "--base-ref", "HEAD~1", "--format", "markdown", "app/runway.yaml"]);
    assert_eq!(code, 0);
    assert!(
        !md.contains("[!WARNING]")
            && md.contains("Rise limit (`limits.increase: 50%`, $96.14 a month): within."),
        "{md}"
    );
    done(&dir);
}

#[test]
fn exit_1_when_the_working_version_or_the_base_is_invalid() {
    let dir = repo("invalid");
    edit(&dir.join("app/services/orders/runway.yaml"), "[events, user-sessions]", "[events, nowhere]");
    let (code, _, err) = runway_in(&dir, &["diff", "--base-ref", "HEAD", "app/runway.yaml"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("nowhere"), "{err}");
    // Commit the broken version: now the base is invalid and the work tree is fixed.
    git(&dir, &["commit", "-q", "-a", "-m", "broken"]);
    edit(&dir.join("app/services/orders/runway.yaml"), "[events, nowhere]", "[events, user-sessions]");
    let (code, _, err) = runway_in(&dir, &["diff", "--base-ref", "HEAD", "app/runway.yaml"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("the base runway at HEAD is invalid"), "{err}");
    assert!(err.contains(":app/services/orders/runway.yaml"), "names the file in the commit: {err}");
    done(&dir);
}

#[test]
fn exit_2_for_an_unknown_revision_a_file_outside_git_and_bad_flags() {
    let dir = repo("usage");
    let (code, _, err) = runway_in(&dir, &["diff", "--base-ref", "no-such-branch", "app/runway.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown revision `no-such-branch`"), "{err}");
    let (code, _, err) = runway_in(&dir, &["diff", "--base-ref=--all", "app/runway.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown revision `--all`"), "an option-like revision is a revision: {err}");
    let outside = dir.parent().unwrap().join("outside");
    test_support::copy_dir(&test_support::example("acme-shop"), &outside);
    let (code, _, err) = runway_in(&outside, &["diff", "--base-ref", "HEAD"]);
    assert_eq!(code, 2);
    assert!(err.contains("is not inside a git repository"), "{err}");
    let (code, _, _) = runway_in(&dir, &["diff", "app/runway.yaml"]);
    assert_eq!(code, 2, "neither --base nor --base-ref");
    let (code, _, _) =
        runway_in(&dir, &["diff", "--base", "app/runway.yaml", "--base-ref", "HEAD", "app/runway.yaml"]);
    assert_eq!(code, 2, "both");
    let (code, _, err) = runway_in(&dir, &["diff", "--base-ref", "HEAD", "--env", "prod", "app/runway.yaml"]);
    assert_eq!(code, 2);
    assert!(err.contains("production"), "suggests a declared name: {err}");
    done(&dir);
}

#[test]
fn a_file_new_in_the_work_tree_makes_every_environment_new() {
    let dir = repo("new-file");
    std::fs::rename(dir.join("app"), dir.join("app2")).unwrap();
    let (code, out, err) =
        runway_in(&dir, &["diff", "--base-ref", "HEAD", "--format", "json", "app2/runway.yaml"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("does not exist at HEAD"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["environments"].as_array().unwrap().iter().all(|e| e["before"].is_null()));
    done(&dir);
}

#[test]
fn base_file_keeps_its_plan_diff_and_reviews_without_env() {
    let dir = repo("base-file");
    let old = dir.parent().unwrap().join("old");
    test_support::copy_dir(&test_support::example("acme-shop"), &old);
    let old_root = old.join("runway.yaml");
    let old_root = old_root.to_str().unwrap();
    // With --env and text or JSON: the plan diff, as before.
    let (code, out, _) = runway_in(&dir, &["diff", "--env", "dev", "--base", old_root, "app/runway.yaml"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("diff of acme-shop / dev\n"), "{out}");
    let (code, out, _) =
        runway_in(&dir, &["diff", "--env", "dev", "--format", "json", "--base", old_root, "app/runway.yaml"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["environment"], "dev");
    // Without --env, or as markdown: the review.
    let (code, out, _) =
        runway_in(&dir, &["diff", "--base", old_root, "--format", "markdown", "app/runway.yaml"]);
    assert_eq!(code, 0);
    assert!(out.contains("#### production") && out.contains("resource renamed to `user-sessions`"), "{out}");
    done(&dir);
}
