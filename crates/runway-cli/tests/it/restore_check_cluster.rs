//! `restore.check` of an Aurora copy, end to end: the real binary against moto (RDS clusters,
//! EC2 security groups, ECS `RunTask`) behind a recording proxy (`CannedAws::in_front_of`), as
//! `restore_check.rs` does for an instance: the group made, put on the copy cluster
//! (`ModifyDBCluster`, its own group kept), the check task sent to the cluster's endpoint (its
//! writer's), the group taken off and deleted, the cluster tagged; a drill deletes the writer
//! then the cluster, whatever the check said; a failed check switches nothing; a run killed
//! with the group on the cluster finishes. The command the task runs is the instance's, already
//! run against a real PostgreSQL in `restore_check.rs`: not again here.
//!
//! The example's `dev` with main-db on Aurora (`engine: aurora`) and `restore: { check: ... }`;
//! the cluster made as `pulumi up` would (its subnet group, its own security group, its writer,
//! the proxy targeting it), the bootstrap's task definition registered. What moto cannot show
//! is `restore_check.rs`'s: a container running (a failing one is a canned `DescribeTasks`) and
//! a group still in use refusing its deletion.

use std::path::PathBuf;

use serde_json::{Value, json};
use test_support::{CannedAws, Moto, Route, Scratch, scratch};

use crate::common::{self, Run};
use crate::restore_check::{BOOT_FAMILY, CHECK, failed_task, run_task, with_check, write_outputs};

struct Account {
    moto: Moto,
    _dir: Scratch,
    file: PathBuf,
    cluster: String,
    writer: String,
    /// The live cluster's own group.
    db_group: String,
    outputs: PathBuf,
}

fn physical(plan: &Value, kind: &str) -> String {
    plan["items"].as_array().unwrap().iter().find(|i| i["kind"] == kind).unwrap()["physicalName"]
        .as_str()
        .unwrap()
        .to_owned()
}

impl Account {
    fn new(name: &str) -> Self {
        let dir = scratch(name);
        test_support::copy_dir(&test_support::example("acme-shop"), dir.path());
        let file = dir.path().join("runway.yaml");
        let text = std::fs::read_to_string(&file).unwrap().replace("engine: rds", "engine: aurora");
        std::fs::write(&file, with_check(&text)).unwrap();
        let moto = Moto::start();
        let plan =
            common::bare().args(["plan", "--env", "dev", "--format", "json"]).arg(&file).output().unwrap();
        let plan: Value = serde_json::from_slice(&plan.stdout).unwrap();
        let (cluster, writer) = (physical(&plan, "aurora-cluster"), physical(&plan, "aurora-instance"));
        let made = moto.python(
            &format!(
                "import boto3, json\n\
                 ec2 = boto3.client('ec2'); rds = boto3.client('rds'); ecs = boto3.client('ecs')\n\
                 vpc = ec2.describe_vpcs()['Vpcs'][0]['VpcId']\n\
                 subnets = [s['SubnetId'] for s in ec2.describe_subnets(Filters=[{{'Name': 'vpc-id', 'Values': [vpc]}}])['Subnets'][:2]]\n\
                 sg = ec2.create_security_group(GroupName='{c}-db', Description='admits the proxy', VpcId=vpc)['GroupId']\n\
                 rds.create_db_subnet_group(DBSubnetGroupName='{c}-subnets', DBSubnetGroupDescription='d', SubnetIds=subnets)\n\
                 rds.create_db_cluster(DBClusterIdentifier='{c}', Engine='aurora-postgresql', MasterUsername='runway', \
                 MasterUserPassword='not-a-secret-1', BackupRetentionPeriod=1, DBSubnetGroupName='{c}-subnets', \
                 VpcSecurityGroupIds=[sg])\n\
                 rds.create_db_instance(DBInstanceIdentifier='{w}', DBClusterIdentifier='{c}', Engine='aurora-postgresql', \
                 DBInstanceClass='db.t4g.medium')\n\
                 rds.create_db_proxy(DBProxyName='{c}-proxy', EngineFamily='POSTGRESQL', Auth=[{{'AuthScheme': 'SECRETS', \
                 'IAMAuth': 'DISABLED', 'SecretArn': 'arn:aws:secretsmanager:us-east-1:123456789012:secret:proxy-admin-abcdef'}}], \
                 RoleArn='arn:aws:iam::123456789012:role/proxy', VpcSubnetIds=subnets)\n\
                 rds.register_db_proxy_targets(DBProxyName='{c}-proxy', DBClusterIdentifiers=['{c}'])\n\
                 ecs.create_cluster(clusterName='acme-shop-dev')\n\
                 td = ecs.register_task_definition(family='{BOOT_FAMILY}', containerDefinitions=[{{'name': 'main-db-bootstrap', \
                 'image': 'postgres', 'memory': 512}}])['taskDefinition']['taskDefinitionArn']\n\
                 ecs.create_service(cluster='acme-shop-dev', serviceName='acme-shop-dev-metabase-service', taskDefinition=td, desiredCount=1)\n\
                 print(json.dumps({{'sg': sg, 'td': td}}))",
                c = cluster,
                w = writer
            ),
            &[],
        );
        let made: Value = serde_json::from_slice(&made).unwrap();
        let outputs = write_outputs(dir.path(), &made["td"]);
        let db_group = made["sg"].as_str().unwrap().to_owned();
        Account { moto, _dir: dir, file, cluster, writer, db_group, outputs }
    }

