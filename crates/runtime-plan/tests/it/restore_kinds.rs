//! `runway restore`'s decisions for an Aurora cluster and a cache, pure, over the shipped
//! example with `main-db` on Aurora: the names of the copies, a drill's cost, the cluster
//! switch's steps from the start (a kill after each step, then a run again, ends in the same
//! state with one restart), `--finish` refused before the end and deleting the old cluster's
//! instances before it, and the snapshot a cache is restored from.

use cost::Catalogue;
use runtime_plan::cache_restore::{
    CacheSnapshot, SnapshotChoice, SnapshotRefusal, cache_copy_cost, cache_target, pick_snapshot,
};
use runtime_plan::restore_cluster::{
    ClusterFinishStep, ClusterSeen, ClusterStep, ClusterSwitch, cluster_copy_cost, cluster_switch_of,
    cluster_target, next_cluster_finish_step, next_cluster_switch_step,
};
use runtime_plan::restore_kinds::{KindError, RestoreKind, restore_kind};
use runtime_plan::switch::{FinishStep, SeenInstance, SwitchRefusal, SwitchStep};
use runtime_plan::*;
use runway_schema::Money;

fn aurora(env: &str) -> Plan {
    let root =
        include_str!("../../../../examples/acme-shop/runway.yaml").replace("engine: rds", "engine: aurora");
    let product = crate::common::load_example_text(&root);
    plan(&product, env, &Catalogue::builtin()).unwrap()
}

#[test]
fn each_resource_gets_its_kind_of_restore() {
    let p = aurora("dev");
    assert_eq!(restore_kind(&p, "main-db").unwrap(), RestoreKind::Cluster);
    assert_eq!(restore_kind(&p, "sessions").unwrap(), RestoreKind::Cache);
    assert!(matches!(restore_kind(&p, "jobs"), Err(KindError::NotRestorable { .. })));
    assert!(matches!(restore_kind(&p, "nope"), Err(KindError::Unknown(_))));
    let rds = plan(&crate::common::shipped_example(), "dev", &Catalogue::builtin()).unwrap();
    assert_eq!(restore_kind(&rds, "main-db").unwrap(), RestoreKind::Instance);
}

#[test]
fn a_cluster_copy_is_named_beside_the_live_one_and_priced_by_its_writer() {
    let p = aurora("production");
    let t = cluster_target(&p, "main-db", true).unwrap();
    assert_eq!(t.source, "acme-shop-production-main-db");
    assert_eq!(t.copy, "acme-shop-production-main-db-drill");
    assert_eq!(t.writer, "acme-shop-production-main-db-1-drill");
    assert_eq!(t.members, vec!["acme-shop-production-main-db-1", "acme-shop-production-main-db-2"]);
    assert_eq!(t.instance_class, "db.r7g.xlarge");
    // Ten minutes at least: 600 s of $0.553 an hour is $0.092; an hour is $0.553.
    let cost =
        |seconds| cluster_copy_cost(&p, &Catalogue::builtin(), &t, seconds).unwrap().cents().to_string();
    assert_eq!(cost(5), "0.09");
    assert_eq!(cost(600), "0.09");
    assert_eq!(cost(3_600), "0.55");
}

fn inst(status: &str, protected: bool, restored: bool, switched: bool) -> SeenInstance {
    SeenInstance { status: status.into(), protected, restored_copy: restored, switched }
}

