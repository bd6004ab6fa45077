//! `runway deploy --env ENV`: the deploy job in one process, in the documented order
//! (docs/pipeline.md): preflight, `secrets prepare`, emit, `pulumi up` without the services,
//! the stack's outputs, `migrate`, `pulumi up`, `rollout`, `secrets publish`, `ssm publish`,
//! `ssm verify`. runway's steps are its commands' own `run`s, each given its own `Args` parsed
//! from the command line a person would type (`steps.rs`); Pulumi runs as its CLI.
//!
//! A lease on the environment (an SSM parameter, `aws_adapter::aws::lease`) keeps two jobs
//! from interleaving; its journal lets the job that takes over after a death skip the `up`s the
//! dead one finished for the same program. Exit codes: a failed step's own, 6 when another
//! deploy holds the lease, 2 usage, 4 the lease could not be read or written.
//!
//! `--preview` is the pull request's read-only run instead (`preview.rs`): preflight, emit,
//! `pulumi preview --json` into a file, without the lease.

mod lease;
mod preview;
pub(crate) mod report;
mod steps;

use std::time::{Duration, Instant};

use aws_adapter::aws::{ClientSettings, DoneStep, LeaseError};
use serde_json::json;

use crate::args::{interval, timeout};
use crate::output::{StepCapture, capture_step};
use crate::prelude::*;
use crate::pulumi_cli::{self as pulumi, Pulumi};
use lease::{EXIT_HELD, Holder};
use report::{DONE, Reporter, Status, result};
use steps::Step;

/// The whole deploy job in one process, in the documented order (preflight, secrets
/// prepare, emit, pulumi up without the services, migrate, pulumi up, rollout, secrets
/// publish, ssm publish, ssm verify), under a lease on the environment; run again after a
/// failure, it goes on (docs/pipeline.md). Exit: the failed step's code, 6 when another
/// deploy holds the lease. `--preview`: read-only, for a pull request (preflight, emit,
/// `pulumi preview --json` into a file for `runway diff --pulumi-preview`).
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    env: EnvArgs,
    /// The Pulumi stack (default: the environment's name).
    #[arg(long)]
    stack: Option<String>,
    /// The stack's folder: where the program is emitted and Pulumi runs (default: `infra/ENV`
    /// beside the runway file, as `runway init` makes it).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// The Pulumi CLI to run.
    #[arg(long, value_name = "PATH", default_value = "pulumi")]
    pulumi: PathBuf,
    /// Start at this step: the earlier ones are skipped (for jobs split in two).
    #[arg(long, value_enum, value_name = "STEP")]
    from: Option<Step>,
    /// Stop after this step.
    #[arg(long, value_enum, value_name = "STEP")]
    until: Option<Step>,
    /// How long the environment's lease holds unless renewed (every third of it): a job that
    /// dies keeps other deploys out this long. From 1s to 6h.
    #[arg(long, default_value = "10m", value_parser = timeout)]
    lease_duration: Duration,
    /// Who runs this job, as a refused deploy shows it (default: the GitHub run, else
    /// user@host and the process id).
    #[arg(long, value_name = "TEXT")]
    holder: Option<String>,
    /// `migrate`'s most time per task, from 1s to 6h.
    #[arg(long, default_value = "30m", value_parser = timeout)]
    migrate_timeout: Duration,
    /// `rollout`'s most time, from 1s to 6h.
    #[arg(long, default_value = "15m", value_parser = timeout)]
    rollout_timeout: Duration,
    /// The pause between two looks (`migrate`, `rollout`), from 1s to 5m.
    #[arg(long, default_value = "10s", value_parser = interval)]
    interval: Duration,
    /// Read-only, for a pull request: preflight, emit and `pulumi preview --json` into
    /// `--preview-out`, for `runway diff --pulumi-preview`; no lease, no AWS or Infisical write.
    #[arg(long, conflicts_with_all = ["from", "until"])]
    preview: bool,
    /// Where `--preview` writes Pulumi's JSON (default: `.runway-preview.json` in the stack's
    /// folder).
    #[arg(long, value_name = "FILE", requires = "preview")]
    preview_out: Option<PathBuf>,
    /// `json`: one event per line on stdout (`{"event":"lease"|"step"|"tail"|"summary",..}`), the
    /// steps' own text on stderr.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format.json()
    }
}

