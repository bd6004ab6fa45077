//! `plan`: a structured arbitrary runway, written as text and loaded; when it is valid, every
//! environment is planned (twice, byte-identical), rendered as a Pulumi program, and every
//! pair of plans is diffed.
//!
//! The description ([`Desc`]) picks names mostly from small pools chosen to collide in the
//! ways the planner must survive (a queue `jobs` with a dead-letter queue beside a queue
//! `jobs-dlq`, `db` beside `db-proxy`, names at the 40-character limit sharing a long head),
//! and rarely takes raw fuzzer text instead, so that most inputs load and reach the planner.
#![no_main]

use std::sync::OnceLock;

use arbitrary::Arbitrary;
use cost::Catalogue;
use libfuzzer_sys::fuzz_target;
use runway_schema::{Loaded, MemFiles, Options, load};
use serde_json::{Map, Value, json};

const MAX_ENVS: usize = 4;
const MAX_RESOURCES: usize = 8;
const MAX_WORKLOADS: usize = 5;
const MAX_MEMBERS: usize = 4;
const MAX_LIST: usize = 6;

const PRODUCTS: &[&str] =
    &["acme-shop", "abc", "a-product-name-of-32-characters-x", "shop", "acme-shop-production-platform"];
const ENVS: &[&str] =
    &["dev", "staging", "production", "qa", "e2e-an-environment-name-of-forty-chars-x", "prod"];
const NAMES: &[&str] = &[
    "db",
    "db-proxy",
    "db-1",
    "main-db",
    "jobs",
    "jobs-dlq",
    "events",
    "sessions",
    "uploads",
    "api",
    "api-tg",
    "web",
    "web-task",
    "metabase",
    "shared",
    "env",
    "a-very-long-name-of-exactly-forty-chars1",
    "a-very-long-name-of-exactly-forty-chars2",
    "a--b",
    "x1",
];
const SIZES: &[&str] = &["small", "medium", "large", "xlarge"];
const REGIONS: &[&str] = &["us-east-1", "eu-central-1", "eu-west-1", "ap-south-1"];
const DOMAINS: &[&str] = &["example.com", "dev.acme.example", "a.b", "xn--bcher-kva.example", "acme.example"];
const ENGINES: &[&str] = &["queue", "topic", "cache", "bucket"];
const VARS: &[&str] = &["APP_MODE", "DB_URL", "JOBS_ARN", "LOG_LEVEL", "SESSIONS_PASSWORD", "_X"];
const IMAGES: &[&str] = &[
    "metabase/metabase:v0.50.3@sha256:9f2b1c4e5d6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c",
    "ghcr.io/acme/pdf-render:1.4.2@sha256:0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e",
    "registry.example.com:5000/team/api@sha256:abababababababababababababababababababababababababababababababab",
    "nginx:1.27",
];

/// A name: from `pool` unless `raw_if` is set, then the raw text.
#[derive(Arbitrary, Debug)]
struct Pick {
    sel: u8,
    raw: String,
}

impl Pick {
    fn get(&self, pool: &[&str]) -> String {
        if self.sel >= 250 { self.raw.clone() } else { pool[usize::from(self.sel) % pool.len()].to_owned() }
    }
}

fn pick(i: u8, pool: &[&str]) -> String {
    pool[usize::from(i) % pool.len()].to_owned()
}

#[derive(Arbitrary, Debug)]
struct Desc {
    product: Pick,
    secrets: Option<SecretsDesc>,
    envs: Vec<EnvDesc>,
    resources: Vec<ResDesc>,
    workloads: Vec<WlDesc>,
    members: Vec<MemDesc>,
}

#[derive(Arbitrary, Debug)]
struct SecretsDesc {
    infisical: Option<InfisicalDesc>,
    ssm_prefix: Option<u8>,
    kms_key: bool,
}

#[derive(Arbitrary, Debug)]
struct InfisicalDesc {
    url: Option<u8>,
    environments: Vec<(u8, Pick)>,
    path: Option<u8>,
}

