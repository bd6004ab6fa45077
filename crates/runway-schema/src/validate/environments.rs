//! One environment of the root: region, limits, shared sizes, domain, logs and network.

use indexmap::IndexMap;

use crate::Location;
use crate::alarms::{AlarmName, AlarmSetting, Alarms};
use crate::bootstrap::Bootstrap;
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
    // What is checked once members, resources and workloads are known: the `shared` sizes and
    // the `usage.for` names.
    (shared_nodes, usage_for): (&mut Vec<(String, Engine, Node)>, &mut Vec<UsageFor>),
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
    let account = f.get("account").and_then(|a| account(cx, a, &join(path, "account")));
    let (monthly_limit, limit_at, increase_limit, cap_on) = f
        .get("limits")
        .map_or((None, None, None, CapOn::default()), |l| limits(cx, l, &join(path, "limits")));
    let mut shared = IndexMap::new();
    if let Some(s) = f.get("shared") {
        let sp = join(path, "shared");
        if let Some(sf) = cx.fields(s, &sp, "`shared`", keys::SHARED) {
            for (engine_name, k, v) in &sf.entries {
                let Some(engine) = engine_of(engine_name) else { continue };
                if let Some(size) = size_value(cx, v, (&sp, engine_name), known) {
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
    let usage = f.get("usage").map_or_else(Usage::default, |u| usage(cx, u, &join(path, "usage"), usage_for));
    let apply_changes = f.get("applyChanges").and_then(|a| {
        let word = cx.one_of(a, &join(path, "applyChanges"), "`applyChanges`", ApplyChanges::NAMES)?;
        ApplyChanges::from_name(word)
    });
    let teardown = f.get("teardown").and_then(|t| {
        let word = cx.one_of(t, &join(path, "teardown"), "`teardown`", Teardown::NAMES)?;
        Teardown::from_name(word)
    });
    let mut alarms =
        f.get("alarms").map_or_else(Alarms::default, |a| alarms(cx, a, &join(path, "alarms"), usage_for));
    if let Some(a) = f.get("alerts") {
        alarms.https = alerts(cx, a, &join(path, "alerts"));
    }
    let bootstrap =
        f.get("bootstrap").map_or_else(Bootstrap::default, |b| bootstrap(cx, b, &join(path, "bootstrap")));
    Some(Environment {
        region: region?,
        account,
        monthly_limit,
        shared,
        domain,
        at: cx.loc(key),
        limit_at,
        increase_limit,
        cap_on,
        log_retention_days,
        network,
        apply_changes,
        usage,
        alarms,
        bootstrap,
        teardown,
    })
}

/// `account`: exactly 12 digits, as AWS writes an account id. A quoted string, or a number
/// whose digits are those 12 (YAML reads an unquoted one as a number, and drops a leading 0).
fn account(cx: &mut Cx<'_>, node: &Node, path: &str) -> Option<String> {
    let text = match &node.value {
        Value::Str(s) => s.to_string(),
        Value::Int(i) => i.get().to_string(),
        _ => {
            cx.invalid(
                node,
                path,
                format!("`account` must be an AWS account id, found {}", node.describe()),
                Some("write the 12 digits in quotes, e.g. `account: \"123456789012\"`".to_owned()),
            );
            return None;
        }
    };
    if text.len() == 12 && text.bytes().all(|b| b.is_ascii_digit()) {
        return Some(text);
    }
    cx.invalid(
        node,
        path,
        format!("{} is not an AWS account id (exactly 12 digits)", quote(&text)),
        Some("write the account's 12 digits in quotes, e.g. `account: \"012345678901\"` (`aws sts get-caller-identity` shows it)".to_owned()),
    );
    None
}

/// `bootstrap`: `image`, pinned by digest like a workload's.
fn bootstrap(cx: &mut Cx<'_>, node: &Node, path: &str) -> Bootstrap {
    let Some(f) = cx.fields(node, path, "`bootstrap`", keys::BOOTSTRAP) else { return Bootstrap::default() };
    let Some(n) = f.get("image") else { return Bootstrap::default() };
    let image = super::workloads::image_value(cx, n, &join(path, "image"));
    Bootstrap { at: image.is_some().then(|| cx.loc(n)), image }
}

/// `alarms`: `enabled` (true or false), each alarm's threshold (a whole number in its unit,
/// within its range) or `off` (`false`), and `for` one resource or workload (its names checked
/// with `usage.for`'s, once the root's are known: [`check_usage_for`]).
fn alarms(cx: &mut Cx<'_>, node: &Node, path: &str, owners: &mut Vec<UsageFor>) -> Alarms {
    let mut out = Alarms::default();
    let Some(f) = cx.fields(node, path, "`alarms`", keys::ALARMS) else { return out };
    for (key, _, value) in &f.entries {
        let vp = join(path, key);
        if *key == "enabled" {
            out.enabled = cx.boolean(value, &vp, "`enabled`");
            continue;
        }
        let Some(name) = AlarmName::from_name(key) else { continue };
        if let Some(setting) = alarm_setting(cx, value, &vp, name) {
            out.settings.insert(name, setting);
        }
    }
    let Some(for_node) = f.get("for") else { return out };
    let fp = join(path, "for");
    for (owner, key_node, v) in cx.named_map(for_node, &fp, "`alarms.for`") {
        let op = join(&fp, owner);
        let what = format!("the alarms of `{owner}`");
        let Some(of) = cx.fields(v, &op, &what, keys::ALARMS_FOR) else { continue };
        let mut settings = std::collections::BTreeMap::new();
        let mut written = Vec::new();
        for (key, k_node, value) in &of.entries {
            let Some(name) = AlarmName::from_name(key) else { continue };
            written.push((name.as_str(), name.owners(), (*k_node).clone()));
            if let Some(setting) = alarm_setting(cx, value, &join(&op, key), name) {
                settings.insert(name, setting);
            }
        }
        let section = "alarms.for";
        owners.push(UsageFor {
            path: op,
            owner: owner.to_owned(),
            at: key_node.clone(),
            keys: written,
            section,
        });
        out.overrides.insert(owner.to_owned(), settings);
    }
    out
}

/// `alerts`: `https`, the names of Infisical secrets (in the environment's alerts folder)
/// holding the HTTPS endpoints the alerts topic notifies, each once.
fn alerts(cx: &mut Cx<'_>, node: &Node, path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let Some(f) = cx.fields(node, path, "`alerts`", keys::ALERTS) else { return out };
    let Some(list) = f.get("https") else { return out };
    let lp = join(path, "https");
    for (i, item) in cx.list(list, &lp, "`https`").unwrap_or_default().iter().enumerate() {
        let p = crate::read::index(&lp, i);
        let Some(name) = cx.string(item, &p, "an Infisical secret name") else { continue };
        if name.starts_with("https://") || name.starts_with("http://") {
            // A URL written here would land in the repository and the plan: it carries a key.
            let help = "set the URL as a secret in Infisical (the environment's `_alerts` folder) and \
                        write its name here, e.g. `https: [PAGERDUTY_URL]`";
            let message = "`alerts.https` names Infisical secrets, not URLs (a pager's URL carries its key)";
            cx.invalid(item, &p, message.to_owned(), Some(help.to_owned()));
        } else if !super::resources::is_variable_name(&name) {
            let help = "use letters, digits and `_`, not starting with a digit".to_owned();
            cx.invalid(item, &p, format!("{} is not a secret name", quote(&name)), Some(help));
        } else if out.contains(&name) {
            let help = Some("remove one of the two".to_owned());
            let message = format!("{} is listed twice", quote(&name));
            cx.error(crate::diagnostic::Code::DuplicateName, item, &p, message, help);
        } else {
            out.push(name);
        }
    }
    out
}

/// One alarm's setting: `off` or `false`, or a threshold within the alarm's range.
fn alarm_setting(cx: &mut Cx<'_>, node: &Node, path: &str, name: AlarmName) -> Option<AlarmSetting> {
    let (range, unit) = (name.range(), name.unit());
    let help = format!(
        "write a threshold in {unit} from {} to {}, or `off` to declare no `{}` alarm",
        range.start(),
        range.end(),
        name.as_str()
    );
    match &node.value {
        Value::Bool(false) => return Some(AlarmSetting::Off),
        Value::Str(s) if s.as_str() == "off" => return Some(AlarmSetting::Off),
        Value::Int(i) => {
            if let Some(t) = u64::try_from(i.get()).ok().filter(|t| range.contains(t)) {
                return Some(AlarmSetting::Threshold(t));
            }
            let message = format!(
                "the `{}` threshold is {}, outside {}..={} ({unit})",
                name.as_str(),
                i.get(),
                range.start(),
                range.end()
            );
            cx.invalid(node, path, message, Some(help));
            return None;
        }
        _ => {}
    }
    let found = node.scalar_text().map_or_else(|| node.describe().to_string(), |t| quote(&t));
    let message =
        format!("the `{}` alarm takes a whole number of {unit} or `off`, found {found}", name.as_str());
    cx.invalid(node, path, message, Some(help));
    None
}

/// One `usage.for.<name>` or `alarms.for.<name>` of an environment, checked once the
/// resources and workloads are known (`check_usage_for`): the name and each key, where they are
/// written.
pub(crate) struct UsageFor {
    /// `environments.<env>.usage.for.<name>`.
    pub path: String,
    /// The resource or workload named.
    pub owner: String,
    /// The name's key node.
    pub at: Node,
    /// Each key written that applies to owners of some kinds: its name, those kinds (none: the
    /// environment's only) and its node.
    pub keys: Vec<(&'static str, &'static [OwnerKind], Node)>,
    /// `usage.for` or `alarms.for`.
    pub section: &'static str,
}

/// The largest amount a usage key takes (a billion GB or million requests a month): past it, a
/// figure is a typo, and the arithmetic stays far from the decimal type's limits.
const MAX_USAGE: u64 = 1_000_000_000;

/// `usage`: the environment's amounts, and `for` each resource or workload.
fn usage(cx: &mut Cx<'_>, node: &Node, path: &str, usage_for: &mut Vec<UsageFor>) -> Usage {
    let mut out = Usage::default();
    let Some(f) = cx.fields(node, path, "`usage`", keys::USAGE) else { return out };
    for (key, _, value) in &f.entries {
        let Some(k) = UsageKey::from_name(key) else { continue };
        if let Some(amount) = usage_amount(cx, value, &join(path, key), k) {
            out.amounts.insert(k, amount);
        }
    }
    let Some(for_node) = f.get("for") else { return out };
    let fp = join(path, "for");
    for (owner, key_node, v) in cx.named_map(for_node, &fp, "`usage.for`") {
        let op = join(&fp, owner);
        let Some(of) = cx.fields(v, &op, &format!("the usage of `{owner}`"), keys::USAGE_FOR) else {
            continue;
        };
        let mut amounts = std::collections::BTreeMap::new();
        let mut written = Vec::new();
        for (key, k_node, value) in &of.entries {
            let Some(k) = UsageKey::from_name(key) else { continue };
            if let UsageScope::Owners(kinds) = k.scope() {
                written.push((k.as_str(), kinds, (*k_node).clone()));
            }
            if let Some(amount) = usage_amount(cx, value, &join(&op, key), k) {
                amounts.insert(k, amount);
            }
        }
        let section = "usage.for";
        usage_for.push(UsageFor {
            path: op,
            owner: owner.to_owned(),
            at: key_node.clone(),
            keys: written,
            section,
        });
        out.overrides.insert(owner.to_owned(), amounts);
    }
    out
}

/// One amount: a number from 0 to [`MAX_USAGE`], in the key's unit.
fn usage_amount(cx: &mut Cx<'_>, node: &Node, path: &str, key: UsageKey) -> Option<rust_decimal::Decimal> {
    use std::str::FromStr;
    let text = match &node.value {
        Value::Int(i) => Some(i.get().to_string()),
        Value::Float(x) if x.is_finite() => Some(x.to_string()),
        _ => None,
    };
    let amount = text.and_then(|t| rust_decimal::Decimal::from_str(&t).ok());
    let help = Some(format!("write {} a month as a number, e.g. `{}: 10`", key.unit(), key.as_str()));
    match amount {
        Some(a) if !a.is_sign_negative() && a <= rust_decimal::Decimal::from(MAX_USAGE) => {
            Some(a.normalize())
        }
        Some(a) => {
            let message =
                format!("`{}` is {a}, outside 0..={MAX_USAGE} ({} a month)", key.as_str(), key.unit());
            cx.invalid(node, path, message, help);
            None
        }
        None => {
            let found = node.scalar_text().map_or_else(|| node.describe().to_string(), |t| quote(&t));
            let message =
                format!("`{}` must be a number of {} a month, found {found}", key.as_str(), key.unit());
            cx.invalid(node, path, message, help);
            None
        }
    }
}

/// The kind of an owner as [`UsageScope::Owners`] names it, for a name of the root: a declared
/// resource, a workload, or an implicit `shared-<engine>`; `None` when nothing has the name.
fn owner_kind(
    runway: (&IndexMap<String, Resource>, &IndexMap<String, Workload>),
    name: &str,
) -> Option<OwnerKind> {
    let (resources, workloads) = runway;
    if workloads.contains_key(name) {
        return Some(OwnerKind::Workload);
    }
    if let Some(r) = resources.get(name) {
        return Some(r.spec.owner_kind());
    }
    let engine = name.strip_prefix("shared-").and_then(super::engine_of)?;
    Some(engine.owner_kind())
}

/// Checks every `usage.for.<name>` once the root's resources and workloads are known: the name
/// is a resource or workload (`unknown-resource`), each key applies to its kind
/// (`invalid-value`). `skip` holds the names whose own declaration had errors (reported there).
pub(crate) fn check_usage_for(
    cx: &mut Cx<'_>,
    usage_for: &[UsageFor],
    runway: (&IndexMap<String, Resource>, &IndexMap<String, Workload>),
    skip: &std::collections::BTreeSet<&str>,
) {
    for u in usage_for {
        if skip.contains(u.owner.as_str()) {
            continue;
        }
        let Some(kind) = owner_kind(runway, &u.owner) else {
            let (resources, workloads) = runway;
            let names = resources.keys().chain(workloads.keys()).map(String::as_str);
            let help = match did_you_mean(&u.owner, names) {
                Some(s) => format!("did you mean `{s}`?"),
                None => {
                    "name a resource or workload of this file (or an implicit `shared-<engine>`)".to_owned()
                }
            };
            cx.error(
                crate::diagnostic::Code::UnknownResource,
                &u.at,
                &u.path,
                format!("`{}` names {}, which is no resource or workload", u.section, quote(&u.owner)),
                Some(help),
            );
            continue;
        };
        for (key, kinds, node) in &u.keys {
            if kinds.contains(&kind) {
                continue;
            }
            let help = if kinds.is_empty() {
                format!("`{key}` is the environment's own: set it beside `for`, not under it")
            } else {
                format!("`{key}` applies to: {}", OwnerKind::join(kinds))
            };
            cx.invalid(
                node,
                &join(&u.path, key),
                format!("`{key}` does not apply to `{}` (a {kind})", u.owner),
                Some(help),
            );
        }
    }
}

/// `network`: whether the environment's private subnets get VPC endpoints, over how many
/// zones (what their hours are billed by), and how many NAT gateways it pays for.
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
    if let Some(n) = f.get("nat") {
        out.nat = cx
            .uint(n, &join(path, "nat"), "`nat`", 0, u64::from(MAX_NAT))
            .and_then(|n| u32::try_from(n).ok());
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
fn limits(
    cx: &mut Cx,
    limits: &Node,
    lp: &str,
) -> (Option<Money>, Option<Location>, Option<Increase>, CapOn) {
    let Some(lf) = cx.fields(limits, lp, "`limits`", keys::LIMITS) else {
        return (None, None, None, CapOn::default());
    };
    let (mut monthly_limit, mut limit_at) = (None, None);
    if let Some(m) = lf.get("monthly") {
        limit_at = Some(cx.loc(m));
        monthly_limit = dollars(cx, m, &join(lp, "monthly"), "`monthly`", "the cap");
    }
    let increase = lf.get("increase").and_then(|i| increase(cx, i, &join(lp, "increase")));
    // `limits.on`: which estimate the cap refuses on (a bad word is reported, the default kept).
    let on = lf
        .get("on")
        .and_then(|n| cx.one_of(n, &join(lp, "on"), "`limits.on`", &CapOn::NAMES))
        .and_then(|w| CapOn::ALL.into_iter().find(|c| c.as_str() == w))
        .unwrap_or_default();
    (monthly_limit, limit_at, increase, on)
}

/// An amount of US dollars, as a number or a decimal string.
pub(super) fn dollars(cx: &mut Cx, m: &Node, mp: &str, what: &str, meaning: &str) -> Option<Money> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys `alarms` accepts are `enabled`, every alarm's name, in order, and `for`; those
    /// `alarms.for.<name>` accepts, every alarm's name.
    #[test]
    fn alarm_keys_are_enabled_and_the_alarm_names() {
        let mut all = vec!["enabled"];
        all.extend_from_slice(AlarmName::NAMES);
        all.push("for");
        assert_eq!(keys::ALARMS, all.as_slice());
        assert_eq!(keys::ALARMS_FOR, AlarmName::NAMES);
    }

    /// The keys `usage` accepts are the usage keys and `for`; those `for` accepts are the keys
    /// that apply to owners: the validator, the JSON Schema and the editor read these lists.
    #[test]
    fn usage_key_lists_follow_the_usage_keys() {
        let mut all: Vec<&str> = UsageKey::ALL.iter().map(|k| k.as_str()).collect();
        all.push("for");
        assert_eq!(keys::USAGE, all.as_slice());
        let owned: Vec<&str> = UsageKey::ALL
            .iter()
            .filter(|k| matches!(k.scope(), UsageScope::Owners(_)))
            .map(|k| k.as_str())
            .collect();
        assert_eq!(keys::USAGE_FOR, owned.as_slice());
        for k in UsageKey::ALL {
            assert_eq!(UsageKey::from_name(k.as_str()), Some(k));
        }
    }
}
