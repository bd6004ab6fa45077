//! A workload's release strategy per environment (`deploy.<env>`), checked against the bounds
//! ECS takes (`CanaryConfiguration`, `LinearConfiguration`, `bakeTimeInMinutes`).

use crate::SmallMap;
use crate::diagnostic::{Code, did_you_mean};
use crate::model::*;
use crate::read::{Cx, Fields, join, quote};
use crate::tree::Node;

use super::{duration, env_keys, keys};

/// `deploy`: per declared environment, a strategy and its settings. A strategy other than
/// rolling shifts traffic between two target groups of the ALB: an internal workload (`expose`
/// not `public`; `None` when `expose` is invalid) has none, and is refused one.
pub(super) fn deploys(
    cx: &mut Cx<'_>,
    f: &Fields<'_>,
    path: &str,
    envs: &[String],
    expose: Option<Expose>,
) -> SmallMap<Deploy> {
    let mut out = SmallMap::new();
    let Some(n) = f.get("deploy") else { return out };
    let dp = join(path, "deploy");
    for (env_name, _, v) in env_keys(cx, n, &dp, "`deploy`", envs) {
        let p = join(&dp, &env_name);
        let Some(d) = deploy(cx, v, &p) else { continue };
        if d.strategy != Strategy::Rolling && expose == Some(Expose::Internal) {
            cx.error(
                Code::InvalidDeploy,
                v,
                &p,
                format!(
                    "the `{}` strategy needs a load balancer; this workload is internal",
                    d.strategy.as_str()
                ),
                Some(
                    "ECS shifts a release's traffic between two ALB target groups: write `expose: public`, \
                     or `strategy: rolling` for an internal workload"
                        .to_owned(),
                ),
            );
            continue;
        }
        out.insert(env_name, d);
    }
    out
}

/// One environment's strategy: `strategy` required; `percent` and `step` for canary and
/// linear only, `bake` for every strategy but rolling; ECS's defaults for what is left out.
fn deploy(cx: &mut Cx<'_>, v: &Node, p: &str) -> Option<Deploy> {
    let f = cx.fields(v, p, "a release strategy", keys::DEPLOY)?;
    let help = format!("add `strategy:` one of {}", Strategy::NAMES.join(", "));
    let s = cx.require(&f, p, "a release strategy", "strategy", &help)?;
    let strategy = strategy(cx, s, &join(p, "strategy"))?;
    let mut ok = true;
    for key in ["percent", "step", "bake"] {
        let Some(n) = f.get(key) else { continue };
        let takes = match strategy {
            Strategy::Rolling => false,
            Strategy::BlueGreen => key == "bake",
            Strategy::Canary | Strategy::Linear => true,
        };
        if !takes {
            ok = false;
            let help = match strategy {
                Strategy::Rolling => "a rolling update has no traffic shifts or bake: remove it, or choose \
                                      `canary`, `linear` or `blue-green`"
                    .to_owned(),
                _ => "blue/green shifts all traffic at once: remove it, or choose `canary` or `linear`"
                    .to_owned(),
            };
            cx.error(
                Code::InvalidDeploy,
                n,
                &join(p, key),
                format!("`{key}` does not apply to the `{}` strategy", strategy.as_str()),
                Some(help),
            );
        }
    }
    if !ok {
        return None;
    }
    let (percent_default, percent_min, step_default) = match strategy {
        Strategy::Canary => (50, 1, 10),
        Strategy::Linear => (100, 30, 6),
        Strategy::Rolling | Strategy::BlueGreen => (0, 0, 0),
    };
    let percent_tenths = match f.get("percent") {
        None => Some(percent_default),
        Some(n) => percent(cx, n, &join(p, "percent"), strategy, percent_min),
    };
    let step_minutes = minutes(cx, f.get("step"), &join(p, "step"), "step", step_default);
    let bake_default = if strategy == Strategy::Rolling { 0 } else { DEFAULT_BAKE_MINUTES };
    let bake_minutes = minutes(cx, f.get("bake"), &join(p, "bake"), "bake", bake_default);
    Some(Deploy {
        strategy,
        percent_tenths: percent_tenths?,
        step_minutes: step_minutes?,
        bake_minutes: bake_minutes?,
    })
}