#[derive(Arbitrary, Debug)]
enum Cap {
    Whole(u32),
    Cents(u16, u8),
    Text(String),
}

#[derive(Arbitrary, Debug)]
struct EnvDesc {
    name: Pick,
    region: u8,
    cap: Option<Cap>,
    domain: Option<Pick>,
    shared: Vec<(u8, u8)>,
    /// `network`: endpoints, and zones taken modulo 8 (so 0, 1 and 7 are refused).
    network: Option<(bool, u8)>,
}

#[derive(Arbitrary, Debug)]
enum KindDesc {
    Postgres { aurora: Option<bool>, version: Option<u8> },
    Queue { fifo: Option<bool>, visibility_seconds: Option<u32>, max_receives: Option<u16> },
    Topic { fifo: Option<bool> },
    Cache { version: Option<u8> },
    Bucket { versioning: Option<bool> },
    Other(u8),
}

#[derive(Arbitrary, Debug)]
struct ResDesc {
    name: Pick,
    kind: KindDesc,
    size: Vec<(u8, u8)>,
}

#[derive(Arbitrary, Debug)]
struct HealthDesc {
    http: bool,
    interval_seconds: Option<u16>,
    timeout_ms: Option<u32>,
    healthy: Option<u8>,
    unhealthy: Option<u8>,
}

#[derive(Arbitrary, Debug)]
struct WlDesc {
    name: Pick,
    image: u8,
    port: u16,
    health: Option<HealthDesc>,
    env: Vec<(u8, Pick)>,
    secrets: Vec<u8>,
    uses: Vec<u8>,
    public: Option<bool>,
    size: Vec<(u8, u8)>,
    scale: Vec<(u8, Option<u32>, Option<u32>)>,
    ground: u8,
}

#[derive(Arbitrary, Debug)]
struct MemDesc {
    folder: Pick,
    name: Option<Pick>,
    other_runtime: Option<bool>,
    requires: Vec<u8>,
    uses: Vec<u8>,
}

/// Resource or environment `i` of `names`, or (one past the end) a name nobody declared.
fn refer(i: u8, names: &[String], missing: &str) -> String {
    let i = usize::from(i) % (names.len() + 1);
    names.get(i).cloned().unwrap_or_else(|| missing.to_owned())
}

fn per_env(entries: &[(u8, u8)], envs: &[String]) -> Value {
    let mut m = Map::new();
    for (e, s) in entries.iter().take(MAX_LIST) {
        m.insert(refer(*e, envs, "nowhere"), json!(pick(*s, SIZES)));
    }
    Value::Object(m)
}

/// The description as runway files: the root text and the member files.
fn files(d: &Desc) -> (String, MemFiles) {
    let envs: Vec<String> = d.envs.iter().take(MAX_ENVS).map(|e| e.name.get(ENVS)).collect();
    let resources: Vec<String> = d.resources.iter().take(MAX_RESOURCES).map(|r| r.name.get(NAMES)).collect();
    let mut root = Map::new();
    root.insert("runway".into(), json!(3));
    root.insert("product".into(), json!(d.product.get(PRODUCTS)));
    root.insert("members".into(), json!(["services/*"]));
    if let Some(s) = &d.secrets {
        root.insert("secrets".into(), secrets(s, &envs));
    }
    root.insert("environments".into(), environments(&d.envs, &envs));
    let rm = resource_map(&d.resources, &resources, &envs);
    if !rm.is_empty() {
        root.insert("resources".into(), Value::Object(rm));
    }
    let wm = workload_map(&d.workloads, &resources, &envs);
    if !wm.is_empty() {
        root.insert("workloads".into(), Value::Object(wm));
    }
    let files = member_files(&d.members, &resources);
    let text = serde_json::to_string_pretty(&Value::Object(root)).unwrap_or_default();
    (text, files)
}

