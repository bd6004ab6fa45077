//! `runway migrate` end to end: the real binary against moto (ECS `RunTask`/`DescribeTasks`/
//! `ListTasks`, SSM for the record) and, for what moto leaves out (a container's non-zero exit
//! code, a task that never started, `PROVISIONING`/`PENDING`), canned answers on loopback. The
//! example product `examples/acme-shop`, environment `dev`: workload `metabase` declares
//! `migrate`, and `main-db`'s bootstrap (its consumers' login roles) runs before it. Where a
//! test is about the migration, the bootstrap is recorded done beforehand (its record folds
//! in the versions of the parameters it reads, as `runway migrate` computes it).
//!
//! moto 5.2.5 cannot run an `awsvpc` task (its network interface lacks `private_dns_name`), so
//! the moto tests register the migrate family without `FARGATE` compatibility (moto then gives
//! it the `bridge` mode and ignores the awsvpc configuration runway sends). moto's tasks go
//! `RUNNING` -> ... -> `STOPPED` one step per look, their container's exit code always 0; its
//! state manager (`/moto-api/state-manager/set-transition`) holds them `RUNNING` for the
//! interruption test.
//!
//! A bootstrap starts once its proxy has an available target: moto 5.2.5 answers
//! `DescribeDBProxyTargets` (a target it registered is `AVAILABLE`, none registered is none),
//! and the tests make the proxy with boto3 as the first `pulumi up` would; a target
//! `UNAVAILABLE` with a reason, which moto never gives, is a canned answer.
//!
//! Needs the workspace venv for moto: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};

use crate::common::Run;
use aws_sdk_ecs::types::ContainerDefinition;
use serde_json::{Value, json};
use test_support::{CannedAws, Moto, Route};

use crate::common;

const REGION: &str = "us-east-1";
const CLUSTER: &str = "acme-shop-dev";
const FAMILY: &str = "acme-shop-dev-metabase-migrate";
const OUTPUT: &str = "runway-task-migrate-metabase";
const RECORD: &str = "/acme-shop/dev/runway/migrate/metabase";
const IMAGE: &str =
    "metabase/metabase:v0.50.3@sha256:9f2b1c4e5d6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c";
const ARN: &str = "arn:aws:ecs:us-east-1:123456789012";
const BOOT_FAMILY: &str = "acme-shop-dev-main-db-bootstrap";
const BOOT_OUTPUT: &str = "runway-task-bootstrap-main-db";
const BOOT_RECORD: &str = "/acme-shop/dev/runway/bootstrap/main-db";

/// main-db's bootstrap task as the plan of dev has it.
fn bootstrap_task() -> Value {
    let (code, out, err) = common::runway(&["plan", "--env", "dev", "--format", "json", &example()]);
    assert_eq!(code, 0, "{err}");
    let plan: Value = serde_json::from_str(&out).unwrap();
    let tasks = plan["tasks"].as_array().unwrap();
    tasks.iter().find(|t| t["name"] == "bootstrap-main-db").unwrap().clone()
}

