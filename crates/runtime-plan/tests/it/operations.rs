//! The decisions of `runway drift` and `runway teardown` over the shipped example, pure: what
//! differs and what it costs, what is deleted and kept, and who may tear down.

use crate::common;

use cost::Catalogue;
use runtime_plan::drift::{LiveDatabase, LiveService, ObservedParameter, TaggedResource};
use runtime_plan::plan::*;
use runtime_plan::teardown::{Holdings, Refusal};
use runtime_plan::*;
use runway_schema::{Money, Teardown};

fn env(name: &str) -> Plan {
    plan(&common::shipped_example(), name, &Catalogue::builtin()).unwrap()
}

fn usd(text: &str) -> Money {
    Money(text.parse().unwrap())
}

/// What `pulumi up` leaves of the compared kinds, at the plan's sizes.
fn as_deployed(plan: &Plan) -> Observed {
    let mut o = Observed::default();
    for item in &plan.items {
        match &item.spec {
            ItemSpec::RdsInstance(spec) => o.databases.push(LiveDatabase {
                identifier: item.physical_name.clone(),
                instance_class: spec.size.instance_class.as_str().into(),
                engine: "postgres".into(),
                multi_az: spec.size.multi_az,
            }),
            ItemSpec::CacheReplicationGroup(spec) => o.caches.push(runtime_plan::drift::LiveCache {
                id: item.physical_name.clone(),
                node_type: spec.size.node_type.as_str().into(),
                nodes: spec.size.nodes,
            }),
            ItemSpec::EcsService(spec) => o
                .services
                .push(LiveService { name: item.physical_name.clone(), desired_count: spec.desired_count }),
            _ => {}
        }
    }
    o.parameters = plan
        .secrets
        .ssm_parameters
        .iter()
        .map(|p| ObservedParameter { name: (&*p.name).into(), advanced: false })
        .collect();
    o
}

#[test]
fn an_account_as_deployed_has_no_drift() {
    let dev = env("dev");
    let report = drift(&dev, &Catalogue::builtin(), &as_deployed(&dev));
    assert!(!report.drifted(), "{:#?}", report.findings);
    assert_eq!(report.estimate, report.drifted);
    assert!(!report.over_cap);
}

#[test]
fn each_difference_is_priced_and_the_cap_judged_with_them() {
    let dev = env("dev");
    let mut live = as_deployed(&dev);
    // Multi-AZ turned on by hand: the instance-hours double.
    live.databases[0].multi_az = true;
    // A parameter of runway's own records, and one nobody planned.
    live.parameters
        .push(ObservedParameter { name: "/acme-shop/dev/runway/deploy/lease".into(), advanced: false });
    live.parameters.push(ObservedParameter { name: "/acme-shop/dev/x/DEBUG".into(), advanced: true });
    // A tagged secret of no item, a tagged item (known by its tag).
    live.tagged.push(TaggedResource {
        arn: "arn:aws:secretsmanager:us-east-1:1:secret:acme-shop/dev/hand-made-AbCdEf".into(),
        resource_tag: Some("main-db".into()),
        item_tag: None,
    });
    let db = dev.items.iter().find(|i| matches!(i.spec, ItemSpec::RdsInstance(_))).unwrap();
    live.tagged.push(TaggedResource {
        arn: format!("arn:aws:rds:us-east-1:1:db:{}", db.physical_name).into(),
        resource_tag: Some("main-db".into()),
        item_tag: Some(db.id.clone()),
    });
    // A service gone.
    let gone = live.services.remove(0);
    let report = drift(&dev, &Catalogue::builtin(), &live);
    let kinds: Vec<(&str, &str)> =
        report.findings.iter().map(|f| (f.kind.words(), f.subject.as_str())).collect();
    assert_eq!(kinds.len(), 4, "{kinds:?}");
    let multi = report.findings.iter().find(|f| f.subject == db.id).unwrap();
    // One more db.t4g.micro month: 0.016 x 730.
    assert_eq!(multi.monthly, Some(usd("11.68")));
    assert_eq!(multi.live.as_deref(), Some("db.t4g.micro Multi-AZ"));
    let missing = report.findings.iter().find(|f| f.kind == runtime_plan::drift::DriftKind::Missing).unwrap();
    let service = dev.items.iter().find(|i| i.physical_name == gone.name).unwrap();
    assert_eq!(missing.monthly, service.monthly.map(|m| Money(-m.0)));
    let secret = report.findings.iter().find(|f| f.subject.contains("hand-made")).unwrap();
    assert_eq!(secret.monthly, Some(usd("0.40")));
    let stray = report.findings.iter().find(|f| f.subject == "/acme-shop/dev/x/DEBUG").unwrap();
    assert_eq!(stray.monthly, None, "the advanced tier is not in the catalogue");
    assert_eq!(report.unpriced, 1);
    let sum: Money = report.findings.iter().filter_map(|f| f.monthly).sum();
    assert_eq!(report.drifted, report.estimate + sum);
}

