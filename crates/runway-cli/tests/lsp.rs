//! `runway lsp` end to end: a real LSP client (pytest-lsp, `tools/requirements.txt`) drives the
//! built binary over stdio through every capability (`tests/lsp/test_lsp.py`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;
use std::process::Command;

use test_support::{example, python};

#[test]
fn a_real_client_drives_every_capability() {
    let python = python();
    let has_plugin =
        Command::new(&python).args(["-c", "import pytest_lsp"]).status().is_ok_and(|s| s.success());
    assert!(
        has_plugin,
        "pytest-lsp is not installed in {}: run `cargo xtask venv` (tools/requirements.txt pins it)",
        python.display()
    );
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lsp");
    let out = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto"])
        .arg(&tests)
        .env("RUNWAY_BIN", env!("CARGO_BIN_EXE_runway"))
        .env("RUNWAY_EXAMPLE", example("acme-shop"))
        .current_dir(&tests)
        .output()
        .expect("pytest starts");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "pytest-lsp tests failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // Every test ran: none skipped or deselected.
    assert!(stdout.contains("8 passed") && !stdout.contains("skipped"), "{stdout}");
}
