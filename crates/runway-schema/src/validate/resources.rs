//! One resource of the root: its kind and spec, the variables a consumer gets, and the
//! lookups of resources by name that workloads and members share.

use crate::diagnostic::{Code, did_you_mean};
use crate::model::*;
use crate::read::{Cx, Fields, join, quote};
use crate::tree::{Node, Value};
use crate::values::{Duration, variable_prefix};

use super::{Known, MAX_VISIBILITY_MS, POSTGRES_ENGINES, RESERVED_KINDS, duration, keys, sizes};

fn kind_of(cx: &mut Cx<'_>, f: &Fields<'_>, path: &str) -> Option<Kind> {
    let k =
        cx.require(f, path, "a resource", "kind", &format!("add `kind:` one of {}", Kind::NAMES.join(", ")))?;
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
            Some(format!("use one of {}, or raise the trigger", Kind::NAMES.join(", "))),
        );
        return None;
    }
    let kind = match Kind::from_name(&text) {
        Some(kind) => kind,
        None => {
            let help = match did_you_mean(&text, Kind::NAMES.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("the kinds are: {}", Kind::NAMES.join(", ")),
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

/// What a resource of `kind` is called in messages, and its keys.
pub(crate) fn kind_keys(kind: Kind) -> (&'static str, &'static [&'static str]) {
    match kind {
        Kind::Postgres => ("a postgres resource", keys::POSTGRES),
        Kind::Queue => ("a queue resource", keys::QUEUE),
        Kind::Topic => ("a topic resource", keys::TOPIC),
        Kind::Cache => ("a cache resource", keys::CACHE),
        Kind::Bucket => ("a bucket resource", keys::BUCKET),
    }
}

pub(super) fn resource(
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
        let mut all: Vec<&str> = Kind::ALL.iter().flat_map(|k| kind_keys(*k).1).copied().collect();
        all.sort_unstable();
        all.dedup();
        if let Some(f) = cx.fields(node, path, "a resource", &all) {
            sizes(cx, &f, path, envs, known);
        }
        return None;
    };
    let (what, allowed) = kind_keys(kind);
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
                    .one_of(e, &join(path, "engine"), "postgres engine", POSTGRES_ENGINES)
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
                .map_or(Some(None), |n| versioning(cx, n, &join(path, "versioning")))?,
        },
    };
    let restore = match f.get("restore") {
        Some(n) if kind == Kind::Postgres => Some(super::restore::restore(cx, n, &join(path, "restore"))?),
        Some(_) | None => None,
    };
    Some(Resource { spec, size, restore })
}

/// A bucket's `versioning`: `true` or `false`, or `{ keepDays: N }` (on, noncurrent versions
/// kept N days). `None` when it is invalid (reported).
fn versioning(cx: &mut Cx<'_>, node: &Node, path: &str) -> Option<Option<Versioning>> {
    if let Value::Map(_) = node.value {
        let f = cx.fields(node, path, "`versioning`", keys::VERSIONING)?;
        let keep_days = match f.get("keepDays") {
            None => DEFAULT_VERSION_KEEP_DAYS,
            Some(n) => {
                let max = u64::from(MAX_VERSION_KEEP_DAYS);
                u32::try_from(cx.uint(n, &join(path, "keepDays"), "`keepDays`", 1, max)?).ok()?
            }
        };
        return Some(Some(Versioning { keep_days }));
    }
    let Value::Bool(on) = node.value else {
        cx.invalid(
            node,
            path,
            format!("`versioning` must be true, false or a mapping, found {}", node.describe()),
            Some(format!(
                "write `versioning: true` or `versioning: {{ keepDays: {DEFAULT_VERSION_KEEP_DAYS} }}`"
            )),
        );
        return None;
    };
    Some(on.then_some(Versioning { keep_days: DEFAULT_VERSION_KEEP_DAYS }))
}

pub(super) fn is_variable_name(name: &str) -> bool {
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

/// The variable-relevant part of a resource's spec (kind and dead letter), read without
/// reporting: the resource's own validation reports its problems. `None` when its kind is
/// missing or unknown: such a resource gives no variables.
pub(super) fn resource_spec_quiet(node: &Node) -> Option<ResourceSpec> {
    let Value::Map(entries) = &node.value else { return None };
    let get = |key: &str| {
        entries.iter().find(|(k, _)| matches!(&k.value, Value::Str(s) if s == key)).map(|(_, v)| v)
    };
    let kind = get("kind").and_then(|k| k.scalar_text())?;
    Some(match Kind::from_name(&kind)? {
        Kind::Postgres => ResourceSpec::Postgres { engine: PostgresEngine::Rds, version: String::new() },
        Kind::Cache => ResourceSpec::Cache { version: String::new() },
        Kind::Bucket => ResourceSpec::Bucket { versioning: None },
        Kind::Queue => ResourceSpec::Queue {
            fifo: false,
            visibility_timeout: Duration::from_millis(0),
            dead_letter: get("deadLetter").map(|_| DeadLetter { max_receives: 1 }),
        },
        Kind::Topic => ResourceSpec::Topic { fifo: false },
    })
}

/// How many resource names the help of an unknown resource lists.
const LISTED: usize = 10;

pub(super) fn unknown_resource(
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
