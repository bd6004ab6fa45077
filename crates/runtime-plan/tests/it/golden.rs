//! Golden plans of the shipped example (`examples/acme-shop`), loaded through the real loader,
//! trimmed to what only the whole example shows (how its kinds, members and environments meet;
//! each kind alone is `kinds.rs`): the production plan (the richest environment: alarms,
//! protections, scale) as JSON and as text once each, the cost report of every environment, the
//! dev graph and a diff.
#![allow(clippy::unwrap_used)] // reason: tests

use cost::Catalogue;
use plan_render::*;
use runtime_plan::plan::*;
use runtime_plan::*;
use runway_schema::Product;

use crate::common;

fn example() -> Product {
    common::shipped_example()
}

#[test]
fn golden_plan_of_production_and_costs_of_every_environment() {
    let product = example();
    let c = Catalogue::builtin();
    let mut plans = Vec::new();
    for env in product.root.environments.keys() {
        let p = plan(&product, env, &c).unwrap();
        if env == "production" {
            insta::assert_snapshot!("acme-shop-production.json", to_json(&p));
            insta::assert_snapshot!("acme-shop-production.txt", render_plan_text(&p));
        }
        plans.push(p);
    }
    insta::assert_snapshot!("acme-shop-cost.txt", render_cost_text(&plans));
    insta::assert_snapshot!("acme-shop-cost.json", to_json(&cost_report(&plans)));
    insta::assert_snapshot!("acme-shop-dev-graph.mmd", render_mermaid(&plans[0].graph()));
    insta::assert_snapshot!("acme-shop-dev-graph.dot", render_dot(&plans[0].graph()));
}

#[test]
fn the_example_binds_what_its_members_declare() {
    let product = example();
    let p = plan(&product, "production", &Catalogue::builtin()).unwrap();
    let pairs: Vec<(&str, &str, Delivery)> =
        p.bindings.iter().map(|b| (b.consumer.as_str(), b.resource.as_str(), b.delivery)).collect();
    // Members come after workloads; `billing` requires queue and cache (implicit resources).
    for m in &product.members {
        for u in &m.uses {
            assert!(pairs.iter().any(|(c, r, _)| *c == m.name && r == u), "{} -> {u}", m.name);
        }
        for e in &m.requires {
            let shared = format!("shared-{}", e.as_str());
            assert!(pairs.iter().any(|(c, r, _)| *c == m.name && *r == shared), "{} -> {shared}", m.name);
        }
    }
    let shared = p.resources.iter().find(|r| r.name == "shared-queue").unwrap();
    assert_eq!((shared.origin, shared.size.as_str()), (Origin::Implicit, "medium"));
}

#[test]
fn the_example_diff_from_staging_sizes_to_production_sizes() {
    // Diff the same environment across two versions of the file: production's sizes raised.
    let old = example();
    let mut new = old.clone();
    new.root.resources["sessions"].size.insert("production".into(), "large".into());
    let c = Catalogue::builtin();
    let d = diff(&plan(&old, "production", &c).unwrap(), &plan(&new, "production", &c).unwrap());
    insta::assert_snapshot!("acme-shop-production-diff.txt", render_diff_text(&d));
    insta::assert_snapshot!("acme-shop-production-diff.json", to_json(&d));
}
