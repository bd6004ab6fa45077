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

use serde_json::{Value, json};
use test_support::{CannedAws, Route};

use crate::restore_check::{Account, CHECK, changes, check_task, checks_and_targets, failed_task};

impl Account {
    /// The clusters (groups, tags), the instances, the groups named `*-check`, the proxy's
    /// targets.
    fn clusters(&self) -> Value {
        self.read(&format!(
            "clusters = {{c['DBClusterIdentifier']: {{'groups': [g['VpcSecurityGroupId'] for g in c['VpcSecurityGroups']], \
             'tags': {{t['Key']: t['Value'] for t in c.get('TagList', [])}}}} for c in rds.describe_db_clusters()['DBClusters']}}\n\
             instances = sorted(d['DBInstanceIdentifier'] for d in rds.describe_db_instances()['DBInstances'])\n\
             {}\
             print(json.dumps({{'clusters': clusters, 'instances': instances, 'checks': checks, 'targets': targets}}))",
            checks_and_targets(&format!("{}-proxy", self.db))
        ))
    }

    /// The live cluster and its writer.
    fn names(&self) -> (String, String) {
        (self.db.clone(), self.writer.clone().expect("on Aurora"))
    }
}

/// The bodies of the recorded `ModifyDBCluster` calls.
fn cluster_modifications(aws: &CannedAws) -> Vec<String> {
    aws.calls().into_iter().filter(|c| c.operation == "ModifyDBCluster").map(|c| c.body).collect()
}

#[test]
fn an_aurora_drill_checks_its_copy_through_the_writer_with_a_group_on_the_cluster_then_deletes_both() {
    let account = Account::aurora("restore-check-cluster-drill");
    let aws = CannedAws::in_front_of(&account.moto.url(), vec![]);
    let to = account.a_restorable_time();
    let (c, w) = account.names();
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
    // The task: to the cluster's endpoint (moto's `<cluster>.cluster-...`), not an instance's,
    // in the group put on the cluster.
    let (_, check_group) = check_task(&aws, &format!("{copy}.cluster-"));
    assert!(modified[0].contains(&check_group), "the task's second group is the cluster's: {modified:?}");
    // Afterwards: the copy and its writer gone, no check group, the live cluster untouched.
    let state = account.clusters();
    assert_eq!(state["checks"], json!([]), "{state}");
    assert_eq!(state["clusters"].as_object().unwrap().keys().collect::<Vec<_>>(), vec![&c], "{state}");
    assert_eq!(state["clusters"][&c]["groups"], json!([account.db_group]));
    assert_eq!(state["instances"], json!([w]));
    assert!(!aws.asked().iter().any(|o| o == "ModifyDBInstance"), "no instance API on a cluster's copy");
}

#[test]
fn a_failed_aurora_check_exits_1_switches_nothing_and_a_failed_drill_still_deletes_its_copy() {
    let account = Account::aurora("restore-check-cluster-failed");
    let aws = CannedAws::in_front_of(&account.moto.url(), vec![Route::ok("DescribeTasks", &failed_task())]);
    let to = account.a_restorable_time();
    let (c, w) = account.names();
    let copy = format!("{c}-restored");

    let run = account.failed_switch(&aws, &to);
    assert!(
        run.stderr
            .contains(&format!("the check of {copy} failed: it is kept for a look, the live cluster {c}")),
        "{}",
        run.stderr
    );
    let state = account.clusters();
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
    let state = account.clusters();
    assert!(!state["clusters"].as_object().unwrap().contains_key(&format!("{c}-drill")), "{state}");
    assert_eq!(state["instances"], json!([w.clone(), format!("{w}-restored")]), "{state}");
    assert_eq!(state["checks"], json!([]), "{state}");

    // Without the stack outputs the check cannot run: refused before anything is made.
    let bare =
        account.run(&account.moto.url(), &["restore", "--env", "dev", "main-db", "--to", &to, "--drill"]);
    assert_eq!(bare.code, 2, "{}", bare.stderr);
    assert!(bare.stderr.contains("declares `restore.check`"), "{}", bare.stderr);
    assert_eq!(account.clusters()["clusters"].as_object().unwrap().len(), 2, "no drill copy made");
}

#[test]
fn an_aurora_run_killed_with_the_group_on_the_cluster_finishes_checks_and_switches() {
    let account = Account::aurora("restore-check-cluster-killed");
    let to = account.a_restorable_time();
    let (c, _) = account.names();
    let copy = format!("{c}-restored");
    // What a run killed after "admitted for the check" leaves: the copy (tagged as a restore
    // makes it) and its writer, the check's group made and on the cluster beside its own.
    account.killed_with_the_group_on(&copy, &to);
    assert_eq!(account.clusters()["clusters"][&copy]["groups"].as_array().unwrap().len(), 2);

    let (aws, run) = account.switch_after_the_kill(&copy, &to);
    for line in [
        "exists, a run before began it".to_owned(),
        format!("{copy}: the check's group {copy}-check removed"),
        format!("renamed cluster {copy} to {c}"),
        format!("{c}-proxy: {c} (the copy) is its target"),
    ] {
        assert!(run.stdout.contains(&line), "{line}\n{}", run.stdout);
    }
    // The check ran and the group was gone before anything live was touched.
    let asked = changes(&aws);
    let at = |op: &str| asked.iter().position(|o| o == op).unwrap_or_else(|| panic!("{op}: {asked:?}"));
    assert!(at("RunTask") < at("DeleteSecurityGroup"), "{asked:?}");
    assert!(at("DeleteSecurityGroup") < at("DeregisterDBProxyTargets"), "{asked:?}");
    let state = account.clusters();
    account.switched_onto_the_checked_copy(&state, &state["clusters"][&c]);
    assert_eq!(state["clusters"][&c]["tags"]["runway-restore"], to.as_str(), "{state}");
    assert!(state["clusters"][&format!("{c}-old")].is_object(), "the old cluster kept: {state}");

    // Run again: the switch is done; no second check task.
    account.again_no_second_task(&to);
}
