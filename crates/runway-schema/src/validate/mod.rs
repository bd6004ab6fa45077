//! Validation: the spanned tree -> the typed model, with every diagnostic of the file.

use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;

use crate::diagnostic::{Code, did_you_mean};
use crate::model::*;
use crate::read::{Cx, Fields, index, join, quote};
use crate::tree::{Node, Value};
use crate::values::{
    Duration, ImageError, ImageRef, Money, is_valid_name, is_valid_product, variable_prefix,
};

/// The fields of each mapping of the format; the JSON Schema test keeps them in step with
/// `format.rs`.
pub(crate) mod keys {
    pub const ROOT: &[&str] =
        &["runway", "product", "members", "catalogue", "secrets", "environments", "resources", "workloads"];
    pub const SECRETS: &[&str] = &["infisical", "ssm"];
    pub const INFISICAL: &[&str] = &["url", "project", "environments", "path"];
    pub const SSM: &[&str] = &["prefix", "kmsKey"];
    pub const ENVIRONMENT: &[&str] = &["region", "limits", "shared", "domain", "logs", "network"];
    pub const LIMITS: &[&str] = &["monthly"];
    pub const LOGS: &[&str] = &["retentionDays"];
    pub const NETWORK: &[&str] = &["endpoints", "zones"];
    pub const SHARED: &[&str] = &["queue", "topic", "cache", "bucket"];
    pub const POSTGRES: &[&str] = &["kind", "engine", "version", "size"];
    pub const QUEUE: &[&str] = &["kind", "fifo", "visibilityTimeout", "deadLetter", "size"];
    pub const TOPIC: &[&str] = &["kind", "fifo", "size"];
    pub const CACHE: &[&str] = &["kind", "version", "size"];
    pub const BUCKET: &[&str] = &["kind", "versioning", "size"];
    pub const DEAD_LETTER: &[&str] = &["maxReceives"];
    pub const WORKLOAD: &[&str] =
        &["image", "port", "health", "env", "secrets", "uses", "expose", "size", "scale", "reason"];
    pub const HEALTH: &[&str] =
        &["path", "command", "interval", "timeout", "healthyThreshold", "unhealthyThreshold"];
    pub const SCALE: &[&str] = &["min", "max"];
    pub const REASON: &[&str] = &["ground", "detail"];
    pub const MEMBER: &[&str] = &["runway", "member", "runtime", "requires", "uses"];
}

pub(crate) const KINDS: &[&str] = &["postgres", "queue", "topic", "cache", "bucket"];
const RESERVED_KINDS: &[(&str, &str)] = &[("kafka", "the bus trigger"), ("opensearch", "the search trigger")];
pub(crate) const ENGINES: &[&str] = &["queue", "topic", "cache", "bucket"];
pub(crate) const GROUNDS: &[&str] = &["no-managed-fit", "residency", "on-prem-parity"];
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

