//! `runway restore --switch` and `--finish`: observe the account, ask
//! `runtime_plan::switch` for the next step, carry it out, and again until done. A kill at any
//! point leaves a state the next run reads back and goes on from; the old instance is deleted
//! only by `--finish`, and only once the copy holds the live name, is the proxy's target and
//! carries the tag written after the readers' restart.

use std::time::Instant;

use aws_adapter::aws::{AwsClients, DbKind, InstanceFacts, utc};
use runtime_plan::Plan;
use runtime_plan::switch::{
    FinishStep, RESTORE_TAG, SWITCHED_TAG, SeenInstance, Switch, SwitchRefusal, SwitchSeen, SwitchStep,
    next_finish_step, next_switch_step, switch_of,
};

use super::RestoreWaits;
use crate::prelude::*;

/// What the account holds now of the switch's three names and the proxy's targets.
async fn observe(aws: &AwsClients, s: &Switch, out: Out) -> Result<SwitchSeen, Exit> {
    let seen = |f: InstanceFacts| SeenInstance {
        restored_copy: f.tags.iter().any(|(k, _)| k == RESTORE_TAG),
        switched: f.tags.iter().any(|(k, _)| k == SWITCHED_TAG),
        status: f.status,
        protected: f.protected,
    };
    let facts = |id: &str| {
        let id = id.to_owned();
        async move { aws.instance_facts(&id).await.map_err(|e| out.remote(chain(&e))) }
    };
    Ok(SwitchSeen {
        source: facts(&s.source).await?.map(seen),
        copy: facts(&s.copy).await?.map(seen),
        old: facts(&s.old).await?.map(seen),
        targets: aws.proxy_target_ids(&s.proxy).await.map_err(|e| out.remote(chain(&e)))?,
    })
}

fn plan_switch(plan: &Plan, resource: &str, out: Out) -> Result<Switch, Exit> {
    switch_of(plan, resource).map_err(|e| out.usage(e))
}

/// Whether a switch of `resource` to `to` is past its first rename (or done): the restore step
/// must then be skipped, the copy no longer being under its own name. A switch to another time
/// whose old instance is still kept is refused: `--finish` it first.
pub(super) async fn under_way(
    plan: &Plan,
    aws: &AwsClients,
    resource: &str,
    to: &str,
    out: Out,
) -> Result<bool, Exit> {
    let s = plan_switch(plan, resource, out)?;
    let seen = observe(aws, &s, out).await?;
    let live = aws.instance_facts(&s.source).await.map_err(|e| out.remote(chain(&e)))?;
    let restored_to =
        live.as_ref().and_then(|f| f.tags.iter().find(|(k, _)| k == RESTORE_TAG)).map(|(_, v)| v);
    if seen.old.is_some() && restored_to.is_some_and(|t| t != to) {
        return Err(out.usage(SwitchRefusal::OldExists { old: s.old }));
    }
    Ok(seen.old.is_some() || restored_to.is_some())
}