/// The parameters the bootstrap reads, and its record's value with each at `version` (as
/// `runway migrate` folds them into the plan's fingerprint).
fn bootstrap_record(version: i64) -> (Vec<String>, Value) {
    let task = bootstrap_task();
    let names: Vec<String> = task["record"]["versionsOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect();
    let mut words = vec![task["record"]["command"].as_str().unwrap().to_owned()];
    words.extend(names.iter().map(|n| format!("{n}@{version}")));
    let words: Vec<_> = words.iter().map(|w| w.as_str().into()).collect();
    let command = runtime_plan::fingerprint(&words).to_string();
    let record = json!({"image": task["record"]["image"], "command": command, "task": "an-earlier-task"});
    (names, record)
}

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
        BOOT_OUTPUT: {
            "cluster": CLUSTER,
            "taskDefinition": format!("{ARN}:task-definition/{BOOT_FAMILY}:1"),
            "family": BOOT_FAMILY,
            "subnets": ["subnet-0aaa", "subnet-0bbb"],
            "securityGroups": ["sg-0bootstrap"],
            "container": "main-db-bootstrap",
            "logGroup": "/runway/acme-shop/dev/main-db-bootstrap",
            "logStreamPrefix": "main-db-bootstrap",
            "region": REGION,
        },
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
        let (ecs, ssm, rt) = common::moto_clients(moto);
        Aws { ecs, ssm, rt }
    }

    /// The cluster, the first revision of the bootstrap family and a revision of the migrate
    /// family (its ARN), and the parameters the bootstrap reads (`secrets prepare` and the
    /// program write them): each at version 1.
    fn first_up(&self) -> String {
        self.rt.block_on(self.ecs.create_cluster().cluster_name(CLUSTER).send()).unwrap();
        let image = runtime_plan::BOOTSTRAP_IMAGE;
        let boot = ContainerDefinition::builder().name("main-db-bootstrap").image(image).memory(512).build();
        let register = self.ecs.register_task_definition().family(BOOT_FAMILY).container_definitions(boot);
        self.rt.block_on(register.send()).unwrap();
        let (names, _) = bootstrap_record(1);
        for name in names {
            self.put(&name, "a-value", aws_sdk_ssm::types::ParameterType::SecureString);
        }
        let container = ContainerDefinition::builder().name("metabase").image(IMAGE).memory(512).build();
        let register = self.ecs.register_task_definition().family(FAMILY).container_definitions(container);
        let out = self.rt.block_on(register.send()).unwrap();
        out.task_definition().unwrap().task_definition_arn().unwrap().to_owned()
    }

    /// Writes parameter `name` (a new version when it exists).
    fn put(&self, name: &str, value: &str, kind: aws_sdk_ssm::types::ParameterType) {
        let put = self.ssm.put_parameter().name(name).value(value).r#type(kind).overwrite(true);
        self.rt.block_on(put.send()).unwrap();
    }

    /// main-db's bootstrap recorded as done with every parameter at its first version.
    fn bootstrap_done(&self) {
        let (_, record) = bootstrap_record(1);
        self.put(BOOT_RECORD, &record.to_string(), aws_sdk_ssm::types::ParameterType::String);
    }

    /// Every task moto knows, in any cluster (none may exist).
    fn bootstrap_tasks_anywhere(&self) -> usize {
        let clusters = self.rt.block_on(self.ecs.list_clusters().send()).unwrap();
        clusters
            .cluster_arns()
            .iter()
            .map(|c| self.rt.block_on(self.ecs.list_tasks().cluster(c).send()).unwrap().task_arns().len())
            .sum()
    }

    /// Every task of the bootstrap family moto knows.
    fn bootstrap_tasks(&self) -> usize {
        let list = self.ecs.list_tasks().cluster(CLUSTER).family(BOOT_FAMILY);
        self.rt.block_on(list.send()).unwrap().task_arns().len()
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
    proxy(&moto, true);
    let dir = test_support::scratch("migrate-once");
    let outputs = outputs(&dir, &revision);

    let run = migrate(&moto.url(), &outputs, &[], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // main-db's bootstrap first (metabase logs in with the role it makes), then the migration.
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines[0].starts_with("bootstrap-main-db: started task "), "{}", run.stdout);
    let migration = lines.iter().position(|l| l.starts_with("migrate-metabase: started task ")).unwrap();
    assert!(
        lines[..migration].iter().any(|l| l.starts_with("succeeded  bootstrap-main-db: task ")),
        "{}",
        run.stdout
    );
    // moto's task steps on at each look (it answered `RunTask` with RUNNING): a line per status.
    let statuses: Vec<&str> = lines[migration..].iter().filter_map(|l| l.rsplit(' ').next()).collect();
    assert_eq!(statuses[1..5], ["DEACTIVATING", "STOPPING", "DEPROVISIONING", "STOPPED"], "{}", run.stdout);
    assert!(run.stdout.contains("succeeded  migrate-metabase: task "), "{}", run.stdout);
    assert!(run.stdout.ends_with("2 task(s) of dev: 2 run, complete\n"), "{}", run.stdout);
    assert_eq!((aws.bootstrap_tasks(), aws.tasks()), (1, 1));
    let (_, boot) = bootstrap_record(1);
    let recorded: Value = {
        let got = aws.rt.block_on(aws.ssm.get_parameter().name(BOOT_RECORD).send()).unwrap();
        serde_json::from_str(got.parameter().unwrap().value().unwrap()).unwrap()
    };
    assert_eq!((&recorded["image"], &recorded["command"]), (&boot["image"], &boot["command"]));
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
    assert_eq!(report["tasks"][1]["state"], "already-done");
    assert_eq!(report["tasks"][1]["task"], record["task"]);
    assert_eq!((aws.bootstrap_tasks(), aws.tasks()), (1, 1), "no second task for the same image and command");

    // A login's password changed (a new version of its parameter): the bootstrap runs again
    // to set it; the migration is done already.
    aws.put(
        "/acme-shop/dev/main-db/metabase/MAIN_DB_PASSWORD",
        "another",
        aws_sdk_ssm::types::ParameterType::SecureString,
    );
    let changed = migrate(&moto.url(), &outputs, &["--format", "json"], &[]);
    assert_eq!(changed.code, 0, "{}", changed.stderr);
    let report = json_of(&changed);
    assert_eq!(
        (report["tasks"][0]["state"].as_str(), report["tasks"][1]["state"].as_str()),
        (Some("succeeded"), Some("already-done"))
    );
    assert_eq!((aws.bootstrap_tasks(), aws.tasks()), (2, 1));

    // A new release (the record holds another image): it runs again.
    let older =
        json!({"image": "metabase/metabase:v0.49@sha256:00", "command": record["command"], "task": "t"});
    let put = aws.ssm.put_parameter().name(RECORD).value(older.to_string()).overwrite(true);
    aws.rt.block_on(put.send()).unwrap();
    let release = migrate(&moto.url(), &outputs, &[], &[]);
    assert_eq!(release.code, 0, "{}", release.stderr);
    assert_eq!((aws.bootstrap_tasks(), aws.tasks()), (2, 2));
    assert_eq!(aws.record().unwrap()["image"], IMAGE);
}

