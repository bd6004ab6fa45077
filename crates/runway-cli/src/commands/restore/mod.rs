//! `runway restore --env ENV RESOURCE --to TIME [--drill | --switch]` and `runway restore --env
//! ENV RESOURCE --finish`; an Aurora cluster's restore is `cluster.rs`, a cache's (from a
//! snapshot, `--snapshot NAME`) `cache.rs`. A postgres resource's RDS instance restored to a
//! point in time into a
//! new instance beside the live one (the time checked against the restorable window, which is
//! printed), waited for until it is available. With `--drill`, the copy is then deleted and the
//! time to a usable copy and the drill's cost are reported: a rehearsal a team can schedule.
//! Without it the copy is kept; `--switch` then moves the product onto it (`switch.rs`), and
//! `--finish` deletes the old instance once the switch is complete.
//!
//! The live instance is never deleted before the switch is complete. A run again after a stop
//! finds the copy it began (a fixed name: `<identifier>-drill`, `<identifier>-restored`), or the
//! switch where it stopped, and goes on.
//!
//! A resource that declares `restore.check` has it run against the copy once available
//! (`check.rs`), before a drill's report or a switch: a failed check is exit 1, the switch not
//! started.
//!
//! Exit codes: 0 restored (drilled, switched, finished), 1 the check failed, 2 usage or a
//! refusal (unknown resource, not RDS, a time outside the window, a switch not complete before
//! `--finish`, a check without `--outputs`), 4 a call failed, 5 an instance was not available
//! (or the check's task not stopped) within `--timeout`.

use std::time::Instant;

use aws_adapter::aws::{AwsClients, CopyRequest, DbKind};
use runtime_plan::restore::{InWindow, RestoreTarget, copy_cost, in_window, parse_time, restore_target};
use runtime_plan::restore_kinds::{RestoreKind, restore_kind};

use crate::planning::catalogue_for;
use crate::prelude::*;

mod cache;
mod check;
mod cluster;
mod switch;

/// Restores a postgres resource's RDS instance or Aurora cluster to a point in time, or a
/// cache from a snapshot, into a copy beside the live one, and runs a database's
/// `restore.check` against the copy (exit 1 when it fails); `--drill` deletes the copy once
/// available (and checked) and reports the time and the cost.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The postgres resource (before the runway file, which stays optional).
    #[arg(value_name = "RESOURCE")]
    resource: String,
    #[command(flatten)]
    env: EnvArgs,
    /// The time to restore to, UTC: `YYYY-MM-DDTHH:MM:SSZ` (not with `--finish`); a cache is
    /// restored from its latest snapshot taken at or before it.
    #[arg(long, value_name = "TIME", required_unless_present_any = ["finish", "snapshot"], conflicts_with = "finish")]
    to: Option<String>,
    /// A cache: the snapshot to restore from, instead of `--to`.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["to", "finish", "switch"])]
    snapshot: Option<String>,
    /// A rehearsal: restore, wait until available, report, delete the copy.
    #[arg(long, conflicts_with_all = ["switch", "finish"])]
    drill: bool,
    /// Then move the product onto the copy: the live instance renamed `<id>-old` (kept,
    /// protected), the copy renamed `<id>`, the proxy's target moved, the readers restarted.
    #[arg(long, conflicts_with = "finish")]
    switch: bool,
    /// After a complete `--switch`: delete the old instance (`<id>-old`), leaving a final
    /// snapshot.
    #[arg(long)]
    finish: bool,
    /// The stack outputs (`pulumi stack output --json --show-secrets`), as `runway migrate`
    /// takes them: the resource's bootstrap task, which runs its `restore.check` (needed when
    /// it declares one).
    #[arg(long, value_name = "FILE", conflicts_with = "finish")]
    outputs: Option<PathBuf>,
    #[command(flatten)]
    timing: Timing<RestoreWaits>,
}

impl CommandArgs for Args {}

/// `runway restore`'s waits: a restore takes minutes to an hour.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RestoreWaits;

impl Waits for RestoreWaits {
    const TIMEOUT: &'static str = "2h";
    const TIMEOUT_HELP: &'static str = "The most time to wait for the copy, from 1s to 6h";
    const INTERVAL: &'static str = "30s";
    const INTERVAL_HELP: &'static str = "The pause between two looks at the copy, from 1s to 5m";
}

