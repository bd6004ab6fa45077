//! `cargo xtask docs`: the docs tell the truth about the repository (a stage of `cargo xtask
//! ci`). In README.md, ARCHITECTURE.md and docs/*.md:
//!
//! - every repository path named in backticks exists: a path under a folder or file the
//!   repository tracks (`crates/...`, `docs/...`, `tools/...`), or any `.md` file (a doc naming
//!   another doc); paths of a product or of build output (`runway.yaml`, `build/dev`,
//!   `target/...`, `.venv/...`) and templates (`<...>`, `{...}`, `*`) are not the repository's;
//! - every `runway` command line shown, in backticks or in a code block (`runway ...`,
//!   `target/release/runway ...`, `cargo run --release -p runway-cli -- ...`, a workflow's
//!   `run: runway ...`), names subcommands the CLI has and options those subcommands take.
//!
//! The CLI's subcommands and options come from the built binary's `--help` of each subcommand
//! path the docs use, never from a list kept here: a command added to the CLI is known as soon
//! as it is built. Each failure names the doc, the line and what to fix.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use crate::root;

/// The docs checked, relative to the workspace root (plus every `.md` under [`DOCS_DIR`]).
const DOCS: [&str; 2] = ["README.md", "ARCHITECTURE.md"];
/// The folder of the other docs.
const DOCS_DIR: &str = "docs";

/// How a command line of a code block starts, before the runway arguments.
const STARTS: [&str; 5] = [
    "runway ",
    "target/release/runway ",
    "target/debug/runway ",
    "cargo run --release -p runway-cli -- ",
    "cargo run -p runway-cli -- ",
];

/// One thing a doc says that is not true.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Finding {
    /// The doc, relative to the workspace root.
    pub(crate) doc: String,
    /// 1-based line.
    pub(crate) line: usize,
    /// What is wrong and what to do.
    pub(crate) message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: [docs] {}", self.doc, self.line, self.message)
    }
}

/// What a doc shows: inline code spans and command lines of code blocks, with their lines.
#[derive(Debug, Default, PartialEq)]
struct Shown {
    /// Inline code spans (`...`), a span across lines joined by spaces.
    spans: Vec<(usize, String)>,
    /// Lines of code blocks that run `runway`: the runway arguments only.
    commands: Vec<(usize, String)>,
}

/// `cargo xtask docs`: builds the `runway` binary, then checks every doc.
pub(crate) fn docs() -> Result<(), String> {
    let root = root();
    let binary = build_runway()?;
    let mut cli = Cli::new(|path: &[String]| help_of(&binary, path));
    let (mut findings, mut commands) = (Vec::new(), 0);
    let docs = doc_files(&root)?;
    for doc in &docs {
        let text = std::fs::read_to_string(root.join(doc)).map_err(|e| format!("{doc}: {e}"))?;
        let shown = shown(&text);
        commands += shown.commands.len()
            + shown.spans.iter().filter(|(_, s)| s.trim().starts_with("runway ")).count();
        findings.extend(check_doc(&root, doc, &text, &mut cli));
    }
    findings.sort();
    for f in &findings {
        eprintln!("{f}");
    }
    if findings.is_empty() {
        eprintln!(
            "docs: in {} docs, every repository path named exists and each of {commands} runway command \
             lines parses",
            docs.len()
        );
        Ok(())
    } else {
        Err(format!("{} statement(s) of the docs are not true of the repository", findings.len()))
    }
}

/// README.md, ARCHITECTURE.md and docs/*.md, relative to the root, sorted.
fn doc_files(root: &Path) -> Result<Vec<String>, String> {
    let mut docs: Vec<String> = DOCS.iter().map(|d| (*d).to_owned()).collect();
    let dir = root.join(DOCS_DIR);
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut more: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("{DOCS_DIR}/{n}"))
        .collect();
    more.sort();
    docs.extend(more);
    Ok(docs)
}

/// Every finding of one doc: its paths, then its command lines.
fn check_doc(root: &Path, doc: &str, text: &str, cli: &mut Cli<'_>) -> Vec<Finding> {
    let tracked = tracked_tops(root);
    let shown = shown(text);
    let mut out = check_paths(root, doc, &shown, &tracked);
    let inline = shown.spans.iter().filter_map(|(line, span)| {
        let rest = span.trim().strip_prefix("runway ")?;
        Some((*line, rest.to_owned()))
    });
    for (line, args) in inline.chain(shown.commands.iter().cloned()) {
        if let Some(message) = cli.check(&args) {
            out.push(Finding { doc: doc.to_owned(), line, message });
        }
    }
    out
}

