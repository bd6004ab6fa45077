//! `runway rollout` end to end: the real binary against moto (clusters, task definitions,
//! services and stopped tasks made with the ECS SDK) and, for what moto leaves out (a
//! deployment's `FAILED` rollout state, ECS's own rollback shape, a container's exit code,
//! answers that change between looks), canned answers on loopback. The example product
//! `examples/acme-shop`, environment `dev`: cluster `acme-shop-dev`, workloads `metabase`,
//! `pdf-render` and the worker `jobs-worker`.
//!
//! Needs the workspace venv for moto: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::common::Run;
use aws_sdk_ecs::types::{ContainerDefinition, LaunchType};
use serde_json::{Value, json};
use test_support::{CannedAws, Moto, Route};

use crate::common;

const REGION: &str = "us-east-1";
const CLUSTER: &str = "acme-shop-dev";
/// `(workload, service, task definition family)` of the example's dev plan.
const METABASE: (&str, &str, &str) = ("metabase", "acme-shop-dev-metabase-service", "acme-shop-dev-metabase");
const PDF: (&str, &str, &str) =
    ("pdf-render", "acme-shop-dev-pdf-render-service", "acme-shop-dev-pdf-render");
const WORKER: (&str, &str, &str) =
    ("jobs-worker", "acme-shop-dev-jobs-worker-service", "acme-shop-dev-jobs-worker");
const ARN: &str = "arn:aws:ecs:us-east-1:123456789012";
const PULL_SECRETS: &str = "ResourceInitializationError: unable to pull secrets or registry auth: \
                            execution resource retrieval failed: unable to retrieve secret from \
                            asm: service call has been retried 1 time(s)";

fn example() -> String {
    let file: PathBuf = test_support::example("acme-shop").join("runway.yaml");
    file.to_str().unwrap().to_owned()
}

/// Runs `runway ARGS` against the AWS endpoint `aws_url` with `testing` keys, the host's AWS
/// settings removed; `changed` sets (`Some`) or removes (`None`) more variables.
fn runway_with(aws_url: &str, args: &[&str], changed: &[(&str, Option<&str>)]) -> Run {
    let mut cmd = common::aws_command(aws_url, "runway-rollout-test-home");
    cmd.args(args);
    for (name, value) in changed {
        match value {
            Some(value) => cmd.env(name, value),
            None => cmd.env_remove(name),
        };
    }
    let run = Run::of_utf8(&mut cmd);
    println!("$ runway {}\nexit {}\n{}{}", args.join(" "), run.code, run.stdout, run.stderr);
    run
}

/// `runway rollout --env dev --interval 1s EXTRA... <example>` against `aws_url`.
fn rollout(aws_url: &str, extra: &[&str]) -> Run {
    let file = example();
    let mut args = vec!["rollout", "--env", "dev", "--interval", "1s"];
    args.extend_from_slice(extra);
    args.push(&file);
    runway_with(aws_url, &args, &[])
}

/// Sets moto up with the ECS SDK (the tests' own client, not runway's).
struct Ecs {
    client: aws_sdk_ecs::Client,
    rt: tokio::runtime::Runtime,
}

impl Ecs {
    fn of(moto: &Moto) -> Ecs {
        let (client, _, rt) = common::moto_clients(moto);
        Ecs { client, rt }
    }

    fn cluster(&self) {
        self.rt.block_on(self.client.create_cluster().cluster_name(CLUSTER).send()).unwrap();
    }

    /// Registers a revision of `family` with `image`; its ARN.
    fn register(&self, family: &str, image: &str) -> String {
        let container = ContainerDefinition::builder().name("app").image(image).memory(512).build();
        let out = self
            .rt
            .block_on(
                self.client.register_task_definition().family(family).container_definitions(container).send(),
            )
            .unwrap();
        out.task_definition().unwrap().task_definition_arn().unwrap().to_owned()
    }