/// The job killed (or timed out) after `RunTask`: the task goes on. Running the command again
/// waits for that task instead of starting a second one, and records it when it succeeds.
#[test]
fn an_interrupted_run_is_waited_for_not_started_twice() {
    let moto = Moto::start();
    let aws = Aws::of(&moto);
    let revision = aws.first_up();
    aws.bootstrap_done();
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
    assert_eq!(report["tasks"][0]["state"], "already-done", "the bootstrap");
    assert_eq!(report["tasks"][1]["state"], "succeeded");
    assert_eq!(report["tasks"][1]["adopted"], true);
    assert_eq!((aws.bootstrap_tasks(), aws.tasks()), (0, 1));
    assert_eq!(aws.record().unwrap()["task"], report["tasks"][1]["task"]);
}

// ---- canned answers: what moto does not give -------------------------------------------------

const TASK: &str = "arn:aws:ecs:us-east-1:123456789012:task/acme-shop-dev/0f1e2d3c4b5a";

/// The bootstrap's parameters at version 1 and its record saying it ran with them; the
/// migration's record absent.
fn records() -> Vec<Route> {
    let (names, record) = bootstrap_record(1);
    let parameters: Vec<Value> = names
        .iter()
        .map(|n| json!({"Name": n, "Type": "SecureString", "Value": "ciphertext", "Version": 1}))
        .collect();
    let boot = json!({"Parameter": {"Name": BOOT_RECORD, "Type": "String", "Value": record.to_string(), "Version": 1}});
    vec![
        Route::ok("GetParameters", &json!({"Parameters": parameters, "InvalidParameters": []}).to_string()),
        Route::ok("GetParameter", &boot.to_string()).when_body_has(BOOT_RECORD),
        Route {
            operation: "GetParameter".into(),
            body_contains: None,
            answers: vec![(
                "400 Bad Request".into(),
                r#"{"__type":"ParameterNotFound","message":"Parameter not found"}"#.into(),
            )],
        },
    ]
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
    let mut routes = records();
    routes.push(Route::ok("ListTasks", r#"{"taskArns": []}"#));
    routes.push(Route::ok("RunTask", &task("PROVISIONING", None, None)));
    routes
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
    assert!(run.stdout.starts_with("already done bootstrap-main-db: "), "{}", run.stdout);
    let progress: Vec<&str> = run.stdout.lines().skip(1).take(5).collect();
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
    // The bootstrap done already; nothing recorded: a failure runs again next time.
    assert_eq!(
        aws.asked(),
        [
            "GetParameters",
            "GetParameter",
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
    let t = &report["tasks"][1];
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
    let mut routes = records();
    routes.push(Route::ok("ListTasks", r#"{"taskArns": []}"#));
    routes.push(Route::ok("RunTask", &refused.to_string()));
    let aws = CannedAws::start(routes);
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
    let mut routes = records();
    routes.push(Route::ok("ListTasks", &json!({"taskArns": [TASK]}).to_string()));
    routes.push(Route::ok("DescribeTasks", &task("RUNNING", None, None)));
    let aws = CannedAws::start(routes);
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
        first.starts_with(
            "error: migrate could not read the versions of the task's parameters: no AWS credentials found"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("  cause: GetParameters failed"), "{}", run.stderr);
}

#[test]
fn usage_errors_exit_2() {
    let dir = test_support::scratch("migrate-usage");
    let outputs = outputs(&dir, "x");
    // No output for the tasks: the first `pulumi up` has not run.
    std::fs::write(&outputs, r#"{"MAIN_DB_HOST": "h"}"#).unwrap();
    let run = migrate("http://127.0.0.1:9", &outputs, &[], &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!("has no output `{BOOT_OUTPUT}`: run the first `pulumi up`")),
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

/// The bootstrap reads parameters `secrets prepare` and the first `pulumi up` write: before
/// they exist, nothing is started and the message names those two steps.
#[test]
fn a_bootstrap_whose_parameters_do_not_exist_yet_starts_nothing() {
    let moto = Moto::start();
    let dir = test_support::scratch("migrate-no-parameters");
    let outputs = outputs(&dir, &format!("{ARN}:task-definition/{FAMILY}:1"));
    let run = migrate(&moto.url(), &outputs, &[], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "bootstrap-main-db: parameter /acme-shop/dev/main-db/MAIN_DB_HOST does not exist yet; run \
             `runway secrets prepare` and the first `pulumi up` of the deploy job"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(Aws::of(&moto).bootstrap_tasks_anywhere(), 0);
}

// ---- the proxy's target and the bootstrap's connection attempts: `migrate/proxy.rs` ----------

#[path = "migrate/proxy.rs"]
mod wait;
use wait::proxy;
