//! A workload's scheduled runs (`schedules.<name>`): a five-field cron in a timezone, the
//! command the task runs, and how long a run may take.

use serde::Serialize;

use crate::values::Duration;

/// `schedules.<name>`: a one-off task of the workload's task definition started by EventBridge
/// Scheduler at each time the cron matches in the timezone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Schedule {
    /// When it runs.
    pub cron: Cron,
    /// The IANA timezone the cron is read in (`timezone`, default `UTC`).
    pub timezone: String,
    /// The container's command, word by word (exec form), replacing the image's CMD.
    pub command: Vec<String>,
    /// How long a run may take before it is stopped and reported failed (`timeout`).
    pub timeout: Duration,
}

/// Longest `schedules.<name>.timeout`: a day.
pub const MAX_SCHEDULE_TIMEOUT_SECONDS: u64 = 24 * 3600;

/// A five-field cron (`minute hour day-of-month month day-of-week`), as sets of the values each
/// field matches. Day of month and day of week are not both restricted: EventBridge Scheduler
/// takes one of the two (the other `?`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cron {
    /// As written.
    pub text: String,
    /// Bit `m` set: minute `m` (0..=59).
    #[serde(skip)]
    pub minutes: u64,
    /// Bit `h` set: hour `h` (0..=23).
    #[serde(skip)]
    pub hours: u32,
    /// Bit `d` set: day of month `d` (1..=31); all set when `*`.
    #[serde(skip)]
    pub days_of_month: u32,
    /// Bit `m` set: month `m` (1..=12).
    #[serde(skip)]
    pub months: u16,
    /// Bit `d` set: weekday `d`, Sunday 0 (0..=6); all set when `*`.
    #[serde(skip)]
    pub days_of_week: u8,
    /// The five fields as written (for EventBridge's six-field form).
    #[serde(skip)]
    pub fields: [String; 5],
}

const MONTHS: [&str; 12] =
    ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const DAYS: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

impl Cron {
    /// Reads a five-field cron; the error says what is wrong.
    pub fn parse(text: &str) -> Result<Cron, String> {
        let parts: Vec<&str> = text.split_whitespace().collect();
        let [m, h, dom, mon, dow] = parts[..] else {
            return Err(format!(
                "a cron has five fields (minute hour day month weekday), found {}",
                parts.len()
            ));
        };
        let minutes = field(m, "minute", 0, 59, &[])?;
        let hours = field(h, "hour", 0, 23, &[])?;
        let days_of_month = field(dom, "day of month", 1, 31, &[])?;
        let months = field(mon, "month", 1, 12, &MONTHS)?;
        // 7 is Sunday too.
        let mut days_of_week = field(dow, "day of week", 0, 7, &DAYS)?;
        if days_of_week & (1 << 7) != 0 {
            days_of_week = (days_of_week | 1) & 0x7f;
        }
        if dom != "*" && dow != "*" {
            return Err("it restricts both the day of month and the day of week; EventBridge Scheduler takes one (write `*` in the other)".to_owned());
        }
        Ok(Cron {
            text: text.to_owned(),
            minutes,
            hours: u32::try_from(hours).unwrap_or(0),
            days_of_month: u32::try_from(days_of_month).unwrap_or(0),
            months: u16::try_from(months).unwrap_or(0),
            days_of_week: u8::try_from(days_of_week).unwrap_or(0),
            fields: [m, h, dom, mon, dow].map(str::to_owned),
        })
    }

    /// EventBridge Scheduler's six-field form, `cron(minutes hours day-of-month month
    /// day-of-week year)`: the unrestricted day field `?`, weekdays by name (its numbers start
    /// at Sunday 1, cron's at Sunday 0).
    pub fn eventbridge(&self) -> String {
        let [m, h, dom, mon, dow] = &self.fields;
        let (dom, dow) =
            if dow == "*" { (dom.clone(), "?".to_owned()) } else { ("?".to_owned(), weekday_names(dow)) };
        format!("cron({m} {h} {dom} {mon} {dow} *)")
    }