/// Carries a step out on a modelled account, as AWS would.
fn apply(s: &ClusterSwitch, seen: &mut ClusterSeen, step: &ClusterStep, restarts: &mut u32) {
    let sw = &s.switch;
    let c = &mut seen.clusters;
    match step {
        ClusterStep::Cluster(SwitchStep::DeregisterLive) => c.targets.retain(|t| t != sw.source.as_str()),
        ClusterStep::Cluster(SwitchStep::RenameLiveToOld) => c.old = c.source.take(),
        ClusterStep::Cluster(SwitchStep::RenameCopyToLive) => c.source = c.copy.take(),
        ClusterStep::Cluster(SwitchStep::ProtectCopy) => c.source.as_mut().unwrap().protected = true,
        ClusterStep::Cluster(SwitchStep::RegisterCopy) => c.targets.push(sw.source.to_string()),
        ClusterStep::Cluster(SwitchStep::RestartReaders) => {
            *restarts += 1;
            c.source.as_mut().unwrap().switched = true;
        }
        ClusterStep::RenameInstance(from, to) => {
            let i = seen.instances.iter_mut().find(|(n, _)| n == from).unwrap();
            i.0 = to.clone();
        }
        ClusterStep::Cluster(SwitchStep::Wait(_) | SwitchStep::Done) => {}
    }
}

fn start(s: &ClusterSwitch) -> ClusterSeen {
    let mut seen = ClusterSeen::default();
    seen.clusters.source = Some(inst("available", true, false, false));
    seen.clusters.copy = Some(inst("available", false, true, false));
    seen.clusters.targets = vec![s.switch.source.to_string()];
    seen.instances = s.members.iter().map(|(n, _)| (n.clone(), "available".to_owned())).collect();
    seen.instances.push((s.copy_writer.clone(), "available".to_owned()));
    seen
}

fn run_to_end(
    s: &ClusterSwitch,
    seen: &mut ClusterSeen,
    restarts: &mut u32,
    limit: usize,
) -> Vec<ClusterStep> {
    let mut steps = Vec::new();
    for _ in 0..limit {
        let step = next_cluster_switch_step(s, seen).unwrap();
        if step == ClusterStep::Cluster(SwitchStep::Done) {
            break;
        }
        apply(s, seen, &step, restarts);
        steps.push(step);
    }
    steps
}

#[test]
fn a_cluster_switch_renames_the_instances_with_the_clusters_and_survives_a_kill_after_any_step() {
    let p = aurora("production");
    let s = cluster_switch_of(&p, "main-db").unwrap();
    assert_eq!(s.switch.old, "acme-shop-production-main-db-old");
    assert!(
        s.switch.pulumi_urn.ends_with("::aws:rds/cluster:Cluster::main-db_db"),
        "{}",
        s.switch.pulumi_urn
    );
    assert_eq!(s.member_urns.len(), 2);
    assert_eq!(s.switch.readers.iter().map(|r| r.workload.as_str()).collect::<Vec<_>>(), vec!["metabase"]);
    let (mut seen, mut restarts) = (start(&s), 0);
    let steps = run_to_end(&s, &mut seen, &mut restarts, 20);
    let (w1, w2) = ("acme-shop-production-main-db-1", "acme-shop-production-main-db-2");
    let rename = |a: &str, b: &str| ClusterStep::RenameInstance(a.into(), b.into());
    assert_eq!(
        steps,
        vec![
            ClusterStep::Cluster(SwitchStep::DeregisterLive),
            ClusterStep::Cluster(SwitchStep::RenameLiveToOld),
            rename(w1, &format!("{w1}-old")),
            rename(w2, &format!("{w2}-old")),
            ClusterStep::Cluster(SwitchStep::RenameCopyToLive),
            rename(&format!("{w1}-restored"), w1),
            ClusterStep::Cluster(SwitchStep::ProtectCopy),
            ClusterStep::Cluster(SwitchStep::RegisterCopy),
            ClusterStep::Cluster(SwitchStep::RestartReaders),
        ]
    );
    assert_eq!(restarts, 1);
    let end = seen.clone();
    // Killed after each step, then run again: the same end, one restart.
    for kill_after in 0..steps.len() {
        let (mut seen, mut restarts) = (start(&s), 0);
        run_to_end(&s, &mut seen, &mut restarts, kill_after);
        run_to_end(&s, &mut seen, &mut restarts, 20);
        assert_eq!(seen, end, "killed after {kill_after} steps");
        assert_eq!(restarts, 1);
        // --finish before the end is refused.
        let (mut partial, mut r) = (start(&s), 0);
        run_to_end(&s, &mut partial, &mut r, kill_after);
        assert!(matches!(next_cluster_finish_step(&s, &partial), Err(SwitchRefusal::NotSwitched { .. })));
    }
    // An instance renaming is waited for.
    let (mut waiting, mut r) = (start(&s), 0);
    run_to_end(&s, &mut waiting, &mut r, 2);
    waiting.instances[0].1 = "renaming".into();
    assert_eq!(
        next_cluster_switch_step(&s, &waiting).unwrap(),
        ClusterStep::Cluster(SwitchStep::Wait(w1.into()))
    );
    // --finish: unprotect, the old instances deleted (waited for), then the cluster.
    let mut fin = end;
    assert_eq!(
        next_cluster_finish_step(&s, &fin).unwrap(),
        ClusterFinishStep::Cluster(FinishStep::UnprotectOld)
    );
    fin.clusters.old.as_mut().unwrap().protected = false;
    let old1 = format!("{w1}-old");
    assert_eq!(
        next_cluster_finish_step(&s, &fin).unwrap(),
        ClusterFinishStep::DeleteInstance(old1.as_str().into())
    );
    fin.instances.iter_mut().find(|(n, _)| n == old1.as_str()).unwrap().1 = "deleting".into();
    assert_eq!(next_cluster_finish_step(&s, &fin).unwrap(), ClusterFinishStep::Cluster(FinishStep::Wait));
    fin.instances.retain(|(n, _)| !n.ends_with("-old"));
    assert_eq!(
        next_cluster_finish_step(&s, &fin).unwrap(),
        ClusterFinishStep::Cluster(FinishStep::DeleteOld)
    );
    fin.clusters.old = None;
    assert_eq!(next_cluster_finish_step(&s, &fin).unwrap(), ClusterFinishStep::Cluster(FinishStep::Done));
}