fn size_value(cx: &mut Cx<'_>, node: &Node, path: &str, known: &Known<'_>) -> Option<String> {
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
) -> IndexMap<String, String> {
    let mut out = IndexMap::new();
    if let Some(node) = f.get("size") {
        let p = join(path, "size");
        for (env, _, v) in env_keys(cx, node, &p, "`size`", envs) {
            if let Some(s) = size_value(cx, v, &join(&p, &env), known) {
                out.insert(env, s);
            }
        }
    }
    out
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

/// The validated root, before members are known.
pub(crate) struct RootParts {
    pub runway: Option<Runway>,
    pub members_node: Option<Node>,
    pub shared_nodes: Vec<(String, Engine, Node)>,
    pub env_names: Vec<String>,
}

pub(crate) fn root(cx: &mut Cx<'_>, node: &Node, known: &Known<'_>) -> RootParts {
    let mut parts =
        RootParts { runway: None, members_node: None, shared_nodes: Vec::new(), env_names: Vec::new() };
    if node.value == Value::Null {
        cx.invalid(
            node,
            "",
            "the file is empty".to_owned(),
            Some("a root runway starts with `runway: 3` and `product: <name>`".to_owned()),
        );
        return parts;
    }
    let Some(f) = cx.fields(node, "", "the root runway", keys::ROOT) else { return parts };
    let errors_before = cx.diags.iter().filter(|d| d.is_error()).count();
    version(cx, &f, "the root runway");

    let product = cx.require(&f, "", "the root runway", "product", "add `product: <name>`").and_then(|p| {
        let name = cx.string(p, "product", "`product`")?;
        if is_valid_product(&name) {
            Some(name)
        } else {
            cx.error(
                Code::InvalidName,
                p,
                "product",
                format!("product name {} is not valid", quote(&name)),
                Some("use 3 to 32 characters: lowercase letters, digits and `-`, starting with a letter and not ending with `-`".to_owned()),
            );
            None
        }
    });

    let mut members = Vec::new();
    if let Some(m) = f.get("members") {
        parts.members_node = Some(m.clone());
        if let Some(items) = cx.list(m, "members", "`members`") {
            for (i, item) in items.iter().enumerate() {
                let path = index("members", i);
                const HELP: &str =
                    "a members glob is relative to this file's folder and stays inside it, e.g. `services/*`";
                if let Some(g) = cx.string(item, &path, "a members glob")
                    && inside_root(cx, item, &path, &g, HELP)
                {
                    members.push(g);
                }
            }
        }
    }

    let catalogue = f.get("catalogue").and_then(|c| catalogue_path(cx, c));

    // Environments first: every per-environment map is checked against them.
    let mut environments = IndexMap::new();
    let env_node = cx.require(
        &f,
        "",
        "the root runway",
        "environments",
        "declare at least one environment, e.g. `environments: { dev: { region: eu-central-1 } }`",
    );
    if let Some(env_node) = env_node {
        let entries = cx.named_map(env_node, "environments", "`environments`");
        if entries.is_empty() && matches!(env_node.value, Value::Map(_) | Value::Null) {
            cx.invalid(
                env_node,
                "environments",
                "no environment is declared".to_owned(),
                Some("declare at least one, e.g. `dev: { region: eu-central-1 }`".to_owned()),
            );
        }
        for (name, k, v) in entries {
            let path = join("environments", name);
            parts.env_names.push(name.to_owned());
            let ok_name = name_ok(cx, k, &path, name, "environment", false);
            if let Some(env) = environment(cx, name, k, v, &path, known, &mut parts.shared_nodes)
                && ok_name
            {
                environments.insert(name.to_owned(), env);
            }
        }
    }
    let envs = parts.env_names.clone();

    let secrets = f
        .get("secrets")
        .and_then(|s| secrets(cx, s, &envs))
        .unwrap_or(Secrets { infisical: None, ssm: Ssm::default() });

    // Names are unique across resources and workloads.
    let res_entries =
        f.get("resources").map(|n| cx.named_map(n, "resources", "`resources`")).unwrap_or_default();
    let wl_entries =
        f.get("workloads").map(|n| cx.named_map(n, "workloads", "`workloads`")).unwrap_or_default();
    let resource_names: BTreeSet<&str> = res_entries.iter().map(|(n, _, _)| *n).collect();
    let resource_nodes = first_by_name(&res_entries);

    let mut resources = IndexMap::new();
    for (name, k, v) in &res_entries {
        let path = join("resources", name);
        let ok = name_ok(cx, k, &path, name, "resource", true);
        if let Some(r) = resource(cx, v, &path, &envs, known)
            && ok
        {
            resources.insert((*name).to_owned(), r);
        }
    }

    let mut workloads = IndexMap::new();
    for (name, k, v) in &wl_entries {
        let path = join("workloads", name);
        let mut ok = name_ok(cx, k, &path, name, "workload", true);
        if resource_names.contains(name) {
            cx.error(
                Code::DuplicateName,
                k,
                &path,
                format!("{} is both a resource and a workload", quote(name)),
                Some("a name is unique across resources and workloads: rename one of them".to_owned()),
            );
            ok = false;
        }
        if let Some(w) =
            workload(cx, name, v, &path, &envs, &environments, &res_entries, &resource_nodes, known)
            && ok
        {
            workloads.insert((*name).to_owned(), w);
        }
    }

    let errors_after = cx.diags.iter().filter(|d| d.is_error()).count();
    if errors_after == errors_before
        && let Some(product) = product
    {
        parts.runway = Some(Runway {
            file: cx.file.to_owned(),
            product,
            members,
            catalogue,
            secrets,
            environments,
            resources,
            workloads,
        });
    }
    parts
}

/// `catalogue: prices.yaml`: a non-empty path (the CLI reads the file, relative to the root).
fn catalogue_path(cx: &mut Cx<'_>, node: &Node) -> Option<String> {
    let path = cx.string(node, "catalogue", "`catalogue`")?;
    if path.trim().is_empty() {
        cx.invalid(
            node,
            "catalogue",
            "`catalogue` is empty".to_owned(),
            Some("name a catalogue file relative to this file, e.g. `catalogue: prices.yaml`, or remove the key".to_owned()),
        );
        return None;
    }
    inside_root(
        cx,
        node,
        "catalogue",
        &path,
        "a catalogue path is relative to this file's folder and stays inside it, e.g. `prices.yaml`",
    )
    .then_some(path)
}

/// Is `path` inside the root's folder? Reports `outside-root` at `node` when it is not.
fn inside_root(cx: &mut Cx<'_>, node: &Node, at: &str, path: &str, help: &str) -> bool {
    let Some(why) = crate::paths::outside_root(path) else { return true };
    cx.error(
        Code::OutsideRoot,
        node,
        at,
        format!("{} leaves the root runway's folder: {why}; nothing there is read", quote(path)),
        Some(help.to_owned()),
    );
    false
}

fn environment(
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
    let mut monthly_limit = None;
    let mut limit_at = None;
    if let Some(limits) = f.get("limits") {
        let lp = join(path, "limits");
        if let Some(lf) = cx.fields(limits, &lp, "`limits`", keys::LIMITS)
            && let Some(m) = lf.get("monthly")
        {
            let mp = join(&lp, "monthly");
            limit_at = Some(cx.loc(m));
            let text = match &m.value {
                Value::Int(i) => Some(i.get().to_string()),
                Value::Float(x) if x.is_finite() => Some(x.to_string()),
                Value::Str(s) => Some(s.to_string()),
                _ => None,
            };
            match text.map(|t| Money::parse(&t)) {
                Some(Ok(money)) => monthly_limit = Some(money),
                Some(Err(e)) => cx.invalid(
                    m,
                    &mp,
                    e.to_string(),
                    Some("write the cap in US dollars, e.g. `monthly: 150`".to_owned()),
                ),
                None => cx.invalid(
                    m,
                    &mp,
                    format!("`monthly` must be an amount of US dollars, found {}", m.describe()),
                    Some("write e.g. `monthly: 150`".to_owned()),
                ),
            }
        }
    }
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
    Some(Environment {
        region: region?,
        monthly_limit,
        shared,
        domain,
        at: cx.loc(key),
        limit_at,
        log_retention_days,
        network,
    })
}

/// `network`: whether the environment's private subnets get VPC endpoints, and over how many
/// zones (what their hours are billed by).
fn network(cx: &mut Cx<'_>, node: &Node, path: &str) -> Network {
    let mut out = Network::default();
    let Some(f) = cx.fields(node, path, "`network`", keys::NETWORK) else { return out };
    if let Some(e) = f.get("endpoints") {
        out.endpoints = cx.boolean(e, &join(path, "endpoints"), "`endpoints`").unwrap_or(false);
    }
    if let Some(z) = f.get("zones") {
        let (min, max) = (u64::from(MIN_ZONES), u64::from(MAX_ZONES));
        if let Some(zones) = cx.uint(z, &join(path, "zones"), "`zones`", min, max) {
            out.zones = u32::try_from(zones).unwrap_or(MIN_ZONES);
        }
    }
    out
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

fn secrets(cx: &mut Cx<'_>, node: &Node, envs: &[String]) -> Option<Secrets> {
    let f = cx.fields(node, "secrets", "`secrets`", keys::SECRETS)?;
    let mut ok = true;
    let infisical = match f.get("infisical") {
        None => None,
        Some(n) => {
            let p = "secrets.infisical";
            let inf = cx.fields(n, p, "`secrets.infisical`", keys::INFISICAL).and_then(|inf| {
                let url = match inf.get("url") {
                    None => Some(DEFAULT_INFISICAL_URL.to_owned()),
                    Some(u) => cx.string(u, &join(p, "url"), "`url`").and_then(|u_text| {
                        if u_text.starts_with("https://") || u_text.starts_with("http://") {
                            Some(u_text.trim_end_matches('/').to_owned())
                        } else {
                            cx.invalid(
                                u,
                                &join(p, "url"),
                                format!("{} is not an http(s) URL", quote(&u_text)),
                                Some("write e.g. `https://app.infisical.com`".to_owned()),
                            );
                            None
                        }
                    }),
                };
                let project = cx
                    .require(
                        &inf,
                        p,
                        "`secrets.infisical`",
                        "project",
                        "add `project: <Infisical project id>`",
                    )
                    .and_then(|pr| cx.string(pr, &join(p, "project"), "`project`"));
                let mut environments = IndexMap::new();
                if let Some(e) = inf.get("environments") {
                    let ep = join(p, "environments");
                    for (env, _, v) in env_keys(cx, e, &ep, "`environments`", envs) {
                        if let Some(slug) = cx.string(v, &join(&ep, &env), "an Infisical environment slug") {
                            environments.insert(env, slug);
                        }
                    }
                }
                let path = match inf.get("path") {
                    None => Some(DEFAULT_INFISICAL_PATH.to_owned()),
                    Some(pn) => cx.string(pn, &join(p, "path"), "`path`").and_then(|t| {
                        if t.starts_with('/') && t.contains("{resource}") {
                            Some(t)
                        } else {
                            cx.invalid(
                                pn,
                                &join(p, "path"),
                                format!(
                                    "folder template {} must start with `/` and contain `{{resource}}`",
                                    quote(&t)
                                ),
                                Some("write e.g. `/runtime/{resource}`".to_owned()),
                            );
                            None
                        }
                    }),
                };
                Some(Infisical { url: url?, project: project?, environments, path: path? })
            });
            ok &= inf.is_some();
            inf
        }
    };
    let mut ssm = Ssm::default();
    if let Some(n) = f.get("ssm")
        && let Some(sf) = cx.fields(n, "secrets.ssm", "`secrets.ssm`", keys::SSM)
    {
        if let Some(p) = sf.get("prefix") {
            match cx.string(p, "secrets.ssm.prefix", "`prefix`") {
                Some(t) if t.starts_with('/') => ssm.prefix = t,
                Some(t) => {
                    cx.invalid(
                        p,
                        "secrets.ssm.prefix",
                        format!("SSM prefix {} must start with `/`", quote(&t)),
                        Some("write e.g. `/{product}/{env}`".to_owned()),
                    );
                    ok = false;
                }
                None => ok = false,
            }
        }
        if let Some(k) = sf.get("kmsKey") {
            match cx.string(k, "secrets.ssm.kmsKey", "`kmsKey`") {
                Some(t) => ssm.kms_key = t,
                None => ok = false,
            }
        }
    }
    ok.then_some(Secrets { infisical, ssm })
}

fn kind_of(cx: &mut Cx<'_>, f: &Fields<'_>, path: &str) -> Option<Kind> {
    let k = cx.require(
        f,
        path,
        "a resource",
        "kind",
        "add `kind:` one of postgres, queue, topic, cache, bucket",
    )?;
    let kp = join(path, "kind");
    let text = cx.text(k, &kp, "`kind`")?;
    if let Some((_, trigger)) = RESERVED_KINDS.iter().find(|(n, _)| *n == text) {
        cx.error(
            Code::ReservedKind,
            k,
            &kp,
            format!(
                "kind {} is deferred: it comes back only through {trigger} and a new decision",
                quote(&text)
            ),
            Some("use one of postgres, queue, topic, cache, bucket, or raise the trigger".to_owned()),
        );
        return None;
    }
    let kind = match text.as_str() {
        "postgres" => Kind::Postgres,
        "queue" => Kind::Queue,
        "topic" => Kind::Topic,
        "cache" => Kind::Cache,
        "bucket" => Kind::Bucket,
        _ => {
            let help = match did_you_mean(&text, KINDS.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("the kinds are: {}", KINDS.join(", ")),
            };
            cx.error(
                Code::UnknownKind,
                k,
                &kp,
                format!("{} is not a resource kind", quote(&text)),
                Some(help),
            );
            return None;
        }
    };
    Some(kind)
}

fn resource(
    cx: &mut Cx<'_>,
    node: &Node,
    path: &str,
    envs: &[String],
    known: &Known<'_>,
) -> Option<Resource> {
    // The kind decides which fields exist, so read it before checking the others.
    let kind = {
        let Value::Map(entries) = &node.value else {
            cx.invalid(
                node,
                path,
                format!("a resource must be a mapping, found {}", node.describe()),
                Some("write e.g. `{ kind: queue }`".to_owned()),
            );
            return None;
        };
        let probe = Fields {
            map: node,
            entries: entries
                .iter()
                .filter_map(|(k, v)| match &k.value {
                    Value::Str(s) if s == "kind" => Some(("kind", k, v)),
                    _ => None,
                })
                .take(1)
                .collect(),
        };
        kind_of(cx, &probe, path)
    };
    let Some(kind) = kind else {
        // Still report unknown keys against the union of every kind's fields.
        let mut all: Vec<&str> =
            [keys::POSTGRES, keys::QUEUE, keys::TOPIC, keys::CACHE, keys::BUCKET].concat();
        all.sort_unstable();
        all.dedup();
        if let Some(f) = cx.fields(node, path, "a resource", &all) {
            sizes(cx, &f, path, envs, known);
        }
        return None;
    };
    let (what, allowed) = match kind {
        Kind::Postgres => ("a postgres resource", keys::POSTGRES),
        Kind::Queue => ("a queue resource", keys::QUEUE),
        Kind::Topic => ("a topic resource", keys::TOPIC),
        Kind::Cache => ("a cache resource", keys::CACHE),
        Kind::Bucket => ("a bucket resource", keys::BUCKET),
    };
    let f = cx.fields(node, path, what, allowed)?;
    let size = sizes(cx, &f, path, envs, known);
    let version = |cx: &mut Cx<'_>, default: &str| -> Option<String> {
        match f.get("version") {
            None => Some(default.to_owned()),
            Some(v) => {
                let t = cx.text(v, &join(path, "version"), "`version`")?;
                if !t.is_empty() && t.len() <= 16 && t.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                    Some(t)
                } else {
                    cx.invalid(
                        v,
                        &join(path, "version"),
                        format!("version {} is not a version number", quote(&t)),
                        Some(format!("write e.g. `version: \"{default}\"`")),
                    );
                    None
                }
            }
        }
    };
    let fifo =
        |cx: &mut Cx<'_>| f.get("fifo").map_or(Some(false), |n| cx.boolean(n, &join(path, "fifo"), "`fifo`"));
    let spec = match kind {
        Kind::Postgres => {
            let engine = match f.get("engine") {
                None => Some(PostgresEngine::Rds),
                Some(e) => cx
                    .one_of(e, &join(path, "engine"), "postgres engine", &["rds", "aurora"])
                    .map(|w| if w == "aurora" { PostgresEngine::Aurora } else { PostgresEngine::Rds }),
            };
            let version = version(cx, DEFAULT_POSTGRES_VERSION);
            ResourceSpec::Postgres { engine: engine?, version: version? }
        }
        Kind::Queue => {
            let fifo = fifo(cx);
            let visibility_timeout = match f.get("visibilityTimeout") {
                None => Some(Duration::from_millis(DEFAULT_VISIBILITY_TIMEOUT_MS)),
                Some(n) => {
                    let p = join(path, "visibilityTimeout");
                    duration(cx, n, &p, "`visibilityTimeout`").and_then(|d| {
                        if d.as_millis() <= MAX_VISIBILITY_MS && d.as_millis() % 1000 == 0 {
                            Some(d)
                        } else {
                            cx.invalid(
                                n,
                                &p,
                                format!("visibility timeout {d} is outside 0s..12h or not whole seconds"),
                                Some("SQS takes whole seconds from 0s to 12h".to_owned()),
                            );
                            None
                        }
                    })
                }
            };
            let dead_letter = match f.get("deadLetter") {
                None => Some(None),
                Some(n) => {
                    let p = join(path, "deadLetter");
                    cx.fields(n, &p, "`deadLetter`", keys::DEAD_LETTER).and_then(|df| {
                        let m = cx.require(&df, &p, "`deadLetter`", "maxReceives", "add `maxReceives: 5`")?;
                        let n = cx.uint(m, &join(&p, "maxReceives"), "`maxReceives`", 1, 1000)?;
                        Some(Some(DeadLetter { max_receives: u32::try_from(n).ok()? }))
                    })
                }
            };
            ResourceSpec::Queue {
                fifo: fifo?,
                visibility_timeout: visibility_timeout?,
                dead_letter: dead_letter?,
            }
        }
        Kind::Topic => ResourceSpec::Topic { fifo: fifo(cx)? },
        Kind::Cache => ResourceSpec::Cache { version: version(cx, DEFAULT_VALKEY_VERSION)? },
        Kind::Bucket => ResourceSpec::Bucket {
            versioning: f
                .get("versioning")
                .map_or(Some(false), |n| cx.boolean(n, &join(path, "versioning"), "`versioning`"))?,
        },
    };
    Some(Resource { spec, size })
}

