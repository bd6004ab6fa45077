//! The environment's alarms, last before the budget: they watch the items already planned.
//! An environment with alarms (`alarms.enabled`, by default `production` only) gets an alerts
//! topic (notifying the HTTPS endpoints of `alerts.https` too), one CloudWatch alarm per
//! watched thing and alarm name (thresholds from `alarms.for.<owner>`, else
//! `environments.<env>.alarms`, else [`alarm_metric`]'s default, sized by the catalogue where it
//! is a share; `off` drops one), an EventBridge rule sending the cluster's ECS deployment
//! failures to the topic, and each public service's deployment alarm (its `target-5xx`, over a
//! window longer than its `health.grace`: a release that fires it is rolled back).
//! docs/planning.md, "Alarms".

use std::collections::BTreeMap;

use compact_str::{CompactString, ToCompactString};
use runway_schema::{AlarmName, AlarmSetting};

use super::cat;
use super::context::{Cx, NewItem};
use super::protection::PRODUCTION;
use runway_schema::Money;

use crate::plan::{
    ALERT_PUBLISHERS, ALERT_PUBLISHERS_WITH_BUDGET, ALERTS_TOPIC_ID, AlarmDimension, AlertPublisher,
    DimensionValue, ECS_ALERT_EVENTS, ItemKind, ItemSpec, PlannedItem, PlannedResource, PlannedWorkload,
    alarm_metric, periods_past_grace,
};
use crate::pricing::Priceable;

/// Bytes of a GiB (RDS storage is allocated in GiB).
const GIB: f64 = 1_073_741_824.0;
/// PostgreSQL's own default `max_connections`, for a catalogue size that gives none.
const POSTGRES_DEFAULT_MAX_CONNECTIONS: u32 = 100;

/// What one planned item gets alarms for: the alarms, their owner and dimensions.
struct Watch {
    /// The watched item's logical id.
    item: CompactString,
    owner: Option<CompactString>,
    /// The stem of the alarms' names (the owner's physical stem, or the environment's).
    stem: CompactString,
    alarms: &'static [AlarmName],
    dimensions: Vec<AlarmDimension>,
    /// The cache node watched (1-based).
    node: Option<u32>,
    /// GiB of an RDS instance's storage (`db-free-storage`).
    storage_gb: u32,
    /// The instance class's `max_connections` (`db-connections`).
    max_connections: Option<u32>,
    /// The public service behind a target group (`running-tasks`, deployment alarms).
    service: Option<Served>,
}

/// The public service behind a target group.
#[derive(Clone, Copy)]
struct Served {
    /// Its position in the plan.
    at: usize,
    /// Its running minimum (`scale.min`).
    min: u32,
    /// Seconds of its `health.grace`: an alarm that judges its tasks outlasts it.
    grace: u32,
}

/// Who publishes to the environment's alerts topic, when it will have one (alarms enabled, and
/// something to watch or a cluster with services): what the environment's key lets use it.
pub(in crate::lower) fn topic_publishers(cx: &Cx) -> Option<&'static [AlertPublisher]> {
    if !cx.env.alarms.enabled.unwrap_or(cx.env_name == PRODUCTION) {
        return None;
    }
    if !anything_watched(cx) && cluster(cx).is_none() {
        return None;
    }
    Some(match cx.env.cap(cx.env_name) {
        Some(_) => ALERT_PUBLISHERS_WITH_BUDGET,
        None => ALERT_PUBLISHERS,
    })
}

/// The cluster whose deployments the ECS rule watches: a cluster that runs only one-off tasks
/// has none.
fn cluster(cx: &Cx) -> Option<CompactString> {
    let services = cx.items.iter().any(|i| i.kind() == ItemKind::EcsService);
    cx.items.iter().find(|i| i.kind() == ItemKind::EcsCluster && services).map(|i| i.id.clone())
}

