//! `runway rollback`: puts an ECS service back on the task definition revision of the last
//! deployment ECS completed before the one it runs, then `rollout` waits for it.
//!
//! - What runs now: the primary deployment's revision (`DescribeServices`).
//! - What ECS last completed before it: the service's deployment history
//!   (`ListServiceDeployments` with `status` `SUCCESSFUL`, newest first, then
//!   `DescribeServiceRevisions` for each deployment's `targetServiceRevisionArn`, which names
//!   its `taskDefinition`): the newest revision there other than the running one.
//! - Refused when that revision reads an SSM parameter (a container's `secrets` `valueFrom`)
//!   that no longer exists (`DescribeParameters`, which returns no values): its tasks could not
//!   start.
//! - ECS refuses to point a service at a deregistered (`INACTIVE`) revision, and `pulumi up`
//!   deregisters the revision it replaces; so the previous revision's definition is registered
//!   again (`RegisterTaskDefinition`, a new revision of the family, the same containers, roles,
//!   sizes and tags) and the service updated to it (`UpdateService`). The family's latest
//!   ACTIVE revision is then the one `rollout` waits for.

use aws_sdk_ecs::types::{ServiceDeploymentStatus, Tag, TaskDefinition, TaskDefinitionField};
use serde::Serialize;

use super::rollout::ServiceTarget;
use super::{AwsClients, Chain, RemoteError};

/// What a rollback of one service goes back to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RollbackChoice {
    /// The workload.
    pub workload: String,
    /// The revision the service runs now, `family:revision` (the stack's, normally).
    pub current: String,
    /// The revision of the last deployment ECS completed before it, `family:revision`.
    pub previous: String,
    /// The SSM parameters the previous revision reads, by name.
    pub parameters: Vec<String>,
    /// Those of them that no longer exist: the rollback is refused while any is.
    pub missing: Vec<String>,
}

/// Why a rollback could not be chosen or carried out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[non_exhaustive]
pub enum RollbackError {
    /// An AWS call failed.
    #[error("rollback could not reach ECS or SSM: {}", Chain(.0))]
    Remote(#[source] RemoteError),
    /// The service or its cluster does not exist, or it has no primary deployment.
    #[error("service `{service}` in cluster `{cluster}` is not running a deployment to roll back")]
    NotRunning {
        /// The service's name.
        service: String,
        /// The cluster's name.
        cluster: String,
    },
    /// ECS records no completed deployment of another revision.
    #[error(
        "ECS records no completed deployment of `{workload}` other than the running {current}: \
         nothing to go back to"
    )]
    NoPrevious {
        /// The workload.
        workload: String,
        /// The revision it runs.
        current: String,
    },
}

impl From<RemoteError> for RollbackError {
    fn from(e: RemoteError) -> Self {
        RollbackError::Remote(e)
    }
}

/// `family:revision` of a task definition ARN.
fn revision_of(arn: &str) -> String {
    arn.rsplit_once(":task-definition/").map_or(arn, |(_, r)| r).to_owned()
}

/// The name of an SSM parameter a container's `valueFrom` names (an SSM ARN, or a name);
/// `None` for a Secrets Manager ARN. runway's parameters are hierarchical (`/runway/...`), so
/// the name is the ARN's part after `:parameter`, which starts with its `/`.
fn parameter_name(value_from: &str) -> Option<String> {
    if let Some(rest) = value_from.strip_prefix("arn:") {
        let (_, name) = rest.split_once(":parameter")?;
        return Some(if name.starts_with('/') { name.to_owned() } else { format!("/{name}") });
    }
    Some(value_from.to_owned())
}

/// The SSM parameters a task definition's containers read, by name, each once.
fn parameters_of(definition: &TaskDefinition) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for container in definition.container_definitions() {
        for secret in container.secrets() {
            if let Some(name) = parameter_name(secret.value_from()).filter(|n| !names.contains(n)) {
                names.push(name);
            }
        }
    }
    names
}

/// `DescribeServiceRevisions` takes up to 20 ARNs a call.
const REVISIONS_PER_DESCRIBE: usize = 20;
/// The completed deployments looked at, newest first.
const HISTORY: i32 = 20;

impl AwsClients {
    /// What a rollback of `target` goes back to: the running revision, the previous one ECS
    /// completed, and the SSM parameters that one reads (those missing named).
    pub async fn rollback_choice(&self, target: &ServiceTarget) -> Result<RollbackChoice, RollbackError> {
        let not_running =
            || RollbackError::NotRunning { service: target.service.clone(), cluster: target.cluster.clone() };
        let described = self
            .ecs
            .describe_services()
            .cluster(&target.cluster)
            .services(&target.service)
            .send()
            .await
            .map_err(|e| {
                if e.as_service_error().is_some_and(|s| s.is_cluster_not_found_exception()) {
                    not_running()
                } else {
                    RemoteError::from_sdk("DescribeServices", e).into()
                }
            })?;
        let service =
            described.services().iter().find(|s| s.status() == Some("ACTIVE")).ok_or_else(not_running)?;
        let primary = service.deployments().iter().find(|d| d.status() == Some("PRIMARY"));
        let current_arn = primary.and_then(|d| d.task_definition()).ok_or_else(not_running)?;
        let current = revision_of(current_arn);
        let previous = self.previous_completed(target, &current).await?.ok_or_else(|| {
            RollbackError::NoPrevious { workload: target.workload.clone(), current: current.clone() }
        })?;
        let (definition, _) = self.task_definition(&previous).await?;
        let parameters = parameters_of(&definition);
        let missing = self.missing_parameters(&parameters).await?;
        Ok(RollbackChoice { workload: target.workload.clone(), current, previous, parameters, missing })
    }

