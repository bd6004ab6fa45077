//! `runway preflight --env ENV`: reads the registries and the account, writes nothing, and
//! prints every finding at once, each with what to do. What to check comes from the plan
//! (`runtime_plan::preflight::expectations`); this module reads and compares.
//!
//! Exit codes: 0 ready (warnings allowed), 1 an error would stop the deploy, 2 usage.

mod account;
mod images;
mod network;

use std::path::Path;

use image_registry::Registries;
use pulumi_program::StackInputs;
use runtime_plan::{Finding, Severity};

use crate::args::{Format, PlanArgs};
use crate::output::{EXIT_INVALID, Exit, Out, chain};
use crate::planning::{catalogue_for, plan_env};

/// `registry=url,...`: registries asked at another URL (a mirror; the tests' loopback registry).
pub(crate) const REGISTRY_ENDPOINTS: &str = "RUNWAY_REGISTRY_ENDPOINTS";

/// What `runway preflight` was asked.
pub(crate) struct Args<'a> {
    /// The environment.
    pub(crate) env: &'a str,
    /// The stack settings file (`Pulumi.<stack>.yaml`).
    pub(crate) stack: Option<&'a Path>,
    /// Only what needs no AWS credentials (the images): the PR job.
    pub(crate) no_aws: bool,
    pub(crate) format: Format,
    pub(crate) plan: &'a PlanArgs,
}

/// Runs `runway preflight`.
pub(crate) fn run(a: &Args<'_>, out: Out) -> Result<(), Exit> {
    let cat = catalogue_for(&a.plan.file, a.plan.catalogue.as_deref(), out)?;
    let plan = plan_env(&a.plan.file, a.env, &cat, out)?;
    let expected = runtime_plan::expectations(&plan);
    let inputs = match a.stack {
        Some(path) => Some(stack(path, &plan.product, out)?),
        None => None,
    };
    let mut registries = Registries::default();
    if let Some(text) = std::env::var_os(REGISTRY_ENDPOINTS) {
        registries = registries
            .with_endpoints(&text.to_string_lossy())
            .map_err(|e| out.usage(format!("{REGISTRY_ENDPOINTS}: {e}")))?;
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| out.usage(format!("cannot start the async runtime: {e}")))?;
    let aws = if a.no_aws { None } else { Some(rt.block_on(crate::pinned::connect(&plan, out))?) };
    let findings = rt.block_on(async {
        let (mut findings, more) = tokio::join!(
            images::check(&expected, aws.as_ref(), &registries),
            account::check(&plan, &expected, inputs.as_ref(), aws.as_ref()),
        );
        findings.extend(more);
        findings
    });
    report(&plan, a.format, &findings);
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
        Format::Text => out!("{}", runtime_plan::render_findings_text(&plan.environment, findings)),
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
