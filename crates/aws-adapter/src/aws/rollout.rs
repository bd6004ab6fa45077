//! `runway rollout`: waits until each ECS service of a plan runs the task definition the stack
//! declared, and tells a rolled-back or failed release apart from a complete one.
//!
//! The revision the stack declared is the latest ACTIVE revision of the service's task
//! definition family (`DescribeTaskDefinition` with the family alone): the program registers a
//! new revision on every change and Pulumi deregisters the one it replaced, while the service's
//! own `taskDefinition` is rewritten by ECS when it rolls a release back, so it cannot be
//! trusted. Each look is `DescribeServices` (10 services a call, per cluster); a service whose
//! release did not complete gets the reasons its tasks of the declared revision stopped
//! (`ListTasks` `desiredStatus=STOPPED` for the family, then `DescribeTasks`).
//!
//! The verdict of one look at one service is [`judge`], a pure function of what
//! `DescribeServices` answered, unit-tested below without AWS.

use std::fmt;
use std::time::Duration;

use aws_sdk_ecs::types::{DesiredStatus, Service};
use serde::Serialize;

use super::stage::ReleaseStage;
use super::{AwsClients, Chain, RemoteError};

/// One ECS service to wait for, named as the plan names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceTarget {
    /// The workload it runs, e.g. `metabase`.
    pub workload: String,
    /// The cluster's name, e.g. `acme-shop-dev`.
    pub cluster: String,
    /// The service's name, e.g. `acme-shop-dev-metabase-service`.
    pub service: String,
    /// The family of its task definition, e.g. `acme-shop-dev-metabase`.
    pub family: String,
}

/// How long to wait, and how often to look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RolloutTiming {
    /// The most time spent waiting; a service not settled by then is `timed-out`.
    pub timeout: Duration,
    /// The pause between two looks at the services still in progress.
    pub interval: Duration,
}

/// Where one service's release stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum RolloutState {
    /// ECS is still deploying (shown in progress lines only; never in a finished report).
    InProgress,
    /// The primary deployment runs the declared revision, every desired task running.
    Complete,
    /// The primary deployment runs another revision: ECS rolled the release back.
    RolledBack,
    /// The primary deployment of the declared revision failed (`rolloutState` `FAILED`).
    Failed,
    /// Still in progress when the timeout came.
    TimedOut,
    /// The service, its cluster or its task definition family does not exist.
    Missing,
}

impl RolloutState {
    /// The word shown: `complete`, `rolled back`, ...
    pub fn word(self) -> &'static str {
        match self {
            RolloutState::InProgress => "waiting",
            RolloutState::Complete => "complete",
            RolloutState::RolledBack => "rolled back",
            RolloutState::Failed => "failed",
            RolloutState::TimedOut => "timed out",
            RolloutState::Missing => "missing",
        }
    }

    /// Whether the state is final: the service is looked at no more.
    fn settled(self) -> bool {
        !matches!(self, RolloutState::InProgress)
    }
}

/// One reason tasks of the declared revision stopped, with how many tasks gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StoppedReason {
    /// The task's `stoppedReason`, or `container NAME: reason` for a container's own reason.
    pub reason: String,
    /// How many of the stopped tasks looked at gave it.
    pub tasks: u32,
}

/// Where one service stands: in a progress line, or in the finished report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceRollout {
    /// The workload.
    pub workload: String,
    /// The service's name.
    pub service: String,
    /// The cluster's name.
    pub cluster: String,
    /// Where its release stands.
    pub state: RolloutState,
    /// The declared revision, `family:revision` (the family's latest ACTIVE one); `None` when
    /// the family has none.
    pub expected_revision: Option<String>,
    /// The revision the primary deployment runs, `family:revision`; `None` before a look.
    pub running_revision: Option<String>,
    /// The service's desired count.
    pub desired_count: Option<u32>,
    /// Tasks of the primary deployment running.
    pub running_count: Option<u32>,
    /// The primary deployment's `rolloutState` (`IN_PROGRESS`, `COMPLETED`, `FAILED`).
    pub rollout_state: Option<String>,
    /// Why, in a sentence: the failed deployment's `rolloutStateReason`, or what is missing and
    /// what to do.
    pub message: Option<String>,
    /// Why tasks of the declared revision stopped (most recent first, each reason once), for a
    /// service that did not complete.
    pub reasons: Vec<StoppedReason>,
    /// Where a release by canary, linear or blue/green stands, as ECS's service deployment
    /// tells it (left out of JSON for a rolling service).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<ReleaseStage>,
}

