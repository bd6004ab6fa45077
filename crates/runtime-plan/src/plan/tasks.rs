//! One-off tasks: Fargate tasks the deploy job starts and waits for (`runway migrate`), each
//! with its own task definition item, run once per release in the private subnets.
//!
//! A task is generic: what it runs is its task definition item (image, command, variables,
//! roles, log group), where it runs is the cluster and security groups it names, and what makes
//! a run "the same as the last successful one" is its [`TaskRecord`]. What it is for is its
//! [`TaskPurpose`]; a new purpose is one variant and the lowering that adds its task.

use std::sync::Arc;

use compact_str::CompactString;
use serde::Serialize;

/// A one-off Fargate task of the plan, started by the deploy job (never by a service).
///
/// It runs in the environment's private subnets (the program's `privateSubnetIds`), without a
/// public IP, with `launchType: FARGATE`. The program exports what a runner needs to start it
/// as the stack output [`OneOffTask::output`] (an object: `cluster`, `taskDefinition`,
/// `family`, `subnets`, `securityGroups`, `container`, `logGroup`, `logStreamPrefix`,
/// `region`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OneOffTask {
    /// Its name, unique in the plan: `<purpose>-<subject>` (`migrate-metabase`).
    pub name: CompactString,
    /// What it is for, and whom.
    pub purpose: TaskPurpose,
    /// Logical id of its task definition item (a `task-definition` of its own).
    pub task_definition: CompactString,
    /// Logical id of the ECS cluster it runs in.
    pub cluster: CompactString,
    /// Logical ids of the security groups of its network interface.
    pub security_groups: Vec<CompactString>,
    /// The name of the container whose exit code is the task's result.
    pub container: CompactString,
    /// Logical id of the log group its container writes to.
    pub log_group: CompactString,
    /// The `awslogs-stream-prefix`: the container's stream is `<prefix>/<container>/<task id>`.
    pub log_stream_prefix: CompactString,
    /// The stack output the program exports for it.
    pub output: CompactString,
    /// Where a successful run is recorded, and what it is recorded as.
    pub record: TaskRecord,
    /// The RDS Proxy (its name) the task connects through, when it needs one that works before
    /// it starts (a bootstrap): a runner waits until a target of the proxy is `AVAILABLE`
    /// (`runway migrate`, bounded by its `--timeout`). Left out of JSON when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proxy: Option<CompactString>,
}

/// What a one-off task is for. Each variant names its subject; the runner does not look at it
/// (everything it needs is in the [`OneOffTask`]), commands choose their tasks by it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum TaskPurpose {
    /// A workload's `migrate` command, with its new image, before its service is updated
    /// (`runway migrate`).
    Migrate {
        /// The workload.
        workload: CompactString,
    },
    /// A postgres resource's bootstrap: its consumers' login roles, made or brought to what
    /// the plan says (`plan.secrets.bootstraps`), before any migration (`runway migrate`).
    DatabaseBootstrap {
        /// The postgres resource.
        resource: CompactString,
    },
}

impl TaskPurpose {
    /// The word of the purpose (`migrate`), the first part of a task's name.
    pub fn word(&self) -> &'static str {
        match self {
            TaskPurpose::Migrate { .. } => "migrate",
            TaskPurpose::DatabaseBootstrap { .. } => "bootstrap",
        }
    }

    /// The workload or resource the task is for (`metabase`).
    pub fn subject(&self) -> &str {
        match self {
            TaskPurpose::Migrate { workload } => workload,
            TaskPurpose::DatabaseBootstrap { resource } => resource,
        }
    }
}

/// Where a successful run of a one-off task is recorded: an SSM `String` parameter (nothing
/// secret) holding `{"image", "command", "task"}`. A run whose image and command fingerprint
/// equal the recorded ones is skipped: it already succeeded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRecord {
    /// The parameter: `<ssm prefix>/runway/<purpose>/<subject>`
    /// (`/acme-shop/dev/runway/migrate/metabase`).
    pub parameter: CompactString,
    /// The image the task runs, pinned by digest (shared with its task definition).
    pub image: Arc<str>,
    /// `sha256:<hex>` of the command as JSON (a list of words): a changed command runs again.
    pub command: CompactString,
    /// SSM parameters whose versions belong to what a run is recorded as: a runner folds them
    /// into [`TaskRecord::command`] (`runtime_plan::fingerprint` of it and `<name>@<version>`,
    /// in order), so a new value of one runs the task again (a bootstrap's passwords). Empty for
    /// a migration.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub versions_of: Vec<CompactString>,
}
