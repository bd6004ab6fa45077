//! `previews`: the environment previews share, how long they live, how many at once, the
//! pooled cap, the workloads they leave out and their Infisical environment.

use indexmap::IndexMap;

use crate::diagnostic::{Code, did_you_mean};
use crate::model::*;
use crate::read::{Cx, join, quote};
use crate::tree::{Node, Value};
use crate::values::{Duration, Money};

use super::environments::dollars;
use super::keys;

/// The shortest and longest `expireAfter`: an hour, thirty days.
const EXPIRE_BOUNDS: (u64, u64) = (3_600_000, 30 * 24 * 3_600_000);
/// The most live previews `max` may allow.
const MAX_PREVIEWS: u64 = 100;
/// The most secrets one RDS Proxy lists in its `auth` (Amazon RDS User Guide, "Quotas and
/// limitations for RDS Proxy").
pub const MAX_PROXY_SECRETS: usize = 200;

/// What `previews` is checked against: the declared environments (with their Infisical
/// slugs) and workloads.
pub(super) struct Declared<'a> {
    pub envs: &'a [String],
    pub workloads: &'a [&'a str],
    pub secrets: &'a Secrets,
}

/// Validates `previews`; `None` when it has an error (reported).
pub(super) fn previews(cx: &mut Cx<'_>, node: &Node, declared: &Declared<'_>) -> Option<Previews> {
    let p = "previews";
    let f = cx.fields(node, p, "`previews`", keys::PREVIEWS)?;
    let errors = cx.diags.iter().filter(|d| d.is_error()).count();
    let from = cx
        .require(&f, p, "`previews`", "from", "add `from: dev`: the environment previews share")
        .and_then(|n| from(cx, n, declared.envs));
    let expire_after = f.get("expireAfter").map_or(Some(DEFAULT_EXPIRE_AFTER), |n| expire_after(cx, n));
    let max = match f.get("max") {
        None => Some(DEFAULT_MAX_PREVIEWS),
        Some(n) => cx.uint(n, &join(p, "max"), "`max`", 1, MAX_PREVIEWS).and_then(|m| u32::try_from(m).ok()),
    };
    let monthly = cx
        .require(
            &f,
            p,
            "`previews`",
            "limits",
            "add `limits: { monthly: 120 }`: one cap for every live preview",
        )
        .and_then(|l| pooled_cap(cx, l));
    let workloads = f.get("workloads").map(|w| workloads(cx, w, declared.workloads)).unwrap_or_default();
    let slug = match f.get("infisicalEnvironment") {
        None => Some(DEFAULT_PREVIEW_INFISICAL.to_owned()),
        Some(n) => cx.string(n, &join(p, "infisicalEnvironment"), "an Infisical environment slug"),
    };
    let slug = slug.filter(|s| own_slug(cx, f.get("infisicalEnvironment").unwrap_or(node), s, declared));
    if cx.diags.iter().filter(|d| d.is_error()).count() > errors {
        return None;
    }
    Some(Previews {
        from: from?,
        expire_after: expire_after?,
        max: max?,
        monthly: monthly?,
        workloads,
        infisical_environment: slug?,
    })
}

/// `from`: a declared environment, and not production (a preview never shares its platform).
fn from(cx: &mut Cx<'_>, node: &Node, envs: &[String]) -> Option<String> {
    let path = "previews.from";
    let env = cx.string(node, path, "`from`")?;
    if !envs.contains(&env) {
        let help = match did_you_mean(&env, envs.iter().map(String::as_str)) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("declared environments: {}", envs.join(", ")),
        };
        cx.error(
            Code::UnknownEnvironment,
            node,
            path,
            format!("{} is not a declared environment", quote(&env)),
            Some(help),
        );
        return None;
    }
    if env == "production" {
        cx.invalid(
            node,
            path,
            "previews never share production's network, ALB, cluster or database".to_owned(),
            Some("write `from: dev` (or another environment that is not production)".to_owned()),
        );
        return None;
    }
    Some(env)
}

/// `expireAfter`: a whole number and a unit (`m`, `h`, `d`), from an hour to thirty days.
fn expire_after(cx: &mut Cx<'_>, node: &Node) -> Option<Duration> {
    let path = "previews.expireAfter";
    let text = cx.text(node, path, "`expireAfter`")?;
    let help = || Some("write a whole number and a unit: `12h`, `3d` (from 1h to 30d)".to_owned());
    let Some(millis) = parse_days(&text) else {
        cx.invalid(
            node,
            path,
            format!("`expireAfter` {} is not a duration with a unit", quote(&text)),
            help(),
        );
        return None;
    };
    if !(EXPIRE_BOUNDS.0..=EXPIRE_BOUNDS.1).contains(&millis) {
        cx.invalid(node, path, format!("`expireAfter` {} is not between 1h and 30d", quote(&text)), help());
        return None;
    }
    Some(Duration::from_millis(millis))
}

/// `45m`, `12h`, `3d` in milliseconds.
pub fn parse_days(text: &str) -> Option<u64> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (num, unit) = text.split_at(digits);
    if num.is_empty() || num.len() > 6 {
        return None;
    }
    let n: u64 = num.parse().ok()?;
    let factor = match unit {
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 24 * 3_600_000,
        _ => return None,
    };
    Some(n * factor)
}

