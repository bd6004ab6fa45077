//! One-off Fargate tasks (`runway migrate`): start a task from its task definition, follow it
//! to `STOPPED`, judge it by its container's exit code, and record a success so the same image
//! and command are not run again.
//!
//! Generic: a [`OneOffRun`] is a task to run (cluster, task definition revision, network, the
//! container that decides) and a [`RunRecord`] (the SSM parameter and what a success is
//! recorded as); nothing here knows what the task is for.
//!
//! A task that connects through an RDS Proxy (a postgres bootstrap: [`OneOffRun::proxy`]) is
//! started only once a target of the proxy is `AVAILABLE` (`proxy_target.rs`), within the same
//! timeout; a proxy still not available then is an outcome, and nothing is started.
//!
//! A run that was interrupted (the command killed after `RunTask`) leaves its task running:
//! before starting one, the runner lists the family's running tasks started by runway, waits
//! for one of the same revision instead of starting a second, and refuses to start while one
//! of another revision runs. [`judge`] is the pure verdict on a stopped task, unit-tested below.

use std::fmt;
use std::time::Duration;

use aws_sdk_ecs::types::{
    AssignPublicIp, AwsVpcConfiguration, ContainerOverride, DesiredStatus, KeyValuePair, LaunchType,
    NetworkConfiguration, PropagateTags,
};
use aws_sdk_ssm::types::ParameterType;
use serde::{Deserialize, Serialize};

use super::proxy_target::{Readiness, readiness};
use super::{AwsClients, RemoteError, one_line};

/// Who starts the tasks (`startedBy`): how a later run finds a task an interrupted one started.
pub const STARTED_BY: &str = "runway";

/// A one-off task to run: where, from which task definition revision, and how it is judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneOffRun {
    /// The task's name in the plan (`migrate-metabase`), shown in every line.
    pub name: String,
    /// The cluster (name or ARN).
    pub cluster: String,
    /// The task definition revision's ARN.
    pub task_definition: String,
    /// Its family: a running task of it is an earlier run.
    pub family: String,
    /// The subnets of its network interface (private: no public IP).
    pub subnets: Vec<String>,
    /// The security groups of its network interface.
    pub security_groups: Vec<String>,
    /// The container whose exit code is the task's result.
    pub container: String,
    /// Where its output goes: the log group and the `awslogs-stream-prefix`.
    pub log_group: String,
    /// The stream prefix (the stream is `<prefix>/<container>/<task id>`).
    pub log_stream_prefix: String,
    /// The region (for the console link).
    pub region: String,
    /// Where a success is recorded; `None` runs it every time.
    pub record: Option<RunRecord>,
    /// The RDS Proxy (its name) the task connects through, whose target must be `AVAILABLE`
    /// before the task is started; `None` starts it at once.
    pub proxy: Option<String>,
    /// What replaces the task definition's command for this run (`restore.check`); `None`
    /// runs the task definition as it is.
    pub overrides: Option<TaskOverride>,
}

/// A run of a task definition with another command: `RunTask`'s container override of the
/// deciding container, and a `startedBy` of its own, so that a later run adopts only a task
/// started with the same override (never a plain run of the same task definition).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskOverride {
    /// The command that replaces the container's; `None` keeps the task definition's.
    pub command: Option<Vec<String>>,
    /// Variables added to the container's environment (no secret: they show in the task).
    pub environment: Vec<(String, String)>,
    /// `startedBy` instead of [`STARTED_BY`].
    pub started_by: String,
}

/// Where a successful run is recorded, and as what: an SSM `String` parameter holding
/// `{"image", "command", "task"}`; a run whose image and command equal it is skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRecord {
    /// The parameter name.
    pub parameter: String,
    /// The image, pinned by digest.
    pub image: String,
    /// The command's fingerprint (`sha256:<hex>`).
    pub command: String,
    /// The tags of the parameter when it is created.
    pub tags: Vec<(String, String)>,
}

/// What a record holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Recorded {
    image: String,
    command: String,
    task: String,
}

/// How long to wait, and how often to look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskTiming {
    /// The most time spent waiting for the task to stop.
    pub timeout: Duration,
    /// The pause between two looks.
    pub interval: Duration,
}

/// Where a task's output is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogPlace {
    /// The log group.
    pub group: String,
    /// The stream: `<prefix>/<container>/<task id>`.
    pub stream: String,
    /// The task's logs in the ECS console.
    pub console: String,
}

