//! `restore.check` run against a restored copy (`runtime_plan::restore_check` decides what):
//! the temporary security group made and put on the copy, the resource's bootstrap task
//! definition run with the check's command and the copy's address, the group taken off the
//! copy and deleted, the result tagged on the copy. A copy whose check passed (its tag) is not
//! checked again, but a group a stopped run left is still removed: every run ends with the
//! copy in its own groups only.

use std::time::Instant;

use aws_adapter::aws::{AwsClients, GroupDeletion, OneOffRun, TaskOutcome, TaskOverride, TaskTiming};
use runtime_plan::Plan;
use runtime_plan::restore::RestoreTarget;
use runtime_plan::restore_check::{
    CHECK_COMMAND, CHECK_FAILED, CHECK_PASSED, CHECK_PASSED_LINE, CHECK_STARTED_BY, CHECK_TAG, RestoreCheck,
    check_group_name,
};
use secrets_adapter::StackOutputs;

use super::RestoreWaits;
use crate::one_off::run_of;
use crate::prelude::*;

/// What the check needs from outside the plan: the stack outputs (the bootstrap task's
/// revision and network) and their file's name.
pub(super) struct CheckInputs<'a> {
    pub(super) check: &'a RestoreCheck,
    pub(super) outputs: &'a StackOutputs,
    pub(super) file: &'a Path,
}

/// How the check ended.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Checked {
    /// The query ran (now, or in an earlier run: the copy's tag says so).
    Passed,
    /// It failed or never ran; what was printed says why.
    Failed,
}

/// Runs the check on `target`'s copy (available), and cleans its group up.
pub(super) async fn check_copy(
    plan: &Plan,
    aws: &AwsClients,
    target: &RestoreTarget,
    inputs: &CheckInputs<'_>,
    timing: Timing<RestoreWaits>,
    out: Out,
) -> Result<Checked, Exit> {
    let remote = |e: aws_adapter::aws::RemoteError| out.remote(chain(&e));
    let copy = target.copy.as_str();
    let network = aws.copy_network(copy).await.map_err(remote)?;
    let network = network.ok_or_else(|| out.remote(format!("{copy} is not there to check")))?;
    let vpc = network.vpc.clone().ok_or_else(|| {
        out.remote(format!("RDS names no VPC for {copy} (no subnet group): the check cannot reach it"))
    })?;
    let name = check_group_name(copy);
    let facts = aws.instance_facts(copy).await.map_err(remote)?;
    let passed_before =
        facts.is_some_and(|f| f.tags.iter().any(|(k, v)| k == CHECK_TAG && v == CHECK_PASSED));
    if passed_before {
        outln!("{}: passed on {copy} in an earlier run (its tag {CHECK_TAG})", inputs.check.name());
        cleanup(aws, target, &vpc, &name, timing, out).await?;
        return Ok(Checked::Passed);
    }
    let tags = vec![
        ("product".to_owned(), plan.product.to_string()),
        ("environment".to_owned(), plan.environment.to_string()),
        ("resource".to_owned(), target.resource.to_string()),
    ];
    let group = aws.ensure_check_group(&vpc, &name, &tags).await.map_err(remote)?;
    if !network.security_groups.contains(&group) {
        let mut groups = network.security_groups.clone();
        groups.push(group.clone());
        aws.set_copy_groups(copy, &groups).await.map_err(remote)?;
        outln!("{copy}: the check's group {name} ({group}) admitted for the check");
    }
    let address = super::wait_available(aws, target, timing, out).await?;
    let run = check_run(plan, inputs, &group, &address).map_err(|e| out.usage(e))?;
    let mut progress = |line: &str| out.progress(line);
    let task_timing = TaskTiming { timeout: timing.timeout, interval: timing.interval };
    let report =
        aws.run_one_off(&run, task_timing, &mut progress).await.map_err(|e| out.remote(chain(&e)))?;
    if let TaskOutcome::TimedOut { .. } = report.outcome {
        // The task still runs in the group: it stays until a run again has waited for it.
        outln!("{report}");
        return Err(out.fail(
            EXIT_TIMEOUT,
            format!(
                "{} still runs: run the command again, it waits for it and then removes {name}",
                run.name
            ),
        ));
    }
    cleanup(aws, target, &vpc, &name, timing, out).await?;
    let (checked, tag) = match &report.outcome {
        TaskOutcome::Succeeded { task } => {
            outln!(
                "{}: passed on {copy}: `{}` ran (read-only); its first row is in the task's log, on the line `{}`: {}",
                run.name,
                inputs.check.query,
                CHECK_PASSED_LINE.trim_end(),
                run.logs(task)
            );
            (Checked::Passed, CHECK_PASSED)
        }
        _ => {
            outln!("{report}");
            (Checked::Failed, CHECK_FAILED)
        }
    };
    aws.tag_instance(copy, CHECK_TAG, tag).await.map_err(remote)?;
    Ok(checked)
}

/// The check's run: the bootstrap's revision, network and container (from the stack outputs),
/// with the check's group beside the bootstrap's, its command and variables, no record.
fn check_run(plan: &Plan, inputs: &CheckInputs<'_>, group: &str, address: &str) -> Result<OneOffRun, String> {
    let run = run_of(plan, &inputs.check.task, inputs.outputs, inputs.file)?;
    let mut security_groups = run.security_groups.clone();
    security_groups.push(group.to_owned());
    let overrides = TaskOverride {
        command: CHECK_COMMAND.iter().map(|c| (*c).to_owned()).collect(),
        environment: inputs
            .check
            .environment(address)
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        started_by: CHECK_STARTED_BY.to_owned(),
    };
    Ok(OneOffRun {
        name: inputs.check.name().to_string(),
        security_groups,
        record: None,
        proxy: None,
        overrides: Some(overrides),
        ..run
    })
}

/// Takes the check's group off the copy (when it has it) and deletes the group (when it
/// exists), waiting while it is still in use.
async fn cleanup(
    aws: &AwsClients,
    target: &RestoreTarget,
    vpc: &str,
    name: &str,
    timing: Timing<RestoreWaits>,
    out: Out,
) -> Result<(), Exit> {
    let remote = |e: aws_adapter::aws::RemoteError| out.remote(chain(&e));
    let copy = target.copy.as_str();
    let Some(group) = aws.check_group(vpc, name).await.map_err(remote)? else { return Ok(()) };
    if let Some(network) = aws.copy_network(copy).await.map_err(remote)?
        && network.security_groups.contains(&group)
    {
        let own: Vec<String> = network.security_groups.into_iter().filter(|g| *g != group).collect();
        aws.set_copy_groups(copy, &own).await.map_err(remote)?;
        super::wait_available(aws, target, timing, out).await?;
    }
    let deadline = Instant::now() + timing.timeout;
    while aws.delete_check_group(&group).await.map_err(remote)? == GroupDeletion::InUse {
        if Instant::now() >= deadline {
            return Err(out.fail(EXIT_TIMEOUT, format!("{name} ({group}) still in use after --timeout")));
        }
        out.progress(&format!("{name}: still in use, waiting"));
        tokio::time::sleep(timing.interval).await;
    }
    outln!("{copy}: the check's group {name} removed");
    Ok(())
}
