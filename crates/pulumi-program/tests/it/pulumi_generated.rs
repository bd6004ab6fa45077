//! The emitter over generated runways (runtime-plan's `proptest1` strategies): every program
//! renders, declares one resource per planned item, tags every resource with its item's tags and
//! every service's tasks with the service's, and passes the pulumi_aws SDK check (all programs in
//! one Python run), every tag required.

use crate::pulumi_support;

use std::collections::BTreeSet;
use std::path::Path;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use pulumi_program::{PROGRAM_FILE, expected_resources, render};
use test_support::{Scratch, scratch};

const RUNWAYS: usize = 20;

/// The emitter's resource types the hand-written reference program does not hold yet: none.
const NOT_IN_REFERENCE_YET: &[&str] = &[];

#[test]
fn generated_runways_render_programs_the_sdk_accepts() {
    let mut runner = TestRunner::deterministic();
    let strategy = runtime_plan::strategy::product();
    let catalogue = cost::Catalogue::builtin();
    let mut dirs: Vec<Scratch> = Vec::new();
    // The optional parts the SDK check must have seen at least once.
    let mut seen = [
        ("vpcEndpointType: Interface", 0),
        ("vpcEndpointType: Gateway", 0),
        ("cidrBlocks: \"${vpcCidrBlocks}\"", 0),
        ("applyImmediately: true", 0),
        ("applyImmediately: false", 0),
        ("cpuArchitecture: X86_64", 0),
        ("cpuArchitecture: ARM64", 0),
        // A registry secret looked up by name, and an existing one by ARN.
        ("_registry-secret.arn}", 0),
        ("credentialsParameter: arn:aws:secretsmanager:", 0),
        // An internal workload's HTTP check in its container.
        ("- CMD-SHELL", 0),
        // Production safety: storage autoscaling, noncurrent versions expiring, ECS Exec, the
        // ALB's access logs.
        ("maxAllocatedStorage:", 0),
        ("noncurrentDays:", 0),
        ("enableExecuteCommand: true", 0),
        ("- ssmmessages:OpenDataChannel", 0),
        ("Sid: AllowAlbLogDelivery", 0),
        ("enableDeletionProtection: true", 0),
        // Alarms (production's default), their topic's subscription and the ECS event rule.
        ("type: aws:cloudwatch/metricAlarm:MetricAlarm", 0),
        ("endpoint: \"${alertEmails[0]}\"", 0),
        ("type: aws:cloudwatch/eventRule:EventRule", 0),
        // A pinned account: the default provider's setting, project-level config.
        ("aws:allowedAccountIds:", 0),
    ];
    // Every resource type emitted, for the reference program's promise to hold them all.
    let mut types: BTreeSet<String> = BTreeSet::new();
    // ECS services seen, each checked to propagate its tags.
    let mut services = 0;
    // Write-only inputs holding a credential (no credential is in any other input; the state
    // keeps these as Pulumi secrets).
    let mut write_only = 0;
    for n in 0..RUNWAYS {
        let product = strategy.new_tree(&mut runner).expect("a generated runway").current();
        for env in product.root.environments.keys() {
            let Ok(plan) = runtime_plan::plan(&product, env, &catalogue) else { continue };
            let program = render(&plan).unwrap_or_else(|e| panic!("runway {n} env {env}: {e}"));
            let text = program.file(PROGRAM_FILE).expect("Pulumi.yaml");
            let declared = text
                .lines()
                .skip_while(|l| *l != "resources:")
                .skip(1)
                .take_while(|l| l.starts_with(' '))
                .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
                .count();
            assert_eq!(declared, expected_resources(&plan), "runway {n} env {env}");
            services += pulumi_support::assert_tags(&plan, &program);
            write_only += pulumi_support::assert_credentials_write_only(&program);
            for (needle, count) in &mut seen {
                *count += usize::from(text.contains(*needle));
            }
            types.extend(text.lines().filter_map(|l| l.trim().strip_prefix("type: aws:")).map(str::to_owned));
            let dir = scratch(&format!("pulumi-generated-{n}-{env}"));
            pulumi_support::write(&dir, &program);
            dirs.push(dir);
        }
    }
    assert!(dirs.len() >= RUNWAYS, "only {} programs rendered", dirs.len());
    assert!(services > RUNWAYS, "only {services} services generated");
    assert!(write_only > RUNWAYS, "only {write_only} write-only credential inputs generated");
    assert!(seen.iter().all(|(_, count)| *count > 0), "not every optional part was generated: {seen:?}");
    #[allow(clippy::disallowed_methods)] // reason: the test reads the committed reference program
    let reference =
        std::fs::read_to_string(test_support::workspace().join("tools/pulumi-reference/Pulumi.yaml"))
            .expect("the reference program");
    let missing: Vec<&str> =
        types.iter().map(String::as_str).filter(|t| !reference.contains(&format!("type: aws:{t}"))).collect();
    // A new resource type the emitter starts to use must join the reference program too (or,
    // for a while, this list).
    assert_eq!(missing, NOT_IN_REFERENCE_YET, "types the emitter uses that the reference program lacks");
    let refs: Vec<&Path> = dirs.iter().map(Scratch::path).collect();
    let outcome = pulumi_support::check_pinned(&refs);
    assert!(outcome.success, "{}", outcome.output);
}

/// The benchmarks' synthetic products (`crates/synthetic`: every kind, public and internal
/// workloads, members, three environments): every resource carries its item's tags and every
/// service tags its tasks; the smaller one's programs also pass the SDK check, every tag
/// required.
#[test]
fn synthetic_products_tag_every_resource_and_every_task() {
    let catalogue = cost::Catalogue::builtin();
    let options = runway_schema::Options { sizes: catalogue.size_names(), regions: catalogue.regions() };
    let mut dirs: Vec<Scratch> = Vec::new();
    for n in [10, 100] {
        let files = synthetic::product(n);
        let mut mem = runway_schema::MemFiles::default();
        for (path, text) in &files[1..] {
            mem = mem.with(path, text.as_bytes());
        }
        let loaded = runway_schema::load("runway.yaml", files[0].1.as_bytes(), &mem, &options);
        let product = loaded.product.expect("a valid synthetic product");
        for env in synthetic::ENVIRONMENTS {
            let plan = runtime_plan::plan(&product, env, &catalogue).expect("plan");
            let program = render(&plan).unwrap_or_else(|e| panic!("n = {n}, {env}: {e}"));
            let services = pulumi_support::assert_tags(&plan, &program);
            assert_eq!(services, n / 2, "n = {n}, {env}");
            if n == 10 {
                let dir = scratch(&format!("pulumi-synthetic-{n}-{env}"));
                pulumi_support::write(&dir, &program);
                dirs.push(dir);
            }
        }
    }
    let refs: Vec<&Path> = dirs.iter().map(Scratch::path).collect();
    let outcome = pulumi_support::check_pinned(&refs);
    assert!(outcome.success, "{}", outcome.output);
}