impl fmt::Display for LogPlace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "log group {}, stream {} (`aws logs tail {} --log-stream-names {}`; console: {})",
            self.group, self.stream, self.group, self.stream, self.console
        )
    }
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "state")]
pub enum TaskOutcome {
    /// The record says this image and command already succeeded: nothing was started.
    AlreadyDone {
        /// The task of the recorded success.
        task: String,
    },
    /// The container exited 0; the success is recorded.
    Succeeded {
        /// The task's ARN.
        task: String,
    },
    /// The container exited with another code.
    Failed {
        /// The task's ARN.
        task: String,
        /// The container's exit code.
        #[serde(rename = "exitCode")]
        exit_code: i32,
        /// Why ECS says the task stopped, and the container's reason.
        reason: Option<String>,
        /// Where its output is.
        logs: LogPlace,
    },
    /// The task never ran its command: ECS refused it, or it stopped before the container
    /// started (an image that cannot be pulled, a secret that cannot be read).
    NotStarted {
        /// The task's ARN, when ECS created one.
        task: Option<String>,
        /// Why.
        reason: String,
        /// Where its output would be.
        logs: Option<LogPlace>,
    },
    /// Still running when the timeout came; it goes on, and a later run waits for it.
    TimedOut {
        /// The task's ARN.
        task: String,
        /// Its last status.
        #[serde(rename = "lastStatus")]
        last_status: String,
        /// Where its output is.
        logs: LogPlace,
    },
    /// The proxy the task connects through had no available target when the timeout came:
    /// none started.
    ProxyUnavailable {
        /// The proxy's name.
        proxy: String,
        /// What its targets were at the last look (`main-db REGISTERING`).
        targets: String,
    },
    /// A task of another revision of the family runs (an earlier release's run): none started.
    Busy {
        /// That task's ARN.
        task: String,
        /// Its task definition revision.
        #[serde(rename = "taskDefinition")]
        task_definition: String,
    },
}

/// What one run did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskReport {
    /// The task's name in the plan.
    pub name: String,
    /// How it ended.
    #[serde(flatten)]
    pub outcome: TaskOutcome,
    /// Whether the task was one an earlier, interrupted run started (waited for, not started).
    pub adopted: bool,
    /// Seconds spent, from the first call.
    pub waited_seconds: u64,
}

/// A failed call: what was being done, and the call's failure.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {source}")]
pub struct TaskError {
    /// What was being done (`the migration succeeded but its record was not written`).
    pub what: String,
    /// The call.
    #[source]
    pub source: RemoteError,
}

impl TaskError {
    pub(super) fn new(what: impl Into<String>) -> impl FnOnce(RemoteError) -> TaskError {
        let what = what.into();
        move |source| TaskError { what, source }
    }
}

/// A task as `DescribeTasks` tells it, for [`judge`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct TaskLook {
    pub(crate) last_status: String,
    pub(crate) stopped_reason: Option<String>,
    pub(crate) stop_code: Option<String>,
    /// The deciding container's exit code and reason, when it is listed.
    pub(crate) exit_code: Option<i32>,
    pub(crate) container_reason: Option<String>,
}

/// The verdict on a task ECS reports `STOPPED`: the container's exit code decides (0 a
/// success); without one, the command never ran, and the stop code and reasons say why.
pub(crate) fn judge(task: &str, look: &TaskLook, logs: LogPlace) -> TaskOutcome {
    let reasons: Vec<&str> = [look.stopped_reason.as_deref(), look.container_reason.as_deref()]
        .into_iter()
        .flatten()
        .filter(|r| !r.is_empty())
        .collect();
    let reason = (!reasons.is_empty()).then(|| one_line(&reasons.join("; ")));
    match look.exit_code {
        Some(0) => TaskOutcome::Succeeded { task: task.to_owned() },
        Some(exit_code) => TaskOutcome::Failed { task: task.to_owned(), exit_code, reason, logs },
        None => {
            let code = look.stop_code.as_deref().unwrap_or("no exit code");
            let reason = match reason {
                Some(r) => format!("{code}: {r}"),
                None => format!("{code}: the container reported no exit code"),
            };
            TaskOutcome::NotStarted { task: Some(task.to_owned()), reason, logs: Some(logs) }
        }
    }
}

