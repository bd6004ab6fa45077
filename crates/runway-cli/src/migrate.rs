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

use std::path::Path;
use std::time::Duration;

use aws_adapter::aws::{AwsClients, OneOffRun, RunRecord, TaskOutcome, TaskReport, TaskTiming};
use runtime_plan::{OneOffTask, Plan, TaskPurpose};
use secrets_adapter::{ExposeSecret, StackOutputs};
use serde::{Deserialize, Serialize};

use crate::args::{Format, PlanArgs};
use crate::deploy::{load, print_json, read_outputs, remote, runtime};
use crate::output::{EXIT_INVALID, EXIT_TIMEOUT, Exit, Out, chain};

/// What `runway migrate` is given.
pub(crate) struct MigrateArgs<'a> {
    pub(crate) env: &'a str,
    pub(crate) workload: Option<&'a str>,
    pub(crate) outputs: &'a Path,
    pub(crate) timing: TaskTiming,
    pub(crate) format: Format,
    pub(crate) args: &'a PlanArgs,
}

/// A task's stack output, as the program exports it (`pulumi-program`'s `tasks.rs`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskOutput {
    cluster: String,
    task_definition: String,
    family: String,
    subnets: Vec<String>,
    security_groups: Vec<String>,
    container: String,
    log_group: String,
    log_stream_prefix: String,
    region: String,
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

/// The run of a task: the plan's names and record, the stack output's revision and network.
pub(crate) fn run_of(
    plan: &Plan,
    task: &OneOffTask,
    outputs: &StackOutputs,
    file: &Path,
) -> Result<OneOffRun, String> {
    let missing = || {
        format!(
            "{} has no output `{}`: run the first `pulumi up` of the deploy job (docs/pipeline.md), then \
             `pulumi stack output --json --show-secrets > {}`",
            file.display(),
            task.output,
            file.display()
        )
    };
    let text = outputs.get(&task.output).ok_or_else(missing)?;
    let out: TaskOutput = serde_json::from_str(text.expose_secret())
        .map_err(|e| format!("{}: output `{}` is not a task's: {e}", file.display(), task.output))?;
    let workload = task.purpose.subject();
    Ok(OneOffRun {
        name: task.name.to_string(),
        cluster: out.cluster,
        task_definition: out.task_definition,
        family: out.family,
        subnets: out.subnets,
        security_groups: out.security_groups,
        container: out.container,
        log_group: out.log_group,
        log_stream_prefix: out.log_stream_prefix,
        region: out.region,
        record: Some(RunRecord {
            parameter: task.record.parameter.to_string(),
            image: task.record.image.to_string(),
            command: task.record.command.to_string(),
            tags: vec![
                ("product".to_owned(), plan.product.to_string()),
                ("environment".to_owned(), plan.environment.to_string()),
                ("resource".to_owned(), workload.to_owned()),
            ],
        }),
        // `runway migrate` waits for the proxy (`run`); a rotation runs long after it is up.
        proxy: None,
    })
}