/// `strategy`: one of the four names, with a suggestion for a near miss.
fn strategy(cx: &mut Cx<'_>, n: &Node, p: &str) -> Option<Strategy> {
    let text = cx.text(n, p, "`strategy`")?;
    if let Some(s) = Strategy::ALL.into_iter().find(|s| s.as_str() == text) {
        return Some(s);
    }
    let help = match text.to_ascii_lowercase().replace('_', "-").as_str() {
        "bluegreen" | "blue-green" | "blue/green" => "write `blue-green`".to_owned(),
        _ => match did_you_mean(&text, Strategy::NAMES.iter().copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("write one of: {}", Strategy::NAMES.join(", ")),
        },
    };
    cx.error(Code::InvalidDeploy, n, p, format!("{} is not a release strategy", quote(&text)), Some(help));
    None
}

/// `percent`: a number (`10`, `2.5`, `"10%"`), a multiple of 0.1 from `min` tenths to 100, as
/// ECS takes it (canary from 0.1, linear from 3).
fn percent(cx: &mut Cx<'_>, n: &Node, p: &str, strategy: Strategy, min: u16) -> Option<u16> {
    let text = n.scalar_text().unwrap_or_default();
    let tenths = tenths(text.strip_suffix('%').unwrap_or(&text));
    if let Some(t) = tenths.filter(|t| (min..=1000).contains(t)) {
        return Some(t);
    }
    let lo = format!("{}.{}", min / 10, min % 10);
    let what = match strategy {
        Strategy::Linear => "each linear step",
        _ => "the canary",
    };
    let numeric =
        !text.is_empty() && text.trim_end_matches('%').bytes().all(|b| b.is_ascii_digit() || b == b'.');
    let message = match tenths {
        Some(_) => format!("`percent` {text} is outside {lo}..100 for {what}"),
        None if numeric => format!("`percent` {text} is not a multiple of 0.1"),
        None => format!("`percent` must be a percentage, found {}", n.describe()),
    };
    let help = format!("write a multiple of 0.1 from {lo} to 100, e.g. `percent: 10` (ECS's bounds)");
    cx.error(Code::InvalidDeploy, n, p, message, Some(help));
    None
}

/// A decimal with at most one digit after the point, in tenths (`2.5` -> 25).
fn tenths(text: &str) -> Option<u16> {
    let (whole, fraction) = text.trim().split_once('.').unwrap_or((text.trim(), "0"));
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(fraction) || fraction.len() > 1 || whole.len() > 4 {
        return None;
    }
    Some(whole.parse::<u16>().ok()? * 10 + fraction.parse::<u16>().ok()?)
}

/// `step` or `bake`: whole minutes from 0 to 24 hours (ECS's bounds); `default` when absent.
fn minutes(cx: &mut Cx<'_>, n: Option<&Node>, p: &str, key: &str, default: u32) -> Option<u32> {
    let Some(n) = n else { return Some(default) };
    let d = duration(cx, n, p, &format!("`{key}`"))?;
    let ms = d.as_millis();
    if ms % 60_000 == 0 && ms / 60_000 <= u64::from(MAX_BAKE_MINUTES) {
        return u32::try_from(ms / 60_000).ok();
    }
    cx.error(
        Code::InvalidDeploy,
        n,
        p,
        format!("`{key}` {d} is not whole minutes from 0m to 24h"),
        Some(format!("write whole minutes up to 24h, e.g. `{key}: 10m` (ECS counts bakes in minutes)")),
    );
    None
}

#[cfg(test)]
mod tests {
    use super::tenths;

    #[test]
    fn percentages_are_read_in_tenths() {
        assert_eq!(tenths("10"), Some(100));
        assert_eq!(tenths("2.5"), Some(25));
        assert_eq!(tenths("0.1"), Some(1));
        for bad in ["", "1.25", "-3", "ten", "1e2", ".5", "5."] {
            assert_eq!(tenths(bad), None, "{bad}");
        }
    }
}
