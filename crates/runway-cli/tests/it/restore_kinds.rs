//! `runway restore` of an Aurora cluster and of a cache, end to end: the real binary against
//! moto (RDS `RestoreDBClusterToPointInTime`, `CreateDBInstance` in a cluster, cluster renames,
//! a proxy targeting a cluster; ElastiCache snapshots and `CreateReplicationGroup` from one), on
//! the example with `main-db` on Aurora (`engine: aurora`) and its `sessions` cache.
//!
//! What moto cannot show: the copies' data, the time a real restore takes (moto's copies are
//! `available` at once), a cluster's members after a rename (moto forgets them, and deletes a
//! cluster that still has instances: the order of `--finish`, instances first, is held by the
//! step decisions in `crates/runtime-plan/tests/it/restore_kinds.rs`), a snapshot's creation time
//! (moto gives none: `--to` on a cache is refused here, and the choice by time is tested in the
//! same file), and a cache's member nodes (moto describes none).

use std::path::PathBuf;
use std::process::Command;

use crate::common::{self, Run};
use serde_json::Value;
use test_support::{Moto, Scratch, scratch};

/// A canary AUTH token: it must never reach the command's output.
const TOKEN: &str = "canary-auth-token-5f1c9e0b7a";

struct Account {
    moto: Moto,
    _dir: Scratch,
    file: PathBuf,
    cluster: String,
    writer: String,
    cache: String,
    token_parameter: String,
}

/// The physical name of the plan's first item of `kind`.
pub(crate) fn physical(plan: &Value, kind: &str) -> String {
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
        std::fs::write(&file, text).unwrap();
        let moto = Moto::start();
        let plan =
            common::bare().args(["plan", "--env", "dev", "--format", "json"]).arg(&file).output().unwrap();
        let plan: Value = serde_json::from_slice(&plan.stdout).unwrap();
        let (cluster, writer, cache) = (
            physical(&plan, "aurora-cluster"),
            physical(&plan, "aurora-instance"),
            physical(&plan, "cache-replication-group"),
        );
        let token_parameter = plan["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["kind"] == "cache-replication-group")
            .unwrap()["spec"]["authTokenParameter"]
            .as_str()
            .unwrap_or_else(|| panic!("{plan}"))
            .to_owned();
        let account = Account { moto, _dir: dir, file, cluster, writer, cache, token_parameter };
        account.python(&format!(
            "rds.create_db_cluster(DBClusterIdentifier='{c}', Engine='aurora-postgresql', MasterUsername='runway', \
             MasterUserPassword='not-a-secret-1', BackupRetentionPeriod=1)\n\
             rds.create_db_instance(DBInstanceIdentifier='{w}', DBClusterIdentifier='{c}', Engine='aurora-postgresql', \
             DBInstanceClass='db.t4g.medium')",
            c = account.cluster,
            w = account.writer
        ));
        account
    }

    fn python(&self, code: &str) -> String {
        let mut cmd = Command::new(test_support::python());
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("AWS_") {
                cmd.env_remove(k);
            }
        }
        cmd.args([
            "-c",
            &format!(
                "import boto3, json, sys, datetime\nrds = boto3.client('rds', region_name='us-east-1')\n\
                 ecs = boto3.client('ecs', region_name='us-east-1')\n\
                 ec2 = boto3.client('ec2', region_name='us-east-1')\n\
                 ssm = boto3.client('ssm', region_name='us-east-1')\n\
                 ec = boto3.client('elasticache', region_name='us-east-1')\n{code}"
            ),
        ])
        .env("AWS_ENDPOINT_URL", self.moto.url())
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing");
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    fn run(&self, args: &[&str]) -> Run {
        let mut cmd = common::aws_command(&self.moto.url(), "runway-restore-kinds-test-home");
        cmd.args(args).arg(&self.file).env("AWS_REGION", "us-east-1");
        let run = Run::of_utf8(&mut cmd);
        println!("$ runway {}\nexit {}\n{}{}", args.join(" "), run.code, run.stdout, run.stderr);
        run
    }

    /// The clusters (protection, tags), the instances, the proxy's targets, the services'
    /// deployments and the cluster snapshots.
    fn state(&self) -> Value {
        let out = self.python(&format!(
            "clusters = {{c['DBClusterIdentifier']: {{'protected': c.get('DeletionProtection', False), \
             'tags': {{t['Key']: t['Value'] for t in c.get('TagList', [])}}}} for c in rds.describe_db_clusters()['DBClusters']}}\n\
             instances = sorted(d['DBInstanceIdentifier'] for d in rds.describe_db_instances()['DBInstances'])\n\
             try:\n\
             \x20   targets = [t['RdsResourceId'] for t in rds.describe_db_proxy_targets(DBProxyName='{c}-proxy')['Targets']]\n\
             except Exception:\n\
             \x20   targets = None\n\
             try:\n\
             \x20   svcs = ecs.describe_services(cluster='acme-shop-dev', services=['acme-shop-dev-metabase-service', 'acme-shop-dev-pdf-render-service'])['services']\n\
             except Exception:\n\
             \x20   svcs = []\n\
             deployments = {{s['serviceName']: [d['id'] for d in s['deployments']] for s in svcs}}\n\
             snapshots = sorted(s['DBClusterSnapshotIdentifier'] for s in rds.describe_db_cluster_snapshots()['DBClusterSnapshots'])\n\
             print(json.dumps({{'clusters': clusters, 'instances': instances, 'targets': targets, 'deployments': deployments, 'snapshots': snapshots}}))",
            c = self.cluster
        ));
        serde_json::from_str(&out).unwrap()
    }

    /// A time inside the cluster's window: its creation second.
    fn a_restorable_time(&self) -> String {
        self.python(&format!(
            "t = rds.describe_db_clusters(DBClusterIdentifier='{}')['DBClusters'][0]['ClusterCreateTime']\n\
             sys.stdout.write(t.astimezone(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'))",
            self.cluster
        ))
    }

    /// What `pulumi up` made besides the cluster: its proxy targeting it, production's
    /// protection, and the two services of the example's dev cluster.
    fn with_proxy_and_services(&self) {
        self.python(&format!(
            "rds.modify_db_cluster(DBClusterIdentifier='{c}', DeletionProtection=True, ApplyImmediately=True)\n\
             subnets = [s['SubnetId'] for s in ec2.describe_subnets()['Subnets'][:2]]\n\
             rds.create_db_proxy(DBProxyName='{c}-proxy', EngineFamily='POSTGRESQL', Auth=[{{'AuthScheme': \
             'SECRETS', 'IAMAuth': 'DISABLED', 'SecretArn': \
             'arn:aws:secretsmanager:us-east-1:123456789012:secret:proxy-admin-abcdef'}}], \
             RoleArn='arn:aws:iam::123456789012:role/proxy', VpcSubnetIds=subnets)\n\
             rds.register_db_proxy_targets(DBProxyName='{c}-proxy', DBClusterIdentifiers=['{c}'])\n\
             ecs.create_cluster(clusterName='acme-shop-dev')\n\
             ecs.register_task_definition(family='t', containerDefinitions=[{{'name': 'c', 'image': 'x', 'memory': 512}}])\n\
             for w in ['metabase', 'pdf-render']:\n\
             \x20   ecs.create_service(cluster='acme-shop-dev', serviceName=f'acme-shop-dev-{{w}}-service', taskDefinition='t', desiredCount=1)",
            c = self.cluster
        ));
    }
}

