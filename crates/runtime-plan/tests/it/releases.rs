//! The second fleet a release runs under a strategy other than rolling (issue 43): priced as
//! its tasks for the minutes both fleets run, times the releases a month (`usage.releases`,
//! default 20), at rest and at the ceiling; nothing for a rolling update.

use std::str::FromStr;

use cost::Catalogue;
use runtime_plan::plan::*;
use runtime_plan::*;
use runway_schema::{
    Active, DEFAULT_RELEASES_PER_MONTH, Deploy, Money, Product, Scale, Scaling, Strategy, UsageKey,
};
use rust_decimal::Decimal;

fn d(text: &str) -> Decimal {
    Decimal::from_str(text).unwrap()
}

/// The example with `shop` (public) released by `deploy` in production at `scale`.
fn shop_released(deploy: Deploy, scale: Scale, releases: Option<&str>) -> Product {
    let mut product = super::common::example();
    let shop = product.root.workloads.get_mut("shop").unwrap();
    shop.deploy.insert("production".into(), deploy);
    shop.scale.insert("production".into(), scale);
    if let Some(n) = releases {
        let env = product.root.environments.get_mut("production").unwrap();
        env.usage.overrides.entry("shop".into()).or_default().insert(UsageKey::Releases, d(n));
    }
    product
}

/// The service's lines: (price key, quantity, what).
fn service_lines(p: &Plan) -> Vec<(String, Decimal, String)> {
    p.cost
        .lines
        .iter()
        .filter(|l| l.item == "shop_service")
        .map(|l| (l.line.key.to_string(), l.line.quantity, l.line.what.to_string()))
        .collect()
}

const CANARY: Deploy =
    Deploy { strategy: Strategy::Canary, percent_tenths: 100, step_minutes: 10, bake_minutes: 15 };

#[test]
fn a_rolling_release_adds_no_line() {
    let p = plan(&super::common::example(), "production", &Catalogue::builtin()).unwrap();
    let lines = service_lines(&p);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines.iter().all(|(_, _, what)| !what.contains("second fleet")));
    assert!(!p.cost.usage.iter().any(|u| u.usage == UsageKey::Releases));
}

#[test]
fn a_canary_runs_a_second_fleet_for_its_step_and_bake_each_release() {
    let cat = Catalogue::builtin();
    let scale = Scale { min: 2, max: 5 };
    let p = plan(&shop_released(CANARY, scale, None), "production", &cat).unwrap();
    let size = cat.task(p.item("shop_service").unwrap().size.as_deref().unwrap()).unwrap();
    // 20 releases x 25 minutes (step 10 + bake 15) = 500 minutes of 2 more tasks.
    let hours = Decimal::from(DEFAULT_RELEASES_PER_MONTH) * d("25") / d("60");
    let hours = hours.round_dp(6);
    let lines = service_lines(&p);
    assert_eq!(lines.len(), 4, "{lines:?}");
    let fleet: Vec<_> = lines.iter().filter(|(_, _, what)| what.contains("second fleet")).collect();
    assert_eq!(fleet.len(), 2, "{lines:?}");
    assert_eq!(fleet[0].0, "fargate-arm-vcpu");
    assert_eq!(fleet[0].1, d("2") * Decimal::from(size.cpu) / d("1024") * hours);
    assert_eq!(fleet[1].1, d("2") * Decimal::from(size.memory_mib) / d("1024") * hours);
    assert!(fleet[0].2.ends_with("20 releases x 25 min"), "{}", fleet[0].2);
    // The assumption is shown, as runway's default.
    let u = p.cost.usage.iter().find(|u| u.usage == UsageKey::Releases).unwrap();
    assert_eq!(
        (u.owner.as_deref(), u.item.as_str(), u.amount, u.source, u.from.as_str()),
        (Some("shop"), "shop_service", d("20"), UsageSource::Default, "one a working day")
    );
    // The ceiling runs the second fleet at `max` tasks: more than at rest by 3 tasks all month
    // and 3 more tasks for the releases' minutes.
    let rolling = plan(&shop_released(Deploy::ROLLING, scale, None), "production", &cat).unwrap();
    let (item, before) = (p.item("shop_service").unwrap(), rolling.item("shop_service").unwrap());
    let extra = item.monthly.unwrap().0 - before.monthly.unwrap().0;
    let extra_ceiling = item.ceiling.unwrap().0 - before.ceiling.unwrap().0;
    assert!(extra > Decimal::ZERO, "{extra}");
    assert!(extra_ceiling > extra, "{extra_ceiling} vs {extra}");
    // The plan grows by that and the second target group's deployment alarm, nothing else.
    let alarm = p.item("shop_alarm-target-5xx-2").unwrap().monthly.unwrap().0;
    assert_eq!(p.cost.monthly.0 - rolling.cost.monthly.0, extra + alarm);
}

