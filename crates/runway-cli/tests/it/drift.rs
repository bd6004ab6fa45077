//! `runway drift` end to end: the real binary against moto (Resource Groups Tagging API, SSM,
//! RDS, ElastiCache, ECS), on the example's `dev` environment as `pulumi up` would have left it
//! (what the plan declares of the compared kinds created with the plan's sizes and tags, and
//! the plan's SSM parameters). First no drift (exit 0); then a console change during an
//! incident: the database resized, an instance created beside it under the environment's tags,
//! a parameter written by hand and a service scaled out; each is found and priced, and the
//! environment is over its cap with the drift (exit 1).
//!
//! Needs the workspace venv: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).

use std::path::PathBuf;
use std::process::Command;

use crate::common::{self, Run};
use serde_json::Value;
use test_support::{Moto, Scratch, scratch};

/// The example's dev environment, as deployed, in moto.
struct Account {
    moto: Moto,
    _dir: Scratch,
    file: PathBuf,
    plan: Value,
}

impl Account {
    fn new(name: &str) -> Self {
        let dir = scratch(name);
        test_support::copy_dir(&test_support::example("acme-shop"), dir.path());
        let file = dir.path().join("runway.yaml");
        let moto = Moto::start();
        let plan =
            common::bare().args(["plan", "--env", "dev", "--format", "json"]).arg(&file).output().unwrap();
        let plan: Value = serde_json::from_slice(&plan.stdout).unwrap();
        let account = Account { moto, _dir: dir, file, plan };
        account.deploy();
        account
    }

    /// The tags the plan gives `item`, as a boto3 list literal for `key`/`value` (`Key`/`Value`).
    fn tags(&self, owner: &str, id: &str, key: &str, value: &str) -> String {
        let pairs =
            [("product", "acme-shop"), ("environment", "dev"), ("resource", owner), ("runway-item", id)];
        let items: Vec<String> =
            pairs.iter().map(|(k, v)| format!("{{'{key}': '{k}', '{value}': '{v}'}}")).collect();
        format!("[{}]", items.join(", "))
    }

    /// What `pulumi up` and `ssm publish` leave, for the compared kinds: the databases, caches
    /// and services at the plan's sizes, and every parameter the plan lists.
    fn deploy(&self) {
        let mut code = String::new();
        for p in self.plan["secrets"]["ssmParameters"].as_array().unwrap() {
            let name = p["name"].as_str().unwrap();
            code.push_str(&format!("ssm.put_parameter(Name='{name}', Value='v', Type='String')\n"));
        }
        // runway's own record under the prefix: never stray.
        code.push_str(
            "ssm.put_parameter(Name='/acme-shop/dev/runway/deploy/lease', Value='{}', Type='String')\n",
        );
        code.push_str(
            "ecs.register_task_definition(family='drift', containerDefinitions=[{'name': 'c', 'image': 'x', 'memory': 512}])\n",
        );
        let items = self.plan["items"].as_array().unwrap();
        let cluster = items.iter().find(|i| i["kind"] == "ecs-cluster").unwrap();
        code.push_str(&format!(
            "ecs.create_cluster(clusterName='{}')\n",
            cluster["physicalName"].as_str().unwrap()
        ));
        for item in items {
            let (id, name) = (item["id"].as_str().unwrap(), item["physicalName"].as_str().unwrap());
            let owner = item["owner"].as_str().unwrap_or("environment");
            let spec = &item["spec"];
            match item["kind"].as_str().unwrap() {
                "rds-instance" => code.push_str(&format!(
                    "rds.create_db_instance(DBInstanceIdentifier='{name}', Engine='postgres', DBInstanceClass='{}', \
                     MultiAZ={}, MasterUsername='runway', MasterUserPassword='not-a-secret-1', AllocatedStorage=20, \
                     Tags={})\n",
                    spec["instanceClass"].as_str().unwrap(),
                    if spec["multiAz"].as_bool().unwrap() { "True" } else { "False" },
                    self.tags(owner, id, "Key", "Value")
                )),
                "cache-replication-group" => code.push_str(&format!(
                    "ec.create_replication_group(ReplicationGroupId='{name}', ReplicationGroupDescription='runway', \
                     Engine='valkey', CacheNodeType='{}', NumCacheClusters={}, Tags={})\n",
                    spec["nodeType"].as_str().unwrap(),
                    spec["nodes"],
                    self.tags(owner, id, "Key", "Value")
                )),
                "ecs-service" => code.push_str(&format!(
                    "ecs.create_service(cluster='{}', serviceName='{name}', taskDefinition='drift', desiredCount={})\n",
                    cluster["physicalName"].as_str().unwrap(),
                    spec["desiredCount"]
                )),
                _ => {}
            }
        }
        self.python(&code);
    }