impl ServiceRollout {
    fn new(target: &ServiceTarget) -> Self {
        ServiceRollout {
            workload: target.workload.clone(),
            service: target.service.clone(),
            cluster: target.cluster.clone(),
            state: RolloutState::InProgress,
            expected_revision: None,
            running_revision: None,
            desired_count: None,
            running_count: None,
            rollout_state: None,
            message: None,
            reasons: Vec::new(),
            stage: None,
        }
    }

    fn counts(&self) -> String {
        let count = |c: Option<u32>| c.map_or_else(|| "?".to_owned(), |c| c.to_string());
        format!("{} of {} running", count(self.running_count), count(self.desired_count))
    }
}

/// One line: the state, the workload, then what it runs (no reasons).
impl fmt::Display for ServiceRollout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:<11} {}: ", self.state.word(), self.workload)?;
        let expected = self.expected_revision.as_deref().unwrap_or("?");
        let running = self.running_revision.as_deref().unwrap_or("?");
        match self.state {
            RolloutState::Missing => f.write_str(self.message.as_deref().unwrap_or("not found")),
            RolloutState::RolledBack => {
                write!(f, "expected {expected}, running {running} ({})", self.counts())?;
                self.message.as_ref().map_or(Ok(()), |m| write!(f, ": {m}"))
            }
            RolloutState::Complete => {
                write!(f, "{running}, {}", self.counts())?;
                self.stage.as_ref().map_or(Ok(()), |s| write!(f, ": {s}"))
            }
            RolloutState::Failed => {
                write!(f, "{running}, {}", self.counts())?;
                self.message.as_ref().map_or(Ok(()), |m| write!(f, ": {m}"))
            }
            RolloutState::InProgress | RolloutState::TimedOut => {
                let revision = self.running_revision.as_deref().unwrap_or(expected);
                write!(f, "{revision}, {}", self.counts())?;
                if let Some(s) = &self.rollout_state {
                    write!(f, " ({s})")?;
                }
                self.stage.as_ref().map_or(Ok(()), |s| write!(f, ": {s}"))
            }
        }
    }
}

/// The overall verdict of a rollout. Not `non_exhaustive`: the CLI gives each its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every service complete.
    Complete,
    /// A service rolled back, failed or is missing.
    Failed,
    /// None failed, but one was still in progress when the timeout came.
    TimedOut,
}

/// What a rollout found, one entry per target in input order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RolloutReport {
    /// The overall verdict.
    pub verdict: Verdict,
    /// Whole seconds spent.
    pub waited_seconds: u64,
    /// One entry per service.
    pub services: Vec<ServiceRollout>,
}

impl RolloutReport {
    fn of(services: Vec<ServiceRollout>, waited: Duration) -> Self {
        let any = |state: &[RolloutState]| services.iter().any(|s| state.contains(&s.state));
        let verdict = if any(&[RolloutState::RolledBack, RolloutState::Failed, RolloutState::Missing]) {
            Verdict::Failed
        } else if any(&[RolloutState::TimedOut, RolloutState::InProgress]) {
            Verdict::TimedOut
        } else {
            Verdict::Complete
        };
        RolloutReport { verdict, waited_seconds: waited.as_secs(), services }
    }

    /// How many services ended in `state`.
    pub fn count(&self, state: RolloutState) -> usize {
        self.services.iter().filter(|s| s.state == state).count()
    }
}

/// Each service that did not complete with its reasons, then the count of each state.
impl fmt::Display for RolloutReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for s in self.services.iter().filter(|s| s.state != RolloutState::Complete) {
            writeln!(f, "{s}")?;
            if let Some(expected) = s.expected_revision.as_deref().filter(|_| !s.reasons.is_empty()) {
                writeln!(f, "  stopped tasks of {expected}:")?;
                for r in &s.reasons {
                    writeln!(
                        f,
                        "    {} ({} task{})",
                        r.reason,
                        r.tasks,
                        if r.tasks == 1 { "" } else { "s" }
                    )?;
                }
            }
        }
        let mut counts = Vec::new();
        for state in [
            RolloutState::Complete,
            RolloutState::RolledBack,
            RolloutState::Failed,
            RolloutState::TimedOut,
            RolloutState::Missing,
        ] {
            let n = self.count(state);
            if n > 0 {
                counts.push(format!("{n} {}", state.word()));
            }
        }
        if counts.is_empty() {
            counts.push("nothing to wait for".to_owned());
        }
        write!(f, "{} service(s): {}", self.services.len(), counts.join(", "))
    }
}

