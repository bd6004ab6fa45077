//! `runway restore --drill` end to end: the real binary against moto (RDS
//! `RestoreDBInstanceToPointInTime`), on the example's `dev` database as `pulumi up` would have
//! made it. The window is printed and a time outside it refused; a drill reports the time to a
//! usable copy and its cost and deletes the copy; the live instance is untouched; a restore
//! without `--drill` keeps its copy, and a run again finds it.
//!
//! What moto cannot show: the copy's data (moto's copy holds none) and the time a real restore
//! takes (moto's copy is `available` at once). The example declares no `restore.check`: the
//! check's tests are `restore_check.rs`.
//!
//! Needs the workspace venv: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).

use std::path::PathBuf;
use std::process::Command;

use crate::common::{self, Run};
use serde_json::Value;
use test_support::{Moto, Scratch, scratch};

struct Account {
    moto: Moto,
    _dir: Scratch,
    file: PathBuf,
    db: String,
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
        let db = plan["items"].as_array().unwrap().iter().find(|i| i["kind"] == "rds-instance").unwrap()
            ["physicalName"]
            .as_str()
            .unwrap()
            .to_owned();
        let account = Account { moto, _dir: dir, file, db };
        account.python(&format!(
            "rds.create_db_instance(DBInstanceIdentifier='{}', Engine='postgres', DBInstanceClass='db.t4g.micro', \
             MasterUsername='runway', MasterUserPassword='not-a-secret-1', AllocatedStorage=20, \
             BackupRetentionPeriod=1)",
            account.db
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
                "import boto3, json, sys\nrds = boto3.client('rds', region_name='us-east-1')\n\
                 ecs = boto3.client('ecs', region_name='us-east-1')\n\
                 ec2 = boto3.client('ec2', region_name='us-east-1')\n{code}"
            ),
        ])
        .env("AWS_ENDPOINT_URL", self.moto.url())
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing");
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    fn instances(&self) -> Vec<String> {
        let out = self.python(
            "print(json.dumps(sorted(d['DBInstanceIdentifier'] for d in rds.describe_db_instances()['DBInstances'])))",
        );
        serde_json::from_str(&out).unwrap()
    }

    fn run(&self, args: &[&str]) -> Run {
        let mut cmd = common::aws_command(&self.moto.url(), "runway-restore-test-home");
        cmd.args(args).arg(&self.file).env("AWS_REGION", "us-east-1");
        let run = Run::of_utf8(&mut cmd);
        println!("$ runway {}\nexit {}\n{}{}", args.join(" "), run.code, run.stdout, run.stderr);
        run
    }

    /// A time inside the window: the window opens when the instance was made (a point in
    /// time before it has no backup, on RDS as in moto) and closes at moto's now; the
    /// instance's creation second is in it.
    fn a_restorable_time(&self) -> String {
        self.python(&format!(
            "import datetime\nt = rds.describe_db_instances(DBInstanceIdentifier='{}')['DBInstances'][0]['InstanceCreateTime']\n\
             sys.stdout.write(t.astimezone(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'))",
            self.db
        ))
    }
}

#[test]
fn a_drill_reports_the_time_and_cost_of_a_usable_copy_and_deletes_it() {
    let account = Account::new("restore-drill");
    let to = account.a_restorable_time();
    let drill =
        account.run(&["restore", "--env", "dev", "main-db", "--to", &to, "--drill", "--interval", "1s"]);
    assert_eq!(drill.code, 0, "{}", drill.stderr);
    assert!(drill.stdout.contains(&format!("restorable window of {}: ", account.db)), "{}", drill.stdout);
    assert!(drill.stdout.contains("(1 days of backups)"), "{}", drill.stdout);
    let copy = format!("{}-drill", account.db);
    assert!(drill.stdout.contains(&format!("{copy} available at ")), "{}", drill.stdout);
    // Ten minutes of db.t4g.micro at $0.016 an hour, RDS's minimum: $0.0027, shown to the cent.
    assert!(drill.stdout.contains("drill: a usable copy in "), "{}", drill.stdout);
    assert!(
        drill.stdout.contains(&format!("{copy} deleted; the copy cost $0.00 (db.t4g.micro")),
        "{}",
        drill.stdout
    );
    // The copy is gone, the live instance untouched.
    assert_eq!(account.instances(), vec![account.db.clone()]);
}

