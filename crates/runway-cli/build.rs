//! Build script: the commit `runway --version` prints (`RUNWAY_COMMIT`).
//!
//! Where it comes from, first found wins: the `RUNWAY_COMMIT` variable (a packager building
//! from a tarball); `git rev-parse HEAD` in the source's repository (a clone, `cargo install
//! --path`, `cargo install --git`'s checkout); the `.cargo_vcs_info.json` cargo writes into a
//! packaged crate; else `unknown`. Nothing here fails the build.
//!
//! When it runs again: only when HEAD moves (the worktree's `HEAD`, the branch's loose ref, and
//! `packed-refs`, where a ref goes after `git gc`), not when any other file of the repository
//! changes. A commit on the branch therefore recompiles the `runway` binary's own crate (the
//! version it prints is that commit), never a dependency.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=RUNWAY_COMMIT");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let commit = std::env::var("RUNWAY_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| from_git(&manifest))
        .or_else(|| from_vcs_info(&manifest))
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=RUNWAY_COMMIT={commit}");
}

/// `git` output, trimmed; `None` when git is missing, fails or prints nothing.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).current_dir(dir).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_owned();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// HEAD's commit, and the files whose change means HEAD moved.
fn from_git(dir: &Path) -> Option<String> {
    let commit = git(dir, &["rev-parse", "--verify", "HEAD"])?;
    if !is_hex_commit(&commit) {
        return None;
    }
    let absolute = |p: String| {
        let p = PathBuf::from(p);
        if p.is_absolute() { p } else { dir.join(p) }
    };
    if let Some(git_dir) = git(dir, &["rev-parse", "--git-dir"]).map(absolute) {
        watch(&git_dir.join("HEAD"));
    }
    if let Some(common) = git(dir, &["rev-parse", "--git-common-dir"]).map(absolute) {
        watch(&common.join("packed-refs"));
        // A detached HEAD has no symbolic name: `HEAD` itself holds the commit then.
        if let Some(name) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
            watch(&common.join(name));
        }
    }
    Some(commit)
}

/// Reruns the script when `path` changes. Only an existing file: cargo would rerun the script
/// on every build for a missing one. A loose ref that `git gc` packs disappears, which is a
/// change; `packed-refs` is watched once it exists.
fn watch(path: &Path) {
    if path.is_file() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

/// The `"sha1"` of a packaged crate's `.cargo_vcs_info.json` (`{"git": {"sha1": "..."}}`).
fn from_vcs_info(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(".cargo_vcs_info.json")).ok()?;
    let rest = &text[text.find("\"sha1\"")? + "\"sha1\"".len()..];
    let start = rest.find('"')? + 1;
    let end = start + rest[start..].find('"')?;
    let sha = &rest[start..end];
    is_hex_commit(sha).then(|| sha.to_owned())
}

/// A full SHA-1 or SHA-256 commit id.
fn is_hex_commit(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}