fn is_variable_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 128
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// The variable suffixes a consumer of this resource gets (spec section 6), in order.
pub fn variable_suffixes(spec: &ResourceSpec) -> Vec<&'static str> {
    match spec {
        ResourceSpec::Postgres { .. } => vec!["URL", "HOST", "PORT", "DATABASE", "USER", "PASSWORD"],
        ResourceSpec::Cache { .. } => vec!["URL", "HOST", "PORT", "PASSWORD"],
        ResourceSpec::Queue { dead_letter: Some(_), .. } => vec!["URL", "ARN", "DLQ_URL"],
        ResourceSpec::Queue { .. } => vec!["URL", "ARN"],
        ResourceSpec::Topic { .. } => vec!["ARN"],
        ResourceSpec::Bucket { .. } => vec!["NAME", "ARN", "REGION"],
    }
}

/// The variable names a consumer of resource `name` gets (`MAIN_DB_URL`, ...).
pub fn variables(name: &str, spec: &ResourceSpec) -> Vec<String> {
    let prefix = variable_prefix(name);
    variable_suffixes(spec).into_iter().map(|s| [prefix.as_str(), "_", s].concat()).collect()
}

/// One workload: each concern read in file-format order (the order of its diagnostics), then
/// the check that every variable it sees has one source. `None` when any of it is an error.
#[allow(clippy::too_many_arguments)] // reason: one call site; the pieces are the file's parts
fn workload(
    cx: &mut Cx<'_>,
    name: &str,
    node: &Node,
    path: &str,
    envs: &[String],
    environments: &IndexMap<String, Environment>,
    resources: &[(&str, &Node, &Node)],
    resource_nodes: &BTreeMap<&str, &Node>,
    known: &Known<'_>,
) -> Option<Workload> {
    let what = ["workload `", name, "`"].concat();
    let f = cx.fields(node, path, &what, keys::WORKLOAD)?;
    let errors_before = cx.diags.iter().filter(|d| d.is_error()).count();

    let image = image(cx, &f, path, &what);
    let port = cx
        .require(&f, path, &what, "port", "add `port:` the container port")
        .and_then(|n| cx.uint(n, &join(path, "port"), "`port`", 1, 65535))
        .and_then(|p| u16::try_from(p).ok());
    let health = f.get("health").and_then(|n| health(cx, n, &join(path, "health")));
    // The workload's own variable names (env, then secrets) and where each is declared.
    let mut own_names: Vec<(String, String)> = Vec::new();
    let (env, references) = env_values(cx, &f, path, &mut own_names);
    let secrets = secret_names(cx, &f, path, &mut own_names);
    let (uses, used) = used_resources(cx, &f, path, resources, resource_nodes);
    let env_from = env_references(cx, name, references, &used, resource_nodes);
    let expose = expose(cx, &f, path, name, environments);
    let size = sizes(cx, &f, path, envs, known);
    let scale = scales(cx, &f, path, envs);
    let reason = match f.get("reason") {
        None => {
            cx.error(
                Code::MissingReason,
                f.map,
                &join(path, "reason"),
                format!("workload `{name}` has no `reason`"),
                Some("add `reason: { ground: no-managed-fit | residency | on-prem-parity, detail: <why no managed service fits> }`".to_owned()),
            );
            None
        }
        Some(n) => reason(cx, n, &join(path, "reason")),
    };
    variable_collisions(cx, name, own_names, &used, resource_nodes);

    let errors_after = cx.diags.iter().filter(|d| d.is_error()).count();
    if errors_after != errors_before {
        return None;
    }
    Some(Workload {
        image: image?,
        port: port?,
        health,
        env,
        env_from,
        secrets,
        uses,
        expose: expose?,
        size,
        scale,
        reason: reason?,
    })
}