/// `limits: { monthly: 120 }`: the pooled cap.
fn pooled_cap(cx: &mut Cx<'_>, node: &Node) -> Option<Money> {
    let lp = "previews.limits";
    let lf = cx.fields(node, lp, "`previews.limits`", keys::PREVIEW_LIMITS)?;
    let m = cx.require(&lf, lp, "`previews.limits`", "monthly", "add `monthly: 120`")?;
    dollars(cx, m, &join(lp, "monthly"), "`monthly`", "the pooled cap")
}

/// `workloads: { pdf-render: off }`: declared workloads, each `on` or `off`.
fn workloads(cx: &mut Cx<'_>, node: &Node, declared: &[&str]) -> IndexMap<String, bool> {
    let wp = "previews.workloads";
    let mut out = IndexMap::new();
    for (name, k, v) in cx.named_map(node, wp, "`previews.workloads`") {
        let path = join(wp, name);
        if !declared.contains(&name) {
            let help = match did_you_mean(name, declared.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None if declared.is_empty() => "the runway declares no workload".to_owned(),
                None => format!("declared workloads: {}", declared.join(", ")),
            };
            cx.error(
                Code::UnknownWorkload,
                k,
                &path,
                format!("{} is not a declared workload", quote(name)),
                Some(help),
            );
            continue;
        }
        let on = match &v.value {
            Value::Bool(b) => Some(*b),
            _ => cx.one_of(v, &path, "workload setting", &["on", "off"]).map(|w| w == "on"),
        };
        if let Some(on) = on {
            out.insert(name.to_owned(), on);
        }
    }
    out
}

/// The previews' Infisical environment is none of the declared environments' (production's
/// above all): a preview's values never land beside an environment's.
fn own_slug(cx: &mut Cx<'_>, node: &Node, slug: &str, declared: &Declared<'_>) -> bool {
    let mapped = |env: &str| -> String {
        declared
            .secrets
            .infisical
            .as_ref()
            .and_then(|i| i.environments.get(env).cloned())
            .unwrap_or_else(|| env.to_owned())
    };
    let Some(env) = declared.envs.iter().find(|e| mapped(e) == slug) else { return true };
    cx.invalid(
        node,
        "previews.infisicalEnvironment",
        format!("previews would keep their values in {}, the Infisical environment of `{env}`", quote(slug)),
        Some(
            "give previews an Infisical environment of their own, e.g. `infisicalEnvironment: preview`"
                .to_owned(),
        ),
    );
    false
}

/// Each postgres resource's RDS Proxy, shared by `from` and every live preview, lists the
/// admin's secret, `from`'s logins and each preview's (docs/previews.md, "The shared proxy's
/// logins"): `1 + c_from + max × c` must stay within [`MAX_PROXY_SECRETS`], `c_from` its
/// consumers in `from`, `c` those a preview keeps (`previews.workloads` may leave some out;
/// members always run). Over it, an error on `previews.max` (on `previews` when `max` is the
/// default). Checked once the members are loaded: they consume too.
pub(crate) fn proxy_room(cx: &mut Cx<'_>, node: &Node, runway: &Runway, members: &[Member]) {
    let Some(previews) = &runway.previews else { return };
    let max = previews.max as usize;
    let declared =
        runway.resources.iter().filter(|(_, r)| r.kind() == Kind::Postgres).map(|(n, _)| n.as_str());
    for resource in declared {
        let workloads = runway.workloads.iter().filter(|(_, w)| w.uses.iter().any(|u| u == resource));
        let (from, kept) =
            workloads.fold((0, 0), |(f, k), (name, _)| (f + 1, k + usize::from(previews.runs(name))));
        // Members use postgres resources by name (no engine of theirs is postgres).
        let members = members.iter().filter(|m| m.uses.iter().any(|u| u == resource)).count();
        let (from, kept) = (from + members, kept + members);
        let total = 1 + from + max * kept;
        if total <= MAX_PROXY_SECRETS {
            continue;
        }
        let at = field(node, "max").unwrap_or(node);
        let most = MAX_PROXY_SECRETS.saturating_sub(1 + from) / kept.max(1);
        let help = if most == 0 {
            "leave workloads out of previews (`previews.workloads: { name: off }`): not one preview's logins fit".to_owned()
        } else {
            format!("lower `previews.max` to {most} or fewer, or leave workloads out of previews")
        };
        cx.invalid(
            at,
            "previews.max",
            format!(
                "`{resource}`'s RDS Proxy would list {total} secrets (its admin's, {from} login(s) of `{}` \
                 and {kept} of each of {max} previews), over RDS Proxy's {MAX_PROXY_SECRETS}",
                previews.from
            ),
            Some(help),
        );
        return;
    }
}

/// The value of `key` in the map `node`.
fn field<'n>(node: &'n Node, key: &str) -> Option<&'n Node> {
    let Value::Map(entries) = &node.value else { return None };
    entries.iter().find(|(k, _)| matches!(&k.value, Value::Str(s) if s == key)).map(|(_, v)| v)
}
