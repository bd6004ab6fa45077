//! The core crates' `clippy.toml`: the same `disallowed-methods` and `disallowed-types` in each,
//! and none of the required entries missing (clippy then holds the "no I/O" invariant).

use std::path::Path;

use super::metadata::CORE_CRATES;
use super::{Rule, Violation};

/// What every core crate's `disallowed-methods` holds at least.
const REQUIRED_METHODS: &[&str] = &[
    "std::fs::read",
    "std::fs::read_to_string",
    "std::fs::read_dir",
    "std::fs::write",
    "std::fs::create_dir_all",
    "std::env::var",
    "std::env::var_os",
    "std::env::vars",
    "std::env::vars_os",
    "std::time::SystemTime::now",
    "std::time::Instant::now",
];

/// What every core crate's `disallowed-types` holds at least.
const REQUIRED_TYPES: &[&str] = &[
    "std::fs::File",
    "std::fs::OpenOptions",
    "std::net::TcpStream",
    "std::net::TcpListener",
    "std::process::Command",
    "std::collections::HashMap",
];

/// One list's entries: (path, reason), in file order.
type Entries = Vec<(String, String)>;

pub(super) fn check(root: &Path, out: &mut Vec<Violation>) {
    let mut first: Option<(String, Entries, Entries)> = None;
    for core in CORE_CRATES {
        let path = format!("crates/{core}/clippy.toml");
        let text = match std::fs::read_to_string(root.join(&path)) {
            Ok(text) => text,
            Err(e) => {
                out.push(violation(&path, format!("cannot read it ({e}): every core crate has one")));
                continue;
            }
        };
        let methods = entries(&text, "disallowed-methods");
        let types = entries(&text, "disallowed-types");
        for (list, have, required) in
            [("disallowed-methods", &methods, REQUIRED_METHODS), ("disallowed-types", &types, REQUIRED_TYPES)]
        {
            for need in required.iter().filter(|need| !have.iter().any(|(p, _)| p == *need)) {
                out.push(violation(
                    &path,
                    format!("`{list}` misses `{need}`: add it (the core does no I/O), in every core crate"),
                ));
            }
        }
        match &first {
            None => first = Some((path, methods, types)),
            Some((first_path, first_methods, first_types)) => {
                for (list, have, want) in [
                    ("disallowed-methods", &methods, first_methods),
                    ("disallowed-types", &types, first_types),
                ] {
                    if have != want {
                        out.push(violation(
                            &path,
                            format!(
                                "`{list}` differs from {first_path}'s ({}): the core crates keep \
                                 the same lists, entries and reasons alike",
                                difference(have, want)
                            ),
                        ));
                    }
                }
            }
        }
    }
}

fn violation(path: &str, message: String) -> Violation {
    Violation { path: path.to_owned(), line: 0, rule: Rule::DisallowedLists, name: String::new(), message }
}

/// What `have` holds beyond `want` and lacks of it, by path (or "order or reasons").
fn difference(have: &Entries, want: &Entries) -> String {
    let extra: Vec<&str> =
        have.iter().filter(|(p, _)| !want.iter().any(|(w, _)| w == p)).map(|(p, _)| p.as_str()).collect();
    let missing: Vec<&str> =
        want.iter().filter(|(w, _)| !have.iter().any(|(p, _)| p == w)).map(|(w, _)| w.as_str()).collect();
    match (extra.is_empty(), missing.is_empty()) {
        (true, true) => "the same paths; the order or reasons differ".to_owned(),
        _ => format!("more: {extra:?}; less: {missing:?}"),
    }
}

/// The `{ path = "…", reason = "…" }` entries of the array `key = [ … ]` (the files' only
/// shape; clippy would refuse a malformed one).
fn entries(text: &str, key: &str) -> Entries {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim();
        if !inside {
            inside = line.starts_with(key) && line.contains('[');
            continue;
        }
        if line.starts_with(']') {
            break;
        }
        if let Some(path) = quoted_value(line, "path") {
            out.push((path, quoted_value(line, "reason").unwrap_or_default()));
        }
    }
    out
}

/// The string after `key = "` up to the next unescaped quote.
fn quoted_value(line: &str, key: &str) -> Option<String> {
    let start = line.find(&format!("{key} = \""))? + key.len() + 4;
    let rest = &line[start..];
    let mut value = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => value.extend(chars.next()),
            '"' => return Some(value),
            c => value.push(c),
        }
    }
    None
}