#[test]
fn production_is_torn_down_only_when_allowed_and_named() {
    let production = env("production");
    let none = Holdings::default();
    let refused = teardown(&production, None, Some("production"), &none);
    assert_eq!(refused.setting, Teardown::Refused);
    assert_eq!(refused.refusal, Some(Refusal::NotAllowed));
    let unnamed = teardown(&production, Some(Teardown::Allowed), None, &none);
    assert_eq!(unnamed.refusal, Some(Refusal::NotConfirmed));
    let wrong = teardown(&production, Some(Teardown::Allowed), Some("dev"), &none);
    assert_eq!(wrong.refusal, Some(Refusal::WrongName { given: "dev".into() }));
    let allowed = teardown(&production, Some(Teardown::Allowed), Some("production"), &none);
    assert_eq!(allowed.refusal, None);
    // Elsewhere allowed by default, the name still asked; a runway may refuse it.
    let dev = env("dev");
    assert_eq!(teardown(&dev, None, Some("dev"), &none).refusal, None);
    assert_eq!(
        teardown(&dev, Some(Teardown::Refused), Some("dev"), &none).refusal,
        Some(Refusal::NotAllowed)
    );
}

#[test]
fn a_teardown_keeps_the_final_snapshot_the_bucket_and_the_key_and_prices_them() {
    let production = env("production");
    let t = teardown(&production, Some(Teardown::Allowed), Some("production"), &Holdings::default());
    let what: Vec<&str> = t.kept.iter().map(|k| k.what.as_str()).collect();
    assert_eq!(what, ["final snapshot", "bucket", "KMS key"], "{:#?}", t.kept);
    let bucket = production.items.iter().find(|i| matches!(i.spec, ItemSpec::S3Bucket { .. })).unwrap();
    assert!(t.deleted.iter().all(|d| d.subject != bucket.id), "the bucket is kept, not deleted");
    assert_eq!(t.kept[1].monthly, bucket.monthly);
    assert_eq!(t.kept[2].monthly, Some(Money::default()));
    assert_eq!(t.kept_monthly, bucket.monthly.unwrap());
    assert_eq!(t.unpriced, 1);
    let db = production.items.iter().find(|i| matches!(i.spec, ItemSpec::RdsInstance(_))).unwrap();
    assert!(t.deleted.iter().any(|d| d.subject == db.id));
    // An unplanned tagged resource is listed among the deleted; a parameter is not (last).
    let holdings = Holdings {
        tagged: vec![
            TaggedResource {
                arn: "arn:aws:sqs:us-east-1:1:stray".into(),
                resource_tag: None,
                item_tag: None,
            },
            TaggedResource {
                arn: "arn:aws:ssm:us-east-1:1:parameter/acme-shop/production/x".into(),
                resource_tag: None,
                item_tag: None,
            },
        ],
    };
    let t = teardown(&production, Some(Teardown::Allowed), Some("production"), &holdings);
    assert!(t.deleted.iter().any(|d| d.subject == "arn:aws:sqs:us-east-1:1:stray"));
    assert!(t.deleted.iter().all(|d| !d.subject.contains(":parameter/")));
    assert_eq!(t.parameter_prefix, "/acme-shop/production");
}

/// A small account for the switch: the three names and the proxy's targets, each step applied
/// as AWS would (renames and status at once).
#[derive(Clone, Debug)]
struct Account {
    seen: runtime_plan::switch::SwitchSeen,
    restarts: usize,
}

impl Account {
    fn apply(&mut self, s: &runtime_plan::switch::Switch, step: &runtime_plan::switch::SwitchStep) {
        use runtime_plan::switch::SwitchStep as S;
        let seen = &mut self.seen;
        match step {
            S::Wait(_) | S::Done => {}
            S::DeregisterLive => seen.targets.retain(|t| t != s.source.as_str()),
            S::RenameLiveToOld => seen.old = seen.source.take(),
            S::RenameCopyToLive => seen.source = seen.copy.take(),
            S::ProtectCopy => seen.source.as_mut().unwrap().protected = true,
            S::RegisterCopy => seen.targets.push(s.source.to_string()),
            S::RestartReaders => {
                self.restarts += 1;
                seen.source.as_mut().unwrap().switched = true;
            }
        }
    }
}

