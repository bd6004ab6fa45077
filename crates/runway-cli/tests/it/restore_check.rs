//! `restore.check` end to end: the real binary against moto (RDS, EC2 security groups, ECS
//! `RunTask`), with a recording proxy in front (`CannedAws::in_front_of`) that keeps every
//! request, so the test shows what the check task would run and how it reaches the copy; and
//! the very command and query of the recorded `RunTask` run against a real PostgreSQL on
//! loopback (`db_roles`' server) for a real answer, passing and failing.
//!
//! The example's `dev` with `restore: { check: ... }` added to main-db; the instance made as
//! `pulumi up` would (its subnet group, its own security group, the proxy), the bootstrap's
//! task definition registered. What moto cannot show: a container running (its tasks stop
//! with exit code 0; a failing container's exit code is a canned `DescribeTasks`), and a group
//! still in use refusing its deletion (moto deletes it; the order of the calls shows the
//! group is taken off the copy first).
//!
//! Needs the workspace venv (`cargo xtask venv`) and PostgreSQL 16 (`cargo xtask postgres`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use test_support::{CannedAws, Moto, Route, Scratch, scratch};

use crate::common::{self, Run};
use crate::db_roles::{ADMIN_PASSWORD, Server, Version, path_with, rds_master};
use crate::restore_kinds::physical;

pub(crate) const CHECK: &str = "select count(*) from orders";
const BOOT_FAMILY: &str = "acme-shop-dev-main-db-bootstrap";
const BOOT_OUTPUT: &str = "runway-task-bootstrap-main-db";

/// The example's runway file with `restore: { check: CHECK }` added to main-db.
fn with_check(text: &str) -> String {
    let declared = "    size: { staging: medium, production: large }\n";
    assert!(text.contains(declared), "the example's main-db changed");
    text.replacen(declared, &format!("{declared}    restore: {{ check: \"{CHECK}\" }}\n"), 1)
}

/// The stack outputs `pulumi up` would give of main-db's bootstrap task (its registered task
/// definition `td`), written into `dir`.
fn write_outputs(dir: &Path, td: &Value) -> PathBuf {
    let outputs = dir.join("outputs.json");
    let value = json!({
        BOOT_OUTPUT: {
            "cluster": "acme-shop-dev",
            "taskDefinition": td,
            "family": BOOT_FAMILY,
            "subnets": ["subnet-0aaa", "subnet-0bbb"],
            "securityGroups": ["sg-0bootstrap"],
            "container": "main-db-bootstrap",
            "logGroup": "/runway/acme-shop/dev/main-db-bootstrap",
            "logStreamPrefix": "main-db-bootstrap",
            "region": "us-east-1",
        }
    });
    std::fs::write(&outputs, value.to_string()).unwrap();
    outputs
}

/// The example's `dev` in moto as `pulumi up` would make it, main-db declaring the check: on
/// RDS, or on Aurora (`engine: aurora`; `writer` is then its cluster's writer).
pub(crate) struct Account {
    pub(crate) moto: Moto,
    _dir: Scratch,
    pub(crate) file: PathBuf,
    /// The live database: the instance's identifier, or the cluster's.
    pub(crate) db: String,
    /// On Aurora, the live cluster's writer.
    pub(crate) writer: Option<String>,
    /// The live database's own group.
    pub(crate) db_group: String,
    outputs: PathBuf,
}

impl Account {
    fn new(name: &str) -> Self {
        Self::made(name, false)
    }

    /// main-db on Aurora.
    pub(crate) fn aurora(name: &str) -> Self {
        Self::made(name, true)
    }

