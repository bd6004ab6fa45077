//! The cap's verdict on a plan of the spec's example (equal, a cent over, unpriced, default
//! caps, the exact sum) and the AWS names lowering derives (cut to AWS limits, made unique).
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: tests

use crate::common;

use cost::{Catalogue, Item};
use runtime_plan::plan::*;
use runtime_plan::*;
use runway_schema::{Code, Money, Severity};

fn cat() -> Catalogue {
    Catalogue::builtin()
}

fn with_cap(cap: Option<Money>) -> Plan {
    let mut product = common::example();
    let env = &mut product.root.environments["dev"];
    env.monthly_limit = cap;
    if cap.is_none() {
        env.limit_at = None;
    }
    // `dev` has a default cap; plan an environment named otherwise for "no cap".
    let env = product.root.environments.shift_remove("dev").unwrap();
    product.root.environments.insert("preview".into(), env);
    plan(&product, "preview", &cat()).unwrap()
}

#[test]
fn cap_equal_to_the_shown_estimate_is_within_and_a_cent_less_is_refused() {
    let uncapped = with_cap(None);
    assert!(uncapped.cost.unpriced.is_empty(), "{:?}", uncapped.cost.unpriced);
    let shown = uncapped.cost.monthly.cents();
    assert!(shown > Money::ZERO);

    let at = with_cap(Some(shown));
    assert_eq!(at.cost.verdict, Verdict::Within);
    assert!(!at.cost.refused && !at.has_errors());

    let below = with_cap(Some(Money(shown.0 - Money::parse("0.01").unwrap().0)));
    assert_eq!(below.cost.verdict, Verdict::Over);
    assert!(below.cost.refused);
    let d = below.diagnostics.iter().find(|d| d.code == Code::CapExceeded).unwrap();
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.path, "environments.preview.limits.monthly");
    assert_eq!(d.location.line, 9);
    assert!(d.message.contains(&format!("${shown}")), "{}", d.message);
    assert!(d.message.contains("main-db"), "names the largest items: {}", d.message);

    let w = uncapped.diagnostics.iter().find(|d| d.code == Code::Uncapped).unwrap();
    assert_eq!(w.severity, Severity::Warning);
    assert_eq!(w.path, "environments.preview");
    assert!(w.message.contains(&format!("${shown}")));
    assert_eq!(uncapped.cost.verdict, Verdict::Uncapped);
    assert!(!uncapped.cost.refused);
}

#[test]
fn default_caps_apply_by_name() {
    let p = plan(&common::example(), "staging", &cat()).unwrap();
    assert_eq!(p.cost.cap, Some(Money::parse("500").unwrap()));
    let p = plan(&common::example(), "production", &cat()).unwrap();
    assert_eq!((p.cost.cap, p.cost.verdict), (None, Verdict::Uncapped));
}

#[test]
fn unpriced_under_a_cap_is_refused_and_never_zero() {
    let mut product = common::example();
    product.root.environments["dev"].region = "xx-nowhere-1".into();
    let p = plan(&product, "dev", &cat()).unwrap();
    assert!(!p.cost.unpriced.is_empty());
    let d = p.diagnostics.iter().find(|d| d.code == Code::Unpriced).unwrap();
    assert_eq!(d.severity, Severity::Error);
    // The help names the command that reads the region's prices.
    let help = d.help.as_deref().unwrap_or_default();
    assert!(help.contains("`runway catalogue import --region xx-nowhere-1 --out prices.yaml`"), "{help}");
    assert!(p.cost.refused);
    // The verdict says what refuses it, in JSON as in text.
    assert_eq!(p.cost.verdict, Verdict::RefusedUnpriced);
    assert_eq!(serde_json::to_value(p.cost.verdict).unwrap(), "refused-unpriced");
    let cost = plan_render::cost_report(std::slice::from_ref(&p));
    assert_eq!(cost.environments[0].verdict, Verdict::RefusedUnpriced);
    assert!(cost.environments[0].refused);
    assert!(plan_render::render_cost_text(std::slice::from_ref(&p)).contains(" refused-unpriced ("));
    for u in &p.cost.unpriced {
        let i = p.item(&u.item).unwrap();
        assert_eq!(i.monthly, None);
        assert!(matches!(i.pricing, Pricing::Unpriced { .. }));
    }
    assert!(p.resources.iter().all(|r| r.monthly.is_none()));
}

#[test]
fn the_unpriced_message_names_the_first_ten_and_counts_the_rest() {
    let mut product = common::example();
    product.root.environments["dev"].region = "xx-nowhere-1".into();
    let p = plan(&product, "dev", &cat()).unwrap();
    let n = p.cost.unpriced.len();
    assert!(n > 10, "the example should have more than ten priced items, has {n}");
    let d = p.diagnostics.iter().find(|d| d.code == Code::Unpriced).unwrap();
    assert!(d.message.starts_with(&format!("{n} item(s) of `dev` cannot be priced: ")), "{}", d.message);
    // Items are named as people read them (`main-db RDS instance`), not by logical id.
    for (i, u) in p.cost.unpriced.iter().enumerate() {
        let label = p.item(&u.item).unwrap().label();
        assert_eq!(d.message.contains(&format!("`{label}`")), i < 10, "{label} in {}", d.message);
        assert!(!d.message.contains(u.item.as_str()), "no logical id in {}", d.message);
    }
    assert!(
        d.message.contains(&format!(", and {} more (reasons in the plan's cost)", n - 10)),
        "{}",
        d.message
    );
}

