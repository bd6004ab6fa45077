//! The catalogue file format: serde types to read it, a writer to print it back.

use std::fmt::Write as _;

use indexmap::IndexMap;
use runway_schema::{Code, Diagnostic, Location, Money};
use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::{CacheSize, Catalogue, PostgresSize, PriceEntry, PriceStatus, Sizes, TaskSize};

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawCatalogue {
    #[serde(default)]
    sizes: RawSizes,
    #[serde(default)]
    regions: IndexMap<String, IndexMap<String, Spanned<RawPrice>>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawSizes {
    #[serde(default)]
    postgres: RawPostgres,
    #[serde(default)]
    cache: IndexMap<String, Spanned<RawCache>>,
    #[serde(default)]
    messaging: IndexMap<String, Spanned<RawMessaging>>,
    #[serde(default)]
    bucket: IndexMap<String, Spanned<RawBucket>>,
    #[serde(default)]
    workload: IndexMap<String, Spanned<RawTask>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawPostgres {
    #[serde(default)]
    rds: IndexMap<String, Spanned<RawPostgresSize>>,
    #[serde(default)]
    aurora: IndexMap<String, Spanned<RawPostgresSize>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawPostgresSize {
    instance_class: String,
    instances: u32,
    storage_gb: u32,
    #[serde(default)]
    max_storage_gb: Option<u32>,
    #[serde(default)]
    multi_az: bool,
    vcpu: u32,
    #[serde(default)]
    max_connections: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawCache {
    node_type: String,
    nodes: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawMessaging {
    requests: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawBucket {
    storage_gb: u64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawTask {
    cpu: u32,
    memory_mib: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawPrice {
    unit: String,
    #[serde(default)]
    price: Option<Spanned<String>>,
    #[serde(default)]
    source: Option<String>,
    #[serde(default)]
    seen: Option<String>,
    #[serde(default)]
    unpriced: Option<String>,
}

fn location(file: &str, loc: serde_saphyr::Location) -> Location {
    let span = loc.span();
    Location {
        file: file.to_owned(),
        line: u32::try_from(loc.line()).unwrap_or(u32::MAX),
        column: u32::try_from(loc.column()).unwrap_or(u32::MAX),
        offset: usize::try_from(span.offset()).unwrap_or(usize::MAX),
        len: usize::try_from(span.len()).unwrap_or(0),
    }
}

#[allow(clippy::wildcard_enum_match_arm)] // reason: serde-saphyr's errors, not a kind: the rest are syntax
fn from_yaml_error(file: &str, err: &serde_saphyr::Error) -> Diagnostic {
    use serde_saphyr::Error as E;
    let err = err.without_snippet();
    let code = match err {
        E::SerdeUnknownField { .. } => Code::UnknownField,
        E::SerdeMissingField { .. } => Code::MissingField,
        E::DuplicateMappingKey { .. } => Code::DuplicateKey,
        E::SerdeInvalidType { .. }
        | E::SerdeInvalidValue { .. }
        | E::SerdeInvalidLength { .. }
        | E::SerdeUnknownVariant { .. }
        | E::InvalidScalar { .. }
        | E::InvalidBooleanStrict { .. }
        | E::NullIntoString { .. }
        | E::Message { .. } => Code::InvalidValue,
        _ => Code::YamlSyntax,
    };
    let loc = err
        .location()
        .map(|l| location(file, l))
        .unwrap_or_else(|| Location { file: file.to_owned(), ..Location::default() });
    let rendered = err.to_string();
    // The location is in the diagnostic's own fields; drop the renderer's copy of it.
    let message = match rendered.rfind(" at line ") {
        Some(i) => rendered[..i].to_owned(),
        None => rendered,
    };
    let mut d = Diagnostic::error(code, loc, "", format!("catalogue: {message}"));
    if code == Code::UnknownField {
        d = d.with_help("see docs/catalogue.md for the catalogue format");
    }
    d
}

/// The most bytes a catalogue file may have: a file of every region's prices is far smaller.
pub const MAX_CATALOGUE_BYTES: usize = 4 * 1024 * 1024;

/// Refuses, without quoting any of it, a text that is not a catalogue file: over the size bound,
/// holding a control character, or not declaring `regions:` or `sizes:` at the start of a line
/// (a path that reached a file runway does not own). A file of only comments is an empty
/// catalogue.
fn refuse_foreign(file: &str, text: &str) -> Result<(), Diagnostic> {
    let nowhere = Location { file: file.to_owned(), line: 1, column: 1, ..Location::default() };
    let refuse = |message: String, help: &str| {
        Err(Diagnostic::error(Code::InvalidValue, nowhere.clone(), "", message).with_help(help))
    };
    if text.len() > MAX_CATALOGUE_BYTES {
        return refuse(
            format!("the catalogue file is {} bytes, over the limit of {MAX_CATALOGUE_BYTES}", text.len()),
            "a catalogue file holds sizes and prices; check that the path names one",
        );
    }
    if !runway_schema::paths::only_comments(text)
        && !runway_schema::paths::declares(text, &["regions", "sizes"])
    {
        return refuse(
            format!(
                "`{file}` is not a catalogue file: no line starts with `regions:` or `sizes:`, so none of it is shown"
            ),
            "a catalogue file starts with `regions:` or `sizes:` (docs/catalogue.md); check the path",
        );
    }
    if let Some((c, line, column)) = runway_schema::paths::first_control(text) {
        return refuse(
            format!(
                "the file holds the control character U+{:04X} at line {line}, column {column}: it is not a catalogue file",
                u32::from(c)
            ),
            "a catalogue file is UTF-8 text; check that the path names one",
        );
    }
    Ok(())
}

/// Is `text` a date written `YYYY-MM-DD`?
fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

pub(crate) fn parse(file: &str, text: &str) -> Result<Catalogue, Vec<Diagnostic>> {
    refuse_foreign(file, text).map_err(|d| vec![d])?;
    let raw: RawCatalogue = serde_saphyr::from_str(text).map_err(|e| vec![from_yaml_error(file, &e)])?;
    let mut diags = Vec::new();
    let mut regions = IndexMap::new();
    for (region, table) in raw.regions {
        let prices = prices(file, &region, table, &mut diags);
        regions.insert(region, prices);
    }
    let sizes = sizes(file, raw.sizes, &mut diags);
    if !diags.is_empty() {
        return Err(diags);
    }
    Ok(Catalogue { sizes, regions })
}

/// One region's prices, each checked: a price with its source and date, or why it has none.
fn prices(
    file: &str,
    region: &str,
    table: IndexMap<String, Spanned<RawPrice>>,
    diags: &mut Vec<Diagnostic>,
) -> IndexMap<String, PriceEntry> {
    let mut prices = IndexMap::new();
    for (key, spanned) in table {
        let path = format!("regions.{region}.{key}");
        let at = location(file, spanned.referenced);
        let raw = spanned.value;
        let entry = match (raw.price, raw.unpriced) {
            (Some(price), None) => {
                let price_at = location(file, price.referenced);
                let money = match Money::parse(&price.value) {
                    Ok(m) => m,
                    Err(e) => {
                        diags.push(Diagnostic::error(
                            Code::InvalidValue,
                            price_at,
                            format!("{path}.price"),
                            e.to_string(),
                        ));
                        continue;
                    }
                };
                let (Some(source), Some(seen)) = (raw.source, raw.seen) else {
                    diags.push(
                        Diagnostic::error(
                            Code::MissingField,
                            at,
                            path,
                            format!("price `{key}` needs `source` and `seen`"),
                        )
                        .with_help(
                            "every figure names where it was seen (URL or document) and when (YYYY-MM-DD)",
                        ),
                    );
                    continue;
                };
                if source.trim().is_empty() || !is_date(&seen) {
                    diags.push(Diagnostic::error(
                        Code::InvalidValue,
                        at,
                        path,
                        format!(
                            "price `{key}` needs a non-empty `source` and `seen` as YYYY-MM-DD (got `{seen}`)"
                        ),
                    ));
                    continue;
                }
                PriceStatus::Priced { price: money, source, seen }
            }
            (None, Some(reason)) => {
                if raw.source.is_some() || raw.seen.is_some() {
                    diags.push(Diagnostic::error(
                        Code::InvalidValue,
                        at,
                        path,
                        format!("`{key}` is unpriced: `source` and `seen` belong to a price"),
                    ));
                    continue;
                }
                PriceStatus::Unpriced { unpriced: reason }
            }
            _ => {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        at,
                        path,
                        format!("`{key}` needs exactly one of `price` and `unpriced`"),
                    )
                    .with_help("write `price: \"0.016\"` with `source` and `seen`, or `unpriced: <why>`"),
                );
                continue;
            }
        };
        if raw.unit.trim().is_empty() {
            diags.push(Diagnostic::error(
                Code::InvalidValue,
                at,
                format!("regions.{region}.{key}.unit"),
                "a price needs a unit",
            ));
            continue;
        }
        prices.insert(key, PriceEntry { unit: raw.unit, status: entry });
    }
    prices
}

/// The sizes, each declaring something (a zero would price an item at $0) and a storage
/// ceiling AWS takes.
fn sizes(file: &str, s: RawSizes, diags: &mut Vec<Diagnostic>) -> Sizes {
    let mut sizes = Sizes::default();
    // A zero count or capacity would price an item at $0; a size must declare something.
    let mut positive = |path: String, at: serde_saphyr::Location, fields: &[(&str, u64)]| {
        for (field, value) in fields {
            if *value == 0 {
                diags.push(Diagnostic::error(
                    Code::InvalidValue,
                    location(file, at),
                    format!("{path}.{field}"),
                    format!("`{field}` of size `{path}` must be at least 1"),
                ));
                return false;
            }
        }
        true
    };
    // Reported after the sizes' other problems (`positive` holds the list meanwhile).
    let mut ceilings = Vec::new();
    for (engine, map, out) in [
        ("rds", s.postgres.rds, &mut sizes.postgres_rds),
        ("aurora", s.postgres.aurora, &mut sizes.postgres_aurora),
    ] {
        for (name, v) in map {
            let (at, v) = (v.referenced, v.value);
            let fields = [
                ("instances", u64::from(v.instances)),
                ("storageGb", u64::from(v.storage_gb)),
                ("vcpu", u64::from(v.vcpu)),
            ];
            let path = format!("sizes.postgres.{engine}.{name}");
            let problem = max_storage_problem(engine, &v);
            if let Some(message) = &problem {
                let at = location(file, at);
                ceilings.push(Diagnostic::error(
                    Code::InvalidValue,
                    at,
                    format!("{path}.maxStorageGb"),
                    message,
                ));
            }
            if positive(path, at, &fields) && problem.is_none() {
                let size = PostgresSize {
                    instance_class: v.instance_class,
                    instances: v.instances,
                    storage_gb: v.storage_gb,
                    max_storage_gb: v.max_storage_gb,
                    multi_az: v.multi_az,
                    vcpu: v.vcpu,
                    max_connections: v.max_connections.filter(|&m| m > 0),
                };
                out.insert(name, size);
            }
        }
    }
    for (name, v) in s.cache {
        if positive(format!("sizes.cache.{name}"), v.referenced, &[("nodes", u64::from(v.value.nodes))]) {
            sizes.cache.insert(name, CacheSize { node_type: v.value.node_type, nodes: v.value.nodes });
        }
    }
    for (name, v) in s.messaging {
        if positive(format!("sizes.messaging.{name}"), v.referenced, &[("requests", v.value.requests)]) {
            sizes.messaging.insert(name, v.value.requests);
        }
    }
    for (name, v) in s.bucket {
        if positive(format!("sizes.bucket.{name}"), v.referenced, &[("storageGb", v.value.storage_gb)]) {
            sizes.bucket.insert(name, v.value.storage_gb);
        }
    }
    for (name, v) in s.workload {
        let fields = [("cpu", u64::from(v.value.cpu)), ("memoryMib", u64::from(v.value.memory_mib))];
        if positive(format!("sizes.workload.{name}"), v.referenced, &fields) {
            sizes.workload.insert(name, TaskSize { cpu: v.value.cpu, memory_mib: v.value.memory_mib });
        }
    }
    diags.append(&mut ceilings);
    sizes
}

/// The largest gp3 storage of an RDS instance, in GiB.
const RDS_MAX_STORAGE_GB: u64 = 65_536;

/// Why a postgres size's `maxStorageGb` is not one AWS takes, if it is not: RDS wants the
/// ceiling at least 10% above the allocated storage and at most 64 TiB; Aurora has no such
/// setting (its storage grows by itself).
fn max_storage_problem(engine: &str, v: &RawPostgresSize) -> Option<String> {
    let max = u64::from(v.max_storage_gb?);
    let allocated = u64::from(v.storage_gb);
    if engine == "aurora" {
        Some("Aurora storage grows by itself: `maxStorageGb` is for RDS sizes only".to_owned())
    } else if max * 10 < allocated * 11 {
        Some(format!(
            "`maxStorageGb` ({max}) must be at least 10% above `storageGb` ({allocated}): RDS refuses a lower ceiling"
        ))
    } else if max > RDS_MAX_STORAGE_GB {
        Some(format!("`maxStorageGb` ({max}) is above the {RDS_MAX_STORAGE_GB} GB RDS allows"))
    } else {
        None
    }
}

/// A YAML double-quoted string (always quoted: no value is ever read as a number or bool).
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub(crate) fn to_yaml(c: &Catalogue) -> String {
    // Writing to a String cannot fail; `let _ =` drops the always-Ok fmt::Result.
    let mut o = String::new();
    o.push_str("# runway size catalogue (format: docs/catalogue.md)\nsizes:\n");
    // Every section named: a new one is a compile error here.
    let Sizes { postgres_rds, postgres_aurora, cache, messaging, bucket, workload } = &c.sizes;
    o.push_str("  postgres:\n");
    for (engine, map) in [("rds", postgres_rds), ("aurora", postgres_aurora)] {
        let _ = writeln!(o, "    {engine}:{}", if map.is_empty() { " {}" } else { "" });
        for (name, p) in map {
            let _ = writeln!(
                o,
                "      {}: {{ instanceClass: {}, instances: {}, storageGb: {}, {}multiAz: {}, vcpu: {}{} }}",
                quoted(name),
                quoted(&p.instance_class),
                p.instances,
                p.storage_gb,
                p.max_storage_gb.map(|m| format!("maxStorageGb: {m}, ")).unwrap_or_default(),
                p.multi_az,
                p.vcpu,
                p.max_connections.map(|m| format!(", maxConnections: {m}")).unwrap_or_default()
            );
        }
    }
    let section = |o: &mut String, title: &str, rows: Vec<(String, String)>| {
        let _ = writeln!(o, "  {title}:{}", if rows.is_empty() { " {}" } else { "" });
        for (name, body) in rows {
            let _ = writeln!(o, "    {}: {{ {body} }}", quoted(&name));
        }
    };
    section(
        &mut o,
        "cache",
        cache
            .iter()
            .map(|(k, v)| (k.clone(), format!("nodeType: {}, nodes: {}", quoted(&v.node_type), v.nodes)))
            .collect(),
    );
    section(
        &mut o,
        "messaging",
        messaging.iter().map(|(k, v)| (k.clone(), format!("requests: {v}"))).collect(),
    );
    section(&mut o, "bucket", bucket.iter().map(|(k, v)| (k.clone(), format!("storageGb: {v}"))).collect());
    section(
        &mut o,
        "workload",
        workload
            .iter()
            .map(|(k, v)| (k.clone(), format!("cpu: {}, memoryMib: {}", v.cpu, v.memory_mib)))
            .collect(),
    );
    let _ = writeln!(o, "regions:{}", if c.regions.is_empty() { " {}" } else { "" });
    for (region, table) in &c.regions {
        let _ = writeln!(o, "  {}:{}", quoted(region), if table.is_empty() { " {}" } else { "" });
        for (key, e) in table {
            let _ = writeln!(o, "    {}:", quoted(key));
            let _ = writeln!(o, "      unit: {}", quoted(&e.unit));
            match &e.status {
                PriceStatus::Priced { price, source, seen } => {
                    let _ = writeln!(o, "      price: {}", quoted(&price.0.to_string()));
                    let _ = writeln!(o, "      source: {}", quoted(source));
                    let _ = writeln!(o, "      seen: {}", quoted(seen));
                }
                PriceStatus::Unpriced { unpriced } => {
                    let _ = writeln!(o, "      unpriced: {}", quoted(unpriced));
                }
            }
        }
    }
    o
}
