#![allow(clippy::unwrap_used)] // reason: test helpers fail loudly
//! Machine output tells the truth: the verdict every command states agrees with its exit code,
//! and `check` reports what `plan` would refuse.

use std::path::PathBuf;

use crate::common::runway;
use test_support::{Scratch, acme_shop_with_dev_cap};

/// Exit code of a plan refused by its cap (or unpriced under a cap).
const EXIT_CAP: i32 = 3;

/// A copy of the example with its root file edited by `edit` (which must change it).
fn example_with(name: &str, edit: impl Fn(&str) -> String) -> (Scratch, PathBuf) {
    // Tests run in parallel in one process: each copy gets its own folder.
    static COPIES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = COPIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = acme_shop_with_dev_cap("200", &format!("{name}-{n}"));
    let root = dir.join("runway.yaml");
    let text = std::fs::read_to_string(&root).unwrap();
    let edited = edit(&text);
    assert_ne!(text, edited, "the edit of {name} changed nothing");
    std::fs::write(&root, edited).unwrap();
    (dir, root)
}

/// One product of the table: its root file, the environment looked at, and that
/// environment's expected verdict.
struct Case {
    _dir: Scratch,
    root: PathBuf,
    env: &'static str,
    verdict: &'static str,
}

fn within() -> Case {
    let (dir, root) = example_with("verdict-within", |t| t.replace("monthly: 200", "monthly: 201"));
    Case { _dir: dir, root, env: "dev", verdict: "within" }
}

fn over() -> Case {
    let (dir, root) = example_with("verdict-over", |t| t.replace("monthly: 200", "monthly: 10"));
    Case { _dir: dir, root, env: "dev", verdict: "over" }
}

/// Dev's topic is FIFO, which the built-in catalogue does not price; the rest is within.
fn unpriced() -> Case {
    let (dir, root) = example_with("verdict-unpriced", |t| {
        t.replacen("    kind: topic\n", "    kind: topic\n    fifo: true\n", 1)
    });
    Case { _dir: dir, root, env: "dev", verdict: "refused-unpriced" }
}

/// Production without its cap.
fn uncapped() -> Case {
    let (dir, root) = example_with("verdict-uncapped", |t| {
        t.replace("    limits:\n      monthly: 2500\n      increase: 200\n", "")
    });
    Case { _dir: dir, root, env: "production", verdict: "uncapped" }
}

fn refuses(verdict: &str) -> bool {
    matches!(verdict, "over" | "refused-unpriced")
}

