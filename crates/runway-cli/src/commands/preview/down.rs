//! `runway preview down --pr N`: everything the preview made and only that, in an order a
//! second run finishes after any stop: its own databases (`drop_db.rs`), its stack (`pulumi
//! destroy`, `stack rm`), its values in
//! the previews' Infisical environment, whatever still carries its tag (what `destroy` left:
//! ECS task definitions, secrets), then the parameters under its own prefix, its record last.

use aws_adapter::aws::{AwsClients, Removed, TaskTiming};
use runtime_plan::Plan;
use runtime_plan::plan::Preview;
use serde::Serialize;

use super::{StackArgs, live};
use crate::commands::deploy::report::Reporter;
use crate::prelude::*;

/// Removes pull request N's preview: its stack, its Infisical values, its parameters and
/// whatever still carries its tag; run again after a stop, it finishes.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The pull request's number.
    #[arg(long)]
    pr: u64,
    #[command(flatten)]
    stack: StackArgs,
    /// The drop tasks' waits.
    #[command(flatten)]
    timing: crate::args::Timing<super::drop_db::DropWaits>,
    #[command(flatten)]
    format: FormatArg,
    #[command(flatten)]
    root: RootArgs,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format.format.json()
    }
}

/// What one `down` did.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DownReport {
    /// `pr-7`.
    pub(crate) preview: String,
    /// `destroyed`, or `absent` when no stack held it.
    pub(crate) stack: &'static str,
    /// Its own databases dropped (with their logins and groups), or found absent.
    pub(crate) databases: Vec<String>,
    /// Infisical values deleted (`environment:/folder/NAME`).
    pub(crate) infisical: Vec<String>,
    /// AWS resources and parameters removed, gone already, or left.
    pub(crate) removed: Vec<Removed>,
}

/// Runs `runway preview down`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let name = format!("pr-{}", args.pr);
    let env = EnvArgs {
        env: name.clone(),
        root: RootArgs { file: args.root.file.clone(), catalogue: args.root.catalogue.clone() },
    };
    let session = Session::open(&env, out)?;
    let format = args.format.format;
    let timing = TaskTiming { timeout: args.timing.timeout, interval: args.timing.interval };
    let report = tear_down(&session, &args.stack, (&args.root.file, timing), format)?;
    show(&report, format);
    Ok(())
}

/// Prints what `down` did.
pub(crate) fn show(report: &DownReport, format: Format) {
    if format.json() {
        print_json(report);
        return;
    }
    for database in &report.databases {
        outln!("  dropped database {database}, its logins and groups");
    }
    outln!("{}: stack {}", report.preview, report.stack);
    for v in &report.infisical {
        outln!("  deleted Infisical {v}");
    }
    for r in &report.removed {
        outln!("  {} {}", r.outcome, r.what);
    }
    let left = report.removed.iter().filter(|r| r.outcome == "left").count();
    if left == 0 {
        outln!("{} removed: nothing carries its tag", report.preview);
    } else {
        outln!(
            "{}: {left} resource(s) left that runway does not delete (run `down` again once Pulumi can)",
            report.preview
        );
    }
}

