//! What the CLI prints and how it ends: exit codes, failures (`Out`), diagnostics on stderr
//! and as JSON, and stdout writes that end quietly when the reader has gone away.

use std::sync::atomic::{AtomicBool, Ordering};

use runway_schema::Diagnostic;

use crate::files;

/// Exit code: the runway is invalid.
pub(crate) const EXIT_INVALID: u8 = 1;
/// Exit code: usage error (bad flags, unreadable file).
pub(crate) const EXIT_USAGE: u8 = 2;
/// Exit code: refused by a cost cap (or unpriced under a cap).
pub(crate) const EXIT_CAP: u8 = 3;
/// Exit code: a remote call failed.
pub(crate) const EXIT_REMOTE: u8 = 4;
/// Exit code: `runway rollout` waited its whole `--timeout` and a release had not settled.
pub(crate) const EXIT_TIMEOUT: u8 = 5;

/// A command's failure: its exit code, with what was already printed.
pub(crate) struct Exit(pub(crate) u8);

/// Where a command reports its failures: always on stderr, and, for a command that prints
/// JSON (`--format json`), also on stdout: an invalid runway or catalogue as its diagnostics
/// (the `check` shape), a usage or remote failure as `{"error": ...}`, so a script reading
/// stdout never gets nothing. Decided once from the parsed command and passed down.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Out {
    /// The command prints JSON on stdout.
    json: bool,
}

impl Out {
    /// Reporting for a command that prints JSON (`json`) or text.
    pub(crate) const fn new(json: bool) -> Self {
        Self { json }
    }

    /// Prints a usage-level error and gives exit 2.
    pub(crate) fn usage(self, message: impl std::fmt::Display) -> Exit {
        self.fail(EXIT_USAGE, message)
    }

    /// Reports a failure that is not a diagnostic of the runway (usage, a remote call): on
    /// stderr, and for a JSON command also on stdout as `{"error": {"exit", "message"}}`, so a
    /// script reading stdout always gets JSON.
    pub(crate) fn fail(self, code: u8, message: impl std::fmt::Display) -> Exit {
        errln!("error: {message}");
        if self.json {
            outln!("{}", serde_json::json!({ "error": { "exit": code, "message": message.to_string() } }));
        }
        Exit(code)
    }

    /// Prints a remote failure (never holding a value) and gives exit 4.
    pub(crate) fn remote(self, message: impl std::fmt::Display) -> Exit {
        self.fail(EXIT_REMOTE, message)
    }

    /// A progress line of a command that waits or acts step by step: on stdout with the rest
    /// of its text, on stderr when stdout carries its JSON.
    pub(crate) fn progress(self, line: &str) {
        if self.json {
            errln!("{line}");
        } else {
            outln!("{line}");
        }
    }

    /// The diagnostics of an invalid input: as text on stderr, and as JSON on stdout when the
    /// command prints JSON.
    pub(crate) fn invalid(self, diags: &[Diagnostic]) {
        err!("{}", files::render_text(diags, stderr_colour()));
        if self.json {
            print_diagnostics_json(diags);
        }
    }
}

/// An error and its causes as one message, the way a failure is reported: its own text, then
/// each source's message (on one line) after `: `, a message already shown left out (a report
/// such as a stopped publish lays its failure out in its own text).
pub(crate) fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let message = e.to_string();
        let line = message.split_whitespace().collect::<Vec<_>>().join(" ");
        if !text.contains(&message) && !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        source = e.source();
    }
    text
}

/// A report as indented JSON on stdout (what the deploy-job commands print).
pub(crate) fn print_json(value: &impl serde::Serialize) {
    // Invariant: the reports are plain strings, numbers and lists; serialising cannot fail.
    outln!("{}", serde_json::to_string_pretty(value).unwrap_or_default());
}

/// Diagnostics as `{"diagnostics": [..]}` on stdout (the `check` shape).
pub(crate) fn print_diagnostics_json(diags: &[Diagnostic]) {
    outln!("{}", serde_json::json!({ "diagnostics": diags }));
}

/// Are colours wanted on stderr?
pub(crate) fn stderr_colour() -> bool {
    files::colour(std::io::IsTerminal::is_terminal(&std::io::stderr()))
}

/// Diagnostics (warnings, mostly) as text on stderr.
pub(crate) fn warn(diags: &[Diagnostic]) {
    err!("{}", files::render_text(diags, stderr_colour()));
}

/// Buffered stdout as a `fmt::Write`, keeping the I/O error a `fmt::Error` cannot carry.
pub(crate) struct StdoutText {
    out: std::io::BufWriter<std::io::StdoutLock<'static>>,
    error: Option<std::io::Error>,
}

impl std::fmt::Write for StdoutText {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        use std::io::Write as _;
        self.out.write_all(s.as_bytes()).map_err(|e| {
            self.error = Some(e);
            std::fmt::Error
        })
    }
}

