//! The example's worker (`jobs-worker`: no port, scaling on the `jobs` backlog, asleep outside
//! dev's hours, a nightly schedule) as programs: what each declares, and a simulated `up`
//! against moto (`tools/simulate_up.py --ecs`) in which the worker's service starts without a
//! port, its scheduled actions are accepted by Application Auto Scaling, and its schedule's
//! target names a task definition that exists.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)] // reason: the test reads the example, writes its inputs and runs Python

use crate::pulumi_support;

use pulumi_program::{PROGRAM_FILE, render};
use runtime_plan::{ItemSpec, Plan};
use runway_schema::{MemFiles, Options};
use serde_json::Value;
use test_support::{Moto, http, scratch, workspace};

const MEMBERS: [&str; 3] = ["services/orders", "services/billing", "tools/reporting"];

fn example_plan(env: &str) -> Plan {
    let root = workspace().join("examples/acme-shop");
    let mut files = MemFiles::default();
    for member in MEMBERS {
        let path = format!("{member}/runway.yaml");
        files = files.with(&path, std::fs::read(root.join(&path)).expect("member file"));
    }
    let text = std::fs::read(root.join("runway.yaml")).expect("example");
    let loaded = runway_schema::load("runway.yaml", &text, &files, &Options::default());
    let product = loaded.product.expect("the example is valid");
    runtime_plan::plan(&product, env, &cost::Catalogue::builtin()).expect("a plan")
}

/// The program's resources as YAML values, by logical name.
fn resources(plan: &Plan) -> serde_json::Map<String, Value> {
    let program = render(plan).expect("renders");
    let text = program.file(PROGRAM_FILE).expect("Pulumi.yaml");
    let doc: Value = yaml_as_json(text);
    doc["resources"].as_object().expect("resources").clone()
}

