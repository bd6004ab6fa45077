//! The steps of `runway deploy`, in the documented order (docs/pipeline.md), and how each is
//! carried out: runway's own commands called in this process, Pulumi as its CLI.

use std::path::Path;

use clap::ValueEnum;

use super::pulumi::Pulumi;
use super::{Job, report::Reporter};
use crate::args::{Format, PlanArgs};
use crate::deploy::{SecretsCommand, SsmCommand};
use crate::output::{Exit, Out};
use crate::{emit, migrate, preflight, rollout};

/// A step of the deploy job, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub(crate) enum Step {
    /// `runway preflight` with the stack's settings: reads only.
    Preflight,
    /// `runway secrets prepare`.
    SecretsPrepare,
    /// `runway emit pulumi` into the stack's folder.
    Emit,
    /// `pulumi up` without the ECS services.
    UpWithoutServices,
    /// `pulumi stack output --json --show-secrets` to a private file.
    StackOutputs,
    /// `runway migrate`.
    Migrate,
    /// The full `pulumi up`.
    Up,
    /// `runway rollout`.
    Rollout,
    /// `runway secrets publish`.
    SecretsPublish,
    /// `runway ssm publish`.
    SsmPublish,
    /// `runway ssm verify`.
    SsmVerify,
}

impl Step {
    /// Every step, in the order they run.
    pub(crate) const ALL: [Step; 11] = [
        Step::Preflight,
        Step::SecretsPrepare,
        Step::Emit,
        Step::UpWithoutServices,
        Step::StackOutputs,
        Step::Migrate,
        Step::Up,
        Step::Rollout,
        Step::SecretsPublish,
        Step::SsmPublish,
        Step::SsmVerify,
    ];

    /// The name on the command line and in the report.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Step::Preflight => "preflight",
            Step::SecretsPrepare => "secrets-prepare",
            Step::Emit => "emit",
            Step::UpWithoutServices => "up-without-services",
            Step::StackOutputs => "stack-outputs",
            Step::Migrate => "migrate",
            Step::Up => "up",
            Step::Rollout => "rollout",
            Step::SecretsPublish => "secrets-publish",
            Step::SsmPublish => "ssm-publish",
            Step::SsmVerify => "ssm-verify",
        }
    }

    /// What the step does, in the heading.
    pub(crate) fn what(self) -> &'static str {
        match self {
            Step::Preflight => "read the registries and the account (runway preflight)",
            Step::SecretsPrepare => "the key, the credentials and their copies (runway secrets prepare)",
            Step::Emit => "write the program into the stack's folder (runway emit pulumi)",
            Step::UpWithoutServices => {
                "everything but the ECS services (pulumi up --exclude ... --exclude-dependents)"
            }
            Step::StackOutputs => "read the stack's outputs (pulumi stack output --json --show-secrets)",
            Step::Migrate => "each database's bootstrap, then each workload's migrate (runway migrate)",
            Step::Up => "the services move to the new task definitions (pulumi up)",
            Step::Rollout => "wait until every service runs what the stack declared (runway rollout)",
            Step::SecretsPublish => "connection details to Infisical (runway secrets publish)",
            Step::SsmPublish => "the parameters again, restarts where one changed (runway ssm publish)",
            Step::SsmVerify => "every referenced parameter is there (runway ssm verify)",
        }
    }

    /// Whether a finished run recorded in the lease's journal, for the same program, lets a
    /// later job skip the step. Only the two `pulumi up`s: each is idempotent but takes minutes
    /// on AWS; every other step is cheap and idempotent (or reads only) and simply runs again,
    /// which also checks that what it did is still there (docs/pipeline.md, "Run again").
    pub(crate) fn skippable(self) -> bool {
        match self {
            Step::UpWithoutServices | Step::Up => true,
            Step::Preflight
            | Step::SecretsPrepare
            | Step::Emit
            | Step::StackOutputs
            | Step::Migrate
            | Step::Rollout
            | Step::SecretsPublish
            | Step::SsmPublish
            | Step::SsmVerify => false,
        }
    }

    /// Whether the step runs Pulumi (a killed one may leave the stack locked).
    pub(crate) fn runs_pulumi_up(self) -> bool {
        matches!(self, Step::UpWithoutServices | Step::Up)
    }
}

/// The plan arguments each step is given.
fn plan_args(job: &Job) -> PlanArgs {
    PlanArgs { file: job.args.args.file.clone(), catalogue: job.args.args.catalogue.clone() }
}

/// Runs one step; its text goes through `out!` (captured by the caller), Pulumi's through
/// `reporter`.
pub(crate) fn run(step: Step, job: &Job, pulumi: &Pulumi, reporter: &Reporter) -> Result<(), Exit> {
    // Each step reports its failures as text: the job's own JSON is the event stream.
    let out = Out::new(false);
    let env = job.args.env.as_str();
    let args = plan_args(job);
    let a = &job.args;
    match step {
        Step::Preflight => {
            let stack = job.stack_file();
            let stack = stack.exists().then_some(stack.as_path());
            preflight::run(
                &preflight::Args { env, stack, no_aws: false, format: Format::Text, plan: &args },
                out,
            )
        }
        Step::SecretsPrepare => crate::deploy::secrets(
            &SecretsCommand::Prepare {
                env: env.to_owned(),
                rotate: vec![],
                dry_run: false,
                format: Format::Text,
                args,
            },
            out,
        ),
        Step::Emit => emit::pulumi(env, &job.cwd, Format::Text, &args, out),
        Step::UpWithoutServices => pulumi.up(true, reporter),
        Step::StackOutputs => pulumi.outputs(&job.outputs, reporter),
        Step::Migrate => migrate::run(
            &migrate::MigrateArgs {
                env,
                workload: None,
                outputs: &job.outputs,
                timing: aws_adapter::aws::TaskTiming { timeout: a.migrate_timeout, interval: a.interval },
                format: Format::Text,
                args: &args,
            },
            out,
        ),
        Step::Up => pulumi.up(false, reporter),
        Step::Rollout => rollout::run(env, a.rollout_timeout, a.interval, Format::Text, &args, out),
        Step::SecretsPublish => crate::deploy::secrets(
            &SecretsCommand::Publish {
                env: env.to_owned(),
                outputs: job.outputs.clone(),
                dry_run: false,
                format: Format::Text,
                args,
            },
            out,
        ),
        Step::SsmPublish => crate::deploy::ssm(
            &SsmCommand::Publish {
                env: env.to_owned(),
                no_restart: false,
                dry_run: false,
                format: Format::Text,
                args,
            },
            out,
        ),
        Step::SsmVerify => {
            crate::deploy::ssm(&SsmCommand::Verify { env: env.to_owned(), format: Format::Text, args }, out)
        }
    }
}

/// A fingerprint of the program in `dir` (every file not hidden, by name and content): what
/// the journal's `up`s are recorded against.
pub(crate) fn fingerprint(dir: &Path) -> String {
    let mut files = Vec::new();
    collect(dir, dir, &mut files);
    files.sort();
    // FNV-1a, 64 bits: stable across runway versions, unlike std's hasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (name, bytes) in &files {
        for b in name.as_bytes().iter().chain([0u8].iter()).chain(bytes.iter()) {
            hash ^= u64::from(*b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, files);
        } else if let Ok(bytes) = std::fs::read(&path) {
            let name = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().into_owned();
            files.push((name, bytes));
        }
    }
}
