//! `runway restore` of a cache: a replication group made from a snapshot of the live one
//! (`--snapshot NAME`, or the latest available one taken at or before `--to`) into
//! `<group>-restored` (or `-drill`), waited for; a drill deletes it and reports the time and the
//! cost. No `--switch` or `--finish`: a replication group cannot be renamed, and the steps of a
//! move onto the copy are printed instead (docs/operations.md, "Caches").

use std::time::Instant;

use aws_adapter::aws::{AwsClients, CacheCopyRequest};
use runtime_plan::Plan;
use runtime_plan::cache_restore::{
    CacheSnapshot, CacheTarget, SnapshotChoice, cache_copy_cost, cache_readers, cache_target, pick_snapshot,
};
use runtime_plan::restore::parse_time;
use runtime_plan::switch::RESTORE_TAG;

use super::{Args, RestoreWaits};
use crate::planning::catalogue_for;
use crate::prelude::*;

/// Runs `runway restore` for a cache.
pub(super) fn run(session: &Session, args: &Args, out: Out) -> Result<(), Exit> {
    let plan = &session.plan;
    if args.switch || args.finish {
        return Err(out.usage(format!(
            "`{}` is a cache: a replication group cannot take another's name, so there is no --switch or --finish; \
             restore it, then move onto the copy by the steps the restore prints (docs/operations.md, \"Caches\")",
            args.resource
        )));
    }
    let choice = match (&args.snapshot, &args.to) {
        (Some(name), _) => SnapshotChoice::Named(name.clone()),
        (None, to) => SnapshotChoice::AtOrBefore(
            parse_time(to.as_deref().unwrap_or_default()).map_err(|e| out.usage(e))?.to_string(),
        ),
    };
    let target = cache_target(plan, &args.resource, args.drill).map_err(|e| out.usage(e))?;
    let rt = session.runtime()?;
    let aws = rt.block_on(crate::session::aws(plan, out))?;
    let remote = |e: aws_adapter::aws::RemoteError| out.remote(chain(&e));
    let snapshots: Vec<CacheSnapshot> = rt
        .block_on(aws.cache_snapshots(&target.source))
        .map_err(remote)?
        .into_iter()
        .map(|s| CacheSnapshot { name: s.name, created: s.created, status: s.status, source: s.source })
        .collect();
    outln!("snapshots of {}:{}", target.source, if snapshots.is_empty() { " none" } else { "" });
    for s in &snapshots {
        outln!(
            "  {} {} ({}, {})",
            s.created.as_deref().unwrap_or("(time not given)"),
            s.name,
            s.source,
            s.status
        );
    }
    let snapshot = pick_snapshot(&target, &snapshots, &choice).map_err(|e| out.usage(e))?;
    let started = Instant::now();
    let tags = vec![
        ("product".to_owned(), plan.product.to_string()),
        ("environment".to_owned(), plan.environment.to_string()),
        ("resource".to_owned(), target.resource.to_string()),
        (RESTORE_TAG.to_owned(), snapshot.name.clone()),
    ];
    let request = CacheCopyRequest {
        source: &target.source,
        copy: &target.copy,
        snapshot: &snapshot.name,
        node_type: &target.node_type,
        nodes: target.nodes,
        engine_version: &target.engine_version,
        auth_token_parameter: &target.auth_token_parameter,
        tags: &tags,
    };
    let began = rt.block_on(aws.restore_cache_copy(&request)).map_err(remote)?;
    out.progress(&format!(
        "{}: {}",
        target.copy,
        if began { "restore started" } else { "exists, a run before began it" }
    ));
    let endpoint = rt.block_on(wait_available(&aws, &target, args.timing, out))?;
    let took = started.elapsed().as_secs();
    outln!(
        "{} available at {endpoint} after {took}s (a copy of {} from snapshot {})",
        target.copy,
        target.source,
        snapshot.name
    );
    if args.drill {
        let deleted = rt.block_on(aws.delete_cache_copy(&target.copy)).map_err(remote)?;
        let catalogue = catalogue_for(&args.env.root.file, args.env.root.catalogue.as_deref(), out)?;
        let cost = cache_copy_cost(plan, &catalogue, &target, took).map_or_else(
            || "unpriced (no catalogue price for the node type)".to_owned(),
            |m| format!("${}", m.cents()),
        );
        outln!(
            "drill: a usable copy in {took}s; {} {}; the copy cost {cost} ({} x {}, billed by the node-hour, a partial hour as a whole one)",
            target.copy,
            if deleted { "being deleted" } else { "already gone" },
            target.nodes,
            target.node_type
        );
        return Ok(());
    }
    print_move_steps(plan, &target, &endpoint);
    Ok(())
}

/// What moving the product onto the copy would take (not done by the command).
fn print_move_steps(plan: &Plan, target: &CacheTarget, endpoint: &str) {
    let (parameters, readers) = cache_readers(plan, &target.resource);
    outln!("the copy is kept; the live group {} is untouched. What names and reads it:", target.source);
    for p in &parameters {
        outln!("  {p} names the live endpoint (the copy's is {endpoint})");
    }
    if readers.is_empty() {
        outln!("  no service the plan runs reads {}'s parameters", target.resource);
    }
    for r in &readers {
        outln!("  {} ({}) reads them: it would restart", r.workload, r.service);
    }
    outln!(
        "  the endpoint comes from the program's stack output for {}: the next `runway deploy --env {}` writes it back; there is no --switch for a cache (docs/operations.md, \"Caches\")",
        target.source,
        plan.environment
    );
}

/// Looks at the copy until it is `available`; its primary endpoint.
async fn wait_available(
    aws: &AwsClients,
    target: &CacheTarget,
    timing: Timing<RestoreWaits>,
    out: Out,
) -> Result<String, Exit> {
    let deadline = Instant::now() + timing.timeout;
    loop {
        match aws.group_state(&target.copy).await.map_err(|e| out.remote(chain(&e)))? {
            Some(s) if s.status == "available" => {
                return Ok(s.endpoint.unwrap_or_else(|| "(no endpoint given)".to_owned()));
            }
            Some(s) => out.progress(&format!("{}: {}", target.copy, s.status)),
            None => out.progress(&format!("{}: not there yet", target.copy)),
        }
        if Instant::now() >= deadline {
            return Err(out.fail(EXIT_TIMEOUT, format!("{} not available within --timeout", target.copy)));
        }
        tokio::time::sleep(timing.interval).await;
    }
}
