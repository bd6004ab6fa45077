//! `runway teardown` end to end: the real binary against moto, the Infisical contract server and
//! the Pulumi stand-in (`tools/pulumi_standin.py`, first on PATH as `pulumi`), on a scratch copy
//! of `examples/acme-shop`. Production is refused without `teardown: allowed` and the repeated
//! name; `dev`, deployed by `runway deploy`, is torn down through the same Pulumi runner, its
//! bucket kept, and a second run finds nothing left to do.
//!
//! Needs the workspace venv: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).

use std::process::Command;

use crate::common::{self, Run};
use crate::deploy_job::{World, python};
use serde_json::Value;

/// `runway ARGS RUNWAY_FILE` in `world`.
fn run(world: &World, args: &[&str]) -> Run {
    let mut cmd = Command::new(common::RUNWAY);
    world.env(&mut cmd).args(args).arg(world.file());
    let run = Run::of_utf8(&mut cmd);
    println!("$ runway {}\nexit {}\n{}{}", args.join(" "), run.code, run.stdout, run.stderr);
    run
}

/// The SSM parameter names under `prefix`.
fn parameters(world: &World, prefix: &str) -> Vec<String> {
    let out = python(
        &world.moto,
        &format!(
            "ssm = boto3.client('ssm')\nnames = []\nfor page in ssm.get_paginator('describe_parameters').paginate(\
             ParameterFilters=[{{'Key': 'Path', 'Option': 'Recursive', 'Values': ['{prefix}']}}]):\n    \
             names += [p['Name'] for p in page['Parameters']]\nprint(json.dumps(names))"
        ),
    );
    serde_json::from_str(&out).unwrap()
}

#[test]
fn production_is_refused_without_the_setting_and_the_repeated_name() {
    let world = World::new("teardown-refusals");
    // Listed, and refused: the runway does not allow it.
    let listed = run(&world, &["teardown", "--env", "production"]);
    assert_eq!(listed.code, 2, "{}", listed.stderr);
    assert!(
        listed.stderr.contains("write `teardown: allowed` under `environments.production`"),
        "{}",
        listed.stderr
    );
    // What is kept, each with its monthly cost: the final snapshot (unpriced, said why), the
    // bucket at the plan's estimate, the key pending deletion at $0.
    assert!(
        listed.stdout.contains("final snapshot") && listed.stdout.contains("unpriced"),
        "{}",
        listed.stdout
    );
    assert!(listed.stdout.contains("KMS key") && listed.stdout.contains("$0.00"), "{}", listed.stdout);
    let json = run(&world, &["teardown", "--env", "production", "--format", "json"]);
    assert_eq!(json.code, 2);
    let decision: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(decision["setting"], "refused");
    assert_eq!(decision["refusal"]["reason"], "not-allowed");
    let kept = decision["kept"].as_array().unwrap();
    let bucket = kept.iter().find(|k| k["what"] == "bucket").unwrap();
    assert_eq!(bucket["owner"], "uploads");
    let plan = run(&world, &["plan", "--env", "production", "--format", "json"]);
    let plan: Value = serde_json::from_str(&plan.stdout).unwrap();
    let bucket_item = plan["items"].as_array().unwrap().iter().find(|i| i["kind"] == "s3-bucket").unwrap();
    assert_eq!(bucket["monthly"], bucket_item["monthly"]);
    assert!(kept.iter().any(|k| k["what"] == "final snapshot" && k["monthly"].is_null()));
    assert_eq!(decision["keptMonthly"], bucket_item["monthly"], "the snapshot unpriced, the key free");
    // Even repeating the name, refused without the setting.
    let confirmed = run(&world, &["teardown", "--env", "production", "--confirm", "production"]);
    assert_eq!(confirmed.code, 2);
    // With `teardown: allowed`, a wrong name is refused, no name only lists.
    let text = std::fs::read_to_string(world.file()).unwrap();
    let allowed = text.replacen(
        "  production:\n    region: us-east-1\n",
        "  production:\n    region: us-east-1\n    teardown: allowed\n",
        1,
    );
    assert_ne!(allowed, text);
    std::fs::write(world.file(), allowed).unwrap();
    let wrong = run(&world, &["teardown", "--env", "production", "--confirm", "staging", "--format", "json"]);
    assert_eq!(wrong.code, 2);
    let wrong: Value = serde_json::from_str(&wrong.stdout).unwrap();
    assert_eq!(wrong["refusal"], serde_json::json!({"reason": "wrong-name", "given": "staging"}));
    let listing = run(&world, &["teardown", "--env", "production"]);
    assert_eq!(listing.code, 0, "{}", listing.stderr);
    assert!(listing.stdout.contains("nothing deleted: repeat the environment's name"), "{}", listing.stdout);
    // A bad value is a diagnostic.
    std::fs::write(
        world.file(),
        text.replacen(
            "  production:\n    region: us-east-1\n",
            "  production:\n    region: us-east-1\n    teardown: yes-please\n",
            1,
        ),
    )
    .unwrap();
    let bad = run(&world, &["check"]);
    assert_eq!(bad.code, 1);
    assert!(
        bad.stdout.contains("`yes-please` is not a valid `teardown`")
            && bad.stdout.contains("allowed, refused"),
        "{}",
        bad.stdout
    );
}

