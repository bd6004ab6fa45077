//! Validation: the spanned tree -> the typed model, with every diagnostic of the file.
//!
//! One module per concern of the format: [`root`] (the root's settings and what it declares),
//! [`environments`], [`secrets`], [`resources`], [`workloads`] (and [`health`]: scale, health
//! check, reason; [`deploy`]: the release strategy), [`members`]. This module holds what they share: the key list of every
//! mapping ([`keys`]), the vocabularies, and the readers of names, sizes and durations.

mod deploy;
mod environments;
mod health;
mod members;
mod previews;
mod resources;
mod restore;
mod root;
mod scaling;
mod schedules;
mod secrets;
mod words;
mod workloads;

pub(crate) use members::{member, unused_shared};
pub(crate) use previews::proxy_room;
pub use previews::{MAX_PROXY_SECRETS, parse_days};
pub(crate) use resources::kind_keys;
pub use resources::{variable_suffixes, variables};
pub(crate) use root::root;

use crate::SmallMap;
use crate::diagnostic::{Code, did_you_mean};
use crate::model::*;
use crate::read::{Cx, Fields, join, quote};
use crate::tree::{Node, Value};
use crate::values::{Duration, is_valid_name};

/// The fields of each mapping of the format, one table per mapping: the validator accepts these
/// (`unknown-field` for any other), the editor completes them (`syntax::fields`), and the JSON
/// Schema lays its properties out by them (`format.rs`, whose test fails on any difference).
pub(crate) mod keys {
    pub(crate) const ROOT: &[&str] = &[
        "runway",
        "product",
        "members",
        "catalogue",
        "secrets",
        "environments",
        "resources",
        "workloads",
        "previews",
    ];
    pub(crate) const SECRETS: &[&str] = &["infisical", "ssm"];
    pub(crate) const INFISICAL: &[&str] = &["url", "project", "environments", "path"];
    pub(crate) const SSM: &[&str] = &["prefix", "kmsKey"];
    pub(crate) const ENVIRONMENT: &[&str] = &[
        "region",
        "account",
        "limits",
        "shared",
        "domain",
        "logs",
        "network",
        "applyChanges",
        "usage",
        "alarms",
        "bootstrap",
        "alerts",
        "teardown",
    ];
    /// `alarms`: `enabled`, every alarm's name (`AlarmName::NAMES`, a test checks), then `for`.
    pub(crate) const ALARMS: &[&str] = &[
        "enabled",
        "alb-5xx",
        "target-5xx",
        "unhealthy-targets",
        "target-latency",
        "running-tasks",
        "db-cpu",
        "db-free-storage",
        "db-freeable-memory",
        "db-connections",
        "db-replica-lag",
        "proxy-borrow-latency",
        "cache-cpu",
        "cache-memory",
        "cache-evictions",
        "queue-age",
        "dead-letters",
        "service-cpu",
        "service-memory",
        "for",
    ];
    /// `alarms.for.<name>`: every alarm's name, the enum's own list.
    pub(crate) const ALARMS_FOR: &[&str] = crate::alarms::AlarmName::NAMES;
    /// `alerts`: where the alerts topic sends besides `alertEmails`.
    pub(crate) const ALERTS: &[&str] = &["https"];
    pub(crate) const LIMITS: &[&str] = &["monthly", "increase", "on"];
    pub(crate) const LOGS: &[&str] = &["retentionDays"];
    pub(crate) const NETWORK: &[&str] = &["endpoints", "zones", "nat"];
    pub(crate) const BOOTSTRAP: &[&str] = &["image"];
    pub(crate) const USAGE: &[&str] = &[
        "logs",
        "requests",
        "storageGb",
        "auroraIo",
        "releases",
        "natGb",
        "endpointGb",
        "internetGb",
        "for",
    ];
    /// `usage.for.<name>`: the keys that apply to one resource or workload (the network's
    /// amounts are the environment's only).
    pub(crate) const USAGE_FOR: &[&str] = &["logs", "requests", "storageGb", "auroraIo", "releases"];
    pub(crate) const SHARED: &[&str] = &crate::model::Engine::NAMES;
    pub(crate) const POSTGRES: &[&str] = &["kind", "engine", "version", "size", "restore"];
    /// `resources.<name>.restore` of a postgres resource.
    pub(crate) const RESTORE: &[&str] = &["check"];
    pub(crate) const QUEUE: &[&str] = &["kind", "fifo", "visibilityTimeout", "deadLetter", "size"];
    pub(crate) const TOPIC: &[&str] = &["kind", "fifo", "size"];
    pub(crate) const CACHE: &[&str] = &["kind", "version", "size"];
    pub(crate) const BUCKET: &[&str] = &["kind", "versioning", "size"];
    pub(crate) const DEAD_LETTER: &[&str] = &["maxReceives"];
    pub(crate) const VERSIONING: &[&str] = &["keepDays"];
    pub(crate) const WORKLOAD: &[&str] = &[
        "image",
        "platform",
        "registryCredentials",
        "entryPoint",
        "port",
        "health",
        "env",
        "secrets",
        "uses",
        "expose",
        "size",
        "scale",
        "deploy",
        "schedules",
        "exec",
        "reason",
        "migrate",
    ];
    pub(crate) const HEALTH: &[&str] = &[
        "path",
        "command",
        "interval",
        "timeout",
        "healthyThreshold",
        "unhealthyThreshold",
        "grace",
        "none",
    ];
    pub(crate) const SCALE: &[&str] = &["min", "max", "on", "active"];
    pub(crate) const SCALE_ON: &[&str] = &["cpu", "memory", "requests", "queue"];
    pub(crate) const ACTIVE: &[&str] = &["days", "hours", "timezone"];
    pub(crate) const SCHEDULE: &[&str] = &["cron", "timezone", "command", "timeout"];
    pub(crate) const DEPLOY: &[&str] = &["strategy", "percent", "step", "bake"];
    pub(crate) const MIGRATE: &[&str] = &["entryPoint", "command"];
    pub(crate) const REASON: &[&str] = &["ground", "detail"];
    pub(crate) const MEMBER: &[&str] = &["runway", "member", "runtime", "requires", "uses"];
    /// `previews` (docs/previews.md).
    pub(crate) const PREVIEWS: &[&str] =
        &["from", "expireAfter", "max", "limits", "workloads", "infisicalEnvironment"];
    /// `previews.limits`: the pooled cap.
    pub(crate) const PREVIEW_LIMITS: &[&str] = &["monthly"];
    /// `previews.workloads.<name>`: whether previews run it.
    pub(crate) const PREVIEW_WORKLOAD: &[&str] = &["on", "off"];
}

