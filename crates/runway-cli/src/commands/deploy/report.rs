//! What `runway deploy` shows of its steps: a heading and a closing line per step (bold and
//! marked on a terminal, plain in CI), or with `--format json` one JSON event per line on
//! stdout (`lease`, `step`, `summary`), the steps' own text then going to stderr.

use std::time::Duration;

use serde::Serialize;
use serde_json::json;

use crate::args::Format;

/// Why a step was skipped because the journal says it was done.
pub(crate) const DONE: &str = "done";

/// How a step ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Status {
    /// It ran and succeeded.
    Ran,
    /// It was not run: done already (the lease's journal), or outside `--from`/`--until`.
    Skipped,
    /// It ran and failed.
    Failed,
}

/// One step's line in the summary.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct StepResult {
    pub(crate) step: &'static str,
    pub(crate) status: Status,
    /// Why a step was skipped (`done`, `before --from`, `after --until`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<&'static str>,
    pub(crate) seconds: f64,
    /// The failed step's exit code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) exit: Option<u8>,
}

/// Where the job's progress goes.
pub(crate) struct Reporter {
    json: bool,
    /// Headings in bold with marks (stdout is a terminal).
    terminal: bool,
    pub(crate) results: Vec<StepResult>,
}

/// Seconds with a tenth, as shown and as JSON holds them.
fn seconds(d: Duration) -> f64 {
    (d.as_secs_f64() * 10.0).round() / 10.0
}

impl Reporter {
    pub(crate) fn new(format: Format) -> Self {
        let terminal =
            std::io::IsTerminal::is_terminal(&std::io::stdout()) && std::env::var_os("NO_COLOR").is_none();
        Self { json: format == Format::Json, terminal, results: Vec::new() }
    }

    /// Whether the steps' own text goes to stderr (stdout holds the events).
    pub(crate) fn json(&self) -> bool {
        self.json
    }

    /// A line that is not a step's: the lease taken, a stale Pulumi lock cancelled.
    pub(crate) fn note(&self, event: &str, text: &str, fields: serde_json::Value) {
        if self.json {
            let mut object = json!({ "event": event, "message": text });
            if let (Some(o), serde_json::Value::Object(more)) = (object.as_object_mut(), fields) {
                o.extend(more);
            }
            outln!("{object}");
        } else {
            outln!("{text}");
        }
    }

    /// The heading of a step about to run.
    pub(crate) fn start(&self, step: &str, what: &str, index: usize, total: usize) {
        if self.json {
            outln!("{}", json!({"event": "step", "step": step, "status": "started", "what": what}));
        } else if self.terminal {
            outln!("\x1b[1m==> [{index}/{total}] {step}\x1b[0m: {what}");
        } else {
            outln!("==> step {index}/{total} {step}: {what}");
        }
    }

    /// A line of a step's streamed output (Pulumi's), under its heading.
    pub(crate) fn line(&self, text: &str) {
        if self.json {
            errln!("  | {text}");
        } else {
            outln!("  | {text}");
        }
    }

    /// A step ended (ran, failed) or was skipped.
    pub(crate) fn end(&mut self, result: StepResult, index: usize, total: usize) {
        if self.json {
            let mut event = serde_json::to_value(&result).unwrap_or_default();
            if let Some(o) = event.as_object_mut() {
                o.insert("event".into(), json!("step"));
            }
            outln!("{event}");
        } else {
            let how = match (result.status, result.reason) {
                (Status::Ran, _) => format!("ran in {:.1}s", result.seconds),
                (Status::Skipped, Some(reason)) => format!("skipped ({reason})"),
                (Status::Skipped, None) => "skipped".to_owned(),
                (Status::Failed, _) => {
                    format!("failed after {:.1}s (exit {})", result.seconds, result.exit.unwrap_or_default())
                }
            };
            let (on, off) = match (self.terminal, result.status) {
                (true, Status::Failed) => ("\x1b[31m", "\x1b[0m"),
                (true, Status::Ran) => ("\x1b[32m", "\x1b[0m"),
                (true, Status::Skipped) => ("\x1b[2m", "\x1b[0m"),
                (false, _) => ("", ""),
            };
            outln!("{on}<== step {index}/{total} {}: {how}{off}", result.step);
        }
        self.results.push(result);
    }

    /// The failed step's last lines, on stderr (and in the JSON event stream).
    pub(crate) fn tail(&self, step: &str, lines: &[String]) {
        errln!("error: step `{step}` failed; the last {} line(s) of its output:", lines.len());
        for line in lines {
            errln!("  {line}");
        }
        if self.json {
            outln!("{}", json!({"event": "tail", "step": step, "lines": lines}));
        }
    }

    /// The job's end: every step's status and time, the ones not reached, the total.
    pub(crate) fn summary(&self, env: &str, complete: bool, left: &[&'static str], took: Duration) {
        let skipped: Vec<&str> = self
            .results
            .iter()
            .filter(|r| r.status == Status::Skipped && r.reason == Some(DONE))
            .map(|r| r.step)
            .collect();
        if self.json {
            let summary = json!({
                "event": "summary",
                "environment": env,
                "status": if complete { "complete" } else { "failed" },
                "seconds": seconds(took),
                "steps": self.results,
                "skippedAsDone": skipped,
                "notRun": left,
            });
            outln!("{summary}");
            return;
        }
        let ran = self.results.iter().filter(|r| r.status == Status::Ran).count();
        let word = if complete { "complete" } else { "stopped" };
        outln!("deploy of {env} {word} in {:.1}s: {ran} step(s) ran", seconds(took));
        if !skipped.is_empty() {
            outln!("skipped as done (the lease's journal): {}", skipped.join(", "));
        }
        if !left.is_empty() {
            outln!("not run: {}", left.join(", "));
        }
    }
}

/// A step's result with its time rounded as shown.
pub(crate) fn result(step: &'static str, status: Status, took: Duration, exit: Option<u8>) -> StepResult {
    StepResult { step, status, reason: None, seconds: seconds(took), exit }
}

impl crate::pulumi_cli::Lines for Reporter {
    fn line(&self, text: &str) {
        Reporter::line(self, text);
    }
}
