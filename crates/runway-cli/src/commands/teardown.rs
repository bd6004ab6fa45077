//! `runway teardown --env ENV [--confirm ENV]`: everything the environment holds (the plan's
//! items and what carries its tags), what is deleted and what is kept (final snapshots,
//! buckets, the key pending deletion) with what the kept items cost a month; then, only with
//! `--confirm` repeating the environment's name (and, in `production`, `teardown: allowed` in
//! its runway), the destroy: the protected databases' deletion protection off and the stack's
//! resources unprotected, `pulumi destroy` (buckets excluded) through the deploy's Pulumi
//! runner, where the final snapshots are, then the Secrets Manager copies, the key scheduled
//! for deletion, the Infisical variables and, last, the SSM parameters. Each step is safe to
//! repeat: run again after a failure, it finishes.
//!
//! Exit codes: 0 listed (no `--confirm`) or torn down, 2 refused (`teardown: refused`, or
//! `--confirm` names another environment) or usage, 4 a remote call failed; a failed `pulumi`
//! command's own code.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use aws_adapter::aws::AwsClients;
use runtime_plan::drift::TaggedResource;
use runtime_plan::teardown::{Holdings, KEY_PENDING_DAYS, Refusal, TeardownPlan};
use runtime_plan::{ITEM_TAG, ItemSpec, Plan, RESOURCE_TAG};

use crate::prelude::*;
use crate::pulumi_cli::{Lines, Pulumi};

/// Lists what the environment holds, what a teardown deletes and keeps (with the kept items'
/// monthly cost); with `--confirm ENV`, destroys it (production only when its runway says
/// `teardown: allowed`). Exit 2 when refused.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    env: EnvArgs,
    /// The environment's name, repeated: without it nothing is deleted.
    #[arg(long, value_name = "ENV")]
    confirm: Option<String>,
    /// The Pulumi stack (default: the environment's name).
    #[arg(long)]
    stack: Option<String>,
    /// The stack's folder, where `runway deploy` emitted the program (default: `infra/ENV`
    /// beside the runway file).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// The Pulumi CLI to run.
    #[arg(long, value_name = "PATH", default_value = "pulumi")]
    pulumi: PathBuf,
    /// `json`: the decision, `{"product","environment","setting","refusal","deleted","kept",
    /// "keptMonthly","unpriced","parameterPrefix","infisicalFolders"}`; the steps on stderr.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format.json()
    }
}

/// Pulumi's lines on stderr, indented under the step.
struct Stderr;

impl Lines for Stderr {
    fn line(&self, text: &str) {
        errln!("    {text}");
    }
}

/// Runs `runway teardown`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let session = Session::open(&args.env, out)?;
    let plan = &session.plan;
    let setting = session.product.root.environments.get(&args.env.env).and_then(|e| e.teardown);
    let rt = session.runtime()?;
    let aws = rt.block_on(crate::session::aws(plan, out))?;
    let tagged = rt.block_on(aws.tagged_resources(&session.scope())).map_err(|e| out.remote(chain(&e)))?;
    let holdings = Holdings {
        tagged: tagged
            .into_iter()
            .map(|t| TaggedResource {
                resource_tag: t.tag(RESOURCE_TAG).map(Into::into),
                item_tag: t.tag(ITEM_TAG).map(Into::into),
                arn: t.arn.into(),
            })
            .collect(),
    };
    let decision = runtime_plan::teardown(plan, setting, args.confirm.as_deref(), &holdings);
    match args.format {
        Format::Text => out!("{}", plan_render::render_teardown_text(&decision)),
        Format::Json => out!("{}", runtime_plan::to_json(&decision)),
    }
    match &decision.refusal {
        None => {}
        // The listing was asked for.
        Some(Refusal::NotConfirmed) => return Ok(()),
        Some(r @ (Refusal::NotAllowed | Refusal::WrongName { .. })) => {
            errln!("refused: {}", r.text(&plan.environment));
            return Err(Exit(EXIT_USAGE));
        }
    }
    let root = args.env.root.file.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let root = if root.as_os_str().is_empty() { PathBuf::from(".") } else { root };
    let cwd = args.cwd.clone().unwrap_or_else(|| root.join("infra").join(&args.env.env));
    if !cwd.join("Pulumi.yaml").exists() {
        return Err(out.usage(format!(
            "no program in {}: the destroy runs the stack's program (`runway emit pulumi --env {} --out {}`)",
            cwd.display(),
            args.env.env,
            cwd.display()
        )));
    }
    let stack = args.stack.clone().unwrap_or_else(|| args.env.env.clone());
    let pulumi =
        Pulumi { program: args.pulumi.clone(), stack, cwd, tail: Arc::new(Mutex::new(VecDeque::new())) };
    destroy(plan, &decision, &pulumi, &aws, &rt, out)?;
    rt.block_on(forget(&session, plan, &aws, out))
}

