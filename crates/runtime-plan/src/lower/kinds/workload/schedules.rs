//! A workload's `schedules`: each an EventBridge Scheduler schedule running the service's task
//! definition with its command, priced at its runs a month times its timeout.

use compact_str::CompactString;
use runway_schema::{Cron, Schedule};

use super::super::alerting;
use super::super::cat;
use super::super::context::{Cx, NewItem};
use super::super::platform::Platform;
use super::Lowering;
use crate::plan::{ItemKind, ItemSpec, ScheduleSpec};
use crate::pricing::Priceable;

/// What a schedule's run is made of: the service's task definition, its groups and roles.
pub(super) struct Run<'a> {
    pub task_definition: &'a CompactString,
    pub security_groups: &'a [CompactString],
    pub roles: Vec<CompactString>,
}

/// Declares each schedule of the workload, in file order.
pub(super) fn lower(cx: &mut Cx, w: &Lowering, run: &Run<'_>, platform: &Platform) {
    let Some(cluster) = platform.cluster.as_ref().map(|c| c.id.clone()) else { return };
    if w.spec.schedules.is_empty() {
        return;
    }
    // A failed run reaches the alerts topic where the environment has one.
    let alerts = alerting::topic_publishers(cx).is_some();
    for (name, s) in &w.spec.schedules {
        let runs = runs_a_month(&s.cron);
        let spec = ScheduleSpec {
            workload: w.name.into(),
            schedule: name.as_str().into(),
            cron: s.cron.text.as_str().into(),
            expression: s.cron.eventbridge().into(),
            timezone: s.timezone.as_str().into(),
            command: s.command.iter().map(|c| c.as_str().into()).collect(),
            timeout_seconds: s.timeout.as_secs(),
            runs_a_month: runs,
            cluster: cluster.clone(),
            task_definition: run.task_definition.clone(),
            container: w.name.into(),
            security_groups: run.security_groups.to_vec(),
            pass_roles: run.roles.clone(),
            group: cat(&["schedule-", name]),
            alerts,
        };
        let physical = cx.named(ItemKind::Schedule, cat(&[&w.base, "-", name]));
        let depends_on = [cluster.clone(), run.task_definition.clone()]
            .into_iter()
            .chain(run.roles.iter().cloned())
            .chain(run.security_groups.iter().cloned())
            .collect();
        let priced = Priceable::runs(w.size, w.spec.platform, task_hours(s, runs));
        cx.add(
            NewItem::new(
                cat(&[w.name, "_schedule-", name]),
                physical,
                Some(w.name),
                ItemSpec::Schedule(Box::new(spec)),
            )
            .size(w.size)
            .depends_on(depends_on)
            .priced(priced),
        );
    }
}

/// Task-hours a month: runs a month x the timeout (the longest a run takes).
fn task_hours(s: &Schedule, runs: rust_decimal::Decimal) -> rust_decimal::Decimal {
    runs * rust_decimal::Decimal::from(s.timeout.as_secs()) / rust_decimal::Decimal::from(3600)
}

/// Runs a month: the cron's matches in a 365-day year (2025, starting on a Wednesday) over 12.
pub(crate) fn runs_a_month(cron: &Cron) -> rust_decimal::Decimal {
    let per_day = u64::from(cron.hours.count_ones()) * u64::from(cron.minutes.count_ones());
    let mut days = 0u64;
    let mut date = jiff::civil::date(2025, 1, 1);
    while date.year() == 2025 {
        let weekday = u32::from(date.weekday().to_sunday_zero_offset().unsigned_abs());
        let (month, day) = (u32::from(date.month().unsigned_abs()), u32::from(date.day().unsigned_abs()));
        if cron.matches((month, day, weekday), (first(cron.hours), first_minute(cron.minutes))) {
            days += 1;
        }
        date = match date.tomorrow() {
            Ok(d) => d,
            Err(_) => break,
        };
    }
    rust_decimal::Decimal::from(days * per_day) / rust_decimal::Decimal::from(12)
}

/// The first hour a set holds (0 when empty: it never matches then anyway).
fn first(bits: u32) -> u32 {
    bits.trailing_zeros().min(23)
}

/// The first minute a set holds.
fn first_minute(bits: u64) -> u32 {
    bits.trailing_zeros().min(59)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_a_month_of_common_crons() {
        let runs = |c: &str| runs_a_month(&Cron::parse(c).unwrap());
        assert_eq!(runs("0 3 * * *"), rust_decimal::Decimal::from(365) / rust_decimal::Decimal::from(12));
        // 2025 has 261 weekdays.
        assert_eq!(runs("0 3 * * 1-5"), rust_decimal::Decimal::from(261) / rust_decimal::Decimal::from(12));
        assert_eq!(
            runs("*/15 * * * *"),
            rust_decimal::Decimal::from(365 * 96) / rust_decimal::Decimal::from(12)
        );
        assert_eq!(runs("0 0 1 * *"), rust_decimal::Decimal::ONE);
    }
}
