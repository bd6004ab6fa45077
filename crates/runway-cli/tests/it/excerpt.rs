#![allow(clippy::unwrap_used)] // reason: test helpers fail loudly
//! Every diagnostic's excerpt shows the line and column its header names, YAML syntax errors
//! included, through the binary's text output.

use std::path::PathBuf;

use crate::common;

/// Broken runways, each with the line the first diagnostic must name.
const CASES: &[(&str, &str, u32)] = &[
    ("unclosed-quote", "# a comment\n# another\nrunway: 3\nproduct: shop\nfoo: \"abc\nbar: 1\n", 5),
    ("bad-indentation", "runway: 3\nproduct: shop\na:\n  b: 1\n c: 2\n", 5),
    ("tab", "runway: 3\nproduct: shop\na:\n\tb: 1\n", 4),
    ("duplicate-key", "runway: 3\nproduct: shop\nproduct: cart\n", 3),
    ("unclosed-flow-sequence", "runway: 3\nproduct: shop\nlist: [a, b\nz: 1\n", 4),
    ("unclosed-flow-mapping", "runway: 3\nproduct: shop\nmap: {a: 1\nz: 1\n", 4),
    ("crlf-and-non-ascii", "runway: 3\r\nproduct: shop\r\nfoo: \"é\r\nbar: 1\r\n", 3),
    ("missing-colon-deep", "runway: 3\nproduct: shop\n\n\n\n\n\n\nenvironments:\n  dev\n  x: 1\n", 11),
    ("stray-dash", "runway: 3\nproduct: shop\n- a\n", 3),
];

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("runway-excerpt-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The `(file:line:column` of each report's header, in order (the header may wrap, so the
/// text is searched whole).
fn headers(out: &str, file: &str) -> Vec<(u32, u32)> {
    let needle = format!("({file}:");
    let mut found = Vec::new();
    let mut rest = out;
    while let Some(i) = rest.find(&needle) {
        rest = &rest[i + needle.len()..];
        let pos: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == ':').collect();
        let mut parts = pos.split(':').map(|n| n.parse::<u32>().unwrap());
        found.push((parts.next().unwrap(), parts.next().unwrap()));
    }
    found
}

/// The line number and marked column of each excerpt, in order: the numbered source row just
/// above the first marker row (`· ┬` or `· ▲`), and the marker's column in that row.
fn excerpts(out: &str) -> Vec<(u32, Option<u32>)> {
    let mut found = Vec::new();
    let mut last_row: Option<u32> = None;
    for line in out.lines() {
        let trimmed = line.trim_start();
        // A source row is `12 │ text`, or `12 │` when the line is empty.
        if let Some(Ok(n)) = trimmed.split_once(" │").map(|(n, _)| n.parse::<u32>()) {
            last_row = Some(n);
            continue;
        }
        if let (Some(marks), Some(n)) = (trimmed.strip_prefix("· "), last_row) {
            last_row = None;
            let column = marks.chars().position(|c| matches!(c, '┬' | '▲' | '─' | '┼'));
            found.push((n, column.map(|c| u32::try_from(c).unwrap() + 1)));
        }
    }
    found
}

#[test]
fn every_excerpt_shows_the_line_and_column_its_header_names() {
    let dir = scratch("all");
    for (i, (name, text, line)) in CASES.iter().enumerate() {
        // A short relative name, so the header does not wrap inside it.
        let path = &format!("case{i}.yaml");
        std::fs::write(dir.join(path), text).unwrap();
        let out = common::Run::of(common::command().current_dir(&dir).args(["check", path]));
        let all = format!("{}{}", out.stdout, out.stderr);
        let heads = headers(&all, path);
        let shown = excerpts(&all);
        assert!(!heads.is_empty(), "{name}: no diagnostic\n{all}");
        assert_eq!(heads.len(), shown.len(), "{name}: one excerpt per diagnostic\n{all}");
        assert!(heads.iter().any(|(l, _)| l == line), "{name}: no diagnostic names line {line}\n{all}");
        for ((l, c), (shown_line, shown_column)) in heads.iter().zip(&shown) {
            assert_eq!(l, shown_line, "{name}: header line {l}, excerpt line {shown_line}\n{all}");
            // miette widens a tab, so columns are compared on lines without one.
            let has_tab = text.lines().nth(*l as usize - 1).is_some_and(|t| t.contains('\t'));
            if let (Some(sc), false) = (shown_column, has_tab) {
                assert_eq!(c, sc, "{name}: header column {c}, excerpt column {sc}\n{all}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The same over every invalid fixture, any code: the diagnostics' lines and columns come from
/// the JSON output (its order is the text's), the excerpts from the text output.
#[test]
fn every_invalid_fixture_excerpt_shows_its_position() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/invalid");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".yaml"))
        .collect();
    names.sort();
    assert!(names.len() > 20, "fixtures not found in {}", dir.display());
    for name in names {
        let text = std::fs::read(dir.join(&name)).unwrap();
        // A file that is not UTF-8, or empty, has no line to show.
        let Ok(text) = String::from_utf8(text) else { continue };
        if text.trim().is_empty() {
            continue;
        }
        let run = |format: &str| {
            let out = common::Run::of(
                common::command().current_dir(&dir).args(["check", "--format", format, &name]),
            );
            format!("{}{}", out.stdout, out.stderr)
        };
        let json: serde_json::Value = serde_json::from_str(run("json").trim()).unwrap();
        let heads: Vec<(u32, u32)> = json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["line"].as_u64().unwrap_or(0) > 0)
            .map(|d| {
                let n = |k: &str| u32::try_from(d[k].as_u64().unwrap()).unwrap();
                (n("line"), n("column"))
            })
            .collect();
        let all = run("text");
        let shown = excerpts(&all);
        // A file that does not say it is a runway file is quoted nowhere (docs/review.md).
        if !text.lines().any(|l| l.starts_with("runway:")) {
            assert!(shown.is_empty() && !heads.is_empty(), "{name}: a foreign file is not quoted\n{all}");
            continue;
        }
        assert_eq!(heads.len(), shown.len(), "{name}: one excerpt per diagnostic\n{all}");
        for ((l, c), (shown_line, shown_column)) in heads.iter().zip(&shown) {
            assert_eq!(l, shown_line, "{name}: diagnostic line {l}, excerpt line {shown_line}\n{all}");
            let has_tab = text.lines().nth(*l as usize - 1).is_some_and(|t| t.contains('\t'));
            if let (Some(sc), false) = (shown_column, has_tab) {
                assert_eq!(c, sc, "{name}: diagnostic column {c}, excerpt column {sc}\n{all}");
            }
        }
    }
}
