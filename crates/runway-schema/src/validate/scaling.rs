//! A workload's scale per environment: `min`..`max`, the metrics it follows (`on`) and the
//! hours it runs (`active`); and a timezone's name, which schedules read too.

use indexmap::IndexMap;

use crate::SmallMap;
use crate::diagnostic::{Code, did_you_mean};
use crate::model::*;
use crate::read::{Cx, Fields, join, quote};
use crate::tree::{Node, Value};

use super::{env_keys, keys};

/// What a workload's scale may follow: whether it is public (requests), the queues it uses.
pub(super) struct Reach<'a> {
    pub public: bool,
    pub queues: &'a [String],
}

/// `scale`: per declared environment, a valid `min`..`max` (the `Scale`) and what it follows
/// and when it runs (the `Scaling`, only for the environments that write `on` or `active`).
pub(super) fn scales(
    cx: &mut Cx<'_>,
    f: &Fields<'_>,
    path: &str,
    envs: &[String],
    reach: &Reach<'_>,
) -> (SmallMap<Scale>, SmallMap<Scaling>) {
    // The scales as a vector of their exact size, moved into the map (sixth pass); what they
    // follow, rarer, inserted.
    let (mut out, mut scaling) = (Vec::new(), SmallMap::new());
    let Some(n) = f.get("scale") else { return (SmallMap::new(), scaling) };
    let sp = join(path, "scale");
    let entries = env_keys(cx, n, &sp, "`scale`", envs);
    out.reserve_exact(entries.len());
    for (env_name, _, v) in entries {
        if let Some((s, how)) = scale(cx, v, &join(&sp, &env_name), &env_name, reach) {
            out.push((env_name.clone(), s));
            if how != Scaling::default() {
                scaling.insert(env_name, how);
            }
        }
    }
    (SmallMap::from(out), scaling)
}

/// One environment's scale: whole numbers (1 when left out), `min` at most `max`, `max` at
/// least 1; `min: 0` only outside production and with `active` hours (target tracking cannot
/// start a first task); `active` only outside production.
fn scale(cx: &mut Cx<'_>, v: &Node, p: &str, env_name: &str, reach: &Reach<'_>) -> Option<(Scale, Scaling)> {
    let sf = cx.fields(v, p, "a scale", keys::SCALE)?;
    let min = count(cx, &sf, p, "min");
    let max = count(cx, &sf, p, "max");
    let on = present(sf.get("on").map(|n| scale_on(cx, n, &join(p, "on"), reach)));
    let active = present(sf.get("active").map(|n| active(cx, n, &join(p, "active"))));
    let (Some(min), Some(max), Some(on), Some(active)) = (min, max, on, active) else {
        return None;
    };
    let (min_v, max_v) = (min.map_or(1, |m| m.0), max.map_or(1, |m| m.0));
    let production = env_name == "production";
    let refuse = |cx: &mut Cx<'_>, at: &Node, key: &str, message: String, help: &str| {
        cx.error(Code::InvalidScale, at, &join(p, key), message, Some(help.to_owned()));
        None
    };
    if let (true, Some(n)) = (production, sf.get("active")) {
        return refuse(
            cx,
            n,
            "active",
            "production runs all the time: `active` hours are for other environments".to_owned(),
            "remove `active` from `production`'s scale",
        );
    }
    if min_v == 0 && production {
        return refuse(
            cx,
            min.map_or(v, |m| m.1),
            "min",
            "scale min is 0 in production; production keeps at least one task".to_owned(),
            "write `min: 1` or more",
        );
    }
    if min_v == 0 && active.is_none() {
        return refuse(
            cx,
            min.map_or(v, |m| m.1),
            "min",
            "scale min is 0 without `active` hours: nothing would ever start a task".to_owned(),
            "add `active: { days: Mon-Fri, hours: 07:00-20:00, timezone: Europe/Berlin }`, or write `min: 1`",
        );
    }
    if min_v > max_v {
        let at = max.map_or(v, |m| m.1);
        cx.error(
            Code::InvalidScale,
            at,
            p,
            format!("scale min {min_v} is greater than max {max_v}"),
            Some(format!("raise `max` to at least {min_v} or lower `min`")),
        );
        return None;
    }
    if max_v < 1 {
        let at = max.map_or(v, |m| m.1);
        return refuse(
            cx,
            at,
            "max",
            "scale max is 0: no task would ever run".to_owned(),
            "write `max: 1` or more",
        );
    }
    Some((Scale { min: min_v, max: max_v }, Scaling { on, active }))
}