/// Runs `runway restore`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let session = Session::open(&args.env, out)?;
    let plan = &session.plan;
    match restore_kind(plan, &args.resource).map_err(|e| out.usage(e))? {
        RestoreKind::Cluster => return cluster::run(&session, &args, out),
        RestoreKind::Cache => return cache::run(&session, &args, out),
        RestoreKind::Instance if args.snapshot.is_some() => {
            return Err(out.usage("--snapshot restores a cache; a database is restored --to a time"));
        }
        RestoreKind::Instance => {}
    }
    let target = restore_target(plan, &args.resource, args.drill).map_err(|e| out.usage(e))?;
    let rt = session.runtime()?;
    let aws = rt.block_on(crate::session::aws(plan, out))?;
    if args.finish {
        return rt.block_on(switch::finish(plan, &aws, &args.resource, args.timing, out));
    }
    let to = parse_time(args.to.as_deref().unwrap_or_default()).map_err(|e| out.usage(e))?;
    if args.switch && rt.block_on(switch::under_way(plan, &aws, &args.resource, &to, out))? {
        // A switch stopped after its first rename: the copy is not under its own name any more.
        return rt.block_on(switch::switch(plan, &aws, &args.resource, args.timing, out));
    }
    let check = check::inputs(plan, &args, out)?;
    let window =
        rt.block_on(aws.restore_window(&target.source)).map_err(|e| out.remote(chain(&e)))?.ok_or_else(
            || out.usage(format!("{} has no DB instance {} to restore", plan.environment, target.source)),
        )?;
    let seen = (window.earliest.as_deref(), window.latest.as_deref(), window.retention_days);
    inside_window(&target.source, seen, &to, out)?;
    let started = Instant::now();
    let tags = vec![
        ("product".to_owned(), plan.product.to_string()),
        ("environment".to_owned(), plan.environment.to_string()),
        ("resource".to_owned(), target.resource.to_string()),
        ("runway-restore".to_owned(), to.to_string()),
    ];
    let request = CopyRequest {
        source: &target.source,
        copy: &target.copy,
        time: &to,
        instance_class: &target.instance_class,
        tags: &tags,
    };
    let began = rt.block_on(aws.restore_copy(&request)).map_err(|e| out.remote(chain(&e)))?;
    out.progress(&format!(
        "{}: {}",
        target.copy,
        if began { "restore started" } else { "exists, a run before began it" }
    ));
    let endpoint = rt.block_on(wait_available(&aws, &target, args.timing, out))?;
    let took = started.elapsed();
    outln!(
        "{} available at {endpoint} after {}s (a copy of {} as of {to})",
        target.copy,
        took.as_secs(),
        target.source
    );
    let copy = check::CheckedCopy { kind: DbKind::Instance, id: &target.copy };
    let failed = rt.block_on(check::failed(plan, &aws, copy, check.as_ref(), args.timing, out))?;
    if args.drill {
        let deleted = rt.block_on(aws.delete_copy(&target.copy)).map_err(|e| out.remote(chain(&e)))?;
        let catalogue = catalogue_for(&args.env.root.file, args.env.root.catalogue.as_deref(), out)?;
        let seconds = started.elapsed().as_secs();
        let cost = copy_cost(plan, &catalogue, &target, seconds);
        return drill_report(copy.id, &target.instance_class, cost, (seconds, deleted, failed), out);
    }
    if failed {
        return Err(failed_check(copy.id, ("instance", &target.source), out));
    }
    if args.switch {
        return rt.block_on(switch::switch(plan, &aws, &args.resource, args.timing, out));
    }
    outln!(
        "the copy is kept; the live instance {} is untouched. Move the product onto it with `runway restore --env {} {} --to {to} --switch`",
        target.source,
        plan.environment,
        target.resource
    );
    Ok(())
}

/// Prints the restorable window of `source` (`(earliest, latest, retention days)`, as RDS
/// tells it) and refuses a time outside it, or a source that keeps no backups.
fn inside_window(
    source: &str,
    (earliest, latest, retention_days): (Option<&str>, Option<&str>, u32),
    to: &str,
    out: Out,
) -> Result<(), Exit> {
    let (Some(earliest), Some(latest)) = (earliest, latest) else {
        return Err(out.usage(format!(
            "{source} keeps no automated backups (retention {retention_days} days): no point in time to restore"
        )));
    };
    outln!("restorable window of {source}: {earliest} to {latest} ({retention_days} days of backups)");
    match in_window(to, earliest, latest) {
        InWindow::Inside => Ok(()),
        InWindow::TooEarly | InWindow::TooLate => {
            Err(out.usage(format!("--to {to} is outside the restorable window {earliest} to {latest}")))
        }
    }
}

/// The refusal after a failed check (no drill): exit 1, the copy kept, the live `kind`
/// (`instance`, `cluster`) `source` untouched, nothing switched.
fn failed_check(copy: &str, (kind, source): (&str, &str), out: Out) -> Exit {
    out.fail(
        EXIT_INVALID,
        format!(
            "the check of {copy} failed: it is kept for a look, the live {kind} {source} untouched; no switch"
        ),
    )
}

/// A drill's end (its copy, of `class`, deleted): the time to a usable copy (available, and
/// checked when the resource declares a check) and what the copy cost (`None`: no catalogue
/// price); exit 1 when its check failed.
fn drill_report(
    copy: &str,
    class: &str,
    cost: Option<runway_schema::Money>,
    (seconds, deleted, failed): (u64, bool, bool),
    out: Out,
) -> Result<(), Exit> {
    let cost = cost.map_or_else(
        || "unpriced (no catalogue price for the class)".to_owned(),
        |m| format!("${}", m.cents()),
    );
    let usable = if failed {
        format!("no usable copy (its check failed) after {seconds}s")
    } else {
        format!("a usable copy in {seconds}s")
    };
    outln!(
        "drill: {usable}; {copy} {}; the copy cost {cost} ({class}, billed per second, 10 minutes at least)",
        if deleted { "deleted" } else { "already gone" },
    );
    if failed {
        return Err(out.fail(EXIT_INVALID, format!("the drill's check of {copy} failed")));
    }
    Ok(())
}

/// Looks at the copy until it is `available`; its endpoint.
pub(super) async fn wait_available(
    aws: &AwsClients,
    target: &RestoreTarget,
    timing: Timing<RestoreWaits>,
    out: Out,
) -> Result<String, Exit> {
    let deadline = Instant::now() + timing.timeout;
    loop {
        let state = aws.instance_state(&target.copy).await.map_err(|e| out.remote(chain(&e)))?;
        match state {
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