    fn made(name: &str, aurora: bool) -> Self {
        let dir = scratch(name);
        test_support::copy_dir(&test_support::example("acme-shop"), dir.path());
        let file = dir.path().join("runway.yaml");
        let text = std::fs::read_to_string(&file).unwrap();
        let text = if aurora { text.replace("engine: rds", "engine: aurora") } else { text };
        std::fs::write(&file, with_check(&text)).unwrap();
        let moto = Moto::start();
        let plan =
            common::bare().args(["plan", "--env", "dev", "--format", "json"]).arg(&file).output().unwrap();
        let plan: Value = serde_json::from_slice(&plan.stdout).unwrap();
        let main_db = plan["resources"].as_array().unwrap().iter().find(|r| r["name"] == "main-db").unwrap();
        assert_eq!(main_db["restoreCheck"], CHECK, "the plan carries the check");
        let (db, writer, database, targets) = if aurora {
            let (c, w) = (physical(&plan, "aurora-cluster"), physical(&plan, "aurora-instance"));
            let database = format!(
                "rds.create_db_cluster(DBClusterIdentifier='{c}', Engine='aurora-postgresql', MasterUsername='runway', \
                 MasterUserPassword='not-a-secret-1', BackupRetentionPeriod=1, DBSubnetGroupName='{c}-subnets', \
                 VpcSecurityGroupIds=[sg])\n\
                 rds.create_db_instance(DBInstanceIdentifier='{w}', DBClusterIdentifier='{c}', \
                 Engine='aurora-postgresql', DBInstanceClass='db.t4g.medium')\n"
            );
            (c, Some(w), database, "DBClusterIdentifiers")
        } else {
            let db = physical(&plan, "rds-instance");
            let database = format!(
                "rds.create_db_instance(DBInstanceIdentifier='{db}', Engine='postgres', DBInstanceClass='db.t4g.micro', \
                 MasterUsername='runway', MasterUserPassword='not-a-secret-1', AllocatedStorage=20, BackupRetentionPeriod=1, \
                 DBSubnetGroupName='{db}-subnets', VpcSecurityGroupIds=[sg])\n"
            );
            (db, None, database, "DBInstanceIdentifiers")
        };
        let (db_group, outputs) = as_pulumi_made(&moto, dir.path(), &db, (&database, targets));
        Account { moto, _dir: dir, file, db, writer, db_group, outputs }
    }

    /// What a Python script against moto (`rds`, `ec2` and `datetime` at hand) prints, as JSON.
    pub(crate) fn read(&self, code: &str) -> Value {
        let script = format!(
            "import boto3, json, sys, datetime\nrds = boto3.client('rds'); ec2 = boto3.client('ec2')\n{code}"
        );
        serde_json::from_slice(&self.moto.python(&script, &[])).unwrap()
    }

    /// The instances: their groups and tags; the groups named `*-check`; the proxy's targets.
    fn state(&self) -> Value {
        self.read(&format!(
            "dbs = {{d['DBInstanceIdentifier']: {{'groups': [g['VpcSecurityGroupId'] for g in d['VpcSecurityGroups']], \
             'tags': {{t['Key']: t['Value'] for t in d.get('TagList', [])}}}} for d in rds.describe_db_instances()['DBInstances']}}\n\
             {}\
             print(json.dumps({{'dbs': dbs, 'checks': checks, 'targets': targets}}))",
            checks_and_targets(&format!("{}-proxy", self.db))
        ))
    }

    /// A time inside the live database's window: its creation second.
    pub(crate) fn a_restorable_time(&self) -> String {
        let created = match self.writer {
            None => format!(
                "rds.describe_db_instances(DBInstanceIdentifier='{}')['DBInstances'][0]['InstanceCreateTime']",
                self.db
            ),
            Some(_) => format!(
                "rds.describe_db_clusters(DBClusterIdentifier='{}')['DBClusters'][0]['ClusterCreateTime']",
                self.db
            ),
        };
        let t = self.read(&format!(
            "print(json.dumps(({created}).astimezone(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')))"
        ));
        t.as_str().unwrap().to_owned()
    }