/// The id of a task (the last part of its ARN).
fn task_id(arn: &str) -> &str {
    arn.rsplit('/').next().unwrap_or(arn)
}

impl TaskOverride {
    /// `RunTask`'s `overrides`: the command and variables of `container`.
    fn task_override(&self, container: &str) -> aws_sdk_ecs::types::TaskOverride {
        let environment = self
            .environment
            .iter()
            .map(|(name, value)| KeyValuePair::builder().name(name).value(value).build())
            .collect();
        let container = ContainerOverride::builder()
            .name(container)
            .set_command(self.command.clone())
            .set_environment(Some(environment))
            .build();
        aws_sdk_ecs::types::TaskOverride::builder().container_overrides(container).build()
    }
}

impl OneOffRun {
    /// Who starts its tasks: its override's `startedBy`, else [`STARTED_BY`].
    fn started_by(&self) -> &str {
        self.overrides.as_ref().map_or(STARTED_BY, |o| o.started_by.as_str())
    }

    /// Where the output of the task `arn` is.
    pub fn logs(&self, arn: &str) -> LogPlace {
        let id = task_id(arn);
        let cluster = self.cluster.rsplit('/').next().unwrap_or(&self.cluster);
        LogPlace {
            group: self.log_group.clone(),
            stream: format!("{}/{}/{id}", self.log_stream_prefix, self.container),
            console: format!(
                "https://{region}.console.aws.amazon.com/ecs/v2/clusters/{cluster}/tasks/{id}/logs?region={region}",
                region = self.region
            ),
        }
    }
}

impl AwsClients {
    /// Runs a one-off task to its end: skipped when its record says it succeeded with this
    /// image and command; else waits for a running task of the same revision an interrupted run
    /// started, or starts one; then follows it to `STOPPED` (each new status given to
    /// `progress`) and records a success. A failed, never-started, busy or timed-out run is an
    /// outcome; `Err` is a call that failed.
    pub async fn run_one_off(
        &self,
        run: &OneOffRun,
        timing: TaskTiming,
        progress: &mut dyn FnMut(&str),
    ) -> Result<TaskReport, TaskError> {
        let started = tokio::time::Instant::now();
        let report = |outcome: TaskOutcome, adopted: bool| TaskReport {
            name: run.name.clone(),
            outcome,
            adopted,
            waited_seconds: started.elapsed().as_secs(),
        };
        let recorded = match &run.record {
            Some(record) => self.one_off_recorded(record).await?,
            None => None,
        };
        if let (Some(record), Some(done)) = (&run.record, &recorded)
            && done.image == record.image
            && done.command == record.command
        {
            return Ok(report(TaskOutcome::AlreadyDone { task: done.task.clone() }, false));
        }
        let (arn, adopted) = match self.one_off_running(run).await? {
            Some((arn, revision)) if revision == run.task_definition => {
                progress(&format!(
                    "{}: task {} already running (an earlier run started it): waiting for it",
                    run.name,
                    task_id(&arn)
                ));
                (arn, true)
            }
            Some((task, task_definition)) => {
                return Ok(report(TaskOutcome::Busy { task, task_definition }, false));
            }
            None => {
                if let Some(outcome) = self.one_off_proxy(run, timing, started, progress).await? {
                    return Ok(report(outcome, false));
                }
                match self.one_off_start(run).await? {
                    Ok(arn) => (arn, false),
                    Err(reason) => {
                        return Ok(report(TaskOutcome::NotStarted { task: None, reason, logs: None }, false));
                    }
                }
            }
        };
        if !adopted {
            progress(&format!("{}: started task {}", run.name, task_id(&arn)));
        }
        let outcome = self.one_off_follow(run, &arn, timing, started, progress).await?;
        if let (TaskOutcome::Succeeded { task }, Some(record)) = (&outcome, &run.record) {
            self.one_off_record(record, task, recorded.is_some()).await?;
        }
        Ok(report(outcome, adopted))
    }

