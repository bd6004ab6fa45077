//! The pull-request review (`runway diff --base-ref`): golden markdown, text and JSON of the
//! shipped example against an edited copy, and properties over generated runways.
#![allow(clippy::unwrap_used)] // reason: tests

use cost::Catalogue;
use plan_render::*;
use runtime_plan::plan::*;
use runtime_plan::*;
use runway_schema::{MemFiles, Options, Product, load};

const ROOT: &str = include_str!("../../../../examples/acme-shop/runway.yaml");
const BILLING: &str = include_str!("../../../../examples/acme-shop/services/billing/runway.yaml");
const ORDERS: &str = include_str!("../../../../examples/acme-shop/services/orders/runway.yaml");
const REPORTING: &str = include_str!("../../../../examples/acme-shop/tools/reporting/runway.yaml");

/// Replaces `from` (which must occur) by `to`.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from:?} is not in the text");
    text.replace(from, to)
}

fn load_product(root: &str, billing: &str, orders: &str, reporting: &str) -> Product {
    let files = MemFiles::default()
        .with("services/billing/runway.yaml", billing)
        .with("services/orders/runway.yaml", orders)
        .with("tools/reporting/runway.yaml", reporting);
    let c = Catalogue::builtin();
    let options = Options { sizes: c.size_names(), regions: c.regions() };
    let loaded = load("runway.yaml", root.as_bytes(), &files, &options);
    assert!(loaded.diagnostics.iter().all(|d| !d.is_error()), "{:#?}", loaded.diagnostics);
    loaded.product.unwrap()
}

fn example() -> Product {
    load_product(ROOT, BILLING, ORDERS, REPORTING)
}

/// The example after a pull request: `sessions` renamed `user-sessions`, `jobs` without its
/// dead-letter queue, main-db medium in dev, `reporting` no longer on main-db, `billing` no
/// longer requiring a cache (so `shared-cache` goes), and a new `qa` environment.
fn edited() -> Product {
    let root = edit(ROOT, "  sessions:\n", "  user-sessions:\n");
    let root = edit(&root, "    deadLetter: { maxReceives: 5 }\n", "");
    let root = edit(
        &root,
        "size: { staging: medium, production: large }",
        "size: { dev: medium, staging: medium, production: large }",
    );
    let root = edit(&root, "      cache: small\n", "");
    let root = edit(&root, "      cache: large\n", "");
    let root = edit(
        &root,
        "  staging:\n",
        "  qa:\n    region: us-east-1\n    domain: qa.acme.example\n  staging:\n",
    );
    let orders = edit(ORDERS, "uses: [events, sessions]", "uses: [events, user-sessions]");
    let billing = edit(BILLING, "requires: [queue, cache]", "requires: [queue]");
    let reporting = edit(REPORTING, "uses: [main-db, uploads]", "uses: [uploads]");
    load_product(&root, &billing, &orders, &reporting)
}

fn plans(p: &Product) -> Vec<Plan> {
    let c = Catalogue::builtin();
    p.root.environments.keys().map(|e| plan(p, e, &c).unwrap()).collect()
}

fn review_of(old: &Product, new: &Product) -> Review {
    let (o, n) = (plans(old), plans(new));
    review("origin/main", Some(Side { product: old, plans: &o }), Side { product: new, plans: &n })
}

#[test]
fn golden_review_of_a_pull_request() {
    let r = review_of(&example(), &edited());
    insta::assert_snapshot!("acme-shop-review.md", render_review_markdown(&r));
    insta::assert_snapshot!("acme-shop-review.txt", render_review_text(&r));
    insta::assert_snapshot!("acme-shop-review.json", to_json(&r));
}

#[test]
fn breaking_names_each_cause() {
    let r = review_of(&example(), &edited());
    let dev = r.environments.iter().find(|e| e.name == "dev").unwrap();
    let find = |consumer: &str, resource: &str| {
        dev.breaking.iter().find(|b| b.consumer == consumer && b.resource == resource).unwrap()
    };
    let renamed = find("orders", "sessions");
    assert_eq!(renamed.cause, Cause::ResourceRenamed);
    assert_eq!(renamed.replaced_by.as_deref(), Some("user-sessions"));
    assert!(renamed.lost.is_empty());
    assert_eq!(renamed.renamed[0], Rename { from: "SESSIONS_URL".into(), to: "USER_SESSIONS_URL".into() });
    assert_eq!(find("reporting", "main-db").cause, Cause::UseDropped);
    let shared = find("billing", "shared-cache");
    assert_eq!(shared.cause, Cause::ResourceRemoved);
    assert_eq!(shared.lost[0], "SHARED_CACHE_URL");
    let dlq = find("pdf-render", "jobs");
    assert_eq!((dlq.cause, dlq.lost.as_slice()), (Cause::VariablesDropped, &["JOBS_DLQ_URL".to_owned()][..]));
    // The worker reading `jobs` loses its dead-letter variable too.
    let worker = find("jobs-worker", "jobs");
    assert_eq!(
        (worker.cause, worker.lost.as_slice()),
        (Cause::VariablesDropped, &["JOBS_DLQ_URL".to_owned()][..])
    );
    assert_eq!(dev.breaking.len(), 5, "{:#?}", dev.breaking);
}

