//! A service's scaling: its target (`service/<cluster>/<service>`) with the scheduled actions of
//! its active hours, and one target-tracking policy per metric it follows.

use compact_str::CompactString;
use runway_schema::Active;

use super::super::context::{Cx, Named, NewItem};
use super::super::platform::Platform;
use super::super::{SCALING_CPU_TARGET, cat};
use super::{Lowering, Used};
use crate::plan::{ActiveHours, ItemKind, ItemSpec, ScalingPolicySpec, ScalingSource, ScalingTargetSpec};

/// One policy to declare: its word (in its id and name), metric, target value, what it is
/// measured on, and what it waits for.
type Policy<'a> = (&'a str, &'static str, u32, Option<ScalingSource>, Vec<CompactString>);

/// Does the service get a scaling target here: it may grow, or it sleeps outside its hours.
pub(super) fn scales(w: &Lowering) -> bool {
    w.scale.max > w.scale.min || w.scaling.active.is_some()
}

/// The service's scaling target and its policies: what `scale.<env>.on` names (CPU at
/// [`SCALING_CPU_TARGET`] when it names nothing); a policy only when the count may change
/// within the hours (`max` above the hours' floor).
pub(super) fn lower(
    cx: &mut Cx,
    w: &Lowering,
    service: &Named,
    (platform, target_group): (&Platform, Option<&CompactString>),
    used: &Used,
) {
    let cluster = platform.cluster.as_ref().map(|c| c.name.as_str()).unwrap_or_default();
    let floor = hours_floor(w);
    let spec = ItemSpec::ScalingTarget(Box::new(ScalingTargetSpec {
        workload: w.name.into(),
        service: service.id.clone(),
        min_capacity: floor,
        max_capacity: w.scale.max,
        active: w.scaling.active.as_ref().map(|a| Box::new(active_hours(a, floor))),
    }));
    let target = cx.push(
        NewItem::new(
            cat(&[w.name, "_scaling-target"]),
            cat(&["service/", cluster, "/", &service.name]),
            Some(w.name),
            spec,
        )
        .depends_on(vec![service.id.clone()]),
    );
    if w.scale.max <= floor {
        return;
    }
    let on = w.scaling.on.clone().unwrap_or_default();
    let default_cpu = w.scaling.on.is_none().then_some(SCALING_CPU_TARGET);
    let mut policies: Vec<Policy<'_>> = Vec::new();
    if let Some(cpu) = on.cpu.or(default_cpu) {
        policies.push(("cpu", "ECSServiceAverageCPUUtilization", cpu, None, Vec::new()));
    }
    if let Some(memory) = on.memory {
        policies.push(("memory", "ECSServiceAverageMemoryUtilization", memory, None, Vec::new()));
    }
    if let (Some(requests), Some(alb), Some(tg)) = (on.requests, &platform.alb, target_group) {
        let source = ScalingSource::Requests { alb: alb.clone(), target_group: tg.clone() };
        policies.push(("requests", "ALBRequestCountPerTarget", requests, Some(source), vec![tg.clone()]));
    }
    let mut queue_words = Vec::new();
    for (queue, backlog) in &on.queue {
        let Some(id) = queue_item(cx, used, queue) else { continue };
        queue_words.push((cat(&["queue-", queue]), *backlog, id));
    }
    for (word, backlog, id) in &queue_words {
        let source = ScalingSource::Queue { queue: id.clone(), service: service.id.clone() };
        policies.push((word, "SQSBacklogPerTask", *backlog, Some(source), vec![id.clone()]));
    }
    for (word, metric, value, source, after) in policies {
        let spec = ItemSpec::ScalingPolicy(Box::new(ScalingPolicySpec {
            workload: w.name.into(),
            target: target.clone(),
            metric: metric.into(),
            target_value: value,
            source,
        }));
        // The CPU policy keeps the id and name it always had.
        let id = match word {
            "cpu" => cat(&[w.name, "_scaling-policy"]),
            _ => cat(&[w.name, "_scaling-policy-", word]),
        };
        let name = cx.named(ItemKind::ScalingPolicy, cat(&[&w.base, "-", word]));
        let depends_on = std::iter::once(target.clone()).chain(after).collect();
        cx.add(NewItem::new(id, name, Some(w.name), spec).depends_on(depends_on));
    }
}

/// Tasks at least within the hours: `scale.min`, at least one with active hours (`min: 0`
/// sleeps outside them only).
pub(super) fn hours_floor(w: &Lowering) -> u32 {
    if w.scaling.active.is_some() { w.scale.min.max(1) } else { w.scale.min }
}

/// Hours a month within the active hours: a week's hours x 730 / 168, the catalogue's month
/// over a week.
pub(super) fn hours_a_month(a: &Active) -> rust_decimal::Decimal {
    a.hours_a_week() * rust_decimal::Decimal::from(cost::HOURS_PER_MONTH) / rust_decimal::Decimal::from(168)
}

/// The scheduled actions' crons: the start and the end of the hours on the active days.
fn active_hours(a: &Active, min_capacity: u32) -> ActiveHours {
    let days = a.cron_days();
    let at = |minute: u32| {
        // `24:00` ends the day: the action runs at midnight of the next day, written 23:59.
        let (h, m) = if minute >= 24 * 60 { (23, 59) } else { (minute / 60, minute % 60) };
        CompactString::from(format!("cron({m} {h} ? * {days} *)"))
    };
    ActiveHours {
        start: at(a.from_minute),
        stop: at(a.to_minute),
        timezone: a.timezone.as_str().into(),
        min_capacity,
    }
}

/// The logical id of a used queue's SQS queue.
fn queue_item(cx: &Cx, used: &Used, queue: &str) -> Option<CompactString> {
    let i = used.resources.position(queue)?;
    cx.items[used.items[i].clone()]
        .iter()
        .find(|item| matches!(item.spec, ItemSpec::SqsQueue(_)))
        .map(|item| item.id.clone())
}
