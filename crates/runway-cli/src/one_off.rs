//! A one-off task's run (a postgres resource's bootstrap, a workload's `migrate`), made from
//! the plan's names and record and the stack output's revision and network; used by `runway
//! migrate` and by `runway rotate` (a login's new password is set by the bootstrap task).

use std::path::Path;

use aws_adapter::aws::{AwsClients, OneOffRun, RunRecord};
use runtime_plan::{OneOffTask, Plan};
use secrets_adapter::{ExposeSecret, StackOutputs};
use serde::Deserialize;

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
        overrides: None,
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