/// An optional key's value: `Some(None)` when absent, `Some(Some(v))` when valid, `None` when
/// written and invalid.
fn present<T>(read: Option<Option<T>>) -> Option<Option<T>> {
    match read {
        None => Some(None),
        Some(value) => value.map(Some),
    }
}

/// `min` or `max`: `Some(None)` when left out, `None` when not a whole number.
fn count<'n>(cx: &mut Cx<'_>, sf: &Fields<'n>, p: &str, key: &str) -> Option<Option<(u32, &'n Node)>> {
    let Some(node) = sf.get(key) else { return Some(None) };
    match &node.value {
        Value::Int(i) if i.get() >= 0 => Some(Some((u32::try_from(i.get()).unwrap_or(u32::MAX), node))),
        Value::Int(i) => {
            cx.error(
                Code::InvalidScale,
                node,
                &join(p, key),
                format!("scale {key} is {}; it must be 0 or more", i.get()),
                Some("write `min: 1` or more".to_owned()),
            );
            None
        }
        _ => {
            cx.invalid(
                node,
                &join(p, key),
                format!("`{key}` must be a whole number, found {}", node.describe()),
                None,
            );
            None
        }
    }
}

/// `on`: `cpu` and `memory` percentages, `requests` per target (public only), `queue` backlog
/// per task by queue the workload uses; at least one.
fn scale_on(cx: &mut Cx<'_>, n: &Node, p: &str, reach: &Reach<'_>) -> Option<ScaleOn> {
    let f = cx.fields(n, p, "`on`", keys::SCALE_ON)?;
    let cpu = present(f.get("cpu").map(|n| percent(cx, n, &join(p, "cpu"), "cpu")));
    let memory = present(f.get("memory").map(|n| percent(cx, n, &join(p, "memory"), "memory")));
    let requests = present(f.get("requests").map(|n| {
        let rp = join(p, "requests");
        let v = cx.uint(n, &rp, "`requests`", 1, 1_000_000).and_then(|v| u32::try_from(v).ok())?;
        if !reach.public {
            cx.error(
                Code::InvalidScale,
                n,
                &rp,
                "`requests` counts the load balancer's requests per task; this workload is not public"
                    .to_owned(),
                Some("follow `cpu`, `memory` or a `queue` instead, or make it `expose: public`".to_owned()),
            );
            return None;
        }
        Some(v)
    }));
    let queue = f.get("queue").map_or(Some(IndexMap::new()), |n| queues(cx, n, &join(p, "queue"), reach));
    let on = ScaleOn { cpu: cpu?, memory: memory?, requests: requests?, queue: queue? };
    if on == ScaleOn::default() {
        cx.error(
            Code::InvalidScale,
            n,
            p,
            "`on` names no metric to follow".to_owned(),
            Some(
                "write at least one of `cpu: 60%`, `memory: 70%`, `requests: 500`, `queue: { <queue>: 100 }`"
                    .to_owned(),
            ),
        );
        return None;
    }
    Some(on)
}

/// `queue: { <queue>: <messages per task> }`: each a queue the workload uses.
fn queues(cx: &mut Cx<'_>, n: &Node, p: &str, reach: &Reach<'_>) -> Option<IndexMap<String, u32>> {
    let mut out = IndexMap::new();
    let mut bad = false;
    for (name, k, v) in cx.named_map(n, p, "`queue`") {
        let qp = join(p, name);
        if !reach.queues.iter().any(|q| q == name) {
            let help = match did_you_mean(name, reach.queues.iter().map(String::as_str)) {
                Some(s) => format!("did you mean `{s}`?"),
                None if reach.queues.is_empty() => "add the queue to `uses` first".to_owned(),
                None => format!("it uses the queues: {}", reach.queues.join(", ")),
            };
            let message = format!("{} is not a queue this workload uses", quote(name));
            cx.error(Code::UnknownResource, k, &qp, message, Some(help));
            bad = true;
            continue;
        }
        match cx.uint(v, &qp, "a backlog per task", 1, 1_000_000).and_then(|b| u32::try_from(b).ok()) {
            Some(b) => {
                out.insert(name.to_owned(), b);
            }
            None => bad = true,
        }
    }
    (!bad).then_some(out)
}