/// Rollout could not read the services' state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("rollout could not read the ECS services: {}", Chain(.0))]
pub struct RolloutError(#[source] pub RemoteError);

/// A deployment as `DescribeServices` tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeploymentLook {
    /// `PRIMARY`, `ACTIVE` or `INACTIVE`.
    pub(crate) status: String,
    /// `family:revision`.
    pub(crate) revision: String,
    pub(crate) running: u32,
    pub(crate) rollout_state: Option<String>,
    pub(crate) rollout_state_reason: Option<String>,
}

/// A service as `DescribeServices` tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ServiceLook {
    /// `ACTIVE`, `DRAINING` or `INACTIVE`.
    pub(crate) status: String,
    pub(crate) desired: u32,
    pub(crate) running: u32,
    pub(crate) deployments: Vec<DeploymentLook>,
    /// `currentServiceDeployment`, for a service released by a strategy other than rolling.
    pub(crate) staged: Option<String>,
}

impl ServiceLook {
    fn of(service: &Service) -> Self {
        let count = |n: i32| u32::try_from(n).unwrap_or(0);
        ServiceLook {
            status: service.status().unwrap_or_default().to_owned(),
            desired: count(service.desired_count()),
            running: count(service.running_count()),
            deployments: service
                .deployments()
                .iter()
                .map(|d| DeploymentLook {
                    status: d.status().unwrap_or_default().to_owned(),
                    revision: revision_of(d.task_definition().unwrap_or_default()),
                    running: count(d.running_count()),
                    rollout_state: d.rollout_state().map(|s| s.as_str().to_owned()),
                    rollout_state_reason: d.rollout_state_reason().map(str::to_owned),
                })
                .collect(),
            staged: service
                .deployment_configuration()
                .and_then(|c| c.strategy())
                .filter(|s| s.as_str() != "ROLLING")
                .and(service.current_service_deployment())
                .map(str::to_owned),
        }
    }
}

/// `family:revision` of a task definition ARN (`arn:aws:ecs:...:task-definition/web:7`).
fn revision_of(arn: &str) -> String {
    arn.rsplit_once(":task-definition/").map_or(arn, |(_, r)| r).to_owned()
}

/// Judges one look at a service whose declared revision is `expected` (`family:revision`),
/// filling `entry`'s state, revision, counts and message.
///
/// - The service not `ACTIVE` (deleted: `DRAINING`, `INACTIVE`): missing.
/// - The primary deployment on another revision: rolled back (ECS rewrote the service to its
///   last completed deployment; the release's own deployment is failed or gone).
/// - The primary deployment on the expected revision with `rolloutState` `FAILED` (a
///   circuit breaker with nothing to roll back to, as on a first deploy): failed.
/// - Complete when the primary runs the expected revision with `rolloutState` `COMPLETED` (or,
///   for a service that reports none, when it is the only deployment) and both the deployment
///   and the service run as many tasks as the service desires (none needed at a desired count
///   of 0).
/// - Anything else: in progress.
pub(crate) fn judge(expected: &str, look: &ServiceLook, entry: &mut ServiceRollout) {
    if look.status != "ACTIVE" {
        entry.state = RolloutState::Missing;
        entry.message = Some(format!(
            "service `{}` in cluster `{}` is {} (deleted); {MISSING_HINT}",
            entry.service, entry.cluster, look.status
        ));
        return;
    }
    entry.desired_count = Some(look.desired);
    let Some(primary) = look.deployments.iter().find(|d| d.status == "PRIMARY") else {
        entry.state = RolloutState::InProgress;
        return;
    };
    entry.running_revision = Some(primary.revision.clone());
    entry.running_count = Some(primary.running);
    entry.rollout_state.clone_from(&primary.rollout_state);
    if primary.revision != expected {
        entry.state = RolloutState::RolledBack;
        // ECS's service deployment says why (`rolled back by alarm target-5xx`); else the
        // release's own deployment, when ECS still lists it.
        entry.message = match entry.stage.as_ref().filter(|s| s.rolling_back()) {
            Some(stage) => Some(stage.to_string()),
            None => look
                .deployments
                .iter()
                .find(|d| d.revision == expected)
                .and_then(|d| d.rollout_state_reason.clone()),
        };
        return;
    }
    let settled = match primary.rollout_state.as_deref() {
        Some("FAILED") => {
            entry.state = RolloutState::Failed;
            entry.message.clone_from(&primary.rollout_state_reason);
            return;
        }
        Some("COMPLETED") => true,
        Some(_) => false,
        None => look.deployments.len() == 1,
    };
    // A service at desired count 0 (a worker outside its active hours) has no task to wait
    // for once its deployment settled: its revision runs when it scales up, and tasks still
    // stopping are ECS's to finish.
    let all_running = primary.running == look.desired && look.running == look.desired;
    entry.state = if settled && (look.desired == 0 || all_running) {
        RolloutState::Complete
    } else {
        RolloutState::InProgress
    };
}