/// The findings about paths: each span that names a repository path that does not exist.
fn check_paths(root: &Path, doc: &str, shown: &Shown, tracked: &BTreeSet<String>) -> Vec<Finding> {
    let doc_dir = Path::new(doc).parent().unwrap_or(Path::new(""));
    shown
        .spans
        .iter()
        .filter_map(|(line, span)| {
            let path = repository_path(span, tracked)?;
            let exists = root.join(&path).exists() || root.join(doc_dir).join(&path).exists();
            (!exists && !ignored(root, &path)).then(|| Finding {
                doc: doc.to_owned(),
                line: *line,
                message: format!(
                    "`{path}` is not in the repository: correct the path, or say what it is instead \
                     of naming a file (a file outside the repository is not named as if it were here)"
                ),
            })
        })
        .collect()
}

/// The repository path a code span names, or `None` when it names none (a word, a command, a
/// product's file, a template, build output).
fn repository_path(span: &str, tracked: &BTreeSet<String>) -> Option<String> {
    let span = span.trim();
    let templated = ['<', '>', '{', '}', '*', '$', '…', ' ', '@', '=', '\'', '"', '(', '|'];
    if span.is_empty() || span.contains(templated) || span.contains("...") || span.contains("://") {
        return None;
    }
    if span.starts_with(['/', '~', '-']) {
        return None;
    }
    // `crates/x/src/y.rs:42` and `docs/x.md#anchor` name the file.
    let path = span.split('#').next().unwrap_or_default();
    let path = path
        .split_once(':')
        .map_or(path, |(p, rest)| if rest.chars().all(|c| c.is_ascii_digit() || c == '-') { p } else { "" });
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        return None;
    }
    let first = path.split('/').next().unwrap_or_default();
    let under_tracked = path.contains('/') && tracked.contains(first);
    (under_tracked || tracked.contains(path) || path.ends_with(".md")).then(|| path.to_owned())
}

/// Does git ignore `path` (build output, a local corpus: named, never committed)?
fn ignored(root: &Path, path: &str) -> bool {
    let mut cmd = Command::new("git");
    cmd.args(["check-ignore", "-q", "--no-index", path]).current_dir(root);
    cmd.status().is_ok_and(|s| s.success())
}

/// The first components of every file git tracks (`crates`, `docs`, `README.md`, `.ci`, ...);
/// empty when git cannot say (then only `.md` names are checked).
fn tracked_tops(root: &Path) -> BTreeSet<String> {
    let mut cmd = Command::new("git");
    cmd.args(["ls-files", "-z"]).current_dir(root);
    let Ok(out) = cmd.output() else { return BTreeSet::new() };
    String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter_map(|f| f.split('/').next())
        .filter(|f| !f.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The code spans and command lines of a Markdown text.
fn shown(text: &str) -> Shown {
    let mut shown = Shown::default();
    let mut fenced = false;
    let mut continued: Option<(usize, String)> = None;
    // Inline spans may cross lines: scanned over the text outside code blocks.
    let mut open: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            let (text, more) = match line.trim_end().strip_suffix('\\') {
                Some(head) => (head, true),
                None => (line, false),
            };
            let (at, joined) = match continued.take() {
                Some((at, before)) => (at, format!("{before} {}", text.trim())),
                None => (n, text.trim().to_owned()),
            };
            if more {
                continued = Some((at, joined));
            } else if let Some(args) = command_of(&joined) {
                shown.commands.push((at, args));
            }
            continue;
        }
        for (j, part) in line.split('`').enumerate() {
            // Odd parts of a line are inside a span, unless a span was left open before it.
            if j > 0 {
                open = match open.take() {
                    Some((at, span)) => {
                        shown.spans.push((at, span));
                        None
                    }
                    None => Some((n, String::new())),
                };
            }
            if let Some((_, span)) = open.as_mut() {
                if !span.is_empty() && j == 0 {
                    span.push(' ');
                }
                span.push_str(part);
            }
        }
        // A paragraph's end closes a span left open (a stray backtick).
        if line.trim().is_empty() {
            open = None;
        }
    }
    shown
}

/// The runway arguments of a code block's line, when it runs `runway`.
fn command_of(line: &str) -> Option<String> {
    let mut line = line.trim();
    for prefix in ["- ", "run: ", "$ "] {
        line = line.strip_prefix(prefix).unwrap_or(line).trim_start();
    }
    let rest = STARTS.iter().find_map(|s| line.strip_prefix(s))?;
    Some(rest.split(" #").next().unwrap_or_default().to_owned())
}

/// What `--help` says of one subcommand path: its subcommands and its options.
#[derive(Debug, Default, Clone, PartialEq)]
struct Help {
    subcommands: BTreeSet<String>,
    options: BTreeSet<String>,
}

impl Help {
    /// Reads clap's help text: the names under `Commands:`, the `--options` anywhere.
    fn parse(text: &str) -> Help {
        let mut help = Help::default();
        let mut in_commands = false;
        for line in text.lines() {
            if !line.starts_with(' ') {
                in_commands = line.trim_end() == "Commands:";
                continue;
            }
            if in_commands {
                // `  name  description`: a two-space indent, then the name.
                if let Some(name) = line.strip_prefix("  ").and_then(|l| l.split_whitespace().next())
                    && !line[2..].starts_with(' ')
                {
                    help.subcommands.insert(name.to_owned());
                }
                continue;
            }
            let option = line.split([' ', ',', '=']).find(|w| w.starts_with("--") && w.len() > 2);
            if let Some(option) = option {
                help.options.insert(option.to_owned());
            }
        }
        help
    }
}