/// Declares the environment's alerts topic, alarms and ECS event rule.
pub(in crate::lower) fn lower(cx: &mut Cx) {
    let Some(publishers) = topic_publishers(cx) else { return };
    let watches = watches(cx);
    let cluster = cluster(cx);
    let topic = cx.named(ItemKind::AlertTopic, cx.base("alerts"));
    // Encrypted with the environment's key, whose policy lets the publishers use it.
    let key = cx.items.iter().find(|i| i.kind() == ItemKind::KmsKey).map(|i| i.id.clone());
    let https = (cx.env.alarms.https.iter().enumerate())
        .map(|(i, name)| CompactString::from(&*cx.secrets.alert_parameter(i, name, ALERTS_TOPIC_ID)))
        .collect();
    let spec = ItemSpec::AlertTopic { publishers, kms_key: key.clone(), https };
    let item = NewItem::new(ALERTS_TOPIC_ID.into(), topic, None, spec);
    let topic_id = cx.push(item.depends_on(key.into_iter().collect()));
    for watch in watches {
        declare(cx, watch, &topic_id);
    }
    if let Some(cluster) = cluster {
        let name = cx.named(ItemKind::EcsEventRule, cx.base("ecs-alerts"));
        let spec = ItemSpec::EcsEventRule { cluster: cluster.clone(), events: ECS_ALERT_EVENTS };
        let item = NewItem::new("env_ecs-alerts".into(), name, None, spec);
        cx.add(item.depends_on(vec![cluster, topic_id]));
    }
}

/// The alarms of one watched item, each unless `off`; a public service's deployment alarm.
fn declare(cx: &mut Cx, watch: Watch, topic: &str) {
    let mut deployment = Vec::new();
    for &alarm in watch.alarms {
        let metric = alarm_metric(alarm);
        let threshold = match cx.env.alarms.setting(watch.owner.as_deref(), alarm) {
            Some(AlarmSetting::Off) => continue,
            Some(AlarmSetting::Threshold(t)) => t,
            None => match (metric.default_threshold, watch.service) {
                (Some(t), _) => t,
                (None, Some(s)) if s.min > 0 => u64::from(s.min),
                (None, _) => continue,
            },
        };
        let metric_threshold = metric_threshold(alarm, threshold, &watch);
        // What judges a public service's tasks waits out their grace: a run of breaching
        // periods longer than it (docs/planning.md, "Alarms a release boots through").
        let judges_tasks =
            matches!(alarm, AlarmName::TargetErrors | AlarmName::UnhealthyTargets | AlarmName::RunningTasks);
        let periods = match watch.service {
            Some(s) if judges_tasks => {
                periods_past_grace(metric.evaluation_periods, metric.period_seconds, s.grace)
            }
            Some(_) | None => metric.evaluation_periods,
        };
        let datapoints =
            if periods == metric.evaluation_periods { metric.datapoints_to_alarm } else { periods };
        let suffix = match watch.node {
            // Joined, not formatted (sixth pass).
            Some(n) => cat(&[alarm.as_str(), "-", &n.to_compact_string()]),
            None => alarm.as_str().into(),
        };
        let name = cx.named(ItemKind::MetricAlarm, cat(&[&watch.stem, "-", &suffix]));
        let id = cat(&[watch.owner.as_deref().unwrap_or("env"), "_alarm-", &suffix]);
        let spec = ItemSpec::MetricAlarm {
            alarm,
            node: watch.node,
            threshold,
            metric_threshold,
            dimensions: watch.dimensions.as_slice().into(),
            evaluation_periods: periods,
            datapoints_to_alarm: datapoints,
        };
        let mut after = vec![watch.item.clone(), topic.into()];
        // Declared with its service: excluded with it from a first deploy's first `up`, when
        // no task can be healthy yet (docs/pipeline.md).
        if alarm == AlarmName::RunningTasks
            && let Some(s) = watch.service
        {
            after.push(cx.items[s.at].id.clone());
        }
        let item =
            NewItem::new(id, name, watch.owner.as_deref(), spec).depends_on(after).priced(Priceable::Alarm);
        let id = cx.push(item);
        if alarm == AlarmName::TargetErrors {
            deployment.push(id);
        }
    }
    if let Some(s) = watch.service
        && let ItemSpec::EcsService(service) = &mut cx.items[s.at].spec
    {
        service.deployment_alarms.extend(deployment);
    }
}

