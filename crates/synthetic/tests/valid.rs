//! Generated products load without an error diagnostic and plan in every environment.

use runway_schema::{MemFiles, Options, load};

fn loaded(n: usize) -> (runway_schema::Loaded, cost::Catalogue) {
    let files = synthetic::product(n);
    let mut mem = MemFiles::default();
    for (path, text) in &files[1..] {
        mem = mem.with(path, text.as_bytes());
    }
    let catalogue = cost::Catalogue::builtin();
    let options = Options { sizes: catalogue.size_names(), regions: catalogue.regions() };
    (load("runway.yaml", files[0].1.as_bytes(), &mem, &options), catalogue)
}

#[test]
fn generated_products_are_valid_and_plan() {
    for n in [1, 2, 7, 10, 33, 100, 1000] {
        let (loaded, catalogue) = loaded(n);
        let errors: Vec<_> = loaded.diagnostics.iter().filter(|d| d.is_error()).collect();
        assert!(errors.is_empty(), "n = {n}: {errors:#?}");
        let product = loaded.product.expect("valid");
        assert_eq!(product.root.resources.len(), n);
        assert_eq!(product.root.workloads.len(), n / 2);
        assert_eq!(product.members.len(), n / 10);
        for env in synthetic::ENVIRONMENTS {
            let plan = runtime_plan::plan(&product, env, &catalogue).expect("declared environment");
            // us-east-1 is fully priced (Aurora and every cache size included) and the caps are
            // high: no plan is refused.
            let errors: Vec<_> = plan.diagnostics.iter().filter(|d| d.is_error()).collect();
            assert!(errors.is_empty(), "n = {n}, {env}: {errors:#?}");
            assert!(plan.cost.unpriced.is_empty(), "n = {n}, {env}: {:?}", plan.cost.unpriced);
        }
    }
}
