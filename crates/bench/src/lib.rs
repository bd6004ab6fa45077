//! The pieces the benchmarks measure, shared by `benches/plan.rs` and its tests.
//!
//! Each function is one measured step over a synthetic product ([`synthetic::product`]):
//!
//! - [`floor`]: every file read by serde-saphyr into a generic value (`serde_json::Value`),
//!   with no spans and no validation: the cost of reading the YAML at all;
//! - [`check`]: parse + validate with [`runway_schema::load`] (what `runway check` does);
//! - [`plan_env`] / [`plan_all`]: [`runtime_plan::plan()`] of one environment, or a
//!   [`runtime_plan::Planner`]'s plans of every environment, of a loaded product;
//! - [`pulumi`]: [`pulumi_program::render`] of one plan.

use runway_schema::{Loaded, MemFiles, Options, Product};

/// A generated product, ready to load: the root text, the member files, and the options.
pub struct Input {
    /// The root `runway.yaml` text.
    pub root: String,
    /// The member files (paths relative to the product folder).
    pub members: MemFiles,
    /// Every file's text, the root first (what the floor reads).
    pub texts: Vec<String>,
    /// The built-in catalogue.
    pub catalogue: cost::Catalogue,
    /// Loader options from the catalogue.
    pub options: Options,
}

impl Input {
    /// The product of `n` resources.
    pub fn new(n: usize) -> Self {
        let files = synthetic::product(n);
        let mut members = MemFiles::default();
        for (path, text) in &files[1..] {
            members = members.with(path, text.as_bytes());
        }
        let catalogue = cost::Catalogue::builtin();
        let options = Options { sizes: catalogue.size_names(), regions: catalogue.regions() };
        let texts: Vec<String> = files.into_iter().map(|(_, t)| t).collect();
        Self { root: texts[0].clone(), members, texts, catalogue, options }
    }

    /// Total bytes of every file.
    pub fn bytes(&self) -> usize {
        self.texts.iter().map(String::len).sum()
    }
}

/// Options of the floor parser: serde-saphyr's defaults with the node budget raised to the
/// loader's bound, so the largest product is read (the defaults would refuse it).
fn floor_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_nodes = runway_schema::MAX_NODES;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options
}

/// Reads every file into a generic value; returns the number of top-level keys read (so the
/// work cannot be optimised away).
pub fn floor(input: &Input) -> usize {
    let mut keys = 0;
    for text in &input.texts {
        match serde_saphyr::from_str_with_options::<serde_json::Value>(text, floor_options()) {
            Ok(serde_json::Value::Object(map)) => keys += map.len(),
            Ok(_) => {}
            Err(e) => panic!("the floor parser refused a generated file: {e}"),
        }
    }
    keys
}

/// Parses and validates the product (root and members).
pub fn check(input: &Input) -> Loaded {
    runway_schema::load("runway.yaml", input.root.as_bytes(), &input.members, &input.options)
}

/// The loaded product; panics when the generated product is invalid (a generator bug).
pub fn product(input: &Input) -> Product {
    let loaded = check(input);
    match loaded.product {
        Some(p) => p,
        None => panic!("generated product is invalid: {:#?}", loaded.diagnostics),
    }
}

/// The plan of one environment.
pub fn plan_env(input: &Input, product: &Product, env: &str) -> runtime_plan::Plan {
    match runtime_plan::plan(product, env, &input.catalogue) {
        Ok(p) => p,
        Err(e) => panic!("cannot plan `{env}`: {e}"),
    }
}

/// The plans of every environment, in turn, by one [`runtime_plan::Planner`] (as `runway
/// check` plans them).
pub fn plan_all(input: &Input, product: &Product) -> Vec<runtime_plan::Plan> {
    let mut planner = runtime_plan::Planner::new(product, &input.catalogue);
    synthetic::ENVIRONMENTS
        .iter()
        .map(|env| match planner.plan(env) {
            Ok(p) => p,
            Err(e) => panic!("cannot plan `{env}`: {e}"),
        })
        .collect()
}

/// The Pulumi program of one plan; returns its length in bytes.
pub fn pulumi(plan: &runtime_plan::Plan) -> usize {
    match pulumi_program::render(plan) {
        Ok(program) => program.files.iter().map(|(_, t)| t.len()).sum(),
        Err(e) => panic!("cannot render the program: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_runs() {
        let input = Input::new(100);
        assert!(floor(&input) > 0);
        let product = product(&input);
        let plans = plan_all(&input, &product);
        assert_eq!(plans.len(), 3);
        assert!(pulumi(&plans[0]) > 0);
    }

    #[test]
    fn the_planners_plans_are_each_environments_own() {
        // The planner shares the bootstraps' fingerprints between environments: its plans must
        // be those planned one by one, byte for byte (the product has postgres resources).
        let input = Input::new(100);
        let product = product(&input);
        let plans = plan_all(&input, &product);
        for (env, shared) in synthetic::ENVIRONMENTS.iter().zip(&plans) {
            let alone = plan_env(&input, &product, env);
            assert!(!alone.tasks.is_empty(), "`{env}` has bootstraps to fingerprint");
            assert_eq!(runtime_plan::to_json(shared), runtime_plan::to_json(&alone), "`{env}`");
        }
    }
}
