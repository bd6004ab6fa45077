//! `runway check` as a function: a loaded runway's diagnostics, and, when it is valid, the
//! plan of every environment with the errors that would refuse one. The CLI's `check` and the
//! language server (`runway lsp`) both report through it, so an editor shows what `check`
//! prints.

use cost::Catalogue;
use runway_schema::{Diagnostic, Loaded};

use crate::{Plan, PlanError, Planner};

/// What checking a loaded runway found.
#[derive(Clone, Debug, PartialEq)]
pub struct Checked {
    /// The loader's diagnostics, then each refused plan's errors the loader did not report.
    pub diagnostics: Vec<Diagnostic>,
    /// The plan of every declared environment, in file order; empty when the runway is
    /// invalid, and from [`check_each`], which hands the plans over instead.
    pub plans: Vec<Plan>,
    /// Does the runway itself have an error (nothing was planned)?
    pub invalid: bool,
}

impl Checked {
    /// The plans refused: over their cap, unpriced under a cap, or any other plan error.
    pub fn refused(&self) -> impl Iterator<Item = &Plan> {
        self.plans.iter().filter(|p| p.has_errors())
    }
}

/// Checks `loaded`: when it has no error, plans every environment with `catalogue`, keeping
/// every plan (the language server shows their figures).
///
/// ```
/// let loaded = runway_schema::load_str(
///     "runway.yaml",
///     "runway: 3\nproduct: shop\nenvironments:\n  dev: { region: us-east-1 }\n",
/// );
/// let checked = runtime_plan::check(loaded, &cost::Catalogue::builtin()).unwrap();
/// assert!(!checked.invalid);
/// assert_eq!(checked.plans.len(), 1);
/// assert_eq!(checked.refused().count(), 0);
/// ```
pub fn check(loaded: Loaded, catalogue: &Catalogue) -> Result<Checked, PlanError> {
    let mut plans = Vec::new();
    let checked = check_each(loaded, catalogue, |plan| plans.push(plan))?;
    Ok(Checked { plans, ..checked })
}

/// [`check()`] that hands each plan to `each` as soon as it is made and keeps none (`plans`
/// is empty): `runway check` reads what it needs of a plan and drops it, so a large product's
/// plans are never in memory all at once.
///
/// ```
/// let loaded = runway_schema::load_str(
///     "runway.yaml",
///     "runway: 3\nproduct: shop\nenvironments:\n  dev: { region: us-east-1 }\n  \
///      staging: { region: us-east-1 }\n",
/// );
/// let mut planned = Vec::new();
/// let checked = runtime_plan::check_each(loaded, &cost::Catalogue::builtin(), |plan| {
///     planned.push(plan.environment.to_string())
/// })
/// .unwrap();
/// assert_eq!(planned, ["dev", "staging"]);
/// assert!(checked.plans.is_empty() && checked.diagnostics.is_empty());
/// ```
pub fn check_each(
    loaded: Loaded,
    catalogue: &Catalogue,
    mut each: impl FnMut(Plan),
) -> Result<Checked, PlanError> {
    let mut diagnostics = loaded.diagnostics;
    let invalid = diagnostics.iter().any(Diagnostic::is_error);
    if let (false, Some(product)) = (invalid, &loaded.product) {
        let mut planner = Planner::new(product, catalogue);
        for env in product.root.environments.keys() {
            let plan = planner.plan(env)?;
            if plan.has_errors() {
                // The loader already reported what it checks itself; the plan's errors it
                // re-checks defensively are not repeated.
                let new: Vec<Diagnostic> = plan
                    .diagnostics
                    .iter()
                    .filter(|d| d.is_error() && !diagnostics.contains(d))
                    .cloned()
                    .collect();
                diagnostics.extend(new);
            }
            each(plan);
        }
    }
    Ok(Checked { diagnostics, plans: Vec::new(), invalid })
}