/// What to do about a missing cluster, service or family.
const MISSING_HINT: &str = "run `pulumi up` for this environment first; if it has run, the AWS \
                            credentials are another account's or the region is not the environment's";

/// `DescribeServices` takes up to 10 services a call.
const SERVICES_PER_DESCRIBE: usize = 10;
/// Stopped tasks looked at per service: `DescribeTasks` takes up to 100.
const STOPPED_TASKS: i32 = 100;
/// Distinct stopped reasons kept per service.
const REASONS_KEPT: usize = 10;

impl AwsClients {
    /// Waits until every target's primary deployment runs its declared revision with every
    /// desired task running, or it is rolled back, failed or missing, or `timing.timeout`
    /// passes. `progress` is called with a service's entry each time its line changes. A
    /// service that did not complete gets its stopped tasks' reasons.
    pub async fn rollout(
        &self,
        targets: &[ServiceTarget],
        timing: RolloutTiming,
        progress: &mut dyn FnMut(&ServiceRollout),
    ) -> Result<RolloutReport, RolloutError> {
        let started = tokio::time::Instant::now();
        let deadline = started + timing.timeout;
        let mut entries: Vec<ServiceRollout> = targets.iter().map(ServiceRollout::new).collect();
        let mut shown: Vec<String> = vec![String::new(); targets.len()];
        let mut show = |entry: &ServiceRollout, shown: &mut String| {
            let line = entry.to_string();
            if line != *shown {
                progress(entry);
                *shown = line;
            }
        };
        for ((entry, target), line) in entries.iter_mut().zip(targets).zip(shown.iter_mut()) {
            entry.expected_revision = self.latest_revision(&target.family).await.map_err(RolloutError)?;
            if entry.expected_revision.is_none() {
                entry.state = RolloutState::Missing;
                entry.message = Some(format!(
                    "task definition family `{}` has no ACTIVE revision; {MISSING_HINT}",
                    target.family
                ));
                show(entry, line);
            }
        }
        loop {
            let pending: Vec<usize> = (0..targets.len()).filter(|&i| !entries[i].state.settled()).collect();
            if pending.is_empty() {
                break;
            }
            let looks = self.look(targets, &pending).await.map_err(RolloutError)?;
            let stages = self.stages_of(targets, &pending, &looks).await.map_err(RolloutError)?;
            for ((i, look), stage) in pending.iter().zip(looks).zip(stages) {
                let entry = &mut entries[*i];
                entry.stage = stage;
                match look {
                    Ok(look) => {
                        let expected = entry.expected_revision.clone().unwrap_or_default();
                        judge(&expected, &look, entry);
                    }
                    Err(message) => {
                        entry.state = RolloutState::Missing;
                        entry.message = Some(message);
                    }
                }
                show(entry, &mut shown[*i]);
            }
            let now = tokio::time::Instant::now();
            if !entries.iter().any(|e| !e.state.settled()) {
                break;
            }
            if now >= deadline {
                for (entry, line) in entries.iter_mut().zip(shown.iter_mut()) {
                    if !entry.state.settled() {
                        entry.state = RolloutState::TimedOut;
                        show(entry, line);
                    }
                }
                break;
            }
            tokio::time::sleep(timing.interval.min(deadline - now)).await;
        }
        for (entry, target) in entries.iter_mut().zip(targets) {
            let unfinished = matches!(
                entry.state,
                RolloutState::RolledBack | RolloutState::Failed | RolloutState::TimedOut
            );
            if let (true, Some(expected)) = (unfinished, entry.expected_revision.as_deref()) {
                entry.reasons = self.stopped_reasons(target, expected).await.map_err(RolloutError)?;
            }
        }
        Ok(RolloutReport::of(entries, started.elapsed()))
    }

