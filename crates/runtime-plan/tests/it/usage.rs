//! Every fixed charge counted, and usage declared, visible and counted (issue 30): the VPC's
//! NAT gateways and public IPv4 addresses, the ALB's addresses, the environment's `usage` and
//! the sizes' defaults in `cost.usage`, a declared usage that makes the cap refuse, and the
//! usage that would have matched a bill.
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: tests

use crate::common;

use std::str::FromStr;

use cost::Catalogue;
use plan_render::*;
use runtime_plan::plan::*;
use runtime_plan::*;
use runway_schema::{Code, Endpoints, Money, Product, UsageKey};
use rust_decimal::Decimal;

fn d(text: &str) -> Decimal {
    Decimal::from_str(text).unwrap()
}

fn lines_of<'p>(p: &'p Plan, item: &str) -> Vec<(&'p str, Decimal)> {
    p.cost.lines.iter().filter(|l| l.item == item).map(|l| (&*l.line.key, l.line.quantity)).collect()
}

fn rates_of<'p>(p: &'p Plan, item: &str) -> Vec<&'p str> {
    p.cost.usage_based.iter().filter(|r| r.item == item).map(|r| &*r.rate.key).collect()
}

fn with_env(edit: impl Fn(&mut runway_schema::Environment)) -> Product {
    let mut product = common::example();
    for env in product.root.environments.values_mut() {
        edit(env);
    }
    product
}

#[test]
fn the_vpc_charges_one_nat_gateway_per_zone_with_its_address_by_default() {
    let p = plan(&common::example(), "production", &Catalogue::builtin()).unwrap();
    let vpc = p.item("env_vpc").expect("the VPC's charges");
    assert_eq!(vpc.kind(), ItemKind::Vpc);
    assert_eq!(vpc.managed_by, ManagedBy::Existing);
    assert_eq!(vpc.spec, ItemSpec::Vpc { nat_gateways: 2, endpoints: false });
    // 2 x 730 NAT gateway-hours at 0.045 and 2 x 730 address-hours at 0.005: 65.70 + 7.30.
    assert_eq!(lines_of(&p, "env_vpc"), [("nat-gateway-hour", d("1460")), ("public-ipv4-hour", d("1460"))]);
    assert_eq!(vpc.monthly, Some(Money(d("73.00"))));
    // Its data nobody declared: rates, never amounts.
    assert_eq!(rates_of(&p, "env_vpc"), ["nat-gateway-gb", "internet-out-gb"]);
    // The ALB's addresses, one per zone.
    assert!(lines_of(&p, "env_alb").contains(&("public-ipv4-hour", d("1460"))));
}

#[test]
fn nat_follows_the_network_setting() {
    let price = |edit: &dyn Fn(&mut runway_schema::Environment)| {
        let p = plan(&with_env(edit), "production", &Catalogue::builtin()).unwrap();
        p.item("env_vpc").map(|i| (i.spec.clone(), lines_of(&p, "env_vpc").len()))
    };
    // Three zones: three NAT gateways, and three ALB addresses.
    let p = plan(&with_env(|e| e.network.zones = 3), "production", &Catalogue::builtin()).unwrap();
    assert_eq!(p.item("env_vpc").unwrap().spec, ItemSpec::Vpc { nat_gateways: 3, endpoints: false });
    assert!(lines_of(&p, "env_alb").contains(&("public-ipv4-hour", d("2190"))));
    // Written: one NAT gateway; or none (the VPC's NAT is shared and paid elsewhere).
    assert_eq!(
        price(&|e| e.network.nat = Some(1)),
        Some((ItemSpec::Vpc { nat_gateways: 1, endpoints: false }, 2))
    );
    assert_eq!(
        price(&|e| e.network.nat = Some(0)),
        Some((ItemSpec::Vpc { nat_gateways: 0, endpoints: false }, 0))
    );
    // VPC endpoints instead: no NAT by default, and their data is the environment's.
    let p =
        plan(&with_env(|e| e.network.endpoints = Endpoints::Declared), "production", &Catalogue::builtin())
            .unwrap();
    assert_eq!(p.item("env_vpc").unwrap().spec, ItemSpec::Vpc { nat_gateways: 0, endpoints: true });
    assert_eq!(rates_of(&p, "env_vpc"), ["vpc-endpoint-gb", "internet-out-gb"]);
    assert_eq!(p.item("env_vpc").unwrap().pricing, Pricing::UsageBased);
    assert_eq!(
        price(&|e| e.network.endpoints = Endpoints::Existing).map(|(s, _)| s),
        Some(ItemSpec::Vpc { nat_gateways: 0, endpoints: false })
    );
    // No workloads: no VPC charge at all.
    let mut product = common::example();
    product.root.workloads.clear();
    let p = plan(&product, "production", &Catalogue::builtin()).unwrap();
    assert!(p.item("env_vpc").is_none());
}

