//! `runway restore` of an Aurora postgres resource: the cluster restored to a point in time
//! into `<cluster>-restored` (or `-drill`) beside the live one, its writer added (a restored
//! cluster has none), both waited for; its `restore.check`, when declared, run through the
//! copy's endpoint (the writer's) as an instance's is (`check.rs`): a failed check is exit 1
//! and no switch; a drill deletes the writer then the cluster either way and reports the time
//! and the cost;
//! `--switch` and `--finish` run `runtime_plan::restore_cluster`'s steps, observed again after
//! each, so a run again after a kill goes on from where the account is.

use std::time::Instant;

use aws_adapter::aws::{AwsClients, ClusterCopyRequest, ClusterFacts, DbKind, InstanceState, utc};
use runtime_plan::Plan;
use runtime_plan::restore::parse_time;
use runtime_plan::restore_cluster::{
    ClusterFinishStep, ClusterSeen, ClusterStep, ClusterSwitch, ClusterTarget, cluster_copy_cost,
    cluster_switch_of, cluster_target, instance_names, next_cluster_finish_step, next_cluster_switch_step,
};
use runtime_plan::switch::{
    FinishStep, RESTORE_TAG, SWITCHED_TAG, SeenInstance, SwitchRefusal, SwitchSeen, SwitchStep,
};

use super::{Args, RestoreWaits, check};
use crate::planning::catalogue_for;
use crate::prelude::*;

type Waits = Timing<RestoreWaits>;

/// Runs `runway restore` for an Aurora resource.
pub(super) fn run(session: &Session, args: &Args, out: Out) -> Result<(), Exit> {
    let plan = &session.plan;
    let rt = session.runtime()?;
    let aws = rt.block_on(crate::session::aws(plan, out))?;
    let switch = || cluster_switch_of(plan, &args.resource).map_err(|e| out.usage(e));
    if args.finish {
        return rt.block_on(finish(&aws, &switch()?, args.timing, out));
    }
    let to = parse_time(args.to.as_deref().unwrap_or_default()).map_err(|e| out.usage(e))?;
    if args.switch && rt.block_on(under_way(&aws, &switch()?, &to, out))? {
        return rt.block_on(run_switch(plan, &aws, &switch()?, args.timing, out));
    }
    let target = cluster_target(plan, &args.resource, args.drill).map_err(|e| out.usage(e))?;
    let check = check::inputs(plan, args, out)?;
    let window =
        rt.block_on(aws.cluster_window(&target.source)).map_err(|e| out.remote(chain(&e)))?.ok_or_else(
            || out.usage(format!("{} has no DB cluster {} to restore", plan.environment, target.source)),
        )?;
    let seen = (window.earliest.as_deref(), window.latest.as_deref(), window.retention_days);
    super::inside_window(&target.source, seen, &to, out)?;
    let started = Instant::now();
    let endpoint = rt.block_on(restore(plan, &aws, &target, &to, args.timing, out))?;
    outln!(
        "{} available at {endpoint} after {}s (a copy of {} as of {to}; its writer {})",
        target.copy,
        started.elapsed().as_secs(),
        target.source,
        target.writer
    );
    let copy = check::CheckedCopy { kind: DbKind::Cluster, id: &target.copy };
    let failed = rt.block_on(check::failed(plan, &aws, copy, check.as_ref(), args.timing, out))?;
    if args.drill {
        let deleted = rt.block_on(delete_copy(&aws, &target, out))?;
        let catalogue = catalogue_for(&args.env.root.file, args.env.root.catalogue.as_deref(), out)?;
        let seconds = started.elapsed().as_secs();
        let cost = cluster_copy_cost(plan, &catalogue, &target, seconds);
        return super::drill_report(copy.id, &target.instance_class, cost, (seconds, deleted, failed), out);
    }
    if failed {
        return Err(super::failed_check(copy.id, ("cluster", &target.source), out));
    }
    if args.switch {
        return rt.block_on(run_switch(plan, &aws, &switch()?, args.timing, out));
    }
    outln!(
        "the copy is kept; the live cluster {} is untouched. Move the product onto it with `runway restore --env {} {} --to {to} --switch`",
        target.source,
        plan.environment,
        target.resource
    );
    Ok(())
}