#[test]
fn estimate_is_the_exact_sum_of_lines_and_items() {
    let c = cat();
    for env in ["dev", "staging", "production"] {
        let p = plan(&common::example(), env, &c).unwrap();
        let lines: Money = p.cost.lines.iter().map(|l| l.line.monthly).sum();
        assert_eq!(lines, p.cost.monthly);
        let items: Money = p.items.iter().filter_map(|i| i.monthly).sum();
        assert_eq!(items, p.cost.monthly);
        // The service line is the catalogue's price of its tasks at min.
        let svc = p.item("metabase_service").unwrap();
        let w = p.workloads.iter().find(|w| w.name == "metabase").unwrap();
        let expect = c
            .price(&p.region, &Item::Tasks { size: &w.size, tasks: w.min, architecture: w.platform })
            .monthly();
        assert_eq!(svc.monthly, expect);
        assert!(p.cost.ceiling >= p.cost.monthly);
    }
}

#[test]
fn long_names_are_cut_within_aws_limits() {
    let mut product = common::example();
    product.root.product = "a-very-long-product-name-for-aws".into();
    let long = "a-resource-name-that-is-forty-chars-long";
    assert_eq!(long.len(), 40);
    let r = product.root.resources.shift_remove("sessions").unwrap();
    product.root.resources.insert(long.into(), r);
    let mut w = product.root.workloads.shift_remove("shop").unwrap();
    w.uses = vec![long.into(), "uploads".into()];
    product.root.workloads.insert("public-workload-with-a-long-name".into(), w);
    let p = plan(&product, "production", &cat()).unwrap();
    for i in &p.items {
        if let Some(l) = runtime_plan::naming::limit(i.kind()) {
            assert!(i.physical_name.len() <= l, "{} {} > {l}", i.id, i.physical_name);
        }
    }
    let cache = p.item(&format!("{long}_cache")).unwrap();
    assert!(cache.physical_name.len() <= 40 && cache.physical_name.len() >= 39);
    let full = format!("a-very-long-product-name-for-aws-production-{long}");
    assert!(cache.physical_name.ends_with(&runtime_plan::naming::hash6(&full)));
    assert!(p.item("env_alb").unwrap().physical_name.len() <= 32);
    // A bucket's whole name (`<head>-<account id>-<region>-an`) fits 63, its head cut with the
    // hash of the uncut name.
    let bucket = p.item("uploads_bucket").unwrap();
    let ItemSpec::S3Bucket(spec) = &bucket.spec else { panic!("a bucket") };
    let whole = format!("{}-123456789012{}", bucket.physical_name, spec.name_suffix);
    assert_eq!(whole.len(), 63, "{whole}");
    assert!(
        bucket
            .physical_name
            .ends_with(&runtime_plan::naming::hash6("a-very-long-product-name-for-aws-production-uploads"))
    );
    let tg = p.item("public-workload-with-a-long-name_target-group").unwrap();
    assert!(tg.physical_name.len() <= 32);
    let names: std::collections::BTreeSet<&str> = p.items.iter().map(|i| i.physical_name.as_str()).collect();
    assert_eq!(names.len(), p.items.len());
}

#[test]
fn colliding_derived_names_are_made_unique() {
    // A queue named `main-db-proxy` spells the proxy name of `main-db`.
    let mut product = common::example();
    let q = product.root.resources["jobs"].clone();
    product.root.resources.insert("main-db-proxy".into(), q);
    let p = plan(&product, "dev", &cat()).unwrap();
    let names: std::collections::BTreeSet<&str> = p.items.iter().map(|i| i.physical_name.as_str()).collect();
    assert_eq!(names.len(), p.items.len());
    assert_eq!(p.item("main-db_proxy").unwrap().physical_name, "acme-shop-dev-main-db-proxy");
    assert_ne!(p.item("main-db-proxy_queue").unwrap().physical_name, "acme-shop-dev-main-db-proxy");
}

#[test]
fn fifo_queues_keep_their_suffix() {
    let mut product = common::example();
    product.root.resources["jobs"].spec = runway_schema::ResourceSpec::Queue {
        fifo: true,
        visibility_timeout: runway_schema::Duration::from_millis(60_000),
        dead_letter: Some(runway_schema::DeadLetter { max_receives: 3 }),
    };
    let p = plan(&product, "dev", &cat()).unwrap();
    assert_eq!(p.item("jobs_queue").unwrap().physical_name, "acme-shop-dev-jobs.fifo");
    assert_eq!(p.item("jobs_dlq").unwrap().physical_name, "acme-shop-dev-jobs-dlq.fifo");
    let ItemSpec::SqsQueue(queue) = &p.item("jobs_queue").unwrap().spec else { panic!() };
    let SqsQueueSpec { visibility_timeout_seconds, max_receives, dead_letter_queue, .. } = &**queue;
    assert_eq!(
        (*visibility_timeout_seconds, *max_receives, dead_letter_queue.as_deref()),
        (60, Some(3), Some("jobs_dlq"))
    );
}
