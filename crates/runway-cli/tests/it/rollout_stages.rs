//! `runway rollout` following a release by ECS's native canary (issue 43): the stages ECS's
//! service deployment reports (`DescribeServiceDeployments`: `lifecycleStage`, the production
//! traffic weight, the triggered alarms), from canned ECS answers on loopback (moto answers no
//! service deployment). The example product `examples/acme-shop`, environment `production`:
//! `metabase` releases by canary (10%, 10 minutes, bake 10 minutes), `pdf-render` and the worker
//! `jobs-worker` roll.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::Run;
use serde_json::{Value, json};
use test_support::{CannedAws, Route};

use crate::common;

const CLUSTER: &str = "acme-shop-production";
const METABASE: &str = "acme-shop-production-metabase";
const PDF: &str = "acme-shop-production-pdf-render";
const WORKER: &str = "acme-shop-production-jobs-worker";
const ARN: &str = "arn:aws:ecs:us-east-1:123456789012";
/// The service deployment of metabase's release.
const DEPLOYMENT: &str = "arn:aws:ecs:us-east-1:123456789012:service-deployment/acme-shop-production/\
                          acme-shop-production-metabase-service/r3l3as3";

/// `runway rollout --env production --interval 1s EXTRA... <example>` against `aws_url`.
fn rollout(aws_url: &str, extra: &[&str]) -> Run {
    let file = test_support::example("acme-shop").join("runway.yaml");
    let mut cmd = common::aws_command(aws_url, "runway-rollout-stages-test-home");
    cmd.args(["rollout", "--env", "production", "--interval", "1s"]).args(extra).arg(file);
    let run = Run::of_utf8(&mut cmd);
    println!("exit {}\n{}{}", run.code, run.stdout, run.stderr);
    run
}

fn task_definition(family: &str, revision: u32) -> String {
    json!({"taskDefinition": {
        "taskDefinitionArn": format!("{ARN}:task-definition/{family}:{revision}"),
        "family": family, "revision": revision, "status": "ACTIVE", "containerDefinitions": []
    }})
    .to_string()
}

fn deployment(status: &str, family: &str, revision: u32, running: u32, rollout: &str) -> Value {
    json!({
        "id": format!("ecs-svc/{family}{revision}"), "status": status,
        "taskDefinition": format!("{ARN}:task-definition/{family}:{revision}"),
        "desiredCount": 2, "pendingCount": 0, "runningCount": running, "failedTasks": 0,
        "rolloutState": rollout, "rolloutStateReason": rollout.to_lowercase()
    })
}

/// A service as `DescribeServices` gives it; `canary` adds ECS's strategy and its current
/// service deployment.
fn service(family: &str, running: u32, deployments: &[Value], canary: bool) -> Value {
    let name = format!("{family}-service");
    let mut s = json!({
        "serviceArn": format!("{ARN}:service/{CLUSTER}/{name}"), "serviceName": name,
        "clusterArn": format!("{ARN}:cluster/{CLUSTER}"), "status": "ACTIVE",
        "desiredCount": 2, "runningCount": running, "pendingCount": 0,
        "taskDefinition": deployments[0]["taskDefinition"], "deployments": deployments
    });
    if canary {
        s["deploymentConfiguration"] = json!({
            "strategy": "CANARY", "bakeTimeInMinutes": 10,
            "canaryConfiguration": {"canaryPercent": 10.0, "canaryBakeTimeInMinutes": 10}
        });
        s["currentServiceDeployment"] = json!(DEPLOYMENT);
    }
    s
}

fn services(list: &[Value]) -> String {
    json!({"services": list, "failures": []}).to_string()
}

/// The seconds since the epoch, now.
fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}

