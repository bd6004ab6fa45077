#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: test helpers fail loudly
//! Floor, typical and ceiling: the three figures of an environment's estimate with a worker
//! that sleeps outside its hours and scales on its backlog, and the cap refusing on the one
//! `limits.on` names.

use crate::common;

use cost::Catalogue;
use runtime_plan::{Plan, Verdict, plan};
use runway_schema::{CapOn, Money, Product};
use rust_decimal::Decimal;

fn dev(product: &Product) -> Plan {
    plan(product, "dev", &Catalogue::builtin()).expect("a plan")
}

/// The shipped example with dev capped at `cap` on `on`.
fn capped(cap: Money, on: CapOn) -> Plan {
    let mut product = common::shipped_example();
    let env = product.root.environments.get_mut("dev").expect("dev");
    env.monthly_limit = Some(cap);
    env.cap_on = on;
    dev(&product)
}

#[test]
fn the_worker_is_priced_within_its_hours_at_the_floor_midway_typical_and_max_at_the_ceiling() {
    let p = dev(&common::shipped_example());
    let worker = p.items.iter().find(|i| i.id == "jobs-worker_service").expect("the worker's service");
    // One small arm64 task (0.25 vCPU, 0.5 GB) for 65 h a week (Mon-Fri 07:00-20:00):
    // 65 x 730 / 168 = 282.44 h a month.
    let hours = Decimal::from(65 * 730) / Decimal::from(168);
    let task_hour = Decimal::new(25, 2) * Decimal::new(3238, 5) + Decimal::new(5, 1) * Decimal::new(356, 5);
    let floor = worker.monthly.expect("priced");
    assert_eq!(floor.cents(), Money::parse(&(hours * task_hour).round_dp(2).to_string()).unwrap());
    // The ceiling: 2 tasks all month.
    let ceiling = worker.ceiling.expect("priced");
    assert_eq!(
        ceiling.cents(),
        Money::parse(&(Decimal::from(2 * 730) * task_hour).round_dp(2).to_string()).unwrap()
    );
    // Typical: midway between 1 (the hours' floor) and 2, rounded up: 2 tasks within the hours,
    // twice the worker's floor; everything else in dev is fixed (typical = floor).
    let typical = p.cost.typical.expect("dev's typical differs from its floor");
    assert_eq!(typical, p.cost.monthly + floor);
    assert!(p.cost.monthly < typical && typical < p.cost.ceiling, "{:?}", p.cost);
}

#[test]
fn the_cap_refuses_on_the_figure_limits_on_names() {
    let p = dev(&common::shipped_example());
    let (floor, typical, ceiling) =
        (p.cost.monthly.cents(), p.cost.typical.unwrap().cents(), p.cost.ceiling.cents());
    // A cap between the floor and the typical figure: within on the floor, over on the others.
    let dollars = |m: Money| m.to_string().parse::<Decimal>().unwrap();
    let between =
        Money::parse(&((dollars(floor) + dollars(typical)) / Decimal::TWO).round_dp(2).to_string()).unwrap();
    assert_eq!(capped(between, CapOn::Floor).cost.verdict, Verdict::Within);
    let over = capped(between, CapOn::Typical);
    assert_eq!(over.cost.verdict, Verdict::Over);
    let message =
        &over.diagnostics.iter().find(|d| d.code == runway_schema::Code::CapExceeded).unwrap().message;
    assert!(
        message.contains(&format!("the typical estimate ${typical}"))
            && message.contains("limits.on: typical"),
        "{message}"
    );
    assert_eq!(capped(between, CapOn::Ceiling).cost.verdict, Verdict::Over);
    // At the ceiling exactly: within on every figure.
    for on in CapOn::ALL {
        assert_eq!(capped(ceiling, on).cost.verdict, Verdict::Within, "{on:?}");
    }
    // Just under the ceiling: over on the ceiling only.
    let under = Money::parse(&(dollars(ceiling) - Decimal::new(1, 2)).to_string()).unwrap();
    assert_eq!(capped(under, CapOn::Typical).cost.verdict, Verdict::Within);
    assert_eq!(capped(under, CapOn::Ceiling).cost.verdict, Verdict::Over);
}
