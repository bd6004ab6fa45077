//! How a workload is checked: its health check, and the reason a self-hosted engine is run
//! as a workload. (Its scale is in `scaling.rs`.)

use crate::diagnostic::Code;
use crate::model::*;
use crate::read::{Cx, Fields, index, join, quote};
use crate::tree::{Node, Value};
use crate::values::Duration;

use super::{GROUNDS, duration, keys};

/// What `health` declares: a check, or none (`health: { none: <why> }`) with the reason.
pub(super) enum Declared {
    /// A check, HTTP or command.
    Check(Health),
    /// No check, and why (a worker whose exit ECS sees).
    Unchecked(String),
}

/// `health`: a check (`path` or `command` with its timings), or `none: <why>` alone.
pub(super) fn health(cx: &mut Cx<'_>, node: &Node, path: &str) -> Option<Declared> {
    let f = cx.fields(node, path, "`health`", keys::HEALTH)?;
    if let Some(n) = f.get("none") {
        return unchecked(cx, &f, n, path).map(Declared::Unchecked);
    }
    let check = match (f.get("path"), f.get("command")) {
        (Some(_), Some(c)) => {
            cx.error(
                Code::InvalidHealth,
                c,
                path,
                "a health check has both `path` and `command`".to_owned(),
                Some("keep `path` for an HTTP check or `command` for a command check, not both".to_owned()),
            );
            None
        }
        (None, None) => {
            cx.error(
                Code::InvalidHealth,
                node,
                path,
                "a health check has neither `path` nor `command`".to_owned(),
                Some("add `path: /health` or `command: [\"CMD\", \"...\"]`".to_owned()),
            );
            None
        }
        (Some(p), None) => cx.string(p, &join(path, "path"), "`path`").and_then(|t| {
            if t.starts_with('/') {
                Some(HealthCheck::Http(t))
            } else {
                cx.error(
                    Code::InvalidHealth,
                    p,
                    &join(path, "path"),
                    format!("health path {} must start with `/`", quote(&t)),
                    Some("write e.g. `path: /health`".to_owned()),
                );
                None
            }
        }),
        (None, Some(c)) => {
            let cp = join(path, "command");
            let items = cx.list(c, &cp, "`command`")?;
            let mut words = Vec::new();
            for (i, w) in items.iter().enumerate() {
                if let Some(t) = cx.text(w, &index(&cp, i), "a command word") {
                    words.push(t);
                }
            }
            if words.is_empty() {
                cx.error(
                    Code::InvalidHealth,
                    c,
                    &cp,
                    "the health command is empty".to_owned(),
                    Some("write e.g. `command: [\"CMD\", \"/bin/check\"]`".to_owned()),
                );
                None
            } else {
                Some(HealthCheck::Command(words))
            }
        }
    };
    // Whole seconds within what both the ALB and an ECS container health check take.
    let dur = |cx: &mut Cx<'_>, key: &str, default: u64, (min, max): (u64, u64)| -> Option<Duration> {
        f.get(key).map_or(Some(Duration::from_millis(default)), |n| {
            seconds_within(cx, n, &join(path, key), key, (min, max))
        })
    };
    let interval = dur(cx, "interval", 30_000, (5, 300));
    let timeout = dur(cx, "timeout", 5_000, (2, 60));
    let threshold = |cx: &mut Cx<'_>, key: &str, default: u32| -> Option<u32> {
        f.get(key).map_or(Some(default), |n| {
            cx.uint(n, &join(path, key), &format!("`{key}`"), 1, 10).and_then(|v| u32::try_from(v).ok())
        })
    };
    let healthy_threshold = threshold(cx, "healthyThreshold", 2);
    let unhealthy_threshold = threshold(cx, "unhealthyThreshold", 3);
    let grace = dur(cx, "grace", u64::from(DEFAULT_HEALTH_GRACE_SECONDS) * 1000, (0, MAX_GRACE));
    if let (Some(i), Some(t)) = (interval, timeout)
        && t >= i
    {
        cx.error(
            Code::InvalidHealth,
            node,
            path,
            format!("health timeout {t} is not shorter than the interval {i}"),
            Some("make `timeout` shorter than `interval`".to_owned()),
        );
        return None;
    }
    Some(Declared::Check(Health {
        check: check?,
        interval: interval?,
        timeout: timeout?,
        healthy_threshold: healthy_threshold?,
        unhealthy_threshold: unhealthy_threshold?,
        grace: grace?,
    }))
}

