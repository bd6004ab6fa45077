//! `runway spend` end to end: the real binary against moto's Cost Explorer, whose answers a
//! test sets through `POST /moto-api/static/ce/cost-and-usage-results` (moto takes one result
//! per distinct request, in order), and against a canned loopback endpoint for what moto cannot
//! do (refuse, show the request). The example product `examples/acme-shop`, `dev` (cap $200).
//!
//! Needs the workspace venv: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::PathBuf;

use crate::common::Run;
use serde_json::{Value, json};
use test_support::{CannedAws, Moto, Route};

use crate::common;

const MONTH: &str = "2026-10";

fn example() -> PathBuf {
    test_support::example("acme-shop").join("runway.yaml")
}

/// Runs `runway spend --env dev ARGS example` with only the test's AWS settings (the host's never
/// leak in); `region` is the SDK's default region, which the command does not use.
fn spend(aws_url: &str, args: &[&str]) -> Run {
    let mut cmd = common::aws_command(aws_url, "runway-spend-test-home");
    cmd.args(["spend", "--env", "dev"]).args(args).arg(example());
    let run = Run::of_utf8(&mut cmd);
    println!("$ runway spend --env dev {}\nexit {}\n{}{}", args.join(" "), run.code, run.stdout, run.stderr);
    run
}

/// The dev plan as JSON.
fn plan() -> Value {
    let out = common::bare()
        .args(["plan", "--env", "dev", "--format", "json", example().to_str().unwrap()])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The estimate of a resource or workload of the plan, as a decimal string.
fn estimate(plan: &Value, name: &str) -> String {
    let rows = plan["resources"].as_array().unwrap().iter().chain(plan["workloads"].as_array().unwrap());
    let row = rows.into_iter().find(|r| r["name"] == name).unwrap();
    row["monthly"].as_str().unwrap().to_owned()
}

/// One answer of Cost Explorer: `groups` as `(group key, amount)`, one monthly period.
fn answer(groups: &[(&str, &str)], estimated: bool, next: Option<&str>) -> Value {
    let groups: Vec<Value> = groups
        .iter()
        .map(|(key, amount)| json!({"Keys": [key], "Metrics": {"UnblendedCost": {"Amount": amount, "Unit": "USD"}}}))
        .collect();
    let mut answer = json!({
        "GroupDefinitions": [{"Type": "TAG", "Key": "resource"}],
        "ResultsByTime": [{
            "TimePeriod": {"Start": "2026-10-01", "End": "2026-11-01"},
            "Total": {},
            "Groups": groups,
            "Estimated": estimated
        }],
        "DimensionValueAttributes": []
    });
    if let Some(token) = next {
        answer["NextPageToken"] = json!(token);
    }
    answer
}

/// Queues Cost Explorer's answers in moto, in the order the requests will come.
fn queue(moto: &Moto, answers: &[Value]) {
    let reply = test_support::http(
        moto.port,
        "POST",
        "/moto-api/static/ce/cost-and-usage-results",
        &json!({ "results": answers }).to_string(),
    )
    .unwrap();
    assert_eq!(reply.status, 201, "{}", reply.body);
}

fn money(v: &Value) -> rust_decimal::Decimal {
    v.as_str().unwrap_or_else(|| panic!("not money: {v}")).parse().unwrap()
}

fn row<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no row {name}"))
}

/// The bill of a month as the example's dev plan estimates it, except: metabase ingests logs
/// ($10 over), the environment's shared items are billed as estimated, a removed workload still
/// costs $3.10, $4.25 carries no `resource` tag.
fn realistic_bill(plan: &Value) -> Vec<(String, String)> {
    let mut groups: Vec<(String, String)> = Vec::new();
    for r in plan["resources"].as_array().unwrap() {
        let name = r["name"].as_str().unwrap();
        groups.push((format!("resource${name}"), estimate(plan, name)));
    }
    let metabase: rust_decimal::Decimal = estimate(plan, "metabase").parse().unwrap();
    groups.push(("resource$metabase".into(), (metabase + rust_decimal::Decimal::TEN).to_string()));
    groups.push(("resource$pdf-render".into(), estimate(plan, "pdf-render")));
    groups.push(("resource$old-worker".into(), "3.10".into()));
    groups.push(("resource$".into(), "4.25".into()));
    groups
}

fn pairs(groups: &[(String, String)]) -> Vec<(&str, &str)> {
    groups.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect()
}

