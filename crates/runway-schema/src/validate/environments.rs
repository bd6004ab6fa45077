//! One environment of the root: region, limits, shared sizes, domain, logs and network.

use indexmap::IndexMap;

use crate::Location;
use crate::diagnostic::did_you_mean;
use crate::model::*;
use crate::read::{Cx, join, quote};
use crate::tree::{Node, Value};
use crate::values::Money;

use super::{Known, engine_of, keys, size_value};

pub(super) fn environment(
    cx: &mut Cx<'_>,
    name: &str,
    key: &Node,
    node: &Node,
    path: &str,
    known: &Known<'_>,
    shared_nodes: &mut Vec<(String, Engine, Node)>,
) -> Option<Environment> {
    let what = format!("environment `{name}`");
    let f = cx.fields(node, path, &what, keys::ENVIRONMENT)?;
    let region = cx
        .require(&f, path, &what, "region", "add `region: <aws-region>`, e.g. `region: eu-central-1`")
        .and_then(|r| {
            let region = cx.string(r, &join(path, "region"), "`region`")?;
            if known.regions.is_empty() || known.regions.contains(&region) {
                return Some(region);
            }
            let help = match did_you_mean(&region, known.regions.iter().map(String::as_str)) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("the catalogue prices: {}", known.regions.join(", ")),
            };
            cx.invalid(
                r,
                &join(path, "region"),
                format!("region {} is not priced by the catalogue", quote(&region)),
                Some(help),
            );
            None
        });
    let (monthly_limit, limit_at, increase_limit) =
        f.get("limits").map_or((None, None, None), |l| limits(cx, l, &join(path, "limits")));
    let mut shared = IndexMap::new();
    if let Some(s) = f.get("shared") {
        let sp = join(path, "shared");
        if let Some(sf) = cx.fields(s, &sp, "`shared`", keys::SHARED) {
            for (engine_name, k, v) in &sf.entries {
                let Some(engine) = engine_of(engine_name) else { continue };
                if let Some(size) = size_value(cx, v, &join(&sp, engine_name), known) {
                    shared.insert(engine, size);
                    shared_nodes.push((name.to_owned(), engine, (*k).clone()));
                }
            }
        }
    }
    let domain = f.get("domain").and_then(|d| {
        let dp = join(path, "domain");
        let text = cx.string(d, &dp, "`domain`")?;
        let ok = text.len() <= 253
            && text.split('.').count() >= 2
            && text.split('.').all(|l| {
                !l.is_empty()
                    && l.len() <= 63
                    && !l.starts_with('-')
                    && !l.ends_with('-')
                    && l.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            });
        if ok {
            Some(text)
        } else {
            cx.invalid(
                d,
                &dp,
                format!("{} is not a DNS domain", quote(&text)),
                Some("write a lowercase domain such as `dev.acme.example`".to_owned()),
            );
            None
        }
    });
    let log_retention_days = f.get("logs").and_then(|l| log_retention(cx, l, &join(path, "logs")));
    let network = f.get("network").map_or_else(Network::default, |n| network(cx, n, &join(path, "network")));
    let apply_changes = f.get("applyChanges").and_then(|a| {
        let word = cx.one_of(a, &join(path, "applyChanges"), "`applyChanges`", ApplyChanges::NAMES)?;
        ApplyChanges::from_name(word)
    });
    Some(Environment {
        region: region?,
        monthly_limit,
        shared,
        domain,
        at: cx.loc(key),
        limit_at,
        increase_limit,
        log_retention_days,
        network,
        apply_changes,
    })
}

/// `network`: whether the environment's private subnets get VPC endpoints, and over how many
/// zones (what their hours are billed by).
fn network(cx: &mut Cx<'_>, node: &Node, path: &str) -> Network {
    let mut out = Network::default();
    let Some(f) = cx.fields(node, path, "`network`", keys::NETWORK) else { return out };
    if let Some(e) = f.get("endpoints") {
        out.endpoints = endpoints(cx, e, &join(path, "endpoints")).unwrap_or(Endpoints::None);
    }
    if let Some(z) = f.get("zones") {
        let (min, max) = (u64::from(MIN_ZONES), u64::from(MAX_ZONES));
        if let Some(zones) = cx.uint(z, &join(path, "zones"), "`zones`", min, max) {
            out.zones = u32::try_from(zones).unwrap_or(MIN_ZONES);
        }
    }
    out
}