/// An alarm's threshold in its metric's unit: a share written in percent, watched in bytes of
/// the instance's storage or in connections of its class's `max_connections`; otherwise the
/// file's unit times the metric's.
#[allow(clippy::cast_precision_loss)] // reason: thresholds are far below 2^52
fn metric_threshold(alarm: AlarmName, threshold: u64, watch: &Watch) -> f64 {
    let share = threshold as f64 / 100.0;
    match alarm {
        AlarmName::DbFreeStorage => share * f64::from(watch.storage_gb) * GIB,
        AlarmName::DbConnections => {
            (share * f64::from(watch.max_connections.unwrap_or(POSTGRES_DEFAULT_MAX_CONNECTIONS))).floor()
        }
        AlarmName::AlbErrors
        | AlarmName::TargetErrors
        | AlarmName::UnhealthyTargets
        | AlarmName::TargetLatency
        | AlarmName::RunningTasks
        | AlarmName::DbCpu
        | AlarmName::DbFreeableMemory
        | AlarmName::DbReplicaLag
        | AlarmName::ProxyBorrowLatency
        | AlarmName::CacheCpu
        | AlarmName::CacheMemory
        | AlarmName::CacheEvictions
        | AlarmName::QueueAge
        | AlarmName::DeadLetters
        | AlarmName::ServiceCpu
        | AlarmName::ServiceMemory => threshold as f64 * alarm_metric(alarm).unit_value,
    }
}

/// Every planned item that gets alarms, in plan order.
fn watches(cx: &Cx) -> Vec<Watch> {
    let alb = cx.items.iter().find(|i| i.kind() == ItemKind::Alb).map(|i| i.id.clone());
    // Each public service by its target group.
    let services: BTreeMap<&str, Served> = (cx.items.iter().enumerate())
        .filter_map(|(at, i)| {
            let ItemSpec::EcsService(s) = &i.spec else { return None };
            let grace = s.health_check_grace_period_seconds.unwrap_or(0);
            Some((s.target_group.as_deref()?, Served { at, min: s.desired_count, grace }))
        })
        .collect();
    // Each public service released by a strategy other than rolling by its alternate target
    // group: every other release's new tasks are there, so its 5xx is a deployment alarm too.
    let alternates: BTreeMap<&str, Served> = (cx.items.iter().enumerate())
        .filter_map(|(at, i)| {
            let ItemSpec::EcsService(s) = &i.spec else { return None };
            let grace = s.health_check_grace_period_seconds.unwrap_or(0);
            let alternate = s.traffic.as_ref()?.alternate_target_group.as_str();
            Some((alternate, Served { at, min: s.desired_count, grace }))
        })
        .collect();
    let mut out = Vec::new();
    for item in &cx.items {
        watch_item(cx, item, (alb.as_ref(), &services, &alternates), &mut out);
    }
    out
}

/// Whether [`watches`] would find anything to watch, stopping at the first item it would:
/// asked for every workload with schedules, so it must not make them all.
fn anything_watched(cx: &Cx) -> bool {
    let alb = cx.items.iter().find(|i| i.kind() == ItemKind::Alb).map(|i| i.id.clone());
    // Which service a target group serves changes what it is watched for, not whether.
    let (services, alternates) = (BTreeMap::new(), BTreeMap::new());
    let mut out = Vec::new();
    cx.items.iter().any(|item| {
        watch_item(cx, item, (alb.as_ref(), &services, &alternates), &mut out);
        !out.is_empty()
    })
}

/// The public services by their target group, and by their alternate target group (a release
/// strategy's second one).
type ServedBy<'a> = BTreeMap<&'a str, Served>;