/// Carries the switch out to its end.
pub(super) async fn switch(
    plan: &Plan,
    aws: &AwsClients,
    resource: &str,
    timing: Timing<RestoreWaits>,
    out: Out,
) -> Result<(), Exit> {
    let s = plan_switch(plan, resource, out)?;
    let deadline = Instant::now() + timing.timeout;
    let remote = |e: aws_adapter::aws::RemoteError| out.remote(chain(&e));
    loop {
        let seen = observe(aws, &s, out).await?;
        let step = next_switch_step(&s, &seen).map_err(|e| out.usage(e))?;
        match step {
            SwitchStep::Wait(id) => {
                if Instant::now() >= deadline {
                    return Err(out.fail(EXIT_TIMEOUT, format!("{id} not available within --timeout")));
                }
                out.progress(&format!("{id}: waiting until available"));
                tokio::time::sleep(timing.interval).await;
                continue;
            }
            SwitchStep::DeregisterLive => {
                aws.move_proxy_target(DbKind::Instance, (&s.proxy, &s.target_group), &s.source, false)
                    .await
                    .map_err(remote)?;
                outln!("{}: {} is no longer its target", s.proxy, s.source);
            }
            SwitchStep::RenameLiveToOld => {
                aws.rename_instance(&s.source, &s.old).await.map_err(remote)?;
                outln!("renamed {} to {} (kept, still protected)", s.source, s.old);
            }
            SwitchStep::RenameCopyToLive => {
                aws.rename_instance(&s.copy, &s.source).await.map_err(remote)?;
                outln!("renamed {} to {}", s.copy, s.source);
            }
            SwitchStep::ProtectCopy => {
                aws.set_deletion_protection(DbKind::Instance, &s.source, true).await.map_err(remote)?;
                outln!("{}: deletion protection on", s.source);
            }
            SwitchStep::RegisterCopy => {
                aws.move_proxy_target(DbKind::Instance, (&s.proxy, &s.target_group), &s.source, true)
                    .await
                    .map_err(remote)?;
                outln!("{}: {} (the copy) is its target", s.proxy, s.source);
            }
            SwitchStep::RestartReaders => {
                for r in &s.readers {
                    let restarted = aws.restart_service(&r.cluster, &r.service).await.map_err(remote)?;
                    let word = if restarted { "restarted" } else { "not found (no running service)" };
                    outln!("{word} {} ({})", r.workload, r.service);
                }
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                aws.tag_db(DbKind::Instance, &s.source, SWITCHED_TAG, &utc(now)).await.map_err(remote)?;
            }
            SwitchStep::Done => break,
        }
    }
    report_switched(plan, &s);
    Ok(())
}

/// The switch's end: what kept its value, and what Pulumi must be told.
fn report_switched(plan: &Plan, s: &Switch) {
    outln!("switched: {} is the copy; {} is kept until `--finish`", s.source, s.old);
    for v in &s.endpoint_variables {
        let place = v.infisical.as_deref().map(|p| format!(", Infisical {p}")).unwrap_or_default();
        outln!("unchanged {}{place}: it names the proxy {}, whose target moved", v.parameter, s.proxy);
    }
    outln!("tell Pulumi the instance under {} is another one (its resource id changed):", s.source);
    outln!("  pulumi state delete --force '{}'", s.pulumi_urn);
    let name = s.pulumi_urn.rsplit("::").next().unwrap_or_default();
    outln!("  pulumi import --protect aws:rds/instance:Instance {name} {}", s.source);
    outln!("then `runway deploy --env {}` brings the copy's settings back to the plan's", plan.environment);
}

/// Deletes the old instance once the switch is complete.
pub(super) async fn finish(
    plan: &Plan,
    aws: &AwsClients,
    resource: &str,
    timing: Timing<RestoreWaits>,
    out: Out,
) -> Result<(), Exit> {
    let s = plan_switch(plan, resource, out)?;
    let deadline = Instant::now() + timing.timeout;
    let remote = |e: aws_adapter::aws::RemoteError| out.remote(chain(&e));
    loop {
        let seen = observe(aws, &s, out).await?;
        match next_finish_step(&s, &seen).map_err(|e| out.usage(e))? {
            FinishStep::Wait => {
                if Instant::now() >= deadline {
                    return Err(out.fail(EXIT_TIMEOUT, format!("{} not deleted within --timeout", s.old)));
                }
                out.progress(&format!("{}: waiting", s.old));
                tokio::time::sleep(timing.interval).await;
            }
            FinishStep::UnprotectOld => {
                aws.set_deletion_protection(DbKind::Instance, &s.old, false).await.map_err(remote)?;
                outln!("{}: deletion protection off", s.old);
            }
            FinishStep::DeleteOld => {
                aws.delete_with_snapshot(&s.old, &s.final_snapshot).await.map_err(remote)?;
                outln!("deleting {} (final snapshot {})", s.old, s.final_snapshot);
            }
            FinishStep::Done => break,
        }
    }
    outln!("finished: {} is gone; {} runs on the copy", s.old, s.source);
    Ok(())
}
