//! The steps of `runway deploy`, in the documented order (docs/pipeline.md), and how each is
//! carried out: runway's own commands called in this process, Pulumi as its CLI.

use std::ffi::OsString;
use std::path::Path;

use clap::{FromArgMatches, ValueEnum};

use super::{Job, report::Reporter};
use crate::args::shown;
use crate::commands::{emit, migrate, preflight, rollout, secrets, ssm};
use crate::prelude::*;
use crate::pulumi_cli::Pulumi;

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

/// A step's command line after `runway`: `words` (the subcommand, the step's own flags), then
/// the job's `--env`, `--catalogue` and root file, as a person would type it.
fn argv(job: &Job, words: &[&str], paths: &[(&str, &Path)]) -> Vec<OsString> {
    let root = &job.args.env.root;
    let flag = |name: &str, value: &std::ffi::OsStr| {
        let mut f = OsString::from(format!("--{name}="));
        f.push(value);
        f
    };
    let mut argv: Vec<OsString> =
        std::iter::once("runway").chain(words.iter().copied()).map(OsString::from).collect();
    argv.push(flag("env", job.args.env.env.as_ref()));
    argv.extend(paths.iter().map(|(name, path)| flag(name, path.as_os_str())));
    if let Some(catalogue) = &root.catalogue {
        argv.push(flag("catalogue", catalogue.as_os_str()));
    }
    // After `--`: a file named `-x` is still the file.
    argv.extend([OsString::from("--"), root.file.clone().into_os_string()]);
    argv
}

/// A command's own `Args` from its command line (`argv`), as `runway` would parse them: the
/// step then runs exactly what the documented command runs.
fn parsed<A: clap::Args + FromArgMatches>(argv: Vec<OsString>) -> Result<A, Exit> {
    let command = A::augment_args(clap::Command::new("runway"));
    command
        .try_get_matches_from(argv)
        .and_then(|m| A::from_arg_matches(&m))
        // Invariant: the job writes these lines from flags that parsed; a failure is a bug here.
        .map_err(|e| Out::new(false).usage(format!("runway deploy built a step it cannot parse: {e}")))
}

/// A runway step: its command's own `Args`, parsed.
enum Runway {
    Preflight(preflight::Args),
    Secrets(secrets::Args),
    Emit(emit::Args),
    Migrate(migrate::Args),
    Rollout(rollout::Args),
    Ssm(ssm::Args),
}

/// The runway command a step runs, with its `Args`; `None` for Pulumi's steps.
fn runway_step(step: Step, job: &Job) -> Result<Option<Runway>, Exit> {
    let a = job.args;
    let (migrate_timeout, rollout_timeout, interval) = (
        shown(a.migrate_timeout).to_string(),
        shown(a.rollout_timeout).to_string(),
        shown(a.interval).to_string(),
    );
    let outputs = ("outputs", job.outputs.as_path());
    let command = match step {
        Step::Preflight => {
            let stack = job.stack_file();
            let stack: &[(&str, &Path)] = if stack.exists() { &[("stack", &stack)] } else { &[] };
            Runway::Preflight(parsed(argv(job, &[], stack))?)
        }
        Step::SecretsPrepare => Runway::Secrets(parsed(argv(job, &["prepare"], &[]))?),
        Step::Emit => Runway::Emit(parsed(argv(job, &["pulumi"], &[("out", &job.cwd)]))?),
        Step::Migrate => {
            let timing = ["--timeout", &migrate_timeout, "--interval", &interval];
            Runway::Migrate(parsed(argv(job, &timing, &[outputs]))?)
        }
        Step::Rollout => {
            let timing = ["--timeout", &rollout_timeout, "--interval", &interval];
            Runway::Rollout(parsed(argv(job, &timing, &[]))?)
        }
        Step::SecretsPublish => Runway::Secrets(parsed(argv(job, &["publish"], &[outputs]))?),
        Step::SsmPublish => Runway::Ssm(parsed(argv(job, &["publish"], &[]))?),
        Step::SsmVerify => Runway::Ssm(parsed(argv(job, &["verify"], &[]))?),
        Step::UpWithoutServices | Step::StackOutputs | Step::Up => return Ok(None),
    };
    Ok(Some(command))
}