/// `image`: required, and pinned by digest.
fn image(cx: &mut Cx<'_>, f: &Fields<'_>, path: &str, what: &str) -> Option<ImageRef> {
    let n = cx.require(f, path, what, "image", "add `image: <name>:<tag>@sha256:<digest>`")?;
    let p = join(path, "image");
    let text = cx.string(n, &p, "`image`")?;
    match ImageRef::parse(&text) {
        Ok(i) => Some(i),
        Err(ImageError::Unpinned(_)) => {
            cx.error(
                Code::UnpinnedImage,
                n,
                &p,
                format!("image {} is not pinned by digest", quote(&text)),
                Some("append the digest: `<name>:<tag>@sha256:<64 hex>` (see `docker buildx imagetools inspect`)".to_owned()),
            );
            None
        }
        Err(e @ ImageError::Invalid(..)) => {
            cx.invalid(
                n,
                &p,
                e.to_string(),
                Some("write `[registry/]name[:tag]@sha256:<64 lowercase hex>`".to_owned()),
            );
            None
        }
    }
}

/// An `env` value written `${VAR}`: the name, the variable, and where it is written.
type Reference<'n> = (String, String, &'n Node, String);

/// `env`: variable names and their plain values, and the values that reference a variable
/// (`${VAR}`, checked once `uses` is known); each good name is added to `own_names`.
fn env_values<'n>(
    cx: &mut Cx<'_>,
    f: &Fields<'n>,
    path: &str,
    own_names: &mut Vec<(String, String)>,
) -> (IndexMap<String, String>, Vec<Reference<'n>>) {
    let mut env = IndexMap::new();
    let mut references = Vec::new();
    let Some(n) = f.get("env") else { return (env, references) };
    let ep = join(path, "env");
    for (k_text, k, v) in cx.named_map(n, &ep, "`env`") {
        let p = join(&ep, k_text);
        if !is_variable_name(k_text) {
            cx.invalid(
                k,
                &p,
                format!("{} is not an environment variable name", quote(k_text)),
                Some("use letters, digits and `_`, not starting with a digit".to_owned()),
            );
            continue;
        }
        let Some(val) = cx.text(v, &p, "an environment value") else { continue };
        let reference = val.strip_prefix("${").and_then(|r| r.strip_suffix('}'));
        match reference {
            Some(var) if is_variable_name(var) => {
                references.push((k_text.to_owned(), var.to_owned(), v, p.clone()))
            }
            _ if val.contains("${") => {
                // ECS hands a secret over whole: a reference cannot sit inside other text.
                cx.invalid(
                    v,
                    &p,
                    format!("{} mixes text and a `${{...}}` reference", quote(&val)),
                    Some("write the reference alone, e.g. `${MAIN_DB_HOST}`; a value with other text is plain and may not contain `${`".to_owned()),
                );
                continue;
            }
            _ => {
                env.insert(k_text.to_owned(), val);
            }
        }
        own_names.push((k_text.to_owned(), p));
    }
    (env, references)
}