#[test]
fn declared_releases_price_the_second_fleet() {
    let cat = Catalogue::builtin();
    let scale = Scale { min: 2, max: 2 };
    let quantity = |releases: Option<&str>| {
        let p = plan(&shop_released(CANARY, scale, releases), "production", &cat).unwrap();
        let lines = service_lines(&p);
        let fleet = lines.iter().find(|(_, _, w)| w.contains("second fleet")).map(|l| l.1).unwrap();
        (fleet, p)
    };
    let (default, _) = quantity(None);
    let (four, p) = quantity(Some("4"));
    let size = cat.task(p.item("shop_service").unwrap().size.as_deref().unwrap()).unwrap();
    // 4 releases instead of 20: a fifth of the time (to the rounding of the hours).
    let hours = (d("4") * d("25") / d("60")).round_dp(6);
    assert_eq!(four, d("2") * Decimal::from(size.cpu) / d("1024") * hours);
    assert!(four < default);
    let u = p.cost.usage.iter().find(|u| u.usage == UsageKey::Releases).unwrap();
    assert_eq!(
        (u.amount, u.source, u.from.as_str()),
        (d("4"), UsageSource::Declared, "environments.production.usage.for.shop.releases")
    );
    // None a month: lines of nothing, never a negative or missing figure.
    let (zero, p) = quantity(Some("0"));
    assert_eq!(zero, Decimal::ZERO);
    assert!(p.item("shop_service").unwrap().monthly.unwrap() > Money::ZERO);
}

#[test]
fn blue_green_runs_both_fleets_for_its_bake_only() {
    let cat = Catalogue::builtin();
    let blue_green =
        Deploy { strategy: Strategy::BlueGreen, percent_tenths: 0, step_minutes: 0, bake_minutes: 30 };
    let p =
        plan(&shop_released(blue_green, Scale { min: 1, max: 1 }, Some("10")), "production", &cat).unwrap();
    let lines = service_lines(&p);
    let fleet = lines.iter().find(|(_, _, w)| w.contains("second fleet")).unwrap();
    assert!(fleet.2.ends_with("10 releases x 30 min"), "{}", fleet.2);
    // 1 task x 10 x 30 minutes = 5 hours.
    let size = cat.task(p.item("shop_service").unwrap().size.as_deref().unwrap()).unwrap();
    assert_eq!(fleet.1, Decimal::from(size.cpu) / d("1024") * d("5"));
}

/// The typical figure runs the second fleet at the typical count (midway to `max`): twice the
/// floor's two tasks at `2..6`, to the cent of each figure's rounding.
#[test]
fn the_typical_figure_runs_the_second_fleet_at_the_typical_count() {
    let cat = Catalogue::builtin();
    let scale = Scale { min: 2, max: 6 };
    let canary = plan(&shop_released(CANARY, scale, None), "production", &cat).unwrap();
    let rolling = plan(&shop_released(Deploy::ROLLING, scale, None), "production", &cat).unwrap();
    let alarm = canary.item("shop_alarm-target-5xx-2").unwrap().monthly.unwrap().0;
    let floor = canary.cost.monthly.0 - rolling.cost.monthly.0 - alarm;
    let typical = canary.cost.typical.unwrap().0 - rolling.cost.typical.unwrap().0 - alarm;
    assert!(floor > Decimal::ZERO, "{floor}");
    assert!((typical - floor * d("2")).abs() <= d("0.01"), "typical {typical}, floor {floor}");
}

/// Active hours share a workload's tasks of the month, not its releases' second fleet: a
/// release runs when it is deployed.
#[test]
fn active_hours_do_not_shrink_the_second_fleet() {
    let cat = Catalogue::builtin();
    let mut product = shop_released(Deploy::ROLLING, Scale { min: 1, max: 1 }, None);
    let shop = product.root.workloads.get_mut("shop").unwrap();
    shop.deploy.insert("staging".into(), CANARY);
    shop.scale.insert("staging".into(), Scale { min: 1, max: 1 });
    let active = Active {
        days: [true, true, true, true, true, false, false],
        from_minute: 7 * 60,
        to_minute: 20 * 60,
        timezone: "Europe/Berlin".into(),
    };
    shop.scaling.insert("staging".into(), Scaling { on: None, active: Some(active) });
    let p = plan(&product, "staging", &cat).unwrap();
    let size = cat.task(p.item("shop_service").unwrap().size.as_deref().unwrap()).unwrap();
    let lines = service_lines(&p);
    let fleet = lines.iter().find(|(_, _, w)| w.contains("second fleet")).unwrap();
    // 1 task x 20 releases x 25 minutes, whatever the hours.
    let hours = (Decimal::from(DEFAULT_RELEASES_PER_MONTH) * d("25") / d("60")).round_dp(6);
    assert_eq!(fleet.1, Decimal::from(size.cpu) / d("1024") * hours);
    // The tasks themselves run the active hours only: fewer than all month.
    let tasks = lines.iter().find(|(k, _, w)| k == &fleet.0 && !w.contains("second fleet")).unwrap();
    assert!(tasks.1 < Decimal::from(size.cpu) / d("1024") * d("730"), "{tasks:?}");
}
