//! A workload's `schedules`: each a cron in a timezone, the command its run starts with, and
//! how long a run may take.

use crate::SmallMap;
use crate::diagnostic::Code;
use crate::model::*;
use crate::read::{Cx, Fields, join, quote};
use crate::tree::Node;
use crate::values::{Duration, is_valid_name};

use super::scaling::timezone;
use super::words::{Words, words};
use super::{duration, keys};

/// `schedules.<name>.command`.
const COMMAND: Words = Words {
    key: "command",
    empty: "the schedule's command is empty",
    word: "a command word",
    help: "write the command word by word, e.g. `command: [\"./export\", \"--nightly\"]`",
};

/// `schedules`: by name, each valid; `None` when any is not.
pub(super) fn schedules(cx: &mut Cx<'_>, f: &Fields<'_>, path: &str) -> Option<SmallMap<Schedule>> {
    let mut out = SmallMap::new();
    let Some(n) = f.get("schedules") else { return Some(out) };
    let sp = join(path, "schedules");
    let mut bad = false;
    for (name, k, v) in cx.named_map(n, &sp, "`schedules`") {
        let p = join(&sp, name);
        if !is_valid_name(name) {
            cx.error(
                Code::InvalidName,
                k,
                &p,
                format!("schedule name {} is not a valid name", quote(name)),
                Some(
                    "use lowercase letters, digits and `-`, starting with a letter, e.g. `nightly-export`"
                        .to_owned(),
                ),
            );
            bad = true;
            continue;
        }
        match schedule(cx, v, &p) {
            Some(s) => {
                out.insert(name.to_owned(), s);
            }
            None => bad = true,
        }
    }
    (!bad).then_some(out)
}

/// One schedule: `cron` and `command` required, `timezone` (default `UTC`), `timeout`
/// required, whole seconds from 1m to a day.
fn schedule(cx: &mut Cx<'_>, n: &Node, p: &str) -> Option<Schedule> {
    let f = cx.fields(n, p, "a schedule", keys::SCHEDULE)?;
    let cron = cx
        .require(&f, p, "a schedule", "cron", "add `cron: \"0 3 * * *\"` (minute hour day month weekday)")
        .and_then(|c| cron(cx, c, &join(p, "cron")));
    let timezone =
        f.get("timezone").map_or(Some("UTC".to_owned()), |t| timezone(cx, t, &join(p, "timezone")));
    let command = cx
        .require(&f, p, "a schedule", "command", COMMAND.help)
        .and_then(|c| words(cx, c, &join(p, "command"), &COMMAND));
    let timeout = cx
        .require(&f, p, "a schedule", "timeout", "add `timeout: 30m`, the longest a run may take")
        .and_then(|t| timeout(cx, t, &join(p, "timeout")));
    Some(Schedule { cron: cron?, timezone: timezone?, command: command?, timeout: timeout? })
}

/// `cron`: five fields.
fn cron(cx: &mut Cx<'_>, n: &Node, p: &str) -> Option<Cron> {
    let text = cx.string(n, p, "`cron`")?;
    match Cron::parse(&text) {
        Ok(c) => Some(c),
        Err(e) => {
            let help = "write five fields, minute hour day-of-month month day-of-week, e.g. `0 3 * * *` \
                        (03:00 every day) or `30 6 * * MON-FRI`"
                .to_owned();
            cx.invalid(n, p, format!("{} is not a cron: {e}", quote(&text)), Some(help));
            None
        }
    }
}

/// `timeout`: whole seconds, 1m..=24h.
fn timeout(cx: &mut Cx<'_>, n: &Node, p: &str) -> Option<Duration> {
    let d = duration(cx, n, p, "`timeout`")?;
    let secs = d.as_millis() / 1000;
    if d.as_millis() % 1000 == 0 && (60..=MAX_SCHEDULE_TIMEOUT_SECONDS).contains(&secs) {
        return Some(d);
    }
    let help = "write whole seconds from 1m to 24h, e.g. `timeout: 30m`".to_owned();
    cx.invalid(n, p, format!("schedule timeout {d} is outside 1m..24h or not whole seconds"), Some(help));
    None
}
