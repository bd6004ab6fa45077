//! `runway rollback --env ENV [--workload NAME]`: puts each ECS service of the plan (or one workload's)
//! back on the task definition revision of the last deployment ECS completed before the one it
//! runs, then waits as `runway rollout` waits. Refused, with nothing changed, when a previous
//! revision reads an SSM parameter that no longer exists, or ECS records none to go back to.
//! The stack still declares the newer revision: it says so (docs/pipeline.md, "runway
//! rollback").

use aws_adapter::aws::{
    RollbackChoice, RollbackError, RolloutTiming, ServiceRollout, ServiceTarget, Verdict,
};

use super::rollout::{RolloutWaits, targets};
use crate::args::shown;
use crate::prelude::*;

/// Put a service back on its previous release: the task definition revision ECS last completed
/// before the running one. Waits as `rollout` waits (exit 1 when it does not complete, 5 at the
/// timeout); refused (exit 1, nothing changed) when that revision reads an SSM parameter that
/// no longer exists. The stack still declares the newer revision: the next `pulumi up` that
/// updates the service deploys it again unless its commit is reverted.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    env: EnvArgs,
    /// The workload to roll back (default: every ECS service of the environment).
    #[arg(long)]
    workload: Option<String>,
    #[command(flatten)]
    timing: Timing<RolloutWaits>,
}

impl CommandArgs for Args {}

/// The services to roll back: the plan's, or the named workload's.
fn chosen(plan: &runtime_plan::Plan, workload: Option<&str>, out: Out) -> Result<Vec<ServiceTarget>, Exit> {
    let all = targets(plan).map_err(|e| out.usage(e))?;
    let Some(workload) = workload else { return Ok(all) };
    let names: Vec<&str> = all.iter().map(|t| t.workload.as_str()).collect();
    let one: Vec<ServiceTarget> = all.iter().filter(|t| t.workload == workload).cloned().collect();
    if one.is_empty() {
        return Err(out.usage(format!(
            "`{workload}` has no ECS service in {}; its services: {}",
            plan.environment,
            names.join(", ")
        )));
    }
    Ok(one)
}

/// Why a rollback was refused, as the error line says it.
fn refusal(e: &RollbackError) -> String {
    match e {
        RollbackError::Remote(_) => chain(e),
        other => other.to_string(),
    }
}

/// Runs `runway rollback`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let session = Session::open(&args.env, out)?;
    let (plan, env) = (&session.plan, args.env.env.as_str());
    let Timing { timeout, interval, .. } = args.timing;
    let targets = chosen(plan, args.workload.as_deref(), out)?;
    let rt = session.runtime()?;
    let aws = rt.block_on(crate::session::aws(plan, out))?;
    // Every choice first: a refusal of one changes nothing anywhere.
    let mut choices: Vec<RollbackChoice> = Vec::new();
    for target in &targets {
        match rt.block_on(aws.rollback_choice(target)) {
            Ok(choice) => choices.push(choice),
            Err(e @ RollbackError::Remote(_)) => return Err(out.remote(refusal(&e))),
            Err(e) => return Err(out.fail(EXIT_INVALID, format!("{}; nothing was changed", refusal(&e)))),
        }
    }
    if let Some(c) = choices.iter().find(|c| !c.missing.is_empty()) {
        return Err(out.fail(
            EXIT_INVALID,
            format!(
                "refusing to roll `{}` back to {}: it reads SSM parameter(s) that no longer exist: {}; \
                 its tasks could not start. Nothing was changed; restore the parameter(s) (`runway ssm \
                 publish`, `runway secrets prepare`) or deploy forward",
                c.workload,
                c.previous,
                c.missing.join(", ")
            ),
        ));
    }
    for (target, choice) in targets.iter().zip(&choices) {
        let registered = rt.block_on(aws.roll_back(target, choice)).map_err(|e| out.remote(refusal(&e)))?;
        outln!(
            "{}: {} -> {} (registered again as {registered}), reading {} SSM parameter(s), all present",
            choice.workload,
            choice.current,
            choice.previous,
            choice.parameters.len()
        );
    }
    outln!(
        "waiting up to {} for {} ECS service(s) of {env} in {}",
        shown(timeout),
        targets.len(),
        plan.region
    );
    let mut progress = |entry: &ServiceRollout| out.progress(&entry.to_string());
    let report = rt
        .block_on(aws.rollout(&targets, RolloutTiming { timeout, interval }, &mut progress))
        .map_err(|e| out.remote(chain(&e)))?;
    outln!("{report}");
    for choice in &choices {
        outln!(
            "note: the stack still declares {} for {}: the next `pulumi up` that updates the service \
             (or any `pulumi up --refresh`) deploys it again; revert the commit that made it first",
            choice.current,
            choice.workload
        );
    }
    match report.verdict {
        Verdict::Complete => Ok(()),
        Verdict::TimedOut => {
            errln!(
                "error: the rollback of {env} did not settle within {}; run `runway rollout`",
                shown(timeout)
            );
            Err(Exit(EXIT_TIMEOUT))
        }
        Verdict::Failed => {
            errln!("error: the rollback of {env} did not complete");
            Err(Exit(EXIT_INVALID))
        }
    }
}
