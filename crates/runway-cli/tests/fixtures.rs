#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: test helpers fail loudly on broken fixtures
//! Fixture-driven tests of `runway check`: every file under `tests/fixtures/valid` gives no
//! diagnostic, every one under `warnings` only warnings, every one under `invalid` exits 1 with
//! the code its name starts with; the rendered text and JSON of each are snapshotted.

mod common;

use test_support::workspace;

/// `(name, path of the root file relative to the workspace)` of each fixture in a folder.
fn fixtures(category: &str) -> Vec<(String, String)> {
    let dir = workspace().join("tests/fixtures").join(category);
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().trim_end_matches(".yaml").to_owned();
        let rel = if path.is_dir() {
            format!("tests/fixtures/{category}/{name}/runway.yaml")
        } else {
            format!("tests/fixtures/{category}/{name}.yaml")
        };
        out.push((name, rel));
    }
    out.sort();
    out
}

struct Run {
    code: i32,
    stdout: String,
}

fn runway(args: &[&str]) -> Run {
    let run = common::Run::of(common::command().args(args).current_dir(workspace()));
    Run { code: run.code, stdout: run.stdout }
}

fn json_diagnostics(rel: &str) -> (i32, Vec<serde_json::Value>, String) {
    let run = runway(&["check", "--format", "json", rel]);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    (run.code, v["diagnostics"].as_array().unwrap().clone(), run.stdout)
}

/// The code a fixture's name promises: the part before `--`.
fn expected_code(name: &str) -> &str {
    name.split("--").next().unwrap()
}

#[test]
fn valid_fixtures_give_no_diagnostic() {
    let all = fixtures("valid");
    assert!(all.len() >= 2);
    for (name, rel) in all {
        let (code, diags, _) = json_diagnostics(&rel);
        assert_eq!(code, 0, "{name}: {diags:#?}");
        assert!(diags.is_empty(), "{name}: {diags:#?}");
    }
}

#[test]
fn example_is_valid() {
    let run = runway(&["check", "examples/acme-shop/runway.yaml"]);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

#[test]
fn warning_fixtures_exit_zero_with_their_warning() {
    for (name, rel) in fixtures("warnings") {
        let (code, diags, json) = json_diagnostics(&rel);
        assert_eq!(code, 0, "{name}");
        assert!(diags.iter().all(|d| d["severity"] == "warning"), "{name}: {diags:#?}");
        assert!(diags.iter().any(|d| d["code"] == expected_code(&name)), "{name}: {diags:#?}");
        let text = runway(&["check", &rel]).stdout;
        insta::assert_snapshot!(format!("warnings__{name}__text"), text);
        insta::assert_snapshot!(format!("warnings__{name}__json"), json);
    }
}

#[test]
fn invalid_fixtures_exit_one_with_their_code_at_a_position() {
    let all = fixtures("invalid");
    for (name, rel) in &all {
        let (code, diags, json) = json_diagnostics(rel);
        assert_eq!(code, 1, "{name}: {diags:#?}");
        assert!(diags.iter().any(|d| d["severity"] == "error"), "{name}");
        let want = expected_code(name);
        if want != "several" {
            assert!(diags.iter().any(|d| d["code"] == want), "{name}: expected `{want}` in {diags:#?}");
        }
        for d in &diags {
            assert!(d["line"].as_u64().unwrap() >= 1 && d["column"].as_u64().unwrap() >= 1, "{name}: {d}");
            assert!(d["file"].as_str().unwrap().ends_with(".yaml"), "{name}: {d}");
        }
        let text = runway(&["check", rel]).stdout;
        insta::assert_snapshot!(format!("invalid__{name}__text"), text);
        insta::assert_snapshot!(format!("invalid__{name}__json"), json);
    }
    // Every file-format code of spec section 8 has a fixture; `too-many-members` needs 10,001
    // folders, so runway-schema's `a_glob_over_the_member_bound_reads_none` covers it instead;
    // `unreachable-image`, like the cost codes, comes from planning (runtime-plan's tests).
    let format_codes = runway_schema::Code::ALL.iter().filter(|c| {
        !matches!(
            c,
            runway_schema::Code::Unpriced
                | runway_schema::Code::CapExceeded
                | runway_schema::Code::Uncapped
                | runway_schema::Code::TooManyMembers
                | runway_schema::Code::UnreachableImage
        )
    });
    let warnings = fixtures("warnings");
    for c in format_codes {
        let covered = all.iter().chain(&warnings).any(|(n, _)| expected_code(n) == c.as_str());
        assert!(covered, "no fixture for `{c}`");
    }
}

#[test]
fn several_errors_are_reported_at_once() {
    let (_, diags, _) = json_diagnostics("tests/fixtures/invalid/several--many-errors-at-once.yaml");
    assert!(diags.len() >= 8, "{diags:#?}");
}

#[test]
fn usage_errors_exit_two() {
    assert_eq!(runway(&["check", "--format", "yaml"]).code, 2);
    assert_eq!(runway(&["check", "does/not/exist.yaml"]).code, 2);
    assert_eq!(runway(&["no-such-command"]).code, 2);
}