/// Removes `session`'s preview (its plan must be a preview's), step by step.
pub(crate) fn tear_down(
    session: &Session,
    stack: &StackArgs,
    (file, timing): (&Path, TaskTiming),
    format: Format,
) -> Result<DownReport, Exit> {
    let out = session.out;
    let Some(preview) = session.plan.preview.clone() else {
        return Err(
            out.usage(format!("{} is a declared environment, not a preview", session.plan.environment))
        );
    };
    let pulumi = stack.pulumi(file, &preview.name);
    let reporter = Reporter::new(format);
    // The stack's folder holds the program `up` emitted (a stack is only found with it).
    let mut databases = Vec::new();
    let stack_state = if pulumi.stack_exists()? {
        // Its databases first, by its bootstrap task, which `destroy` removes.
        databases = session.runtime()?.block_on(async {
            let aws = crate::session::aws(&session.plan, out).await?;
            super::drop_db::drop_databases(session, &aws, &pulumi, (&reporter, timing)).await
        })?;
        // A `down` killed in its `destroy` left Pulumi's lock; no other job runs on this
        // stack (the pull request's jobs run one at a time): let it go. No lock: no matter.
        let _ = pulumi.cancel(&reporter);
        pulumi.destroy(&[], &reporter)?;
        pulumi.remove_stack(&reporter)?;
        "destroyed"
    } else {
        "absent"
    };
    let rt = session.runtime()?;
    let infisical = rt.block_on(infisical_values(session, &preview))?;
    let removed = rt.block_on(async {
        let aws = crate::session::aws(&session.plan, out).await?;
        aws_side(&aws, &session.plan, &preview, out).await
    })?;
    Ok(DownReport { preview: preview.name.to_string(), stack: stack_state, databases, infisical, removed })
}

/// Every value of the preview in Infisical: the folders its plan writes, under its own
/// folder, in the previews' environment only (never a declared environment's: checked again
/// here though validation refuses it).
async fn infisical_values(session: &Session, preview: &Preview) -> Result<Vec<String>, Exit> {
    let out = session.out;
    let Some(config) = &session.product.root.secrets.infisical else { return Ok(Vec::new()) };
    let environment = preview.infisical_environment.as_str();
    if config.environments.values().any(|e| e == environment) {
        return Err(out.usage(format!(
            "the previews' Infisical environment `{environment}` is a declared environment's: refused"
        )));
    }
    let (client, project) = session.infisical()?;
    let mut folders: Vec<&str> = places(&session.plan)
        .filter(|(env, folder)| *env == environment && folder.starts_with(preview.infisical_folder.as_str()))
        .map(|(_, folder)| folder)
        .collect();
    folders.sort_unstable();
    folders.dedup();
    let mut deleted = Vec::new();
    for folder in folders {
        let fail = |e: secrets_adapter::Error| {
            out.remote(format!("Infisical {environment}:{folder}: {}", chain(&e)))
        };
        for secret in client.list_secrets(&project, environment, folder).await.map_err(fail)? {
            if client.delete_secret(&project, environment, folder, &secret.name).await.map_err(fail)? {
                deleted.push(format!("{environment}:{folder}/{}", secret.name));
            }
        }
    }
    Ok(deleted)
}

/// Every Infisical place the plan names: `(environment, folder)`.
fn places(plan: &Plan) -> impl Iterator<Item = (&str, &str)> {
    let s = &plan.secrets;
    let generated = s.generated.iter().map(|g| &g.infisical);
    let connection = s.connection.iter().map(|c| &c.infisical);
    let parameters = s.ssm_parameters.iter().filter_map(|p| p.infisical.as_ref());
    let registry = s.registry_copies.iter().flat_map(|r| [&r.username, &r.password]);
    generated
        .chain(connection)
        .chain(parameters)
        .chain(registry)
        .map(|p| (p.environment.as_str(), p.folder.as_str()))
}

/// What carries the preview's tag (but its record), then its parameters (the record last).
async fn aws_side(aws: &AwsClients, plan: &Plan, preview: &Preview, out: Out) -> Result<Vec<Removed>, Exit> {
    let found = live::find(aws, &plan.product, None, out).await?;
    let mut removed = Vec::new();
    for r in found.resources.iter().filter(|r| r.preview == preview.name && !r.is_record()) {
        removed
            .push(aws.delete_tagged(r).await.map_err(|e| out.remote(format!("{}: {}", r.arn, chain(&e))))?);
    }
    let prefix = preview.ssm_prefix.as_str();
    let parameters = aws
        .delete_preview_parameters(prefix)
        .await
        .map_err(|e| out.remote(format!("the parameters under {prefix}: {}", chain(&e))))?;
    removed.extend(parameters);
    Ok(removed)
}
