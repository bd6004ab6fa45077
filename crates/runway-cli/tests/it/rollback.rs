//! `runway rollback` end to end: the real binary against moto (task definitions, the service,
//! the SSM parameters, the registration of the previous revision again and the service's
//! update), with canned answers in front of it for what moto does not answer: ECS's deployment
//! history (`ListServiceDeployments`, `DescribeServiceRevisions`) and a service whose primary
//! deployment follows an update (`DescribeServices`). The example product
//! `examples/acme-shop`, environment `dev`, workload `metabase`.
//!
//! Needs the workspace venv for moto: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common::Run;
use aws_sdk_ecs::types::{ContainerDefinition, LaunchType, Secret};
use serde_json::{Value, json};
use test_support::{CannedAws, Moto, Route};

use crate::common;

const REGION: &str = "us-east-1";
const CLUSTER: &str = "acme-shop-dev";
const SERVICE: &str = "acme-shop-dev-metabase-service";
const FAMILY: &str = "acme-shop-dev-metabase";
const PDF_FAMILY: &str = "acme-shop-dev-pdf-render";
const ARN: &str = "arn:aws:ecs:us-east-1:123456789012";
/// The parameter revision 1 reads (a secret of its container).
const PARAMETER: &str = "/runway/acme-shop/dev/main-db/url";

/// The test's own clients of moto (not runway's).
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

    /// Registers a revision of `family` running `image`, reading `PARAMETER` when `reads`.
    fn register(&self, family: &str, image: &str, reads: bool) {
        let mut container = ContainerDefinition::builder().name("app").image(image).memory(512);
        if reads {
            let from = format!("arn:aws:ssm:{REGION}:123456789012:parameter{PARAMETER}");
            container =
                container.secrets(Secret::builder().name("MAIN_DB_URL").value_from(from).build().unwrap());
        }
        let register =
            self.ecs.register_task_definition().family(family).container_definitions(container.build());
        self.rt.block_on(register.send()).unwrap();
    }

    /// The example's dev as `pulumi up` leaves it after two releases of metabase: revision 1
    /// (reading the parameter) deregistered, revision 2 serving; pdf-render on its revision 1.
    fn released_twice(&self, parameter: bool) {
        self.rt.block_on(self.ecs.create_cluster().cluster_name(CLUSTER).send()).unwrap();
        self.register(FAMILY, "metabase:1", true);
        self.register(FAMILY, "metabase:2", false);
        self.register(PDF_FAMILY, "pdf:1", false);
        let deregister = self.ecs.deregister_task_definition().task_definition(format!("{FAMILY}:1"));
        self.rt.block_on(deregister.send()).unwrap();
        let create = self
            .ecs
            .create_service()
            .cluster(CLUSTER)
            .service_name(SERVICE)
            .task_definition(format!("{FAMILY}:2"))
            .desired_count(1)
            .launch_type(LaunchType::Fargate);
        self.rt.block_on(create.send()).unwrap();
        if parameter {
            let put = self
                .ssm
                .put_parameter()
                .name(PARAMETER)
                .value("postgres://x")
                .r#type(aws_sdk_ssm::types::ParameterType::SecureString);
            self.rt.block_on(put.send()).unwrap();
        }
    }

    /// The revision the service is set to in moto (`family:revision`).
    fn service_revision(&self) -> String {
        let described =
            self.rt.block_on(self.ecs.describe_services().cluster(CLUSTER).services(SERVICE).send());
        let arn = described.unwrap().services()[0].task_definition().unwrap().to_owned();
        arn.rsplit_once(":task-definition/").unwrap().1.to_owned()
    }

    /// The image and the secrets' sources of a revision, or `None` when it does not exist.
    fn revision(&self, revision: &str) -> Option<(String, Vec<String>)> {
        let described =
            self.rt.block_on(self.ecs.describe_task_definition().task_definition(revision).send()).ok()?;
        let container = &described.task_definition()?.container_definitions()[0];
        let secrets = container.secrets().iter().map(|s| s.value_from().to_owned()).collect();
        Some((container.image()?.to_owned(), secrets))
    }
}

/// ECS's deployment history of the service: a completed deployment of each revision, newest
/// first (`revisions` as family revisions).
fn history(revisions: &[u32]) -> Vec<Route> {
    let rev = |r: u32| format!("{ARN}:service-revision/{CLUSTER}/{SERVICE}/{r}0");
    let briefs: Vec<Value> = revisions
        .iter()
        .enumerate()
        .map(|(i, r)| {
            json!({
                "serviceDeploymentArn": format!("{ARN}:service-deployment/{CLUSTER}/{SERVICE}/d{r}"),
                "serviceArn": format!("{ARN}:service/{CLUSTER}/{SERVICE}"),
                "clusterArn": format!("{ARN}:cluster/{CLUSTER}"),
                "status": "SUCCESSFUL", "targetServiceRevisionArn": rev(*r),
                "startedAt": 1_800_000_000 - 1000 * i, "finishedAt": 1_800_000_100 - 1000 * i
            })
        })
        .collect();
    let described: Vec<Value> = revisions
        .iter()
        .map(|r| {
            json!({
                "serviceRevisionArn": rev(*r), "serviceArn": format!("{ARN}:service/{CLUSTER}/{SERVICE}"),
                "clusterArn": format!("{ARN}:cluster/{CLUSTER}"),
                "taskDefinition": format!("{ARN}:task-definition/{FAMILY}:{r}")
            })
        })
        .collect();
    vec![
        Route::ok("ListServiceDeployments", &json!({"serviceDeployments": briefs}).to_string()),
        Route::ok(
            "DescribeServiceRevisions",
            &json!({"serviceRevisions": described, "failures": []}).to_string(),
        ),
    ]
}

