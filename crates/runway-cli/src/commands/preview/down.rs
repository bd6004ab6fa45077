//! `runway preview down --pr N`: everything the preview made and only that, in an order a
//! second run finishes after any stop: its logins taken off the proxies it shares with `from`
//! (`crate::preview_logins`), its own databases (`drop_db.rs`, by its bootstrap task,
//! while the stack is there), its own buckets emptied (S3 refuses to delete a bucket that holds
//! anything), its stack (`pulumi destroy`, `stack rm`), its values in the previews' Infisical
//! environment and then its folders there, whatever still carries its tag (what `destroy` left:
//! ECS task definitions, secrets), then the parameters under its own prefix, its record last.

use aws_adapter::aws::{AwsClients, BucketEmptied, ProxyAuthChange, Removed, TaskTiming};
use runtime_plan::Plan;
use runtime_plan::plan::{ItemSpec, ManagedBy, Preview};
use secrets_adapter::FolderDeletion;
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
    /// Its logins taken off each proxy it shares (`deregistered`, `unchanged` when none was
    /// listed, `gone` when the proxy is).
    pub(crate) proxies: Vec<ProxyAuthChange>,
    /// Its own buckets, emptied before the destroy (each version and delete marker).
    pub(crate) buckets: Vec<BucketEmptied>,
    /// `destroyed`, or `absent` when no stack held it.
    pub(crate) stack: &'static str,
    /// Its own databases dropped (with their logins and groups), or found absent.
    pub(crate) databases: Vec<String>,
    /// Infisical values deleted (`environment:/folder/NAME`).
    pub(crate) infisical: Vec<String>,
    /// Its Infisical folders (`environment:/folder`), deepest first: `deleted`, `gone`, or
    /// `left` when a folder still holds something runway did not put there.
    pub(crate) infisical_folders: Vec<Removed>,
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
    for p in report.proxies.iter().filter(|p| p.outcome == "deregistered") {
        outln!("  took {} login secret(s) off the shared proxy {}", p.secrets.len(), p.proxy);
    }
    for database in &report.databases {
        outln!("  dropped database {database}, its logins and groups");
    }
    for b in &report.buckets {
        outln!("  {} bucket {} ({} versions deleted)", b.outcome, b.bucket, b.deleted);
    }
    outln!("{}: stack {}", report.preview, report.stack);
    for v in &report.infisical {
        outln!("  deleted Infisical {v}");
    }
    for f in &report.infisical_folders {
        outln!("  {} Infisical folder {}", f.outcome, f.what);
    }
    for r in &report.removed {
        outln!("  {} {}", r.outcome, r.what);
    }
    let left = report.removed.iter().chain(&report.infisical_folders).filter(|r| r.outcome == "left").count();
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
    let rt = session.runtime()?;
    // First: the shared proxies stop admitting its logins (a run after a stop finds them gone).
    let (proxies, buckets) = rt.block_on(async {
        let aws = crate::session::aws(&session.plan, out).await?;
        let proxies = crate::preview_logins::deregister(&aws, &session.plan, out).await?;
        Ok::<_, Exit>((proxies, empty_buckets(&aws, &session.plan, &preview, out).await?))
    })?;
    // The stack's folder holds the program `up` emitted (a stack is only found with it).
    let mut databases = Vec::new();
    let stack_state = if pulumi.stack_exists()? {
        // Its databases first, by its bootstrap task, which `destroy` removes.
        databases = rt.block_on(async {
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
    let infisical = rt.block_on(infisical_values(session, &preview))?;
    let infisical_folders = rt.block_on(infisical_folders(session, &preview))?;
    let removed = rt.block_on(async {
        let aws = crate::session::aws(&session.plan, out).await?;
        aws_side(&aws, &session.plan, &preview, out).await
    })?;
    let name = preview.name.to_string();
    Ok(DownReport {
        preview: name,
        proxies,
        buckets,
        stack: stack_state,
        databases,
        infisical,
        infisical_folders,
        removed,
    })
}

/// Every value of the preview in Infisical: the folders its plan writes, under its own
/// folder, in the previews' environment only (never a declared environment's: checked again
/// here though validation refuses it).
async fn infisical_values(session: &Session, preview: &Preview) -> Result<Vec<String>, Exit> {
    let out = session.out;
    let Some(config) = &session.product.root.secrets.infisical else { return Ok(Vec::new()) };
    let environment = preview.infisical_environment.as_str();
    refuse_declared(config, environment, out)?;
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

/// Refuses a previews' Infisical environment that is a declared environment's (validation
/// refuses it already; checked again before anything is deleted there).
fn refuse_declared(config: &runway_schema::Infisical, environment: &str, out: Out) -> Result<(), Exit> {
    if config.environments.values().any(|e| e == environment) {
        return Err(out.usage(format!(
            "the previews' Infisical environment `{environment}` is a declared environment's: refused"
        )));
    }
    Ok(())
}

/// The preview's folders in the previews' Infisical environment, once their values are
/// deleted: every folder its plan names there, each parent up to its own folder
/// (`/previews/pr-7`), deepest first; never one outside its own folder, never a declared
/// environment's. A folder gone already is `gone`; one still holding something runway did not
/// put there is `left` (Infisical refuses to delete it; runway never forces).
async fn infisical_folders(session: &Session, preview: &Preview) -> Result<Vec<Removed>, Exit> {
    let out = session.out;
    let Some(config) = &session.product.root.secrets.infisical else { return Ok(Vec::new()) };
    let environment = preview.infisical_environment.as_str();
    refuse_declared(config, environment, out)?;
    let own = preview.infisical_folder.trim_end_matches('/');
    let mut folders = std::collections::BTreeSet::new();
    for (_, folder) in places(&session.plan).filter(|(env, _)| *env == environment) {
        let mut folder = folder.trim_end_matches('/');
        while folder.len() >= own.len() && folder.starts_with(own) {
            if folder.len() == own.len() || folder.as_bytes()[own.len()] == b'/' {
                folders.insert(folder.to_owned());
            }
            folder = folder.rsplit_once('/').map_or("", |(parent, _)| parent);
        }
    }
    let mut folders: Vec<String> = folders.into_iter().collect();
    folders.sort_by_key(|f| std::cmp::Reverse((f.matches('/').count(), f.clone())));
    let (client, project) = session.infisical()?;
    let mut removed = Vec::new();
    for folder in folders {
        let what = format!("{environment}:{folder}");
        let outcome = match client.delete_folder(&project, environment, &folder).await {
            Ok(FolderDeletion::Deleted) => "deleted",
            Ok(FolderDeletion::Absent) => "gone",
            Ok(FolderDeletion::NotEmpty) => "left",
            Err(e) => return Err(out.remote(format!("Infisical {what}: {}", chain(&e)))),
        };
        removed.push(Removed { what, outcome });
    }
    Ok(removed)
}

/// Empties the preview's own buckets (its plan's S3 buckets, none it shares), named as the
/// program names them: `<physical name>-<account id><suffix>`, the account the caller's.
async fn empty_buckets(
    aws: &AwsClients,
    plan: &Plan,
    preview: &Preview,
    out: Out,
) -> Result<Vec<BucketEmptied>, Exit> {
    let own = plan.items.iter().filter(|i| i.managed_by != ManagedBy::Shared);
    let buckets: Vec<_> = own
        .filter_map(|i| match &i.spec {
            ItemSpec::S3Bucket(bucket) => Some((&i.physical_name, &bucket.name_suffix)),
            _ => None,
        })
        .collect();
    if buckets.is_empty() {
        return Ok(Vec::new());
    }
    let account =
        aws.caller_account().await.map_err(|e| out.remote(format!("whose account: {}", chain(&e))))?;
    let mut emptied = Vec::new();
    for (physical, suffix) in buckets {
        let bucket = format!("{physical}-{account}{suffix}");
        let done = aws.empty_preview_bucket(&preview.name, &bucket).await;
        emptied.push(done.map_err(|e| out.remote(format!("emptying bucket {bucket}: {}", chain(&e))))?);
    }
    Ok(emptied)
}

/// Every Infisical place the plan names: `(environment, folder)`.
fn places(plan: &Plan) -> impl Iterator<Item = (&str, &str)> {
    let s = &plan.secrets;
    let generated = s.generated.iter().map(|g| &g.infisical);
    let connection = s.connection.iter().map(|c| &c.infisical);
    let parameters = s.ssm_parameters.iter().filter_map(|p| p.infisical.as_ref());
    let registry = s.registry_copies.iter().flat_map(|r| [&r.username, &r.password]);
    generated.chain(connection).chain(parameters).chain(registry).map(|p| (&*p.environment, &*p.folder))
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