    /// The stage of each look's release by a strategy other than rolling (`None` for a rolling
    /// service, or one ECS no longer describes), in the order of `indices`.
    async fn stages_of(
        &self,
        targets: &[ServiceTarget],
        indices: &[usize],
        looks: &[Result<ServiceLook, String>],
    ) -> Result<Vec<Option<ReleaseStage>>, RemoteError> {
        let arns: Vec<String> =
            looks.iter().filter_map(|l| l.as_ref().ok().and_then(|l| l.staged.clone())).collect();
        if arns.is_empty() {
            return Ok(vec![None; looks.len()]);
        }
        let found = self.service_deployments(&arns).await?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        Ok(indices
            .iter()
            .zip(looks)
            .map(|(&i, look)| {
                let arn = look.as_ref().ok()?.staged.as_deref()?;
                let deployment = found.iter().find(|d| d.service_deployment_arn() == Some(arn))?;
                Some(ReleaseStage::of(deployment, &format!("{}-", targets[i].family), now))
            })
            .collect())
    }

    /// The family's latest ACTIVE revision as `family:revision`; `None` when it has none.
    async fn latest_revision(&self, family: &str) -> Result<Option<String>, RemoteError> {
        match self.ecs.describe_task_definition().task_definition(family).send().await {
            Ok(out) => Ok(out.task_definition().and_then(|t| t.task_definition_arn()).map(revision_of)),
            // ECS answers an unknown family (or one with only INACTIVE revisions) this way.
            Err(e) if e.as_service_error().is_some_and(|s| s.is_client_exception()) => Ok(None),
            Err(e) => Err(RemoteError::from_sdk("DescribeTaskDefinition", e)),
        }
    }

    /// One look at the targets at `indices`, in that order: each service as ECS describes it, or
    /// why it is missing.
    async fn look(
        &self,
        targets: &[ServiceTarget],
        indices: &[usize],
    ) -> Result<Vec<Result<ServiceLook, String>>, RemoteError> {
        let mut looks: Vec<Option<Result<ServiceLook, String>>> = vec![None; indices.len()];
        let mut clusters: Vec<&str> = Vec::new();
        for &i in indices {
            if !clusters.contains(&targets[i].cluster.as_str()) {
                clusters.push(&targets[i].cluster);
            }
        }
        for cluster in clusters {
            let members: Vec<usize> =
                (0..indices.len()).filter(|&k| targets[indices[k]].cluster == cluster).collect();
            for chunk in members.chunks(SERVICES_PER_DESCRIBE) {
                let names: Vec<String> = chunk.iter().map(|&k| targets[indices[k]].service.clone()).collect();
                let sent =
                    self.ecs.describe_services().cluster(cluster).set_services(Some(names)).send().await;
                let described = match sent {
                    Ok(out) => out,
                    Err(e) if e.as_service_error().is_some_and(|s| s.is_cluster_not_found_exception()) => {
                        for &k in chunk {
                            looks[k] = Some(Err(format!("cluster `{cluster}` not found; {MISSING_HINT}")));
                        }
                        continue;
                    }
                    Err(e) => return Err(RemoteError::from_sdk("DescribeServices", e)),
                };
                for &k in chunk {
                    let name = &targets[indices[k]].service;
                    let found = described.services().iter().find(|s| s.service_name() == Some(name.as_str()));
                    looks[k] = Some(found.map(ServiceLook::of).ok_or_else(|| {
                        format!("service `{name}` not found in cluster `{cluster}`; {MISSING_HINT}")
                    }));
                }
            }
        }
        Ok(looks.into_iter().map(|l| l.unwrap_or_else(|| Err("not looked at".to_owned()))).collect())
    }