/// A percentage, `60%` or `60`, within 1..=100.
fn percent(cx: &mut Cx<'_>, n: &Node, p: &str, key: &str) -> Option<u32> {
    let number = match &n.value {
        Value::Int(i) => u32::try_from(i.get()).ok(),
        Value::Str(s) => s.strip_suffix('%').and_then(|t| t.trim().parse::<u32>().ok()),
        _ => None,
    };
    match number {
        Some(v @ 1..=100) => Some(v),
        _ => {
            let help = format!("write a whole percentage from 1% to 100%, e.g. `{key}: 60%`");
            cx.invalid(n, p, format!("`{key}` must be a percentage, found {}", n.describe()), Some(help));
            None
        }
    }
}

/// `active: { days, hours, timezone }`: `days` Mon-Fri style (default every day), `hours`
/// `HH:MM-HH:MM` within a day, `timezone` an IANA name (default `UTC`).
fn active(cx: &mut Cx<'_>, n: &Node, p: &str) -> Option<Active> {
    let f = cx.fields(n, p, "`active`", keys::ACTIVE)?;
    let days = f.get("days").map_or(Some([true; 7]), |d| days(cx, d, &join(p, "days")));
    let hours = cx
        .require(&f, p, "`active`", "hours", "add `hours: 07:00-20:00`, the hours it runs")
        .and_then(|h| hours(cx, h, &join(p, "hours")));
    let timezone =
        f.get("timezone").map_or(Some("UTC".to_owned()), |t| timezone(cx, t, &join(p, "timezone")));
    let (from_minute, to_minute) = hours?;
    Some(Active { days: days?, from_minute, to_minute, timezone: timezone? })
}

/// `days`: weekday names (`Mon`..`Sun`), ranges (`Mon-Fri`) and lists (`Mon,Wed`).
fn days(cx: &mut Cx<'_>, n: &Node, p: &str) -> Option<[bool; 7]> {
    let text = cx.string(n, p, "`days`")?;
    let day = |w: &str| WEEKDAYS.iter().position(|d| d.eq_ignore_ascii_case(w.trim()));
    let mut out = [false; 7];
    for part in text.split(',') {
        let range = match part.split_once('-') {
            Some((a, b)) => day(a).zip(day(b)).filter(|(a, b)| a <= b),
            None => day(part).map(|d| (d, d)),
        };
        let Some((a, b)) = range else {
            let help = "write days as `Mon-Fri`, `Sat,Sun` or `Mon-Wed,Fri` (Monday first)".to_owned();
            cx.invalid(n, p, format!("{} is not a list of days", quote(&text)), Some(help));
            return None;
        };
        out[a..=b].iter_mut().for_each(|d| *d = true);
    }
    Some(out)
}

/// `hours`: `HH:MM-HH:MM`, the start before the end (`24:00` ends the day).
fn hours(cx: &mut Cx<'_>, n: &Node, p: &str) -> Option<(u32, u32)> {
    let text = cx.string(n, p, "`hours`")?;
    let minute = |t: &str| -> Option<u32> {
        let (h, m) = t.trim().split_once(':')?;
        let (h, m) = (h.parse::<u32>().ok()?, m.parse::<u32>().ok()?);
        (m < 60 && (h < 24 || (h == 24 && m == 0)) && t.trim().len() == 5).then_some(h * 60 + m)
    };
    match text.split_once('-').and_then(|(a, b)| minute(a).zip(minute(b))) {
        Some((a, b)) if a < b => Some((a, b)),
        _ => {
            let help = "write `HH:MM-HH:MM` with the start first, e.g. `07:00-20:00`".to_owned();
            cx.invalid(n, p, format!("{} is not a span of hours in one day", quote(&text)), Some(help));
            None
        }
    }
}

/// A timezone: an IANA name the bundled database knows (`Europe/Berlin`, `UTC`).
pub(super) fn timezone(cx: &mut Cx<'_>, n: &Node, p: &str) -> Option<String> {
    let text = cx.string(n, p, "a timezone")?;
    if jiff::tz::db().get(&text).is_ok() {
        return Some(text);
    }
    let help = "write an IANA timezone name, e.g. `Europe/Berlin`, `America/New_York` or `UTC`".to_owned();
    cx.invalid(n, p, format!("{} is not a timezone", quote(&text)), Some(help));
    None
}