/// Checks each `${VAR}` of `env` against the variables of the resources the workload uses.
fn env_references(
    cx: &mut Cx<'_>,
    name: &str,
    references: Vec<Reference<'_>>,
    used: &[(String, &Node, String)],
    resource_nodes: &BTreeMap<&str, &Node>,
) -> IndexMap<String, String> {
    let mut received: Vec<String> = Vec::new();
    for (r, _, _) in used {
        if let Some(rnode) = resource_nodes.get(r.as_str()) {
            received.extend(variables(r, &resource_spec_quiet(rnode)));
        }
    }
    let mut env_from = IndexMap::new();
    for (key, var, node, p) in references {
        if received.contains(&var) {
            env_from.insert(key, var);
            continue;
        }
        let help = match did_you_mean(&var, received.iter().map(String::as_str)) {
            Some(s) => format!("did you mean `${{{s}}}`?"),
            None if received.is_empty() => "add the resource it comes from to `uses`".to_owned(),
            None => format!("workload `{name}` receives: {}", received.join(", ")),
        };
        cx.error(
            Code::UnknownVariable,
            node,
            &p,
            format!("`${{{var}}}` is not a variable workload `{name}` is bound to"),
            Some(help),
        );
    }
    env_from
}

/// `secrets`: variable names, each once; each good name is added to `own_names`.
fn secret_names(
    cx: &mut Cx<'_>,
    f: &Fields<'_>,
    path: &str,
    own_names: &mut Vec<(String, String)>,
) -> Vec<String> {
    let mut secrets = Vec::new();
    let Some(n) = f.get("secrets") else { return secrets };
    let sp = join(path, "secrets");
    for (i, item) in cx.list(n, &sp, "`secrets`").unwrap_or_default().iter().enumerate() {
        let p = index(&sp, i);
        let Some(s) = cx.string(item, &p, "a secret name") else { continue };
        if !is_variable_name(&s) {
            cx.invalid(
                item,
                &p,
                format!("{} is not a secret name", quote(&s)),
                Some("use letters, digits and `_`, not starting with a digit".to_owned()),
            );
        } else if secrets.contains(&s) {
            cx.error(
                Code::DuplicateName,
                item,
                &p,
                format!("secret {} is listed twice", quote(&s)),
                Some("remove one of the two".to_owned()),
            );
        } else {
            own_names.push((s.clone(), p));
            secrets.push(s);
        }
    }
    secrets
}