    fn aws_env(&self, cmd: &mut Command) {
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("AWS_") {
                cmd.env_remove(k);
            }
        }
        cmd.env("AWS_ENDPOINT_URL", self.moto.url())
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("AWS_DEFAULT_REGION", "us-east-1")
            .env("AWS_EC2_METADATA_DISABLED", "true");
    }

    /// Runs Python against moto with `ssm`, `rds`, `ec` and `ecs` clients at hand.
    fn python(&self, code: &str) -> String {
        let script = format!(
            "import boto3, json, sys\nr = 'us-east-1'\nssm = boto3.client('ssm', region_name=r)\n\
             rds = boto3.client('rds', region_name=r)\nec = boto3.client('elasticache', region_name=r)\n\
             ecs = boto3.client('ecs', region_name=r)\n{code}"
        );
        let mut cmd = Command::new(test_support::python());
        cmd.args(["-c", &script]);
        self.aws_env(&mut cmd);
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    /// `runway ARGS RUNWAY_FILE` against moto only.
    fn run(&self, args: &[&str]) -> Run {
        let mut cmd = common::aws_command(&self.moto.url(), "runway-drift-test-home");
        cmd.args(args).arg(&self.file).env("AWS_REGION", "us-east-1");
        let run = Run::of_utf8(&mut cmd);
        println!("$ runway {}\nexit {}\n{}{}", args.join(" "), run.code, run.stdout, run.stderr);
        run
    }

    /// The physical name of the item `id`.
    fn physical(&self, id: &str) -> String {
        let items = self.plan["items"].as_array().unwrap();
        items.iter().find(|i| i["id"] == id).unwrap()["physicalName"].as_str().unwrap().to_owned()
    }
}

/// A finding of the JSON report by kind and subject.
fn finding<'r>(report: &'r Value, kind: &str, subject: &str) -> &'r Value {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == kind && f["subject"].as_str().unwrap().ends_with(subject))
        .unwrap_or_else(|| panic!("no {kind} finding about {subject} in {report:#}"))
}

