#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: test helpers fail loudly
//! A reader that goes away early (`runway diff | head -1`, `2>&1 | head`): every command ends
//! quietly with 0 or its own exit code, never a panic (101) or a message about the pipe.

use std::io::Read as _;
use std::path::Path;
use std::process::{ChildStderr, ChildStdout, Stdio};

use crate::common;

/// Which of the binary's streams the reader closes.
#[derive(Clone, Copy, Debug)]
enum Closed {
    Stdout,
    Stderr,
}

/// Runs `runway args` in `dir`, reads `after` bytes of the `closed` stream and closes it (with
/// `after` 0, before the binary has written anything), then reads the other stream to its end:
/// the exit code and that other stream.
fn closing_early(dir: &Path, args: &[&str], closed: Closed, after: usize) -> (i32, String) {
    let mut child = common::command()
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout: ChildStdout = child.stdout.take().unwrap();
    let stderr: ChildStderr = child.stderr.take().unwrap();
    let (mut closing, mut kept): (Box<dyn std::io::Read>, Box<dyn std::io::Read>) = match closed {
        Closed::Stdout => (Box::new(stdout), Box::new(stderr)),
        Closed::Stderr => (Box::new(stderr), Box::new(stdout)),
    };
    let mut first = vec![0; after];
    closing.read_exact(&mut first).expect("the command writes at least `after` bytes");
    drop(closing);
    let mut other = Vec::new();
    kept.read_to_end(&mut other).unwrap();
    let status = child.wait().unwrap();
    (status.code().unwrap_or(-1), String::from_utf8_lossy(&other).into_owned())
}

/// A copy (named `name`) of the example with `base.yaml`, the same runway under another product name: a diff
/// between them changes every item, far more than a pipe holds (64 KiB).
fn example_with_base(name: &str) -> test_support::Scratch {
    let scratch = test_support::scratch(name);
    test_support::copy_dir(&test_support::example("acme-shop"), scratch.path());
    let root = std::fs::read_to_string(scratch.path().join("runway.yaml")).unwrap();
    let base = root.replace("\nproduct: acme-shop\n", "\nproduct: acme-old\n");
    assert_ne!(base, root, "the example names its product on a line of its own");
    std::fs::write(scratch.path().join("base.yaml"), base).unwrap();
    scratch
}

/// Nothing the reader did not ask for: no panic, no complaint about the pipe.
fn assert_quiet(what: &str, code: i32, expected: i32, other: &str) {
    assert_eq!(code, expected, "{what}: exit {code}, printed:\n{other}");
    assert!(!other.contains("panicked"), "{what} panicked:\n{other}");
    assert!(!other.to_lowercase().contains("broken pipe"), "{what} complained about the pipe:\n{other}");
    assert!(!other.contains("cannot write"), "{what} complained about its output:\n{other}");
}

#[test]
fn a_reader_closing_stdout_after_a_few_bytes_ends_the_command_with_success() {
    let scratch = example_with_base("pipes-after");
    let long: &[&[&str]] = &[
        &["diff", "--base", "base.yaml"],
        &["diff", "--base", "base.yaml", "--format", "json"],
        &["plan", "--env", "production", "--format", "json"],
        &["catalogue"],
    ];
    for args in long {
        let (code, stderr) = closing_early(scratch.path(), args, Closed::Stdout, 10);
        assert_quiet(&args.join(" "), code, 0, &stderr);
        // The example's old prices are warned about; nothing else is said.
        assert!(stderr.lines().all(|l| l.starts_with("warning: ")), "{}: stderr:\n{stderr}", args.join(" "));
    }
}

#[test]
fn a_reader_gone_before_the_first_byte_ends_every_command_quietly() {
    let scratch = example_with_base("pipes-before");
    let commands: &[(&[&str], i32)] = &[
        (&["diff", "--base", "base.yaml", "--env", "dev"], 0),
        (&["diff", "--base", "base.yaml", "--format", "markdown"], 0),
        (&["plan", "--env", "dev"], 0),
        (&["check"], 0),
        (&["cost", "--format", "json"], 0),
        (&["graph", "--env", "dev"], 0),
        (&["schema"], 0),
        (&["--help"], 0),
        // A failure keeps its own code; its `{"error": ..}` for stdout is dropped quietly.
        (&["plan", "--env", "nope", "--format", "json"], 2),
    ];
    for (args, expected) in commands {
        let (code, stderr) = closing_early(scratch.path(), args, Closed::Stdout, 0);
        assert_quiet(&args.join(" "), code, *expected, &stderr);
    }
}

#[test]
fn a_closed_stderr_loses_the_messages_and_keeps_the_exit_code() {
    let scratch = example_with_base("pipes-stderr");
    let invalid = test_support::workspace().join("tests/fixtures/invalid/missing-field.yaml");
    let invalid = invalid.to_str().unwrap();
    let commands: &[(&[&str], i32)] = &[
        (&["check", invalid], 1),
        (&["plan", "--env", "dev", invalid], 1),
        (&["plan", "--env", "nope"], 2),
        (&["check", "nope.yaml"], 2),
        // Usage errors are clap's own.
        (&["plan"], 2),
        // Warnings on stderr, the plan on stdout.
        (&["catalogue"], 0),
    ];
    for (args, expected) in commands {
        let (code, stdout) = closing_early(scratch.path(), args, Closed::Stderr, 0);
        assert_quiet(&args.join(" "), code, *expected, &stdout);
    }
}

#[test]
fn an_editor_closing_the_language_servers_stdout_ends_it_quietly() {
    use std::io::Write as _;
    let mut child = common::command()
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    // A whole session: the answers are what the closed stdout cannot take.
    let session = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}),
        serde_json::json!({"jsonrpc": "2.0", "method": "exit"}),
    ];
    for message in session {
        let body = message.to_string();
        // The server may be gone before the last message: that is what is tested.
        let _ = write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len());
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_quiet("lsp", out.status.code().unwrap_or(-1), 1, &stderr);
    assert!(stderr.is_empty(), "{stderr}");
}