    /// Why the target's tasks of `expected` (`family:revision`) stopped: its family's stopped
    /// tasks (up to 100), most recent first, each distinct reason once with its count.
    async fn stopped_reasons(
        &self,
        target: &ServiceTarget,
        expected: &str,
    ) -> Result<Vec<StoppedReason>, RemoteError> {
        let listed = self
            .ecs
            .list_tasks()
            .cluster(&target.cluster)
            .family(&target.family)
            .desired_status(DesiredStatus::Stopped)
            .max_results(STOPPED_TASKS)
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("ListTasks", e))?;
        if listed.task_arns().is_empty() {
            return Ok(Vec::new());
        }
        let described = self
            .ecs
            .describe_tasks()
            .cluster(&target.cluster)
            .set_tasks(Some(listed.task_arns().to_vec()))
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("DescribeTasks", e))?;
        let mut tasks: Vec<_> = described
            .tasks()
            .iter()
            .filter(|t| t.task_definition_arn().map(revision_of).as_deref() == Some(expected))
            .collect();
        // Most recent first; a task without a stop time last.
        tasks.sort_by(|a, b| b.stopped_at().map(|t| t.as_nanos()).cmp(&a.stopped_at().map(|t| t.as_nanos())));
        let mut reasons: Vec<StoppedReason> = Vec::new();
        for task in tasks {
            let mut said: Vec<String> = task.stopped_reason().map(one_line).into_iter().collect();
            for c in task.containers() {
                let name = c.name().unwrap_or("?");
                let exit = c.exit_code().filter(|code| *code != 0);
                match (c.reason(), exit) {
                    (Some(reason), Some(code)) => {
                        said.push(format!("container {name}: {} (exit code {code})", one_line(reason)));
                    }
                    (Some(reason), None) => said.push(format!("container {name}: {}", one_line(reason))),
                    (None, Some(code)) => said.push(format!("container {name}: exit code {code}")),
                    (None, None) => {}
                }
            }
            said.dedup();
            for reason in said {
                match reasons.iter().position(|r| r.reason == reason) {
                    Some(at) => reasons[at].tasks += 1,
                    None if reasons.len() < REASONS_KEPT => reasons.push(StoppedReason { reason, tasks: 1 }),
                    None => {}
                }
            }
        }
        Ok(reasons)
    }
}

