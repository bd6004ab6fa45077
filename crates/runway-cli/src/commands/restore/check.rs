//! `restore.check` run against a restored copy, an RDS instance or an Aurora cluster
//! (`runtime_plan::restore_check` decides what): the temporary security group made and put on
//! the copy, the resource's bootstrap task definition run with the check's command and the
//! copy's address (a cluster's: its endpoint, the writer's), the group taken off the copy and
//! deleted, the result tagged on the copy. The calls take the copy's [`DbKind`]; the steps are
//! the same for both. A copy whose check passed (its tag) is not
//! checked again, but a group a stopped run left is still removed: every run ends with the
//! copy in its own groups only.

use std::time::Instant;

use aws_adapter::aws::{
    AwsClients, CopyNetwork, DbKind, GroupDeletion, OneOffRun, TaskOutcome, TaskOverride, TaskTiming,
};
use runtime_plan::Plan;
use runtime_plan::restore_check::{
    CHECK_COMMAND, CHECK_FAILED, CHECK_PASSED, CHECK_PASSED_LINE, CHECK_STARTED_BY, CHECK_TAG, RestoreCheck,
    check_group_name, restore_check,
};
use secrets_adapter::StackOutputs;

use super::{Args, RestoreWaits};
use crate::one_off::run_of;
use crate::prelude::*;

/// The check a resource declares and what it needs from outside the plan: the stack outputs
/// (the bootstrap task's revision and network) and their file's name.
pub(super) struct CheckInputs {
    pub(super) check: RestoreCheck,
    pub(super) outputs: StackOutputs,
    pub(super) file: PathBuf,
}

/// The check `args.resource` declares, with the stack outputs it runs with; `None` when it
/// declares none. Refused (before anything is made) when it declares one and `--outputs` is
/// not given.
pub(super) fn inputs(plan: &Plan, args: &Args, out: Out) -> Result<Option<CheckInputs>, Exit> {
    let Some(check) = restore_check(plan, &args.resource).map_err(|e| out.usage(e))? else {
        return Ok(None);
    };
    let Some(file) = &args.outputs else {
        return Err(out.usage(format!(
            "{} declares `restore.check`, run in its bootstrap task: give `--outputs FILE` (the stack \
             outputs, as `runway migrate` takes them)",
            args.resource
        )));
    };
    let outputs = crate::stack_outputs::read(file).map_err(|e| out.usage(e))?;
    Ok(Some(CheckInputs { check, outputs, file: file.clone() }))
}

/// How the check ended.
#[derive(Debug, PartialEq, Eq)]
enum Checked {
    /// The query ran (now, or in an earlier run: the copy's tag says so).
    Passed,
    /// It failed or never ran; what was printed says why.
    Failed,
}

/// The copy a check runs on: its kind (an instance, or a cluster reached through its writer)
/// and its identifier.
#[derive(Clone, Copy)]
pub(super) struct CheckedCopy<'a> {
    pub(super) kind: DbKind,
    pub(super) id: &'a str,
}

/// Runs the resource's check, when it declares one, on the copy (available); whether it failed.
pub(super) async fn failed(
    plan: &Plan,
    aws: &AwsClients,
    target: CheckedCopy<'_>,
    inputs: Option<&CheckInputs>,
    timing: Timing<RestoreWaits>,
    out: Out,
) -> Result<bool, Exit> {
    let Some(inputs) = inputs else { return Ok(false) };
    Ok(check_copy(plan, aws, target, inputs, timing, out).await? == Checked::Failed)
}