fn codes(stdout: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap();
    v["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn check_reports_what_plan_would_refuse() {
    for case in [within(), over(), unpriced(), uncapped()] {
        let root = case.root.to_str().unwrap();
        let (plan_code, _, plan_err) = runway(&["plan", "--env", case.env, root]);
        let (code, out, _) = runway(&["check", root]);
        assert_eq!(code, plan_code, "{}: check and plan disagree\n{out}\n{plan_err}", case.verdict);
        let (json_code, json, _) = runway(&["check", "--format", "json", root]);
        assert_eq!(json_code, plan_code, "{}: {json}", case.verdict);
        let codes = codes(&json);
        match case.verdict {
            "over" => assert!(codes.contains(&"cap-exceeded".to_owned()), "{codes:?}"),
            "refused-unpriced" => assert!(codes.contains(&"unpriced".to_owned()), "{codes:?}"),
            _ => assert!(codes.is_empty(), "{}: {codes:?}", case.verdict),
        }
        if refuses(case.verdict) {
            assert_eq!(code, EXIT_CAP);
            // The same diagnostics as `plan`'s, and the same refusal line.
            for c in &codes {
                assert!(plan_err.contains(c.as_str()), "plan does not report {c}: {plan_err}");
            }
            let line = format!(
                "refused: the dev plan of acme-shop {}",
                match case.verdict {
                    "over" => "is over its cap (verdict over, refused)",
                    _ => "has unpriced items under its cap (verdict refused-unpriced)",
                }
            );
            assert!(out.contains(&line), "{out}");
            assert!(plan_err.contains(&line), "{plan_err}");
            assert!(!out.contains(": ok"), "{out}");
        } else {
            assert_eq!(code, 0, "{out}");
            assert!(out.trim_end().ends_with(": ok"), "{out}");
        }
    }
}

/// Every command that takes `--format json`, on `root` (its JSON form).
fn json_commands(root: &str, base: &str) -> Vec<Vec<String>> {
    let cmds: [&[&str]; 10] = [
        &["check", root],
        &["graph", "--env", "dev", root],
        &["emit", "pulumi", "--env", "dev", "--out", "never-written", root],
        &["plan", "--env", "dev", root],
        &["cost", root],
        &["diff", "--env", "dev", "--base", base, root],
        &["diff", "--base", base, root],
        &["secrets", "prepare", "--env", "dev", "--dry-run", root],
        &["ssm", "publish", "--env", "dev", "--dry-run", root],
        &["ssm", "verify", "--env", "dev", root],
    ];
    cmds.iter()
        .map(|c| {
            c.iter().map(|s| (*s).to_owned()).chain(["--format".to_owned(), "json".to_owned()]).collect()
        })
        .collect()
}

#[test]
fn invalid_input_prints_the_check_shape_on_stdout_for_every_json_command() {
    let invalid = test_support::workspace().join("tests/fixtures/invalid/missing-field.yaml");
    let invalid = invalid.to_str().unwrap();
    let (code, expected, _) = runway(&["check", "--format", "json", invalid]);
    assert_eq!(code, 1);
    assert!(!codes(&expected).is_empty(), "{expected}");
    let valid = within();
    let valid = valid.root.to_str().unwrap();
    // The runway invalid, and (for `diff`) the base invalid.
    let mut runs = json_commands(invalid, valid);
    runs.extend(json_commands(invalid, invalid).into_iter().filter(|c| c[0] == "diff"));
    for args in runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = runway(&args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert_eq!(out, expected, "{args:?} does not print the check shape on stdout\n{err}");
    }
    // An invalid catalogue file, likewise.
    let dir = test_support::scratch("verdict-bad-catalogue");
    let bad = dir.join("catalogue.yaml");
    std::fs::write(&bad, "sizes: [not, a, mapping]\n").unwrap();
    for cmd in [&["catalogue"][..], &["check", valid], &["plan", "--env", "dev", valid], &["cost", valid]] {
        let mut args = cmd.to_vec();
        args.extend(["--format", "json", "--catalogue", bad.to_str().unwrap()]);
        let (code, out, err) = runway(&args);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(!codes(&out).is_empty(), "{args:?}: {out}\n{err}");
    }
}

/// The exit code a verdict gives.
fn exit_of(verdict: &str) -> i32 {
    if refuses(verdict) { EXIT_CAP } else { 0 }
}

/// The environment's entry of a JSON list of `{"name", ...}`.
fn named<'a>(list: &'a serde_json::Value, env: &str) -> &'a serde_json::Value {
    list.as_array().unwrap().iter().find(|e| e["name"] == env).unwrap()
}