#[test]
fn an_aurora_drill_restores_the_cluster_adds_a_writer_reports_and_deletes_both() {
    let account = Account::new("restore-aurora-drill");
    let to = account.a_restorable_time();
    let (c, w) = (account.cluster.clone(), account.writer.clone());
    let drill =
        account.run(&["restore", "--env", "dev", "main-db", "--to", &to, "--drill", "--interval", "1s"]);
    assert_eq!(drill.code, 0, "{}", drill.stderr);
    assert!(drill.stdout.contains(&format!("restorable window of {c}: ")), "{}", drill.stdout);
    assert!(drill.stdout.contains("(1 days of backups)"), "{}", drill.stdout);
    assert!(drill.stdout.contains(&format!("{c}-drill available at ")), "{}", drill.stdout);
    assert!(drill.stdout.contains(&format!("its writer {w}-drill)")), "{}", drill.stdout);
    assert!(drill.stdout.contains(&format!("{w}-drill: writer added")), "{}", drill.stdout);
    // Ten minutes of db.t4g.medium at $0.073 an hour, the minimum: $0.0122, shown to the cent.
    assert!(
        drill.stdout.contains(&format!("{c}-drill deleted; the copy cost $0.01 (db.t4g.medium")),
        "{}",
        drill.stdout
    );
    let state = account.state();
    assert_eq!(state["clusters"].as_object().unwrap().keys().collect::<Vec<_>>(), vec![&c]);
    assert_eq!(state["instances"], serde_json::json!([w]));
    // Outside the window: refused, nothing made.
    let early = account.run(&["restore", "--env", "dev", "main-db", "--to", "2020-01-01T00:00:00Z"]);
    assert_eq!(early.code, 2, "{}", early.stdout);
    assert!(early.stderr.contains("outside the restorable window"), "{}", early.stderr);
    assert_eq!(account.state()["clusters"].as_object().unwrap().len(), 1);
}