/// `network.endpoints`: `true`, `false` or `existing`.
fn endpoints(cx: &mut Cx<'_>, node: &Node, path: &str) -> Option<Endpoints> {
    match &node.value {
        Value::Bool(true) => return Some(Endpoints::Declared),
        Value::Bool(false) => return Some(Endpoints::None),
        Value::Str(s) if s.as_str() == "existing" => return Some(Endpoints::Existing),
        _ => {}
    }
    let found = node.scalar_text().map_or_else(|| node.describe().to_string(), |t| quote(&t));
    let help = match node.scalar_text().and_then(|t| did_you_mean(&t, ["existing", "true", "false"])) {
        Some(s) => format!("did you mean `{s}`?"),
        None => {
            "write `true` (the program declares them), `existing` (the VPC has them) or `false`".to_owned()
        }
    };
    cx.invalid(
        node,
        path,
        format!("`endpoints` must be true, false or `existing`, found {found}"),
        Some(help),
    );
    None
}

/// `logs.retentionDays`: one of the values CloudWatch Logs accepts.
fn log_retention(cx: &mut Cx<'_>, node: &Node, path: &str) -> Option<u32> {
    let f = cx.fields(node, path, "`logs`", keys::LOGS)?;
    let days = f.get("retentionDays")?;
    let dp = join(path, "retentionDays");
    let accepted = match &days.value {
        Value::Int(i) => u32::try_from(i.get()).ok().filter(|d| LOG_RETENTION_DAYS.contains(d)),
        _ => None,
    };
    if accepted.is_none() {
        let list: Vec<String> = LOG_RETENTION_DAYS.iter().map(u32::to_string).collect();
        cx.invalid(
            days,
            &dp,
            format!(
                "`retentionDays` must be a number of days CloudWatch Logs accepts, found {}",
                days.scalar_text().map_or_else(|| days.describe().to_string(), |t| quote(&t))
            ),
            Some(format!("use one of {}", list.join(", "))),
        );
    }
    accepted
}

/// `limits`: the monthly cap (and where it is written) and the rise allowed in review.
fn limits(cx: &mut Cx, limits: &Node, lp: &str) -> (Option<Money>, Option<Location>, Option<Increase>) {
    let Some(lf) = cx.fields(limits, lp, "`limits`", keys::LIMITS) else { return (None, None, None) };
    let (mut monthly_limit, mut limit_at) = (None, None);
    if let Some(m) = lf.get("monthly") {
        limit_at = Some(cx.loc(m));
        monthly_limit = dollars(cx, m, &join(lp, "monthly"), "`monthly`", "the cap");
    }
    let increase = lf.get("increase").and_then(|i| increase(cx, i, &join(lp, "increase")));
    (monthly_limit, limit_at, increase)
}

/// An amount of US dollars, as a number or a decimal string.
fn dollars(cx: &mut Cx, m: &Node, mp: &str, what: &str, meaning: &str) -> Option<Money> {
    let text = match &m.value {
        Value::Int(i) => Some(i.get().to_string()),
        Value::Float(x) if x.is_finite() => Some(x.to_string()),
        Value::Str(s) => Some(s.to_string()),
        _ => None,
    };
    let example = what.trim_matches('`');
    match text.map(|t| Money::parse(&t)) {
        Some(Ok(money)) => Some(money),
        Some(Err(e)) => {
            cx.invalid(
                m,
                mp,
                e.to_string(),
                Some(format!("write {meaning} in US dollars, e.g. `{example}: 150`")),
            );
            None
        }
        None => {
            let message = format!("{what} must be an amount of US dollars, found {}", m.describe());
            cx.invalid(m, mp, message, Some(format!("write e.g. `{example}: 150`")));
            None
        }
    }
}

/// `limits.increase`: dollars (`50`) or a percentage of the base's estimate (`"20%"`).
fn increase(cx: &mut Cx, i: &Node, ip: &str) -> Option<Increase> {
    if let Value::Str(s) = &i.value
        && let Some(number) = s.strip_suffix('%')
    {
        return match Money::parse(number) {
            Ok(p) => Some(Increase::Percent(p)),
            Err(_) => {
                let message = format!("{} is not a percentage", quote(s));
                cx.invalid(
                    i,
                    ip,
                    message,
                    Some("write e.g. `increase: 20%` or dollars, `increase: 50`".to_owned()),
                );
                None
            }
        };
    }
    dollars(cx, i, ip, "`increase`", "the rise").map(Increase::Dollars)
}