/// `health: { none: <why> }`: the reason, non-empty, and no other key beside it.
fn unchecked(cx: &mut Cx<'_>, f: &Fields<'_>, n: &Node, path: &str) -> Option<String> {
    let p = join(path, "none");
    if let Some((other, k, _)) = f.entries.iter().find(|(k, _, _)| *k != "none") {
        cx.error(
            Code::InvalidHealth,
            k,
            &join(path, other),
            format!("`health.none` declares no check, yet `{other}` is written beside it"),
            Some("keep `none: <why>` alone, or remove it and declare `command: [...]`".to_owned()),
        );
        return None;
    }
    let why = match &n.value {
        Value::Str(_) => cx.free_text(n, &p, "`health.none`")?,
        _ => {
            cx.error(
                Code::InvalidHealth,
                n,
                &p,
                format!("`health.none` is the reason there is no check, found {}", n.describe()),
                Some("write why, e.g. `none: drains a queue; ECS restarts it when it exits`".to_owned()),
            );
            return None;
        }
    };
    if why.trim().is_empty() {
        cx.error(
            Code::InvalidHealth,
            n,
            &p,
            "`health.none` gives no reason".to_owned(),
            Some("say why the workload needs no health check".to_owned()),
        );
        return None;
    }
    Some(why)
}

/// [`MAX_HEALTH_GRACE_SECONDS`] as the bound of a duration.
const MAX_GRACE: u64 = MAX_HEALTH_GRACE_SECONDS as u64;

/// A duration of `health`: whole seconds within `min..=max`. The interval (5s..300s) and the
/// timeout (2s..60s) are what an ALB target group and an ECS container health check both take;
/// the grace is bounded by [`MAX_HEALTH_GRACE_SECONDS`].
fn seconds_within(cx: &mut Cx<'_>, n: &Node, p: &str, key: &str, (min, max): (u64, u64)) -> Option<Duration> {
    // The three keys it is called for, quoted without a `format!` each (sixth pass).
    let what = match key {
        "interval" => std::borrow::Cow::Borrowed("`interval`"),
        "timeout" => "`timeout`".into(),
        "grace" => "`grace`".into(),
        _ => format!("`{key}`").into(),
    };
    let d = duration(cx, n, p, &what)?;
    if (min * 1000..=max * 1000).contains(&d.as_millis()) && d.as_millis() % 1000 == 0 {
        return Some(d);
    }
    let (lo, hi) = (Duration::from_millis(min * 1000), Duration::from_millis(max * 1000));
    let help = if key == "grace" {
        format!(
            "write whole seconds up to {hi}, e.g. `grace: 5m` for a tool that migrates its schema at boot"
        )
    } else {
        format!(
            "write whole seconds from {lo} to {hi}: the ALB and an ECS container health check take no other"
        )
    };
    cx.invalid(n, p, format!("health {key} {d} is outside {lo}..{hi} or not whole seconds"), Some(help));
    None
}

pub(super) fn reason(cx: &mut Cx<'_>, node: &Node, path: &str) -> Option<Reason> {
    if let Value::Str(s) = &node.value {
        if s.trim().is_empty() {
            cx.error(
                Code::MissingReason,
                node,
                path,
                "the reason is empty".to_owned(),
                Some("say why no managed service fits, with a ground".to_owned()),
            );
            return None;
        }
        cx.warning(
            Code::ReasonWithoutGround,
            node,
            path,
            "the reason is a plain string and names no ground".to_owned(),
            Some(
                "write `reason: { ground: no-managed-fit | residency | on-prem-parity, detail: ... }`"
                    .to_owned(),
            ),
        );
        return Some(Reason { ground: None, detail: s.to_string() });
    }
    let f = cx.fields(node, path, "`reason`", keys::REASON)?;
    let ground = cx
        .require(
            &f,
            path,
            "`reason`",
            "ground",
            "add `ground:` one of no-managed-fit, residency, on-prem-parity",
        )
        .and_then(|g| cx.one_of(g, &join(path, "ground"), "ground", GROUNDS))
        .map(|g| match g {
            "residency" => Ground::Residency,
            "on-prem-parity" => Ground::OnPremParity,
            _ => Ground::NoManagedFit,
        });
    let detail = cx
        .require(&f, path, "`reason`", "detail", "add `detail:` why no managed service fits")
        .and_then(|d| {
            let dp = join(path, "detail");
            // Free text, but a string: a number is reported as one.
            let t = match &d.value {
                Value::Str(_) => cx.free_text(d, &dp, "`detail`"),
                _ => cx.string(d, &dp, "`detail`"),
            }?;
            if t.trim().is_empty() {
                cx.error(
                    Code::MissingReason,
                    d,
                    &join(path, "detail"),
                    "the reason's detail is empty".to_owned(),
                    Some("say why no managed service fits".to_owned()),
                );
                None
            } else {
                Some(t)
            }
        });
    Some(Reason { ground: Some(ground?), detail: detail? })
}