/// One job: its flags and the places the steps share.
pub(crate) struct Job<'a> {
    pub(crate) args: &'a Args,
    /// The stack's folder.
    pub(crate) cwd: PathBuf,
    pub(crate) stack: String,
    /// The stack outputs' file (private; removed at the end).
    pub(crate) outputs: PathBuf,
    /// The plan when the job deploys a preview: its logins are registered with the proxies it
    /// shares once `secrets prepare` wrote their secrets (docs/previews.md).
    pub(crate) preview: Option<&'a runtime_plan::Plan>,
}

impl Job<'_> {
    /// The stack settings, `Pulumi.<stack>.yaml` in the folder.
    pub(crate) fn stack_file(&self) -> PathBuf {
        self.cwd.join(format!("Pulumi.{}.yaml", self.stack))
    }
}

/// Removes the outputs file whatever happens (it holds the stack's secrets).
struct Removed<'a>(&'a Path);

impl Drop for Removed<'_> {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.0);
    }
}

/// Runs `runway deploy`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let started = Instant::now();
    let a = &args;
    let session = Session::open(&a.env, out)?;
    // A pinned account is checked before the lease, the job's first write (exit 2 naming both
    // accounts); the steps then find it checked.
    session.runtime()?.block_on(crate::session::aws(&session.plan, out))?;
    let plan = session.plan;
    let env = a.env.env.as_str();
    let root = a.env.root.file.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let root = if root.as_os_str().is_empty() { PathBuf::from(".") } else { root };
    let cwd = a.cwd.clone().unwrap_or_else(|| root.join("infra").join(env));
    std::fs::create_dir_all(&cwd).map_err(|e| out.usage(format!("cannot create {}: {e}", cwd.display())))?;
    let stack = a.stack.clone().unwrap_or_else(|| env.to_owned());
    let outputs =
        std::env::temp_dir().join(format!("runway-deploy-{}-{}-{}.json", plan.product, env, lease::job_id()));
    let _removed = Removed(&outputs);
    let preview = plan.preview.is_some().then_some(&plan);
    let job = Job { args: a, cwd: cwd.clone(), stack: stack.clone(), outputs: outputs.clone(), preview };
    let pulumi = Pulumi { program: a.pulumi.clone(), stack, cwd, tail: Default::default() };
    let mut reporter = Reporter::new(a.format);
    if a.preview {
        return preview::run(&job, &pulumi, &mut reporter, started);
    }

    let parameter = format!("{}/runway/deploy/lease", plan.secrets.ssm_prefix);
    let holder = a.holder.clone().unwrap_or_else(lease::holder);
    let lease =
        match Holder::take(&ClientSettings::new(plan.region.clone()), &parameter, holder, a.lease_duration) {
            Ok(lease) => lease,
            Err(e) => return Err(refused(&reporter, &e)),
        };
    let record = lease.record();
    let previous = lease.previous();
    let (event, text) = match &previous {
        None => {
            ("taken", format!("lease {parameter} taken until {}", aws_adapter::aws::utc(record.expires_at)))
        }
        Some(p) => ("taken-over", format!("lease {parameter} taken over from {p} (released or expired)")),
    };
    reporter.note("lease", &text, json!({"action": event, "parameter": parameter, "holder": record.holder}));

    let outcome = steps_in_order(&job, &pulumi, &lease, &mut reporter);
    let finished_all = outcome.is_ok() && a.until.is_none_or(|u| u == Step::SsmVerify);
    if let Err(e) = lease.release(!finished_all) {
        errln!("warning: {e}; it expires by itself");
    }
    let left: Vec<&'static str> = Step::ALL
        .iter()
        .filter(|s| !reporter.results.iter().any(|r| r.step == s.name()))
        .filter(|s| a.until.is_none_or(|u| **s <= u))
        .map(|s| s.name())
        .collect();
    reporter.summary(env, outcome.is_ok(), &left, started.elapsed());
    outcome
}

/// A lease this job could not take: who holds it and until when (exit 6), or why (exit 4).
fn refused(reporter: &Reporter, e: &LeaseError) -> Exit {
    errln!("error: {e}");
    let code = match e {
        LeaseError::Held { holder, .. } => {
            errln!(
                "  help: wait for it to end (or for its lease to expire), then run the same command again"
            );
            if reporter.json() {
                let until = aws_adapter::aws::utc(holder.expires_at);
                let event = json!({"event": "lease", "action": "refused", "holder": holder.holder,
                    "job": holder.job, "until": until, "exit": EXIT_HELD});
                outln!("{event}");
            }
            EXIT_HELD
        }
        LeaseError::Lost { .. } | LeaseError::Unreadable { .. } | LeaseError::Remote { .. } => EXIT_REMOTE,
        _ => EXIT_REMOTE,
    };
    Exit(code)
}