/// Text on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::{
        DeploymentLook, RolloutReport, RolloutState, ServiceLook, ServiceRollout, ServiceTarget, Verdict,
    };
    use super::{judge, revision_of};

    fn entry() -> ServiceRollout {
        let mut e = ServiceRollout::new(&ServiceTarget {
            workload: "web".into(),
            cluster: "c".into(),
            service: "c-web-service".into(),
            family: "c-web".into(),
        });
        e.expected_revision = Some("c-web:2".into());
        e
    }

    fn deployment(status: &str, revision: &str, running: u32, state: Option<&str>) -> DeploymentLook {
        DeploymentLook {
            status: status.into(),
            revision: revision.into(),
            running,
            rollout_state: state.map(str::to_owned),
            rollout_state_reason: state.map(|s| format!("deployment {s}")),
        }
    }

    fn service(desired: u32, running: u32, deployments: Vec<DeploymentLook>) -> ServiceLook {
        ServiceLook { status: "ACTIVE".into(), desired, running, deployments, staged: None }
    }

    fn judged(look: &ServiceLook) -> ServiceRollout {
        let mut e = entry();
        judge("c-web:2", look, &mut e);
        e
    }

    #[test]
    fn the_revision_is_the_arn_suffix() {
        assert_eq!(revision_of("arn:aws:ecs:us-east-1:123456789012:task-definition/c-web:2"), "c-web:2");
        assert_eq!(revision_of("c-web:2"), "c-web:2");
    }

    #[test]
    fn a_service_scaled_to_zero_is_complete_once_its_deployment_settled() {
        // A worker outside its active hours: desired 0, a task still stopping.
        let idle = judged(&service(0, 1, vec![deployment("PRIMARY", "c-web:2", 1, Some("COMPLETED"))]));
        assert_eq!(idle.state, RolloutState::Complete);
        let moving = judged(&service(0, 1, vec![deployment("PRIMARY", "c-web:2", 1, Some("IN_PROGRESS"))]));
        assert_eq!(moving.state, RolloutState::InProgress);
        let elsewhere = judged(&service(0, 0, vec![deployment("PRIMARY", "c-web:1", 0, Some("COMPLETED"))]));
        assert_eq!(elsewhere.state, RolloutState::RolledBack);
    }

    #[test]
    fn complete_needs_the_declared_revision_completed_and_every_task_running() {
        let done = judged(&service(2, 2, vec![deployment("PRIMARY", "c-web:2", 2, Some("COMPLETED"))]));
        assert_eq!(done.state, RolloutState::Complete);
        assert_eq!(done.to_string(), "complete    web: c-web:2, 2 of 2 running");
        // Rolling: the old deployment still drains.
        let rolling = judged(&service(
            2,
            3,
            vec![
                deployment("PRIMARY", "c-web:2", 2, Some("IN_PROGRESS")),
                deployment("ACTIVE", "c-web:1", 1, None),
            ],
        ));
        assert_eq!(rolling.state, RolloutState::InProgress);
        assert_eq!(rolling.to_string(), "waiting     web: c-web:2, 2 of 2 running (IN_PROGRESS)");
        let short = judged(&service(2, 1, vec![deployment("PRIMARY", "c-web:2", 1, Some("COMPLETED"))]));
        assert_eq!(short.state, RolloutState::InProgress);
        // Without a rollout state, the only deployment with every task running.
        let plain = judged(&service(1, 1, vec![deployment("PRIMARY", "c-web:2", 1, None)]));
        assert_eq!(plain.state, RolloutState::Complete);
        let draining = judged(&service(
            1,
            2,
            vec![deployment("PRIMARY", "c-web:2", 1, None), deployment("ACTIVE", "c-web:1", 1, None)],
        ));
        assert_eq!(draining.state, RolloutState::InProgress);
        let none = judged(&service(1, 0, vec![]));
        assert_eq!(none.state, RolloutState::InProgress);
    }

    #[test]
    fn another_primary_revision_is_a_rollback_and_a_failed_primary_a_failure() {
        let back = judged(&service(
            1,
            1,
            vec![
                deployment("PRIMARY", "c-web:1", 1, Some("IN_PROGRESS")),
                deployment("ACTIVE", "c-web:2", 0, Some("FAILED")),
            ],
        ));
        assert_eq!(back.state, RolloutState::RolledBack);
        assert_eq!(back.message.as_deref(), Some("deployment FAILED"));
        assert_eq!(
            back.to_string(),
            "rolled back web: expected c-web:2, running c-web:1 (1 of 1 running): deployment FAILED"
        );
        let failed = judged(&service(1, 0, vec![deployment("PRIMARY", "c-web:2", 0, Some("FAILED"))]));
        assert_eq!(failed.state, RolloutState::Failed);
        assert_eq!(failed.to_string(), "failed      web: c-web:2, 0 of 1 running: deployment FAILED");
        let mut gone = service(1, 0, vec![]);
        gone.status = "INACTIVE".into();
        let gone = judged(&gone);
        assert_eq!(gone.state, RolloutState::Missing);
        assert!(
            gone.to_string()
                .starts_with("missing     web: service `c-web-service` in cluster `c` is INACTIVE")
        );
    }

    #[test]
    fn the_verdict_is_the_worst_state() {
        let with = |states: &[RolloutState]| {
            let services = states
                .iter()
                .map(|s| {
                    let mut e = entry();
                    e.state = *s;
                    e
                })
                .collect();
            RolloutReport::of(services, std::time::Duration::from_secs(3)).verdict
        };
        assert_eq!(with(&[RolloutState::Complete, RolloutState::Complete]), Verdict::Complete);
        assert_eq!(with(&[RolloutState::Complete, RolloutState::TimedOut]), Verdict::TimedOut);
        assert_eq!(with(&[RolloutState::TimedOut, RolloutState::RolledBack]), Verdict::Failed);
        assert_eq!(with(&[RolloutState::Missing]), Verdict::Failed);
        assert_eq!(with(&[]), Verdict::Complete);
        let empty = RolloutReport::of(Vec::new(), std::time::Duration::ZERO);
        assert_eq!(empty.to_string(), "0 service(s): nothing to wait for");
    }
}
