//! Alarms: which environments get them, their thresholds and overrides, what they watch, how
//! they are priced, and the deployment alarms of public services (docs/planning.md, "Alarms").
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: tests

mod common;

use cost::Catalogue;
use runtime_plan::*;
use runway_schema::{Alarms, Money, PostgresEngine, Product, ResourceSpec};

fn planned(product: &Product, env: &str) -> Plan {
    plan(product, env, &Catalogue::builtin()).unwrap()
}

fn alarms(p: &Plan) -> Vec<&PlannedItem> {
    p.items.iter().filter(|i| i.kind == ItemKind::MetricAlarm).collect()
}

/// `(threshold, metric threshold, dimensions)` of an alarm item.
fn alarm(p: &Plan, id: &str) -> (u64, f64, Vec<AlarmDimension>) {
    let ItemSpec::MetricAlarm { threshold, metric_threshold, dimensions, .. } = &p.item(id).unwrap().spec
    else {
        panic!("{id} is not an alarm")
    };
    (*threshold, *metric_threshold, dimensions.clone())
}

fn with_alarms(env: &str, setting: impl FnOnce(&mut Alarms)) -> Product {
    let mut product = common::example();
    setting(&mut product.root.environments.get_mut(env).unwrap().alarms);
    product
}

#[test]
fn production_has_alarms_by_default_and_other_environments_opt_in() {
    let product = common::example();
    let production = planned(&product, "production");
    assert!(production.item(ALERTS_TOPIC_ID).is_some());
    assert!(production.item("env_ecs-alerts").is_some());
    assert!(!alarms(&production).is_empty());
    for env in ["dev", "staging"] {
        let p = planned(&product, env);
        let declared = [ItemKind::AlertTopic, ItemKind::MetricAlarm, ItemKind::EcsEventRule];
        assert!(p.items.iter().all(|i| !declared.contains(&i.kind)), "{env}");
    }
    let staging = planned(&with_alarms("staging", |a| a.enabled = Some(true)), "staging");
    assert_eq!(alarms(&staging).len(), alarms(&production).len());
    let quiet = planned(&with_alarms("production", |a| a.enabled = Some(false)), "production");
    assert!(quiet.item(ALERTS_TOPIC_ID).is_none() && alarms(&quiet).is_empty());
    let priced: Money = std::iter::repeat_n(Money::parse("0.10").unwrap(), alarms(&production).len()).sum();
    assert_eq!(quiet.cost.monthly + priced, production.cost.monthly);
}

#[test]
fn every_alarm_is_one_priced_standard_alarm_and_the_topic_and_rule_are_free() {
    let p = planned(&common::example(), "production");
    for a in alarms(&p) {
        assert_eq!(a.pricing, Pricing::Priced, "{}", a.id);
        assert_eq!(a.monthly, Some(Money::parse("0.10").unwrap()), "{}", a.id);
        let lines: Vec<&CostLine> = p.cost.lines.iter().filter(|l| l.item == a.id).collect();
        assert_eq!(lines.len(), 1, "{}", a.id);
        assert_eq!(&*lines[0].line.key, "alarm");
        assert!(a.depends_on.iter().any(|d| d == ALERTS_TOPIC_ID), "{}", a.id);
    }
    for id in [ALERTS_TOPIC_ID, "env_ecs-alerts"] {
        let item = p.item(id).unwrap();
        assert!(matches!(item.pricing, Pricing::Included { .. }), "{id}");
        assert_eq!(item.monthly, Some(Money::ZERO), "{id}");
    }
    // Each alarm counts in its owner's figure.
    let jobs = p.resources.iter().find(|r| r.name == "jobs").unwrap();
    assert!(jobs.items.iter().any(|i| i == "jobs_alarm-dead-letters"));
    let total: Money = p.resources.iter().filter_map(|r| r.monthly).sum::<Money>()
        + p.workloads.iter().filter_map(|w| w.monthly).sum::<Money>();
    let environment: Money =
        p.items.iter().filter(|i| i.owner.is_none()).filter_map(|i| i.monthly).sum::<Money>();
    assert_eq!(total + environment, p.cost.monthly);
}