/// Appends what `item` is watched for to `out` (nothing for a kind without alarms), given the
/// environment's ALB and the public services by target group and by alternate target group.
fn watch_item(
    cx: &Cx,
    item: &PlannedItem,
    (alb, services, alternates): (Option<&CompactString>, &ServedBy<'_>, &ServedBy<'_>),
    out: &mut Vec<Watch>,
) {
    use AlarmName::*;
    let text = |name: &'static str, value: &str| AlarmDimension {
        name,
        value: DimensionValue::Text { value: value.into() },
    };
    let output = |name: &'static str, item: &str| AlarmDimension {
        name,
        value: DimensionValue::Output { item: item.into(), attribute: "arnSuffix" },
    };
    // The kinds table's `alarms` column: what an item of the kind is watched with.
    let alarms = item.kind().alarms();
    if alarms.is_empty() {
        return;
    }
    let watch = |alarms, dimensions| Watch {
        item: item.id.clone(),
        owner: item.owner.clone(),
        stem: match &item.owner {
            Some(owner) => cx.base(owner),
            None => cat(&[cx.product, "-", cx.env_name]),
        },
        alarms,
        dimensions,
        node: None,
        storage_gb: 0,
        max_connections: None,
        service: None,
    };
    let name = item.physical_name.as_str();
    // The kinds table's `alarms` column says which kinds are watched (the others were
    // skipped above); this match gives their dimensions, and a test plans each of them.
    #[allow(clippy::wildcard_enum_match_arm)] // reason: the column, not this match, lists the kinds
    match &item.spec {
        ItemSpec::Alb { .. } => out.push(watch(alarms, vec![output("LoadBalancer", &item.id)])),
        ItemSpec::AlbTargetGroup { .. } => {
            let Some(alb) = alb else { return };
            let dimensions = vec![output("TargetGroup", &item.id), output("LoadBalancer", alb)];
            if let Some(&served) = alternates.get(item.id.as_str()) {
                // `<workload>_alarm-target-5xx-2`: the second target group's, its 5xx only.
                let alarms: &'static [AlarmName] = &[TargetErrors];
                out.push(Watch { service: Some(served), node: Some(2), ..watch(alarms, dimensions) });
                return;
            }
            let service = services.get(item.id.as_str()).copied();
            out.push(Watch { service, ..watch(alarms, dimensions) });
        }
        ItemSpec::RdsInstance(db) => {
            let dimensions = vec![text("DBInstanceIdentifier", name)];
            let (storage_gb, max_connections) = (db.size.storage_gb, db.size.max_connections);
            out.push(Watch { storage_gb, max_connections, ..watch(alarms, dimensions) });
        }
        ItemSpec::AuroraCluster(db) => {
            let role = |role| vec![text("DBClusterIdentifier", name), text("Role", role)];
            // The readers' alarm (replica lag), the row's last; the writer gets the others.
            let (writer, reader): (&'static [AlarmName], _) = match alarms.split_last() {
                Some((DbReplicaLag, writer)) => (writer, Some(&[DbReplicaLag])),
                _ => (alarms, None),
            };
            let writer = watch(writer, role("WRITER"));
            out.push(Watch { max_connections: db.size.max_connections, ..writer });
            if let Some(reader) = reader.filter(|_| db.size.instances > 1) {
                out.push(watch(reader, role("READER")));
            }
        }
        ItemSpec::RdsProxy(_) => out.push(watch(alarms, vec![text("ProxyName", name)])),
        ItemSpec::CacheReplicationGroup(cache) => {
            for n in 1..=cache.size.nodes {
                // `{name}-{n:03}`, joined (sixth pass): the number zero-padded to three digits.
                let digits = n.to_compact_string();
                let node = cat(&[name, "-", &"000"[digits.len().min(3)..], &digits]);
                let dimensions = vec![text("CacheClusterId", &node)];
                out.push(Watch { node: Some(n), ..watch(alarms, dimensions) });
            }
        }
        ItemSpec::SqsQueue { .. } => out.push(watch(alarms, vec![text("QueueName", name)])),
        ItemSpec::SqsDeadLetterQueue { .. } => {
            out.push(watch(alarms, vec![text("QueueName", name)]));
        }
        // Every service, internal ones too: ECS's own service-level metrics.
        ItemSpec::EcsService(service) => {
            let Some(cluster) = cx.items.iter().find(|i| i.id == service.cluster) else { return };
            let cluster = text("ClusterName", &cluster.physical_name);
            let by_name = AlarmDimension {
                name: "ServiceName",
                value: DimensionValue::Output { item: item.id.clone(), attribute: "name" },
            };
            out.push(watch(alarms, vec![cluster, by_name]));
        }
        // A row with alarms and no arm here would plan none: `every_watched_kind_gets_its_alarms`
        // fails on it.
        _ => {}
    }
}