/// The help text of a subcommand path (the binary's, or a test's canned one), or why not.
type HelpOf<'a> = Box<dyn FnMut(&[String]) -> Result<String, String> + 'a>;

/// The CLI's subcommands and options, learnt from `--help` as the docs need them.
struct Cli<'a> {
    help_of: HelpOf<'a>,
    known: BTreeMap<Vec<String>, Result<Help, String>>,
}

impl<'a> Cli<'a> {
    fn new(help_of: impl FnMut(&[String]) -> Result<String, String> + 'a) -> Cli<'a> {
        Cli { help_of: Box::new(help_of), known: BTreeMap::new() }
    }

    fn help(&mut self, path: &[String]) -> Result<Help, String> {
        if let Some(known) = self.known.get(path) {
            return known.clone();
        }
        let help = (self.help_of)(path).map(|text| Help::parse(&text));
        self.known.insert(path.to_vec(), help.clone());
        help
    }

    /// Why `args` (what follows `runway`) does not parse, or `None` when it does: the leading
    /// words that are subcommands descend, every `--option` is one the deepest takes.
    fn check(&mut self, args: &str) -> Option<String> {
        let words = words(args);
        let mut path: Vec<String> = Vec::new();
        let mut help = match self.help(&path) {
            Ok(help) => help,
            Err(e) => return Some(e),
        };
        for (i, word) in words.iter().enumerate() {
            if word.starts_with('-') {
                let option = word.trim_start_matches('[').split(['=', ']', ',', ')']).next().unwrap_or(word);
                if option.starts_with("--") && option.len() > 2 && !help.options.contains(option) {
                    let shown = shown_path(&path);
                    return Some(format!(
                        "`runway {args}`: `{shown}` takes no `{option}` (`{shown} --help` lists its options): \
                         fix the command"
                    ));
                }
                continue;
            }
            if help.subcommands.contains(word.as_str()) && (i == path.len() || path.is_empty()) {
                path.push(word.clone());
                help = match self.help(&path) {
                    Ok(help) => help,
                    Err(e) => return Some(e),
                };
                continue;
            }
            if i == 0 && is_command_name(word) {
                let known: Vec<&str> = help.subcommands.iter().map(String::as_str).collect();
                return Some(format!(
                    "`runway {args}`: `{word}` is not a runway command (runway has {}): fix the command \
                     or drop it",
                    known.join(", ")
                ));
            }
        }
        None
    }
}

/// The words of a command line up to where the shell takes over (a pipe, a redirection, a
/// comment, the next command, a command's output substituted: `<(pulumi stack output ...)`).
fn words(args: &str) -> Vec<String> {
    args.split_whitespace()
        .take_while(|w| {
            !matches!(*w, "|" | "||" | "&&" | ";" | "#")
                && !w.starts_with(['>', '<', '$', '`'])
                && !w.starts_with("2>")
        })
        .map(str::to_owned)
        .collect()
}

/// A word that can only be a command's name: lowercase letters and `-` (not a placeholder such
/// as `ENV` or `<cmd>`, not a file).
fn is_command_name(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_ascii_lowercase() || c == '-')
}

fn shown_path(path: &[String]) -> String {
    std::iter::once("runway").chain(path.iter().map(String::as_str)).collect::<Vec<_>>().join(" ")
}

/// Builds `runway` as the tests do and returns the binary's path, from cargo's own report of it.
/// `--all-targets` matters: without the tests' dev-dependencies the AWS SDK resolves other
/// features, and `cargo xtask ci` built it twice (once here, once for the tests), which cost a
/// CI machine its disk. With it, `cargo test` after this finds every dependency fresh.
fn build_runway() -> Result<std::path::PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--workspace", "--all-targets", "--all-features", "--message-format=json"]);
    crate::clean_env(&mut cmd);
    eprintln!("$ cargo build --workspace --all-targets --all-features");
    let out = cmd
        .current_dir(root())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot start cargo: {e}"))?;
    if !out.status.success() {
        return Err("building runway failed".to_owned());
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["reason"] == "compiler-artifact" && v["target"]["name"] == "runway")
        // The binary, not its unit tests' executable.
        .filter(|v| v["profile"]["test"] == false && v["target"]["kind"][0] == "bin")
        .find_map(|v| v["executable"].as_str().map(std::path::PathBuf::from))
        .ok_or_else(|| "cargo built no `runway` executable".to_owned())
}

/// The binary's `--help` of a subcommand path.
fn help_of(binary: &Path, path: &[String]) -> Result<String, String> {
    let out = Command::new(binary)
        .args(path)
        .arg("--help")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!("`{} --help` failed: {}", shown_path(path), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

#[cfg(test)]
mod tests;
