//! Alarms: which environments get them, their thresholds and overrides, what they watch, how
//! they are priced, and the deployment alarms of public services (docs/planning.md, "Alarms").
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: tests

use crate::common;

use cost::Catalogue;
use runtime_plan::plan::*;
use runtime_plan::*;
use runway_schema::{Alarms, Money, PostgresEngine, Product, ResourceSpec};

fn planned(product: &Product, env: &str) -> Plan {
    plan(product, env, &Catalogue::builtin()).unwrap()
}

fn alarms(p: &Plan) -> Vec<&PlannedItem> {
    p.items.iter().filter(|i| i.kind() == ItemKind::MetricAlarm).collect()
}

/// `(threshold, metric threshold, dimensions)` of an alarm item.
fn alarm(p: &Plan, id: &str) -> (u64, f64, Vec<AlarmDimension>) {
    let ItemSpec::MetricAlarm { threshold, metric_threshold, dimensions, .. } = &p.item(id).unwrap().spec
    else {
        panic!("{id} is not an alarm")
    };
    (*threshold, *metric_threshold, dimensions.to_vec())
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
        assert!(p.items.iter().all(|i| !declared.contains(&i.kind())), "{env}");
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
    // Production's `large` Aurora has readers; staging's `medium` too, dev's `small` none.
    let p = planned(&product, "production");
    let ItemSpec::AuroraCluster(db) = &p.item("main-db_db").unwrap().spec else { panic!() };
    assert!(db.size.instances > 1, "production's Aurora has a reader");
    let role = |id: &str| {
        let dims = alarm(&p, id).2;
        assert_eq!(dims[0].name, "DBClusterIdentifier");
        dims[1].value.clone()
    };
    assert_eq!(role("main-db_alarm-db-cpu"), DimensionValue::Text { value: "WRITER".into() });
    // The replica lag alarm: Aurora's `AuroraReplicaLag` of the cluster's readers, at the
    // default 2,000 ms (the metric's unit).
    let lag = p.item("main-db_alarm-db-replica-lag").expect("production's Aurora has readers to watch");
    let ItemSpec::MetricAlarm { alarm: name, threshold, metric_threshold, dimensions, .. } = &lag.spec else {
        panic!("main-db_alarm-db-replica-lag is not an alarm")
    };
    assert_eq!(*name, AlarmName::DbReplicaLag);
    let metric = alarm_metric(*name);
    assert_eq!((metric.namespace, metric.metric), ("AWS/RDS", "AuroraReplicaLag"));
    assert_eq!((*threshold, *metric_threshold), (2_000, 2_000.0));
    let cluster = p.item("main-db_db").unwrap().physical_name.to_string();
    let text = |value: &str| DimensionValue::Text { value: value.into() };
    assert_eq!(
        dimensions.iter().map(|d| (d.name, d.value.clone())).collect::<Vec<_>>(),
        [("DBClusterIdentifier", text(&cluster)), ("Role", text("READER"))]
    );
    // Aurora storage grows by itself: no free storage alarm.
    assert!(p.item("main-db_alarm-db-free-storage").is_none());
    // One instance, no reader: no replica lag to watch.
    for a in product.root.environments.values_mut() {
        a.alarms.enabled = Some(true);
    }
    let dev = planned(&product, "dev");
    let ItemSpec::AuroraCluster(db) = &dev.item("main-db_db").unwrap().spec else { panic!() };
    assert_eq!(db.size.instances, 1);
    assert!(dev.item("main-db_alarm-db-cpu").is_some());
    assert!(dev.item("main-db_alarm-db-replica-lag").is_none());
}