/// The databases unprotected, then `pulumi destroy` with the buckets kept out.
fn destroy(
    plan: &Plan,
    decision: &TeardownPlan,
    pulumi: &Pulumi,
    aws: &AwsClients,
    rt: &tokio::runtime::Runtime,
    out: Out,
) -> Result<(), Exit> {
    for item in &plan.items {
        let (protection, cluster) = match &item.spec {
            ItemSpec::RdsInstance(spec) => (&spec.protection, false),
            ItemSpec::AuroraCluster(spec) => (&spec.protection, true),
            _ => continue,
        };
        if protection.deletion_protection {
            out.progress(&format!("deletion protection off: {}", item.physical_name));
            rt.block_on(aws.disable_deletion_protection(&item.physical_name, cluster))
                .map_err(|e| out.remote(chain(&e)))?;
        }
    }
    if plan.items.iter().any(|i| i.protected()) {
        out.progress("the stack's resources unprotected (pulumi state unprotect --all)");
        pulumi.unprotect_all(&Stderr).map_err(|e| failed(pulumi, e))?;
    }
    let project = &plan.product;
    let resources = pulumi_program::program_resources(plan).map_err(|e| out.usage(e))?;
    let items = plan.items_by_id();
    let keep: Vec<String> = resources
        .iter()
        .filter(|r| {
            r.item
                .as_deref()
                .and_then(|id| items.get(id))
                .is_some_and(|i| matches!(i.spec, ItemSpec::S3Bucket { .. }))
        })
        .map(|r| format!("urn:pulumi:{}::{project}::{}::{}", pulumi.stack, r.token, r.name))
        .collect();
    out.progress(&format!("pulumi destroy ({} kept out)", keep.len()));
    pulumi.destroy(&keep, &Stderr).map_err(|e| failed(pulumi, e))?;
    for kept in decision.kept.iter().filter(|k| k.what == "final snapshot") {
        out.progress(&format!(
            "final snapshot of {}: {} (RDS, {}; restore with `aws rds restore-db-instance-from-db-snapshot`)",
            kept.owner.as_deref().unwrap_or("-"),
            kept.subject,
            plan.region
        ));
    }
    Ok(())
}

/// A failed `pulumi` command: its last lines, its code.
fn failed(pulumi: &Pulumi, e: Exit) -> Exit {
    for line in pulumi.last_lines() {
        errln!("  | {line}");
    }
    e
}

/// What the environment's secrets left, last: the Secrets Manager copies, the key, the
/// Infisical variables, then the SSM parameters.
async fn forget(session: &Session, plan: &Plan, aws: &AwsClients, out: Out) -> Result<(), Exit> {
    let copies = plan
        .secrets
        .generated
        .iter()
        .filter_map(|g| g.secrets_manager.as_ref())
        .chain(plan.secrets.registry_copies.iter().map(|r| &r.secrets_manager));
    for name in copies {
        let deleted = aws.delete_secret_now(name).await.map_err(|e| out.remote(chain(&e)))?;
        out.progress(&format!("secret {name}: {}", if deleted { "deleted" } else { "already gone" }));
    }
    let managed_key = plan.items.iter().find_map(|i| match &i.spec {
        ItemSpec::KmsKey { alias, .. } => Some(alias.clone()),
        _ => None,
    });
    if let Some(alias) = managed_key {
        let key =
            aws.schedule_key_deletion(&alias, KEY_PENDING_DAYS).await.map_err(|e| out.remote(chain(&e)))?;
        match key {
            Some(id) => {
                out.progress(&format!("key {id} ({alias}): deletion scheduled in {KEY_PENDING_DAYS} days"))
            }
            None => out.progress(&format!("key {alias}: already gone")),
        }
    }
    if plan.secrets.infisical_project.is_some() {
        let (client, project) = session.infisical()?;
        let folders = infisical_places(plan);
        for (environment, folder) in folders {
            let names = client
                .list_secrets(&project, &environment, &folder)
                .await
                .map_err(|e| out.remote(chain(&e)))?;
            for s in &names {
                client
                    .delete_secret(&project, &environment, &folder, &s.name)
                    .await
                    .map_err(|e| out.remote(chain(&e)))?;
            }
            out.progress(&format!("Infisical {environment}:{folder}: {} variables deleted", names.len()));
        }
    }
    let deleted =
        aws.delete_parameters_under(&plan.secrets.ssm_prefix).await.map_err(|e| out.remote(chain(&e)))?;
    out.progress(&format!("{} SSM parameters under {}/ deleted", deleted.len(), plan.secrets.ssm_prefix));
    errln!("torn down: {} / {}", plan.product, plan.environment);
    Ok(())
}

/// Every Infisical folder of the environment, `(environment, folder)` in plan order.
fn infisical_places(plan: &Plan) -> Vec<(String, String)> {
    let s = &plan.secrets;
    let places = s
        .generated
        .iter()
        .map(|g| &g.infisical)
        .chain(s.connection.iter().map(|c| &c.infisical))
        .chain(s.ssm_parameters.iter().filter_map(|p| p.infisical.as_ref()));
    let mut out: Vec<(String, String)> = Vec::new();
    for p in places {
        let key = (p.environment.to_string(), p.folder.to_string());
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out
}