/// Metabase's service deployment as `DescribeServiceDeployments` gives it: its status, stage,
/// the production weight of the new revision, changed `ago` seconds back; `triggered` alarms.
fn staged(status: &str, stage: &str, weight: f64, ago: u64, triggered: &[&str]) -> String {
    let mut d = json!({
        "serviceDeploymentArn": DEPLOYMENT,
        "serviceArn": format!("{ARN}:service/{CLUSTER}/{METABASE}-service"),
        "clusterArn": format!("{ARN}:cluster/{CLUSTER}"),
        "status": status, "lifecycleStage": stage, "updatedAt": now() - ago,
        "targetServiceRevision": {
            "arn": format!("{ARN}:service-revision/{CLUSTER}/{METABASE}-service/5"),
            "requestedTaskCount": 2, "runningTaskCount": 2, "pendingTaskCount": 0,
            "requestedProductionTrafficWeight": weight
        },
        "deploymentConfiguration": {
            "strategy": "CANARY", "bakeTimeInMinutes": 10,
            "canaryConfiguration": {"canaryPercent": 10.0, "canaryBakeTimeInMinutes": 10}
        },
        "alarms": {
            "status": if triggered.is_empty() { "MONITORING" } else { "TRIGGERED" },
            "alarmNames": [format!("{METABASE}-target-5xx"), format!("{METABASE}-target-5xx-2")],
            "triggeredAlarmNames": triggered.iter().map(|a| format!("{METABASE}-{a}")).collect::<Vec<_>>()
        }
    });
    if !triggered.is_empty() {
        d["rollback"] = json!({"reason": "deployment alarm triggered", "startedAt": now() - ago});
    }
    json!({"serviceDeployments": [d], "failures": []}).to_string()
}

fn routes(looks: &[&str], stages: &[&str]) -> Vec<Route> {
    vec![
        Route::ok("DescribeTaskDefinition", &task_definition(METABASE, 5))
            .when_body_has(&format!("\"{METABASE}\"")),
        Route::ok("DescribeTaskDefinition", &task_definition(PDF, 2)).when_body_has(&format!("\"{PDF}\"")),
        Route::ok("DescribeTaskDefinition", &task_definition(WORKER, 1))
            .when_body_has(&format!("\"{WORKER}\"")),
        Route::ok_each("DescribeServices", looks),
        Route::ok_each("DescribeServiceDeployments", stages),
        Route::ok("ListTasks", &json!({"taskArns": []}).to_string()),
    ]
}