/// The copy started (or found), waited for, its writer added and waited for; the copy's
/// endpoint.
async fn restore(
    plan: &Plan,
    aws: &AwsClients,
    target: &ClusterTarget,
    to: &str,
    timing: Waits,
    out: Out,
) -> Result<String, Exit> {
    let remote = |e: aws_adapter::aws::RemoteError| out.remote(chain(&e));
    let tags = vec![
        ("product".to_owned(), plan.product.to_string()),
        ("environment".to_owned(), plan.environment.to_string()),
        ("resource".to_owned(), target.resource.to_string()),
        (RESTORE_TAG.to_owned(), to.to_owned()),
    ];
    let request = ClusterCopyRequest { source: &target.source, copy: &target.copy, time: to, tags: &tags };
    let began = aws.restore_cluster_copy(&request).await.map_err(remote)?;
    out.progress(&format!(
        "{}: {}",
        target.copy,
        if began { "restore started" } else { "exists, a run before began it" }
    ));
    let deadline = Instant::now() + timing.timeout;
    let facts = wait(
        deadline,
        timing,
        out,
        &target.copy,
        || aws.cluster_facts(&target.copy),
        |f: &ClusterFacts| f.status.clone(),
    )
    .await?;
    let made = aws
        .create_cluster_writer(&target.copy, &target.writer, &target.instance_class, &tags)
        .await
        .map_err(remote)?;
    out.progress(&format!(
        "{}: {}",
        target.writer,
        if made { "writer added" } else { "exists, a run before added it" }
    ));
    wait(
        deadline,
        timing,
        out,
        &target.writer,
        || aws.instance_state(&target.writer),
        |s: &InstanceState| s.status.clone(),
    )
    .await?;
    Ok(facts.endpoint.unwrap_or_else(|| "(no endpoint given)".to_owned()))
}

/// Looks at `name` through `look` until `status` says `available`.
async fn wait<T, F, Fut>(
    deadline: Instant,
    timing: Waits,
    out: Out,
    name: &str,
    look: F,
    status: impl Fn(&T) -> String,
) -> Result<T, Exit>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<Option<T>, aws_adapter::aws::RemoteError>>,
{
    loop {
        match look().await.map_err(|e| out.remote(chain(&e)))? {
            Some(t) if status(&t) == "available" => return Ok(t),
            Some(t) => out.progress(&format!("{name}: {}", status(&t))),
            None => out.progress(&format!("{name}: not there yet")),
        }
        if Instant::now() >= deadline {
            return Err(out.fail(EXIT_TIMEOUT, format!("{name} not available within --timeout")));
        }
        tokio::time::sleep(timing.interval).await;
    }
}

/// A drill's copy deleted: its writer, then the cluster (no final snapshot); `false` when the
/// cluster was gone already. Only a cluster carrying the restore's tag is unprotected.
async fn delete_copy(aws: &AwsClients, target: &ClusterTarget, out: Out) -> Result<bool, Exit> {
    let remote = |e: aws_adapter::aws::RemoteError| out.remote(chain(&e));
    aws.delete_cluster_instance(&target.writer).await.map_err(remote)?;
    if let Some(f) = aws.cluster_facts(&target.copy).await.map_err(remote)?
        && f.protected
        && f.tags.iter().any(|(k, _)| k == RESTORE_TAG)
    {
        aws.set_deletion_protection(DbKind::Cluster, &target.copy, false).await.map_err(remote)?;
    }
    aws.delete_cluster(&target.copy, None).await.map_err(remote)
}