    /// A service of one task on the family's latest revision.
    fn service(&self, (_, service, family): (&str, &str, &str)) {
        let create = self
            .client
            .create_service()
            .cluster(CLUSTER)
            .service_name(service)
            .task_definition(family)
            .desired_count(1)
            .launch_type(LaunchType::Fargate);
        self.rt.block_on(create.send()).unwrap();
    }

    /// Runs `count` tasks of `task_definition` and stops them with `reason`.
    fn stopped_tasks(&self, task_definition: &str, count: i32, reason: &str) {
        let run = self
            .client
            .run_task()
            .cluster(CLUSTER)
            .task_definition(task_definition)
            .count(count)
            .launch_type(LaunchType::Fargate);
        let tasks = self.rt.block_on(run.send()).unwrap();
        for task in tasks.tasks() {
            let stop = self.client.stop_task().cluster(CLUSTER).task(task.task_arn().unwrap()).reason(reason);
            self.rt.block_on(stop.send()).unwrap();
        }
    }
}

/// moto whose ECS services run their desired count (`COMPLETED` deployments), with the example's
/// cluster, one revision of each family and the three services.
fn deployed() -> (Moto, Ecs) {
    let moto = Moto::start_with(&[("MOTO_ECS_SERVICE_RUNNING", "1")]);
    let ecs = Ecs::of(&moto);
    ecs.cluster();
    for (_, _, family) in [METABASE, PDF, WORKER] {
        ecs.register(family, "app:1");
    }
    for workload in [METABASE, PDF, WORKER] {
        ecs.service(workload);
    }
    (moto, ecs)
}

fn json_of(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", run.stdout))
}

/// The entry of `workload` in a JSON report.
fn entry<'a>(report: &'a Value, workload: &str) -> &'a Value {
    report["services"].as_array().unwrap().iter().find(|s| s["workload"] == workload).unwrap()
}