#[test]
fn defaults_are_in_the_metric_s_unit() {
    let p = planned(&common::example(), "production");
    // 2,000 ms of p95 latency: 2 seconds of `TargetResponseTime`.
    assert_eq!(alarm(&p, "shop_alarm-target-latency").0, 2_000);
    assert_eq!(alarm(&p, "shop_alarm-target-latency").1, 2.0);
    // 10% of the instance's storage, in bytes.
    let ItemSpec::RdsInstance(db) = &p.item("main-db_db").unwrap().spec else { panic!() };
    let (percent, bytes, dims) = alarm(&p, "main-db_alarm-db-free-storage");
    assert_eq!(percent, 10);
    assert_eq!(bytes, f64::from(db.size.storage_gb) * 1_073_741_824.0 / 10.0);
    assert_eq!(dims[0].name, "DBInstanceIdentifier");
    assert_eq!(dims[0].value, DimensionValue::Text { value: "acme-shop-production-main-db".into() });
    // 256 MiB freeable; 100 ms of borrow latency, watched in microseconds.
    assert_eq!(alarm(&p, "main-db_alarm-db-freeable-memory").1, 256.0 * 1_048_576.0);
    assert_eq!(alarm(&p, "main-db_alarm-proxy-borrow-latency").1, 100_000.0);
    // Running tasks: the workload's `scale.min` by default.
    let ItemSpec::EcsService(shop) = &p.item("shop_service").unwrap().spec else { panic!() };
    assert_eq!(alarm(&p, "shop_alarm-running-tasks").0, u64::from(shop.desired_count));
    // Target group alarms name the target group and the ALB by their `arnSuffix`.
    let output = |item: &str| DimensionValue::Output { item: item.into(), attribute: "arnSuffix" };
    let dims = alarm(&p, "shop_alarm-target-5xx").2;
    assert_eq!(
        dims.iter().map(|d| (d.name, d.value.clone())).collect::<Vec<_>>(),
        [("TargetGroup", output("shop_target-group")), ("LoadBalancer", output("env_alb"))]
    );
    // A cache's alarms watch each node of its replication group.
    let dims = alarm(&p, "sessions_alarm-cache-cpu-1").2;
    assert_eq!(dims[0].value, DimensionValue::Text { value: "acme-shop-production-sessions-001".into() });
}

#[test]
fn thresholds_are_overridden_and_off_drops_an_alarm_and_its_rollback() {
    let product = with_alarms("production", |a| {
        a.settings.insert(AlarmName::TargetLatency, AlarmSetting::Threshold(1_500));
        a.settings.insert(AlarmName::DbFreeStorage, AlarmSetting::Threshold(25));
        a.settings.insert(AlarmName::UnhealthyTargets, AlarmSetting::Off);
        a.settings.insert(AlarmName::CacheEvictions, AlarmSetting::Off);
        a.settings.insert(AlarmName::RunningTasks, AlarmSetting::Threshold(3));
    });
    let p = planned(&product, "production");
    assert_eq!(alarm(&p, "shop_alarm-target-latency").1, 1.5);
    assert_eq!(alarm(&p, "main-db_alarm-db-free-storage").0, 25);
    assert_eq!(alarm(&p, "shop_alarm-running-tasks").0, 3);
    assert_eq!(alarm(&p, "shop_alarm-running-tasks").1, 3.0);
    assert!(p.item("shop_alarm-unhealthy-targets").is_none());
    assert!(alarms(&p).iter().all(|a| !a.id.contains("cache-evictions")));
    let ItemSpec::EcsService(shop) = &p.item("shop_service").unwrap().spec else { panic!() };
    assert_eq!(shop.deployment_alarms, ["shop_alarm-target-5xx"]);
}

#[test]
fn aurora_with_readers_watches_replica_lag_and_its_writer() {
    let mut product = common::example();
    product.root.resources.get_mut("main-db").unwrap().spec =
        ResourceSpec::Postgres { engine: PostgresEngine::Aurora, version: "16".into() };
    let p = planned(&product, "production");
    let ItemSpec::AuroraCluster(db) = &p.item("main-db_db").unwrap().spec else { panic!() };
    let role = |id: &str| {
        let dims = alarm(&p, id).2;
        assert_eq!(dims[0].name, "DBClusterIdentifier");
        dims[1].value.clone()
    };
    assert_eq!(role("main-db_alarm-db-cpu"), DimensionValue::Text { value: "WRITER".into() });
    // Aurora storage grows by itself: no free storage alarm.
    assert!(p.item("main-db_alarm-db-free-storage").is_none());
    if db.size.instances > 1 {
        assert_eq!(role("main-db_alarm-db-replica-lag"), DimensionValue::Text { value: "READER".into() });
    } else {
        assert!(p.item("main-db_alarm-db-replica-lag").is_none());
    }
}

#[test]
fn a_capped_environment_s_budget_notifies_the_alerts_topic_too() {
    let p = planned(&with_alarms("dev", |a| a.enabled = Some(true)), "dev");
    let ItemSpec::Budget { alert_topic, .. } = &p.item("env_budget").unwrap().spec else { panic!() };
    assert!(*alert_topic);
    assert!(p.item("env_budget").unwrap().depends_on.iter().any(|d| d == ALERTS_TOPIC_ID));
    let ItemSpec::AlertTopic { publishers, .. } = &p.item(ALERTS_TOPIC_ID).unwrap().spec else { panic!() };
    assert!(publishers.iter().any(|p| p.principal == "budgets.amazonaws.com"));
    let dev = planned(&common::example(), "dev");
    let ItemSpec::Budget { alert_topic, .. } = &dev.item("env_budget").unwrap().spec else { panic!() };
    assert!(!*alert_topic);
}

#[test]
fn every_alarm_has_a_unique_id_and_name_within_the_aws_limit() {
    let p = planned(&common::example(), "production");
    let mut names: Vec<&str> = alarms(&p).iter().map(|a| a.physical_name.as_str()).collect();
    assert!(names.iter().all(|n| n.len() <= 255));
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(names.len(), before);
}
