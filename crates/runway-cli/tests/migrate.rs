//! `runway migrate` end to end: the real binary against moto (ECS `RunTask`/`DescribeTasks`/
//! `ListTasks`, SSM for the record) and, for what moto leaves out (a container's non-zero exit
//! code, a task that never started, `PROVISIONING`/`PENDING`), canned answers on loopback. The
//! example product `examples/acme-shop`, environment `dev`: workload `metabase` declares
//! `migrate`.
//!
//! moto 5.2.5 cannot run an `awsvpc` task (its network interface lacks `private_dns_name`), so
//! the moto tests register the migrate family without `FARGATE` compatibility (moto then gives
//! it the `bridge` mode and ignores the awsvpc configuration runway sends). moto's tasks go
//! `RUNNING` -> ... -> `STOPPED` one step per look, their container's exit code always 0; its
//! state manager (`/moto-api/state-manager/set-transition`) holds them `RUNNING` for the
//! interruption test.
//!
//! Needs the workspace venv for moto: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};

use aws_sdk_ecs::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_ecs::types::ContainerDefinition;
use common::Run;
use serde_json::{Value, json};
use test_support::{CannedAws, Moto, Route};

mod common;

const REGION: &str = "us-east-1";
const CLUSTER: &str = "acme-shop-dev";
const FAMILY: &str = "acme-shop-dev-metabase-migrate";
const OUTPUT: &str = "runway-task-migrate-metabase";
const RECORD: &str = "/acme-shop/dev/runway/migrate/metabase";
const IMAGE: &str =
    "metabase/metabase:v0.50.3@sha256:9f2b1c4e5d6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c";
const ARN: &str = "arn:aws:ecs:us-east-1:123456789012";

fn example() -> String {
    let file: PathBuf = test_support::example("acme-shop").join("runway.yaml");
    file.to_str().unwrap().to_owned()
}

