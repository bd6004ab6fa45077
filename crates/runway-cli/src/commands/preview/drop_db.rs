//! `runway preview down`'s first step: each postgres resource's own database of the preview
//! dropped, with its logins and groups, by the preview's bootstrap task run with its SQL
//! replaced by the plan's drop SQL (`DatabaseBootstrap::drop_sql`, docs/previews.md, "Data"):
//! before `pulumi destroy` removes that task definition. Every statement of the SQL is a no-op
//! once done, so a `down` stopped anywhere and run again finishes.

use std::path::PathBuf;

use aws_adapter::aws::{AwsClients, TaskOutcome, TaskTiming};
use runtime_plan::{SQL_VARIABLE, TaskPurpose};

use crate::args::Waits;
use crate::commands::deploy::report::Reporter;
use crate::prelude::*;
use crate::pulumi_cli::Pulumi;

/// Who starts a drop's task (`startedBy`): never adopted as the bootstrap's own run.
pub(crate) const DROP_STARTED_BY: &str = "runway-preview-down";

/// `preview down`'s waits for its drop tasks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DropWaits;

impl Waits for DropWaits {
    const TIMEOUT: &'static str = "15m";
    const TIMEOUT_HELP: &'static str = "The most time to wait for each database's drop task, from 1s to 6h";
    const INTERVAL: &'static str = "5s";
    const INTERVAL_HELP: &'static str = "The pause between two looks at a drop task, from 1s to 5m";
}

/// The default waits (`preview sweep`'s).
pub(crate) const DEFAULT_TIMING: TaskTiming = TaskTiming {
    timeout: std::time::Duration::from_secs(15 * 60),
    interval: std::time::Duration::from_secs(5),
};

/// Removes the stack outputs' file (it holds the stack's secrets) whatever happens.
struct Removed(PathBuf);

impl Drop for Removed {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Drops the preview's own databases (its stack exists): returns the databases dropped (or
/// found absent). A bootstrap whose task the stack has no output of was never run: nothing
/// of it to drop.
pub(crate) async fn drop_databases(
    session: &Session,
    aws: &AwsClients,
    pulumi: &Pulumi,
    (reporter, timing): (&Reporter, TaskTiming),
) -> Result<Vec<String>, Exit> {
    let (out, plan) = (session.out, &session.plan);
    let drops: Vec<_> =
        plan.secrets.bootstraps.iter().filter_map(|b| b.drop_sql().map(|sql| (b, sql))).collect();
    if drops.is_empty() {
        return Ok(Vec::new());
    }
    let file = std::env::temp_dir().join(format!(
        "runway-preview-down-{}-{}-{}.json",
        plan.product,
        plan.environment,
        std::process::id()
    ));
    let _removed = Removed(file.clone());
    pulumi.outputs(&file, reporter)?;
    let outputs = crate::stack_outputs::read(&file).map_err(|e| out.usage(e))?;
    let mut dropped = Vec::new();
    for (boot, sql) in drops {
        let bootstrap = |t: &&runtime_plan::OneOffTask| matches!(&t.purpose, TaskPurpose::DatabaseBootstrap { resource } if *resource == boot.resource);
        let Some(task) = plan.tasks.iter().find(bootstrap) else { continue };
        if outputs.get(&task.output).is_none() {
            out.progress(&format!(
                "{}: the stack has no bootstrap task: nothing made to drop",
                boot.database
            ));
            continue;
        }
        let mut run = crate::one_off::run_of(plan, task, &outputs, &file).map_err(|e| out.usage(e))?;
        run.name = format!("drop-{}", boot.database);
        run.record = None;
        run.proxy = task.proxy.as_ref().map(ToString::to_string);
        let environment = [(SQL_VARIABLE.to_owned(), sql)];
        let mut progress = |line: &str| out.progress(line);
        let report = aws
            .run_one_off_with_environment(&run, (&environment, DROP_STARTED_BY), timing, &mut progress)
            .await
            .map_err(|e| out.remote(format!("dropping {}: {}", boot.database, chain(&e))))?;
        if !matches!(report.outcome, TaskOutcome::Succeeded { .. }) {
            return Err(out.remote(format!(
                "{report}\n  the preview's database {} is not dropped: run `runway preview down` again",
                boot.database
            )));
        }
        dropped.push(boot.database.to_string());
    }
    Ok(dropped)
}
