//! A one-off task run with variables of its deciding container replaced (`runway preview
//! down`: a preview's bootstrap task, its SQL replaced by the SQL that drops the preview's
//! database): `RunTask`'s container override, no record (the run is re-runnable: it runs
//! every time), its own `startedBy` so that `run_one_off` never adopts it as a plain run.
//!
//! It starts and follows the task as [`AwsClients::run_one_off`] does (a [`TaskOverride`]
//! without a command); what differs is the wait: a task of the family runway started earlier
//! (an interrupted run of this, or a plain run: a bootstrap) is waited for before this one
//! starts, its outcome not judged, where `run_one_off` adopts only a task of its own.

use aws_sdk_ecs::types::DesiredStatus;

use super::task::{OneOffRun, STARTED_BY, TaskError, TaskOutcome, TaskOverride, TaskReport, TaskTiming};
use super::{AwsClients, RemoteError};

impl AwsClients {
    /// Runs `run`'s task definition once with `environment` set in its container (each
    /// variable replacing the task definition's of that name), started by `started_by`: waits
    /// first for a task of the family that runway started (`started_by` or
    /// [`STARTED_BY`]) to stop and for the proxy, then starts it and follows it to its end.
    /// A failed, never-started or timed-out run is an outcome; `Err` is a call that failed.
    pub async fn run_one_off_with_environment(
        &self,
        run: &OneOffRun,
        (environment, started_by): (&[(String, String)], &str),
        timing: TaskTiming,
        progress: &mut dyn FnMut(&str),
    ) -> Result<TaskReport, TaskError> {
        let started = tokio::time::Instant::now();
        let report = |outcome: TaskOutcome| TaskReport {
            name: run.name.clone(),
            outcome,
            adopted: false,
            waited_seconds: started.elapsed().as_secs(),
        };
        if let Some(earlier) = self.one_off_running_by(run, started_by).await? {
            progress(&format!(
                "{}: task {earlier} of the family is running: waiting for it to stop",
                run.name
            ));
            let outcome = self.one_off_follow(run, &earlier, timing, started, progress).await?;
            if let TaskOutcome::TimedOut { .. } = outcome {
                return Ok(report(outcome));
            }
        }
        if let Some(outcome) = self.one_off_proxy(run, timing, started, progress).await? {
            return Ok(report(outcome));
        }
        let overrides = TaskOverride {
            command: None,
            environment: environment.to_vec(),
            started_by: started_by.to_owned(),
        };
        let run = &OneOffRun { overrides: Some(overrides), ..run.clone() };
        let arn = match self.one_off_start(run).await? {
            Ok(arn) => arn,
            Err(reason) => return Ok(report(TaskOutcome::NotStarted { task: None, reason, logs: None })),
        };
        progress(&format!("{}: started task {}", run.name, arn.rsplit('/').next().unwrap_or(&arn)));
        let outcome = self.one_off_follow(run, &arn, timing, started, progress).await?;
        Ok(report(outcome))
    }

    /// A task of `run`'s family runway started (`started_by` or [`STARTED_BY`]), not stopped.
    async fn one_off_running_by(
        &self,
        run: &OneOffRun,
        started_by: &str,
    ) -> Result<Option<String>, TaskError> {
        let what = || TaskError::new(format!("could not list the running tasks of {}", run.family));
        let listed = (self.ecs.list_tasks().cluster(&run.cluster).family(&run.family))
            .desired_status(DesiredStatus::Running)
            .send()
            .await
            .map_err(|e| what()(RemoteError::from_sdk("ListTasks", e)))?;
        if listed.task_arns().is_empty() {
            return Ok(None);
        }
        let described = (self.ecs.describe_tasks().cluster(&run.cluster))
            .set_tasks(Some(listed.task_arns().to_vec()))
            .send()
            .await
            .map_err(|e| what()(RemoteError::from_sdk("DescribeTasks", e)))?;
        let ours = |by: Option<&str>| by == Some(started_by) || by == Some(STARTED_BY);
        Ok(described
            .tasks()
            .iter()
            .find(|t| ours(t.started_by()) && t.last_status() != Some("STOPPED"))
            .and_then(|t| t.task_arn())
            .map(str::to_owned))
    }
}