/// `DescribeServices` of metabase on `revision`, every task running, its deployment `COMPLETED`.
fn on_revision(revision: u32) -> String {
    let deployment = json!({
        "id": format!("ecs-svc/{revision}"), "status": "PRIMARY",
        "taskDefinition": format!("{ARN}:task-definition/{FAMILY}:{revision}"),
        "desiredCount": 1, "pendingCount": 0, "runningCount": 1, "failedTasks": 0,
        "rolloutState": "COMPLETED", "rolloutStateReason": "completed"
    });
    let service = json!({
        "serviceArn": format!("{ARN}:service/{CLUSTER}/{SERVICE}"), "serviceName": SERVICE,
        "clusterArn": format!("{ARN}:cluster/{CLUSTER}"), "status": "ACTIVE",
        "desiredCount": 1, "runningCount": 1, "pendingCount": 0,
        "taskDefinition": deployment["taskDefinition"], "deployments": [deployment]
    });
    json!({"services": [service], "failures": []}).to_string()
}

/// `runway rollback --env dev --workload metabase --interval 1s <example>` against `aws_url`.
fn rollback(aws_url: &str) -> Run {
    let file = test_support::example("acme-shop").join("runway.yaml");
    let mut cmd = common::aws_command(aws_url, "runway-rollback-test-home");
    cmd.args(["rollback", "--env", "dev", "--workload", "metabase", "--interval", "1s"]).arg(file);
    let run = Run::of_utf8(&mut cmd);
    println!("exit {}\n{}{}", run.code, run.stdout, run.stderr);
    run
}

fn routes(revisions: &[u32], looks: &[&str]) -> Vec<Route> {
    let mut routes = history(revisions);
    routes.push(Route::ok_each("DescribeServices", looks));
    routes
}

#[test]
fn a_rollback_goes_back_one_revision_registered_again_and_says_the_stack_is_newer() {
    let moto = Moto::start_with(&[("MOTO_ECS_SERVICE_RUNNING", "1")]);
    let aws = Aws::of(&moto);
    aws.released_twice(true);
    let (before, after) = (on_revision(2), on_revision(3));
    let front = CannedAws::in_front_of(&moto.url(), routes(&[2, 1], &[&before, &after]));
    let run = rollback(&front.url());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "metabase: acme-shop-dev-metabase:2 -> acme-shop-dev-metabase:1 (registered again as \
             acme-shop-dev-metabase:3), reading 1 SSM parameter(s), all present"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("complete    metabase: acme-shop-dev-metabase:3, 1 of 1 running"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "note: the stack still declares acme-shop-dev-metabase:2 for metabase: the next `pulumi up`"
        ),
        "{}",
        run.stdout
    );
    // In moto: revision 3 is revision 1 again (its image, its secret), and the service runs it.
    let (image, secrets) = aws.revision(&format!("{FAMILY}:3")).expect("revision 3 registered");
    assert_eq!(image, "metabase:1");
    assert_eq!(secrets, [format!("arn:aws:ssm:{REGION}:123456789012:parameter{PARAMETER}")]);
    assert_eq!(aws.service_revision(), format!("{FAMILY}:3"));
    let asked = front.asked();
    for op in [
        "ListServiceDeployments",
        "DescribeServiceRevisions",
        "DescribeParameters",
        "RegisterTaskDefinition",
        "UpdateService",
    ] {
        assert!(asked.iter().any(|a| a == op), "{op} not asked: {asked:?}");
    }
}

#[test]
fn a_previous_revision_reading_a_deleted_parameter_is_refused_and_nothing_changes() {
    let moto = Moto::start_with(&[("MOTO_ECS_SERVICE_RUNNING", "1")]);
    let aws = Aws::of(&moto);
    aws.released_twice(false);
    let before = on_revision(2);
    let front = CannedAws::in_front_of(&moto.url(), routes(&[2, 1], &[&before]));
    let run = rollback(&front.url());
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(&format!(
            "refusing to roll `metabase` back to acme-shop-dev-metabase:1: it reads SSM parameter(s) that no \
             longer exist: {PARAMETER}"
        )),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("Nothing was changed"), "{}", run.stderr);
    assert_eq!(aws.revision(&format!("{FAMILY}:3")), None, "nothing registered");
    assert_eq!(aws.service_revision(), format!("{FAMILY}:2"));
    assert!(!front.asked().iter().any(|a| a == "UpdateService"));
}

#[test]
fn without_an_earlier_completed_revision_there_is_nothing_to_go_back_to() {
    let moto = Moto::start_with(&[("MOTO_ECS_SERVICE_RUNNING", "1")]);
    let aws = Aws::of(&moto);
    aws.released_twice(true);
    let before = on_revision(2);
    let front = CannedAws::in_front_of(&moto.url(), routes(&[2], &[&before]));
    let run = rollback(&front.url());
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("other than the running acme-shop-dev-metabase:2: nothing to go back to"),
        "{}",
        run.stderr
    );
    assert_eq!(aws.service_revision(), format!("{FAMILY}:2"));
}

#[test]
fn an_unknown_workload_is_a_usage_error() {
    let file = test_support::example("acme-shop").join("runway.yaml");
    let mut cmd = common::aws_command("http://127.0.0.1:9", "runway-rollback-test-home");
    cmd.args(["rollback", "--env", "dev", "--workload", "nope"]).arg(file);
    let run = Run::of_utf8(&mut cmd);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("`nope` has no ECS service in dev; its services: metabase, pdf-render, jobs-worker"),
        "{}",
        run.stderr
    );
}