/// The stack outputs a first `pulumi up` gives: the migrate task's object (and a connection
/// variable, as the real file has).
fn outputs(dir: &Path, task_definition: &str) -> PathBuf {
    let file = dir.join("outputs.json");
    let value = json!({
        "MAIN_DB_HOST": "main-db.proxy.example",
        OUTPUT: {
            "cluster": CLUSTER,
            "taskDefinition": task_definition,
            "family": FAMILY,
            "subnets": ["subnet-0aaa", "subnet-0bbb"],
            "securityGroups": ["sg-0metabase"],
            "container": "metabase",
            "logGroup": "/runway/acme-shop/dev/metabase",
            "logStreamPrefix": "metabase",
            "region": REGION,
        }
    });
    std::fs::write(&file, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    file
}

/// `runway migrate --env dev --interval 1s --outputs OUTPUTS EXTRA... <example>` against `aws_url`.
fn migrate(aws_url: &str, outputs: &Path, extra: &[&str], changed: &[(&str, Option<&str>)]) -> Run {
    let file = example();
    let mut cmd = common::aws_command(aws_url, "runway-migrate-test-home");
    cmd.args(["migrate", "--env", "dev", "--interval", "1s", "--outputs", outputs.to_str().unwrap()]);
    cmd.args(extra).arg(&file);
    for (name, value) in changed {
        match value {
            Some(value) => cmd.env(name, value),
            None => cmd.env_remove(name),
        };
    }
    let run = Run::of_utf8(&mut cmd);
    println!("$ runway migrate {}\nexit {}\n{}{}", extra.join(" "), run.code, run.stdout, run.stderr);
    run
}

fn json_of(run: &Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", run.stdout))
}

/// The tests' own ECS and SSM clients on moto.
struct Aws {
    ecs: aws_sdk_ecs::Client,
    ssm: aws_sdk_ssm::Client,
    rt: tokio::runtime::Runtime,
}

impl Aws {
    fn of(moto: &Moto) -> Aws {
        let credentials = Credentials::new("testing", "testing", None, None, "test");
        let ecs = aws_sdk_ecs::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(Region::new(REGION))
            .endpoint_url(moto.url())
            .credentials_provider(credentials.clone())
            .build();
        let ssm = aws_sdk_ssm::Config::builder()
            .behavior_version(aws_sdk_ssm::config::BehaviorVersion::latest())
            .region(aws_sdk_ssm::config::Region::new(REGION))
            .endpoint_url(moto.url())
            .credentials_provider(credentials)
            .build();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        Aws { ecs: aws_sdk_ecs::Client::from_conf(ecs), ssm: aws_sdk_ssm::Client::from_conf(ssm), rt }
    }

    /// The cluster and a revision of the migrate family; its ARN.
    fn first_up(&self) -> String {
        self.rt.block_on(self.ecs.create_cluster().cluster_name(CLUSTER).send()).unwrap();
        let container = ContainerDefinition::builder().name("metabase").image(IMAGE).memory(512).build();
        let register = self.ecs.register_task_definition().family(FAMILY).container_definitions(container);
        let out = self.rt.block_on(register.send()).unwrap();
        out.task_definition().unwrap().task_definition_arn().unwrap().to_owned()
    }

    /// Every task of the family moto knows (running or not).
    fn tasks(&self) -> usize {
        let list = self.ecs.list_tasks().cluster(CLUSTER).family(FAMILY);
        self.rt.block_on(list.send()).unwrap().task_arns().len()
    }

    /// The record's value, when it exists.
    fn record(&self) -> Option<Value> {
        let got = self.rt.block_on(self.ssm.get_parameter().name(RECORD).send()).ok()?;
        Some(serde_json::from_str(got.parameter().unwrap().value().unwrap()).unwrap())
    }

    fn record_tags(&self) -> Vec<(String, String)> {
        let list = self
            .ssm
            .list_tags_for_resource()
            .resource_type(aws_sdk_ssm::types::ResourceTypeForTagging::Parameter)
            .resource_id(RECORD);
        let out = self.rt.block_on(list.send()).unwrap();
        out.tag_list().iter().map(|t| (t.key().to_owned(), t.value().to_owned())).collect()
    }
}

/// moto's tasks: held at `RUNNING` (`hold`), or one step per look.
fn tasks_progress(moto: &Moto, hold: bool) {
    let port: u16 = moto.url().rsplit(':').next().unwrap().parse().unwrap();
    let times = if hold { 1_000_000 } else { 1 };
    let body = json!({"model_name": "ecs::task", "transition": {"progression": "manual", "times": times}});
    let reply = test_support::http(port, "POST", "/moto-api/state-manager/set-transition", &body.to_string());
    assert!(reply.is_some_and(|r| r.status == 201 || r.status == 200), "moto's state manager");
}

#[test]
fn a_migration_runs_once_per_image_and_command() {
    let moto = Moto::start();
    let aws = Aws::of(&moto);
    let revision = aws.first_up();
    let dir = test_support::scratch("migrate-once");
    let outputs = outputs(&dir, &revision);

    let run = migrate(&moto.url(), &outputs, &[], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines[0].starts_with("migrate-metabase: started task "), "{}", run.stdout);
    // moto's task steps on at each look (it answered `RunTask` with RUNNING): a line per status.
    let statuses: Vec<&str> = lines.iter().filter_map(|l| l.rsplit(' ').next()).collect();
    assert_eq!(statuses[1..5], ["DEACTIVATING", "STOPPING", "DEPROVISIONING", "STOPPED"], "{}", run.stdout);
    assert!(run.stdout.contains("succeeded  migrate-metabase: task "), "{}", run.stdout);
    assert!(run.stdout.ends_with("1 task(s) of dev: 1 run, complete\n"), "{}", run.stdout);
    assert_eq!(aws.tasks(), 1);
    // The record: the image, the command's fingerprint, the task; tagged as the workload's.
    let record = aws.record().expect("the success is recorded");
    assert_eq!(record["image"], IMAGE);
    assert!(record["command"].as_str().unwrap().starts_with("sha256:"), "{record}");
    assert!(record["task"].as_str().unwrap().starts_with(&format!("{ARN}:task/")), "{record}");
    let tags = aws.record_tags();
    for tag in [("product", "acme-shop"), ("environment", "dev"), ("resource", "metabase")] {
        assert!(tags.contains(&(tag.0.to_owned(), tag.1.to_owned())), "{tags:?}");
    }

    // The same image and command again: already done, nothing started.
    let again = migrate(&moto.url(), &outputs, &["--format", "json"], &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let report = json_of(&again);
    assert_eq!(report["verdict"], "complete");
    assert_eq!(report["tasks"][0]["state"], "already-done");
    assert_eq!(report["tasks"][0]["task"], record["task"]);
    assert_eq!(aws.tasks(), 1, "no second task for the same image and command");

    // A new release (the record holds another image): it runs again.
    let older =
        json!({"image": "metabase/metabase:v0.49@sha256:00", "command": record["command"], "task": "t"});
    let put = aws.ssm.put_parameter().name(RECORD).value(older.to_string()).overwrite(true);
    aws.rt.block_on(put.send()).unwrap();
    let release = migrate(&moto.url(), &outputs, &[], &[]);
    assert_eq!(release.code, 0, "{}", release.stderr);
    assert_eq!(aws.tasks(), 2);
    assert_eq!(aws.record().unwrap()["image"], IMAGE);
}

/// The job killed (or timed out) after `RunTask`: the task goes on. Running the command again
/// waits for that task instead of starting a second one, and records it when it succeeds.
#[test]
fn an_interrupted_run_is_waited_for_not_started_twice() {
    let moto = Moto::start();
    let aws = Aws::of(&moto);
    let revision = aws.first_up();
    let dir = test_support::scratch("migrate-interrupted");
    let outputs = outputs(&dir, &revision);
    tasks_progress(&moto, true);

    let first = migrate(&moto.url(), &outputs, &["--timeout", "2s"], &[]);
    assert_eq!(first.code, 5, "{}", first.stderr);
    assert!(first.stdout.contains("timed out  migrate-metabase: task "), "{}", first.stdout);
    assert!(first.stderr.contains("run `runway migrate` again to wait for it"), "{}", first.stderr);
    assert_eq!(aws.tasks(), 1);
    assert!(aws.record().is_none());

    let second = migrate(&moto.url(), &outputs, &["--timeout", "2s"], &[]);
    assert_eq!(second.code, 5, "{}", second.stderr);
    assert!(
        second.stdout.contains("already running (an earlier run started it): waiting for it"),
        "{}",
        second.stdout
    );
    assert_eq!(aws.tasks(), 1, "the running task is waited for, not started twice");

    tasks_progress(&moto, false);
    let third = migrate(&moto.url(), &outputs, &["--format", "json"], &[]);
    assert_eq!(third.code, 0, "{}", third.stderr);
    let report = json_of(&third);
    assert_eq!(report["tasks"][0]["state"], "succeeded");
    assert_eq!(report["tasks"][0]["adopted"], true);
    assert_eq!(aws.tasks(), 1);
    assert_eq!(aws.record().unwrap()["task"], report["tasks"][0]["task"]);
}

// ---- canned answers: what moto does not give -------------------------------------------------

const TASK: &str = "arn:aws:ecs:us-east-1:123456789012:task/acme-shop-dev/0f1e2d3c4b5a";

fn not_found() -> Route {
    Route {
        operation: "GetParameter".into(),
        body_contains: None,
        answers: vec![(
            "400 Bad Request".into(),
            r#"{"__type":"ParameterNotFound","message":"Parameter not found"}"#.into(),
        )],
    }
}

fn task(status: &str, stop: Option<(&str, &str)>, exit_code: Option<i32>) -> String {
    let mut container = json!({"name": "metabase", "lastStatus": status});
    if let Some(code) = exit_code {
        container["exitCode"] = json!(code);
    }
    let mut task = json!({
        "taskArn": TASK,
        "startedBy": "runway",
        "taskDefinitionArn": format!("{ARN}:task-definition/{FAMILY}:4"),
        "lastStatus": status,
        "containers": [container],
    });
    if let Some((code, reason)) = stop {
        task["stopCode"] = json!(code);
        task["stoppedReason"] = json!(reason);
    }
    json!({"tasks": [task], "failures": []}).to_string()
}

fn started() -> Vec<Route> {
    vec![
        not_found(),
        Route::ok("ListTasks", r#"{"taskArns": []}"#),
        Route::ok("RunTask", &task("PROVISIONING", None, None)),
    ]
}

#[test]
fn a_failed_migration_exits_1_with_its_exit_code_and_where_its_logs_are() {
    let dir = test_support::scratch("migrate-failed");
    let outputs = outputs(&dir, &format!("{ARN}:task-definition/{FAMILY}:4"));
    let looks = [
        task("PROVISIONING", None, None),
        task("PENDING", None, None),
        task("RUNNING", None, None),
        task("STOPPED", Some(("EssentialContainerExited", "Essential container in task exited")), Some(3)),
    ];
    let mut routes = started();
    routes.push(Route::ok_each("DescribeTasks", &looks.iter().map(String::as_str).collect::<Vec<_>>()));
    let aws = CannedAws::start(routes);
    let run = migrate(&aws.url(), &outputs, &[], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let progress: Vec<&str> = run.stdout.lines().take(5).collect();
    assert_eq!(
        progress,
        [
            "migrate-metabase: started task 0f1e2d3c4b5a",
            "migrate-metabase: task 0f1e2d3c4b5a PROVISIONING",
            "migrate-metabase: task 0f1e2d3c4b5a PENDING",
            "migrate-metabase: task 0f1e2d3c4b5a RUNNING",
            "migrate-metabase: task 0f1e2d3c4b5a STOPPED",
        ],
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "failed     migrate-metabase: task 0f1e2d3c4b5a exited 3 (Essential container in task exited)\n  \
             logs: log group /runway/acme-shop/dev/metabase, stream metabase/metabase/0f1e2d3c4b5a \
             (`aws logs tail /runway/acme-shop/dev/metabase --log-stream-names metabase/metabase/0f1e2d3c4b5a`; \
             console: https://us-east-1.console.aws.amazon.com/ecs/v2/clusters/acme-shop-dev/tasks/0f1e2d3c4b5a/logs?region=us-east-1)"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.starts_with(
            "error: migrate-metabase exited 3: read its logs (log group /runway/acme-shop/dev/metabase, \
             stream metabase/metabase/0f1e2d3c4b5a)"
        ),
        "{}",
        run.stderr
    );
    // Nothing recorded: a failure runs again next time.
    assert_eq!(
        aws.asked(),
        [
            "GetParameter",
            "ListTasks",
            "RunTask",
            "DescribeTasks",
            "DescribeTasks",
            "DescribeTasks",
            "DescribeTasks"
        ]
    );

    let aws = CannedAws::start({
        let mut routes = started();
        routes.push(Route::ok("DescribeTasks", &looks[3]));
        routes
    });
    let json = migrate(&aws.url(), &outputs, &["--format", "json"], &[]);
    assert_eq!(json.code, 1, "{}", json.stderr);
    let report = json_of(&json);
    assert_eq!(report["verdict"], "failed");
    let t = &report["tasks"][0];
    assert_eq!((t["state"].as_str(), t["exitCode"].as_i64()), (Some("failed"), Some(3)));
    assert_eq!(t["logs"]["stream"], "metabase/metabase/0f1e2d3c4b5a");
}

#[test]
fn a_task_that_never_started_says_why() {
    let dir = test_support::scratch("migrate-never");
    let outputs = outputs(&dir, &format!("{ARN}:task-definition/{FAMILY}:4"));
    let pull = "CannotPullContainerError: pull image manifest has been retried 5 time(s): failed to resolve ref \
                docker.io/metabase/metabase: not found";
    let mut routes = started();
    routes.push(Route::ok("DescribeTasks", &task("STOPPED", Some(("TaskFailedToStart", pull)), None)));
    let aws = CannedAws::start(routes);
    let run = migrate(&aws.url(), &outputs, &[], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.starts_with(&format!(
            "error: migrate-metabase never ran its command: TaskFailedToStart: {pull}; fix that"
        )),
        "{}",
        run.stderr
    );

    // ECS refusing to place it at all.
    let refused =
        json!({"tasks": [], "failures": [{"arn": format!("{ARN}:cluster/{CLUSTER}"), "reason": "MISSING"}]});
    let aws = CannedAws::start(vec![
        not_found(),
        Route::ok("ListTasks", r#"{"taskArns": []}"#),
        Route::ok("RunTask", &refused.to_string()),
    ]);
    let run = migrate(&aws.url(), &outputs, &[], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("never ran its command: ECS did not start the task: MISSING"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_run_of_another_revision_still_running_starts_nothing() {
    let dir = test_support::scratch("migrate-busy");
    let outputs = outputs(&dir, &format!("{ARN}:task-definition/{FAMILY}:5"));
    let aws = CannedAws::start(vec![
        not_found(),
        Route::ok("ListTasks", &json!({"taskArns": [TASK]}).to_string()),
        Route::ok("DescribeTasks", &task("RUNNING", None, None)),
    ]);
    let run = migrate(&aws.url(), &outputs, &[], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("a task of an earlier revision still runs"), "{}", run.stderr);
    assert!(!aws.asked().contains(&"RunTask".to_owned()), "{:?}", aws.asked());
}

#[test]
fn without_aws_credentials_the_first_step_is_named_and_the_exit_is_4() {
    let dir = test_support::scratch("migrate-credentials");
    let outputs = outputs(&dir, &format!("{ARN}:task-definition/{FAMILY}:4"));
    let unset = [("AWS_ACCESS_KEY_ID", None), ("AWS_SECRET_ACCESS_KEY", None)];
    let run = migrate("http://127.0.0.1:9", &outputs, &[], &unset);
    assert_eq!(run.code, 4, "{}", run.stderr);
    let first = run.stderr.lines().next().unwrap_or_default();
    assert!(
        first.starts_with(&format!(
            "error: migrate could not read the record {RECORD}: no AWS credentials found"
        )),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("  cause: GetParameter failed"), "{}", run.stderr);
}

#[test]
fn usage_errors_exit_2() {
    let dir = test_support::scratch("migrate-usage");
    let outputs = outputs(&dir, "x");
    // No output for the task: the first `pulumi up` has not run.
    std::fs::write(&outputs, r#"{"MAIN_DB_HOST": "h"}"#).unwrap();
    let run = migrate("http://127.0.0.1:9", &outputs, &[], &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("has no output `{OUTPUT}`: run the first `pulumi up`")),
        "{}",
        run.stderr
    );
    // A workload without `migrate`, and one that does not exist.
    let run = migrate("http://127.0.0.1:9", &outputs, &["--workload", "pdf-render"], &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("workload pdf-render declares no `migrate`"), "{}", run.stderr);
    let run = migrate("http://127.0.0.1:9", &outputs, &["--workload", "nope"], &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
}