const RESERVED_KINDS: &[(&str, &str)] = &[("kafka", "the bus trigger"), ("opensearch", "the search trigger")];
pub(crate) const ENGINES: &[&str] = &Engine::NAMES;
pub(crate) const GROUNDS: &[&str] = &["no-managed-fit", "residency", "on-prem-parity"];
pub(crate) const POSTGRES_ENGINES: &[&str] = &crate::model::PostgresEngine::NAMES;
pub(crate) const EXPOSES: &[&str] = &["internal", "public"];
pub(crate) const PLATFORMS: &[&str] = &["arm64", "x86_64"];
pub(crate) const RUNTIMES: &[&str] = &["encore", "other"];
const MAX_VISIBILITY_MS: u64 = 12 * 3_600_000;

/// What the root validation needs from outside the file.
pub(crate) struct Known<'a> {
    pub sizes: &'a [String],
    pub regions: &'a [String],
}

fn engine_of(word: &str) -> Option<Engine> {
    Engine::ALL.into_iter().find(|e| e.as_str() == word)
}

/// `runway: 3`.
fn version(cx: &mut Cx<'_>, f: &Fields<'_>, what: &str) {
    let Some(v) = cx.require(f, "", what, "runway", "add `runway: 3` as the first line") else { return };
    match &v.value {
        Value::Int(n) if n.get() == 3 => {}
        Value::Int(n) => cx.error(
            Code::UnsupportedVersion,
            v,
            "runway",
            format!("runway format version {} is not supported", n.get()),
            Some("this tool reads version 3: write `runway: 3`".to_owned()),
        ),
        _ => cx.error(
            Code::UnsupportedVersion,
            v,
            "runway",
            format!("the format version must be the number 3, found {}", v.describe()),
            Some("write `runway: 3`".to_owned()),
        ),
    }
}