/// `secrets`.
fn secrets(s: &SecretsDesc, envs: &[String]) -> Value {
    let mut sm = Map::new();
    if let Some(inf) = &s.infisical {
        let mut im = Map::new();
        if let Some(u) = inf.url {
            im.insert(
                "url".into(),
                json!(pick(u, &["https://infisical.acme.example/", "http://localhost:8080"])),
            );
        }
        im.insert("project".into(), json!("3f6a1c2e-8b4d-4e21-9a7f-5c0d2e6b1a93"));
        if !inf.environments.is_empty() {
            let mut em = Map::new();
            for (e, slug) in inf.environments.iter().take(MAX_LIST) {
                em.insert(refer(*e, envs, "nowhere"), json!(slug.get(&["prod", "dev", "stage"])));
            }
            im.insert("environments".into(), Value::Object(em));
        }
        if let Some(p) = inf.path {
            im.insert("path".into(), json!(pick(p, &["/runtime/{resource}", "/{resource}/x", "/apps"])));
        }
        sm.insert("infisical".into(), Value::Object(im));
    }
    let mut ssm = Map::new();
    if let Some(p) = s.ssm_prefix {
        ssm.insert("prefix".into(), json!(pick(p, &["/{product}/{env}", "/{env}/", "/x", "/"])));
    }
    if s.kms_key {
        ssm.insert("kmsKey".into(), json!("alias/acme"));
    }
    if !ssm.is_empty() {
        sm.insert("ssm".into(), Value::Object(ssm));
    }
    Value::Object(sm)
}

/// `environments`.
fn environments(descs: &[EnvDesc], envs: &[String]) -> Value {
    let mut em = Map::new();
    for (e, name) in descs.iter().zip(envs) {
        let mut m = Map::new();
        m.insert("region".into(), json!(pick(e.region, REGIONS)));
        if let Some(cap) = &e.cap {
            let v = match cap {
                Cap::Whole(n) => json!(n),
                Cap::Cents(n, c) => json!(format!("{n}.{:02}", c % 100)),
                Cap::Text(t) => json!(t),
            };
            m.insert("limits".into(), json!({ "monthly": v }));
        }
        if let Some(domain) = &e.domain {
            m.insert("domain".into(), json!(domain.get(DOMAINS)));
        }
        if let Some((endpoints, zones)) = e.network {
            m.insert("network".into(), json!({ "endpoints": endpoints, "zones": zones % 8 }));
        }
        if !e.shared.is_empty() {
            let mut sh = Map::new();
            for (engine, size) in e.shared.iter().take(MAX_LIST) {
                sh.insert(pick(*engine, ENGINES), json!(pick(*size, SIZES)));
            }
            m.insert("shared".into(), Value::Object(sh));
        }
        em.insert(name.clone(), Value::Object(m));
    }
    Value::Object(em)
}

/// `resources`, by name.
fn resource_map(descs: &[ResDesc], resources: &[String], envs: &[String]) -> Map<String, Value> {
    let mut rm = Map::new();
    for (r, name) in descs.iter().zip(resources) {
        let mut m = Map::new();
        match &r.kind {
            KindDesc::Postgres { aurora, version } => {
                m.insert("kind".into(), json!("postgres"));
                if let Some(a) = aurora {
                    m.insert("engine".into(), json!(if *a { "aurora" } else { "rds" }));
                }
                if let Some(v) = version {
                    m.insert("version".into(), json!(pick(*v, &["16", "15.4", "17"])));
                }
            }
            KindDesc::Queue { fifo, visibility_seconds, max_receives } => {
                m.insert("kind".into(), json!("queue"));
                if let Some(f) = fifo {
                    m.insert("fifo".into(), json!(f));
                }
                if let Some(s) = visibility_seconds {
                    m.insert("visibilityTimeout".into(), json!(format!("{}s", s % 50_000)));
                }
                if let Some(n) = max_receives {
                    m.insert("deadLetter".into(), json!({ "maxReceives": n % 1100 }));
                }
            }
            KindDesc::Topic { fifo } => {
                m.insert("kind".into(), json!("topic"));
                if let Some(f) = fifo {
                    m.insert("fifo".into(), json!(f));
                }
            }
            KindDesc::Cache { version } => {
                m.insert("kind".into(), json!("cache"));
                if let Some(v) = version {
                    m.insert("version".into(), json!(pick(*v, &["8.0", "7.2"])));
                }
            }
            KindDesc::Bucket { versioning } => {
                m.insert("kind".into(), json!("bucket"));
                if let Some(v) = versioning {
                    m.insert("versioning".into(), json!(v));
                }
            }
            KindDesc::Other(k) => {
                m.insert("kind".into(), json!(pick(*k, &["kafka", "opensearch", "postgress", "queue"])));
            }
        }
        if !r.size.is_empty() {
            m.insert("size".into(), per_env(&r.size, envs));
        }
        rm.insert(name.clone(), Value::Object(m));
    }
    rm
}