    /// Does the cron match this civil time (month 1..=12, weekday Sunday 0)?
    pub fn matches(&self, (month, day, weekday): (u32, u32, u32), (hour, minute): (u32, u32)) -> bool {
        self.months & (1 << month) != 0
            && self.days_of_month & (1 << day) != 0
            && self.days_of_week & (1 << weekday) != 0
            && self.hours & (1 << hour) != 0
            && self.minutes & (1 << minute) != 0
    }
}

/// A cron day-of-week field with numbers written as EventBridge's names (`1-5` -> `MON-FRI`).
fn weekday_names(dow: &str) -> String {
    let mut out = String::new();
    for (i, c) in dow.split_inclusive([',', '-', '/']).enumerate() {
        let (word, sep) = match c.char_indices().last() {
            Some((at, s @ (',' | '-' | '/'))) => (&c[..at], Some(s)),
            _ => (c, None),
        };
        // A step's count stays a number.
        let after_step = i > 0 && out.ends_with('/');
        match word.parse::<usize>() {
            Ok(n) if !after_step => out.push_str(DAYS[n % 7]),
            _ => out.push_str(&word.to_ascii_uppercase()),
        }
        out.extend(sep);
    }
    out
}

/// One cron field as a bit set of `lo..=hi`: `*`, `n`, `a-b`, each with `/step`, joined by `,`;
/// `names` spell `lo`, `lo + 1`, ... by name.
fn field(text: &str, what: &str, lo: u32, hi: u32, names: &[&str]) -> Result<u64, String> {
    let value = |w: &str| -> Result<u32, String> {
        let upper = w.to_ascii_uppercase();
        if let Some(i) = names.iter().position(|n| *n == upper) {
            return Ok(lo + u32::try_from(i).unwrap_or(0));
        }
        match w.parse::<u32>() {
            Ok(v) if (lo..=hi).contains(&v) => Ok(v),
            _ => Err(format!("`{w}` is not a {what} ({lo}-{hi})")),
        }
    };
    let mut bits = 0u64;
    for part in text.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((r, s)) => match s.parse::<u32>() {
                Ok(s) if s > 0 => (r, s),
                _ => return Err(format!("`{s}` is not a step of the {what}")),
            },
            None => (part, 1),
        };
        let (a, b) = match range {
            "*" => (lo, hi),
            r => match r.split_once('-') {
                Some((a, b)) => (value(a)?, value(b)?),
                None if step > 1 => (value(r)?, hi),
                None => {
                    let v = value(r)?;
                    (v, v)
                }
            },
        };
        if a > b {
            return Err(format!("the {what} range `{range}` runs backwards"));
        }
        bits |= (a..=b).step_by(step as usize).fold(0, |acc, v| acc | 1 << v);
    }
    Ok(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crons_read_and_their_eventbridge_form() {
        let c = Cron::parse("0 3 * * *").unwrap();
        assert_eq!(c.eventbridge(), "cron(0 3 * * ? *)");
        assert!(c.matches((1, 1, 0), (3, 0)) && !c.matches((1, 1, 0), (3, 1)));
        let c = Cron::parse("30 7 * * 1-5").unwrap();
        assert_eq!(c.eventbridge(), "cron(30 7 ? * MON-FRI *)");
        assert!(c.matches((6, 2, 1), (7, 30)) && !c.matches((6, 7, 0), (7, 30)));
        let c = Cron::parse("*/15 * 1 jan,jul *").unwrap();
        assert_eq!(c.minutes, 1 | 1 << 15 | 1 << 30 | 1 << 45);
        assert_eq!(c.months, 1 << 1 | 1 << 7);
        assert_eq!(Cron::parse("0 0 * * 7").unwrap().days_of_week, 1);
        for bad in ["0 3 * *", "60 3 * * *", "0 3 1 * 1", "0 5-3 * * *", "0 3 * * */0", "x 3 * * *"] {
            assert!(Cron::parse(bad).is_err(), "{bad}");
        }
    }
}
