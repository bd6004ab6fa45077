//! `cargo xtask tidy`: the house rules as a test (ARCHITECTURE.md, "Invariants" and
//! "Boundaries"). Each rule lists every violation with its place and what to do; the few known
//! ones wait in [`ALLOWED`], which may only shrink: an entry that no longer violates fails too.
//!
//! Also run by `cargo test --workspace` (the test at the bottom) and as a stage of
//! `cargo xtask ci`.

mod api;
mod boundaries;
mod circles;
mod clippy;
mod metadata;
mod sizes;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

use crate::root;

/// A rule of the house, as the tidy test names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Rule {
    /// A source file over [`MAX_FILE_LINES`] lines.
    FileLines,
    /// A function over [`MAX_FN_LINES`] lines.
    FnLines,
    /// Modules of one crate that use each other, directly or around a circle.
    ModuleCircle,
    /// An I/O crate in a core crate's normal dependency tree.
    IoDependency,
    /// The core crates' `clippy.toml` disallowed lists differ or miss an entry.
    DisallowedLists,
    /// A workspace crate without a `description`.
    Description,
    /// A dependency, an environment read or a file opened across ARCHITECTURE.md's boundaries.
    Boundary,
    /// The aws-adapter's public API changed without docs/aws.md.
    AwsApiDocs,
    /// A file that cannot be read or parsed, or a command that failed.
    Unreadable,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rule::FileLines => "file-lines",
            Rule::FnLines => "fn-lines",
            Rule::ModuleCircle => "module-circle",
            Rule::IoDependency => "io-dependency",
            Rule::DisallowedLists => "disallowed-lists",
            Rule::Description => "description",
            Rule::Boundary => "boundary",
            Rule::AwsApiDocs => "aws-api-docs",
            Rule::Unreadable => "unreadable",
        })
    }
}

/// The most lines a source file may have.
pub(crate) const MAX_FILE_LINES: usize = 800;
/// The most lines a function may have, from `fn` to its closing brace.
pub(crate) const MAX_FN_LINES: usize = 150;

/// One broken rule: where, which rule, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Violation {
    /// The file, relative to the workspace root.
    pub(crate) path: String,
    /// 1-based; 0 when the rule is about the whole file.
    pub(crate) line: usize,
    pub(crate) rule: Rule,
    /// What the allowlist matches besides path and rule (a function's name), or empty.
    pub(crate) name: String,
    /// What is wrong and what to do, possibly on several lines.
    pub(crate) message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}: [{}] {}", self.path, self.line, self.rule, self.message)
        } else {
            write!(f, "{}: [{}] {}", self.path, self.rule, self.message)
        }
    }
}

/// A violation known and waiting for the issue-45 item that removes it.
struct Allowed {
    path: &'static str,
    rule: Rule,
    /// A function's name for [`Rule::FnLines`], else empty.
    name: &'static str,
    /// The issue-45 item that removes it.
    item: &'static str,
}

/// The known violations. Each is removed with the work named; the test fails when one no longer
/// violates, so that the list only shrinks (delete the entry then).
const ALLOWED: &[Allowed] = &[];

/// `cargo xtask tidy [--bless] [--verbose]`: checks every rule; `--bless` first records the
/// aws-adapter's API hash in docs/aws.md (after the docs say what changed); `--verbose` also
/// lists the allowed violations.
pub(crate) fn tidy(args: &[String]) -> Result<(), String> {
    let started = Instant::now();
    let mut verbose = false;
    for arg in args {
        match arg.as_str() {
            "--bless" => api::bless(&root())?,
            "--verbose" => verbose = true,
            other => {
                return Err(format!(
                    "unknown argument `{other}` (usage: cargo xtask tidy [--bless] [--verbose])"
                ));
            }
        }
    }
    let found = all_violations(&root());
    let violations = judge(&found);
    let elapsed = started.elapsed();
    if verbose {
        for v in &found {
            if let Some(entry) = allowed(v) {
                eprintln!("allowed until {}: {v}", entry.item);
            }
        }
    }
    for v in &violations {
        eprintln!("{v}");
    }
    if violations.is_empty() {
        eprintln!("tidy: every rule holds ({} ms)", elapsed.as_millis());
        Ok(())
    } else {
        Err(format!("{} violation(s) of the house rules ({} ms)", violations.len(), elapsed.as_millis()))
    }
}

/// Every violation not allowed, and every allowlist entry that no longer violates, sorted.
#[cfg(test)]
fn check(root: &Path) -> Vec<Violation> {
    judge(&all_violations(root))
}

