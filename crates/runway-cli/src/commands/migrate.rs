//! `runway migrate --env ENV --outputs FILE [--workload NAME]`: the deploy job's step between
//! the first `pulumi up` (everything but the services) and the full one. Runs the plan's
//! one-off tasks in order: each postgres resource's bootstrap (its consumers' login roles,
//! which the migrations log in as), then each workload's `migrate` with the new image (or
//! `NAME`'s alone); stops at the first that does not succeed: exit 1 with its exit code (or
//! why it never started) and where its logs are, 5 on the timeout, 4 when a call failed
//! (docs/pipeline.md). A task whose record matches is skipped; a bootstrap's record folds in
//! the versions of the parameters it reads, so a changed password runs it again. A bootstrap
//! starts once its proxy has an available target (within `--timeout`; exit 5 when it has
//! none by then); its container tries to connect a bounded number of times, then exits 2.
//!
//! The plan names the tasks and their records; the stack outputs (`--outputs`, the file
//! `secrets publish` takes) give the revision, the cluster and the network; the AWS adapter runs
//! them (`run_one_off`, generic over what a task is for).

use aws_adapter::aws::{OneOffRun, TaskOutcome, TaskReport, TaskTiming};
use runtime_plan::{OneOffTask, Plan, TaskPurpose};
use serde::Serialize;

use crate::args::shown;
use crate::one_off::{fold_versions, run_of};
use crate::prelude::*;

/// Deploy job, between the first `pulumi up` (without the services) and the full one: run
/// each workload's `migrate` as a one-off Fargate task with the new image, and wait for it.
/// A success is recorded and not run again for the same image and command. Exit 1 when a
/// task exits non-zero or never starts (with its exit code and where its logs are), 5 when
/// the timeout came first.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    env: EnvArgs,
    /// Only this workload's `migrate` (by default every workload's, in file order).
    #[arg(long)]
    workload: Option<String>,
    /// The stack outputs (`pulumi stack output --json --show-secrets`), as `secrets publish`
    /// takes them: each task's revision, cluster, subnets and security groups.
    #[arg(long)]
    outputs: PathBuf,
    #[command(flatten)]
    timing: Timing<MigrateWaits>,
    /// `json`: `{"environment","region","verdict","tasks":[{"name","state",..}]}` on stdout,
    /// progress lines on stderr.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format.json()
    }
}

/// `runway migrate`'s waits: for a task to stop.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MigrateWaits;

impl Waits for MigrateWaits {
    const TIMEOUT: &'static str = "30m";
    const TIMEOUT_HELP: &'static str = "The most time to wait for a task to stop, from 1s to 6h";
    const INTERVAL: &'static str = "5s";
    const INTERVAL_HELP: &'static str = "The pause between two looks at a task, from 1s to 5m";
}

/// The plan's bootstraps, then its `migrate` tasks or the one of `workload`; exit 2 for a
/// workload without one.
fn chosen<'p>(plan: &'p Plan, workload: Option<&str>) -> Result<Vec<&'p OneOffTask>, String> {
    let bootstraps = plan.tasks.iter().filter(|t| matches!(t.purpose, TaskPurpose::DatabaseBootstrap { .. }));
    let migrations: Vec<&OneOffTask> =
        plan.tasks.iter().filter(|t| matches!(t.purpose, TaskPurpose::Migrate { .. })).collect();
    let Some(name) = workload else { return Ok(bootstraps.chain(migrations).collect()) };
    if !plan.workloads.iter().any(|w| w.name == name) {
        let known: Vec<&str> = plan.workloads.iter().map(|w| w.name.as_str()).collect();
        return Err(format!(
            "{name} is not a workload of {} (workloads: {})",
            plan.environment,
            known.join(", ")
        ));
    }
    let one: Vec<&OneOffTask> = migrations.into_iter().filter(|t| t.purpose.subject() == name).collect();
    if one.is_empty() {
        return Err(format!("workload {name} declares no `migrate` (add `migrate: {{ command: [...] }}`)"));
    }
    Ok(bootstraps.chain(one).collect())
}

/// The report as `--format json` prints it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MigrateJson<'a> {
    environment: &'a str,
    region: &'a str,
    verdict: &'static str,
    tasks: &'a [TaskReport],
}

