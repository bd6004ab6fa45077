//! Property tests over generated runways (`proptest1` strategies).
#![cfg(feature = "proptest1")]
#![allow(clippy::unwrap_used)] // reason: tests

use std::collections::BTreeSet;

use cost::Catalogue;
use proptest::prelude::*;
use runtime_plan::plan::*;
use runtime_plan::strategy::product;
use runtime_plan::*;
use runway_schema::{Kind, Product};

fn config() -> ProptestConfig {
    ProptestConfig { cases: 64, ..ProptestConfig::default() }
}

fn plans(p: &Product, c: &Catalogue) -> Vec<Plan> {
    p.root.environments.keys().map(|e| plan(p, e, c).unwrap()).collect()
}

fn bigger(size: &str) -> Option<&'static str> {
    match size {
        "small" => Some("medium"),
        "medium" => Some("large"),
        _ => None,
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn plans_are_consistent(p in product()) {
        let c = Catalogue::builtin();
        for plan in plans(&p, &c) {
            let lines: runway_schema::Money = plan.cost.lines.iter().map(|l| l.line.monthly).sum();
            prop_assert_eq!(lines, plan.cost.monthly);
            prop_assert!(plan.cost.ceiling >= plan.cost.monthly);
            // Ids unique, references resolve, physical names unique and within their limits.
            let ids: BTreeSet<&str> = plan.items.iter().map(|i| i.id.as_str()).collect();
            prop_assert_eq!(ids.len(), plan.items.len());
            let names: BTreeSet<&str> = plan.items.iter().map(|i| i.physical_name.as_str()).collect();
            prop_assert_eq!(names.len(), plan.items.len(), "duplicate physical names");
            for i in &plan.items {
                for d in &i.depends_on {
                    prop_assert!(ids.contains(d.as_str()), "{} depends on missing {}", i.id, d);
                }
                if let Some(l) = runtime_plan::naming::limit(i.kind()) {
                    prop_assert!(i.physical_name.len() <= l, "{} > {}", i.physical_name, l);
                }
                if matches!(i.kind(), ItemKind::S3Bucket | ItemKind::AlbLogBucket) {
                    prop_assert!(i.physical_name.len() >= 3);
                    prop_assert_eq!(i.physical_name.to_ascii_lowercase(), i.physical_name.clone());
                }
                if let ItemSpec::S3Bucket(bucket) = &i.spec {
                    let name_suffix = &bucket.name_suffix;
                    // The whole name, account id and region included, fits S3's 63 characters
                    // and ends as the account-regional namespace requires.
                    let full = format!("{}-123456789012{name_suffix}", i.physical_name);
                    prop_assert!(full.len() <= 63, "{} > 63", full);
                    prop_assert_eq!(name_suffix.to_string(), format!("-{}-an", plan.region));
                }
                if matches!(&i.spec, ItemSpec::SqsQueue(q) if q.fifo) || matches!(&i.spec, ItemSpec::SnsTopic(t) if t.fifo) {
                    prop_assert!(i.physical_name.ends_with(".fifo"));
                }
            }
            // Verdict follows the shown estimate; under a cap, unpriced items refuse the plan.
            match plan.cost.cap {
                Some(cap) => {
                    prop_assert_eq!(plan.cost.verdict != Verdict::Over, plan.cost.monthly.cents() <= cap);
                    if plan.cost.verdict != Verdict::Over {
                        prop_assert_eq!(
                            plan.cost.verdict == Verdict::RefusedUnpriced,
                            !plan.cost.unpriced.is_empty()
                        );
                    }
                }
                None => prop_assert_eq!(plan.cost.verdict, Verdict::Uncapped),
            }
        }
    }

    #[test]
    fn data_is_encrypted_and_protected_in_production(p in product()) {
        let c = Catalogue::builtin();
        for plan in plans(&p, &c) {
            let production = plan.environment == lower::PRODUCTION;
            for i in &plan.items {
                match &i.spec {
                    ItemSpec::SqsQueue(q) => prop_assert!(q.managed_sse, "{}", i.id),
                    ItemSpec::SqsDeadLetterQueue { managed_sse, .. } => prop_assert!(*managed_sse, "{}", i.id),
                    ItemSpec::SnsTopic(t) => prop_assert_eq!(t.kms_master_key.as_str(), lower::SNS_KMS_KEY),
                    ItemSpec::S3Bucket(b) => {
                        let S3BucketSpec { encryption, tls_only, block_public_access, versioning, lifecycle, .. } = &**b;
                        prop_assert!(*tls_only && *block_public_access && encryption == lower::BUCKET_ENCRYPTION, "{}", i.id);
                        prop_assert_eq!(i.protected(), production, "{}", i.id);
                        // Unfinished uploads never linger; old versions expire exactly when versioned.
                        prop_assert_eq!(lifecycle.abort_incomplete_uploads_days, lower::ABORT_INCOMPLETE_UPLOADS_DAYS);
                        prop_assert_eq!(lifecycle.noncurrent_version_days.is_some(), *versioning, "{}", i.id);
                        prop_assert_eq!(lifecycle.expire_days, None, "{}", i.id);
                    }
                    ItemSpec::AlbLogBucket(b) => {
                        let AlbLogBucketSpec { encryption, tls_only, block_public_access, lifecycle, .. } = &**b;
                        prop_assert!(production, "access logs are production's");
                        prop_assert!(*tls_only && *block_public_access && encryption == lower::BUCKET_ENCRYPTION, "{}", i.id);
                        prop_assert!(i.protected(), "{}", i.id);
                        prop_assert_eq!(lifecycle.expire_days, Some(lower::ALB_LOG_DAYS));
                    }
                    ItemSpec::Alb(alb) => {
                        prop_assert_eq!(alb.deletion_protection, production);
                        prop_assert_eq!(alb.access_logs.is_some(), production);
                        prop_assert!(!i.protected(), "{}", i.id);
                    }
                    ItemSpec::RdsInstance(db) => {
                        let protection = &db.protection;
                        prop_assert!(db.storage_encrypted && !db.publicly_accessible, "{}", i.id);
                        prop_assert_eq!(protection.deletion_protection && i.protected(), production);
                        prop_assert_eq!(protection.final_snapshot.is_some(), production);
                        prop_assert!(!production || protection.backup_retention_days >= 7);
                    }
                    ItemSpec::AuroraCluster(db) => {
                        let protection = &db.protection;
                        prop_assert!(db.storage_encrypted, "{}", i.id);
                        prop_assert_eq!(protection.deletion_protection && i.protected(), production);
                        prop_assert_eq!(protection.final_snapshot.is_some(), production);
                        prop_assert!(!production || protection.backup_retention_days >= 7);
                    }
                    ItemSpec::AuroraInstance { publicly_accessible, .. } => prop_assert!(!*publicly_accessible),
                    ItemSpec::CacheReplicationGroup(cache) => {
                        prop_assert!(cache.at_rest_encryption, "{}", i.id);
                        prop_assert_eq!(cache.snapshot_retention_days > 0, production);
                    }
                    _ => prop_assert!(!i.protected(), "{}", i.id),
                }
            }
        }
    }

    /// Database and cache changes apply when the plan says: as the environment writes
    /// `applyChanges`, else at the next maintenance window in production and at the deploy
    /// elsewhere; every database, Aurora instance and cache follows the plan's setting. Every
    /// service tags its tasks and every database copies its tags to its snapshots.
    #[test]
    fn changes_apply_when_the_plan_says_and_tags_reach_tasks_and_snapshots(p in product()) {
        let c = Catalogue::builtin();
        for plan in plans(&p, &c) {
            let written = p.root.environments[plan.environment.as_str()].apply_changes;
            let default = if plan.environment == lower::PRODUCTION {
                runway_schema::ApplyChanges::MaintenanceWindow
            } else {
                runway_schema::ApplyChanges::Immediately
            };
            prop_assert_eq!(plan.apply_changes, written.unwrap_or(default));
            let now = plan.apply_changes == runway_schema::ApplyChanges::Immediately;
            for i in &plan.items {
                if let Some(applies) = i.apply_immediately() {
                    prop_assert_eq!(applies, now, "{}", i.id);
                }
                match &i.spec {
                    ItemSpec::EcsService(s) => prop_assert!(s.propagate_tags, "{}", i.id),
                    ItemSpec::RdsInstance(db) => prop_assert!(db.protection.copy_tags_to_snapshot),
                    ItemSpec::AuroraCluster(db) => prop_assert!(db.protection.copy_tags_to_snapshot),
                    _ => {}
                }
                let tags = plan.tags_of(i);
                prop_assert_eq!(&tags[..3], &[("product", plan.product.as_str()), ("environment", plan.environment.as_str()), ("resource", i.owner_name())][..]);
            }
        }
    }

    #[test]
    fn public_services_start_after_their_rule_and_http_redirects(p in product()) {
        let c = Catalogue::builtin();
        for plan in plans(&p, &c) {
            for i in &plan.items {
                match &i.spec {
                    ItemSpec::EcsService(service) => {
                        prop_assert!(service.rollback_failed_deployments && !service.wait_for_steady_state, "{}", i.id);
                        // A grace period exactly when something checks the tasks: the target
                        // group, or a container health check.
                        let task = plan.item(&service.task_definition).unwrap();
                        let ItemSpec::TaskDefinition(task) = &task.spec else { panic!("{}", i.id) };
                        let container = task.health.as_ref().is_some_and(|h| h.container_command.is_some());
                        prop_assert_eq!(
                            service.health_check_grace_period_seconds.is_some(),
                            service.target_group.is_some() || container,
                            "{}", i.id
                        );
                        // An internal workload's declared health is always a container check.
                        prop_assert!(service.target_group.is_some() || task.health.is_none() || container, "{}", i.id);
                        if let Some(tg) = &service.target_group {
                            // The rule that forwards to its target group is among its dependencies.
                            let rule = plan.items.iter().find(|r| matches!(&r.spec, ItemSpec::AlbListenerRule(rule) if rule.target_group == *tg));
                            prop_assert!(rule.is_some_and(|r| i.depends_on.contains(&r.id)), "{}", i.id);
                        }
                    }
                    ItemSpec::AlbListener(listener) if listener.protocol == "HTTP" => {
                        let redirects = matches!(listener.default_action, ListenerAction::RedirectToHttps { port: 443, .. });
                        prop_assert!(redirects, "{}", i.id);
                    }
                    _ => {}
                }
            }
            // One HTTP listener and one alias record per public host, when there is an ALB.
            let count = |k: ItemKind| plan.items.iter().filter(|i| i.kind() == k).count();
            let hosts = plan.workloads.iter().filter(|w| w.host.is_some()).count();
            prop_assert_eq!(count(ItemKind::DnsRecord), hosts);
            prop_assert_eq!(count(ItemKind::AlbListener), 2 * count(ItemKind::Alb));
        }
    }

    #[test]
    fn plan_json_is_identical_across_runs(p in product()) {
        let c = Catalogue::builtin();
        let copy = p.clone();
        for e in p.root.environments.keys() {
            let a = to_json(&plan(&p, e, &c).unwrap());
            let b = to_json(&plan(&copy, e, &Catalogue::builtin()).unwrap());
            prop_assert_eq!(a, b);
        }
    }

    #[test]
    fn raising_a_size_never_lowers_the_estimate(p in product(), pick in any::<prop::sample::Index>()) {
        let c = Catalogue::builtin();
        let env = pick.get(&p.root.environments.keys().cloned().collect::<Vec<_>>()).clone();
        let before = plan(&p, &env, &c).unwrap();
        // Raise one resource or workload size (the picked one), when it can grow.
        let mut q = p.clone();
        let n = q.root.resources.len() + q.root.workloads.len();
        prop_assume!(n > 0);
        let k = pick.index(n);
        let sizes = if k < q.root.resources.len() {
            &mut q.root.resources[k].size
        } else {
            &mut q.root.workloads[k - p.root.resources.len()].size
        };
        let current = sizes.get(&env).cloned().unwrap_or_else(|| "small".into());
        let Some(up) = bigger(&current) else { return Ok(()) };
        sizes.insert(env.clone(), up.into());
        let after = plan(&q, &env, &c).unwrap();
        // Comparable only when both are fully priced (unpriced items are never counted as $0).
        prop_assume!(before.cost.unpriced.is_empty() && after.cost.unpriced.is_empty());
        prop_assert!(after.cost.monthly >= before.cost.monthly, "{} -> {}", before.cost.monthly, after.cost.monthly);
        prop_assert!(after.cost.ceiling >= before.cost.ceiling);
    }

    #[test]
    fn removing_a_resource_removes_exactly_its_items_and_bindings(p in product(), pick in any::<prop::sample::Index>()) {
        prop_assume!(!p.root.resources.is_empty());
        let c = Catalogue::builtin();
        let name = pick.get(&p.root.resources.keys().cloned().collect::<Vec<_>>()).clone();
        let mut q = p.clone();
        q.root.resources.shift_remove(&name);
        for w in q.root.workloads.values_mut() {
            w.uses.retain(|u| *u != name);
        }
        for m in &mut q.members {
            m.uses.retain(|u| *u != name);
        }
        for e in p.root.environments.keys() {
            let before = plan(&p, e, &c).unwrap();
            let after = plan(&q, e, &c).unwrap();
            let old: BTreeSet<&str> = before.items.iter().map(|i| i.id.as_str()).collect();
            let new: BTreeSet<&str> = after.items.iter().map(|i| i.id.as_str()).collect();
            prop_assert!(new.is_subset(&old), "removing a resource added items");
            let gone: BTreeSet<&str> = old.difference(&new).copied().collect();
            let r = before.resources.iter().find(|r| r.name == name).unwrap();
            let mut expected: BTreeSet<&str> = r.items.iter().map(runtime_plan::CompactString::as_str).collect();
            // The environment's subnet group goes with the last resource that needs it.
            if !after.resources.iter().any(|r| r.kind == Kind::Postgres) && old.contains("env_db-subnets") {
                expected.insert("env_db-subnets");
            }
            if !after.resources.iter().any(|r| r.kind == Kind::Cache) && old.contains("env_cache-subnets") {
                expected.insert("env_cache-subnets");
            }
            // The members group of 5432 (6379) goes with the last postgres (cache) a member
            // uses, unless an internal workload listens on that port.
            for (port, kind) in [(5432u16, Kind::Postgres), (6379, Kind::Cache)] {
                let id = format!("env_members-{port}-sg");
                let by_members = after.resources.iter().any(|r| {
                    r.kind == kind
                        && after.bindings.iter().any(|b| b.resource == r.name && b.consumer_kind != ConsumerKind::Workload)
                });
                let internal = after
                    .workloads
                    .iter()
                    .any(|w| w.expose == runway_schema::Expose::Internal && w.port == Some(port));
                if !by_members && !internal && let Some(id) = old.get(id.as_str()) {
                    expected.insert(id);
                }
            }
            // A workload's task role goes with the last queue, topic or bucket it uses.
            let granting = |k: Kind| matches!(k, Kind::Queue | Kind::Topic | Kind::Bucket);
            for w in after.workloads.iter() {
                let role = format!("{}_task-role", w.name);
                let grants = w.uses.iter().any(|u| after.resources.iter().any(|r| r.name == *u && granting(r.kind)));
                // ECS Exec's channels keep a role of its own.
                let exec = q.root.workloads[w.name.as_str()].exec;
                if !grants && !exec && let Some(id) = old.get(role.as_str()) {
                    expected.insert(id);
                }
            }
            // An endpoint goes with the last thing that calls its service: Secrets Manager's
            // with the last postgres, SQS's (SNS's) with the last queue (topic) a workload
            // uses; the endpoints' groups with the last interface endpoint.
            let used_by_workloads = |k: Kind| after.resources.iter().any(|r| {
                r.kind == k && after.bindings.iter().any(|b| b.resource == r.name && b.consumer_kind == ConsumerKind::Workload)
            });
            // Tasks: the workloads' and the databases' bootstraps.
            let tasks = !after.workloads.is_empty() || after.resources.iter().any(|r| r.kind == Kind::Postgres);
            let needed = [
                // The cluster runs the tasks; the endpoints of what starting one calls go with
                // the last task.
                ("env_ecs-cluster", tasks),
                ("env_ssm-endpoint", tasks),
                ("env_ecr-api-endpoint", tasks),
                ("env_ecr-dkr-endpoint", tasks),
                ("env_logs-endpoint", tasks),
                ("env_s3-endpoint", tasks),
                ("env_secretsmanager-endpoint", after.resources.iter().any(|r| r.kind == Kind::Postgres)),
                ("env_sqs-endpoint", used_by_workloads(Kind::Queue)),
                ("env_sns-endpoint", used_by_workloads(Kind::Topic)),
                // The environment's key goes with the last thing it encrypts (the alerts topic
                // too, issue 39).
                (
                    "env_kms-key",
                    !after.secrets.ssm_parameters.is_empty()
                        || after.items.iter().any(|i| {
                            matches!(i.kind(), ItemKind::ProxySecret | ItemKind::RegistrySecret | ItemKind::AlertTopic)
                        }),
                ),
            ];
            let interfaces = after.items.iter().any(|i| matches!(&i.spec, ItemSpec::VpcEndpoint { zones: Some(_), .. }));
            let groups = [("env_endpoints-sg", interfaces)];
            for (id, needed) in needed.into_iter().chain(groups) {
                if !needed && let Some(id) = old.get(id) {
                    expected.insert(id);
                }
            }
            // The alerts topic goes with the last alarm and the cluster's event rule.
            let alerting = after.items.iter().any(|i| matches!(i.kind(), ItemKind::MetricAlarm | ItemKind::EcsEventRule));
            if !alerting && let Some(id) = old.get("env_alerts") {
                expected.insert(id);
            }
            prop_assert_eq!(gone, expected);
            let kept: Vec<&Binding> = before.bindings.iter().filter(|b| b.resource != name).collect();
            prop_assert_eq!(kept, after.bindings.iter().collect::<Vec<_>>());
            prop_assert!(after.secrets.ssm_parameters.iter().all(|s| s.owner != name));
            prop_assert!(after.secrets.generated.iter().all(|g| g.resource != name));
        }
    }
}