#[test]
fn every_service_complete_exits_0() {
    let (moto, _ecs) = deployed();
    let text = rollout(&moto.url(), &[]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout.starts_with(
            "waiting up to 15m for 3 ECS service(s) of dev in us-east-1: metabase, pdf-render, jobs-worker\n"
        ),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("complete    metabase: acme-shop-dev-metabase:1, 1 of 1 running\n"));
    assert!(text.stdout.contains("complete    pdf-render: acme-shop-dev-pdf-render:1, 1 of 1 running\n"));
    assert!(text.stdout.contains("complete    jobs-worker: acme-shop-dev-jobs-worker:1, 1 of 1 running\n"));
    assert!(text.stdout.ends_with("3 service(s): 3 complete\n"), "{}", text.stdout);
    assert_eq!(text.stderr, "");

    let run = rollout(&moto.url(), &["--format", "json", "--timeout", "2m"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report = json_of(&run);
    assert_eq!(report["environment"], "dev");
    assert_eq!(report["region"], REGION);
    assert_eq!(report["timeoutSeconds"], 120);
    assert_eq!(report["verdict"], "complete");
    assert_eq!(
        entry(&report, "metabase"),
        &json!({
            "workload": "metabase",
            "service": "acme-shop-dev-metabase-service",
            "cluster": "acme-shop-dev",
            "state": "complete",
            "expectedRevision": "acme-shop-dev-metabase:1",
            "runningRevision": "acme-shop-dev-metabase:1",
            "desiredCount": 1,
            "runningCount": 1,
            "rolloutState": "COMPLETED",
            "message": null,
            "reasons": []
        })
    );
    // Progress lines go to stderr when stdout holds the JSON.
    assert!(run.stderr.contains("complete    pdf-render: acme-shop-dev-pdf-render:1"), "{}", run.stderr);
}

/// The stack declared revision 2 of `pdf-render` (the family's latest ACTIVE one), its tasks
/// could not start, and the service runs revision 1: moto's service keeps its first deployment
/// as ECS does after a rollback.
#[test]
fn a_rolled_back_release_exits_1_with_the_stopped_tasks_reasons() {
    let (moto, ecs) = deployed();
    let first = format!("{ARN}:task-definition/acme-shop-dev-pdf-render:1");
    let declared = ecs.register(PDF.2, "app:2");
    ecs.stopped_tasks(&declared, 2, PULL_SECRETS);
    // Tasks of the old revision that a deployment stopped are not the release's reasons.
    ecs.stopped_tasks(&first, 1, "Scaling activity initiated by (deployment ecs-svc/1)");

    let text = rollout(&moto.url(), &[]);
    assert_eq!(text.code, 1, "{}", text.stderr);
    let rolled_back = "rolled back pdf-render: expected acme-shop-dev-pdf-render:2, running \
                       acme-shop-dev-pdf-render:1 (1 of 1 running)\n";
    // Once as progress, once in the report with its reasons.
    assert_eq!(text.stdout.matches(rolled_back).count(), 2, "{}", text.stdout);
    let reasons = format!("  stopped tasks of acme-shop-dev-pdf-render:2:\n    {PULL_SECRETS} (2 tasks)\n");
    assert!(text.stdout.contains(&format!("{rolled_back}{reasons}")), "{}", text.stdout);
    assert!(!text.stdout.contains("Scaling activity"), "{}", text.stdout);
    assert!(text.stdout.ends_with("3 service(s): 2 complete, 1 rolled back\n"), "{}", text.stdout);
    assert_eq!(text.stderr, "error: the release of dev did not complete: pdf-render rolled back\n");

    let run = rollout(&moto.url(), &["--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = json_of(&run);
    assert_eq!(report["verdict"], "failed");
    assert_eq!(entry(&report, "metabase")["state"], "complete");
    assert_eq!(entry(&report, "jobs-worker")["state"], "complete");
    let pdf = entry(&report, "pdf-render");
    assert_eq!(pdf["state"], "rolled-back");
    assert_eq!(pdf["expectedRevision"], "acme-shop-dev-pdf-render:2");
    assert_eq!(pdf["runningRevision"], "acme-shop-dev-pdf-render:1");
    assert_eq!(pdf["reasons"], json!([{"reason": PULL_SECRETS, "tasks": 2}]));
}

#[test]
fn a_release_still_in_progress_at_the_timeout_exits_5() {
    // Without MOTO_ECS_SERVICE_RUNNING, moto's services run no task: IN_PROGRESS for ever.
    let moto = Moto::start();
    let ecs = Ecs::of(&moto);
    ecs.cluster();
    for (_, _, family) in [METABASE, PDF, WORKER] {
        ecs.register(family, "app:1");
    }
    for workload in [METABASE, PDF, WORKER] {
        ecs.service(workload);
    }
    let declared = format!("{ARN}:task-definition/acme-shop-dev-metabase:1");
    ecs.stopped_tasks(&declared, 1, "Task failed ELB health checks in (target-group x)");

    let started = Instant::now();
    let text = rollout(&moto.url(), &["--timeout", "2s"]);
    let took = started.elapsed();
    assert_eq!(text.code, 5, "{}", text.stderr);
    assert!(took >= Duration::from_secs(2) && took < Duration::from_secs(30), "took {took:?}");
    let waiting = "waiting     metabase: acme-shop-dev-metabase:1, 0 of 1 running (IN_PROGRESS)\n";
    let timed_out = "timed out   metabase: acme-shop-dev-metabase:1, 0 of 1 running (IN_PROGRESS)\n";
    // A progress line per change: one while waiting (the looks after it change nothing), one
    // at the timeout.
    assert_eq!(text.stdout.matches(waiting).count(), 1, "{}", text.stdout);
    assert!(text.stdout.contains(&format!(
        "{timed_out}  stopped tasks of acme-shop-dev-metabase:1:\n    Task failed ELB health checks in (target-group x) (1 task)\n"
    )));
    assert!(text.stdout.ends_with("3 service(s): 3 timed out\n"), "{}", text.stdout);
    assert!(text.stderr.starts_with("error: the release of dev did not settle within 2s"), "{}", text.stderr);
    assert!(text.stderr.contains("run `runway rollout` again"), "{}", text.stderr);

    let run = rollout(&moto.url(), &["--timeout", "1s", "--format", "json"]);
    assert_eq!(run.code, 5, "{}", run.stderr);
    let report = json_of(&run);
    assert_eq!(report["verdict"], "timed-out");
    assert!(report["waitedSeconds"].as_u64().unwrap() >= 1);
    let metabase = entry(&report, "metabase");
    assert_eq!(metabase["state"], "timed-out");
    assert_eq!((metabase["desiredCount"].as_u64(), metabase["runningCount"].as_u64()), (Some(1), Some(0)));
    assert_eq!(metabase["rolloutState"], "IN_PROGRESS");
}

#[test]
fn a_service_missing_in_aws_says_to_run_pulumi_up_first() {
    let moto = Moto::start_with(&[("MOTO_ECS_SERVICE_RUNNING", "1")]);
    // An empty account: no task definition family, no cluster.
    let empty = rollout(&moto.url(), &[]);
    assert_eq!(empty.code, 1, "{}", empty.stderr);
    assert!(
        empty.stdout.contains(
            "missing     metabase: task definition family `acme-shop-dev-metabase` has no ACTIVE \
             revision; run `pulumi up` for this environment first; if it has run, the AWS \
             credentials are another account's or the region is not the environment's\n"
        ),
        "{}",
        empty.stdout
    );
    assert!(empty.stdout.ends_with("3 service(s): 3 missing\n"), "{}", empty.stdout);

    // The families are registered, but no cluster.
    let ecs = Ecs::of(&moto);
    for (_, _, family) in [METABASE, PDF, WORKER] {
        ecs.register(family, "app:1");
    }
    let no_cluster = rollout(&moto.url(), &[]);
    assert_eq!(no_cluster.code, 1, "{}", no_cluster.stderr);
    assert!(
        no_cluster
            .stdout
            .contains("missing     pdf-render: cluster `acme-shop-dev` not found; run `pulumi up`")
    );

    // Two services of three: the worker's is there, pdf-render's is not.
    ecs.cluster();
    ecs.service(METABASE);
    ecs.service(WORKER);
    let run = rollout(&moto.url(), &["--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let report = json_of(&run);
    assert_eq!(report["verdict"], "failed");
    assert_eq!(entry(&report, "metabase")["state"], "complete");
    assert_eq!(entry(&report, "jobs-worker")["state"], "complete");
    let pdf = entry(&report, "pdf-render");
    assert_eq!(pdf["state"], "missing");
    assert_eq!(pdf["expectedRevision"], "acme-shop-dev-pdf-render:1");
    let message = pdf["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "service `acme-shop-dev-pdf-render-service` not found in cluster `acme-shop-dev`; run `pulumi up`"
        ),
        "{message}"
    );
    assert_eq!(
        run.stderr.lines().last(),
        Some("error: the release of dev did not complete: pdf-render missing")
    );
}

/// The error names the first step on its first line, then the cause on one line of its own.
fn assert_first_step(run: &Run, step: &str, cause: &str) {
    let mut lines = run.stderr.lines().skip_while(|l| !l.starts_with("error: "));
    let first = lines.next().unwrap_or_default();
    assert!(first.contains(step), "first line `{first}` does not say `{step}`:\n{}", run.stderr);
    let second = lines.next().unwrap_or_default();
    assert!(second.starts_with("  cause: ") && second.contains(cause), "{}", run.stderr);
}

#[test]
fn without_aws_credentials_the_first_step_is_named_and_the_exit_is_4() {
    let unset = [("AWS_ACCESS_KEY_ID", None), ("AWS_SECRET_ACCESS_KEY", None)];
    let file = example();
    let text = runway_with("http://127.0.0.1:9", &["rollout", "--env", "dev", &file], &unset);
    assert_eq!(text.code, 4, "{}", text.stderr);
    assert_first_step(
        &text,
        "rollout could not read the ECS services: no AWS credentials found",
        "DescribeTaskDefinition failed",
    );
    for named in ["AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "aws sso login"] {
        assert!(text.stderr.contains(named), "{named}: {}", text.stderr);
    }
    // A script reading stdout gets JSON.
    let json =
        runway_with("http://127.0.0.1:9", &["rollout", "--env", "dev", "--format", "json", &file], &unset);
    assert_eq!(json.code, 4, "{}", json.stderr);
    let error = json_of(&json);
    assert_eq!(error["error"]["exit"], 4);
    assert!(error["error"]["message"].as_str().unwrap().contains("no AWS credentials found"));

    // Expired keys: the service's refusal names its own first step.
    let aws = CannedAws::start(vec![Route {
        operation: "*".into(),
        body_contains: None,
        answers: vec![(
            "400 Bad Request".into(),
            r#"{"__type":"com.amazon.coral.service#ExpiredTokenException","message":"The security token included in the request is expired"}"#.into(),
        )],
    }]);
    let expired =
        runway_with(&aws.url(), &["rollout", "--env", "dev", &file], &[("AWS_SESSION_TOKEN", Some("old"))]);
    assert_eq!(expired.code, 4, "{}", expired.stderr);
    assert_first_step(
        &expired,
        "the AWS credentials have expired: renew the session",
        "ExpiredTokenException",
    );
}

// ---- canned answers: ECS's shapes moto does not give ---------------------------------------

fn task_definition(family: &str, revision: u32) -> String {
    json!({"taskDefinition": {
        "taskDefinitionArn": format!("{ARN}:task-definition/{family}:{revision}"),
        "family": family, "revision": revision, "status": "ACTIVE", "containerDefinitions": []
    }})
    .to_string()
}

fn deployment(status: &str, family: &str, revision: u32, running: u32, rollout: &str, reason: &str) -> Value {
    json!({
        "id": format!("ecs-svc/{family}{revision}"), "status": status,
        "taskDefinition": format!("{ARN}:task-definition/{family}:{revision}"),
        "desiredCount": 1, "pendingCount": 0, "runningCount": running, "failedTasks": 0,
        "rolloutState": rollout, "rolloutStateReason": reason
    })
}

fn service((_, name, _): (&str, &str, &str), running: u32, deployments: &[Value]) -> Value {
    json!({
        "serviceArn": format!("{ARN}:service/{CLUSTER}/{name}"), "serviceName": name,
        "clusterArn": format!("{ARN}:cluster/{CLUSTER}"), "status": "ACTIVE",
        "desiredCount": 1, "runningCount": running, "pendingCount": 0,
        "taskDefinition": deployments[0]["taskDefinition"], "deployments": deployments
    })
}

/// The worker outside dev's active hours: scaled to 0 by its scheduled action, its deployment
/// of `revision` settled.
fn idle_worker(revision: u32) -> Value {
    let family = WORKER.2;
    let mut settled = deployment("PRIMARY", family, revision, 0, "COMPLETED", "completed");
    settled["desiredCount"] = 0.into();
    let mut look = service(WORKER, 0, &[settled]);
    look["desiredCount"] = 0.into();
    look
}

fn services(list: &[Value]) -> String {
    json!({"services": list, "failures": []}).to_string()
}

/// Stopped tasks of `family:revision` as `DescribeTasks` gives them: `(stoppedReason,
/// container reason, container exit code)` each.
fn stopped(family: &str, revision: u32, tasks: &[(&str, Option<&str>, Option<i32>)]) -> (String, String) {
    let arn = |i: usize| format!("{ARN}:task/{CLUSTER}/{family}{i}");
    let listed = json!({"taskArns": (0..tasks.len()).map(arn).collect::<Vec<_>>()}).to_string();
    let described: Vec<Value> = tasks
        .iter()
        .enumerate()
        .map(|(i, (reason, container, exit))| {
            json!({
                "taskArn": arn(i), "clusterArn": format!("{ARN}:cluster/{CLUSTER}"),
                "taskDefinitionArn": format!("{ARN}:task-definition/{family}:{revision}"),
                "lastStatus": "STOPPED", "desiredStatus": "STOPPED", "stopCode": "EssentialContainerExited",
                "stoppedAt": 1_700_000_000 + i, "stoppedReason": reason,
                "containers": [{"name": family, "lastStatus": "STOPPED", "reason": container, "exitCode": exit}]
            })
        })
        .collect();
    (listed, json!({"tasks": described, "failures": []}).to_string())
}

/// ECS's own rollback, look by look: both releases in progress (the worker, at 0 tasks outside
/// its active hours, complete at the first look), then `metabase` complete while the circuit
/// breaker failed `pdf-render`'s revision 8 and ECS went back to 7 (a new PRIMARY deployment of
/// 7, the failed one still listed).
#[test]
fn ecs_rollback_as_ecs_reports_it_with_a_progress_line_per_change() {
    let (m, p) = (METABASE.2, PDF.2);
    let breaker = "ECS deployment circuit breaker: tasks failed to start.";
    let first = services(&[
        service(
            METABASE,
            1,
            &[
                deployment("PRIMARY", m, 3, 0, "IN_PROGRESS", "in progress"),
                deployment("ACTIVE", m, 2, 1, "COMPLETED", "completed"),
            ],
        ),
        service(
            PDF,
            1,
            &[
                deployment("PRIMARY", p, 8, 0, "IN_PROGRESS", "in progress"),
                deployment("ACTIVE", p, 7, 1, "COMPLETED", "completed"),
            ],
        ),
        idle_worker(5),
    ]);
    let second = services(&[
        service(METABASE, 1, &[deployment("PRIMARY", m, 3, 1, "COMPLETED", "completed")]),
        service(
            PDF,
            1,
            &[
                deployment("PRIMARY", p, 7, 1, "IN_PROGRESS", "rolling back"),
                deployment("ACTIVE", p, 8, 0, "FAILED", breaker),
            ],
        ),
        idle_worker(5),
    ]);
    let (listed, described) = stopped(
        p,
        8,
        &[
            ("Essential container in task exited", Some("exec format error"), Some(1)),
            ("Essential container in task exited", None, Some(137)),
        ],
    );
    let aws = CannedAws::start(vec![
        Route::ok("DescribeTaskDefinition", &task_definition(m, 3)).when_body_has(&format!("\"{m}\"")),
        Route::ok("DescribeTaskDefinition", &task_definition(p, 8)).when_body_has(&format!("\"{p}\"")),
        Route::ok("DescribeTaskDefinition", &task_definition(WORKER.2, 5))
            .when_body_has(&format!("\"{}\"", WORKER.2)),
        Route::ok_each("DescribeServices", &[&first, &second]),
        Route::ok("ListTasks", &listed),
        Route::ok("DescribeTasks", &described),
    ]);
    let run = rollout(&aws.url(), &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let progress: Vec<&str> = run.stdout.lines().skip(1).take(5).collect();
    assert_eq!(
        progress,
        [
            "waiting     metabase: acme-shop-dev-metabase:3, 0 of 1 running (IN_PROGRESS)",
            "waiting     pdf-render: acme-shop-dev-pdf-render:8, 0 of 1 running (IN_PROGRESS)",
            "complete    jobs-worker: acme-shop-dev-jobs-worker:5, 0 of 0 running",
            "complete    metabase: acme-shop-dev-metabase:3, 1 of 1 running",
            "rolled back pdf-render: expected acme-shop-dev-pdf-render:8, running acme-shop-dev-pdf-render:7 \
             (1 of 1 running): ECS deployment circuit breaker: tasks failed to start.",
        ],
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains(
        "  stopped tasks of acme-shop-dev-pdf-render:8:\n    Essential container in task exited (2 tasks)\n    \
         container acme-shop-dev-pdf-render: exit code 137 (1 task)\n    \
         container acme-shop-dev-pdf-render: exec format error (exit code 1) (1 task)\n"
    ), "{}", run.stdout);
    // Most recent first (the task with exit code 137 stopped last). A look at the three, one at
    // the two not settled, then nothing more to look at; the reasons of the one rolled back.
    assert_eq!(
        aws.asked(),
        [
            "DescribeTaskDefinition",
            "DescribeTaskDefinition",
            "DescribeTaskDefinition",
            "DescribeServices",
            "DescribeServices",
            "ListTasks",
            "DescribeTasks"
        ]
    );

    let json = rollout(&aws.url(), &["--format", "json"]);
    let report = json_of(&json);
    let pdf = entry(&report, "pdf-render");
    assert_eq!(pdf["state"], "rolled-back");
    assert_eq!(pdf["rolloutState"], "IN_PROGRESS");
    let worker = entry(&report, "jobs-worker");
    assert_eq!(worker["state"], "complete");
    assert_eq!((worker["desiredCount"].as_u64(), worker["runningCount"].as_u64()), (Some(0), Some(0)));
    assert_eq!(pdf["message"], breaker, "the failed deployment's reason");
}

/// A first deploy has nothing to roll back to: the circuit breaker fails the deployment of the
/// declared revision and ECS stops starting tasks.
#[test]
fn a_failed_deployment_exits_1_at_once_with_its_reason() {
    let (m, p) = (METABASE.2, PDF.2);
    let breaker = "ECS deployment circuit breaker: tasks failed to start.";
    let looks = services(&[
        service(METABASE, 1, &[deployment("PRIMARY", m, 1, 1, "COMPLETED", "completed")]),
        service(PDF, 0, &[deployment("PRIMARY", p, 1, 0, "FAILED", breaker)]),
        service(WORKER, 1, &[deployment("PRIMARY", WORKER.2, 1, 1, "COMPLETED", "completed")]),
    ]);
    let (listed, described) = stopped(
        p,
        1,
        &[
            (PULL_SECRETS, None, None),
            (PULL_SECRETS, None, None),
            (
                "CannotPullContainerError: pull image manifest has been retried 5 time(s): image Manifest does not contain descriptor matching platform 'linux/arm64'",
                None,
                None,
            ),
        ],
    );
    let aws = CannedAws::start(vec![
        Route::ok("DescribeTaskDefinition", &task_definition(m, 1)).when_body_has(&format!("\"{m}\"")),
        Route::ok("DescribeTaskDefinition", &task_definition(p, 1)).when_body_has(&format!("\"{p}\"")),
        Route::ok("DescribeTaskDefinition", &task_definition(WORKER.2, 1))
            .when_body_has(&format!("\"{}\"", WORKER.2)),
        Route::ok("DescribeServices", &looks),
        Route::ok("ListTasks", &listed),
        Route::ok("DescribeTasks", &described),
    ]);
    let started = Instant::now();
    let run = rollout(&aws.url(), &["--format", "json", "--timeout", "10m"]);
    assert!(started.elapsed() < Duration::from_secs(30), "a failure does not wait for the timeout");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "failed      pdf-render: acme-shop-dev-pdf-render:1, 0 of 1 running: {breaker}"
        ))
    );
    let report = json_of(&run);
    assert_eq!(report["verdict"], "failed");
    assert_eq!(entry(&report, "jobs-worker")["state"], "complete");
    let pdf = entry(&report, "pdf-render");
    assert_eq!(pdf["state"], "failed");
    assert_eq!(pdf["rolloutState"], "FAILED");
    assert_eq!(pdf["message"], breaker);
    let reasons: Vec<(&str, u64)> = pdf["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["reason"].as_str().unwrap(), r["tasks"].as_u64().unwrap()))
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(reasons.contains(&(PULL_SECRETS, 2)), "{reasons:?}");
    assert!(reasons.iter().any(|(r, n)| r.starts_with("CannotPullContainerError") && *n == 1), "{reasons:?}");
}

#[test]
fn the_timeout_and_the_interval_are_bounded() {
    let file = example();
    for (flag, value) in [
        ("--timeout", "0s"),
        ("--timeout", "7h"),
        ("--interval", "500ms"),
        ("--interval", "10m"),
        ("--timeout", "15"),
    ] {
        let run = runway_with("http://127.0.0.1:9", &["rollout", "--env", "dev", flag, value, &file], &[]);
        assert_eq!(run.code, 2, "{flag} {value}: {}", run.stderr);
        assert!(run.stderr.contains(value), "{}", run.stderr);
    }
}