/// Runs `runway migrate`.
pub(crate) fn run(a: Args, out: Out) -> Result<(), Exit> {
    let session = Session::open(&a.env, out)?;
    let plan = &session.plan;
    let env = a.env.env.as_str();
    let tasks = chosen(plan, a.workload.as_deref()).map_err(|e| out.usage(e))?;
    if tasks.is_empty() {
        if a.format == Format::Json {
            print_json(&MigrateJson { environment: env, region: &plan.region, verdict: "none", tasks: &[] });
        } else {
            outln!("{env} has no one-off task (no postgres resource, no `migrate`): nothing to run");
        }
        return Ok(());
    }
    let outputs = crate::stack_outputs::read(&a.outputs).map_err(|e| out.usage(e))?;
    let mut runs: Vec<OneOffRun> = tasks
        .iter()
        .map(|t| {
            let run = run_of(plan, t, &outputs, &a.outputs)?;
            Ok(OneOffRun { proxy: t.proxy.as_ref().map(ToString::to_string), ..run })
        })
        .collect::<Result<_, String>>()
        .map_err(|e| out.usage(e))?;
    let mut progress = |line: &str| out.progress(line);
    let timing = TaskTiming { timeout: a.timing.timeout, interval: a.timing.interval };
    let rt = session.runtime()?;
    let mut reports: Vec<TaskReport> = Vec::new();
    let aws = rt.block_on(crate::session::aws(plan, out))?;
    let result = rt.block_on(async {
        for (task, run) in tasks.iter().zip(&mut runs) {
            if let Err(missing) = fold_versions(&aws, task, run).await? {
                return Ok(Some(missing));
            }
        }
        for run in &runs {
            let report = aws.run_one_off(run, timing, &mut progress).await?;
            let done =
                matches!(report.outcome, TaskOutcome::AlreadyDone { .. } | TaskOutcome::Succeeded { .. });
            if a.format == Format::Text {
                outln!("{report}");
            }
            reports.push(report);
            if !done {
                break;
            }
        }
        Ok::<Option<String>, aws_adapter::aws::TaskError>(None)
    });
    if let Ok(Some(missing)) = &result {
        errln!("error: {missing}");
        return Err(Exit(EXIT_INVALID));
    }
    if let Err(e) = result {
        // What ran before the failure is said first; running the command again goes on.
        for report in &reports {
            errln!("{report}");
        }
        return Err(out.remote(format!("migrate {}", chain(&e))));
    }
    finish(&a, plan, &reports)
}

/// The verdict: exit 0 when every task succeeded or was done already, 5 when one timed out, 1
/// when one failed, never started or found another revision's task running.
fn finish(a: &Args, plan: &Plan, reports: &[TaskReport]) -> Result<(), Exit> {
    let last = reports.last().map(|r| &r.outcome);
    let verdict = match last {
        None | Some(TaskOutcome::AlreadyDone { .. } | TaskOutcome::Succeeded { .. }) => "complete",
        Some(TaskOutcome::TimedOut { .. } | TaskOutcome::ProxyUnavailable { .. }) => "timed-out",
        Some(_) => "failed",
    };
    match a.format {
        Format::Json => print_json(&MigrateJson {
            environment: &a.env.env,
            region: &plan.region,
            verdict,
            tasks: reports,
        }),
        Format::Text => {
            let done =
                reports.iter().filter(|r| !matches!(r.outcome, TaskOutcome::AlreadyDone { .. })).count();
            outln!("{} task(s) of {}: {} run, {verdict}", reports.len(), a.env.env, done);
        }
    }
    let Some(report) = reports.last() else { return Ok(()) };
    let name = &report.name;
    let first_step = match &report.outcome {
        TaskOutcome::AlreadyDone { .. } | TaskOutcome::Succeeded { .. } => return Ok(()),
        TaskOutcome::TimedOut { .. } => {
            errln!(
                "error: {name} did not stop within {}; it goes on running: run `runway migrate` again to wait \
                 for it (it is not started twice), with a longer --timeout if it needs one",
                shown(a.timing.timeout)
            );
            return Err(Exit(EXIT_TIMEOUT));
        }
        TaskOutcome::ProxyUnavailable { proxy, targets } => {
            errln!(
                "error: {name}: the proxy {proxy} had no available target within {} ({targets}); nothing was \
                 started. Right after the first `pulumi up` its target registers for some minutes: run `runway \
                 migrate` again (with a longer --timeout); `aws rds describe-db-proxy-targets --db-proxy-name \
                 {proxy}` shows its state and, when UNAVAILABLE, why",
                shown(a.timing.timeout)
            );
            return Err(Exit(EXIT_TIMEOUT));
        }
        TaskOutcome::Failed { exit_code: 2, logs, .. } if is_bootstrap(plan, name) => format!(
            "{name} exited 2: psql could not connect to the database through its proxy in {} attempts \
             ({} s apart); read its logs (log group {}, stream {}): a refused or timed-out connection is \
             the network (the proxy's security group, the subnets), a failed login the admin's password in \
             the proxy's secret (`runway secrets prepare`); then run `runway migrate` again; the services \
             were not updated",
            runtime_plan::ATTEMPTS,
            runtime_plan::PAUSE_SECONDS,
            logs.group,
            logs.stream
        ),
        TaskOutcome::Failed { exit_code, logs, .. } => format!(
            "{name} exited {exit_code}: read its logs (log group {}, stream {}), fix what it runs (the \
             migration, the image, the database's roles) and deploy again; the services were not updated",
            logs.group, logs.stream
        ),
        TaskOutcome::NotStarted { reason, .. } => format!(
            "{name} never ran its command: {reason}; fix that (the image, its registry credentials, a \
             parameter it reads) and deploy again; the services were not updated"
        ),
        TaskOutcome::Busy { task, .. } => format!(
            "{name}: a task of an earlier revision still runs ({task}); wait for it to stop (or stop it: \
             `aws ecs stop-task --cluster <cluster> --task {task}`) and run `runway migrate` again"
        ),
    };
    errln!("error: {first_step}");
    Err(Exit(EXIT_INVALID))
}

/// Whether the plan's task `name` is a postgres bootstrap.
fn is_bootstrap(plan: &Plan, name: &str) -> bool {
    plan.tasks.iter().any(|t| t.name == name && matches!(t.purpose, TaskPurpose::DatabaseBootstrap { .. }))
}