#[test]
fn declared_usage_is_counted_with_its_source_and_defaults_are_shown() {
    let before = plan(&common::example(), "production", &Catalogue::builtin()).unwrap();
    // The sizes' defaults are visible: a queue's requests, a bucket's storage.
    let jobs = before.cost.usage.iter().find(|u| u.item == "jobs_queue").unwrap();
    assert_eq!(
        (jobs.usage, jobs.amount, jobs.source, jobs.from.as_str()),
        (UsageKey::Requests, d("1"), UsageSource::Default, "size small")
    );
    let uploads = before.cost.usage.iter().find(|u| u.item == "uploads_bucket").unwrap();
    assert_eq!(
        (uploads.usage, uploads.amount, uploads.source),
        (UsageKey::StorageGb, d("10"), UsageSource::Default)
    );
    // Nobody declared logs: the log groups are billed by use and add nothing.
    assert_eq!(before.item("metabase_logs").unwrap().pricing, Pricing::UsageBased);

    let product = with_env(|e| {
        e.usage.amounts.insert(UsageKey::Logs, d("2"));
        e.usage.amounts.insert(UsageKey::InternetGb, d("50"));
        e.usage.overrides.entry("metabase".into()).or_default().insert(UsageKey::Logs, d("10"));
        e.usage.overrides.entry("jobs".into()).or_default().insert(UsageKey::Requests, d("20"));
    });
    let after = plan(&product, "production", &Catalogue::builtin()).unwrap();
    let of = |item: &str, key: UsageKey| {
        after.cost.usage.iter().find(|u| u.item == item && u.usage == key).unwrap()
    };
    let m = of("metabase_logs", UsageKey::Logs);
    assert_eq!(
        (m.amount, m.source, m.from.as_str()),
        (d("10"), UsageSource::Declared, "environments.production.usage.for.metabase.logs")
    );
    let s = of("shop_logs", UsageKey::Logs);
    assert_eq!((s.amount, s.from.as_str()), (d("2"), "environments.production.usage.logs"));
    assert_eq!(of("jobs_queue", UsageKey::Requests).amount, d("20"));
    assert_eq!(of("env_vpc", UsageKey::InternetGb).owner, None);
    // Counted: metabase 10 GB x 0.50 + 30 GB-months x 0.03 = 5.90; shop 2 x 0.50 + 6 x 0.03 =
    // 1.18; jobs 19 more million x 0.40 = 7.60; 50 GB out x 0.09 = 4.50.
    assert_eq!(after.cost.monthly.0 - before.cost.monthly.0, d("19.18"));
    assert_eq!(after.item("metabase_logs").unwrap().monthly, Some(Money(d("5.90"))));
    assert!(rates_of(&after, "metabase_logs").is_empty());
    assert_eq!(rates_of(&after, "env_vpc"), ["nat-gateway-gb"], "only what nobody declared stays a rate");
    // In the text, each with its source.
    let text = render_plan_text(&after);
    assert!(text.contains("usage counted in the estimate"), "{text}");
    assert!(text.contains("declared (usage.for.metabase.logs)"), "{text}");
    assert!(text.contains("default (size small)"), "{text}");
    // In the JSON, under cost.usage.
    let json: serde_json::Value = serde_json::from_str(&to_json(&after)).unwrap();
    let first = &json["cost"]["usage"][0];
    for key in ["owner", "item", "usage", "amount", "unit", "source", "from"] {
        assert!(first.get(key).is_some(), "{key}: {first}");
    }
}