/// What the account holds of the switch's clusters, instances and the proxy's targets.
async fn observe(aws: &AwsClients, s: &ClusterSwitch, out: Out) -> Result<ClusterSeen, Exit> {
    let remote = |e: aws_adapter::aws::RemoteError| out.remote(chain(&e));
    let seen = |f: ClusterFacts| SeenInstance {
        restored_copy: f.tags.iter().any(|(k, _)| k == RESTORE_TAG),
        switched: f.tags.iter().any(|(k, _)| k == SWITCHED_TAG),
        status: f.status,
        protected: f.protected,
    };
    let sw = &s.switch;
    let clusters = SwitchSeen {
        source: aws.cluster_facts(&sw.source).await.map_err(remote)?.map(seen),
        copy: aws.cluster_facts(&sw.copy).await.map_err(remote)?.map(seen),
        old: aws.cluster_facts(&sw.old).await.map_err(remote)?.map(seen),
        targets: aws.proxy_target_ids(&sw.proxy).await.map_err(remote)?,
    };
    let mut instances = Vec::new();
    for name in instance_names(s) {
        if let Some(state) = aws.instance_state(&name).await.map_err(remote)? {
            instances.push((name, state.status));
        }
    }
    Ok(ClusterSeen { clusters, instances })
}

/// Whether a switch to `to` is past its first rename (the restore is then skipped); a switch
/// to another time while an old cluster is kept is refused.
async fn under_way(aws: &AwsClients, s: &ClusterSwitch, to: &str, out: Out) -> Result<bool, Exit> {
    let seen = observe(aws, s, out).await?;
    let live = aws.cluster_facts(&s.switch.source).await.map_err(|e| out.remote(chain(&e)))?;
    let restored_to =
        live.as_ref().and_then(|f| f.tags.iter().find(|(k, _)| k == RESTORE_TAG)).map(|(_, v)| v.clone());
    if seen.clusters.old.is_some() && restored_to.as_deref().is_some_and(|t| t != to) {
        return Err(out.usage(SwitchRefusal::OldExists { old: s.switch.old.clone() }));
    }
    Ok(seen.clusters.old.is_some() || restored_to.is_some())
}

/// Carries the cluster switch out to its end.
async fn run_switch(
    plan: &Plan,
    aws: &AwsClients,
    s: &ClusterSwitch,
    timing: Waits,
    out: Out,
) -> Result<(), Exit> {
    let sw = &s.switch;
    let deadline = Instant::now() + timing.timeout;
    let remote = |e: aws_adapter::aws::RemoteError| out.remote(chain(&e));
    loop {
        let seen = observe(aws, s, out).await?;
        match next_cluster_switch_step(s, &seen).map_err(|e| out.usage(e))? {
            ClusterStep::Cluster(SwitchStep::Wait(id)) => {
                if Instant::now() >= deadline {
                    return Err(out.fail(EXIT_TIMEOUT, format!("{id} not available within --timeout")));
                }
                out.progress(&format!("{id}: waiting until available"));
                tokio::time::sleep(timing.interval).await;
            }
            ClusterStep::Cluster(SwitchStep::DeregisterLive) => {
                aws.move_proxy_target(DbKind::Cluster, (&sw.proxy, &sw.target_group), &sw.source, false)
                    .await
                    .map_err(remote)?;
                outln!("{}: {} is no longer its target", sw.proxy, sw.source);
            }
            ClusterStep::Cluster(SwitchStep::RenameLiveToOld) => {
                aws.rename_cluster(&sw.source, &sw.old).await.map_err(remote)?;
                outln!("renamed cluster {} to {} (kept, still protected)", sw.source, sw.old);
            }
            ClusterStep::RenameInstance(from, to) => {
                aws.rename_instance(&from, &to).await.map_err(remote)?;
                outln!("renamed instance {from} to {to}");
            }
            ClusterStep::Cluster(SwitchStep::RenameCopyToLive) => {
                aws.rename_cluster(&sw.copy, &sw.source).await.map_err(remote)?;
                outln!("renamed cluster {} to {}", sw.copy, sw.source);
            }
            ClusterStep::Cluster(SwitchStep::ProtectCopy) => {
                aws.set_deletion_protection(DbKind::Cluster, &sw.source, true).await.map_err(remote)?;
                outln!("{}: deletion protection on", sw.source);
            }
            ClusterStep::Cluster(SwitchStep::RegisterCopy) => {
                aws.move_proxy_target(DbKind::Cluster, (&sw.proxy, &sw.target_group), &sw.source, true)
                    .await
                    .map_err(remote)?;
                outln!("{}: {} (the copy) is its target", sw.proxy, sw.source);
            }
            ClusterStep::Cluster(SwitchStep::RestartReaders) => {
                for r in &sw.readers {
                    let restarted = aws.restart_service(&r.cluster, &r.service).await.map_err(remote)?;
                    let word = if restarted { "restarted" } else { "not found (no running service)" };
                    outln!("{word} {} ({})", r.workload, r.service);
                }
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                aws.tag_db(DbKind::Cluster, &sw.source, SWITCHED_TAG, &utc(now)).await.map_err(remote)?;
            }
            ClusterStep::Cluster(SwitchStep::Done) => break,
        }
    }
    report_switched(plan, s);
    Ok(())
}

