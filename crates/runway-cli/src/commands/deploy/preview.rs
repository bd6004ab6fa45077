//! `runway deploy --env ENV --preview`: a pull request's read-only look at what the deploy
//! would do. It runs preflight (reads only), emits the program into the stack's folder (local
//! files only) and `pulumi preview --json` into a file for `runway diff --pulumi-preview`; no
//! lease (the lease is an SSM write), no Infisical or AWS write (docs/pipeline.md, "A pull
//! request's preview").

use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;

use super::report::{Reporter, Status, result};
use super::steps::Step;
use super::{Job, in_process};
use crate::prelude::*;
use crate::pulumi_cli::Pulumi;

/// The preview file's name in the stack's folder when `--preview-out` is not given; hidden, so
/// that it is not part of the program's fingerprint (the lease journal's `up`s).
pub(crate) const DEFAULT_FILE: &str = ".runway-preview.json";

/// The preview's own step, after preflight and emit.
const PREVIEW: &str = "preview";

/// Where the preview goes: `--preview-out`, else [`DEFAULT_FILE`] in the stack's folder.
pub(crate) fn file(job: &Job<'_>) -> PathBuf {
    job.args.preview_out.clone().unwrap_or_else(|| job.cwd.join(DEFAULT_FILE))
}

/// Runs the preview: preflight, emit, `pulumi preview --json`; stops at the first failure with
/// its exit code and the tail of its output.
pub(crate) fn run(
    job: &Job<'_>,
    pulumi: &Pulumi,
    reporter: &mut Reporter,
    started: Instant,
) -> Result<(), Exit> {
    let env = job.args.env.env.as_str();
    let out = file(job);
    let total = 3;
    let mut outcome = Ok(());
    for (i, step) in [Step::Preflight, Step::Emit].into_iter().enumerate() {
        reporter.start(step.name(), step.what(), i + 1, total);
        let began = Instant::now();
        if let Err((Exit(code), tail)) = in_process(step, job, pulumi, reporter) {
            reporter.end(result(step.name(), Status::Failed, began.elapsed(), Some(code)), i + 1, total);
            reporter.tail(step.name(), &tail);
            outcome = Err(Exit(code));
            break;
        }
        reporter.end(result(step.name(), Status::Ran, began.elapsed(), None), i + 1, total);
    }
    if outcome.is_ok() {
        reporter.start(PREVIEW, "what Pulumi would do, into a file (pulumi preview --json)", total, total);
        let began = Instant::now();
        outcome = pulumi.preview(&out, reporter);
        let took = began.elapsed();
        match outcome {
            Ok(()) => {
                reporter.end(result(PREVIEW, Status::Ran, took, None), total, total);
                let text = format!(
                    "preview written to {}: runway diff --base-ref REV --pulumi-preview {env}={0}",
                    out.display()
                );
                reporter.note(PREVIEW, &text, json!({"file": out}));
            }
            Err(Exit(code)) => {
                reporter.end(result(PREVIEW, Status::Failed, took, Some(code)), total, total);
                reporter.tail(PREVIEW, &pulumi.last_lines());
            }
        }
    }
    let ran: Vec<&str> = reporter.results.iter().map(|r| r.step).collect();
    let left: Vec<&'static str> = [Step::Preflight.name(), Step::Emit.name(), PREVIEW]
        .into_iter()
        .filter(|s| !ran.contains(s))
        .collect();
    reporter.summary(env, outcome.is_ok(), &left, started.elapsed());
    outcome
}
