//! A product built in code, like the spec's example.
#![allow(dead_code)]

use indexmap::IndexMap;
use runway_schema::*;

pub(crate) fn loc() -> Location {
    Location { file: "runway.yaml".into(), line: 1, column: 1, offset: 0, len: 0 }
}

pub(crate) fn env(region: &str, limit: Option<&str>, domain: Option<&str>) -> Environment {
    Environment {
        region: region.into(),
        account: None,
        monthly_limit: limit.map(|l| Money::parse(l).unwrap()),
        shared: IndexMap::new(),
        domain: domain.map(str::to_owned),
        at: loc(),
        limit_at: limit.map(|_| Location { line: 9, column: 16, ..loc() }),
        increase_limit: None,
        cap_on: runway_schema::CapOn::Floor,
        log_retention_days: None,
        network: runway_schema::Network::default(),
        apply_changes: None,
        usage: Usage::default(),
        alarms: Alarms::default(),
        bootstrap: runway_schema::Bootstrap::default(),
        teardown: None,
    }
}

pub(crate) fn sizes<M: FromIterator<(String, String)>>(pairs: &[(&str, &str)]) -> M {
    pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

pub(crate) fn workload(uses: &[&str], expose: Expose) -> Workload {
    Workload {
        image: ImageRef::parse(&format!("metabase/metabase:v0.50.3@sha256:{}", "a".repeat(64))).unwrap(),
        platform: runway_schema::Architecture::Arm64,
        registry_credentials: None,
        entry_point: None,
        port: Some(3000),
        health: Some(Health {
            check: HealthCheck::Http("/api/health".into()),
            interval: Duration::from_millis(30_000),
            timeout: Duration::from_millis(5_000),
            healthy_threshold: 2,
            unhealthy_threshold: 3,
            grace: Duration::from_millis(60_000),
        }),
        unchecked: None,
        env: sizes(&[("MB_DB_TYPE", "postgres")]),
        env_from: SmallMap::new(),
        secrets: vec!["MB_ENCRYPTION_SECRET_KEY".into()],
        uses: uses.iter().map(|s| s.to_string()).collect(),
        access: SmallMap::new(),
        expose,
        size: SmallMap::new(),
        scale: SmallMap::new(),
        deploy: SmallMap::new(),
        scaling: SmallMap::new(),
        schedules: SmallMap::new(),
        exec: false,
        reason: Reason { ground: Some(Ground::NoManagedFit), detail: "BI".into() },
        migrate: None,
    }
}

/// The spec's example: dev, staging, production; main-db, jobs, events, sessions, uploads;
/// metabase (internal) and shop (public); members orders (encore) and legacy (other, requires).
pub(crate) fn example() -> Product {
    let mut environments = IndexMap::new();
    // One NAT gateway in dev, as the shipped example writes (the default outside production).
    let mut dev = env("us-east-1", Some("150"), Some("dev.acme.example"));
    dev.network.nat = Some(1);
    environments.insert("dev".to_string(), dev);
    environments.insert("staging".to_string(), env("us-east-1", None, Some("staging.acme.example")));
    environments.insert("production".to_string(), env("us-east-1", None, Some("acme.example")));
    let mut resources = IndexMap::new();
    resources.insert(
        "main-db".to_string(),
        Resource {
            spec: ResourceSpec::Postgres { engine: PostgresEngine::Rds, version: "16".into() },
            size: sizes(&[("staging", "medium"), ("production", "large")]),
            restore: None,
        },
    );
    resources.insert(
        "jobs".to_string(),
        Resource {
            spec: ResourceSpec::Queue {
                fifo: false,
                visibility_timeout: Duration::from_millis(30_000),
                dead_letter: Some(DeadLetter { max_receives: 5 }),
            },
            size: SmallMap::new(),
            restore: None,
        },
    );
    resources.insert(
        "events".to_string(),
        Resource { spec: ResourceSpec::Topic { fifo: false }, size: SmallMap::new(), restore: None },
    );
    resources.insert(
        "sessions".to_string(),
        Resource {
            spec: ResourceSpec::Cache { version: "8.0".into() },
            size: SmallMap::new(),
            restore: None,
        },
    );
    resources.insert(
        "uploads".to_string(),
        Resource {
            spec: ResourceSpec::Bucket { versioning: Some(runway_schema::Versioning { keep_days: 30 }) },
            size: SmallMap::new(),
            restore: None,
        },
    );
    let mut workloads = IndexMap::new();
    let mut metabase = workload(&["main-db"], Expose::Internal);
    metabase.size = sizes(&[("production", "medium")]);
    metabase.scale.insert("production".into(), Scale { min: 2, max: 4 });
    workloads.insert("metabase".to_string(), metabase);
    let mut shop = workload(&["sessions", "uploads"], Expose::Public);
    shop.secrets = vec!["STRIPE_KEY".into()];
    shop.env = SmallMap::new();
    workloads.insert("shop".to_string(), shop);
    Product {
        root: Runway {
            file: "runway.yaml".into(),
            product: "acme-shop".into(),
            members: vec!["services/*".into()],
            catalogue: None,
            secrets: Secrets {
                infisical: Some(Infisical {
                    url: DEFAULT_INFISICAL_URL.into(),
                    project: "3f6a1c2e".into(),
                    environments: sizes(&[("production", "prod")]),
                    path: DEFAULT_INFISICAL_PATH.into(),
                }),
                ssm: Ssm::default(),
            },
            environments,
            resources,
            workloads,
            previews: None,
        },
        members: vec![
            Member {
                file: "services/orders/runway.yaml".into(),
                name: "orders".into(),
                runtime: Runtime::Encore,
                requires: vec![Engine::Queue, Engine::Cache],
                uses: vec!["events".into(), "uploads".into()],
            },
            Member {
                file: "services/legacy/runway.yaml".into(),
                name: "legacy".into(),
                runtime: Runtime::Other,
                requires: vec![Engine::Queue],
                uses: vec![],
            },
        ],
    }
}

/// The shipped example's members, as the loader reads them.
fn example_members() -> MemFiles {
    MemFiles::default()
        .with(
            "services/billing/runway.yaml",
            include_str!("../../../../../examples/acme-shop/services/billing/runway.yaml"),
        )
        .with(
            "services/orders/runway.yaml",
            include_str!("../../../../../examples/acme-shop/services/orders/runway.yaml"),
        )
        .with(
            "tools/reporting/runway.yaml",
            include_str!("../../../../../examples/acme-shop/tools/reporting/runway.yaml"),
        )
}

/// The shipped example (`examples/acme-shop`), loaded through the real loader.
pub(crate) fn shipped_example() -> Product {
    let root = include_str!("../../../../../examples/acme-shop/runway.yaml");
    load_product("examples/acme-shop/runway.yaml", root, &example_members())
}

/// The shipped example with its root file's text replaced by `root` (its members kept).
pub(crate) fn load_example_text(root: &str) -> Product {
    load_product("examples/acme-shop/runway.yaml", root, &example_members())
}

/// A generated product of `n` resources (`synthetic::product`) whose resource, workload and
/// member names are all 20 characters longer (`warehouse-inventory-queue-123`, up to 30).
pub(crate) fn long_named(n: usize) -> Product {
    let lengthen = |text: &str| {
        ["db-", "queue-", "topic-", "cache-", "bucket-", "svc-", "legacy-", "job-"]
            .iter()
            .fold(text.to_owned(), |t, word| t.replace(word, &format!("warehouse-inventory-{word}")))
    };
    let files = synthetic::product(n);
    let mut mem = MemFiles::default();
    for (path, text) in &files[1..] {
        mem = mem.with(path, lengthen(text).into_bytes());
    }
    load_product("runway.yaml", &lengthen(&files[0].1), &mem)
}

fn load_product(path: &str, root: &str, files: &MemFiles) -> Product {
    let c = cost::Catalogue::builtin();
    let options = Options { sizes: c.size_names(), regions: c.regions() };
    let loaded = load(path, root.as_bytes(), files, &options);
    assert!(loaded.diagnostics.iter().all(|d| !d.is_error()), "{:#?}", loaded.diagnostics);
    loaded.product.expect("a valid product")
}