/// Runs `write` with stdout as its sink, then flushes; a closed stdout is handled as `out!`
/// handles it.
pub(crate) fn stream_stdout(write: impl FnOnce(&mut StdoutText) -> std::fmt::Result) {
    use std::io::Write as _;
    if STDOUT_GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut sink = StdoutText { out: std::io::BufWriter::new(std::io::stdout().lock()), error: None };
    let written = write(&mut sink);
    let result = match (written, sink.error.take()) {
        (_, Some(e)) => Err(e),
        (Err(_), None) => Err(std::io::Error::other("formatting the output failed")),
        (Ok(()), None) => sink.out.flush(),
    };
    if let Err(e) = result {
        on_write_error(&e);
    }
}

/// Runs `write` with buffered stdout as its byte sink, then flushes; a closed stdout is handled
/// as `out!` handles it. For JSON, which `serde_json` writes to an `io::Write` as it serializes.
pub(crate) fn stream_stdout_bytes(
    write: impl FnOnce(&mut std::io::BufWriter<std::io::StdoutLock<'static>>) -> std::io::Result<()>,
) {
    use std::io::Write as _;
    if STDOUT_GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if let Err(e) = write(&mut out).and_then(|()| out.flush()) {
        on_write_error(&e);
    }
}

/// Set once stdout's reader has gone away: later writes are skipped.
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);

/// A closed stdout (`runway … | head`) is not a failure of runway's: nothing more is written
/// there and the command ends with its own exit code (0, or the code of what failed), as `git`
/// and `ripgrep` do. Any other write error (a full disk) is reported and ends the process.
fn on_write_error(e: &std::io::Error) {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        STDOUT_GONE.store(true, Ordering::Relaxed);
        return;
    }
    errln!("error: cannot write the output: {e}");
    std::process::exit(i32::from(EXIT_USAGE));
}

/// What a step of `runway deploy` prints while it runs in this process: kept (its tail is
/// shown when it fails) and, with `to_stderr`, sent to stderr instead of stdout (whose lines
/// are then the job's JSON events only).
pub(crate) struct StepCapture {
    /// Stdout's text goes to stderr.
    pub(crate) to_stderr: bool,
    /// What was printed, stdout and stderr, in order.
    pub(crate) text: String,
}

/// The running step's capture, if any.
static STEP: std::sync::Mutex<Option<StepCapture>> = std::sync::Mutex::new(None);

/// Starts (`Some`) or ends (`None`) capturing a step's output; gives the previous capture.
pub(crate) fn capture_step(capture: Option<StepCapture>) -> Option<StepCapture> {
    std::mem::replace(&mut *STEP.lock().unwrap_or_else(std::sync::PoisonError::into_inner), capture)
}

/// Keeps `text` for the running step; true when stdout's text is to go to stderr.
fn kept(text: &str) -> bool {
    let mut step = STEP.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    step.as_mut().is_some_and(|c| {
        c.text.push_str(text);
        c.to_stderr
    })
}

/// Writes to stdout (see `on_write_error` for a reader that has gone away).
pub(crate) fn write_stdout(text: &str) {
    use std::io::Write as _;
    if kept(text) {
        write_stderr_only(text);
        return;
    }
    if STDOUT_GONE.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        on_write_error(&e);
    }
}

/// Writes to stderr, ignoring a failure: with stderr closed there is nowhere to say anything,
/// and the command's own outcome (its exit code) still stands.
pub(crate) fn write_stderr(text: &str) {
    kept(text);
    write_stderr_only(text);
}

/// Writes to stderr without keeping it for a step.
fn write_stderr_only(text: &str) {
    use std::io::Write as _;
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes()).and_then(|()| stderr.flush());
}

#[cfg(test)]
mod tests {
    use super::chain;

    /// An error with a message and maybe a source.
    #[derive(Debug)]
    struct Link(&'static str, Option<Box<Link>>);

    impl std::fmt::Display for Link {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Link {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            self.1.as_deref().map(|l| l as &(dyn std::error::Error + 'static))
        }
    }

    #[test]
    fn the_chain_follows_the_error_each_message_once_on_one_line() {
        let inner = Link("connection\n  refused", None);
        let middle = Link("dispatch failure", Some(Box::new(inner)));
        let top = Link("PutParameter failed", Some(Box::new(middle)));
        assert_eq!(chain(&top), "PutParameter failed: dispatch failure: connection refused");
        // A report that shows its failure in its own text does not get it twice.
        let shown =
            Link("stopped: dispatch failure\ndone (0)", Some(Box::new(Link("dispatch failure", None))));
        assert_eq!(chain(&shown), "stopped: dispatch failure\ndone (0)");
    }
}