/// Runs one step; its text goes through `out!` (captured by the caller), Pulumi's through
/// `reporter`.
pub(crate) fn run(step: Step, job: &Job, pulumi: &Pulumi, reporter: &Reporter) -> Result<(), Exit> {
    // Each step reports its failures as text: the job's own JSON is the event stream.
    let out = Out::new(false);
    match runway_step(step, job)? {
        Some(Runway::Preflight(args)) => preflight::run(args, out),
        Some(Runway::Secrets(args)) => {
            secrets::run(args, out)?;
            match job.preview {
                Some(plan) if step == Step::SecretsPrepare => register_logins(plan, out),
                _ => Ok(()),
            }
        }
        Some(Runway::Emit(args)) => emit::run(args, out),
        Some(Runway::Migrate(args)) => migrate::run(args, out),
        Some(Runway::Rollout(args)) => rollout::run(args, out),
        Some(Runway::Ssm(args)) => ssm::run(args, out),
        None => match step {
            Step::UpWithoutServices => pulumi.up(true, reporter),
            Step::StackOutputs => pulumi.outputs(&job.outputs, reporter),
            Step::Up => pulumi.up(false, reporter),
            Step::Preflight
            | Step::SecretsPrepare
            | Step::Emit
            | Step::Migrate
            | Step::Rollout
            | Step::SecretsPublish
            | Step::SsmPublish
            | Step::SsmVerify => Err(Out::new(false).usage(format!("{} has no command", step.name()))),
        },
    }
}

/// A preview's logins registered with the proxies it shares, their secrets just written
/// (docs/previews.md, "The shared proxy's logins"): before `migrate`'s bootstrap and the
/// workloads log in through them.
fn register_logins(plan: &runtime_plan::Plan, out: Out) -> Result<(), Exit> {
    crate::session::runtime(out)?.block_on(async {
        let aws = crate::session::aws(plan, out).await?;
        crate::preview_logins::register(&aws, plan, out).await.map(drop)
    })
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

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::args::CommandArgs as _;

    /// Each runway step's command line parses into its command's own `Args` (the flag names
    /// are the commands' real ones), with a root file and catalogue a flag parser could mistake
    /// for options, and the job's waits handed on.
    #[test]
    fn each_runway_step_is_its_command_parsed_from_the_flags_a_person_types() {
        let deploy: super::super::Args = parsed(
            [
                "runway",
                "--env",
                "dev",
                "--migrate-timeout",
                "90s",
                "--interval",
                "2s",
                "--catalogue=-c.yaml",
                "--",
                "-x.yaml",
            ]
            .map(OsString::from)
            .to_vec(),
        )
        .map_err(|Exit(code)| code)
        .unwrap();
        let job = Job {
            args: &deploy,
            cwd: PathBuf::from("infra/dev"),
            stack: "dev".into(),
            outputs: PathBuf::from("/tmp/outputs.json"),
            preview: None,
        };
        let mut runway = Vec::new();
        for step in Step::ALL {
            match runway_step(step, &job).map_err(|Exit(code)| code).unwrap() {
                Some(command) => {
                    let json = match &command {
                        Runway::Preflight(a) => a.json(),
                        Runway::Secrets(a) => a.json(),
                        Runway::Emit(a) => a.json(),
                        Runway::Migrate(a) => a.json(),
                        Runway::Rollout(a) => a.json(),
                        Runway::Ssm(a) => a.json(),
                    };
                    assert!(!json, "{} reports as text", step.name());
                    runway.push(step.name());
                }
                None => assert!(step.runs_pulumi_up() || step == Step::StackOutputs, "{}", step.name()),
            }
        }
        assert_eq!(runway.len(), 8, "{runway:?}");
        let migrate = argv(&job, &["--timeout", &shown(deploy.migrate_timeout).to_string()], &[]);
        let migrate: Vec<String> = migrate.iter().map(|a| a.to_string_lossy().into_owned()).collect();
        assert_eq!(
            migrate,
            ["runway", "--timeout", "90s", "--env=dev", "--catalogue=-c.yaml", "--", "-x.yaml"]
        );
    }
}
