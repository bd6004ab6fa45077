//! The bill beside the plan (`runway spend`): rows, totals against the cap, and the hints for a
//! difference over 20%, over the shipped example's `dev` plan (cap $200).
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: tests

use crate::common;

use cost::Catalogue;
use plan_render::*;
use runtime_plan::plan::*;
use runtime_plan::spend::hint;
use runtime_plan::*;
use runway_schema::Money;

fn dev() -> Plan {
    plan(&common::shipped_example(), "dev", &Catalogue::builtin()).unwrap()
}

fn usd(text: &str) -> Money {
    Money(text.parse().unwrap())
}

fn month() -> Month {
    Month::parse("2026-10").unwrap()
}

fn bill(groups: &[(&str, &str)], untagged: &str) -> Actuals {
    Actuals {
        by_resource: groups.iter().map(|(n, a)| ((*n).into(), usd(a))).collect(),
        untagged: usd(untagged),
        estimated: false,
        partial: false,
    }
}

#[test]
fn a_difference_of_20_percent_gets_no_hint_and_a_cent_more_does() {
    let plan = dev();
    assert_eq!(hint(&plan, Some("metabase"), usd("10"), usd("12")), None);
    assert_eq!(hint(&plan, Some("metabase"), usd("10"), usd("8")), None);
    let Some(Hint::Usage { matches, text, setting }) = hint(&plan, Some("metabase"), usd("10"), usd("12.01"))
    else {
        panic!("a usage hint")
    };
    let quantities: Vec<(&str, String)> =
        matches.iter().map(|m| (m.key.as_str(), m.quantity.to_string())).collect();
    // $2.01 of ingestion at $0.5 per GB, or of storage at $0.03 per GB-month.
    assert_eq!(quantities, vec![("logs-ingestion", "4.02".to_owned()), ("logs-storage", "67".to_owned())]);
    // The declaration counts ingestion and its storage (14 days in dev): $2.01 / ($0.5 + $0.014).
    assert_eq!(setting.as_deref(), Some("environments.dev.usage.for.metabase.logs: 3.91"));
    assert_eq!(
        text,
        "declaring `environments.dev.usage.for.metabase.logs: 3.91` (GB ingested a month) would match the bill"
    );
}

#[test]
fn what_no_usage_explains_is_said_so() {
    let plan = dev();
    // Under the estimate: usage only adds.
    let under = hint(&plan, Some("metabase"), usd("10"), usd("7")).unwrap();
    assert!(
        matches!(under, Hint::Unexplained { .. }) && under.text().contains("under the estimate"),
        "{under:?}"
    );
    // A database has no usage-based rate in the plan.
    let db = hint(&plan, Some("main-db"), usd("36.28"), usd("60")).unwrap();
    assert!(db.text().starts_with("no usage of `main-db` is billed outside the estimate"), "{db:?}");
    // The environment's usage-based rates: data through the NAT gateway and out to the internet
    // (dev declares neither), its KMS key's requests, and its budget.
    let Some(Hint::Usage { matches, .. }) = hint(&plan, None, usd("10"), usd("13")) else { panic!() };
    assert_eq!(
        matches.iter().map(|m| m.key.as_str()).collect::<Vec<_>>(),
        vec!["nat-gateway-gb", "internet-out-gb", "kms-requests", "budget"]
    );
    // An estimate of zero and less than a cent billed: nothing to say.
    assert_eq!(hint(&plan, Some("main-db"), Money::ZERO, usd("0.004")), None);
    assert!(hint(&plan, Some("main-db"), Money::ZERO, usd("0.01")).is_some());
}