#[test]
fn an_aurora_switch_killed_midway_finishes_and_finish_deletes_the_old_cluster_after_it() {
    let account = Account::new("restore-aurora-switch");
    account.with_proxy_and_services();
    let (c, w) = (account.cluster.clone(), account.writer.clone());
    let to = account.a_restorable_time();
    let before = account.state();
    assert_eq!(before["targets"], serde_json::json!([c]));
    // The copy, kept (a run again finds it); then the state a switch killed after its first two
    // steps leaves: the live cluster out of the proxy and renamed to the old name.
    let kept = account.run(&["restore", "--env", "dev", "main-db", "--to", &to, "--interval", "1s"]);
    assert_eq!(kept.code, 0, "{}", kept.stderr);
    assert!(kept.stdout.contains("Move the product onto it with `runway restore"), "{}", kept.stdout);
    let again = account.run(&["restore", "--env", "dev", "main-db", "--to", &to, "--interval", "1s"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stdout.contains("exists, a run before began it"), "{}", again.stdout);
    assert!(again.stdout.contains("exists, a run before added it"), "{}", again.stdout);
    account.python(&format!(
        "rds.deregister_db_proxy_targets(DBProxyName='{c}-proxy', DBClusterIdentifiers=['{c}'])\n\
         rds.modify_db_cluster(DBClusterIdentifier='{c}', NewDBClusterIdentifier='{c}-old', ApplyImmediately=True)"
    ));
    let early = account.run(&["restore", "--env", "dev", "main-db", "--finish"]);
    assert_eq!(early.code, 2, "{}", early.stdout);
    assert!(early.stderr.contains("not complete"), "{}", early.stderr);
    assert_eq!(account.state()["instances"], serde_json::json!([w.clone(), format!("{w}-restored")]));

    let switched =
        account.run(&["restore", "--env", "dev", "main-db", "--to", &to, "--switch", "--interval", "1s"]);
    assert_eq!(switched.code, 0, "{}", switched.stderr);
    for line in [
        format!("renamed instance {w} to {w}-old"),
        format!("renamed cluster {c}-restored to {c}"),
        format!("renamed instance {w}-restored to {w}"),
        format!("{c}-proxy: {c} (the copy) is its target"),
        "restarted metabase (acme-shop-dev-metabase-service)".to_owned(),
        "pulumi import --protect aws:rds/cluster:Cluster main-db_db".to_owned(),
        format!("pulumi import --protect aws:rds/clusterInstance:ClusterInstance main-db_instance-1 {w}"),
    ] {
        assert!(switched.stdout.contains(&line), "{line}\n{}", switched.stdout);
    }
    assert!(!switched.stdout.contains("pdf-render"), "{}", switched.stdout);
    let after = account.state();
    assert_eq!(after["targets"], serde_json::json!([c]));
    assert_eq!(after["clusters"][&c]["protected"], true);
    assert_eq!(after["clusters"][&c]["tags"]["runway-restore"], to.as_str());
    assert!(after["clusters"][&c]["tags"]["runway-switched"].is_string(), "{after}");
    assert_eq!(
        after["clusters"][&format!("{c}-old")]["protected"],
        true,
        "the old cluster is kept protected"
    );
    assert_eq!(after["instances"], serde_json::json!([w.clone(), format!("{w}-old")]));
    let metabase = "acme-shop-dev-metabase-service";
    assert_ne!(after["deployments"][metabase], before["deployments"][metabase]);
    assert_eq!(
        after["deployments"]["acme-shop-dev-pdf-render-service"],
        before["deployments"]["acme-shop-dev-pdf-render-service"]
    );
    // Run again: nothing to do, no restart twice.
    let twice =
        account.run(&["restore", "--env", "dev", "main-db", "--to", &to, "--switch", "--interval", "1s"]);
    assert_eq!(twice.code, 0, "{}", twice.stderr);
    assert!(!twice.stdout.contains("restarted"), "{}", twice.stdout);

    let finish = account.run(&["restore", "--env", "dev", "main-db", "--finish", "--interval", "1s"]);
    assert_eq!(finish.code, 0, "{}", finish.stderr);
    assert!(finish.stdout.contains(&format!("deleting instance {w}-old of {c}-old")), "{}", finish.stdout);
    let end = account.state();
    assert_eq!(end["clusters"].as_object().unwrap().keys().collect::<Vec<_>>(), vec![&c]);
    assert_eq!(end["instances"], serde_json::json!([w]));
    assert!(end["snapshots"].as_array().unwrap().iter().any(|s| s == &format!("{c}-old-final")), "{end}");
    let done = account.run(&["restore", "--env", "dev", "main-db", "--finish"]);
    assert_eq!(done.code, 0, "{}", done.stderr);
}

impl Account {
    /// The live cache as `pulumi up` made it, its AUTH token (a canary) in SSM, and a snapshot.
    fn with_cache(&self) {
        self.python(&format!(
            "ssm.put_parameter(Name='{p}', Type='SecureString', Value='{TOKEN}')\n\
             ec.create_replication_group(ReplicationGroupId='{g}', ReplicationGroupDescription='d', Engine='valkey', \
             CacheNodeType='cache.t4g.micro', NumCacheClusters=1, SnapshotRetentionLimit=1, \
             TransitEncryptionEnabled=True, AuthToken='{TOKEN}')\n\
             ec.create_snapshot(ReplicationGroupId='{g}', SnapshotName='before-the-incident')",
            g = self.cache,
            p = self.token_parameter
        ));
    }

    fn groups(&self) -> Value {
        let out = self.python(
            "print(json.dumps({g['ReplicationGroupId']: {'status': g['Status'], 'auth': g.get('AuthTokenEnabled')} \
             for g in ec.describe_replication_groups()['ReplicationGroups']}))",
        );
        serde_json::from_str(&out).unwrap()
    }
}

#[test]
fn a_cache_is_restored_from_a_snapshot_beside_the_live_one_and_a_drill_deletes_its_copy() {
    let account = Account::new("restore-cache");
    account.with_cache();
    let g = account.cache.clone();
    let args = |extra: &[&str]| {
        let mut a = vec!["restore", "--env", "dev", "sessions", "--interval", "1s"];
        a.extend_from_slice(extra);
        a.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        account.run(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let drill = run(&["--snapshot", "before-the-incident", "--drill"]);
    assert_eq!(drill.code, 0, "{}", drill.stderr);
    assert!(drill.stdout.contains(&format!("snapshots of {g}:")), "{}", drill.stdout);
    assert!(drill.stdout.contains("before-the-incident (manual, available)"), "{}", drill.stdout);
    assert!(drill.stdout.contains(&format!("{g}-drill available at ")), "{}", drill.stdout);
    // One hour of one cache.t4g.micro at $0.0128, a partial hour billed whole.
    assert!(
        drill.stdout.contains(&format!("{g}-drill being deleted; the copy cost $0.01 (1 x cache.t4g.micro")),
        "{}",
        drill.stdout
    );
    let groups = account.groups();
    assert_eq!(groups[&format!("{g}-drill")]["status"], "deleting", "{groups}");
    assert_eq!(groups[&g]["status"], "available");
    // Kept: the copy has the live group's AUTH token; a run again finds it; the canary never
    // shows.
    let kept = run(&["--snapshot", "before-the-incident"]);
    assert_eq!(kept.code, 0, "{}", kept.stderr);
    assert_eq!(account.groups()[&format!("{g}-restored")]["auth"], true);
    assert!(kept.stdout.contains("the copy is kept; the live group"), "{}", kept.stdout);
    // Nothing in dev reads the cache through a parameter (orders is not a service there).
    assert!(kept.stdout.contains("no service the plan runs reads sessions's parameters"), "{}", kept.stdout);
    assert!(kept.stdout.contains("the next `runway deploy --env dev` writes it back"), "{}", kept.stdout);
    let again = run(&["--snapshot", "before-the-incident"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stdout.contains("exists, a run before began it"), "{}", again.stdout);
    // Refusals: an unknown snapshot, no snapshot before the time (moto gives none a time), a
    // switch; nothing made by them.
    let unknown = run(&["--snapshot", "nope"]);
    assert_eq!(unknown.code, 2);
    assert!(unknown.stderr.contains("has no snapshot `nope`"), "{}", unknown.stderr);
    let by_time = run(&["--to", "2026-01-01T00:00:00Z"]);
    assert_eq!(by_time.code, 2);
    assert!(by_time.stderr.contains("no available snapshot taken at or before"), "{}", by_time.stderr);
    let switch = run(&["--to", "2026-01-01T00:00:00Z", "--switch"]);
    assert_eq!(switch.code, 2);
    assert!(switch.stderr.contains("no --switch or --finish"), "{}", switch.stderr);
    assert_eq!(account.groups().as_object().unwrap().len(), 3);
    for r in [&drill, &kept, &again, &unknown, &by_time, &switch] {
        assert!(!r.stdout.contains(TOKEN) && !r.stderr.contains(TOKEN), "the AUTH token leaked");
    }
}