/// `workloads`, by name.
fn workload_map(descs: &[WlDesc], resources: &[String], envs: &[String]) -> Map<String, Value> {
    let mut wm = Map::new();
    for w in descs.iter().take(MAX_WORKLOADS) {
        let mut m = Map::new();
        m.insert("image".into(), json!(pick(w.image, IMAGES)));
        m.insert("port".into(), json!(w.port));
        if let Some(h) = &w.health {
            let mut hm = Map::new();
            if h.http {
                hm.insert("path".into(), json!("/health"));
            } else {
                hm.insert("command".into(), json!(["CMD", "/bin/check"]));
            }
            if let Some(i) = h.interval_seconds {
                hm.insert("interval".into(), json!(format!("{i}s")));
            }
            if let Some(t) = h.timeout_ms {
                hm.insert("timeout".into(), json!(format!("{t}ms")));
            }
            if let Some(n) = h.healthy {
                hm.insert("healthyThreshold".into(), json!(n % 12));
            }
            if let Some(n) = h.unhealthy {
                hm.insert("unhealthyThreshold".into(), json!(n % 12));
            }
            m.insert("health".into(), Value::Object(hm));
        }
        if !w.env.is_empty() {
            let mut vm = Map::new();
            for (k, v) in w.env.iter().take(MAX_LIST) {
                vm.insert(pick(*k, VARS), json!(v.get(&["on", "1", ""])));
            }
            m.insert("env".into(), Value::Object(vm));
        }
        if !w.secrets.is_empty() {
            let s: Vec<String> = w.secrets.iter().take(MAX_LIST).map(|i| pick(*i, VARS)).collect();
            m.insert("secrets".into(), json!(s));
        }
        if !w.uses.is_empty() {
            let u: Vec<String> = w.uses.iter().take(MAX_LIST).map(|i| refer(*i, resources, "nope")).collect();
            m.insert("uses".into(), json!(u));
        }
        if let Some(p) = w.public {
            m.insert("expose".into(), json!(if p { "public" } else { "internal" }));
        }
        if !w.size.is_empty() {
            m.insert("size".into(), per_env(&w.size, envs));
        }
        if !w.scale.is_empty() {
            let mut sm = Map::new();
            for (e, min, max) in w.scale.iter().take(MAX_LIST) {
                let mut s = Map::new();
                if let Some(n) = min {
                    s.insert("min".into(), json!(n));
                }
                if let Some(n) = max {
                    s.insert("max".into(), json!(n));
                }
                sm.insert(refer(*e, envs, "nowhere"), Value::Object(s));
            }
            m.insert("scale".into(), Value::Object(sm));
        }
        let ground = pick(w.ground, &["no-managed-fit", "residency", "on-prem-parity", "", "plain"]);
        let reason = match ground.as_str() {
            "" => json!(""),
            "plain" => json!("A plain-string reason."),
            g => json!({ "ground": g, "detail": "Generated by the fuzzer." }),
        };
        m.insert("reason".into(), reason);
        wm.insert(w.name.get(NAMES), Value::Object(m));
    }
    wm
}