/// `uses`: declared resources, each once. Returns the names, and each with its node and path
/// for the variable check.
fn used_resources<'n>(
    cx: &mut Cx<'_>,
    f: &Fields<'n>,
    path: &str,
    resources: &[(&str, &Node, &Node)],
    resource_nodes: &BTreeMap<&str, &Node>,
) -> (Vec<String>, Vec<(String, &'n Node, String)>) {
    let mut uses = Vec::new();
    let mut used = Vec::new();
    let Some(n) = f.get("uses") else { return (uses, used) };
    let up = join(path, "uses");
    for (i, item) in cx.list(n, &up, "`uses`").unwrap_or_default().iter().enumerate() {
        let p = index(&up, i);
        let Some(r) = cx.string(item, &p, "a resource name") else { continue };
        if !resource_nodes.contains_key(r.as_str()) {
            unknown_resource(cx, item, &p, &r, resources);
        } else if uses.contains(&r) {
            cx.error(
                Code::DuplicateName,
                item,
                &p,
                format!("{} is used twice", quote(&r)),
                Some("remove one of the two".to_owned()),
            );
        } else {
            uses.push(r.clone());
            used.push((r, item, p));
        }
    }
    (uses, used)
}

/// `expose` (internal by default); a public workload needs a domain in every environment.
fn expose(
    cx: &mut Cx<'_>,
    f: &Fields<'_>,
    path: &str,
    name: &str,
    environments: &IndexMap<String, Environment>,
) -> Option<Expose> {
    let Some(n) = f.get("expose") else { return Some(Expose::Internal) };
    let expose = cx
        .one_of(n, &join(path, "expose"), "`expose`", &["internal", "public"])
        .map(|w| if w == "public" { Expose::Public } else { Expose::Internal });
    if expose == Some(Expose::Public) {
        for (env_name, env) in environments {
            if env.domain.is_none() {
                cx.error(
                    Code::MissingDomain,
                    n,
                    &join(path, "expose"),
                    format!("workload `{name}` is public but environment `{env_name}` has no `domain`"),
                    Some(format!(
                        "add `domain:` to `environments.{env_name}` (its host is `{name}.<domain>`)"
                    )),
                );
            }
        }
    }
    expose
}

/// `scale`: per declared environment, a valid `min`..`max`.
fn scales(cx: &mut Cx<'_>, f: &Fields<'_>, path: &str, envs: &[String]) -> IndexMap<String, Scale> {
    let mut out = IndexMap::new();
    let Some(n) = f.get("scale") else { return out };
    let sp = join(path, "scale");
    for (env_name, _, v) in env_keys(cx, n, &sp, "`scale`", envs) {
        if let Some(s) = scale(cx, v, &join(&sp, &env_name)) {
            out.insert(env_name, s);
        }
    }
    out
}

/// One environment's scale: whole numbers (1 when left out), `min` at least 1 and at most `max`.
fn scale(cx: &mut Cx<'_>, v: &Node, p: &str) -> Option<Scale> {
    let sf = cx.fields(v, p, "a scale", keys::SCALE)?;
    let read = |cx: &mut Cx<'_>, key: &str| -> Option<(u32, &Node)> {
        let node = sf.get(key)?;
        match &node.value {
            Value::Int(i) => {
                let i = i.get();
                Some((u32::try_from(i).unwrap_or(if i < 0 { 0 } else { u32::MAX }), node))
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
    };
    let min = read(cx, "min");
    let max = read(cx, "max");
    let (min_v, max_v) = (min.map_or(1, |m| m.0), max.map_or(1, |m| m.0));
    if sf.get("min").is_some() && min.is_none() || sf.get("max").is_some() && max.is_none() {
        return None;
    }
    if min_v < 1 {
        let at = min.map_or(v, |m| m.1);
        cx.error(
            Code::InvalidScale,
            at,
            &join(p, "min"),
            format!("scale min is {min_v}; it must be at least 1"),
            Some("write `min: 1` or more".to_owned()),
        );
        None
    } else if min_v > max_v {
        let at = max.map_or(v, |m| m.1);
        cx.error(
            Code::InvalidScale,
            at,
            p,
            format!("scale min {min_v} is greater than max {max_v}"),
            Some(format!("raise `max` to at least {min_v} or lower `min`")),
        );
        None
    } else {
        Some(Scale { min: min_v, max: max_v })
    }
}

/// Every variable the workload sees must have one source: its own names (`seen`, env then
/// secrets) first, then each used resource's variables in order.
fn variable_collisions(
    cx: &mut Cx<'_>,
    name: &str,
    mut seen: Vec<(String, String)>,
    used: &[(String, &Node, String)],
    resource_nodes: &BTreeMap<&str, &Node>,
) {
    for (r, item, p) in used {
        let Some(rnode) = resource_nodes.get(r.as_str()) else { continue };
        let spec = resource_spec_quiet(rnode);
        for v in variables(r, &spec) {
            if let Some((_, first)) = seen.iter().find(|(n, _)| *n == v) {
                cx.error(
                    Code::VariableCollision,
                    item,
                    p,
                    format!("variable `{v}` of resource `{r}` collides with `{first}` in workload `{name}`"),
                    Some(
                        "rename the resource or the workload's own variable so each name has one source"
                            .to_owned(),
                    ),
                );
            } else {
                seen.push((v, p.clone()));
            }
        }
    }
}

/// The variable-relevant part of a resource's spec (kind and dead letter), read without
/// reporting: the resource's own validation reports its problems.
fn resource_spec_quiet(node: &Node) -> ResourceSpec {
    let Value::Map(entries) = &node.value else { return ResourceSpec::Topic { fifo: false } };
    let get = |key: &str| {
        entries.iter().find(|(k, _)| matches!(&k.value, Value::Str(s) if s == key)).map(|(_, v)| v)
    };
    let kind = get("kind").and_then(|k| k.scalar_text()).unwrap_or_default();
    match kind.as_str() {
        "postgres" => ResourceSpec::Postgres { engine: PostgresEngine::Rds, version: String::new() },
        "cache" => ResourceSpec::Cache { version: String::new() },
        "bucket" => ResourceSpec::Bucket { versioning: false },
        "queue" => ResourceSpec::Queue {
            fifo: false,
            visibility_timeout: Duration::from_millis(0),
            dead_letter: get("deadLetter").map(|_| DeadLetter { max_receives: 1 }),
        },
        _ => ResourceSpec::Topic { fifo: false },
    }
}

/// How many resource names the help of an unknown resource lists.
const LISTED: usize = 10;

fn unknown_resource(
    cx: &mut Cx<'_>,
    item: &Node,
    path: &str,
    name: &str,
    resources: &[(&str, &Node, &Node)],
) {
    let help = match did_you_mean(name, resources.iter().map(|(n, _, _)| *n)) {
        Some(s) => format!("did you mean `{s}`?"),
        None if resources.is_empty() => "declare it under `resources` in the root runway".to_owned(),
        // A product may declare thousands: the help names the first few.
        None => {
            let mut names = resources.iter().map(|(n, _, _)| *n).take(LISTED).collect::<Vec<_>>().join(", ");
            if resources.len() > LISTED {
                names.push_str(&format!(" and {} more", resources.len() - LISTED));
            }
            format!("declared resources: {names}")
        }
    };
    cx.error(
        Code::UnknownResource,
        item,
        path,
        format!("{} is not a declared resource", quote(name)),
        Some(help),
    );
}

fn health(cx: &mut Cx<'_>, node: &Node, path: &str) -> Option<Health> {
    let f = cx.fields(node, path, "`health`", keys::HEALTH)?;
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
    let dur = |cx: &mut Cx<'_>, key: &str, default: u64| -> Option<Duration> {
        f.get(key).map_or(Some(Duration::from_millis(default)), |n| {
            duration(cx, n, &join(path, key), &format!("`{key}`"))
        })
    };
    let interval = dur(cx, "interval", 30_000);
    let timeout = dur(cx, "timeout", 5_000);
    let threshold = |cx: &mut Cx<'_>, key: &str, default: u32| -> Option<u32> {
        f.get(key).map_or(Some(default), |n| {
            cx.uint(n, &join(path, key), &format!("`{key}`"), 1, 10).and_then(|v| u32::try_from(v).ok())
        })
    };
    let healthy_threshold = threshold(cx, "healthyThreshold", 2);
    let unhealthy_threshold = threshold(cx, "unhealthyThreshold", 3);
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
    Some(Health {
        check: check?,
        interval: interval?,
        timeout: timeout?,
        healthy_threshold: healthy_threshold?,
        unhealthy_threshold: unhealthy_threshold?,
    })
}

