//! `runway restore --drill` end to end: the real binary against moto (RDS
//! `RestoreDBInstanceToPointInTime`), on the example's `dev` database as `pulumi up` would have
//! made it. The window is printed and a time outside it refused; a drill reports the time to a
//! usable copy and its cost and deletes the copy; the live instance is untouched; a restore
//! without `--drill` keeps its copy, and a run again finds it.
//!
//! What moto cannot show: the copy's data (moto's copy holds none) and the time a real restore
//! takes (moto's copy is `available` at once). `restore.check` is not run (docs/operations.md).
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
            &format!("import boto3, json, sys\nrds = boto3.client('rds', region_name='us-east-1')\n{code}"),
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
    assert!(queue.stderr.contains("not an RDS postgres resource"), "{}", queue.stderr);
    assert_eq!(account.instances(), vec![account.db.clone()], "nothing made by a refused restore");
    // Kept: the copy stays beside the live instance, with the steps to move onto it.
    let to = account.a_restorable_time();
    let kept = account.run(&["restore", "--env", "dev", "main-db", "--to", &to, "--interval", "1s"]);
    assert_eq!(kept.code, 0, "{}", kept.stderr);
    let copy = format!("{}-restored", account.db);
    assert!(kept.stdout.contains("To move the product onto it"), "{}", kept.stdout);
    let mut both = vec![account.db.clone(), copy.clone()];
    both.sort();
    assert_eq!(account.instances(), both);
    // Run again (a stopped run): the copy is found, not made twice.
    let again = account.run(&["restore", "--env", "dev", "main-db", "--to", &to, "--interval", "1s"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stdout.contains("exists, a run before began it"), "{}", again.stdout);
    assert_eq!(account.instances(), both);
}