    /// The version of each parameter of `names`, in order (`None`: it does not exist), read
    /// without decrypting: what a run's record folds in, so that a new value runs it again.
    pub async fn parameter_versions(&self, names: &[String]) -> Result<Vec<Option<i64>>, TaskError> {
        let mut versions = Vec::with_capacity(names.len());
        // GetParameters takes at most ten names.
        for chunk in names.chunks(10) {
            let out = self
                .ssm
                .get_parameters()
                .set_names(Some(chunk.to_vec()))
                .with_decryption(false)
                .send()
                .await
                .map_err(|e| {
                    TaskError::new("could not read the versions of the task's parameters")(
                        RemoteError::from_sdk("GetParameters", e),
                    )
                })?;
            for name in chunk {
                let found = out.parameters().iter().find(|p| p.name() == Some(name.as_str()));
                versions.push(found.map(|p| p.version()));
            }
        }
        Ok(versions)
    }

    /// Waits until the proxy the task connects through has an available target, looking every
    /// interval until the timeout; `Some` is the outcome when it has none by then.
    pub(super) async fn one_off_proxy(
        &self,
        run: &OneOffRun,
        timing: TaskTiming,
        started: tokio::time::Instant,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Option<TaskOutcome>, TaskError> {
        let Some(proxy) = &run.proxy else { return Ok(None) };
        let deadline = started + timing.timeout;
        let mut shown = String::new();
        loop {
            let looks = (self.proxy_targets(proxy).await)
                .map_err(TaskError::new(format!("could not read the targets of the proxy {proxy}")))?;
            let targets = match readiness(&looks) {
                Readiness::Available => return Ok(None),
                Readiness::Waiting(targets) => targets,
            };
            if targets != shown {
                progress(&format!("{}: waiting for the proxy {proxy}: {targets}", run.name));
                shown.clone_from(&targets);
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Ok(Some(TaskOutcome::ProxyUnavailable { proxy: proxy.clone(), targets }));
            }
            tokio::time::sleep(timing.interval.min(deadline - now)).await;
        }
    }

    /// What the record holds, when it exists and reads as one.
    async fn one_off_recorded(&self, record: &RunRecord) -> Result<Option<Recorded>, TaskError> {
        match self.ssm.get_parameter().name(&record.parameter).send().await {
            Ok(out) => {
                let value = out.parameter().and_then(|p| p.value()).unwrap_or_default();
                Ok(Some(serde_json::from_str(value).unwrap_or(Recorded {
                    image: String::new(),
                    command: String::new(),
                    task: String::new(),
                })))
            }
            Err(e) if e.as_service_error().is_some_and(|s| s.is_parameter_not_found()) => Ok(None),
            Err(e) => Err(TaskError::new(format!("could not read the record {}", record.parameter))(
                RemoteError::from_sdk("GetParameter", e),
            )),
        }
    }

    /// A running task of the family runway started (`startedBy`): its ARN and revision.
    async fn one_off_running(&self, run: &OneOffRun) -> Result<Option<(String, String)>, TaskError> {
        let what = || TaskError::new(format!("could not list the running tasks of {}", run.family));
        let listed = self
            .ecs
            .list_tasks()
            .cluster(&run.cluster)
            .family(&run.family)
            // `startedBy` must be ListTasks' only filter: it is checked on each task below.
            .desired_status(DesiredStatus::Running)
            .send()
            .await
            .map_err(|e| what()(RemoteError::from_sdk("ListTasks", e)))?;
        if listed.task_arns().is_empty() {
            return Ok(None);
        }
        let described = self
            .ecs
            .describe_tasks()
            .cluster(&run.cluster)
            .set_tasks(Some(listed.task_arns().to_vec()))
            .send()
            .await
            .map_err(|e| what()(RemoteError::from_sdk("DescribeTasks", e)))?;
        let tasks: Vec<(String, String)> = described
            .tasks()
            .iter()
            .filter(|t| t.started_by() == Some(run.started_by()) && t.last_status() != Some("STOPPED"))
            .map(|t| {
                (
                    t.task_arn().unwrap_or_default().to_owned(),
                    t.task_definition_arn().unwrap_or_default().to_owned(),
                )
            })
            .collect();
        // The same revision first: it is the one to wait for.
        let same = tasks.iter().find(|(_, revision)| *revision == run.task_definition);
        Ok(same.or(tasks.first()).cloned())
    }

    /// Starts the task; `Ok(Err(reason))` when ECS answers without starting it.
    pub(super) async fn one_off_start(&self, run: &OneOffRun) -> Result<Result<String, String>, TaskError> {
        let awsvpc = AwsVpcConfiguration::builder()
            .set_subnets(Some(run.subnets.clone()))
            .set_security_groups(Some(run.security_groups.clone()))
            .assign_public_ip(AssignPublicIp::Disabled)
            .build()
            // Invariant: the one required field (`subnets`) is set just above.
            .expect("awsvpc configuration has its subnets");
        let sent = self
            .ecs
            .run_task()
            .cluster(&run.cluster)
            .task_definition(&run.task_definition)
            .launch_type(LaunchType::Fargate)
            .count(1)
            .started_by(run.started_by())
            .set_overrides(run.overrides.as_ref().map(|o| o.task_override(&run.container)))
            .network_configuration(NetworkConfiguration::builder().awsvpc_configuration(awsvpc).build())
            .propagate_tags(PropagateTags::TaskDefinition)
            .enable_ecs_managed_tags(true)
            .send()
            .await
            .map_err(|e| {
                TaskError::new(format!("could not start {}", run.name))(RemoteError::from_sdk("RunTask", e))
            })?;
        if let Some(arn) = sent.tasks().first().and_then(|t| t.task_arn()) {
            return Ok(Ok(arn.to_owned()));
        }
        let failures: Vec<String> = sent
            .failures()
            .iter()
            .map(|f| {
                let detail = f.detail().map(|d| format!(" ({})", one_line(d))).unwrap_or_default();
                format!("{}{detail}", f.reason().unwrap_or("unknown reason"))
            })
            .collect();
        Ok(Err(if failures.is_empty() {
            "ECS started no task and gave no reason".to_owned()
        } else {
            format!("ECS did not start the task: {}", failures.join("; "))
        }))
    }

    /// Looks at the task every interval until it stops or the timeout comes.
    pub(super) async fn one_off_follow(
        &self,
        run: &OneOffRun,
        arn: &str,
        timing: TaskTiming,
        started: tokio::time::Instant,
        progress: &mut dyn FnMut(&str),
    ) -> Result<TaskOutcome, TaskError> {
        let deadline = started + timing.timeout;
        let mut shown = String::new();
        loop {
            let look = self.one_off_look(run, arn).await?;
            if look.last_status != shown {
                progress(&format!("{}: task {} {}", run.name, task_id(arn), look.last_status));
                shown.clone_from(&look.last_status);
            }
            if look.last_status == "STOPPED" {
                return Ok(judge(arn, &look, run.logs(arn)));
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                return Ok(TaskOutcome::TimedOut {
                    task: arn.to_owned(),
                    last_status: look.last_status,
                    logs: run.logs(arn),
                });
            }
            tokio::time::sleep(timing.interval.min(deadline - now)).await;
        }
    }

    /// One look at the task.
    async fn one_off_look(&self, run: &OneOffRun, arn: &str) -> Result<TaskLook, TaskError> {
        let described =
            self.ecs.describe_tasks().cluster(&run.cluster).tasks(arn).send().await.map_err(|e| {
                TaskError::new(format!("could not follow task {} of {}", task_id(arn), run.name))(
                    RemoteError::from_sdk("DescribeTasks", e),
                )
            })?;
        let Some(task) = described.tasks().first() else {
            // ECS forgets a stopped task after about an hour.
            let reason = described.failures().first().and_then(|f| f.reason()).unwrap_or("MISSING");
            return Ok(TaskLook {
                last_status: "STOPPED".to_owned(),
                stopped_reason: Some(format!("ECS no longer describes the task ({reason})")),
                ..TaskLook::default()
            });
        };
        let container = task
            .containers()
            .iter()
            .find(|c| c.name() == Some(run.container.as_str()))
            .or(task.containers().first());
        Ok(TaskLook {
            last_status: task.last_status().unwrap_or("UNKNOWN").to_owned(),
            stopped_reason: task.stopped_reason().map(str::to_owned),
            stop_code: task.stop_code().map(|c| c.as_str().to_owned()),
            exit_code: container.and_then(|c| c.exit_code()),
            container_reason: container.and_then(|c| c.reason()).map(str::to_owned),
        })
    }

    /// Records a success: the image, the command's fingerprint and the task.
    async fn one_off_record(&self, record: &RunRecord, task: &str, exists: bool) -> Result<(), TaskError> {
        let what = || {
            TaskError::new(format!(
                "the task succeeded but its record {} was not written (the next run will run it again)",
                record.parameter
            ))
        };
        let value =
            Recorded { image: record.image.clone(), command: record.command.clone(), task: task.to_owned() };
        // Invariant: three strings serialise.
        let value = serde_json::to_string(&value).unwrap_or_default();
        let put = self.ssm.put_parameter().name(&record.parameter).value(value).r#type(ParameterType::String);
        let put = if exists {
            put.overwrite(true)
        } else {
            put.set_tags(Some(record.tags.iter().map(super::ssm::ssm_tag).collect()))
        };
        put.send().await.map_err(|e| what()(RemoteError::from_sdk("PutParameter", e)))?;
        Ok(())
    }
}

impl fmt::Display for TaskReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = &self.name;
        match &self.outcome {
            TaskOutcome::AlreadyDone { task } => {
                write!(
                    f,
                    "already done {name}: this image and command succeeded before (task {})",
                    task_id(task)
                )
            }
            TaskOutcome::Succeeded { task } => {
                write!(f, "succeeded  {name}: task {} exited 0", task_id(task))
            }
            TaskOutcome::Failed { task, exit_code, reason, logs } => {
                write!(f, "failed     {name}: task {} exited {exit_code}", task_id(task))?;
                if let Some(reason) = reason {
                    write!(f, " ({reason})")?;
                }
                write!(f, "\n  logs: {logs}")
            }
            TaskOutcome::NotStarted { task, reason, logs } => {
                write!(f, "not started {name}: {reason}")?;
                if let Some(task) = task {
                    write!(f, " (task {})", task_id(task))?;
                }
                if let Some(logs) = logs {
                    write!(f, "\n  logs: {logs}")?;
                }
                Ok(())
            }
            TaskOutcome::TimedOut { task, last_status, logs } => {
                write!(f, "timed out  {name}: task {} still {last_status}\n  logs: {logs}", task_id(task))
            }
            TaskOutcome::ProxyUnavailable { proxy, targets } => write!(
                f,
                "waited     {name}: the proxy {proxy} has no available target ({targets}); none started"
            ),
            TaskOutcome::Busy { task, task_definition } => write!(
                f,
                "busy       {name}: task {} of another revision ({}) is running; none started",
                task_id(task),
                task_definition.rsplit('/').next().unwrap_or(task_definition)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn logs() -> LogPlace {
        LogPlace { group: "g".into(), stream: "p/c/1".into(), console: "u".into() }
    }

    #[test]
    fn the_exit_code_decides_and_none_means_never_started() {
        let mut look = TaskLook { last_status: "STOPPED".into(), exit_code: Some(0), ..TaskLook::default() };
        assert_eq!(judge("t", &look, logs()), TaskOutcome::Succeeded { task: "t".into() });
        look.exit_code = Some(3);
        look.stopped_reason = Some("Essential container in task exited".into());
        let TaskOutcome::Failed { exit_code: 3, reason: Some(reason), .. } = judge("t", &look, logs()) else {
            panic!()
        };
        assert_eq!(reason, "Essential container in task exited");
        let never = TaskLook {
            last_status: "STOPPED".into(),
            stop_code: Some("TaskFailedToStart".into()),
            stopped_reason: Some("CannotPullContainerError: pull access denied".into()),
            ..TaskLook::default()
        };
        let TaskOutcome::NotStarted { reason, .. } = judge("t", &never, logs()) else { panic!() };
        assert_eq!(reason, "TaskFailedToStart: CannotPullContainerError: pull access denied");
    }

    #[test]
    fn the_logs_are_the_streams_of_the_prefix_and_container() {
        let run = OneOffRun {
            name: "migrate-web".into(),
            cluster: "arn:aws:ecs:eu-west-1:1:cluster/shop-dev".into(),
            task_definition: "td".into(),
            family: "f".into(),
            subnets: vec![],
            security_groups: vec![],
            container: "web".into(),
            log_group: "/runway/shop/dev/web".into(),
            log_stream_prefix: "web".into(),
            region: "eu-west-1".into(),
            record: None,
            proxy: None,
            overrides: None,
        };
        let logs = run.logs("arn:aws:ecs:eu-west-1:1:task/shop-dev/abc123");
        assert_eq!(logs.stream, "web/web/abc123");
        assert_eq!(
            logs.console,
            "https://eu-west-1.console.aws.amazon.com/ecs/v2/clusters/shop-dev/tasks/abc123/logs?region=eu-west-1"
        );
    }
}