/// The program's YAML read as JSON through Python's `yaml` (the program is plain YAML 1.2).
fn yaml_as_json(text: &str) -> Value {
    let dir = scratch("workers-yaml");
    std::fs::write(dir.join("Pulumi.yaml"), text).expect("write");
    let out = std::process::Command::new(test_support::python())
        .args(["-c", "import json,sys,yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))"])
        .arg(dir.join("Pulumi.yaml"))
        .output()
        .expect("python");
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn the_worker_has_no_load_balancer_discovery_or_ingress_and_scales_on_its_backlog() {
    let plan = example_plan("dev");
    let r = resources(&plan);
    let service = &r["jobs-worker_service"]["properties"];
    assert!(
        service.get("loadBalancers").is_none() && service.get("serviceRegistries").is_none(),
        "{service}"
    );
    assert!(!r.contains_key("jobs-worker_discovery") && !r.contains_key("jobs-worker_target-group"));
    assert!(
        !r.keys().any(|k| k.starts_with("jobs-worker_sg--ingress")),
        "a worker admits nothing: {:?}",
        r.keys().filter(|k| k.starts_with("jobs-worker_sg")).collect::<Vec<_>>()
    );
    // Its container check is the command; no port is mapped.
    let definition = &r["jobs-worker_task"]["properties"]["containerDefinitions"]["fn::toJSON"][0];
    assert!(definition.get("portMappings").is_none());
    assert_eq!(definition["healthCheck"]["command"], serde_json::json!(["CMD", "/app/worker", "--alive"]));
    // The backlog per task: visible messages over Container Insights' running tasks.
    let policy =
        &r["jobs-worker_scaling-policy-queue-jobs"]["properties"]["targetTrackingScalingPolicyConfiguration"];
    assert_eq!(policy["targetValue"], 100);
    let metrics = policy["customizedMetricSpecification"]["metrics"].as_array().expect("metric math");
    assert_eq!(metrics[0]["metricStat"]["metric"]["metricName"], "ApproximateNumberOfMessagesVisible");
    assert_eq!(metrics[1]["metricStat"]["metric"]["metricName"], "RunningTaskCount");
    assert_eq!(metrics[2]["expression"], "visible / running");
    assert_eq!(r["env_ecs-cluster"]["properties"]["settings"][0]["value"], "enabled");
    // `on` names only the queue: no CPU policy.
    assert!(!r.contains_key("jobs-worker_scaling-policy"));
    // Active hours: 07:00 and 20:00 on weekdays, Berlin time; within them 1..2, outside 0..0.
    let start = &r["jobs-worker_scaling-target--start"]["properties"];
    assert_eq!(start["schedule"], "cron(0 7 ? * MON-FRI *)");
    assert_eq!(start["timezone"], "Europe/Berlin");
    assert_eq!(start["scalableTargetAction"], serde_json::json!({"minCapacity": 1, "maxCapacity": 2}));
    let stop = &r["jobs-worker_scaling-target--stop"]["properties"];
    assert_eq!(stop["schedule"], "cron(0 20 ? * MON-FRI *)");
    assert_eq!(stop["scalableTargetAction"], serde_json::json!({"minCapacity": 0, "maxCapacity": 0}));
}

#[test]
fn the_schedule_runs_the_service_task_definition_with_its_command_and_a_narrow_role() {
    let plan = example_plan("production");
    let r = resources(&plan);
    let schedule = &r["jobs-worker_schedule-nightly-export"]["properties"];
    assert_eq!(schedule["scheduleExpression"], "cron(0 3 * * ? *)");
    assert_eq!(schedule["scheduleExpressionTimezone"], "Europe/Berlin");
    let target = &schedule["target"];
    assert_eq!(target["ecsParameters"]["taskDefinitionArn"], "${jobs-worker_task.arn}");
    assert_eq!(target["arn"], "${env_ecs-cluster.arn}");
    assert_eq!(
        target["input"]["fn::toJSON"],
        serde_json::json!({"containerOverrides": [{"name": "jobs-worker", "command": ["/app/worker", "export", "--since", "24h"]}]})
    );
    let policy =
        &r["jobs-worker_schedule-nightly-export--policy"]["properties"]["policy"]["fn::toJSON"]["Statement"];
    let statements = policy.as_array().expect("statements");
    assert_eq!(statements[0]["Action"], "ecs:RunTask");
    let family = statements[0]["Resource"][0].as_str().unwrap();
    assert!(family.ends_with(":task-definition/acme-shop-production-jobs-worker:*"), "{family}");
    assert_eq!(statements[2]["Action"], "iam:PassRole");
    assert_eq!(
        statements[2]["Resource"],
        serde_json::json!(["${jobs-worker_execution-role.arn}", "${jobs-worker_task-role.arn}"])
    );
    // Production has alerts: a failed run of this schedule's group reaches the topic.
    let rule = &r["jobs-worker_schedule-nightly-export--failed"]["properties"]["eventPattern"]["fn::toJSON"];
    assert_eq!(rule["detail"]["group"], serde_json::json!(["schedule-nightly-export"]));
    assert_eq!(rule["detail"]["lastStatus"], serde_json::json!(["STOPPED"]));
    assert_eq!(
        r["jobs-worker_schedule-nightly-export--failed-target"]["properties"]["arn"],
        "${env_alerts.arn}"
    );
    // Priced: 365 / 12 runs of 30 minutes of one small task.
    let item = plan.items.iter().find(|i| matches!(i.spec, ItemSpec::Schedule(_))).expect("the schedule");
    assert!(item.monthly.is_some_and(|m| m.cents().to_string() == "0.15"), "{:?}", item.monthly);
}

#[test]
fn a_simulated_up_starts_the_worker_and_its_schedule_names_an_existing_task_definition() {
    let moto = Moto::start();
    for env in ["dev", "production"] {
        let plan = example_plan(env);
        let program = render(&plan).expect("renders");
        let dir = scratch(&format!("workers-up-{env}"));
        pulumi_support::write(&dir, &program);
        let outputs: serde_json::Map<String, Value> = plan
            .outputs
            .iter()
            .map(|o| (o.name.to_string(), format!("value-of-{}", o.name).into()))
            .collect();
        std::fs::write(dir.join("outputs.json"), Value::Object(outputs).to_string()).expect("outputs");
        std::fs::write(dir.join("plan.json"), serde_json::to_string(&plan).expect("plan json"))
            .expect("plan");
        assert!(http(moto.port, "POST", "/moto-api/reset", "").is_some(), "moto reset");
        let out = std::process::Command::new(test_support::python())
            .arg(workspace().join("tools/simulate_up.py"))
            .args([dir.path(), &dir.join("outputs.json")])
            .arg("--as-prepared")
            .arg(dir.join("plan.json"))
            .arg("--ecs")
            .env("AWS_ENDPOINT_URL", moto.url())
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .output()
            .expect("run simulate_up");
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{env}: {report}{}", String::from_utf8_lossy(&out.stderr));
        let report: Value = serde_json::from_str(&report).expect("a JSON report");
        let started: Vec<&str> =
            report["started"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert!(started.contains(&"jobs-worker_service"), "{env}: {started:?}");
        let scheduled = report["scheduled"].as_array().unwrap();
        assert_eq!(scheduled.len(), 1, "{env}: {report}");
        assert!(scheduled[0].as_str().unwrap().ends_with("-jobs-worker-nightly-export"), "{env}: {report}");
        let actions = report["scheduledActions"].as_array().unwrap().len();
        assert_eq!(actions, if env == "dev" { 2 } else { 0 }, "{env}: {report}");
    }
}
