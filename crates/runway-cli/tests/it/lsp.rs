//! `runway lsp` end to end: a real LSP client (pytest-lsp, `tools/requirements.txt`) drives the
//! built binary over stdio through every capability (`tests/it/lsp/test_lsp.py`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;
use std::process::Command;

use crate::common;

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
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/lsp");
    let out = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "asyncio_mode=auto"])
        .arg(&tests)
        .env("RUNWAY_BIN", common::RUNWAY)
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
    assert!(stdout.contains("10 passed") && !stdout.contains("skipped"), "{stdout}");
}

/// `runway lsp` fed `messages` on stdin, which then closes: its exit code.
fn lsp_exit_code(messages: &[serde_json::Value]) -> Option<i32> {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = common::bare()
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("runway lsp starts");
    let mut stdin = child.stdin.take().expect("piped stdin");
    for message in messages {
        let body = message.to_string();
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("runway lsp reads stdin");
    }
    drop(stdin);
    child.wait().expect("runway lsp ends").code()
}

#[test]
fn the_exit_code_says_whether_the_editor_shut_the_server_down() {
    use serde_json::json;
    let initialize =
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "initialized", "params": {}});
    let shutdown = json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"});
    let exit = json!({"jsonrpc": "2.0", "method": "exit"});
    let start = [initialize, initialized];
    // The protocol's codes: 0 after `shutdown`, 1 without it, whether `exit` came or stdin closed.
    assert_eq!(lsp_exit_code(&[&start[..], &[shutdown, exit.clone()]].concat()), Some(0));
    assert_eq!(lsp_exit_code(&[&start[..], &[exit]].concat()), Some(1));
    assert_eq!(lsp_exit_code(&start), Some(1));
    // No handshake at all is not the protocol: a usage error.
    assert_eq!(lsp_exit_code(&[]), Some(2));
}