#[test]
fn rows_follow_the_plan_then_the_bill_and_the_total_holds_every_cost() {
    let plan = dev();
    let actuals =
        bill(&[("main-db", "30"), ("gone", "1.5"), ("main-db", "6.28"), ("environment", "22")], "4.25");
    let r = spend_report(&plan, month(), &actuals);
    let names: Vec<&str> = r.rows.iter().map(|row| row.name.as_str()).collect();
    let mut planned: Vec<&str> = plan.resources.iter().map(|x| x.name.as_str()).collect();
    planned.extend(plan.workloads.iter().map(|w| w.name.as_str()));
    planned.extend(["environment", "gone"]);
    assert_eq!(names, planned);
    let row = |n: &str| r.rows.iter().find(|row| row.name == n).unwrap();
    // The groups of one tag value add up.
    // Its estimate holds two login secrets beyond the bill's groups ($0.40 each).
    assert_eq!((row("main-db").actual, row("main-db").difference), (usd("36.28"), Some(usd("-0.80"))));
    assert_eq!(
        (row("gone").kind, row("gone").estimate, row("gone").hint.as_ref()),
        (RowKind::Unplanned, None, None)
    );
    assert_eq!(row("environment").kind, RowKind::Environment);
    // Every item without an owner, as the plan's cost lines sum them.
    let shared: Money = plan.cost.lines.iter().filter(|l| l.owner.is_none()).map(|l| l.line.monthly).sum();
    assert_eq!(row("environment").estimate, Some(shared));
    assert_eq!(r.total, SpendTotal { estimate: plan.cost.monthly, actual: usd("64.03") });
    assert_eq!((r.untagged, r.cap, r.verdict), (usd("4.25"), Some(usd("200")), Verdict::Within));
    // Rows of the plan that the bill does not name cost nothing.
    assert_eq!(row("uploads").actual, Money::ZERO);
    // The rows' estimates add up to the plan's.
    let rows: Money = r.rows.iter().filter_map(|row| row.estimate).sum();
    assert_eq!(rows, plan.cost.monthly);
}

#[test]
fn the_cap_is_compared_in_cents_as_the_plan_compares_it() {
    let plan = dev();
    let at = spend_report(&plan, month(), &bill(&[("main-db", "199.994")], "0"));
    assert!(!at.over_cap() && at.verdict == Verdict::Within);
    let over = spend_report(&plan, month(), &bill(&[("main-db", "199.99")], "0.015"));
    assert!(over.over_cap() && over.verdict == Verdict::Over);
    let mut uncapped_plan = plan.clone();
    uncapped_plan.cost.cap = None;
    let uncapped = spend_report(&uncapped_plan, month(), &bill(&[("main-db", "9999")], "0"));
    assert_eq!(uncapped.verdict, Verdict::Uncapped);
}

#[test]
fn a_month_to_date_gets_no_hints() {
    let plan = dev();
    let mut actuals = bill(&[("metabase", "99")], "0");
    assert!(spend_report(&plan, month(), &actuals).rows.iter().any(|r| r.hint.is_some()));
    actuals.partial = true;
    let r = spend_report(&plan, month(), &actuals);
    assert!(r.partial && r.rows.iter().all(|r| r.hint.is_none()));
}

#[test]
fn the_text_and_the_json() {
    let plan = dev();
    let actuals = bill(
        &[
            ("main-db", "36.28"),
            ("jobs", "0.41"),
            ("sessions", "9.34"),
            ("shared-cache", "9.34"),
            ("metabase", "46.04"),
            ("pdf-render", "7.21"),
            ("environment", "22.77"),
            ("old-worker", "3.10"),
        ],
        "4.25",
    );
    let report = spend_report(&plan, month(), &actuals);
    insta::assert_snapshot!(render_spend_text(&report));
    let json: serde_json::Value = serde_json::from_str(&to_json(&report)).unwrap();
    let keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "product",
            "environment",
            "month",
            "rows",
            "untagged",
            "total",
            "cap",
            "verdict",
            "estimated",
            "partial"
        ]
    );
    let metabase = &json["rows"][7];
    assert_eq!(metabase["name"], "metabase");
    assert_eq!(
        (&metabase["estimate"], &metabase["actual"], &metabase["difference"]),
        (&"36.04".into(), &"46.04".into(), &"10.00".into())
    );
    assert_eq!(metabase["hint"]["kind"], "usage");
    assert_eq!(metabase["hint"]["matches"][0]["unitPrice"], "0.5");
    assert_eq!(json["total"], serde_json::json!({"estimate": "171.05", "actual": "138.74"}));
    assert_eq!(
        (&json["cap"], &json["verdict"], &json["untagged"]),
        (&"200.00".into(), &"within".into(), &"4.25".into())
    );
}
