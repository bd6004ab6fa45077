//! Runs `tools/pulumi_check.py` (the provider-SDK check) for the Pulumi tests, and writes a
//! rendered program into a directory for it (the crate itself writes no file).
//!
//! A module of the `pulumi_*` tests (a folder, so it is not a test target of its own).
#![allow(dead_code)] // reason: each test file uses a part of the helpers
#![allow(clippy::disallowed_methods, clippy::disallowed_types)] // reason: the tests write programs and run Python

use std::path::Path;
use std::process::Command;

use pulumi_program::Program;
use test_support::{python, workspace};

/// Writes the program's files into `dir` (which exists), as `runway emit pulumi` does.
pub fn write(dir: &Path, program: &Program) {
    for (name, text) in &program.files {
        std::fs::write(dir.join(name), text).expect("write the program");
    }
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