fn snap(name: &str, created: Option<&str>, status: &str) -> CacheSnapshot {
    CacheSnapshot {
        name: name.into(),
        created: created.map(str::to_owned),
        status: status.into(),
        source: "automated".into(),
    }
}

#[test]
fn a_cache_is_restored_from_the_snapshot_named_or_the_latest_before_the_time() {
    let p = aurora("production");
    let t = cache_target(&p, "sessions", false).unwrap();
    assert_eq!(t.copy, "acme-shop-production-sessions-restored");
    assert_eq!((t.node_type.as_str(), t.nodes), ("cache.m7g.large", 2));
    let snaps = [
        snap("a", Some("2026-12-04T05:10:00Z"), "available"),
        snap("b", Some("2026-12-05T05:10:00Z"), "available"),
        snap("c", Some("2026-12-06T05:10:00Z"), "creating"),
        snap("manual", None, "available"),
    ];
    let at = |time: &str| {
        pick_snapshot(&t, &snaps, &SnapshotChoice::AtOrBefore(time.into())).map(|s| s.name.clone())
    };
    assert_eq!(at("2026-12-06T09:30:00Z").unwrap(), "b", "the creating one is skipped");
    assert_eq!(at("2026-12-04T23:00:00Z").unwrap(), "a");
    assert!(matches!(at("2026-12-01T00:00:00Z"), Err(SnapshotRefusal::NoneBefore { .. })));
    let named = |n: &str| pick_snapshot(&t, &snaps, &SnapshotChoice::Named(n.into())).map(|s| s.name.clone());
    assert_eq!(named("manual").unwrap(), "manual");
    assert!(matches!(named("c"), Err(SnapshotRefusal::NotAvailable { .. })));
    assert!(matches!(named("zzz"), Err(SnapshotRefusal::NoSuchSnapshot { .. })));
    // Two nodes, each partial hour billed whole: 61 minutes are two hours of two nodes.
    let hour = cache_copy_cost(&p, &Catalogue::builtin(), &t, 60).unwrap();
    assert_eq!(
        cache_copy_cost(&p, &Catalogue::builtin(), &t, 3_660).unwrap(),
        Money(hour.0 * rust_decimal::Decimal::from(2))
    );
}