#[test]
fn drift_finds_a_resized_database_an_unplanned_instance_and_a_stray_parameter_each_priced() {
    let account = Account::new("drift");
    // As deployed: no drift.
    let clean = account.run(&["drift", "--env", "dev"]);
    assert_eq!(clean.code, 0, "{}", clean.stderr);
    assert!(clean.stdout.contains("no drift in acme-shop / dev"), "{}", clean.stdout);
    let clean = account.run(&["drift", "--env", "dev", "--format", "json"]);
    assert_eq!(clean.code, 0);
    let clean: Value = serde_json::from_str(&clean.stdout).unwrap();
    assert_eq!(clean["findings"], Value::Array(Vec::new()));
    assert_eq!(clean["overCap"], false);
    assert_eq!(clean["estimate"], clean["drifted"]);

    // During an incident, by hand in the console.
    let db = account.physical("main-db_db");
    let cluster = account.physical("env_ecs-cluster");
    let service = account.physical("metabase_service");
    account.python(&format!(
        "rds.modify_db_instance(DBInstanceIdentifier='{db}', DBInstanceClass='db.m7g.large', ApplyImmediately=True)\n\
         rds.create_db_instance(DBInstanceIdentifier='acme-shop-dev-hotfix-copy', Engine='postgres', \
         DBInstanceClass='db.t4g.micro', MasterUsername='runway', MasterUserPassword='not-a-secret-1', \
         AllocatedStorage=20, Tags=[{{'Key': 'product', 'Value': 'acme-shop'}}, {{'Key': 'environment', 'Value': 'dev'}}])\n\
         rds.create_db_instance(DBInstanceIdentifier='another-product-db', Engine='postgres', \
         DBInstanceClass='db.t4g.micro', MasterUsername='runway', MasterUserPassword='not-a-secret-1', \
         AllocatedStorage=20, Tags=[{{'Key': 'product', 'Value': 'other'}}, {{'Key': 'environment', 'Value': 'dev'}}])\n\
         ssm.put_parameter(Name='/acme-shop/dev/main-db/DEBUG_FLAG', Value='on', Type='String')\n\
         ssm.put_parameter(Name='/acme-shop/devtools/NOT_UNDER_THE_PREFIX', Value='on', Type='String')\n\
         ecs.update_service(cluster='{cluster}', service='{service}', desiredCount=3)\n"
    ));
    let drift = account.run(&["drift", "--env", "dev", "--format", "json"]);
    assert_eq!(drift.code, 1, "{}", drift.stderr);
    let report: Value = serde_json::from_str(&drift.stdout).unwrap();
    // db.t4g.micro to db.m7g.large, single-AZ: (0.168 - 0.016) x 730 hours.
    let resized = finding(&report, "resized", "main-db_db");
    assert_eq!(
        (resized["planned"].as_str(), resized["live"].as_str()),
        (Some("db.t4g.micro"), Some("db.m7g.large"))
    );
    assert_eq!(resized["monthly"], "110.96");
    // Tagged with the product and environment, named by no plan item: a month of db.t4g.micro.
    let unplanned = finding(&report, "unplanned", ":db:acme-shop-dev-hotfix-copy");
    assert_eq!(unplanned["monthly"], "11.68");
    assert_eq!(unplanned["live"], "db.t4g.micro");
    // A standard parameter under the prefix the plan does not list: free, and said so.
    let stray = finding(&report, "stray-parameter", "/acme-shop/dev/main-db/DEBUG_FLAG");
    assert_eq!(stray["monthly"], "0.00");
    assert_eq!(stray["note"], "standard tier: no charge");
    // The service scaled from its planned count to 3: two more tasks a month, priced.
    let scaled = finding(&report, "resized", "metabase_service");
    assert_eq!(scaled["live"], "3 tasks");
    assert!(scaled["monthly"].as_str().unwrap().parse::<f64>().unwrap() > 0.0, "{scaled}");
    // Nothing else: not another product's instance, not runway's own records, not a
    // parameter of another prefix.
    let subjects: Vec<&str> =
        report["findings"].as_array().unwrap().iter().map(|f| f["subject"].as_str().unwrap()).collect();
    assert_eq!(subjects.len(), 4, "{subjects:?}");
    assert!(!drift.stdout.contains("another-product-db") && !drift.stdout.contains("/runway/deploy/lease"));
    assert!(!drift.stdout.contains("NOT_UNDER_THE_PREFIX"));
    // The dev cap is $200: the estimate with the drift is over it.
    assert_eq!(report["cap"], "200.00");
    assert_eq!(report["overCap"], true);
    let (estimate, drifted): (f64, f64) = (
        report["estimate"].as_str().unwrap().parse().unwrap(),
        report["drifted"].as_str().unwrap().parse().unwrap(),
    );
    let summed: f64 = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["monthly"].as_str().unwrap().parse::<f64>().unwrap())
        .sum();
    assert!((drifted - estimate - summed).abs() < 0.005, "{estimate} + {summed} != {drifted}");

    // The text: each finding with its monthly difference, the verdict on the cap.
    let text = account.run(&["drift", "--env", "dev"]);
    assert_eq!(text.code, 1);
    assert!(text.stdout.contains("drift in acme-shop / dev: 4 differences from the plan"), "{}", text.stdout);
    assert!(text.stdout.contains("+$110.96") && text.stdout.contains("+$11.68"), "{}", text.stdout);
    assert!(text.stdout.contains("over the cap"), "{}", text.stdout);
}
