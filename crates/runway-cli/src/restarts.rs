//! `runway ssm publish`'s restarts. ECS reads a task's `secrets` only when the task starts, so a
//! service whose tasks read a parameter whose value changed gets a new deployment
//! (`UpdateService`, `forceNewDeployment`), whoever changed it:
//!
//! - a parameter this run wrote: when its value differed (a new type or key alone does not
//!   count), as the adapter's report says;
//! - any other parameter the service reads (one the program wrote at `pulumi up`, one `secrets
//!   prepare` or `runway rotate` wrote): when it was last written (`LastModifiedDate`) after the
//!   service's current deployment was created (`PRIMARY`'s `createdAt`): every task of that
//!   deployment started after its creation, so a parameter written before it was read at its
//!   current value, and one written after may not have been. The rule keeps no state, and a
//!   restart makes a newer deployment, so the next run restarts nothing. Its limit: a write
//!   that left the value as it was (a program's `pulumi up` never rewrites an unchanged value)
//!   restarts too. See docs/pipeline.md, "Restarts".
//!
//! Which services read which parameter is the plan's ([`Plan::services_reading`]).

use std::collections::HashMap;
use std::time::SystemTime;

use aws_adapter::aws::{Action, AwsClients, ParameterOutcome, UpdateReason};
use runtime_plan::plan::CompactString;
use runtime_plan::{Plan, ServiceRestart};
use serde::Serialize;

use crate::args::Format;
use crate::output::chain;

/// A service restarted or left alone, as printed and in JSON.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RestartJson {
    workload: String,
    cluster: String,
    service: String,
    parameters: Vec<String>,
}

impl From<&ServiceRestart> for RestartJson {
    fn from(s: &ServiceRestart) -> Self {
        RestartJson {
            workload: s.workload.to_string(),
            cluster: s.cluster.to_string(),
            service: s.service.to_string(),
            parameters: s.parameters.iter().map(ToString::to_string).collect(),
        }
    }
}

/// The services to restart after a publish whose outcomes (every parameter it wrote or found
/// unchanged) are `outcomes`, each with the parameters that make it stale, in item order.
pub(crate) async fn stale_readers(
    plan: &Plan,
    aws: &AwsClients,
    outcomes: &[&ParameterOutcome],
) -> Result<Vec<ServiceRestart>, String> {
    let changed: Vec<&str> = outcomes
        .iter()
        .filter(|o| o.reasons.contains(&UpdateReason::Value))
        .map(|o| o.name.as_str())
        .collect();
    // Written now: judged by its value alone (its date is this run's).
    let written: Vec<&str> = outcomes
        .iter()
        .filter(|o| matches!(o.action, Action::Created | Action::Updated))
        .map(|o| o.name.as_str())
        .collect();
    let every: Vec<&str> = plan.secrets.ssm_parameters.iter().map(|p| &*p.name).collect();
    let readers = plan.services_reading(&every);
    let mut read: Vec<&str> = readers.iter().flat_map(|r| r.parameters.iter().map(|p| p.as_str())).collect();
    read.sort_unstable();
    read.dedup();
    read.retain(|n| !written.contains(n));
    let modified: HashMap<String, SystemTime> =
        aws.parameters_modified(&read).await.map_err(|e| chain(&e))?.into_iter().collect();
    let mut stale = Vec::new();
    for reader in readers {
        let judged_by_date = reader.parameters.iter().any(|p| modified.contains_key(p.as_str()));
        let deployed = match judged_by_date {
            true => aws
                .primary_deployment_created(&reader.cluster, &reader.service)
                .await
                .map_err(|e| chain(&e))?,
            false => None,
        };
        let parameters = stale_parameters(&reader.parameters, &changed, &modified, deployed);
        if !parameters.is_empty() {
            stale.push(ServiceRestart { parameters, ..reader });
        }
    }
    Ok(stale)
}

/// The parameters among `read` (one service's, in its order) whose value its running tasks may
/// not have: those whose value this run `changed`, and those last written (`modified`, only
/// parameters this run did not write) after its current deployment was created (`deployed`;
/// `None`: no deployment runs).
fn stale_parameters(
    read: &[CompactString],
    changed: &[&str],
    modified: &HashMap<String, SystemTime>,
    deployed: Option<SystemTime>,
) -> Vec<CompactString> {
    let newer = |p: &str| match (modified.get(p), deployed) {
        (Some(at), Some(deployed)) => *at > deployed,
        _ => false,
    };
    read.iter().filter(|p| changed.contains(&p.as_str()) || newer(p)).cloned().collect()
}

/// Restarts `readers` (or, with `no_restart` or in a dry run, only lists them). Returns
/// `(restarted, not restarted)`.
pub(crate) async fn restart_readers(
    readers: &[ServiceRestart],
    aws: &AwsClients,
    no_restart: bool,
    dry_run: bool,
    format: Format,
) -> Result<(Vec<RestartJson>, Vec<RestartJson>), String> {
    let mut restarted = Vec::new();
    let mut not_restarted = Vec::new();
    for s in readers {
        let reads = s.parameters.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", ");
        if no_restart || dry_run {
            if format == Format::Text {
                let why = if dry_run { "would restart" } else { "not restarted (--no-restart)" };
                outln!("{why} {} ({}): reads {reads}", s.workload, s.service);
            }
            not_restarted.push(RestartJson::from(s));
            continue;
        }
        if !aws.restart_service(&s.cluster, &s.service).await.map_err(|e| chain(&e))? {
            // Not deployed yet: no task runs, its first ones will read the new value.
            if format == Format::Text {
                outln!("not found {} ({}): no running service to restart", s.workload, s.service);
            }
            continue;
        }
        if format == Format::Text {
            outln!("restarted {} ({}): reads {reads}", s.workload, s.service);
        }
        restarted.push(RestartJson::from(s));
    }
    Ok((restarted, not_restarted))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_parameter_is_stale_when_changed_now_or_written_after_the_deployment() {
        let at = |s: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(s);
        let read: Vec<CompactString> =
            ["/p/e/a/NOW", "/p/e/a/AFTER", "/p/e/a/BEFORE", "/p/e/a/SAME", "/p/e/a/KEY"]
                .into_iter()
                .map(Into::into)
                .collect();
        // `KEY` was written now for its key alone: not changed, and not judged by its date.
        let modified: HashMap<String, SystemTime> =
            [("/p/e/a/AFTER", at(200)), ("/p/e/a/BEFORE", at(50)), ("/p/e/a/SAME", at(100))]
                .into_iter()
                .map(|(n, t)| (n.to_owned(), t))
                .collect();
        let changed = ["/p/e/a/NOW"];
        assert_eq!(
            stale_parameters(&read, &changed, &modified, Some(at(100))),
            ["/p/e/a/NOW", "/p/e/a/AFTER"]
        );
        // No deployment runs: only a value changed now is named (its restart finds no service).
        assert_eq!(stale_parameters(&read, &changed, &modified, None), ["/p/e/a/NOW"]);
        // A deployment newer than every write: nothing but the change of this run.
        assert_eq!(stale_parameters(&read, &[], &modified, Some(at(300))), Vec::<CompactString>::new());
    }
}
