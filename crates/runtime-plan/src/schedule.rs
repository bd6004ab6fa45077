//! The next run times of a plan's schedules, from their cron and timezone and a "now" the
//! caller passes (the core reads no clock).

use compact_str::CompactString;
use jiff::{Timestamp, ZonedDateTime as Zoned, tz::TimeZone};
use serde::Serialize;

use crate::plan::{ItemSpec, Plan};

/// A schedule's next run times.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NextRuns {
    /// The workload.
    pub workload: CompactString,
    /// The schedule's name.
    pub schedule: CompactString,
    /// The cron as written.
    pub cron: CompactString,
    /// Its timezone.
    pub timezone: CompactString,
    /// The next runs after `now`, in its timezone, RFC 3339 with the offset
    /// (`2026-12-07T03:00:00+01:00`).
    pub times: Vec<String>,
}

/// Looks this far ahead for a matching minute (a cron like `0 0 29 2 *` matches once in
/// four years; one that never matches, `0 0 31 2 *`, gives no time).
const HORIZON_DAYS: i64 = 5 * 366;

impl Plan {
    /// The next `n` run times of each schedule after `now` (exclusive), in plan order.
    pub fn next_runs(&self, now: Timestamp, n: usize) -> Vec<NextRuns> {
        self.items
            .iter()
            .filter_map(|i| {
                let ItemSpec::Schedule(s) = &i.spec else { return None };
                Some(s)
            })
            .map(|s| NextRuns {
                workload: s.workload.clone(),
                schedule: s.schedule.clone(),
                cron: s.cron.clone(),
                timezone: s.timezone.clone(),
                times: runway_schema::Cron::parse(&s.cron)
                    .map(|c| next_times(&c, &s.timezone, now, n))
                    .unwrap_or_default()
                    .iter()
                    .map(|z| z.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string())
                    .collect(),
            })
            .collect()
    }
}

/// The next `n` times after `now` the cron matches in `timezone` (civil time): a civil time a
/// clock change skips runs at the instant after the gap, one it repeats runs once, at the
/// first (the "compatible" disambiguation of RFC 5545 and Temporal; docs/workloads.md says
/// what is assumed of EventBridge Scheduler there).
pub fn next_times(cron: &runway_schema::Cron, timezone: &str, now: Timestamp, n: usize) -> Vec<Zoned> {
    let Ok(tz) = TimeZone::get(timezone) else { return Vec::new() };
    let start = now.to_zoned_datetime(tz.clone());
    let mut out: Vec<Zoned> = Vec::new();
    let mut date = start.date();
    for _ in 0..HORIZON_DAYS {
        if out.len() >= n {
            break;
        }
        let (month, day) = (u32::from(date.month().unsigned_abs()), u32::from(date.day().unsigned_abs()));
        let weekday = u32::from(date.weekday().to_sunday_zero_offset().unsigned_abs());
        for hour in (0..24u32).filter(|h| cron.hours & (1 << h) != 0) {
            for minute in (0..60u32).filter(|m| cron.minutes & (1 << m) != 0) {
                if out.len() >= n || !cron.matches((month, day, weekday), (hour, minute)) {
                    continue;
                }
                let civil = date.at(hour as i8, minute as i8, 0, 0);
                let Ok(at) = civil.to_zoned_datetime(tz.clone()) else { continue };
                // A repeated instant (two civil times in one gap) runs once.
                if at.timestamp() > now && out.last().is_none_or(|l| l.timestamp() < at.timestamp()) {
                    out.push(at);
                }
            }
        }
        date = match date.tomorrow() {
            Ok(d) => d,
            Err(_) => break,
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use runway_schema::Cron;

    fn times(cron: &str, tz: &str, now: &str) -> Vec<String> {
        let now: Timestamp = now.parse().unwrap();
        next_times(&Cron::parse(cron).unwrap(), tz, now, 3)
            .iter()
            .map(|z| z.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string())
            .collect()
    }

    #[test]
    fn nightly_in_berlin_across_the_autumn_clock_change() {
        // 2026-10-25 03:00 CEST -> 02:00 CET; 03:00 local exists on both sides.
        assert_eq!(
            times("0 3 * * *", "Europe/Berlin", "2026-10-24T00:00:00Z"),
            ["2026-10-24T03:00:00+02:00", "2026-10-25T03:00:00+01:00", "2026-10-26T03:00:00+01:00"]
        );
    }

    #[test]
    fn a_time_the_spring_gap_skips_runs_after_it() {
        // 2026-03-29 02:00 -> 03:00 in Berlin: 02:30 does not exist that day.
        assert_eq!(
            times("30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z"),
            ["2026-03-29T03:30:00+02:00", "2026-03-30T02:30:00+02:00", "2026-03-31T02:30:00+02:00"]
        );
    }

    #[test]
    fn weekdays_and_now_itself_excluded() {
        // 2026-12-04 is a Friday.
        assert_eq!(
            times("0 9 * * MON-FRI", "UTC", "2026-12-04T09:00:00Z"),
            ["2026-12-07T09:00:00+00:00", "2026-12-08T09:00:00+00:00", "2026-12-09T09:00:00+00:00"]
        );
        assert!(times("0 0 31 2 *", "UTC", "2026-01-01T00:00:00Z").is_empty());
    }
}