    /// What a run killed after "admitted for the check" leaves: the copy `copy` (of `to`, tagged
    /// as a restore makes it; on Aurora with its writer) in its own group and the check's, the
    /// check's group made.
    pub(crate) fn killed_with_the_group_on(&self, copy: &str, to: &str) {
        let (db, group) = (&self.db, &self.db_group);
        let time = format!(
            "datetime.datetime.strptime('{to}', '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=datetime.timezone.utc)"
        );
        let placed = format!(
            "DBSubnetGroupName='{db}-subnets', VpcSecurityGroupIds=['{group}'], \
             Tags=[{{'Key': 'runway-restore', 'Value': '{to}'}}]"
        );
        let (made, modify) = match &self.writer {
            None => (
                format!(
                    "rds.restore_db_instance_to_point_in_time(SourceDBInstanceIdentifier='{db}', \
                     TargetDBInstanceIdentifier='{copy}', RestoreTime={time}, {placed})\n"
                ),
                format!("rds.modify_db_instance(DBInstanceIdentifier='{copy}'"),
            ),
            Some(w) => (
                format!(
                    "rds.restore_db_cluster_to_point_in_time(SourceDBClusterIdentifier='{db}', \
                     DBClusterIdentifier='{copy}', RestoreToTime={time}, {placed})\n\
                     rds.create_db_instance(DBInstanceIdentifier='{w}-restored', DBClusterIdentifier='{copy}', \
                     Engine='aurora-postgresql', DBInstanceClass='db.t4g.medium')\n"
                ),
                format!("rds.modify_db_cluster(DBClusterIdentifier='{copy}'"),
            ),
        };
        self.read(&format!(
            "{made}vpc = ec2.describe_vpcs()['Vpcs'][0]['VpcId']\n\
             g = ec2.create_security_group(GroupName='{copy}-check', Description='d', VpcId=vpc)['GroupId']\n\
             {modify}, VpcSecurityGroupIds=['{group}', g], ApplyImmediately=True)\n\
             print(json.dumps(g))"
        ));
    }