#[test]
fn a_time_outside_the_window_is_refused_and_a_kept_copy_is_found_again() {
    let account = Account::new("restore-window");
    let early = account.run(&["restore", "--env", "dev", "main-db", "--to", "2020-01-01T00:00:00Z"]);
    assert_eq!(early.code, 2);
    assert!(early.stderr.contains("outside the restorable window"), "{}", early.stderr);
    let bad = account.run(&["restore", "--env", "dev", "main-db", "--to", "yesterday"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("YYYY-MM-DDTHH:MM:SSZ"), "{}", bad.stderr);
    let queue = account.run(&["restore", "--env", "dev", "jobs", "--to", "2020-01-01T00:00:00Z"]);
    assert_eq!(queue.code, 2);
    assert!(queue.stderr.contains("not a postgres or cache resource"), "{}", queue.stderr);
    assert_eq!(account.instances(), vec![account.db.clone()], "nothing made by a refused restore");
    // Kept: the copy stays beside the live instance, with the steps to move onto it.
    let to = account.a_restorable_time();
    let kept = account.run(&["restore", "--env", "dev", "main-db", "--to", &to, "--interval", "1s"]);
    assert_eq!(kept.code, 0, "{}", kept.stderr);
    let copy = format!("{}-restored", account.db);
    assert!(kept.stdout.contains("Move the product onto it with `runway restore"), "{}", kept.stdout);
    let mut both = vec![account.db.clone(), copy.clone()];
    both.sort();
    assert_eq!(account.instances(), both);
    // Run again (a stopped run): the copy is found, not made twice.
    let again = account.run(&["restore", "--env", "dev", "main-db", "--to", &to, "--interval", "1s"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stdout.contains("exists, a run before began it"), "{}", again.stdout);
    assert_eq!(account.instances(), both);
}

impl Account {
    /// What `pulumi up` made besides the database: its proxy with the database as target, the
    /// deletion protection production has, and the two services of the example's dev cluster.
    fn with_proxy_and_services(&self) {
        self.python(&format!(
            "rds.modify_db_instance(DBInstanceIdentifier='{db}', DeletionProtection=True, ApplyImmediately=True)\n\
             subnets = [s['SubnetId'] for s in ec2.describe_subnets()['Subnets'][:2]]\n\
             rds.create_db_proxy(DBProxyName='{db}-proxy', EngineFamily='POSTGRESQL', Auth=[{{'AuthScheme': \
             'SECRETS', 'IAMAuth': 'DISABLED', 'SecretArn': \
             'arn:aws:secretsmanager:us-east-1:123456789012:secret:proxy-admin-abcdef'}}], \
             RoleArn='arn:aws:iam::123456789012:role/proxy', VpcSubnetIds=subnets)\n\
             rds.register_db_proxy_targets(DBProxyName='{db}-proxy', DBInstanceIdentifiers=['{db}'])\n\
             ecs.create_cluster(clusterName='acme-shop-dev')\n\
             ecs.register_task_definition(family='t', containerDefinitions=[{{'name': 'c', 'image': 'x', 'memory': 512}}])\n\
             for w in ['metabase', 'pdf-render']:\n\
             \x20   ecs.create_service(cluster='acme-shop-dev', serviceName=f'acme-shop-dev-{{w}}-service', taskDefinition='t', desiredCount=1)",
            db = self.db
        ));
    }

    /// The proxy's targets, the instances' deletion protection and tags, the services'
    /// deployment ids, the snapshots.
    fn state(&self) -> Value {
        let out = self.python(&format!(
            "targets = [t['RdsResourceId'] for t in rds.describe_db_proxy_targets(DBProxyName='{db}-proxy')['Targets']]\n\
             dbs = {{d['DBInstanceIdentifier']: {{'protected': d.get('DeletionProtection', False), \
             'tags': {{t['Key']: t['Value'] for t in d.get('TagList', [])}}}} for d in rds.describe_db_instances()['DBInstances']}}\n\
             svcs = ecs.describe_services(cluster='acme-shop-dev', services=['acme-shop-dev-metabase-service', 'acme-shop-dev-pdf-render-service'])['services']\n\
             deployments = {{s['serviceName']: [d['id'] for d in s['deployments']] for s in svcs}}\n\
             snapshots = sorted(s['DBSnapshotIdentifier'] for s in rds.describe_db_snapshots()['DBSnapshots'])\n\
             print(json.dumps({{'targets': targets, 'dbs': dbs, 'deployments': deployments, 'snapshots': snapshots}}))",
            db = self.db
        ));
        serde_json::from_str(&out).unwrap()
    }
}

#[test]
fn a_switch_moves_the_proxy_target_restarts_exactly_the_readers_and_finish_deletes_the_old_after_it() {
    let account = Account::new("restore-switch");
    account.with_proxy_and_services();
    let (db, copy, old) =
        (account.db.clone(), format!("{}-restored", account.db), format!("{}-old", account.db));
    let to = account.a_restorable_time();
    let before = account.state();
    assert_eq!(before["targets"], serde_json::json!([db]));
    let metabase = "acme-shop-dev-metabase-service";
    let pdf = "acme-shop-dev-pdf-render-service";
    assert!(!before["deployments"][metabase].as_array().unwrap().is_empty(), "{before}");

    // The copy, kept; then the state a switch killed after its first two steps leaves: the live
    // instance out of the proxy's target group and renamed to the old name.
    let kept = account.run(&["restore", "--env", "dev", "main-db", "--to", &to, "--interval", "1s"]);
    assert_eq!(kept.code, 0, "{}", kept.stderr);
    account.python(&format!(
        "rds.deregister_db_proxy_targets(DBProxyName='{db}-proxy', DBInstanceIdentifiers=['{db}'])\n\
         rds.modify_db_instance(DBInstanceIdentifier='{db}', NewDBInstanceIdentifier='{old}', ApplyImmediately=True)"
    ));
    // --finish before the switch is complete is refused, and deletes nothing.
    let early = account.run(&["restore", "--env", "dev", "main-db", "--finish"]);
    assert_eq!(early.code, 2, "{}", early.stdout);
    assert!(early.stderr.contains("not complete"), "{}", early.stderr);
    let mut two = vec![copy.clone(), old.clone()];
    two.sort();
    assert_eq!(account.instances(), two);

    // The switch run again finishes: the copy under the live name, protected, the proxy's
    // target; metabase (it reads main-db's parameters) restarted, pdf-render (it does not) not.
    let switched =
        account.run(&["restore", "--env", "dev", "main-db", "--to", &to, "--switch", "--interval", "1s"]);
    assert_eq!(switched.code, 0, "{}", switched.stderr);
    assert!(switched.stdout.contains(&format!("renamed {copy} to {db}")), "{}", switched.stdout);
    assert!(
        switched.stdout.contains("restarted metabase (acme-shop-dev-metabase-service)"),
        "{}",
        switched.stdout
    );
    assert!(!switched.stdout.contains("pdf-render"), "{}", switched.stdout);
    assert!(
        switched.stdout.contains("unchanged /acme-shop/dev/main-db/metabase/MAIN_DB_URL, Infisical dev:/runtime/main-db/metabase/MAIN_DB_URL"),
        "{}",
        switched.stdout
    );
    assert!(
        switched.stdout.contains("pulumi import --protect aws:rds/instance:Instance main-db_db"),
        "{}",
        switched.stdout
    );
    let after = account.state();
    assert_eq!(after["targets"], serde_json::json!([db]));
    assert_eq!(after["dbs"][&db]["protected"], true);
    assert_eq!(after["dbs"][&db]["tags"]["runway-restore"], to.as_str());
    assert!(after["dbs"][&db]["tags"]["runway-switched"].is_string(), "{after}");
    assert_eq!(after["dbs"][&old]["protected"], true, "the old instance is kept protected");
    assert!(after["dbs"][&old]["tags"].get("runway-restore").is_none(), "{after}");
    assert_ne!(after["deployments"][metabase], before["deployments"][metabase]);
    assert_eq!(after["deployments"][pdf], before["deployments"][pdf]);

    // Run again: nothing left to do, no restart twice.
    let again =
        account.run(&["restore", "--env", "dev", "main-db", "--to", &to, "--switch", "--interval", "1s"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(!again.stdout.contains("restarted"), "{}", again.stdout);
    assert_eq!(account.state()["deployments"], after["deployments"]);

    // A switch to another time while the old instance is kept: refused, nothing restored.
    let other =
        account.run(&["restore", "--env", "dev", "main-db", "--to", "2020-01-01T00:00:00Z", "--switch"]);
    assert_eq!(other.code, 2, "{}", other.stdout);
    assert!(other.stderr.contains("`--finish` that switch first"), "{}", other.stderr);
    assert_eq!(account.instances().len(), 2);

    // --finish: the old instance unprotected and deleted, its final snapshot left; again: done.
    let finish = account.run(&["restore", "--env", "dev", "main-db", "--finish", "--interval", "1s"]);
    assert_eq!(finish.code, 0, "{}", finish.stderr);
    assert_eq!(account.instances(), vec![db.clone()]);
    let end = account.state();
    assert!(end["snapshots"].as_array().unwrap().iter().any(|s| s == &format!("{old}-final")), "{end}");
    assert_eq!(end["targets"], serde_json::json!([db]));
    let twice = account.run(&["restore", "--env", "dev", "main-db", "--finish"]);
    assert_eq!(twice.code, 0, "{}", twice.stderr);
    assert!(twice.stdout.contains(&format!("finished: {old} is gone")), "{}", twice.stdout);
}

#[test]
fn a_restore_with_switch_from_the_start_renames_both_and_moves_the_target() {
    let account = Account::new("restore-switch-whole");
    account.with_proxy_and_services();
    let (db, old) = (account.db.clone(), format!("{}-old", account.db));
    let to = account.a_restorable_time();
    let run =
        account.run(&["restore", "--env", "dev", "main-db", "--to", &to, "--switch", "--interval", "1s"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    for line in [
        format!("acme-shop-dev-main-db-proxy: {db} is no longer its target"),
        format!("renamed {db} to {old} (kept, still protected)"),
        format!("renamed {db}-restored to {db}"),
        format!("acme-shop-dev-main-db-proxy: {db} (the copy) is its target"),
    ] {
        assert!(run.stdout.contains(&line), "{line}\n{}", run.stdout);
    }
    let mut both = vec![db.clone(), old.clone()];
    both.sort();
    assert_eq!(account.instances(), both);
    let state = account.state();
    assert_eq!(state["targets"], serde_json::json!([db]));
    assert_eq!(state["dbs"][&db]["tags"]["runway-restore"], to.as_str());
}