#[test]
fn every_command_and_format_states_the_verdict_its_exit_code_reflects() {
    for case in [within(), over(), unpriced(), uncapped()] {
        let (root, env, verdict) = (case.root.to_str().unwrap(), case.env, case.verdict);
        let expect = exit_of(verdict);
        let run = |args: &[&str]| {
            let (code, out, err) = runway(args);
            assert_eq!(code, expect, "{verdict}: {args:?}\n{out}\n{err}");
            out
        };

        let plan: serde_json::Value =
            serde_json::from_str(&run(&["plan", "--env", env, "--format", "json", root])).unwrap();
        assert_eq!(plan["cost"]["verdict"], verdict);
        assert_eq!(plan["cost"]["refused"], refuses(verdict));
        let text = run(&["plan", "--env", env, root]);
        assert_eq!(text.contains(": REFUSED"), refuses(verdict), "{verdict}: {text}");

        let cost: serde_json::Value =
            serde_json::from_str(&run(&["cost", "--format", "json", root])).unwrap();
        let entry = named(&cost["environments"], env);
        assert_eq!(entry["verdict"], verdict);
        assert_eq!(entry["refused"], refuses(verdict));
        let text = run(&["cost", root]);
        let row = text.lines().find(|l| l.split_whitespace().next() == Some(env)).unwrap();
        let column = row.split_whitespace().nth(5).unwrap().trim_end_matches(',');
        assert_eq!(column, verdict, "{row}");

        run(&["check", root]);
        run(&["check", "--format", "json", root]);

        // The review of the runway against itself.
        let review: serde_json::Value =
            serde_json::from_str(&run(&["diff", "--base", root, "--format", "json", root])).unwrap();
        let after = &named(&review["environments"], env)["after"];
        assert_eq!(after["verdict"], verdict);
        assert_eq!(after["refused"], refuses(verdict));
        let text = run(&["diff", "--base", root, root]);
        let line = text.lines().find(|l| l.starts_with(&format!("{env}: "))).unwrap();
        assert!(line.contains(&format!(": {verdict}")), "{line}");
        let markdown = run(&["diff", "--base", root, "--format", "markdown", root]);
        let row = markdown.lines().find(|l| l.starts_with(&format!("| {env} |"))).unwrap();
        assert!(row.contains(&format!("| {verdict}")), "{row}");

        // Emit writes only what is not refused, and says what it wrote.
        let out = case._dir.join("pulumi");
        run(&["emit", "pulumi", "--env", env, "--out", out.to_str().unwrap(), root]);
        assert_eq!(out.join("Pulumi.yaml").exists(), !refuses(verdict));
        let json_out = case._dir.join("pulumi-json");
        let emitted: serde_json::Value = serde_json::from_str(&run(&[
            "emit",
            "pulumi",
            "--env",
            env,
            "--out",
            json_out.to_str().unwrap(),
            "--format",
            "json",
            root,
        ]))
        .unwrap();
        assert_eq!(emitted["verdict"], verdict);
        assert_eq!(emitted["refused"], refuses(verdict));
        let wrote = emitted["wrote"].as_array().unwrap();
        assert_eq!(wrote.is_empty(), refuses(verdict), "{emitted}");
        for path in wrote {
            assert!(std::path::Path::new(path.as_str().unwrap()).exists(), "{path}");
        }

        // The deploy-job commands refuse before any remote call; as JSON they say why.
        if refuses(verdict) {
            for cmd in [&["secrets", "prepare"][..], &["ssm", "publish"]] {
                let mut args = cmd.to_vec();
                args.extend(["--env", env, "--dry-run", "--format", "json", root]);
                let refusal: serde_json::Value = serde_json::from_str(&run(&args)).unwrap();
                assert_eq!(refusal["verdict"], verdict, "{args:?}");
                assert_eq!(refusal["refused"], true, "{args:?}");
            }
        }
    }
}

#[test]
fn graph_json_is_the_graphs_nodes_and_edges() {
    let case = within();
    let root = case.root.to_str().unwrap();
    let (code, out, err) = runway(&["graph", "--env", "dev", "--format", "json", root]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let nodes = v["nodes"].as_array().unwrap();
    let edges = v["edges"].as_array().unwrap();
    assert!(!nodes.is_empty() && !edges.is_empty());
    let ids: Vec<&str> = nodes.iter().map(|n| n["id"].as_str().unwrap()).collect();
    for e in edges {
        assert!(
            ids.contains(&e["from"].as_str().unwrap()) && ids.contains(&e["to"].as_str().unwrap()),
            "{e}"
        );
    }
    // As many edges as the dot output draws.
    let (_, dot, _) = runway(&["graph", "--env", "dev", "--format", "dot", root]);
    assert_eq!(dot.matches(" -> ").count(), edges.len());
    // Invalid input: the check shape on stdout.
    let invalid = test_support::workspace().join("tests/fixtures/invalid/missing-field.yaml");
    let (code, out, _) = runway(&["graph", "--env", "dev", "--format", "json", invalid.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(!codes(&out).is_empty(), "{out}");
}

#[test]
fn schema_accepts_format_json() {
    let (code, out, err) = runway(&["schema", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let (_, plain, _) = runway(&["schema"]);
    assert_eq!(out, plain);
    let _: serde_json::Value = serde_json::from_str(&out).unwrap();
}

/// A usage failure (exit 2) of a JSON command still prints JSON on stdout: the error and its
/// exit code.
#[test]
fn usage_failures_print_json_for_json_commands() {
    let root = test_support::example("acme-shop").join("runway.yaml");
    let root = root.to_str().unwrap();
    for args in [
        vec!["plan", "--env", "nope", "--format", "json", root],
        vec!["cost", "--format", "json", "/nonexistent/runway.yaml"],
        vec!["graph", "--env", "nope", "--format", "json", root],
    ] {
        let (code, stdout, stderr) = runway(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        let json: serde_json::Value =
            serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"));
        assert_eq!(json["error"]["exit"], 2, "{args:?}: {stdout}");
        let message = json["error"]["message"].as_str().unwrap();
        assert!(stderr.contains(message), "{args:?}: stderr and JSON differ: {stderr} / {message}");
    }
    let (code, stdout, _) = runway(&["plan", "--env", "nope", root]);
    assert_eq!((code, stdout.as_str()), (2, ""), "text commands keep stdout for results");
}