#[test]
fn rows_set_the_bill_beside_the_estimate_with_untagged_and_unplanned_spend() {
    let moto = Moto::start();
    let plan = plan();
    let bill = realistic_bill(&plan);
    queue(&moto, &[answer(&pairs(&bill), false, None)]);
    let run = spend(&moto.url(), &["--month", MONTH, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["environment"], "dev");
    assert_eq!(report["month"], MONTH);
    assert_eq!(report["verdict"], "within");
    assert_eq!(report["cap"], "200.00");
    assert_eq!(report["untagged"], "4.25");
    assert_eq!(report["estimated"], false);
    assert_eq!(report["partial"], false);

    // Every resource and workload has its row, in plan order, then the environment's.
    let names: Vec<&str> =
        report["rows"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    let mut planned: Vec<&str> =
        plan["resources"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    planned.extend(plan["workloads"].as_array().unwrap().iter().map(|w| w["name"].as_str().unwrap()));
    planned.extend(["environment", "old-worker"]);
    assert_eq!(names, planned);
    for name in ["main-db", "pdf-render"] {
        let r = row(&report, name);
        assert_eq!(r["estimate"], r["actual"], "{r}");
        assert_eq!(r["difference"], "0.00");
        assert!(r["hint"].is_null());
    }

    // The environment's shared items: estimated, not billed here (no group) -> actual 0, and
    // a bill under the estimate explains nothing by usage.
    let env = row(&report, "environment");
    assert_eq!(env["kind"], "environment");
    assert_eq!(env["actual"], "0.00");
    assert!(money(&env["estimate"]) > rust_decimal::Decimal::ZERO, "{env}");
    assert_eq!(env["hint"]["kind"], "unexplained");

    // metabase: $10 over its estimate, which is over 20%: the logs ingestion that would match.
    let metabase = row(&report, "metabase");
    assert_eq!(metabase["difference"], "10.00");
    assert_eq!(metabase["hint"]["kind"], "usage", "{metabase}");
    let ingestion = metabase["hint"]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["key"] == "logs-ingestion")
        .unwrap_or_else(|| panic!("{metabase}"));
    assert_eq!(ingestion["unit"], "GB");
    assert_eq!(ingestion["unitPrice"], "0.5");
    assert_eq!(ingestion["quantity"], "20");
    // The declaration counts ingestion and storage (14 days in dev): $10 / ($0.5 + $0.014).
    assert_eq!(metabase["hint"]["setting"], "environments.dev.usage.for.metabase.logs: 19.45");
    assert!(
        metabase["hint"]["text"]
            .as_str()
            .unwrap()
            .contains("declaring `environments.dev.usage.for.metabase.logs: 19.45` (GB ingested a month)")
    );

    // A tag value the plan does not name is its own row; untagged spend is apart.
    let old = row(&report, "old-worker");
    assert_eq!(old["kind"], "unplanned");
    assert!(old["estimate"].is_null());
    assert_eq!(old["actual"], "3.10");

    // The totals: the plan's estimate; every group and the untagged spend.
    assert_eq!(report["total"]["estimate"], plan["cost"]["monthly"]);
    let billed: rust_decimal::Decimal =
        bill.iter().map(|(_, a)| a.parse::<rust_decimal::Decimal>().unwrap()).sum();
    assert_eq!(money(&report["total"]["actual"]), billed.round_dp(2));
}

#[test]
fn the_text_shows_each_row_the_totals_the_cap_and_the_hints() {
    let moto = Moto::start();
    let plan = plan();
    queue(&moto, &[answer(&pairs(&realistic_bill(&plan)), true, None)]);
    let run = spend(&moto.url(), &["--month", MONTH]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = &run.stdout;
    assert!(
        text.starts_with(
            "spend acme-shop / dev, 2026-10 (Cost Explorer, unblended cost; estimated, not final yet)\n"
        ),
        "{text}"
    );
    let line = |start: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap_or_else(|| panic!("no line {start}:\n{text}"))
    };
    assert!(line("name ").contains("estimate") && line("name ").contains("difference"));
    assert!(line("metabase ").contains("workload") && line("metabase ").contains("+$10.00 ("), "{text}");
    assert!(line("old-worker ").contains("not in the plan") && line("old-worker ").contains("$3.10"));
    assert!(line("untagged ").contains("$4.25"));
    assert!(line("total ").contains(&format!("${}", plan["cost"]["monthly"].as_str().unwrap())));
    assert!(text.contains("\nwithin the cap $200.00\n"), "{text}");
    assert!(text.contains("Cost Explorer marks the bill as estimated"));
    assert!(
        text.contains(
            "\ndifferences over 20%:\n  metabase: declaring `environments.dev.usage.for.metabase.logs: 19.45`"
        ),
        "{text}"
    );
    assert!(line("environment: ").contains("under the estimate, which no usage explains"), "{text}");
}

#[test]
fn an_actual_total_over_the_cap_exits_3() {
    let moto = Moto::start();
    let answers = [answer(&[("resource$main-db", "170.004"), ("resource$", "30.01")], false, None)];
    queue(&moto, &answers);
    let json = spend(&moto.url(), &["--month", MONTH, "--format", "json"]);
    assert_eq!(json.code, 3, "{}", json.stderr);
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(report["verdict"], "over");
    assert_eq!(report["total"]["actual"], "200.01");
    assert!(
        json.stderr
            .contains("over the cap: the dev bill of acme-shop for 2026-10 is $200.01, over its cap $200.00")
    );

    // The same request again gets the same answer from moto: the text says so too.
    let text = spend(&moto.url(), &["--month", MONTH]);
    assert_eq!(text.code, 3);
    assert!(
        text.stdout.contains("over the cap: the actual $200.01 is over the cap $200.00"),
        "{}",
        text.stdout
    );
}

#[test]
fn a_bill_exactly_at_the_cap_is_within() {
    let moto = Moto::start();
    queue(&moto, &[answer(&[("resource$main-db", "199.996")], false, None)]);
    let run = spend(&moto.url(), &["--month", MONTH, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        (report["verdict"].as_str(), report["total"]["actual"].as_str()),
        (Some("within"), Some("200.00"))
    );
}

#[test]
fn every_page_of_groups_is_added() {
    let moto = Moto::start();
    // moto gives each distinct request the next queued answer: the second page's request
    // carries the token, so it takes the second.
    let first = answer(&[("resource$main-db", "10.50"), ("resource$", "1")], false, Some("page-2"));
    let second = answer(&[("resource$main-db", "2.25"), ("resource$jobs", "0.40")], false, None);
    queue(&moto, &[first, second]);
    let run = spend(&moto.url(), &["--month", MONTH, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(row(&report, "main-db")["actual"], "12.75");
    assert_eq!(row(&report, "jobs")["actual"], "0.40");
    assert_eq!(report["total"]["actual"], "14.15");
}

#[test]
fn no_data_leads_with_the_cost_allocation_tags_and_exits_1() {
    // Nothing queued: moto answers no period and no group, as Cost Explorer does for tags that
    // are not active cost allocation tags.
    let moto = Moto::start();
    let run = spend(&moto.url(), &["--month", MONTH]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let first = run.stderr.lines().next().unwrap_or_default();
    assert!(first.starts_with("error: Cost Explorer has no cost of acme-shop / dev for 2026-10"), "{first}");
    for said in [
        "activate the cost allocation tags `product`, `environment` and `resource`",
        "does not backfill",
        "24 hours",
    ] {
        assert!(first.contains(said), "{said}: {first}");
    }
    assert!(run.stdout.is_empty());

    // As JSON, stdout says it too.
    let json = spend(&moto.url(), &["--month", MONTH, "--format", "json"]);
    assert_eq!(json.code, 1);
    let error: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(error["error"]["exit"], 1);
    assert!(error["error"]["message"].as_str().unwrap().contains("cost allocation tags"));
}

#[test]
fn access_denied_names_the_permission_and_the_region() {
    let aws = CannedAws::start(vec![Route::always(
        "400 Bad Request",
        r#"{"__type":"AccessDeniedException","Message":"User: arn:aws:sts::123456789012:assumed-role/ci/spend is not authorized to perform: ce:GetCostAndUsage on resource: arn:aws:ce:us-east-1:123456789012:/GetCostAndUsage"}"#,
    )]);
    let run = spend(&aws.url(), &["--month", MONTH]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    let mut lines = run.stderr.lines().skip_while(|l| !l.starts_with("error: "));
    let first = lines.next().unwrap_or_default();
    assert!(first.contains("grant its role `ce:GetCostAndUsage`"), "{}", run.stderr);
    assert!(first.contains("us-east-1 whatever the environment's region"), "{}", run.stderr);
    let second = lines.next().unwrap_or_default();
    assert!(second.starts_with("  cause: GetCostAndUsage failed (AccessDeniedException)"), "{}", run.stderr);
}

#[test]
fn cost_explorer_without_data_for_the_account_is_no_data_too() {
    let aws = CannedAws::start(vec![Route::always(
        "400 Bad Request",
        r#"{"__type":"DataUnavailableException","Message":"Data is not available. Please try to adjust the time period."}"#,
    )]);
    let run = spend(&aws.url(), &["--month", MONTH]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.starts_with(
            "error: Cost Explorer has no cost of acme-shop / dev for 2026-10 (Data is not available. Please try to adjust the time period.): activate the cost allocation tags"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("enable Cost Explorer once"), "{}", run.stderr);
}

#[test]
fn only_untagged_spend_asks_whether_the_resource_tag_is_active() {
    let moto = Moto::start();
    queue(&moto, &[answer(&[("resource$", "42")], false, None)]);
    let run = spend(&moto.url(), &["--month", MONTH]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("all of it is without a `resource` tag: is `resource` an active cost allocation tag"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_bill_in_another_currency_is_not_compared() {
    let mut cny = answer(&[("resource$main-db", "100")], false, None);
    cny["ResultsByTime"][0]["Groups"][0]["Metrics"]["UnblendedCost"]["Unit"] = json!("CNY");
    let aws = CannedAws::start(vec![Route::always("200 OK", &cny.to_string())]);
    let run = spend(&aws.url(), &["--month", MONTH]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("Cost Explorer answered in CNY; the estimate and the cap are in US dollars"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_request_asks_for_the_month_the_two_tags_and_the_resource_groups() {
    let aws = CannedAws::start(vec![Route::always(
        "200 OK",
        &answer(&[("resource$main-db", "1")], false, None).to_string(),
    )]);
    let run = spend(&aws.url(), &["--month", "2026-02", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let call = aws.calls().pop().expect("a request");
    let request: Value = serde_json::from_str(&call.body).unwrap();
    assert_eq!(request["TimePeriod"], json!({"Start": "2026-02-01", "End": "2026-03-01"}));
    assert_eq!(request["Granularity"], "MONTHLY");
    assert_eq!(request["Metrics"], json!(["UnblendedCost"]));
    assert_eq!(request["GroupBy"], json!([{"Type": "TAG", "Key": "resource"}]));
    assert_eq!(
        request["Filter"],
        json!({"And": [
            {"Tags": {"Key": "product", "Values": ["acme-shop"], "MatchOptions": ["EQUALS"]}},
            {"Tags": {"Key": "environment", "Values": ["dev"], "MatchOptions": ["EQUALS"]}}
        ]})
    );
    let target = call.header("x-amz-target").map(str::to_lowercase);
    assert_eq!(target.as_deref(), Some("awsinsightsindexservice.getcostandusage"), "{}", call.head);
}

#[test]
fn the_month_defaults_to_the_previous_one_and_cannot_be_in_the_future() {
    let moto = Moto::start();
    queue(&moto, &[answer(&[("resource$main-db", "1")], false, None)]);
    let run = spend(&moto.url(), &["--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    let this_month = utc_month();
    let (y, m) = this_month.split_once('-').unwrap();
    let (y, m): (u16, u8) = (y.parse().unwrap(), m.parse().unwrap());
    let previous = if m == 1 { format!("{}-12", y - 1) } else { format!("{y}-{:02}", m - 1) };
    assert_eq!(report["month"], previous.as_str());

    let future = spend(&moto.url(), &["--month", "9999-12"]);
    assert_eq!(future.code, 2, "{}", future.stderr);
    assert!(future.stderr.contains("--month 9999-12 is in the future"), "{}", future.stderr);
    let bad = spend(&moto.url(), &["--month", "2026-13"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("`2026-13` is not a month (write it as YYYY-MM"), "{}", bad.stderr);

    // The current month is month to date: no hint, and said so.
    queue(&moto, &[answer(&[("resource$metabase", "99")], true, None)]);
    let current = spend(&moto.url(), &["--month", &this_month, "--format", "json"]);
    let report: Value = serde_json::from_str(&current.stdout).unwrap();
    assert_eq!(report["partial"], true);
    assert!(row(&report, "metabase")["hint"].is_null());
}

/// This month by the UTC calendar, as `date` says.
fn utc_month() -> String {
    let out = std::process::Command::new("date").args(["-u", "+%Y-%m"]).output().unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}