    fn read(&self, code: &str) -> Value {
        let script = format!(
            "import boto3, json, sys, datetime\nrds = boto3.client('rds'); ec2 = boto3.client('ec2')\n{code}"
        );
        serde_json::from_slice(&self.moto.python(&script, &[])).unwrap()
    }

    /// The clusters (groups, tags), the instances, the groups named `*-check`, the proxy's
    /// targets.
    fn state(&self) -> Value {
        self.read(&format!(
            "clusters = {{c['DBClusterIdentifier']: {{'groups': [g['VpcSecurityGroupId'] for g in c['VpcSecurityGroups']], \
             'tags': {{t['Key']: t['Value'] for t in c.get('TagList', [])}}}} for c in rds.describe_db_clusters()['DBClusters']}}\n\
             instances = sorted(d['DBInstanceIdentifier'] for d in rds.describe_db_instances()['DBInstances'])\n\
             checks = [g['GroupName'] for g in ec2.describe_security_groups()['SecurityGroups'] if g['GroupName'].endswith('-check')]\n\
             targets = [t['RdsResourceId'] for t in rds.describe_db_proxy_targets(DBProxyName='{c}-proxy')['Targets']]\n\
             print(json.dumps({{'clusters': clusters, 'instances': instances, 'checks': checks, 'targets': targets}}))",
            c = self.cluster
        ))
    }

    /// A time inside the cluster's window: its creation second.
    fn a_restorable_time(&self) -> String {
        let t = self.read(&format!(
            "t = rds.describe_db_clusters(DBClusterIdentifier='{}')['DBClusters'][0]['ClusterCreateTime']\n\
             print(json.dumps(t.astimezone(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')))",
            self.cluster
        ));
        t.as_str().unwrap().to_owned()
    }

    fn restore(&self, aws: &CannedAws, to: &str, extra: &[&str]) -> Run {
        let outputs = self.outputs.to_str().unwrap();
        let mut args = vec!["restore", "--env", "dev", "main-db", "--to", to, "--interval", "1s"];
        args.extend(["--outputs", outputs]);
        args.extend(extra);
        let mut cmd = common::aws_command(&aws.url(), "runway-restore-check-cluster-test-home");
        cmd.args(&args).arg(&self.file).env("AWS_REGION", "us-east-1");
        let run = Run::of_utf8(&mut cmd);
        println!("$ runway {}\nexit {}\n{}{}", args.join(" "), run.code, run.stdout, run.stderr);
        run
    }
}