/// The members' files.
fn member_files(descs: &[MemDesc], resources: &[String]) -> MemFiles {
    let mut files = MemFiles::default();
    for mem in descs.iter().take(MAX_MEMBERS) {
        let mut m = Map::new();
        m.insert("runway".into(), json!(3));
        if let Some(n) = &mem.name {
            m.insert("member".into(), json!(n.get(NAMES)));
        }
        if let Some(o) = mem.other_runtime {
            m.insert("runtime".into(), json!(if o { "other" } else { "encore" }));
        }
        if !mem.requires.is_empty() {
            let r: Vec<String> = mem.requires.iter().take(MAX_LIST).map(|i| pick(*i, ENGINES)).collect();
            m.insert("requires".into(), json!(r));
        }
        if !mem.uses.is_empty() {
            let u: Vec<String> =
                mem.uses.iter().take(MAX_LIST).map(|i| refer(*i, resources, "nope")).collect();
            m.insert("uses".into(), json!(u));
        }
        let folder = mem.folder.get(NAMES).replace('/', "_");
        let text = serde_json::to_string_pretty(&Value::Object(m)).unwrap_or_default();
        files = files.with(&format!("services/{folder}/runway.yaml"), text);
    }
    files
}

fn catalogue() -> &'static (Catalogue, Options) {
    static CAT: OnceLock<(Catalogue, Options)> = OnceLock::new();
    CAT.get_or_init(|| {
        let cat = Catalogue::builtin();
        let options = Options { sizes: cat.size_names(), regions: cat.regions() };
        (cat, options)
    })
}

fn check(loaded: &Loaded) {
    let (cat, _) = catalogue();
    let errors = loaded.diagnostics.iter().any(runway_schema::Diagnostic::is_error);
    assert_eq!(loaded.product.is_some(), !errors, "{:?}", loaded.diagnostics);
    let Some(product) = &loaded.product else { return };

    let mut plans = Vec::new();
    for env in product.root.environments.keys() {
        let plan = runtime_plan::plan(product, env, cat).expect("a declared environment plans");
        let json = runtime_plan::to_json(&plan);
        let again = runtime_plan::plan(product, env, cat).expect("a declared environment plans");
        assert_eq!(json, runtime_plan::to_json(&again), "planning `{env}` twice differs");

        // Logical ids and physical names are unique in a plan (plan/items.rs, `PlannedItem`).
        for (i, item) in plan.items.iter().enumerate() {
            for other in &plan.items[..i] {
                assert_ne!(item.id, other.id, "logical id twice in `{env}`");
                assert_ne!(
                    item.physical_name, other.physical_name,
                    "physical name twice in `{env}`: `{}` and `{}`",
                    other.id, item.id
                );
            }
        }

        // SSM parameters: listed by name, each name once, each referenced by something.
        for pair in plan.secrets.ssm_parameters.windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "SSM parameters out of order or twice in `{env}`: `{}`",
                pair[1].name
            );
        }
        for p in &plan.secrets.ssm_parameters {
            assert!(!p.referenced_by.is_empty(), "SSM parameter `{}` referenced by nothing", p.name);
        }

        let _ = plan_render::render_plan_text(&plan);
        let _ = plan_render::render_mermaid(&plan.graph());
        let _ = plan_render::render_dot(&plan.graph());
        match pulumi_program::render(&plan) {
            Ok(program) => {
                let again = pulumi_program::render(&again).expect("rendered once, renders twice");
                assert_eq!(program, again, "rendering `{env}` twice differs");
            }
            Err(e) => panic!("a valid plan of `{env}` does not render: {e}"),
        }
        assert!(runtime_plan::diff(&plan, &again).is_empty(), "a plan differs from itself");
        plans.push(plan);
    }
    for pair in plans.windows(2) {
        let d = runtime_plan::diff(&pair[0], &pair[1]);
        let _ = plan_render::render_diff_text(&d);
        let _ = runtime_plan::to_json(&d);
    }
    let _ = plan_render::render_cost_text(&plans);
    let _ = runtime_plan::to_json(&plan_render::cost_report(&plans));
    assert!(runtime_plan::plan(product, "no-such-environment-anywhere", cat).is_err());
}

fuzz_target!(|d: Desc| {
    let (text, files) = files(&d);
    let (_, options) = catalogue();
    let loaded = load("runway.yaml", text.as_bytes(), &files, options);
    check(&loaded);
});