/// Folds the versions of the parameters `task`'s record names into `run`'s record, so that a
/// new value of one (a password) makes the run new; `Ok(Err(..))` names a parameter that does
/// not exist yet (the task could not start).
pub(crate) async fn fold_versions(
    aws: &AwsClients,
    task: &OneOffTask,
    run: &mut OneOffRun,
) -> Result<Result<(), String>, aws_adapter::aws::TaskError> {
    let names: Vec<String> = task.record.versions_of.iter().map(ToString::to_string).collect();
    let Some(record) = run.record.as_mut().filter(|_| !names.is_empty()) else { return Ok(Ok(())) };
    let versions = aws.parameter_versions(&names).await?;
    let mut words = vec![record.command.clone()];
    for (name, version) in names.iter().zip(versions) {
        let Some(version) = version else {
            return Ok(Err(format!(
                "{}: parameter {name} does not exist yet; run `runway secrets prepare` and the first \
                 `pulumi up` of the deploy job (docs/pipeline.md), then `runway migrate` again",
                task.name
            )));
        };
        words.push(format!("{name}@{version}"));
    }
    let words: Vec<_> = words.iter().map(|w| w.as_str().into()).collect();
    record.command = runtime_plan::fingerprint(&words).to_string();
    Ok(Ok(()))
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
pub(crate) fn run(a: &MigrateArgs<'_>, out: Out) -> Result<(), Exit> {
    let (_, plan) = load(a.env, a.args, out)?;
    let tasks = chosen(&plan, a.workload).map_err(|e| out.usage(e))?;
    if tasks.is_empty() {
        if a.format == Format::Json {
            print_json(&MigrateJson {
                environment: a.env,
                region: &plan.region,
                verdict: "none",
                tasks: &[],
            });
        } else {
            outln!("{} has no one-off task (no postgres resource, no `migrate`): nothing to run", a.env);
        }
        return Ok(());
    }
    let outputs = read_outputs(a.outputs).map_err(|e| out.usage(e))?;
    let mut runs: Vec<OneOffRun> = tasks
        .iter()
        .map(|t| {
            let run = run_of(&plan, t, &outputs, a.outputs)?;
            Ok(OneOffRun { proxy: t.proxy.as_ref().map(ToString::to_string), ..run })
        })
        .collect::<Result<_, String>>()
        .map_err(|e| out.usage(e))?;
    let mut progress = |line: &str| match a.format {
        Format::Text => outln!("{line}"),
        Format::Json => errln!("{line}"),
    };
    let rt = runtime(out)?;
    let mut reports: Vec<TaskReport> = Vec::new();
    let aws = rt.block_on(crate::pinned::connect(&plan, out))?;
    let result = rt.block_on(async {
        for (task, run) in tasks.iter().zip(&mut runs) {
            if let Err(missing) = fold_versions(&aws, task, run).await? {
                return Ok(Some(missing));
            }
        }
        for run in &runs {
            let report = aws.run_one_off(run, a.timing, &mut progress).await?;
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
        return Err(remote(out, format!("migrate {}", chain(&e))));
    }
    finish(a, &plan, &reports)
}

/// The verdict: exit 0 when every task succeeded or was done already, 5 when one timed out, 1
/// when one failed, never started or found another revision's task running.
fn finish(a: &MigrateArgs<'_>, plan: &Plan, reports: &[TaskReport]) -> Result<(), Exit> {
    let last = reports.last().map(|r| &r.outcome);
    let verdict = match last {
        None | Some(TaskOutcome::AlreadyDone { .. } | TaskOutcome::Succeeded { .. }) => "complete",
        Some(TaskOutcome::TimedOut { .. } | TaskOutcome::ProxyUnavailable { .. }) => "timed-out",
        Some(_) => "failed",
    };
    match a.format {
        Format::Json => {
            print_json(&MigrateJson { environment: a.env, region: &plan.region, verdict, tasks: reports })
        }
        Format::Text => {
            let done =
                reports.iter().filter(|r| !matches!(r.outcome, TaskOutcome::AlreadyDone { .. })).count();
            outln!("{} task(s) of {}: {} run, {verdict}", reports.len(), a.env, done);
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

/// A duration as the file format writes it (`30m`).
fn shown(d: Duration) -> runway_schema::Duration {
    runway_schema::Duration::from_millis(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Whether the plan's task `name` is a postgres bootstrap.
fn is_bootstrap(plan: &Plan, name: &str) -> bool {
    plan.tasks.iter().any(|t| t.name == name && matches!(t.purpose, TaskPurpose::DatabaseBootstrap { .. }))
}

/// `--timeout` of `runway migrate`: from 1 s to 6 h, as `rollout`'s.
pub(crate) fn timeout(text: &str) -> Result<Duration, String> {
    crate::rollout::timeout(text)
}