#[test]
fn dev_is_torn_down_through_the_deploy_machinery_and_a_second_run_finds_it_done() {
    let world = World::new("teardown-dev");
    let (deploy, _) = world.deploy_to_end("teardown-test");
    assert_eq!(deploy.code, 0, "{}", deploy.stderr);
    assert!(!parameters(&world, "/acme-shop/dev").is_empty());
    let log = world.dir.join("pulumi.log");
    let mut first = Command::new(common::RUNWAY);
    world
        .env(&mut first)
        .env("PULUMI_STANDIN_LOG", &log)
        .args(["teardown", "--env", "dev", "--confirm", "dev"])
        .arg(world.file());
    let first = Run::of_utf8(&mut first);
    println!("exit {}\n{}{}", first.code, first.stdout, first.stderr);
    assert_eq!(first.code, 0, "{}", first.stderr);
    // Pulumi destroyed the stack, the bucket kept out.
    let calls = std::fs::read_to_string(&log).unwrap();
    let destroy = calls.lines().find(|l| l.contains("\"destroy\"")).expect("pulumi destroy ran");
    assert!(destroy.contains("aws:s3/bucket"), "{destroy}");
    let state =
        std::fs::read_to_string(world.dir.join("infra/dev/.pulumi-standin/stacks/acme-shop/dev.json"))
            .unwrap();
    let state: Value = serde_json::from_str(&state).unwrap();
    let left: Vec<&str> =
        state["resources"].as_array().unwrap().iter().map(|r| r.as_str().unwrap()).collect();
    assert!(left.iter().any(|u| u.contains("aws:s3/bucket")), "the bucket stays: {left:?}");
    for gone in ["aws:ecs/service:", "aws:rds/", "aws:ssm/parameter:", "aws:ecs/cluster:"] {
        assert!(left.iter().all(|u| !u.contains(gone)), "{gone} left: {left:?}");
    }
    // The services are gone, the parameters and the Infisical variables last.
    let services = python(
        &world.moto,
        "ecs = boto3.client('ecs')\nprint(sum(len([s for s in ecs.describe_services(cluster=c, services=ecs.list_services(cluster=c)['serviceArns'] or ['x'])['services'] if s['status'] == 'ACTIVE']) for c in ecs.list_clusters()['clusterArns']))",
    );
    assert_eq!(services.trim(), "0");
    assert_eq!(parameters(&world, "/acme-shop/dev"), Vec::<String>::new());
    assert_eq!(world.infisical.value("dev", "/runtime/main-db", "MAIN_DB_PASSWORD"), None);
    assert!(first.stdout.contains("SSM parameters under /acme-shop/dev/ deleted"), "{}", first.stdout);
    // Again: nothing left, no failure.
    let second = run(&world, &["teardown", "--env", "dev", "--confirm", "dev"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert!(second.stdout.contains("0 SSM parameters"), "{}", second.stdout);
}
