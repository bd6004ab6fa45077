//! The spec's example (built in code) planned, in its other forms: the JSON's shape, the graph,
//! a diff and the text's sections.
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: tests

use crate::common;

use cost::Catalogue;
use plan_render::*;
use runtime_plan::*;
use runway_schema::Money;

fn cat() -> Catalogue {
    Catalogue::builtin()
}

#[test]
fn json_has_the_spec_shape() {
    let p = plan(&common::example(), "dev", &cat()).unwrap();
    let v: serde_json::Value = serde_json::from_str(&to_json(&p)).unwrap();
    for k in ["product", "environment", "region", "resources", "workloads", "bindings", "cost", "diagnostics"]
    {
        assert!(v.get(k).is_some(), "{k}");
    }
    let r = &v["resources"][0];
    for k in ["name", "kind", "origin", "size", "physicalName", "monthly"] {
        assert!(r.get(k).is_some(), "resource {k}");
    }
    assert_eq!(r["origin"], "declared");
    let w = &v["workloads"][0];
    for k in ["name", "size", "min", "max", "expose", "monthly", "ceiling"] {
        assert!(w.get(k).is_some(), "workload {k}");
    }
    let b = &v["bindings"][0];
    for k in ["consumer", "resource", "variables", "infisical", "ssm"] {
        assert!(b.get(k).is_some(), "binding {k}");
    }
    for k in ["monthly", "ceiling", "cap", "verdict", "unpriced"] {
        assert!(v["cost"].get(k).is_some(), "cost {k}");
    }
    assert_eq!(v["cost"]["monthly"], p.cost.monthly.to_string());
    assert_eq!(v["cost"]["cap"], "150.00");
    assert!(v["cost"]["verdict"].is_string());
    let report: serde_json::Value = serde_json::from_str(&to_json(&cost_report(&[p]))).unwrap();
    for k in ["name", "monthly", "ceiling", "cap", "verdict"] {
        assert!(report["environments"][0].get(k).is_some(), "cost report {k}");
    }
}

#[test]
fn graph_links_consumers_resources_and_items() {
    let p = plan(&common::example(), "dev", &cat()).unwrap();
    let g = &p.graph();
    assert!(
        g.edges
            .iter()
            .any(|e| e.from == "consumer:metabase" && e.to == "resource:main-db" && e.label == "uses")
    );
    assert!(g.edges.iter().any(|e| e.from == "resource:main-db" && e.to == "item:main-db_proxy"));
    assert!(g.edges.iter().any(|e| e.from == "item:main-db_proxy" && e.to == "item:main-db_proxy-secret"));
    for e in &g.edges {
        assert!(g.nodes.iter().any(|n| n.id == e.from), "{e:?}");
        assert!(g.nodes.iter().any(|n| n.id == e.to), "{e:?}");
    }
    let m = render_mermaid(g);
    assert!(m.starts_with("flowchart LR\n"));
    assert_eq!(m.matches("-->|").count(), g.edges.len());
    let d = render_dot(g);
    assert!(d.starts_with("digraph plan {"));
    assert_eq!(d.matches(" -> ").count(), g.edges.len());
}

#[test]
fn diff_reports_resizes_additions_and_the_cost_delta() {
    let c = cat();
    let old = plan(&common::example(), "staging", &c).unwrap();
    let mut product = common::example();
    product.root.resources["main-db"].size.insert("staging".into(), "large".into());
    product.root.resources.shift_remove("events");
    product.root.workloads["metabase"]
        .scale
        .insert("staging".into(), runway_schema::Scale { min: 1, max: 3 });
    let new = plan(&product, "staging", &c).unwrap();
    let d = diff(&old, &new);
    let ids = |v: &[ItemRef]| v.iter().map(|i| i.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&d.removed), ["events_topic"]);
    assert_eq!(ids(&d.added), ["metabase_scaling-target", "metabase_scaling-policy"]);
    let db = d.changed.iter().find(|c| c.id == "main-db_db").unwrap();
    let fields: Vec<&str> = db.changes.iter().map(|f| f.field.as_str()).collect();
    assert!(fields.contains(&"size") && fields.contains(&"spec.instanceClass"), "{fields:?}");
    assert_eq!(d.cost.delta, Money(new.cost.monthly.0 - old.cost.monthly.0));
    let text = render_diff_text(&d);
    assert!(
        text.contains("+ metabase_scaling-target")
            && text.contains("- events_topic")
            && text.contains("~ main-db_db")
    );
    assert!(diff(&new, &new).is_empty());
}

#[test]
fn text_renders_every_section() {
    let p = plan(&common::example(), "dev", &cat()).unwrap();
    let t = render_plan_text(&p);
    for s in
        ["resources\n", "workloads\n", "bindings\n", "secrets\n", "cost (a month", "within the cap $150.00"]
    {
        assert!(t.contains(s), "{s}\n{t}");
    }
    let plans: Vec<Plan> = ["dev", "staging", "production"]
        .iter()
        .map(|e| plan(&common::example(), e, &cat()).unwrap())
        .collect();
    let ct = render_cost_text(&plans);
    assert_eq!(ct.lines().count(), 4);
    assert!(ct.contains("uncapped"));
}