/// Runs the check on the copy (available), and cleans its group up.
async fn check_copy(
    plan: &Plan,
    aws: &AwsClients,
    target: CheckedCopy<'_>,
    inputs: &CheckInputs,
    timing: Timing<RestoreWaits>,
    out: Out,
) -> Result<Checked, Exit> {
    let remote = |e: aws_adapter::aws::RemoteError| out.remote(chain(&e));
    let copy = target.id;
    let network = aws.copy_network(target.kind, copy).await.map_err(remote)?;
    let network = network.ok_or_else(|| out.remote(format!("{copy} is not there to check")))?;
    let vpc = network.vpc.clone().ok_or_else(|| {
        out.remote(format!("RDS names no VPC for {copy} (no subnet group): the check cannot reach it"))
    })?;
    let name = check_group_name(copy);
    if network.tags.iter().any(|(k, v)| k == CHECK_TAG && v == CHECK_PASSED) {
        outln!("{}: passed on {copy} in an earlier run (its tag {CHECK_TAG})", inputs.check.name());
        cleanup(aws, target, &vpc, &name, timing, out).await?;
        return Ok(Checked::Passed);
    }
    let tags = vec![
        ("product".to_owned(), plan.product.to_string()),
        ("environment".to_owned(), plan.environment.to_string()),
        ("resource".to_owned(), inputs.check.resource.to_string()),
    ];
    let group = aws.ensure_check_group(&vpc, &name, &tags).await.map_err(remote)?;
    if !network.security_groups.contains(&group) {
        let mut groups = network.security_groups.clone();
        groups.push(group.clone());
        aws.set_copy_groups(target.kind, copy, &groups).await.map_err(remote)?;
        outln!("{copy}: the check's group {name} ({group}) admitted for the check");
    }
    let available = wait_copy(aws, target, timing, out).await?;
    let address = available.address.unwrap_or_else(|| "(no endpoint given)".to_owned());
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
    aws.tag_db(target.kind, copy, CHECK_TAG, tag).await.map_err(remote)?;
    Ok(checked)
}

/// The check's run: the bootstrap's revision, network and container (from the stack outputs),
/// with the check's group beside the bootstrap's, its command and variables, no record.
fn check_run(plan: &Plan, inputs: &CheckInputs, group: &str, address: &str) -> Result<OneOffRun, String> {
    let run = run_of(plan, &inputs.check.task, &inputs.outputs, &inputs.file)?;
    let mut security_groups = run.security_groups.clone();
    security_groups.push(group.to_owned());
    let overrides = TaskOverride {
        command: Some(CHECK_COMMAND.iter().map(|c| (*c).to_owned()).collect()),
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
    target: CheckedCopy<'_>,
    vpc: &str,
    name: &str,
    timing: Timing<RestoreWaits>,
    out: Out,
) -> Result<(), Exit> {
    let remote = |e: aws_adapter::aws::RemoteError| out.remote(chain(&e));
    let copy = target.id;
    let Some(group) = aws.check_group(vpc, name).await.map_err(remote)? else { return Ok(()) };
    if let Some(network) = aws.copy_network(target.kind, copy).await.map_err(remote)?
        && network.security_groups.contains(&group)
    {
        let own: Vec<String> = network.security_groups.into_iter().filter(|g| *g != group).collect();
        aws.set_copy_groups(target.kind, copy, &own).await.map_err(remote)?;
        wait_copy(aws, target, timing, out).await?;
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

/// Looks at the copy until it is `available` and each of its groups `active` (a change of its
/// groups applied); what it is then.
async fn wait_copy(
    aws: &AwsClients,
    target: CheckedCopy<'_>,
    timing: Timing<RestoreWaits>,
    out: Out,
) -> Result<CopyNetwork, Exit> {
    let deadline = Instant::now() + timing.timeout;
    loop {
        match aws.copy_network(target.kind, target.id).await.map_err(|e| out.remote(chain(&e)))? {
            Some(n) if n.status == "available" && n.groups_settled => return Ok(n),
            Some(n) if n.status == "available" => {
                out.progress(&format!("{}: its groups changing", target.id))
            }
            Some(n) => out.progress(&format!("{}: {}", target.id, n.status)),
            None => out.progress(&format!("{}: not there", target.id)),
        }
        if Instant::now() >= deadline {
            return Err(out.fail(EXIT_TIMEOUT, format!("{} not available within --timeout", target.id)));
        }
        tokio::time::sleep(timing.interval).await;
    }
}