/// The operations asked, in order, of the ones that change something.
fn changes(aws: &CannedAws) -> Vec<String> {
    let changing = [
        "RestoreDBClusterToPointInTime",
        "CreateDBInstance",
        "CreateSecurityGroup",
        "ModifyDBCluster",
        "ModifyDBInstance",
        "RunTask",
        "DeleteSecurityGroup",
        "AddTagsToResource",
        "DeleteDBInstance",
        "DeleteDBCluster",
        "DeregisterDBProxyTargets",
    ];
    aws.asked().into_iter().filter(|o| changing.contains(&o.as_str())).collect()
}

/// The bodies of the recorded `ModifyDBCluster` calls.
fn cluster_modifications(aws: &CannedAws) -> Vec<String> {
    aws.calls().into_iter().filter(|c| c.operation == "ModifyDBCluster").map(|c| c.body).collect()
}

#[test]
fn an_aurora_drill_checks_its_copy_through_the_writer_with_a_group_on_the_cluster_then_deletes_both() {
    let account = Account::new("restore-check-cluster-drill");
    let aws = CannedAws::in_front_of(&account.moto.url(), vec![]);
    let to = account.a_restorable_time();
    let (c, w) = (account.cluster.clone(), account.writer.clone());
    let copy = format!("{c}-drill");

    let drill = account.restore(&aws, &to, &["--drill"]);
    assert_eq!(drill.code, 0, "{}", drill.stderr);
    for line in [
        format!("{copy}: the check's group {copy}-check ("),
        format!("check-main-db: passed on {copy}: `{CHECK}` ran"),
        format!("{copy}: the check's group {copy}-check removed"),
        "drill: a usable copy in ".to_owned(),
        format!("{copy} deleted; the copy cost $0.01 (db.t4g.medium"),
    ] {
        assert!(drill.stdout.contains(&line), "{line}\n{}", drill.stdout);
    }
    // The order: the copy and its writer, the group made and put on the cluster, the task, the
    // group off the cluster, deleted, the result tagged, then the writer and the cluster deleted.
    assert_eq!(
        changes(&aws),
        [
            "RestoreDBClusterToPointInTime",
            "CreateDBInstance",
            "CreateSecurityGroup",
            "ModifyDBCluster",
            "RunTask",
            "ModifyDBCluster",
            "DeleteSecurityGroup",
            "AddTagsToResource",
            "DeleteDBInstance",
            "DeleteDBCluster",
        ]
    );
    let modified = cluster_modifications(&aws);
    assert!(modified.iter().all(|b| b.contains(&format!("DBClusterIdentifier={copy}&"))), "{modified:?}");
    assert!(
        modified[0].contains(&account.db_group) && modified[0].contains("VpcSecurityGroupId.2=sg-"),
        "the cluster's own group kept, the check's added: {modified:?}"
    );
    assert!(
        modified[1].contains(&account.db_group) && !modified[1].contains("VpcSecurityGroupId.2="),
        "the copy back in its own group: {modified:?}"
    );
    let deleted: Vec<String> = aws
        .calls()
        .into_iter()
        .filter(|c| c.operation == "DeleteDBInstance" || c.operation == "AddTagsToResource")
        .map(|c| c.body)
        .collect();
    assert!(deleted[0].contains(&format!("cluster%3A{copy}")), "the cluster tagged: {deleted:?}");
    assert!(deleted[0].contains("runway-check") && deleted[0].contains("passed"), "{deleted:?}");
    assert!(deleted[1].contains(&format!("DBInstanceIdentifier={w}-drill")), "{deleted:?}");
    // The task: the bootstrap's revision and container, the check's command, the copy's
    // endpoint (moto's `<cluster>.cluster-...`), the bootstrap's group and the check's.
    let task = run_task(&aws);
    assert_eq!(task["startedBy"], "runway-restore-check");
    assert!(task["taskDefinition"].as_str().unwrap().contains(BOOT_FAMILY), "{task}");
    let container = &task["overrides"]["containerOverrides"][0];
    assert_eq!(container["name"], "main-db-bootstrap");
    assert_eq!(container["command"], json!(runtime_plan::restore_check::CHECK_COMMAND));
    let env = &container["environment"];
    assert_eq!(env[0]["name"], "RUNWAY_CHECK_HOST");
    let host = env[0]["value"].as_str().unwrap();
    assert!(host.starts_with(&format!("{copy}.cluster-")), "the cluster endpoint, not an instance's: {host}");
    assert_eq!(env[1], json!({"name": "RUNWAY_CHECK_SQL", "value": CHECK}));
    let groups = &task["networkConfiguration"]["awsvpcConfiguration"]["securityGroups"];
    assert_eq!(groups[0], "sg-0bootstrap");
    assert!(
        modified[0].contains(groups[1].as_str().unwrap()),
        "the task's second group is the cluster's: {task}"
    );
    // Afterwards: the copy and its writer gone, no check group, the live cluster untouched.
    let state = account.state();
    assert_eq!(state["checks"], json!([]), "{state}");
    assert_eq!(state["clusters"].as_object().unwrap().keys().collect::<Vec<_>>(), vec![&c], "{state}");
    assert_eq!(state["clusters"][&c]["groups"], json!([account.db_group]));
    assert_eq!(state["instances"], json!([w]));
    assert!(!aws.asked().iter().any(|o| o == "ModifyDBInstance"), "no instance API on a cluster's copy");
}