    /// `--switch` run again after [`Self::killed_with_the_group_on`]: exit 0, the group found
    /// (not made again), the copy checked. The recording proxy and the run.
    pub(crate) fn switch_after_the_kill(&self, copy: &str, to: &str) -> (CannedAws, Run) {
        let aws = CannedAws::in_front_of(&self.moto.url(), vec![]);
        let run = self.restore(&aws, to, &["--switch"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert!(run.stdout.contains(&format!("check-main-db: passed on {copy}")), "{}", run.stdout);
        assert!(!aws.asked().iter().any(|o| o == "CreateSecurityGroup"), "found again: {:?}", aws.asked());
        (aws, run)
    }

    /// What a switch onto the checked copy leaves (`state`, and `live`: the copy's entry in it,
    /// now under the live name): no check group, the copy in its own group only and tagged
    /// `passed`, the proxy's target.
    pub(crate) fn switched_onto_the_checked_copy(&self, state: &Value, live: &Value) {
        assert_eq!(state["checks"], json!([]), "{state}");
        assert_eq!(live["groups"], json!([self.db_group]), "the copy, now live, in its own group only");
        assert_eq!(live["tags"]["runway-check"], "passed", "{state}");
        assert_eq!(state["targets"], json!([self.db]));
    }

    /// `--switch` whose check task exits 1 (`aws` answers so): exit 1, the task's failure shown.
    pub(crate) fn failed_switch(&self, aws: &CannedAws, to: &str) -> Run {
        let run = self.restore(aws, to, &["--switch"]);
        assert_eq!(run.code, 1, "{}", run.stderr);
        let failed =
            run.stdout.lines().find(|l| l.starts_with("failed     check-main-db: task ")).unwrap_or_default();
        assert!(failed.ends_with(" exited 1 (Essential container in task exited)"), "{}", run.stdout);
        run
    }

    /// `--switch` run once more after a complete switch: exit 0, no second check task.
    pub(crate) fn again_no_second_task(&self, to: &str) {
        let aws = CannedAws::in_front_of(&self.moto.url(), vec![]);
        let again = self.restore(&aws, to, &["--switch"]);
        assert_eq!(again.code, 0, "{}", again.stderr);
        assert!(!aws.asked().iter().any(|o| o == "RunTask"), "{:?}", aws.asked());
    }

    /// `runway ARGS FILE` against the AWS endpoint `aws_url`, its output printed.
    pub(crate) fn run(&self, aws_url: &str, args: &[&str]) -> Run {
        let mut cmd = common::aws_command(aws_url, "runway-restore-check-test-home");
        cmd.args(args).arg(&self.file).env("AWS_REGION", "us-east-1");
        let run = Run::of_utf8(&mut cmd);
        println!("$ runway {}\nexit {}\n{}{}", args.join(" "), run.code, run.stdout, run.stderr);
        run
    }

    /// `runway restore --env dev main-db --to TO --interval 1s --outputs OUTPUTS EXTRA FILE`
    /// through the recording proxy.
    pub(crate) fn restore(&self, aws: &CannedAws, to: &str, extra: &[&str]) -> Run {
        let outputs = self.outputs.to_str().unwrap();
        let mut args = vec!["restore", "--env", "dev", "main-db", "--to", to, "--interval", "1s"];
        args.extend(["--outputs", outputs]);
        args.extend(extra);
        self.run(&aws.url(), &args)
    }
}

/// What `pulumi up` makes around main-db's database in moto: its security group (`<name>-db`)
/// and subnet group (`<name>-subnets`), the database (`database`: Python lines that make
/// `name` in them, `sg` and `subnets` at hand), its proxy (`<name>-proxy`) targeting it through
/// `targets` (`DBInstanceIdentifiers`, `DBClusterIdentifiers`), the ECS cluster with the
/// bootstrap's task definition and a service. The group's id and the stack outputs' file.
fn as_pulumi_made(
    moto: &Moto,
    dir: &Path,
    name: &str,
    (database, targets): (&str, &str),
) -> (String, PathBuf) {
    let made = moto.python(
        &format!(
            "import boto3, json\n\
             ec2 = boto3.client('ec2'); rds = boto3.client('rds'); ecs = boto3.client('ecs')\n\
             vpc = ec2.describe_vpcs()['Vpcs'][0]['VpcId']\n\
             subnets = [s['SubnetId'] for s in ec2.describe_subnets(Filters=[{{'Name': 'vpc-id', 'Values': [vpc]}}])['Subnets'][:2]]\n\
             sg = ec2.create_security_group(GroupName='{name}-db', Description='admits the proxy', VpcId=vpc)['GroupId']\n\
             rds.create_db_subnet_group(DBSubnetGroupName='{name}-subnets', DBSubnetGroupDescription='d', SubnetIds=subnets)\n\
             {database}\
             rds.create_db_proxy(DBProxyName='{name}-proxy', EngineFamily='POSTGRESQL', Auth=[{{'AuthScheme': 'SECRETS', \
             'IAMAuth': 'DISABLED', 'SecretArn': 'arn:aws:secretsmanager:us-east-1:123456789012:secret:proxy-admin-abcdef'}}], \
             RoleArn='arn:aws:iam::123456789012:role/proxy', VpcSubnetIds=subnets)\n\
             rds.register_db_proxy_targets(DBProxyName='{name}-proxy', {targets}=['{name}'])\n\
             ecs.create_cluster(clusterName='acme-shop-dev')\n\
             td = ecs.register_task_definition(family='{BOOT_FAMILY}', containerDefinitions=[{{'name': 'main-db-bootstrap', \
             'image': 'postgres', 'memory': 512}}])['taskDefinition']['taskDefinitionArn']\n\
             ecs.create_service(cluster='acme-shop-dev', serviceName='acme-shop-dev-metabase-service', taskDefinition=td, desiredCount=1)\n\
             print(json.dumps({{'sg': sg, 'td': td}}))"
        ),
        &[],
    );
    let made: Value = serde_json::from_slice(&made).unwrap();
    (made["sg"].as_str().unwrap().to_owned(), write_outputs(dir, &made["td"]))
}

/// Python lines that set `checks` (the groups named `*-check`) and `targets` (the proxy's).
pub(crate) fn checks_and_targets(proxy: &str) -> String {
    format!(
        "checks = [g['GroupName'] for g in ec2.describe_security_groups()['SecurityGroups'] if g['GroupName'].endswith('-check')]\n\
         targets = [t['RdsResourceId'] for t in rds.describe_db_proxy_targets(DBProxyName='{proxy}')['Targets']]\n"
    )
}

/// The one recorded `RunTask`, the check's: the bootstrap's revision and container, its own
/// `startedBy`, the check's command, `RUNWAY_CHECK_HOST` (starting with `host`: the copy's
/// address) and the query, the bootstrap's group first. Its container override and its second
/// group (the check's).
pub(crate) fn check_task(aws: &CannedAws, host: &str) -> (Value, String) {
    let calls = aws.calls();
    let mut runs = calls.iter().filter(|c| c.operation == "RunTask");
    let call = runs.next().expect("a RunTask");
    assert!(runs.next().is_none(), "one check task");
    let task: Value = serde_json::from_str(&call.body).unwrap();
    assert_eq!(task["startedBy"], "runway-restore-check");
    assert!(task["taskDefinition"].as_str().unwrap().contains(BOOT_FAMILY), "{task}");
    let container = &task["overrides"]["containerOverrides"][0];
    assert_eq!(container["name"], "main-db-bootstrap");
    assert_eq!(container["command"], json!(runtime_plan::restore_check::CHECK_COMMAND));
    let env = &container["environment"];
    assert_eq!(env[0]["name"], "RUNWAY_CHECK_HOST");
    assert!(env[0]["value"].as_str().unwrap().starts_with(host), "the copy's address, {host}...: {env}");
    assert_eq!(env[1], json!({"name": "RUNWAY_CHECK_SQL", "value": CHECK}));
    let groups = &task["networkConfiguration"]["awsvpcConfiguration"]["securityGroups"];
    assert_eq!(groups[0], "sg-0bootstrap");
    let check_group = groups[1].as_str().unwrap().to_owned();
    assert!(check_group.starts_with("sg-"), "{task}");
    (container.clone(), check_group)
}

/// The operations asked, in order, of the ones that change something (an instance's copy's
/// or a cluster's).
pub(crate) fn changes(aws: &CannedAws) -> Vec<String> {
    let changing = [
        "RestoreDBInstanceToPointInTime",
        "RestoreDBClusterToPointInTime",
        "CreateDBInstance",
        "CreateSecurityGroup",
        "ModifyDBInstance",
        "ModifyDBCluster",
        "RunTask",
        "DeleteSecurityGroup",
        "AddTagsToResource",
        "DeleteDBInstance",
        "DeleteDBCluster",
        "DeregisterDBProxyTargets",
    ];
    aws.asked().into_iter().filter(|o| changing.contains(&o.as_str())).collect()
}

#[test]
fn a_drill_checks_its_copy_through_a_group_of_its_own_then_removes_it_and_the_copy() {
    let account = Account::new("restore-check-drill");
    let aws = CannedAws::in_front_of(&account.moto.url(), vec![]);
    let to = account.a_restorable_time();
    let copy = format!("{}-drill", account.db);

    let drill = account.restore(&aws, &to, &["--drill"]);
    assert_eq!(drill.code, 0, "{}", drill.stderr);
    assert!(
        drill.stdout.contains(&format!("check-main-db: passed on {copy}: `{CHECK}` ran")),
        "{}",
        drill.stdout
    );
    assert!(drill.stdout.contains("drill: a usable copy in "), "{}", drill.stdout);
    assert!(
        drill.stdout.contains(&format!("{copy}: the check's group {copy}-check removed")),
        "{}",
        drill.stdout
    );
    // The order: the group made, put on the copy, the task, the group off the copy, deleted,
    // the result tagged, then the copy deleted.
    assert_eq!(
        changes(&aws),
        [
            "RestoreDBInstanceToPointInTime",
            "CreateSecurityGroup",
            "ModifyDBInstance",
            "RunTask",
            "ModifyDBInstance",
            "DeleteSecurityGroup",
            "AddTagsToResource",
            "DeleteDBInstance"
        ]
    );
    let modified: Vec<String> =
        aws.calls().into_iter().filter(|c| c.operation == "ModifyDBInstance").map(|c| c.body).collect();
    assert!(modified.iter().all(|b| b.contains(&format!("DBInstanceIdentifier={copy}&"))), "{modified:?}");
    assert!(
        modified[0].contains(&account.db_group) && modified[0].contains("VpcSecurityGroupId.2="),
        "{modified:?}"
    );
    assert!(!modified[1].contains("VpcSecurityGroupId.2="), "the copy back in its own group: {modified:?}");
    // The task: the bootstrap's revision, the check's command and variables, its own startedBy,
    // the bootstrap's group and the check's.
    let (container, _) = check_task(&aws, &format!("{copy}."));
    // Afterwards: the copy gone, no check group left, the live instance in its own group.
    let state = account.state();
    assert_eq!(state["checks"], json!([]), "{state}");
    assert_eq!(state["dbs"].as_object().unwrap().len(), 1, "{state}");
    assert_eq!(state["dbs"][&account.db]["groups"], json!([account.db_group]));

    // The very command and query, on a real PostgreSQL: the first row, and a query that fails.
    the_recorded_command_answers_on_postgresql(&container);
}

/// Runs the recorded container override as ECS would in the bootstrap's container: its
/// command, the override's variables and the task definition's (the admin's login from its
/// secrets), pointed at a local server: `RUNWAY_CHECK_HOST` is the one value replaced (the
/// copy's address becomes loopback).
fn the_recorded_command_answers_on_postgresql(container: &Value) {
    let server = Server::start(Version::Major(16));
    rds_master(&server);
    server
        .login(
            "runway",
            ADMIN_PASSWORD,
            "CREATE TABLE orders (id int); INSERT INTO orders VALUES (1), (2), (3)",
        )
        .unwrap();
    let run = |sql: Option<&str>| {
        let command: Vec<&str> =
            container["command"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
        let mut cmd = Command::new(command[0]);
        cmd.args(&command[1..]).env_clear().env("PATH", path_with(server.psql.parent()));
        for pair in container["environment"].as_array().unwrap() {
            cmd.env(pair["name"].as_str().unwrap(), pair["value"].as_str().unwrap());
        }
        cmd.env("RUNWAY_CHECK_HOST", "127.0.0.1");
        if let Some(sql) = sql {
            cmd.env("RUNWAY_CHECK_SQL", sql);
        }
        // The task definition's variables and secrets (plain here, TLS on RDS).
        cmd.env("PGPORT", server.port.to_string())
            .env("PGDATABASE", "main_db")
            .env("PGUSER", "runway")
            .env("PGPASSWORD", ADMIN_PASSWORD)
            .env("PGSSLMODE", "disable")
            .env("PGCONNECT_TIMEOUT", "10");
        let out = cmd.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, stderr) = run(None);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert_eq!(stdout, "runway-check: passed; first row: 3\n");
    let (code, _, stderr) = run(Some("select count(*) from invoices"));
    assert_ne!(code, Some(0));
    assert!(stderr.contains("relation \"invoices\" does not exist"), "{stderr}");
    assert!(stderr.contains("runway-check: the query failed (psql exit 1)"), "{stderr}");
    // Read-only: a check cannot change the copy.
    let (code, _, stderr) = run(Some("delete from orders"));
    assert_ne!(code, Some(0));
    assert!(stderr.contains("read-only transaction"), "{stderr}");
    assert_eq!(server.login("runway", ADMIN_PASSWORD, "select count(*) from orders").unwrap(), "3");
    // A copy not reachable: psql's exit 2, tried RUNWAY_BOOTSTRAP_ATTEMPTS times.
    let closed = test_support::free_port();
    let command: Vec<&str> =
        container["command"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
    let out = Command::new(command[0])
        .args(&command[1..])
        .env_clear()
        .env("PATH", path_with(server.psql.parent()))
        .env("RUNWAY_CHECK_HOST", "127.0.0.1")
        .env("RUNWAY_CHECK_SQL", CHECK)
        .env("PGPORT", closed.to_string())
        .env("PGUSER", "runway")
        .env("PGSSLMODE", "disable")
        .env("RUNWAY_BOOTSTRAP_ATTEMPTS", "2")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("could not connect in 2 attempt(s)"), "{stderr}");
}

/// A container of the check's task definition that exited 1 (moto's exit 0 otherwise).
pub(crate) fn failed_task() -> String {
    json!({"tasks": [{
        "taskArn": "arn:aws:ecs:us-east-1:123456789012:task/acme-shop-dev/0f41ed",
        "taskDefinitionArn": format!("arn:aws:ecs:us-east-1:123456789012:task-definition/{BOOT_FAMILY}:1"),
        "lastStatus": "STOPPED",
        "stopCode": "EssentialContainerExited",
        "stoppedReason": "Essential container in task exited",
        "containers": [{"name": "main-db-bootstrap", "exitCode": 1}],
    }], "failures": []})
    .to_string()
}

#[test]
fn a_failed_check_exits_1_keeps_the_copy_and_switches_nothing() {
    let account = Account::new("restore-check-failed");
    let aws = CannedAws::in_front_of(&account.moto.url(), vec![Route::ok("DescribeTasks", &failed_task())]);
    let to = account.a_restorable_time();
    let copy = format!("{}-restored", account.db);

    let run = account.failed_switch(&aws, &to);
    assert!(run.stderr.contains(&format!("the check of {copy} failed")), "{}", run.stderr);
    let state = account.state();
    assert_eq!(state["dbs"][&copy]["tags"]["runway-check"], "failed", "{state}");
    assert_eq!(state["dbs"][&copy]["groups"], json!([account.db_group]), "{state}");
    assert_eq!(state["checks"], json!([]), "{state}");
    assert_eq!(state["targets"], json!([account.db]), "the live instance is still the target");
    assert!(!aws.asked().iter().any(|o| o == "DeregisterDBProxyTargets"), "{:?}", aws.asked());

    // A drill whose check fails: exit 1, and its copy deleted all the same.
    let aws = CannedAws::in_front_of(&account.moto.url(), vec![Route::ok("DescribeTasks", &failed_task())]);
    let drill = account.restore(&aws, &to, &["--drill"]);
    assert_eq!(drill.code, 1, "{}", drill.stderr);
    assert!(drill.stdout.contains("drill: no usable copy (its check failed) after "), "{}", drill.stdout);
    assert!(!account.state()["dbs"].as_object().unwrap().contains_key(&format!("{}-drill", account.db)));

    // Without the stack outputs the check cannot run: refused before anything is made.
    let mut args = vec!["restore", "--env", "dev", "main-db", "--to", to.as_str(), "--drill"];
    args.push("--interval");
    args.push("1s");
    let bare = account.run(&account.moto.url(), &args);
    assert_eq!(bare.code, 2, "{}", bare.stderr);
    assert!(bare.stderr.contains("declares `restore.check`"), "{}", bare.stderr);
}

#[test]
fn a_run_killed_with_the_group_on_the_copy_finishes_checks_and_switches() {
    let account = Account::new("restore-check-killed");
    let to = account.a_restorable_time();
    let (db, copy) = (account.db.clone(), format!("{}-restored", account.db));
    // What a run killed after "admitted for the check" leaves: the copy (tagged as a restore
    // makes it) in its group and the check's, the check's group made.
    account.killed_with_the_group_on(&copy, &to);
    assert_eq!(account.state()["dbs"][&copy]["groups"].as_array().unwrap().len(), 2);

    let (_, run) = account.switch_after_the_kill(&copy, &to);
    assert!(run.stdout.contains(&format!("renamed {copy} to {db}")), "{}", run.stdout);
    let state = account.state();
    account.switched_onto_the_checked_copy(&state, &state["dbs"][&db]);

    account.again_no_second_task(&to);
}