/// The switch's end: what kept its value, and what Pulumi must be told.
fn report_switched(plan: &Plan, s: &ClusterSwitch) {
    let sw = &s.switch;
    outln!("switched: {} is the copy; {} is kept until `--finish`", sw.source, sw.old);
    for v in &sw.endpoint_variables {
        let place = v.infisical.as_deref().map(|p| format!(", Infisical {p}")).unwrap_or_default();
        outln!("unchanged {}{place}: it names the proxy {}, whose target moved", v.parameter, sw.proxy);
    }
    outln!(
        "tell Pulumi the cluster under {} and its instances are other ones (their resource ids changed):",
        sw.source
    );
    outln!("  pulumi state delete --force '{}'", sw.pulumi_urn);
    for (urn, _) in &s.member_urns {
        outln!("  pulumi state delete --force '{urn}'");
    }
    let name = |urn: &str| urn.rsplit("::").next().unwrap_or_default().to_owned();
    outln!("  pulumi import --protect aws:rds/cluster:Cluster {} {}", name(&sw.pulumi_urn), sw.source);
    if let Some((urn, id)) = s.member_urns.first() {
        outln!("  pulumi import --protect aws:rds/clusterInstance:ClusterInstance {} {id}", name(urn));
    }
    outln!(
        "then `runway deploy --env {}` brings the copy's settings back to the plan's (and adds the plan's other instances)",
        plan.environment
    );
}

/// Deletes the old cluster once the switch is complete: its instances, then it with a final
/// snapshot.
async fn finish(aws: &AwsClients, s: &ClusterSwitch, timing: Waits, out: Out) -> Result<(), Exit> {
    let sw = &s.switch;
    let deadline = Instant::now() + timing.timeout;
    let remote = |e: aws_adapter::aws::RemoteError| out.remote(chain(&e));
    loop {
        let seen = observe(aws, s, out).await?;
        match next_cluster_finish_step(s, &seen).map_err(|e| out.usage(e))? {
            ClusterFinishStep::Cluster(FinishStep::Wait) => {
                if Instant::now() >= deadline {
                    return Err(out.fail(EXIT_TIMEOUT, format!("{} not deleted within --timeout", sw.old)));
                }
                out.progress(&format!("{}: waiting", sw.old));
                tokio::time::sleep(timing.interval).await;
            }
            ClusterFinishStep::DeleteInstance(name) => {
                aws.delete_cluster_instance(&name).await.map_err(remote)?;
                outln!("deleting instance {name} of {}", sw.old);
            }
            ClusterFinishStep::Cluster(FinishStep::UnprotectOld) => {
                aws.set_deletion_protection(DbKind::Cluster, &sw.old, false).await.map_err(remote)?;
                outln!("{}: deletion protection off", sw.old);
            }
            ClusterFinishStep::Cluster(FinishStep::DeleteOld) => {
                aws.delete_cluster(&sw.old, Some(sw.final_snapshot.as_str())).await.map_err(remote)?;
                outln!("deleting {} (final snapshot {})", sw.old, sw.final_snapshot);
            }
            ClusterFinishStep::Cluster(FinishStep::Done) => break,
        }
    }
    outln!("finished: {} is gone; {} runs on the copy", sw.old, sw.source);
    Ok(())
}