fn reason(cx: &mut Cx<'_>, node: &Node, path: &str) -> Option<Reason> {
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
            let t = cx.string(d, &join(path, "detail"), "`detail`")?;
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

/// Entries' values by name, the first of a repeated name (as a scan in file order finds it),
/// for the `uses` of workloads and members.
pub(crate) fn first_by_name<'n>(entries: &[(&'n str, &'n Node, &'n Node)]) -> BTreeMap<&'n str, &'n Node> {
    entries.iter().rev().map(|(n, _, v)| (*n, *v)).collect()
}

/// A member file. `resources` are the root's resource entries as written (for suggestions);
/// `by_name` is the same entries by name, the first of a repeated name (for lookups).
pub(crate) fn member(
    cx: &mut Cx<'_>,
    node: &Node,
    folder_name: &str,
    resources: &[(&str, &Node, &Node)],
    by_name: &BTreeMap<&str, &Node>,
) -> Option<(Member, Node)> {
    if node.value == Value::Null {
        cx.invalid(
            node,
            "",
            "the member file is empty".to_owned(),
            Some("a member runway starts with `runway: 3`".to_owned()),
        );
        return None;
    }
    let f = cx.fields(node, "", "a member runway", keys::MEMBER)?;
    let errors_before = cx.diags.iter().filter(|d| d.is_error()).count();
    version(cx, &f, "a member runway");
    let (name, name_node) = match f.get("member") {
        None => (Some(folder_name.to_owned()), node.clone()),
        Some(n) => (cx.string(n, "member", "`member`"), n.clone()),
    };
    let name = name.filter(|nm| name_ok(cx, &name_node, "member", nm, "member", true));
    let runtime = match f.get("runtime") {
        None => Some(Runtime::Encore),
        Some(n) => cx
            .one_of(n, "runtime", "runtime", &["encore", "other"])
            .map(|w| if w == "other" { Runtime::Other } else { Runtime::Encore }),
    };
    let mut requires = Vec::new();
    if let Some(n) = f.get("requires") {
        for (i, item) in cx.list(n, "requires", "`requires`").unwrap_or_default().iter().enumerate() {
            let p = index("requires", i);
            if item.scalar_text().as_deref() == Some("postgres") {
                cx.invalid(
                    item,
                    &p,
                    "`requires` lists legacy engines; postgres is not one".to_owned(),
                    Some("declare a postgres resource in the root runway and `uses:` it".to_owned()),
                );
                continue;
            }
            if let Some(w) = cx.one_of(item, &p, "engine", ENGINES) {
                let e = engine_of(w).unwrap_or(Engine::Queue);
                if !requires.contains(&e) {
                    requires.push(e);
                }
            }
        }
    }
    let mut uses = Vec::new();
    if let Some(n) = f.get("uses") {
        for (i, item) in cx.list(n, "uses", "`uses`").unwrap_or_default().iter().enumerate() {
            let p = index("uses", i);
            let Some(r) = cx.string(item, &p, "a resource name") else { continue };
            let Some(rnode) = by_name.get(r.as_str()) else {
                unknown_resource(cx, item, &p, &r, resources);
                continue;
            };
            if runtime == Some(Runtime::Encore)
                && matches!(resource_spec_quiet(rnode), ResourceSpec::Postgres { .. })
            {
                cx.error(
                    Code::EncorePostgres,
                    item,
                    &p,
                    format!("Encore member uses postgres resource `{r}`; Encore keeps its own database until its deploy path is settled"),
                    Some("use Encore's own database, or set `runtime: other` if this member is not an Encore app".to_owned()),
                );
                continue;
            }
            if !uses.contains(&r) {
                uses.push(r);
            }
        }
    }
    // Variables from used resources and required engines must not collide.
    let mut seen: Vec<(String, String)> = Vec::new();
    let implicit: Vec<(String, ResourceSpec)> =
        requires.iter().map(|e| (format!("shared-{}", e.as_str()), ResourceSpec::default_for(*e))).collect();
    let declared: Vec<(String, ResourceSpec)> = uses
        .iter()
        .filter_map(|r| by_name.get(r.as_str()).map(|v| (r.clone(), resource_spec_quiet(v))))
        .collect();
    for (r, spec) in declared.iter().chain(implicit.iter()) {
        for v in variables(r, spec) {
            if let Some((_, first)) = seen.iter().find(|(n, _)| *n == v) {
                cx.error(
                    Code::VariableCollision,
                    node,
                    "uses",
                    format!("variable `{v}` of `{r}` collides with the one of `{first}`"),
                    Some("rename one of the resources".to_owned()),
                );
            } else {
                seen.push((v, r.clone()));
            }
        }
    }
    let errors_after = cx.diags.iter().filter(|d| d.is_error()).count();
    if errors_after != errors_before {
        return None;
    }
    Some((Member { file: cx.file.to_owned(), name: name?, runtime: runtime?, requires, uses }, name_node))
}

/// `unused-shared` warnings: a shared size for an engine no member requires.
pub(crate) fn unused_shared(cx: &mut Cx<'_>, shared: &[(String, Engine, Node)], members: &[Member]) {
    for (env, engine, key) in shared {
        if !members.iter().any(|m| m.requires.contains(engine)) {
            cx.warning(
                Code::UnusedShared,
                key,
                &format!("environments.{env}.shared.{}", engine.as_str()),
                format!("shared `{}` is sized in `{env}` but no member requires it", engine.as_str()),
                Some("remove it, or add it to a member's `requires`".to_owned()),
            );
        }
    }
}
