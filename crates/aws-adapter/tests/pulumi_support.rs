//! Runs `tools/pulumi_check.py` (the provider-SDK check) for the Pulumi tests.
//!
//! Included with `#[path]` by the `pulumi_*` tests; compiled alone it has no tests.
#![allow(dead_code)] // reason: each test file uses a part of the helpers

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Python that has `pulumi` and `pulumi_aws`: `RUNWAY_PYTHON`, else `<workspace>/.venv`.
/// Panics (the test fails) with the command to run when there is none.
pub fn python() -> PathBuf {
    let python = std::env::var_os("RUNWAY_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join(".venv/bin/python"));
    assert!(
        python.exists(),
        "no Python with the Pulumi AWS SDK at {}: run `cargo xtask venv` (or set RUNWAY_PYTHON)",
        python.display()
    );
    python
}

/// The outcome of one run of the check.
pub struct Outcome {
    /// Exit code 0.
    pub success: bool,
    /// Standard output and standard error together.
    pub output: String,
}

/// Runs the check over program directories, every tag required.
pub fn check(dirs: &[&Path]) -> Outcome {
    let out = Command::new(python())
        .arg(workspace().join("tools/pulumi_check.py"))
        .args(["--require-tags", "product,environment,runway-resource"])
        .args(dirs)
        .output()
        .expect("cannot start the Python check");
    let output = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!output.contains("run `cargo xtask venv`"), "the Python check cannot run: {output}");
    Outcome { success: out.status.success(), output }
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("pulumi-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("cannot create a scratch directory");
    dir
}
