//! Where things are: the workspace, its examples, the venv Python.

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