#[test]
fn a_failed_aurora_check_exits_1_switches_nothing_and_a_failed_drill_still_deletes_its_copy() {
    let account = Account::new("restore-check-cluster-failed");
    let aws = CannedAws::in_front_of(&account.moto.url(), vec![Route::ok("DescribeTasks", &failed_task())]);
    let to = account.a_restorable_time();
    let (c, w) = (account.cluster.clone(), account.writer.clone());
    let copy = format!("{c}-restored");

    let run = account.restore(&aws, &to, &["--switch"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let failed =
        run.stdout.lines().find(|l| l.starts_with("failed     check-main-db: task ")).unwrap_or_default();
    assert!(failed.ends_with(" exited 1 (Essential container in task exited)"), "{}", run.stdout);
    assert!(
        run.stderr
            .contains(&format!("the check of {copy} failed: it is kept for a look, the live cluster {c}")),
        "{}",
        run.stderr
    );
    let state = account.state();
    assert_eq!(state["clusters"][&copy]["tags"]["runway-check"], "failed", "{state}");
    assert_eq!(state["clusters"][&copy]["groups"], json!([account.db_group]), "{state}");
    assert_eq!(state["checks"], json!([]), "{state}");
    assert_eq!(state["targets"], json!([c]), "the live cluster is still the target");
    assert!(!aws.asked().iter().any(|o| o == "DeregisterDBProxyTargets"), "{:?}", aws.asked());
    assert_eq!(cluster_modifications(&aws).len(), 2, "only the group on and off: nothing renamed");

    // A drill whose check fails: exit 1, its writer and cluster deleted all the same.
    let aws = CannedAws::in_front_of(&account.moto.url(), vec![Route::ok("DescribeTasks", &failed_task())]);
    let drill = account.restore(&aws, &to, &["--drill"]);
    assert_eq!(drill.code, 1, "{}", drill.stderr);
    assert!(drill.stdout.contains("drill: no usable copy (its check failed) after "), "{}", drill.stdout);
    assert!(drill.stderr.contains(&format!("the drill's check of {c}-drill failed")), "{}", drill.stderr);
    let tail: Vec<String> = changes(&aws).into_iter().rev().take(2).collect();
    assert_eq!(tail, ["DeleteDBCluster", "DeleteDBInstance"], "the writer, then the cluster");
    let state = account.state();
    assert!(!state["clusters"].as_object().unwrap().contains_key(&format!("{c}-drill")), "{state}");
    assert_eq!(state["instances"], json!([w.clone(), format!("{w}-restored")]), "{state}");
    assert_eq!(state["checks"], json!([]), "{state}");

    // Without the stack outputs the check cannot run: refused before anything is made.
    let mut cmd = common::aws_command(&account.moto.url(), "runway-restore-check-cluster-test-home");
    cmd.args(["restore", "--env", "dev", "main-db", "--to", &to, "--drill"]).arg(&account.file);
    let bare = Run::of_utf8(cmd.env("AWS_REGION", "us-east-1"));
    assert_eq!(bare.code, 2, "{}", bare.stderr);
    assert!(bare.stderr.contains("declares `restore.check`"), "{}", bare.stderr);
    assert_eq!(account.state()["clusters"].as_object().unwrap().len(), 2, "no drill copy made");
}

#[test]
fn an_aurora_run_killed_with_the_group_on_the_cluster_finishes_checks_and_switches() {
    let account = Account::new("restore-check-cluster-killed");
    let to = account.a_restorable_time();
    let (c, w) = (account.cluster.clone(), account.writer.clone());
    let copy = format!("{c}-restored");
    // What a run killed after "admitted for the check" leaves: the copy (tagged as a restore
    // makes it) and its writer, the check's group made and on the cluster beside its own.
    account.read(&format!(
        "rds.restore_db_cluster_to_point_in_time(SourceDBClusterIdentifier='{c}', DBClusterIdentifier='{copy}', \
         RestoreToTime=datetime.datetime.strptime('{to}', '%Y-%m-%dT%H:%M:%SZ').replace(tzinfo=datetime.timezone.utc), \
         DBSubnetGroupName='{c}-subnets', VpcSecurityGroupIds=['{group}'], Tags=[{{'Key': 'runway-restore', 'Value': '{to}'}}])\n\
         rds.create_db_instance(DBInstanceIdentifier='{w}-restored', DBClusterIdentifier='{copy}', \
         Engine='aurora-postgresql', DBInstanceClass='db.t4g.medium')\n\
         vpc = ec2.describe_vpcs()['Vpcs'][0]['VpcId']\n\
         g = ec2.create_security_group(GroupName='{copy}-check', Description='d', VpcId=vpc)['GroupId']\n\
         rds.modify_db_cluster(DBClusterIdentifier='{copy}', VpcSecurityGroupIds=['{group}', g], ApplyImmediately=True)\n\
         print(json.dumps(g))",
        group = account.db_group
    ));
    assert_eq!(account.state()["clusters"][&copy]["groups"].as_array().unwrap().len(), 2);

    let aws = CannedAws::in_front_of(&account.moto.url(), vec![]);
    let run = account.restore(&aws, &to, &["--switch"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for line in [
        "exists, a run before began it".to_owned(),
        format!("check-main-db: passed on {copy}"),
        format!("{copy}: the check's group {copy}-check removed"),
        format!("renamed cluster {copy} to {c}"),
        format!("{c}-proxy: {c} (the copy) is its target"),
    ] {
        assert!(run.stdout.contains(&line), "{line}\n{}", run.stdout);
    }
    assert!(
        !aws.asked().iter().any(|o| o == "CreateSecurityGroup"),
        "the group found again: {:?}",
        aws.asked()
    );
    // The check ran and the group was gone before anything live was touched.
    let asked = changes(&aws);
    let at = |op: &str| asked.iter().position(|o| o == op).unwrap_or_else(|| panic!("{op}: {asked:?}"));
    assert!(at("RunTask") < at("DeleteSecurityGroup"), "{asked:?}");
    assert!(at("DeleteSecurityGroup") < at("DeregisterDBProxyTargets"), "{asked:?}");
    let state = account.state();
    assert_eq!(state["checks"], json!([]), "{state}");
    assert_eq!(
        state["clusters"][&c]["groups"],
        json!([account.db_group]),
        "the copy, now live, in its own group"
    );
    assert_eq!(state["clusters"][&c]["tags"]["runway-check"], "passed", "{state}");
    assert_eq!(state["clusters"][&c]["tags"]["runway-restore"], to.as_str(), "{state}");
    assert!(state["clusters"][&format!("{c}-old")].is_object(), "the old cluster kept: {state}");
    assert_eq!(state["targets"], json!([c]));

    // Run again: the switch is done; no second check task.
    let aws = CannedAws::in_front_of(&account.moto.url(), vec![]);
    let again = account.restore(&aws, &to, &["--switch"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(!aws.asked().iter().any(|o| o == "RunTask"), "{:?}", aws.asked());
}
