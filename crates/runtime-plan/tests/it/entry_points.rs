//! `entryPoint` (issue 39) in the plan: a workload's reaches its service's task definition and,
//! unless its `migrate` sets its own, the migrate task's; each runs its command as declared, and
//! a migration's record follows what it runs.
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: test helpers fail loudly

use crate::common;

use compact_str::CompactString;
use cost::Catalogue;
use runtime_plan::{ItemSpec, plan};

/// `entryPoint` (issue 39): the workload's goes to the service's task definition and, when its
/// `migrate` sets none, to the migrate task's (the same image, so the same start); a migrate's
/// own replaces it there only. Each task definition keeps the command as declared, and the
/// migration's record follows the entry point, so a new one runs the migration again.
#[test]
fn entry_points_reach_the_task_definitions_and_a_migrate_inherits_the_workloads() {
    let words = |w: &[&str]| w.iter().map(|w| (*w).to_owned()).collect::<Vec<String>>();
    let compact = |w: &[&str]| w.iter().map(|w| CompactString::from(*w)).collect::<Vec<_>>();
    let defs = |product: &runway_schema::Product| {
        let p = plan(product, "dev", &Catalogue::builtin()).unwrap();
        let def = |id: &str| match &p.item(id).unwrap().spec {
            ItemSpec::TaskDefinition(d) => (d.entry_point.clone(), d.command.clone()),
            _ => panic!("{id} is a task definition"),
        };
        let task = p.tasks.iter().find(|t| t.name == "migrate-metabase").unwrap();
        (def("metabase_task"), def("metabase_migrate-task"), task.record.command.clone())
    };
    let shipped = common::shipped_example();
    let (_, _, before) = defs(&shipped);

    let mut inherits = shipped.clone();
    let metabase = inherits.root.workloads.get_mut("metabase").unwrap();
    metabase.entry_point = Some(words(&["/sbin/tini", "--", "/app/run_metabase.sh"]));
    let (service, migrate, record) = defs(&inherits);
    let tini = compact(&["/sbin/tini", "--", "/app/run_metabase.sh"]);
    assert_eq!(service, (Some(tini.clone()), None), "the service runs the entry point alone");
    assert_eq!(migrate, (Some(tini.clone()), Some(compact(&["migrate up"]))), "inherited");
    assert_eq!(record, runtime_plan::run_fingerprint(Some(&tini), &compact(&["migrate up"])));
    assert_ne!(record, before, "a new entry point runs the migration again");

    let mut own = inherits.clone();
    let metabase = own.root.workloads.get_mut("metabase").unwrap();
    metabase.migrate.as_mut().unwrap().entry_point = Some(words(&["java", "-jar", "/app/metabase.jar"]));
    metabase.migrate.as_mut().unwrap().command = words(&["migrate", "up"]);
    let (service, migrate, record) = defs(&own);
    assert_eq!(service, (Some(tini), None), "the migrate's own entry point is its alone");
    let java = compact(&["java", "-jar", "/app/metabase.jar"]);
    assert_eq!(migrate, (Some(java.clone()), Some(compact(&["migrate", "up"]))));
    assert_eq!(record, runtime_plan::run_fingerprint(Some(&java), &compact(&["migrate", "up"])));

    // A migrate's own without the workload's: the service keeps the image's ENTRYPOINT.
    let mut only_migrate = own.clone();
    only_migrate.root.workloads.get_mut("metabase").unwrap().entry_point = None;
    let (service, migrate, _) = defs(&only_migrate);
    assert_eq!(service, (None, None));
    assert_eq!(migrate.0, Some(java));
}

/// The same over generated runways (`proptest1` strategies).
#[cfg(feature = "proptest1")]
mod generated {
    use compact_str::CompactString;
    use cost::Catalogue;
    use proptest::prelude::*;
    use runtime_plan::strategy::product;
    use runtime_plan::{ItemSpec, PlannedItem, plan};

    /// A task definition's words as the file writes them.
    pub fn words(words: Option<&[CompactString]>) -> Option<Vec<String>> {
        words.map(|w| w.iter().map(ToString::to_string).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

        /// Over generated runways (some workloads with an entry point, some migrations with their
        /// own): every service's task definition runs its workload's entry point and the image's
        /// command; every migrate task definition its command, with its own entry point else the
        /// workload's; every migration's record is the fingerprint of both.
        #[test]
        fn every_task_definition_runs_what_its_workload_declares(p in product()) {
            let c = Catalogue::builtin();
            for env in p.root.environments.keys() {
                let plan = plan(&p, env, &c).unwrap();
                for w in &plan.workloads {
                    let declared = &p.root.workloads[w.name.as_str()];
                    let definitions = w.items.iter().map(|id| plan.item(id).unwrap()).filter_map(|i: &PlannedItem| match &i.spec {
                        ItemSpec::TaskDefinition(d) => Some((i, d)),
                        _ => None,
                    });
                    let mut migrates = 0;
                    for (item, d) in definitions {
                        if d.command.is_none() {
                            prop_assert_eq!(words(d.entry_point.as_deref()), declared.entry_point.clone());
                            continue;
                        }
                        migrates += 1;
                        let migrate = declared.migrate.as_ref().unwrap();
                        prop_assert_eq!(words(d.command.as_deref()), Some(migrate.command.clone()));
                        prop_assert_eq!(
                            words(d.entry_point.as_deref()),
                            declared.migrate_entry_point().map(<[String]>::to_vec)
                        );
                        let task = plan.tasks.iter().find(|t| t.task_definition == item.id).unwrap();
                        prop_assert_eq!(
                            &task.record.command,
                            &runtime_plan::run_fingerprint(d.entry_point.as_deref(), d.command.as_deref().unwrap())
                        );
                    }
                    prop_assert_eq!(migrates, usize::from(declared.migrate.is_some()), "{}", w.name);
                }
            }
        }
    }
}