/// The canary at 10% baking, then ECS rolling it back because `target-5xx` went off: each stage
/// a progress line, the rollback named by its alarm, exit 1.
#[test]
fn a_canary_rolled_back_by_an_alarm_says_which() {
    let in_progress = services(&[
        service(
            METABASE,
            4,
            &[
                deployment("PRIMARY", METABASE, 5, 2, "IN_PROGRESS"),
                deployment("ACTIVE", METABASE, 4, 2, "COMPLETED"),
            ],
            true,
        ),
        service(PDF, 2, &[deployment("PRIMARY", PDF, 2, 2, "COMPLETED")], false),
        service(WORKER, 2, &[deployment("PRIMARY", WORKER, 1, 2, "COMPLETED")], false),
    ]);
    let rolled_back = services(&[
        service(
            METABASE,
            2,
            &[
                deployment("PRIMARY", METABASE, 4, 2, "COMPLETED"),
                deployment("ACTIVE", METABASE, 5, 0, "FAILED"),
            ],
            true,
        ),
        service(PDF, 2, &[deployment("PRIMARY", PDF, 2, 2, "COMPLETED")], false),
        service(WORKER, 2, &[deployment("PRIMARY", WORKER, 1, 2, "COMPLETED")], false),
    ]);
    let baking = staged("IN_PROGRESS", "PRODUCTION_TRAFFIC_SHIFT", 10.0, 250, &[]);
    let back = staged("ROLLBACK_SUCCESSFUL", "PRODUCTION_TRAFFIC_SHIFT", 0.0, 5, &["target-5xx"]);
    let aws = CannedAws::start(routes(&[&in_progress, &rolled_back], &[&baking, &back]));
    let run = rollout(&aws.url(), &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let progress: Vec<&str> = run.stdout.lines().skip(1).take(4).collect();
    assert_eq!(
        progress,
        [
            "waiting     metabase: acme-shop-production-metabase:5, 2 of 2 running (IN_PROGRESS): \
             canary 10% baking 4m of 10m",
            "complete    pdf-render: acme-shop-production-pdf-render:2, 2 of 2 running",
            "complete    jobs-worker: acme-shop-production-jobs-worker:1, 2 of 2 running",
            "rolled back metabase: expected acme-shop-production-metabase:5, running \
             acme-shop-production-metabase:4 (2 of 2 running): rolled back by alarm target-5xx",
        ],
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("metabase rolled back"), "{}", run.stderr);
    // The service deployment is asked for the canary only, once a look; the rolling service
    // never.
    let asked = aws.asked();
    assert_eq!(asked.iter().filter(|a| *a == "DescribeServiceDeployments").count(), 2, "{asked:?}");
    assert_eq!(asked.iter().filter(|a| *a == "DescribeServices").count(), 2, "{asked:?}");
}

/// The canary's stages to the end: 10% baking, then the whole traffic and the bake of both
/// fleets, then ECS's `SUCCESSFUL`: `shifted`, exit 0, and the stage in the JSON report.
#[test]
fn a_canary_shifted_completes_with_its_stage_in_the_json() {
    let look = |primary_state: &str, old: bool| {
        let mut deployments = vec![deployment("PRIMARY", METABASE, 5, 2, primary_state)];
        if old {
            deployments.push(deployment("ACTIVE", METABASE, 4, 2, "COMPLETED"));
        }
        services(&[
            service(METABASE, 2, &deployments, true),
            service(PDF, 2, &[deployment("PRIMARY", PDF, 2, 2, "COMPLETED")], false),
            service(WORKER, 2, &[deployment("PRIMARY", WORKER, 1, 2, "COMPLETED")], false),
        ])
    };
    let (first, second, third) =
        (look("IN_PROGRESS", true), look("IN_PROGRESS", true), look("COMPLETED", false));
    let stages = [
        staged("IN_PROGRESS", "PRODUCTION_TRAFFIC_SHIFT", 10.0, 70, &[]),
        staged("IN_PROGRESS", "BAKE_TIME", 100.0, 130, &[]),
        staged("SUCCESSFUL", "CLEAN_UP", 100.0, 1, &[]),
    ];
    let aws = CannedAws::start(routes(
        &[&first, &second, &third],
        &stages.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    let run = rollout(&aws.url(), &["--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for line in [
        "waiting     metabase: acme-shop-production-metabase:5, 2 of 2 running (IN_PROGRESS): canary 10% baking 1m of 10m",
        "waiting     metabase: acme-shop-production-metabase:5, 2 of 2 running (IN_PROGRESS): shifted, baking 2m of 10m",
        "complete    metabase: acme-shop-production-metabase:5, 2 of 2 running: shifted",
    ] {
        assert!(run.stderr.contains(line), "{line}\n{}", run.stderr);
    }
    let report: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["verdict"], "complete");
    let metabase =
        report["services"].as_array().unwrap().iter().find(|s| s["workload"] == "metabase").unwrap();
    let stage = &metabase["stage"];
    assert_eq!(stage["strategy"], "CANARY");
    assert_eq!(stage["status"], "SUCCESSFUL");
    assert_eq!(stage["lifecycleStage"], "CLEAN_UP");
    assert_eq!(stage["bakeMinutes"], 10);
    assert_eq!(stage["triggeredAlarms"], json!([]));
    let pdf = report["services"].as_array().unwrap().iter().find(|s| s["workload"] == "pdf-render").unwrap();
    assert!(pdf.get("stage").is_none(), "a rolling service has no stage: {pdf}");
}
