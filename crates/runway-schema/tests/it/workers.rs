#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: test helpers fail loudly
//! Workers (no `port`), scaling beyond CPU (`scale.<env>.on`, `active`, `min: 0`) and
//! `schedules`: what the file format accepts, and each refusal with its code, place and help.

use runway_schema::{CapOn, Cron, Diagnostic, HealthCheck, load_str};

const HEAD: &str = "runway: 3
product: shop
environments:
  dev: { region: us-east-1, domain: dev.shop.example, limits: { monthly: 300, on: typical } }
  production: { region: us-east-1, domain: shop.example }
resources:
  jobs: { kind: queue }
  uploads: { kind: bucket }
workloads:
";

const IMAGE: &str = "app:1.0@sha256:abababababababababababababababababababababababababababababababab";

fn load(workloads: &str) -> runway_schema::Loaded {
    load_str("runway.yaml", &format!("{HEAD}{}", workloads.replace("IMAGE", IMAGE)))
}

fn errors(workloads: &str) -> Vec<Diagnostic> {
    let loaded = load(workloads);
    loaded.diagnostics.into_iter().filter(Diagnostic::is_error).collect()
}

/// The one error, its code, path, line and column (1-based, in the whole file), and its help.
fn only_error(workloads: &str) -> (String, String, u32, u32, String) {
    let errors = errors(workloads);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let d = &errors[0];
    (
        d.code.to_string(),
        d.path.clone(),
        d.location.line,
        d.location.column,
        d.help.clone().unwrap_or_default(),
    )
}