#[test]
fn a_declared_usage_can_make_the_cap_refuse() {
    let within = plan(&common::example(), "dev", &Catalogue::builtin()).unwrap();
    assert_eq!(within.cost.verdict, Verdict::Within, "{:?}", within.diagnostics);
    // 100 GB of logs a month for each of the two workloads: 2 x (50 + 100 x 14 / 30 x 0.03).
    let product = with_env(|e| {
        e.usage.amounts.insert(UsageKey::Logs, d("100"));
    });
    let over = plan(&product, "dev", &Catalogue::builtin()).unwrap();
    assert_eq!(over.cost.verdict, Verdict::Over);
    assert!(over.cost.refused);
    assert!(over.diagnostics.iter().any(|d| d.code == Code::CapExceeded), "{:?}", over.diagnostics);
}

#[test]
fn data_through_gateways_the_environment_does_not_pay_for_is_not_counted() {
    let product = with_env(|e| {
        e.network.nat = Some(0);
        e.usage.amounts.insert(UsageKey::NatGb, d("100"));
        e.usage.amounts.insert(UsageKey::EndpointGb, d("100"));
    });
    let p = plan(&product, "production", &Catalogue::builtin()).unwrap();
    assert!(lines_of(&p, "env_vpc").is_empty());
    assert!(!p.cost.usage.iter().any(|u| u.usage == UsageKey::NatGb || u.usage == UsageKey::EndpointGb));
    let warnings: Vec<&str> =
        p.diagnostics.iter().filter(|d| !d.is_error()).map(|d| d.path.as_str()).collect();
    assert!(warnings.contains(&"environments.production.usage.natGb"), "{warnings:?}");
    assert!(warnings.contains(&"environments.production.usage.endpointGb"), "{warnings:?}");
}

#[test]
fn the_usage_that_would_have_matched_a_bill() {
    let p = plan(&common::example(), "production", &Catalogue::builtin()).unwrap();
    // metabase: nothing declared; its bill is $11.80 over its estimate: 11.80 / (0.50 + 3 x
    // 0.03) = 20 GB of logs a month.
    let estimate: Money =
        p.items.iter().filter(|i| i.owner.as_deref() == Some("metabase")).filter_map(|i| i.monthly).sum();
    let hint = usage_hint(&p, Some("metabase"), Money(estimate.0 + d("11.80"))).unwrap();
    assert_eq!((hint.usage, hint.amount), (UsageKey::Logs, d("20")));
    assert_eq!(hint.setting, "environments.production.usage.for.metabase.logs");
    // jobs: 1 million requests counted; $2.00 more is 5 million more at 0.40.
    let jobs: Money =
        p.items.iter().filter(|i| i.owner.as_deref() == Some("jobs")).filter_map(|i| i.monthly).sum();
    let hint = usage_hint(&p, Some("jobs"), Money(jobs.0 + d("2.00"))).unwrap();
    assert_eq!((hint.usage, hint.amount), (UsageKey::Requests, d("6")));
    // The environment's own: $9 over its items' estimate is 200 GB through NAT at 0.045.
    let env: Money = p.items.iter().filter(|i| i.owner.is_none()).filter_map(|i| i.monthly).sum();
    let hint = usage_hint(&p, None, Money(env.0 + d("9"))).unwrap();
    assert_eq!(
        (hint.usage, hint.amount, hint.setting.as_str()),
        (UsageKey::NatGb, d("200"), "environments.production.usage.natGb")
    );
    // A database has no charge billed by use (its bootstrap's few kilobytes of logs are not
    // priced): nothing to declare.
    assert_eq!(usage_hint(&p, Some("main-db"), Money(d("1000"))), None);
}