#[test]
fn a_switch_killed_after_any_step_finishes_when_run_again_and_finish_waits_for_it() {
    use runtime_plan::switch::{
        FinishStep, SeenInstance, SwitchRefusal, SwitchSeen, SwitchStep, next_finish_step, next_switch_step,
        switch_of,
    };
    let plan = env("production");
    let s = switch_of(&plan, "main-db").unwrap();
    assert_eq!(s.old, format!("{}-old", s.source));
    // Exactly the readers: the services whose task definitions read main-db's parameters.
    let readers: Vec<&str> = s.readers.iter().map(|r| r.workload.as_str()).collect();
    assert_eq!(readers, ["metabase"]);
    assert!(
        s.endpoint_variables.iter().all(|v| v.parameter.ends_with("_HOST") || v.parameter.ends_with("_URL"))
    );
    assert!(s.endpoint_variables.len() >= 2, "{:?}", s.endpoint_variables);
    let available = |restored_copy: bool| SeenInstance {
        status: "available".into(),
        protected: !restored_copy,
        restored_copy,
        switched: false,
    };
    let start = Account {
        seen: SwitchSeen {
            source: Some(available(false)),
            copy: Some(available(true)),
            old: None,
            targets: vec![s.source.to_string()],
        },
        restarts: 0,
    };
    // The whole switch, step by step; a finish before its end is refused.
    let mut account = start.clone();
    let mut steps = Vec::new();
    loop {
        let step = next_switch_step(&s, &account.seen).unwrap();
        if step == SwitchStep::Done {
            break;
        }
        assert!(
            matches!(next_finish_step(&s, &account.seen), Err(SwitchRefusal::NotSwitched { .. })),
            "finish refused before the switch is done ({step:?})"
        );
        account.apply(&s, &step);
        steps.push(step);
        assert!(steps.len() < 10, "{steps:?}");
    }
    assert_eq!(
        steps,
        [
            SwitchStep::DeregisterLive,
            SwitchStep::RenameLiveToOld,
            SwitchStep::RenameCopyToLive,
            SwitchStep::ProtectCopy,
            SwitchStep::RegisterCopy,
            SwitchStep::RestartReaders
        ]
    );
    assert_eq!(account.restarts, 1);
    // Killed after each step: the state the account holds leads, from there, to the same end.
    for kill in 0..steps.len() {
        let mut resumed = start.clone();
        for step in &steps[..=kill] {
            resumed.apply(&s, step);
        }
        while let Ok(step) = next_switch_step(&s, &resumed.seen) {
            if step == SwitchStep::Done {
                break;
            }
            resumed.apply(&s, &step);
        }
        assert_eq!(resumed.seen, account.seen, "killed after {:?}", steps[kill]);
        assert_eq!(resumed.restarts, 1);
    }
    // Finish: only now, unprotecting then deleting the old instance.
    assert_eq!(next_finish_step(&s, &account.seen), Ok(FinishStep::UnprotectOld));
    account.seen.old.as_mut().unwrap().protected = false;
    assert_eq!(next_finish_step(&s, &account.seen), Ok(FinishStep::DeleteOld));
    account.seen.old = None;
    assert_eq!(next_finish_step(&s, &account.seen), Ok(FinishStep::Done));
    // No copy, or an old instance of a switch before: refused.
    let mut none = start.clone();
    none.seen.copy = None;
    assert!(matches!(next_switch_step(&s, &none.seen), Err(SwitchRefusal::NoCopy { .. })));
    let mut stale = start;
    stale.seen.old = Some(available(false));
    assert!(matches!(next_switch_step(&s, &stale.seen), Err(SwitchRefusal::OldExists { .. })));
    // A copy still restoring is waited for, the live instance not touched.
    let restoring = SwitchSeen {
        copy: Some(SeenInstance { status: "creating".into(), ..available(true) }),
        ..account_before_restore(&s)
    };
    assert_eq!(next_switch_step(&s, &restoring), Ok(SwitchStep::Wait(s.copy.clone())));
}

/// The live instance alone, the proxy's target.
fn account_before_restore(s: &runtime_plan::switch::Switch) -> runtime_plan::switch::SwitchSeen {
    runtime_plan::switch::SwitchSeen {
        source: Some(runtime_plan::switch::SeenInstance {
            status: "available".into(),
            protected: true,
            ..Default::default()
        }),
        copy: None,
        old: None,
        targets: vec![s.source.to_string()],
    }
}