/// What of `found` the allowlist does not excuse, and its stale entries.
fn judge(found: &[Violation]) -> Vec<Violation> {
    let mut out: Vec<Violation> = found.iter().filter(|v| allowed(v).is_none()).cloned().collect();
    for entry in ALLOWED {
        if !found.iter().any(|v| matches(entry, v)) {
            out.push(Violation {
                path: entry.path.to_owned(),
                line: 0,
                rule: entry.rule,
                name: entry.name.to_owned(),
                message: format!(
                    "allowed in xtask/src/tidy/mod.rs ({}) but no longer a violation: \
                     delete its entry from ALLOWED",
                    entry.item
                ),
            });
        }
    }
    out.sort();
    out
}

fn allowed(v: &Violation) -> Option<&'static Allowed> {
    ALLOWED.iter().find(|entry| matches(entry, v))
}

fn matches(entry: &Allowed, v: &Violation) -> bool {
    entry.path == v.path && entry.rule == v.rule && entry.name == v.name
}

/// Every violation, allowed or not.
fn all_violations(root: &Path) -> Vec<Violation> {
    PARSED.with(|cache| cache.borrow_mut().clear());
    let mut out = Vec::new();
    let files = rust_files(root, &mut out);
    sizes::check(root, &files, &mut out);
    match metadata::Metadata::read(root) {
        Ok(meta) => {
            circles::check(root, &meta, &mut out);
            meta.check_io_dependencies(&mut out);
            meta.check_descriptions(root, &mut out);
            boundaries::check(root, &meta, &mut out);
        }
        Err(e) => out.push(Violation {
            path: "Cargo.toml".into(),
            line: 0,
            rule: Rule::Unreadable,
            name: String::new(),
            message: format!("`cargo metadata` failed: {e}"),
        }),
    }
    clippy::check(root, &mut out);
    api::check(root, &mut out);
    out
}

/// The folders whose `.rs` files the size rules cover.
const SOURCE_DIRS: [&str; 4] = ["crates", "xtask", "examples", "fuzz/fuzz_targets"];

/// Every `.rs` file under [`SOURCE_DIRS`], sorted (build output and hidden folders skipped).
fn rust_files(root: &Path, out: &mut Vec<Violation>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack: Vec<PathBuf> = SOURCE_DIRS.iter().map(|d| root.join(d)).collect();
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) => {
                out.push(unreadable(root, &dir, &e.to_string()));
                continue;
            }
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || name == "target" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if name.ends_with(".rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `path` relative to the workspace root, with `/` separators.
pub(crate) fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

/// A file that could not be read or parsed.
pub(crate) fn unreadable(root: &Path, path: &Path, why: &str) -> Violation {
    Violation {
        path: relative(root, path),
        line: 0,
        rule: Rule::Unreadable,
        name: String::new(),
        message: format!("cannot read or parse: {why}"),
    }
}

/// A source file read and parsed.
pub(crate) struct Parsed {
    pub(crate) lines: usize,
    pub(crate) ast: syn::File,
}

thread_local! {
    /// Each file is parsed once per run, whichever rules read it (syn's trees are not `Send`).
    static PARSED: RefCell<BTreeMap<PathBuf, Rc<Result<Parsed, String>>>> = RefCell::default();
}

/// `path` read and parsed, or why not (once per run).
pub(crate) fn parsed(path: &Path) -> Rc<Result<Parsed, String>> {
    if let Some(hit) = PARSED.with(|cache| cache.borrow().get(path).cloned()) {
        return hit;
    }
    let result = std::fs::read_to_string(path).map_err(|e| e.to_string()).and_then(|text| {
        let ast = syn::parse_file(&text).map_err(|e| format!("{e} (line {})", line_of(e.span())))?;
        Ok(Parsed { lines: text.lines().count(), ast })
    });
    let result = Rc::new(result);
    PARSED.with(|cache| cache.borrow_mut().insert(path.to_path_buf(), Rc::clone(&result)));
    result
}

/// The line of a span's start (1-based; `span-locations` is on).
pub(crate) fn line_of(span: proc_macro2::Span) -> usize {
    span.start().line
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The house rules hold (or wait, listed, in `ALLOWED`).
    #[test]
    fn the_house_rules_hold() {
        let violations = check(&root());
        let text: Vec<String> = violations.iter().map(ToString::to_string).collect();
        assert!(violations.is_empty(), "`cargo xtask tidy` finds:\n{}", text.join("\n"));
    }

    /// An allowed violation that is gone fails, so the allowlist only shrinks.
    #[test]
    fn an_allowlist_entry_that_no_longer_violates_fails() {
        let stale = judge(&[]);
        assert_eq!(stale.len(), ALLOWED.len());
        assert!(stale.iter().all(|v| v.message.contains("no longer a violation: delete its entry")));
        let found: Vec<Violation> = ALLOWED
            .iter()
            .map(|a| Violation {
                path: a.path.to_owned(),
                line: 1,
                rule: a.rule,
                name: a.name.to_owned(),
                message: String::new(),
            })
            .collect();
        assert!(judge(&found).is_empty());
    }
}