/// Adds each alarm to its resource's or workload's record: its id to the record's items, its
/// figure to the record's monthly (and ceiling), as the record's own items are summed.
pub(in crate::lower) fn attach(
    items: &[PlannedItem],
    resources: &mut [PlannedResource],
    workloads: &mut [PlannedWorkload],
) {
    // The alarms follow the alerts topic, the first item of their step.
    let Some(first) = items.iter().rposition(|i| i.kind() == ItemKind::AlertTopic) else { return };
    // Where each alarm goes (`true`: a workload), found by name before any record changes.
    let mut to: Vec<(bool, usize, &PlannedItem)> = Vec::new();
    {
        let resource_at: BTreeMap<&str, usize> =
            resources.iter().enumerate().map(|(at, r)| (r.name.as_str(), at)).collect();
        let workload_at: BTreeMap<&str, usize> =
            workloads.iter().enumerate().map(|(at, w)| (w.name.as_str(), at)).collect();
        for alarm in items[first..].iter().filter(|i| i.kind() == ItemKind::MetricAlarm) {
            let Some(owner) = alarm.owner.as_deref() else { continue };
            if let Some(&at) = resource_at.get(owner) {
                to.push((false, at, alarm));
            } else if let Some(&at) = workload_at.get(owner) {
                to.push((true, at, alarm));
            }
        }
    }
    let add = |sum: Option<Money>, figure: Option<Money>| sum.zip(figure).map(|(a, b)| a + b);
    for (workload, at, alarm) in to {
        if workload {
            let w = &mut workloads[at];
            w.items.push(alarm.id.clone());
            w.monthly = add(w.monthly, alarm.monthly);
            w.ceiling = add(w.ceiling, alarm.ceiling);
        } else {
            let r = &mut resources[at];
            r.items.push(alarm.id.clone());
            r.monthly = add(r.monthly, alarm.monthly);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use cost::Catalogue;
    use runway_schema::{PostgresEngine, ResourceSpec};

    use crate::lower::tests::example;
    use crate::plan::{ItemKind, Plan};

    /// Every item whose kind's row lists alarms is watched (an alarm depends on it), and the
    /// example, with RDS and with Aurora, plans every such kind: a row given alarms without an
    /// arm in [`super::watches`] fails here.
    #[test]
    fn every_watched_kind_gets_its_alarms() {
        let mut aurora = example();
        if let Some(db) = aurora.root.resources.get_mut("main-db") {
            db.spec = ResourceSpec::Postgres { engine: PostgresEngine::Aurora, version: "16".into() };
        }
        let mut seen = BTreeSet::new();
        for product in [example(), aurora] {
            let plan: Plan = crate::plan(&product, "production", &Catalogue::builtin()).unwrap();
            let alarms: Vec<_> = plan.items.iter().filter(|i| i.kind() == ItemKind::MetricAlarm).collect();
            for item in plan.items.iter().filter(|i| !i.kind().alarms().is_empty()) {
                let watched = alarms.iter().any(|a| a.depends_on.contains(&item.id));
                assert!(watched, "{} ({}) has no alarm", item.id, item.kind().as_str());
                seen.insert(item.kind());
            }
        }
        let watched: BTreeSet<ItemKind> =
            ItemKind::ALL.iter().copied().filter(|k| !k.alarms().is_empty()).collect();
        assert_eq!(seen, watched, "a kind with alarms the example does not plan");
    }
}
