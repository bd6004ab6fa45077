//! What every planning command shares: the catalogue in use, loading and validating a runway,
//! planning one environment, and refusing a plan over its cap.

use std::path::{Path, PathBuf};

use cost::Catalogue;
use runway_schema::{Diagnostic, Product};

use crate::files;
use crate::output::{EXIT_CAP, EXIT_INVALID, Exit, Out, warn};

/// The built-in catalogue, extended with the user's file when given.
pub(crate) fn catalogue(file: Option<&Path>, out: Out) -> Result<Catalogue, Exit> {
    let builtin = Catalogue::builtin();
    let Some(file) = file else { return Ok(builtin) };
    let cannot = |why: String| out.usage(format!("cannot read {}: {why}", file.display()));
    let bytes = runway_files::read_named(file, cost::MAX_CATALOGUE_BYTES)
        .map_err(|u| cannot(runway_files::describe(&u)))?;
    let text = String::from_utf8(bytes).map_err(|_| cannot("it is not UTF-8 text".to_owned()))?;
    let name = file.to_string_lossy();
    match Catalogue::parse(&name, &text) {
        Ok(user) => Ok(builtin.extended_with(&user)),
        Err(diags) => {
            out.invalid(&diags);
            Err(Exit(EXIT_INVALID))
        }
    }
}

/// The catalogue of the product at `root`: `--catalogue FILE` when given, else the root's
/// `catalogue:` setting (relative to the root file), else the built-in one. A setting whose
/// file is missing or invalid is a `catalogue-file` diagnostic at the setting (exit 1).
pub(crate) fn catalogue_for(root: &Path, flag: Option<&Path>, out: Out) -> Result<Catalogue, Exit> {
    if flag.is_some() {
        return catalogue(flag, out);
    }
    match setting_catalogue(root) {
        None => catalogue(None, out),
        Some(Ok(cat)) => Ok(cat),
        Some(Err(diags)) => {
            out.invalid(&diags);
            Err(Exit(EXIT_INVALID))
        }
    }
}

pub(crate) use runway_files::{options, setting_catalogue};

/// Loads and validates; returns the product, or exit 1 with the diagnostics reported
/// (`Out::invalid`: text on stderr, and JSON on stdout for a JSON command).
pub(crate) fn load_valid(file: &Path, cat: &Catalogue, out: Out) -> Result<(Product, Vec<Diagnostic>), Exit> {
    let loaded = files::load(file, &options(cat)).map_err(|e| out.usage(e))?;
    match loaded.product {
        Some(p) => Ok((p, loaded.diagnostics)),
        None => {
            out.invalid(&loaded.diagnostics);
            errln!("{}: the runway is invalid ({})", file.display(), files::summary(&loaded.diagnostics));
            Err(Exit(EXIT_INVALID))
        }
    }
}

/// Loads, validates and plans one environment. Warnings of the runway go to stderr.
pub(crate) fn plan_env(
    file: &Path,
    env: &str,
    cat: &Catalogue,
    out: Out,
) -> Result<runtime_plan::Plan, Exit> {
    let (product, warnings) = load_valid(file, cat, out)?;
    warn(&warnings);
    runtime_plan::plan(&product, env, cat).map_err(|e| out.usage(e))
}

/// The line `plan` and `check` print when an environment's plan is refused, saying why as
/// its verdict does.
pub(crate) fn refused_message(plan: &runtime_plan::Plan) -> String {
    let why = match plan.cost.verdict {
        runtime_plan::Verdict::Over => "is over its cap",
        runtime_plan::Verdict::RefusedUnpriced => "has unpriced items under its cap",
        _ => "has errors",
    };
    format!(
        "refused: the {} plan of {} {why} (verdict {})",
        plan.environment,
        plan.product,
        plan.cost.verdict.text(true)
    )
}

/// Exit 3 with the cap diagnostics on stderr when the plan is refused.
pub(crate) fn refuse_if_capped(plan: &runtime_plan::Plan) -> Result<(), Exit> {
    if plan.has_errors() {
        let refused: Vec<Diagnostic> = plan.diagnostics.iter().filter(|d| d.is_error()).cloned().collect();
        warn(&refused);
        errln!("{}", refused_message(plan));
        return Err(Exit(EXIT_CAP));
    }
    Ok(())
}

/// The JSON a command that acts on a plan (`emit`, `secrets`, `ssm publish`) prints when the
/// plan is refused, and `emit` when it wrote: the plan's verdict, and what was written.
#[derive(serde::Serialize)]
struct ActionReport<'a> {
    environment: &'a str,
    verdict: runtime_plan::Verdict,
    refused: bool,
    /// `emit`: the paths written (none when refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    wrote: Option<Vec<String>>,
    /// The plan's diagnostics.
    diagnostics: &'a [Diagnostic],
}

/// Prints the [`ActionReport`] of `plan` on stdout.
pub(crate) fn action_report(plan: &runtime_plan::Plan, wrote: Option<&[PathBuf]>) {
    let report = ActionReport {
        environment: &plan.environment,
        verdict: plan.cost.verdict,
        refused: plan.cost.refused,
        wrote: wrote.map(|w| w.iter().map(|p| p.display().to_string()).collect()),
        diagnostics: &plan.diagnostics,
    };
    out!("{}", runtime_plan::to_json(&report));
}