/// Checks a user-chosen name; reports `invalid-name` / `reserved-name`.
fn name_ok(cx: &mut Cx<'_>, key: &Node, path: &str, name: &str, what: &str, reserve_shared: bool) -> bool {
    if !is_valid_name(name) {
        cx.error(
            Code::InvalidName,
            key,
            path,
            format!("{what} name {} is not valid", quote(name)),
            Some("use 2 to 40 characters: lowercase letters, digits and `-`, starting with a letter and not ending with `-`".to_owned()),
        );
        return false;
    }
    if reserve_shared && name.starts_with("shared-") {
        cx.error(
            Code::ReservedName,
            key,
            path,
            format!(
                "{what} name {} begins with `shared-`, which is reserved for implicit resources",
                quote(name)
            ),
            Some("choose a name that does not begin with `shared-`".to_owned()),
        );
        return false;
    }
    true
}

/// A per-environment map (`size`, `scale`): every key must be a declared environment.
fn env_keys<'n>(
    cx: &mut Cx<'_>,
    node: &'n Node,
    path: &str,
    what: &str,
    envs: &[String],
) -> Vec<(String, &'n Node, &'n Node)> {
    let mut out = Vec::new();
    for (env, k, v) in cx.named_map(node, path, what) {
        if envs.iter().any(|e| e == env) {
            out.push((env.to_owned(), k, v));
        } else {
            let help = match did_you_mean(env, envs.iter().map(String::as_str)) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("declared environments: {}", envs.join(", ")),
            };
            cx.error(
                Code::UnknownEnvironment,
                k,
                &join(path, env),
                format!("{} is not a declared environment", quote(env)),
                Some(help),
            );
        }
    }
    out
}

/// A size the catalogue knows, or `None` (reported at `<path>.<env>`, joined only then: every
/// resource and workload has a `size` map, and a path per value was a tenth of `sizes`; sixth
/// pass).
fn size_value(cx: &mut Cx<'_>, node: &Node, (p, env): (&str, &str), known: &Known<'_>) -> Option<String> {
    if let Value::Str(s) = &node.value
        && known.sizes.iter().any(|k| k == s.as_str())
        && !s.bytes().any(crate::paths::may_start_control)
    {
        return Some(String::from(s.as_str()));
    }
    let path = &join(p, env);
    let size = cx.text(node, path, "a size")?;
    if known.sizes.contains(&size) {
        return Some(size);
    }
    let help = match did_you_mean(&size, known.sizes.iter().map(String::as_str)) {
        Some(s) => format!("did you mean `{s}`?"),
        None => format!("the catalogue's sizes are: {}", known.sizes.join(", ")),
    };
    cx.error(
        Code::UnknownSize,
        node,
        path,
        format!("{} is not a size of the catalogue", quote(&size)),
        Some(help),
    );
    None
}

fn sizes(
    cx: &mut Cx<'_>,
    f: &Fields<'_>,
    path: &str,
    envs: &[String],
    known: &Known<'_>,
) -> SmallMap<String> {
    // Built as a vector of its exact size, then moved into the map: an insert each was a
    // reallocation each (sixth pass).
    let mut out = Vec::new();
    if let Some(node) = f.get("size") {
        let p = join(path, "size");
        let entries = env_keys(cx, node, &p, "`size`", envs);
        out.reserve_exact(entries.len());
        for (env, _, v) in entries {
            if let Some(s) = size_value(cx, v, (&p, &env), known) {
                out.push((env, s));
            }
        }
    }
    SmallMap::from(out)
}

fn duration(cx: &mut Cx<'_>, node: &Node, path: &str, what: &str) -> Option<Duration> {
    let text = cx.text(node, path, what)?;
    match Duration::parse(&text) {
        Ok(d) => Some(d),
        Err(e) => {
            cx.invalid(
                node,
                path,
                format!("{what}: {e}"),
                Some("write a whole number and a unit: `500ms`, `30s`, `5m`, `1h`".to_owned()),
            );
            None
        }
    }
}