#[test]
fn a_capped_environment_s_budget_notifies_the_alerts_topic_too() {
    let p = planned(&with_alarms("dev", |a| a.enabled = Some(true)), "dev");
    let ItemSpec::Budget(budget) = &p.item("env_budget").unwrap().spec else { panic!() };
    assert!(budget.alert_topic);
    assert!(p.item("env_budget").unwrap().depends_on.iter().any(|d| d == ALERTS_TOPIC_ID));
    let ItemSpec::AlertTopic { publishers, .. } = &p.item(ALERTS_TOPIC_ID).unwrap().spec else { panic!() };
    assert!(publishers.iter().any(|p| p.principal == "budgets.amazonaws.com"));
    let dev = planned(&common::example(), "dev");
    let ItemSpec::Budget(budget) = &dev.item("env_budget").unwrap().spec else { panic!() };
    assert!(!budget.alert_topic);
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

/// `(evaluation periods, datapoints to alarm)` of an alarm item.
fn window(p: &Plan, id: &str) -> (u32, u32) {
    let ItemSpec::MetricAlarm { evaluation_periods, datapoints_to_alarm, .. } = &p.item(id).unwrap().spec
    else {
        panic!("{id} is not an alarm")
    };
    (*evaluation_periods, *datapoints_to_alarm)
}

/// The shipped example with alarms in every environment and metabase's grace set to `grace`.
fn shipped_with_grace(grace_seconds: u64) -> Product {
    let mut product = common::shipped_example();
    for e in product.root.environments.values_mut() {
        e.alarms.enabled = Some(true);
    }
    let metabase = product.root.workloads.get_mut("metabase").unwrap();
    metabase.health.as_mut().unwrap().grace = runway_schema::Duration::from_millis(grace_seconds * 1000);
    product
}

/// No rollback alarm can fire while a task is inside its grace: every deployment alarm of every
/// public service needs a run of breaching periods longer than the service's `health.grace`
/// (and within CloudWatch's one-day window), and `unhealthy-targets`, which the ALB raises for
/// a booting target whatever the grace, is never one.
#[test]
fn no_rollback_alarm_can_fire_inside_the_grace() {
    // The example's own 5 minutes, the longest grace the format takes, and none at all.
    for grace in [300, u64::from(runway_schema::MAX_HEALTH_GRACE_SECONDS), 0] {
        let product = shipped_with_grace(grace);
        for env in product.root.environments.keys() {
            let p = planned(&product, env);
            let mut public = 0;
            for item in &p.items {
                let ItemSpec::EcsService(service) = &item.spec else { continue };
                if service.target_group.is_none() {
                    continue;
                }
                public += 1;
                let grace = service.health_check_grace_period_seconds.unwrap();
                assert!(!service.deployment_alarms.is_empty(), "{env} {}: a rollback alarm", item.id);
                for id in &service.deployment_alarms {
                    let ItemSpec::MetricAlarm { alarm, .. } = &p.item(id).unwrap().spec else { panic!() };
                    assert_ne!(*alarm, AlarmName::UnhealthyTargets, "{env} {id}");
                    let period = alarm_metric(*alarm).period_seconds;
                    let (periods, datapoints) = window(&p, id);
                    assert!(periods * period > grace, "{env} {id}: {periods} x {period} s <= {grace} s");
                    assert!(datapoints * period > grace, "{env} {id}: fires after {datapoints} periods");
                    assert!(periods * period <= MAX_ALARM_WINDOW_SECONDS, "{env} {id}");
                }
            }
            assert!(public > 0, "{env}: the example has a public service");
        }
    }
    // Metabase's 5 minutes: its 5xx rollback alarm waits 6 one-minute periods, all breaching.
    let p = planned(&shipped_with_grace(300), "production");
    assert_eq!(window(&p, "metabase_alarm-target-5xx"), (6, 6));
    assert_eq!(window(&p, "metabase_alarm-unhealthy-targets"), (6, 6));
    // A grace shorter than the default window keeps it.
    let p = planned(&shipped_with_grace(60), "production");
    assert_eq!(window(&p, "metabase_alarm-target-5xx"), (3, 3));
}

/// `running-tasks` is declared with its service: it depends on it, so the first `up` of a first
/// deploy (which excludes the services and their dependents) does not declare it while no task
/// can run; once declared, no data (no healthy target registered) counts as breaching.
#[test]
fn running_tasks_waits_for_its_service() {
    let p = planned(&common::shipped_example(), "production");
    let alarm = p.item("metabase_alarm-running-tasks").unwrap();
    assert!(alarm.depends_on.iter().any(|d| d == "metabase_service"), "{:?}", alarm.depends_on);
    assert_eq!(alarm_metric(AlarmName::RunningTasks).missing_data, "breaching");
    // Every other alarm of the target group is declared before the service (one is its
    // deployment alarm, which the service waits for).
    for other in ["target-5xx", "unhealthy-targets", "target-latency"] {
        let a = p.item(&format!("metabase_alarm-{other}")).unwrap();
        assert!(!a.depends_on.iter().any(|d| d == "metabase_service"), "{other}");
        assert_eq!(alarm_metric(a_name(&p, &a.id)).missing_data, "notBreaching", "{other}");
    }
}

fn a_name(p: &Plan, id: &str) -> AlarmName {
    let ItemSpec::MetricAlarm { alarm, .. } = &p.item(id).unwrap().spec else { panic!() };
    *alarm
}

/// `db-connections` is a share of the size's `max_connections` (the catalogue's): dev's small
/// and production's large differ; an override changes the share.
#[test]
fn connections_are_a_share_of_the_size_s_max_connections() {
    let product = shipped_with_grace(300);
    let mut thresholds = Vec::new();
    for env in ["dev", "production"] {
        let p = planned(&product, env);
        let ItemSpec::RdsInstance(db) = &p.item("main-db_db").unwrap().spec else { panic!() };
        let max = db.size.max_connections.expect("the catalogue gives max_connections");
        let (share, connections, _) = alarm(&p, "main-db_alarm-db-connections");
        assert_eq!(share, 80, "{env}");
        assert_eq!(connections, (0.8 * f64::from(max)).floor(), "{env}");
        thresholds.push(connections);
    }
    // db.t4g.micro (1 GiB) and db.m7g.large (8 GiB): LEAST({DBInstanceClassMemory/9531392}, 5000).
    assert_eq!(thresholds, [89.0, 720.0]);
    let mut product = product;
    let production = product.root.environments.get_mut("production").unwrap();
    production.alarms.settings.insert(AlarmName::DbConnections, AlarmSetting::Threshold(50));
    assert_eq!(alarm(&planned(&product, "production"), "main-db_alarm-db-connections").1, 450.0);
}

/// Every service, internal ones too, has CPU and memory alarms on ECS's service-level metrics
/// (no Container Insights), priced like every alarm.
#[test]
fn every_service_has_cpu_and_memory_alarms() {
    let p = planned(&common::shipped_example(), "production");
    let services: Vec<&PlannedItem> = p.items.iter().filter(|i| i.kind() == ItemKind::EcsService).collect();
    assert!(services.len() >= 2);
    for service in services {
        let owner = service.owner.as_deref().unwrap();
        for (name, metric) in [("service-cpu", "CPUUtilization"), ("service-memory", "MemoryUtilization")] {
            let id = format!("{owner}_alarm-{name}");
            let (percent, threshold, dims) = alarm(&p, &id);
            assert_eq!((percent, threshold), (80, 80.0), "{id}");
            assert_eq!(alarm_metric(a_name(&p, &id)).namespace, "AWS/ECS");
            assert_eq!(alarm_metric(a_name(&p, &id)).metric, metric);
            assert_eq!(dims[0].name, "ClusterName");
            assert_eq!(dims[0].value, DimensionValue::Text { value: "acme-shop-production".into() });
            assert_eq!(dims[1].name, "ServiceName");
            assert_eq!(dims[1].value, DimensionValue::Output { item: service.id.clone(), attribute: "name" });
            assert_eq!(p.item(&id).unwrap().monthly, Some(Money::parse("0.10").unwrap()), "{id}");
        }
    }
    // pdf-render is internal: no target group, still watched.
    let ItemSpec::EcsService(pdf) = &p.item("pdf-render_service").unwrap().spec else { panic!() };
    assert!(pdf.target_group.is_none());
    assert!(
        p.item("pdf-render_alarm-service-cpu").is_some()
            && p.item("pdf-render_alarm-service-memory").is_some()
    );
    let pdf = p.workloads.iter().find(|w| w.name == "pdf-render").unwrap();
    assert!(pdf.items.iter().any(|i| i == "pdf-render_alarm-service-memory"));
}

/// `alarms.for.<owner>` overrides the environment's setting for that owner only.
#[test]
fn an_owner_s_own_setting_overrides_the_environment_s() {
    let mut product = shipped_with_grace(300);
    // A second public workload, to keep the environment's threshold.
    let mut api = product.root.workloads["metabase"].clone();
    api.migrate = None;
    product.root.workloads.insert("api".into(), api);
    let production = product.root.environments.get_mut("production").unwrap();
    production.alarms.settings.insert(AlarmName::TargetLatency, AlarmSetting::Threshold(1_500));
    let own = [
        (AlarmName::TargetLatency, AlarmSetting::Threshold(5_000)),
        (AlarmName::ServiceCpu, AlarmSetting::Off),
    ];
    production.alarms.overrides.insert("metabase".into(), own.into_iter().collect());
    let p = planned(&product, "production");
    assert_eq!(alarm(&p, "metabase_alarm-target-latency").1, 5.0);
    assert_eq!(alarm(&p, "api_alarm-target-latency").1, 1.5);
    assert!(p.item("metabase_alarm-service-cpu").is_none());
    assert!(p.item("metabase_alarm-service-memory").is_some());
    assert!(p.item("api_alarm-service-cpu").is_some() && p.item("pdf-render_alarm-service-cpu").is_some());
}

/// `alerts.https` names Infisical secrets: each becomes an SSM SecureString `secrets prepare`
/// copies from the environment's `_alerts` folder, which the topic's HTTPS subscription reads.
#[test]
fn alerts_endpoints_are_parameters_secrets_prepare_copies() {
    let mut product = common::shipped_example();
    let production = product.root.environments.get_mut("production").unwrap();
    production.alarms.https = vec!["PAGERDUTY_URL".into(), "OPSGENIE_URL".into()];
    let p = planned(&product, "production");
    let ItemSpec::AlertTopic { https, .. } = &p.item(ALERTS_TOPIC_ID).unwrap().spec else { panic!() };
    assert_eq!(
        **https,
        ["/acme-shop/production/_alerts/PAGERDUTY_URL", "/acme-shop/production/_alerts/OPSGENIE_URL"]
    );
    for name in https {
        let param = p.secrets.ssm_parameters.iter().find(|s| *s.name == **name).unwrap();
        assert_eq!(param.source, ParameterSource::AlertEndpoint);
        assert_eq!(param.written_by, ParameterWriter::SecretsPrepare);
        assert_eq!(*param.referenced_by, [ALERTS_TOPIC_ID]);
        let place = param.infisical.as_ref().unwrap();
        assert_eq!((&*place.environment, &*place.folder), ("prod", "/runtime/_alerts"));
        assert_eq!(place.name, param.variable);
        // Written with the plan's key: its JSON names the key in each parameter.
        let json = serde_json::to_value(&p.secrets).unwrap();
        let written = json["ssmParameters"].as_array().unwrap().iter().find(|s| s["name"] == **name).unwrap();
        assert_eq!(written["kmsKey"], p.secrets.kms_key.as_str());
    }
    // Without alarms, no topic and no endpoint parameter.
    let quiet = planned(&product, "dev");
    assert!(quiet.secrets.ssm_parameters.iter().all(|s| s.source != ParameterSource::AlertEndpoint));
}
