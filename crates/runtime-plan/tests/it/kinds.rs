//! One small golden per kind (ruff's per-rule fixtures as the model): each `tests/kinds/<kind>.yaml`
//! declares one resource or workload alone, and its golden holds the items its plan gives that
//! resource or workload (`owner`), in dev and in production, as the plan's JSON writes them.
//! The environment's own items are the whole example's golden (`golden.rs`); the Pulumi
//! resources of the same fixtures are pulumi-program's (its `tests/it/kinds.rs`).
//!
//! A new kind fails [`every_kind_of_the_format_has_its_fixture`] until it has its fixture.
#![allow(clippy::unwrap_used)] // reason: tests

use cost::Catalogue;
use runtime_plan::plan::*;
use runtime_plan::*;
use runway_schema::{Kind, MemFiles, Options, PostgresEngine, Product, load};

// `KINDS`: each fixture by name, its text, and the owner its golden holds.
include!("../../../../tests/kind_fixtures.rs");

/// The environments each golden holds.
const ENVIRONMENTS: [&str; 2] = ["dev", "production"];

/// A fixture loaded through the real loader: no diagnostic at all.
fn product(name: &str, text: &str) -> Product {
    let c = Catalogue::builtin();
    let options = Options { sizes: c.size_names(), regions: c.regions() };
    let loaded = load(&format!("tests/kinds/{name}.yaml"), text.as_bytes(), &MemFiles::default(), &options);
    assert!(loaded.diagnostics.is_empty(), "{name}: {:#?}", loaded.diagnostics);
    loaded.product.expect("a valid product")
}

#[test]
fn every_kind_has_its_small_golden_of_plan_items() {
    for (name, text, owner) in KINDS {
        let product = product(name, text);
        let mut golden = serde_json::Map::new();
        for env in ENVIRONMENTS {
            let p = plan(&product, env, &Catalogue::builtin()).unwrap();
            let owned: Vec<&PlannedItem> =
                p.items.iter().filter(|i| i.owner.as_deref() == Some(owner)).collect();
            assert!(!owned.is_empty(), "{name}: no item of {owner} in {env}");
            golden.insert(env.to_owned(), serde_json::from_str(&to_json(&owned)).unwrap());
        }
        let text = serde_json::to_string_pretty(&golden).unwrap();
        insta::assert_snapshot!(format!("kind-{name}"), text);
    }
}

/// Every kind the file format has (and each postgres engine) has its fixture, which declares
/// that kind.
#[test]
fn every_kind_of_the_format_has_its_fixture() {
    let names: Vec<&str> = KINDS.iter().map(|(name, ..)| *name).collect();
    for kind in Kind::NAMES.iter().chain(&["aurora", "workload"]) {
        assert!(names.contains(kind), "tests/kinds/{kind}.yaml is missing");
    }
    for (name, text, owner) in KINDS {
        let product = product(name, text);
        let declared = match product.root.resources.get(owner) {
            Some(r) => match r.spec {
                runway_schema::ResourceSpec::Postgres { engine: PostgresEngine::Aurora, .. } => "aurora",
                ref spec => spec.kind().as_str(),
            },
            None => {
                assert!(product.root.workloads.contains_key(owner), "{name}: no {owner}");
                "workload"
            }
        };
        assert_eq!(declared, name, "tests/kinds/{name}.yaml declares another kind");
        let others = product.root.resources.len() + product.root.workloads.len() - 1;
        assert_eq!(others, 0, "{name}: one resource or workload alone");
    }
}