#[test]
fn a_new_environment_is_all_added_and_its_table_folds() {
    let r = review_of(&example(), &edited());
    let names: Vec<&str> = r.environments.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["dev", "qa", "staging", "production"]);
    let qa = &r.environments[1];
    assert!(qa.before.is_none() && qa.breaking.is_empty());
    assert!(qa.items.iter().all(|i| i.change == ItemChangeKind::Added));
    assert!(qa.items.len() > 10);
    let md = render_review_markdown(&r);
    assert!(md.contains(&format!("<details><summary>{} item changes</summary>", qa.items.len())), "{md}");
}

#[test]
fn an_environment_only_the_base_declares_is_all_removed() {
    let r = review_of(&edited(), &example());
    let qa = r.environments.last().unwrap();
    assert_eq!(qa.name, "qa");
    assert!(qa.after.is_none() && qa.breaking.is_empty());
    assert!(qa.items.iter().all(|i| i.change == ItemChangeKind::Removed));
    assert_eq!(qa.delta, runway_schema::Money(-qa.before.as_ref().unwrap().monthly.cents().0));
}

#[test]
fn no_base_means_every_environment_is_new() {
    let new = example();
    let n = plans(&new);
    let r = review("origin/main", None, Side { product: &new, plans: &n });
    assert_eq!(r.environments.len(), 3);
    assert!(r.environments.iter().all(|e| e.before.is_none() && !e.items.is_empty()));
}

#[test]
fn a_review_of_a_version_with_itself_is_empty() {
    let r = review_of(&example(), &example());
    assert!(r.is_empty());
    let md = render_review_markdown(&r);
    assert!(md.starts_with(REVIEW_MARKER));
    assert_eq!(md.matches("No changes.").count(), 3, "{md}");
}

#[test]
fn a_removed_consumer_is_gone_not_broken() {
    let root = edit(ROOT, "    uses: [jobs, uploads]\n", "");
    let root = edit(&root, "  pdf-render:", "  pdf-render-2:");
    // The example leaves it out of previews: that names the workload too.
    let root = edit(&root, "{ pdf-render: off }", "{ pdf-render-2: off }");
    let r = review_of(&example(), &load_product(&root, BILLING, ORDERS, REPORTING));
    assert!(r.environments.iter().all(|e| e.breaking.iter().all(|b| b.consumer != "pdf-render")));
}

#[cfg(feature = "proptest1")]
mod properties {
    use proptest::prelude::*;
    use runtime_plan::strategy::product;

    use super::*;

    fn config() -> ProptestConfig {
        ProptestConfig { cases: 64, ..ProptestConfig::default() }
    }

    /// Every (consumer, used resource) of a product: workloads then members.
    fn uses(p: &Product) -> Vec<(String, String)> {
        let w = p.root.workloads.iter().flat_map(|(n, w)| w.uses.iter().map(move |u| (n.clone(), u.clone())));
        let m = p.members.iter().flat_map(|m| m.uses.iter().map(move |u| (m.name.clone(), u.clone())));
        w.chain(m).collect()
    }

    fn drop_use(p: &Product, consumer: &str, resource: &str) -> Product {
        let mut p = p.clone();
        if let Some(w) = p.root.workloads.get_mut(consumer) {
            w.uses.retain(|u| u != resource);
        }
        for m in p.members.iter_mut().filter(|m| m.name == consumer) {
            m.uses.retain(|u| u != resource);
        }
        p
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn dropping_a_use_breaks_that_consumer(p in product(), pick in any::<prop::sample::Index>()) {
            let all = uses(&p);
            prop_assume!(!all.is_empty());
            let (consumer, resource) = pick.get(&all).clone();
            let r = review_of(&p, &drop_use(&p, &consumer, &resource));
            prop_assert_eq!(r.environments.len(), p.root.environments.len());
            for e in &r.environments {
                let line = e.breaking.iter().find(|b| b.consumer == consumer && b.resource == resource);
                prop_assert!(line.is_some(), "{}: no line for {} -> {}: {:#?}", e.name, consumer, resource, e.breaking);
                let line = line.unwrap();
                prop_assert_eq!(line.cause, Cause::UseDropped);
                prop_assert!(!line.lost.is_empty() || !line.renamed.is_empty());
                let md = render_review_markdown(&r);
                let row = format!("| `{consumer}` (");
                prop_assert!(md.contains(&row), "{}", md);
            }
        }

        #[test]
        fn a_review_of_a_plan_with_itself_is_empty(p in product()) {
            let r = review_of(&p, &p);
            prop_assert!(r.is_empty(), "{:#?}", r);
            for e in &r.environments {
                prop_assert!(e.items.is_empty() && e.breaking.is_empty() && e.delta.0.is_zero());
            }
        }
    }
}