/// The steps, each skipped (outside `--from`/`--until`, or done by the job this one took over
/// from) or run; stops at the first that fails.
fn steps_in_order(
    job: &Job<'_>,
    pulumi: &Pulumi,
    lease: &Holder,
    reporter: &mut Reporter,
) -> Result<(), Exit> {
    let a = job.args;
    let previous = lease.previous();
    let journal = previous.as_ref().map(|p| p.done.clone()).unwrap_or_default();
    // A dead job (expired, not released) that was in an `up` left Pulumi's lock on the stack.
    let mut stale_lock = previous.as_ref().is_some_and(|p| {
        !p.released
            && p.running
                .as_deref()
                .is_some_and(|r| Step::ALL.iter().any(|s| s.name() == r && s.runs_pulumi_up()))
    });
    let total = Step::ALL.len();
    for (i, step) in Step::ALL.into_iter().enumerate() {
        let index = i + 1;
        // The outputs are read (reads only) whenever a later step needs them.
        let needed = step == Step::StackOutputs && a.until.is_none_or(|u| u >= Step::Migrate);
        let outside = match (a.from, a.until) {
            (Some(from), _) if step < from && !needed => Some("before --from"),
            (_, Some(until)) if step > until => Some("after --until"),
            _ => None,
        };
        if let Some(reason) = outside {
            if reason == "before --from" {
                reporter.end(
                    report::StepResult {
                        reason: Some(reason),
                        ..result(step.name(), Status::Skipped, Duration::ZERO, None)
                    },
                    index,
                    total,
                );
            }
            continue;
        }
        lease.check().map_err(|e| refused(reporter, &e))?;
        let input = step.skippable().then(|| steps::fingerprint(&job.cwd));
        let done = |s: Step| journal.iter().any(|d| d.step == s.name() && Some(&d.input) == input.as_ref());
        // The full `up` done covers the first one too.
        if step.skippable() && (done(step) || (step == Step::UpWithoutServices && done(Step::Up))) {
            reporter.end(
                report::StepResult {
                    reason: Some(DONE),
                    ..result(step.name(), Status::Skipped, Duration::ZERO, None)
                },
                index,
                total,
            );
            continue;
        }
        lease.journal(Some(step.name()), None).map_err(|e| refused(reporter, &e))?;
        reporter.start(step.name(), step.what(), index, total);
        let began = Instant::now();
        if stale_lock && step.runs_pulumi_up() {
            reporter.note(
                "pulumi",
                "the job this one took over died in a `pulumi up`: pulumi cancel --yes",
                json!({}),
            );
            // A stack without a lock makes `cancel` fail; the `up` then says what is wrong.
            let _ = pulumi.cancel(reporter);
            stale_lock = false;
        }
        let outcome = in_process(step, job, pulumi, reporter);
        let took = began.elapsed();
        match outcome {
            Ok(()) => {
                let done = input.map(|input| DoneStep { step: step.name().to_owned(), input });
                lease.journal(None, done).map_err(|e| refused(reporter, &e))?;
                reporter.end(result(step.name(), Status::Ran, took, None), index, total);
            }
            Err((Exit(code), tail)) => {
                reporter.end(result(step.name(), Status::Failed, took, Some(code)), index, total);
                reporter.tail(step.name(), &tail);
                return Err(Exit(code));
            }
        }
    }
    Ok(())
}

/// Runs a step with its output captured (and, for JSON, on stderr): its failure with the
/// last lines it printed.
pub(super) fn in_process(
    step: Step,
    job: &Job<'_>,
    pulumi: &Pulumi,
    reporter: &Reporter,
) -> Result<(), (Exit, Vec<String>)> {
    if step == Step::UpWithoutServices || step == Step::Up || step == Step::StackOutputs {
        return steps::run(step, job, pulumi, reporter).map_err(|e| (e, pulumi.last_lines()));
    }
    capture_step(Some(StepCapture { to_stderr: reporter.json(), text: String::new() }));
    let outcome = steps::run(step, job, pulumi, reporter);
    let text = capture_step(None).map(|c| c.text).unwrap_or_default();
    outcome.map_err(|e| {
        let lines: Vec<&str> = text.lines().collect();
        let from = lines.len().saturating_sub(pulumi::TAIL);
        (e, lines[from..].iter().map(|l| (*l).to_owned()).collect())
    })
}