    /// The newest revision of the service's completed deployments other than `current`.
    async fn previous_completed(
        &self,
        target: &ServiceTarget,
        current: &str,
    ) -> Result<Option<String>, RemoteError> {
        let listed = self
            .ecs
            .list_service_deployments()
            .cluster(&target.cluster)
            .service(&target.service)
            .status(ServiceDeploymentStatus::Successful)
            .max_results(HISTORY)
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("ListServiceDeployments", e))?;
        let mut briefs: Vec<_> = listed.service_deployments().iter().collect();
        // Newest first, by when each finished (else started).
        briefs.sort_by_key(|b| std::cmp::Reverse(b.finished_at().or(b.started_at()).map(|t| t.as_nanos())));
        let arns: Vec<String> =
            briefs.iter().filter_map(|b| b.target_service_revision_arn()).map(str::to_owned).collect();
        let mut revisions = Vec::new();
        for chunk in arns.chunks(REVISIONS_PER_DESCRIBE) {
            let out = self
                .ecs
                .describe_service_revisions()
                .set_service_revision_arns(Some(chunk.to_vec()))
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("DescribeServiceRevisions", e))?;
            revisions.extend(out.service_revisions().iter().cloned());
        }
        Ok(arns.iter().find_map(|arn| {
            let revision = revisions.iter().find(|r| r.service_revision_arn() == Some(arn.as_str()))?;
            Some(revision_of(revision.task_definition()?)).filter(|r| r != current)
        }))
    }

    /// A revision's definition (`family:revision`), with its tags.
    async fn task_definition(&self, revision: &str) -> Result<(TaskDefinition, Vec<Tag>), RemoteError> {
        let out = self
            .ecs
            .describe_task_definition()
            .task_definition(revision)
            .include(TaskDefinitionField::Tags)
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("DescribeTaskDefinition", e))?;
        let mut definition =
            out.task_definition().cloned().unwrap_or_else(|| TaskDefinition::builder().build());
        // Kept for the copy's registration.
        definition.family = definition.family.or_else(|| revision.split(':').next().map(str::to_owned));
        Ok((definition, out.tags().to_vec()))
    }

    /// Which of `names` SSM no longer has (`DescribeParameters`: names, never values).
    async fn missing_parameters(&self, names: &[String]) -> Result<Vec<String>, RemoteError> {
        let mut found: Vec<String> = Vec::new();
        for chunk in names.chunks(super::ssm::NAMES_PER_DESCRIBE) {
            let chunk: Vec<&str> = chunk.iter().map(String::as_str).collect();
            found.extend(self.describe(&chunk).await?.iter().filter_map(|p| p.name()).map(str::to_owned));
        }
        Ok(names.iter().filter(|n| !found.contains(n)).cloned().collect())
    }

    /// Registers `choice.previous`'s definition again as a new revision of its family and
    /// points the service at it; returns the new revision, `family:revision`.
    pub async fn roll_back(
        &self,
        target: &ServiceTarget,
        choice: &RollbackChoice,
    ) -> Result<String, RollbackError> {
        let (d, tags) = self.task_definition(&choice.previous).await?;
        let registered = self
            .ecs
            .register_task_definition()
            .set_family(d.family.clone())
            .set_task_role_arn(d.task_role_arn.clone())
            .set_execution_role_arn(d.execution_role_arn.clone())
            .set_network_mode(d.network_mode.clone())
            .set_container_definitions(d.container_definitions.clone())
            .set_volumes(d.volumes.clone())
            .set_placement_constraints(d.placement_constraints.clone())
            .set_requires_compatibilities(d.requires_compatibilities.clone())
            .set_cpu(d.cpu.clone())
            .set_memory(d.memory.clone())
            .set_pid_mode(d.pid_mode.clone())
            .set_ipc_mode(d.ipc_mode.clone())
            .set_proxy_configuration(d.proxy_configuration.clone())
            .set_ephemeral_storage(d.ephemeral_storage.clone())
            .set_runtime_platform(d.runtime_platform.clone())
            .set_tags((!tags.is_empty()).then_some(tags))
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("RegisterTaskDefinition", e))?;
        let arn = registered
            .task_definition()
            .and_then(|t| t.task_definition_arn())
            .map(str::to_owned)
            .unwrap_or_default();
        self.ecs
            .update_service()
            .cluster(&target.cluster)
            .service(&target.service)
            .task_definition(&arn)
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("UpdateService", e))?;
        Ok(revision_of(&arn))
    }
}

#[cfg(test)]
mod tests {
    use super::parameter_name;

    #[test]
    fn parameters_are_named_from_their_arns_and_secrets_manager_is_left_out() {
        assert_eq!(
            parameter_name("arn:aws:ssm:us-east-1:123456789012:parameter/runway/acme-shop/dev/main-db/url")
                .as_deref(),
            Some("/runway/acme-shop/dev/main-db/url")
        );
        assert_eq!(parameter_name("/runway/x").as_deref(), Some("/runway/x"));
        assert_eq!(parameter_name("arn:aws:secretsmanager:us-east-1:1:secret:db-AbCdEf"), None);
    }
}
