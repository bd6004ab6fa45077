#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: test helpers fail loudly on broken fixtures
//! Fixture-driven tests of `runway check`: every file under `tests/fixtures/valid` gives no
//! diagnostic, every one under `warnings` only warnings, every one under `invalid` exits 1 with
//! the code its name starts with.
//!
//! Each fixture is snapshotted once. Its diagnostics are runway-schema's snapshots
//! (`crates/runway-schema/tests/fixtures.rs`), which the binary's JSON must equal; the binary's
//! text must name each diagnostic's code in that order and end with its count. The binary's own
//! rendering (text and JSON) is snapshotted here for [`RENDERED`] only, and for the
//! `catalogue-file` fixtures, whose diagnostics come from the catalogue the binary reads.

use crate::common;

use test_support::workspace;

/// The fixtures whose rendering is snapshotted here, one of each shape: one error with its
/// excerpt, many at once, a file not shown (not UTF-8), a member of a folder fixture, a warning.
const RENDERED: [&str; 5] = [
    "invalid/duplicate-key",
    "invalid/several--many-errors-at-once",
    "invalid/yaml-syntax--invalid-utf8",
    "invalid/member-missing",
    "warnings/missing-infisical",
];

/// Whether the binary's rendering of `category/name` is snapshotted here.
fn rendered(category: &str, name: &str) -> bool {
    RENDERED.contains(&format!("{category}/{name}").as_str()) || expected_code(name) == "catalogue-file"
}

/// The diagnostics runway-schema's fixture test snapshotted for the fixture whose root is `rel`
/// (`tests/fixtures/<category>/<name>.yaml` or `.../<name>/runway.yaml`).
fn library_golden(rel: &str) -> serde_json::Value {
    let suffix = format!("@{}.snap", rel.trim_start_matches("tests/fixtures/").replace('/', "__"));
    serde_json::from_str(&test_support::golden("runway-schema", &suffix)).unwrap()
}

/// The binary's rendering of a fixture not in [`RENDERED`]: its JSON diagnostics are
/// runway-schema's snapshot, and its text names each code on a line of its own, in order, and
/// ends with the counts.
fn assert_rendered_like_the_library(name: &str, rel: &str, diags: &[serde_json::Value], text: &str) {
    assert_eq!(serde_json::Value::Array(diags.to_vec()), library_golden(rel), "{name}: the JSON");
    let codes: Vec<&str> = diags.iter().map(|d| d["code"].as_str().unwrap()).collect();
    let lines: Vec<&str> = text.lines().filter(|l| codes.contains(l)).collect();
    assert_eq!(lines, codes, "{name}: each code heads its diagnostic, in order\n{text}");
    let count = |severity: &str| diags.iter().filter(|d| d["severity"] == severity).count();
    let plural = |n: usize, what: &str| if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") };
    let summary =
        format!("{rel}: {}, {}", plural(count("error"), "error"), plural(count("warning"), "warning"));
    assert_eq!(text.lines().last(), Some(summary.as_str()), "{name}\n{text}");
}

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
        if rendered("warnings", &name) {
            insta::assert_snapshot!(format!("warnings__{name}__text"), text);
            insta::assert_snapshot!(format!("warnings__{name}__json"), json);
        } else {
            assert_rendered_like_the_library(&name, &rel, &diags, &text);
        }
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
        if rendered("invalid", name) {
            insta::assert_snapshot!(format!("invalid__{name}__text"), text);
            insta::assert_snapshot!(format!("invalid__{name}__json"), json);
        } else {
            assert_rendered_like_the_library(name, rel, &diags, &text);
        }
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
