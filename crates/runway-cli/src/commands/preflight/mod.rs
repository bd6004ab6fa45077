//! `runway preflight --env ENV`: reads the registries and the account, writes nothing, and
//! prints every finding at once, each with what to do. What to check comes from the plan
//! (`runtime_plan::preflight::expectations`); this module reads and compares.
//!
//! Exit codes: 0 ready (warnings allowed), 1 an error would stop the deploy, 2 usage.

mod account;
mod images;
mod network;

use image_registry::Registries;
use pulumi_program::StackInputs;
use runtime_plan::{Finding, Severity};

use crate::prelude::*;

/// `registry=url,...`: registries asked at another URL (a mirror; the tests' loopback registry).
pub(crate) const REGISTRY_ENDPOINTS: &str = "RUNWAY_REGISTRY_ENDPOINTS";

/// Deploy job, first (and the PR job, with `--no-aws`): read the registries and the account
/// and print every finding that would stop or spoil the deploy, each with what to do;
/// nothing is written. Exit 1 when any finding is an error (docs/preflight.md).
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    env: EnvArgs,
    /// The stack settings the program is deployed with (`infra/ENV/Pulumi.<stack>.yaml`):
    /// its subnets and certificate are checked.
    #[arg(long, value_name = "FILE")]
    stack: Option<PathBuf>,
    /// Only the checks that need no AWS credentials (the public images).
    #[arg(long)]
    no_aws: bool,
    /// `json`: `{"environment","region","verdict","errors","warnings","findings":[{"check",
    /// "subject","severity","message","help"}]}`.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format.json()
    }
}

/// Runs `runway preflight`.
pub(crate) fn run(a: Args, out: Out) -> Result<(), Exit> {
    let session = Session::open(&a.env, out)?;
    let plan = &session.plan;
    let expected = runtime_plan::expectations(plan);
    let inputs = match &a.stack {
        Some(path) => Some(stack(path, &plan.product, out)?),
        None => None,
    };
    let mut registries = Registries::default();
    if let Some(text) = std::env::var_os(REGISTRY_ENDPOINTS) {
        registries = registries
            .with_endpoints(&text.to_string_lossy())
            .map_err(|e| out.usage(format!("{REGISTRY_ENDPOINTS}: {e}")))?;
    }
    let rt = session.runtime()?;
    let aws = if a.no_aws { None } else { Some(rt.block_on(crate::session::aws(plan, out))?) };
    let findings = rt.block_on(async {
        let (mut findings, more) = tokio::join!(
            images::check(&expected, aws.as_ref(), &registries),
            account::check(plan, &expected, inputs.as_ref(), aws.as_ref()),
        );
        findings.extend(more);
        findings
    });
    report(plan, a.format, &findings);
    if findings.iter().any(|f| f.severity == Severity::Error) {
        return Err(Exit(EXIT_INVALID));
    }
    Ok(())
}

/// The stack settings' inputs.
fn stack(path: &Path, product: &str, out: Out) -> Result<StackInputs, Exit> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| out.usage(format!("cannot read {}: {e}", path.display())))?;
    pulumi_program::stack_inputs(product, &text)
        .map_err(|e| out.usage(format!("{} is not a stack settings file: {e}", path.display())))
}

/// Prints the findings as text or JSON.
fn report(plan: &runtime_plan::Plan, format: Format, findings: &[Finding]) {
    match format {
        Format::Text => out!("{}", plan_render::render_findings_text(&plan.environment, findings)),
        Format::Json => {
            let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
            let report = serde_json::json!({
                "environment": plan.environment,
                "region": plan.region,
                "verdict": if errors == 0 { "ready" } else { "blocked" },
                "errors": errors,
                "warnings": findings.len() - errors,
                "findings": findings,
            });
            outln!("{report}");
        }
    }
}

/// A call that failed: the check could not be made (a warning, never a pass).
pub(crate) fn not_checked(check: &str, subject: &str, error: &(dyn std::error::Error + 'static)) -> Finding {
    Finding::warning(
        check,
        subject,
        format!("not checked: {}", chain(error)),
        "give the identity that runs preflight the read permissions of docs/preflight.md",
    )
}