const WORKER: &str = "  worker:
    image: IMAGE
    uses: [{ jobs: read }]
    health: { command: [\"CMD\", \"/bin/alive\"] }
    reason: { ground: residency, detail: In-country region. }
    scale:
      dev: { min: 0, max: 3, on: { queue: { jobs: 100 } }, active: { days: Mon-Fri, hours: 07:00-20:00, timezone: Europe/Berlin } }
      production: { min: 1, max: 6, on: { queue: { jobs: 100 }, cpu: 60%, memory: 70 } }
    schedules:
      nightly: { cron: \"0 3 * * *\", timezone: Europe/Berlin, command: [\"./export\", \"--all\"], timeout: 30m }
";

#[test]
fn a_worker_without_a_port_scales_on_its_backlog_and_runs_a_schedule() {
    let loaded = load(WORKER);
    assert!(loaded.diagnostics.is_empty(), "{:#?}", loaded.diagnostics);
    let root = loaded.product.unwrap().root;
    assert_eq!(root.environments["dev"].cap_on, CapOn::Typical);
    assert_eq!(root.environments["production"].cap_on, CapOn::Floor);
    let w = &root.workloads["worker"];
    assert_eq!(w.port, None);
    assert!(matches!(w.health.as_ref().unwrap().check, HealthCheck::Command(_)));
    assert_eq!(w.scale_in("dev").min, 0);
    let dev = w.scaling_in("dev");
    let active = dev.active.unwrap();
    assert_eq!(
        (active.from_minute, active.to_minute, active.timezone.as_str()),
        (420, 1200, "Europe/Berlin")
    );
    assert_eq!(active.cron_days(), "MON-FRI");
    assert_eq!(dev.on.unwrap().queue["jobs"], 100);
    let prod = w.scaling_in("production").on.unwrap();
    assert_eq!((prod.cpu, prod.memory, prod.requests), (Some(60), Some(70), None));
    let nightly = &w.schedules["nightly"];
    assert_eq!(nightly.cron, Cron::parse("0 3 * * *").unwrap());
    assert_eq!((nightly.timezone.as_str(), nightly.timeout.as_secs()), ("Europe/Berlin", 1800));
    assert_eq!(nightly.command, ["./export", "--all"]);
    // Unscaled environments keep the defaults.
    assert!(root.workloads["worker"].scaling_in("staging").on.is_none());
}

#[test]
fn a_worker_may_say_it_has_no_health_check_and_why() {
    let w = "  worker:\n    image: IMAGE\n    health: { none: drains a queue; ECS restarts it when it exits }\n    reason: { ground: residency, detail: x }\n";
    let loaded = load(w);
    assert!(loaded.diagnostics.is_empty(), "{:#?}", loaded.diagnostics);
    let root = loaded.product.unwrap().root;
    assert_eq!(
        root.workloads["worker"].unchecked.as_deref(),
        Some("drains a queue; ECS restarts it when it exits")
    );
}

#[test]
fn a_public_workload_without_a_port_is_refused_where_expose_is_written() {
    let w = "  web:\n    image: IMAGE\n    expose: public\n    health: { command: [\"CMD\", \"true\"] }\n    reason: { ground: residency, detail: x }\n";
    let (code, path, line, column, help) = only_error(w);
    assert_eq!((code.as_str(), path.as_str(), line, column), ("missing-field", "workloads.web.port", 12, 13));
    assert!(help.contains("add `port:`"), "{help}");
}

#[test]
fn a_worker_needs_a_command_check_or_a_stated_none() {
    let none = "  worker:\n    image: IMAGE\n    reason: { ground: residency, detail: x }\n";
    let (code, path, line, _, help) = only_error(none);
    assert_eq!((code.as_str(), path.as_str(), line), ("invalid-health", "workloads.worker.health", 11));
    assert!(help.contains("health: { none: <why> }"), "{help}");
    let http = "  worker:\n    image: IMAGE\n    health: { path: /health }\n    reason: { ground: residency, detail: x }\n";
    let (code, path, line, column, _) = only_error(http);
    assert_eq!(
        (code.as_str(), path.as_str(), line, column),
        ("invalid-health", "workloads.worker.health.path", 12, 13)
    );
    let empty = "  worker:\n    image: IMAGE\n    health: { none: \"  \" }\n    reason: { ground: residency, detail: x }\n";
    assert_eq!(only_error(empty).0, "invalid-health");
    let mixed = "  worker:\n    image: IMAGE\n    health: { none: why, interval: 30s }\n    reason: { ground: residency, detail: x }\n";
    assert_eq!(only_error(mixed).1, "workloads.worker.health.interval");
    let ported = "  api:\n    image: IMAGE\n    port: 80\n    health: { none: why }\n    reason: { ground: residency, detail: x }\n";
    assert_eq!(only_error(ported).1, "workloads.api.health");
}

#[test]
fn scale_refusals_name_the_value_and_its_place() {
    let w = |scale: &str, extra: &str| {
        format!(
            "  worker:\n    image: IMAGE\n    uses: [jobs, uploads]\n{extra}    health: {{ none: x }}\n    reason: {{ ground: residency, detail: x }}\n    scale: {scale}\n"
        )
    };
    let cases = [
        ("{ production: { min: 0, max: 2 } }", "", "invalid-scale", "workloads.worker.scale.production.min"),
        (
            "{ production: { max: 2, active: { hours: 07:00-20:00 } } }",
            "",
            "invalid-scale",
            "workloads.worker.scale.production.active",
        ),
        ("{ dev: { min: 0, max: 2 } }", "", "invalid-scale", "workloads.worker.scale.dev.min"),
        (
            "{ dev: { max: 2, on: { requests: 100 } } }",
            "",
            "invalid-scale",
            "workloads.worker.scale.dev.on.requests",
        ),
        (
            "{ dev: { max: 2, on: { queue: { uploads: 5 } } } }",
            "",
            "unknown-resource",
            "workloads.worker.scale.dev.on.queue.uploads",
        ),
        ("{ dev: { max: 2, on: { cpu: 120% } } }", "", "invalid-value", "workloads.worker.scale.dev.on.cpu"),
        ("{ dev: { max: 2, on: {} } }", "", "invalid-scale", "workloads.worker.scale.dev.on"),
        (
            "{ dev: { max: 2, active: { days: Fri-Mon, hours: 07:00-20:00 } } }",
            "",
            "invalid-value",
            "workloads.worker.scale.dev.active.days",
        ),
        (
            "{ dev: { max: 2, active: { hours: 20:00-07:00 } } }",
            "",
            "invalid-value",
            "workloads.worker.scale.dev.active.hours",
        ),
        (
            "{ dev: { max: 2, active: { hours: 07:00-20:00, timezone: Mars/Olympus } } }",
            "",
            "invalid-value",
            "workloads.worker.scale.dev.active.timezone",
        ),
    ];
    for (scale, extra, code, path) in cases {
        let (c, p, line, column, help) = only_error(&w(scale, extra));
        assert_eq!((c.as_str(), p.as_str()), (code, path), "{scale}");
        assert!(line >= 10 && column > 0 && !help.is_empty(), "{scale}: {line}:{column} {help}");
    }
}

#[test]
fn schedule_refusals_name_the_value_and_its_place() {
    let w = |schedule: &str| {
        format!(
            "  worker:\n    image: IMAGE\n    health: {{ none: x }}\n    reason: {{ ground: residency, detail: x }}\n    schedules:\n      {schedule}\n"
        )
    };
    let cases = [
        (
            "nightly: { cron: \"0 3 * *\", command: [x], timeout: 5m }",
            "invalid-value",
            "schedules.nightly.cron",
        ),
        (
            "nightly: { cron: \"0 3 1 * 1\", command: [x], timeout: 5m }",
            "invalid-value",
            "schedules.nightly.cron",
        ),
        (
            "nightly: { cron: \"0 3 * * *\", command: [], timeout: 5m }",
            "invalid-value",
            "schedules.nightly.command",
        ),
        (
            "nightly: { cron: \"0 3 * * *\", command: [x], timeout: 2d }",
            "invalid-value",
            "schedules.nightly.timeout",
        ),
        (
            "nightly: { cron: \"0 3 * * *\", command: [x], timeout: 30s }",
            "invalid-value",
            "schedules.nightly.timeout",
        ),
        ("nightly: { cron: \"0 3 * * *\", command: [x] }", "missing-field", "schedules.nightly.timeout"),
        (
            "nightly: { cron: \"0 3 * * *\", command: [x], timeout: 5m, timezone: Nowhere }",
            "invalid-value",
            "schedules.nightly.timezone",
        ),
        ("Nightly: { cron: \"0 3 * * *\", command: [x], timeout: 5m }", "invalid-name", "schedules.Nightly"),
    ];
    for (schedule, code, path) in cases {
        let (c, p, line, column, help) = only_error(&w(schedule));
        assert_eq!(
            (c.as_str(), p.as_str()),
            (code, format!("workloads.worker.{path}").as_str()),
            "{schedule}"
        );
        assert!(line == 15 && column > 0 && !help.is_empty(), "{schedule}: {line}:{column} {help}");
    }
}

/// A worker is internal: ECS's canary, linear and blue/green shift a load balancer's traffic,
/// which it has none of (docs/workloads.md, "Workers").
#[test]
fn a_worker_releases_rolling_only() {
    let worker = format!("{WORKER}    deploy:\n      production: {{ strategy: canary }}\n");
    let (code, path, line, _, help) = only_error(&worker);
    assert_eq!((code.as_str(), path.as_str()), ("invalid-deploy", "workloads.worker.deploy.production"));
    assert_eq!(line, 21);
    assert!(help.contains("`strategy: rolling` for an internal workload"), "{help}");
    let rolling = format!("{WORKER}    deploy:\n      production: {{ strategy: rolling }}\n");
    assert!(errors(&rolling).is_empty());
}
