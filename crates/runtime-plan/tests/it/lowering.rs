//! Lowering of the spec's example (built in code), checked item by item against the catalogue.
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: tests

use crate::common;

use cost::Catalogue;
use runtime_plan::plan::*;
use runtime_plan::*;
use runway_schema::{Code, Expose, Kind, Money, PostgresEngine};

fn cat() -> Catalogue {
    Catalogue::builtin()
}

fn kinds_of(p: &Plan, owner: Option<&str>) -> Vec<ItemKind> {
    p.items.iter().filter(|i| i.owner.as_deref() == owner).map(|i| i.kind()).collect()
}

/// The alarms of an owner, by name (`db-cpu`, `cache-cpu 1` for a cache's node).
fn alarms_of(p: &Plan, owner: Option<&str>) -> Vec<String> {
    (p.items.iter().filter(|i| i.owner.as_deref() == owner))
        .filter_map(|i| match &i.spec {
            ItemSpec::MetricAlarm { alarm, node: None, .. } => Some(alarm.as_str().to_owned()),
            ItemSpec::MetricAlarm { alarm, node: Some(n), .. } => Some(format!("{} {n}", alarm.as_str())),
            _ => None,
        })
        .collect()
}

#[test]
fn production_declares_every_item_of_the_example() {
    let p = plan(&common::example(), "production", &cat()).unwrap();
    use ItemKind::*;
    assert_eq!(
        kinds_of(&p, None),
        [
            EcsCluster,
            CloudMapNamespace,
            // The workloads' group, the members' groups of 3000 (metabase) and 6379, the ALB's.
            SecurityGroup,
            SecurityGroup,
            SecurityGroup,
            // The VPC's charges (its NAT gateways), not declared.
            Vpc,
            SecurityGroup,
            // Production: the ALB's access logs, before the ALB.
            AlbLogBucket,
            Alb,
            AlbListener,
            AlbListener,
            DbSubnetGroup,
            CacheSubnetGroup,
            // The environment's own key (`secrets.ssm.kmsKey` left out), after the roles it names.
            KmsKey,
            // Production has alarms: the alerts topic, the ALB's alarm, the ECS event rule.
            AlertTopic,
            MetricAlarm,
            EcsEventRule
        ]
    );
    assert_eq!(
        kinds_of(&p, Some("main-db")),
        [
            RdsInstance,
            ProxySecret,
            // Metabase's login's: the proxy authenticates each consumer's role with its own.
            ProxySecret,
            ProxyRole,
            RdsProxy,
            RdsProxyTargetGroup,
            RdsProxyTarget,
            SecurityGroup,
            SecurityGroup,
            // The bootstrap of its roles: a one-off task with its own logs, role and group.
            LogGroup,
            TaskExecutionRole,
            SecurityGroup,
            TaskDefinition,
            // The instance's four alarms and the proxy's.
            MetricAlarm,
            MetricAlarm,
            MetricAlarm,
            MetricAlarm,
            MetricAlarm
        ]
    );
    assert_eq!(kinds_of(&p, Some("jobs")), [SqsQueue, SqsDeadLetterQueue, MetricAlarm, MetricAlarm]);
    assert_eq!(kinds_of(&p, Some("events")), [SnsTopic]);
    assert_eq!(kinds_of(&p, Some("uploads")), [S3Bucket]);
    assert_eq!(kinds_of(&p, Some("shared-queue")), [SqsQueue, MetricAlarm]);
    for cache in ["sessions", "shared-cache"] {
        let mut kinds = vec![CacheReplicationGroup, SecurityGroup];
        // Three alarms per node: the example's small cache has one node.
        let nodes = alarms_of(&p, Some(cache)).len() / 3;
        kinds.extend(std::iter::repeat_n(MetricAlarm, 3 * nodes));
        assert_eq!(kinds_of(&p, Some(cache)), kinds, "{cache}");
        assert!(nodes >= 1, "{cache}");
    }
    assert_eq!(alarms_of(&p, None), ["alb-5xx"]);
    assert_eq!(
        alarms_of(&p, Some("main-db")),
        ["db-cpu", "db-free-storage", "db-freeable-memory", "db-connections", "proxy-borrow-latency"]
    );
    assert_eq!(alarms_of(&p, Some("jobs")), ["queue-age", "dead-letters"]);
    assert_eq!(
        kinds_of(&p, Some("metabase")),
        [
            LogGroup,
            // No task role: it uses only main-db, which IAM does not guard.
            TaskExecutionRole,
            TaskDefinition,
            CloudMapService,
            SecurityGroup,
            EcsService,
            ScalingTarget,
            ScalingPolicy,
            // Every service's CPU and memory alarms, internal ones too.
            MetricAlarm,
            MetricAlarm
        ]
    );
    assert_eq!(alarms_of(&p, Some("metabase")), ["service-cpu", "service-memory"]);
    assert_eq!(
        kinds_of(&p, Some("shop")),
        [
            LogGroup,
            TaskExecutionRole,
            TaskRole,
            TaskDefinition,
            AlbTargetGroup,
            AlbListenerRule,
            DnsRecord,
            SecurityGroup,
            EcsService,
            // A public workload's four alarms, then its service's two.
            MetricAlarm,
            MetricAlarm,
            MetricAlarm,
            MetricAlarm,
            MetricAlarm,
            MetricAlarm
        ]
    );
    assert_eq!(
        alarms_of(&p, Some("shop")),
        [
            "target-5xx",
            "unhealthy-targets",
            "target-latency",
            "running-tasks",
            "service-cpu",
            "service-memory"
        ]
    );
    // Its deployment alarm: its own 5xx (unhealthy targets page only: a booting target is
    // unhealthy to the ALB whatever the grace); an internal workload has none.
    let ItemSpec::EcsService(shop) = &p.item("shop_service").unwrap().spec else { panic!() };
    assert_eq!(shop.deployment_alarms, ["shop_alarm-target-5xx"]);
    let ItemSpec::EcsService(metabase) = &p.item("metabase_service").unwrap().spec else { panic!() };
    assert!(metabase.deployment_alarms.is_empty());
    // Every item belongs to a planned resource or workload, or to the environment.
    let owned: usize = p.resources.iter().map(|r| r.items.len()).sum::<usize>()
        + p.workloads.iter().map(|w| w.items.len()).sum::<usize>();
    assert_eq!(owned + kinds_of(&p, None).len(), p.items.len());
}

#[test]
fn sizes_come_from_the_catalogue() {
    let c = cat();
    let p = plan(&common::example(), "production", &c).unwrap();
    let ItemSpec::RdsInstance(spec) = &p.item("main-db_db").unwrap().spec else {
        panic!("main-db_db is not an RDS instance")
    };
    let RdsInstanceSpec { size, engine_version, admin_secret, .. } = &**spec;
    assert_eq!(*size, c.postgres(PostgresEngine::Rds, "large").unwrap());
    assert_eq!(engine_version, "16");
    assert_eq!(admin_secret, "main-db_proxy-secret");
    let ItemSpec::TaskDefinition(spec) = &p.item("metabase_task").unwrap().spec else {
        panic!("metabase_task is not a task definition")
    };
    let TaskDefinitionSpec { task, cpu_architecture, secrets, .. } = &**spec;
    assert_eq!(*task, c.task("medium").unwrap());
    assert_eq!(cpu_architecture, "ARM64");
    assert_eq!(&*secrets.first().unwrap().parameter, "/acme-shop/production/main-db/metabase/MAIN_DB_URL");
    assert_eq!(
        &*secrets.last().unwrap().parameter,
        "/acme-shop/production/metabase/MB_ENCRYPTION_SECRET_KEY"
    );
    let ItemSpec::CacheReplicationGroup(spec) = &p.item("sessions_cache").unwrap().spec else { panic!() };
    let CacheReplicationGroupSpec { size, engine, .. } = &**spec;
    assert_eq!(*size, c.cache("small").unwrap());
    assert_eq!(engine, "valkey");
}

#[test]
fn services_scale_from_min_to_max() {
    let p = plan(&common::example(), "production", &cat()).unwrap();
    let ItemSpec::EcsService(spec) = &p.item("metabase_service").unwrap().spec else { panic!() };
    let EcsServiceSpec { desired_count, discovery_service, target_group, .. } = &**spec;
    assert_eq!(
        (*desired_count, discovery_service.as_deref(), target_group.as_deref()),
        (2, Some("metabase_discovery"), None)
    );
    let ItemSpec::ScalingTarget(target) = &p.item("metabase_scaling-target").unwrap().spec else { panic!() };
    assert_eq!((target.min_capacity, target.max_capacity), (2, 4));
    // min == max: no autoscaling items.
    assert!(p.item("shop_scaling-target").is_none());
    let w = p.workloads.iter().find(|w| w.name == "metabase").unwrap();
    assert!(w.ceiling.unwrap() > w.monthly.unwrap());
}

#[test]
fn public_and_internal_names() {
    let p = plan(&common::example(), "production", &cat()).unwrap();
    let ItemSpec::AlbListenerRule(rule) = &p.item("shop_listener-rule").unwrap().spec else { panic!() };
    assert_eq!((rule.host.as_str(), rule.priority), ("shop.acme.example", 1));
    assert_eq!(p.item("env_namespace").unwrap().physical_name, "production.acme-shop.internal");
    let w = p.workloads.iter().find(|w| w.name == "metabase").unwrap();
    assert_eq!(w.dns_name.as_deref(), Some("metabase.production.acme-shop.internal"));
    assert_eq!(p.item("main-db_db").unwrap().physical_name, "acme-shop-production-main-db");
}

#[test]
fn the_alb_redirects_http_to_https_and_drops_invalid_headers() {
    let p = plan(&common::example(), "dev", &cat()).unwrap();
    let ItemSpec::Alb(alb) = &p.item("env_alb").unwrap().spec else { panic!() };
    assert!(alb.drop_invalid_header_fields);
    let ItemSpec::AlbListener(spec) = &p.item("env_alb-http-listener").unwrap().spec else { panic!() };
    let AlbListenerSpec { alb, port, protocol, ssl_policy, default_action } = &**spec;
    assert_eq!((alb.as_str(), *port, protocol.as_str(), ssl_policy), ("env_alb", 80, "HTTP", &None));
    assert_eq!(
        default_action,
        &ListenerAction::RedirectToHttps { port: 443, status_code: "HTTP_301".into() }
    );
    let ItemSpec::AlbListener(spec) = &p.item("env_alb-listener").unwrap().spec else { panic!() };
    let AlbListenerSpec { port, protocol, ssl_policy, default_action, .. } = &**spec;
    assert_eq!((*port, protocol.as_str(), default_action), (443, "HTTPS", &ListenerAction::NotFound));
    assert!(ssl_policy.as_deref().unwrap().starts_with("ELBSecurityPolicy-TLS13"));
    // Free: the ALB's price covers its listeners.
    assert_eq!(p.item("env_alb-http-listener").unwrap().monthly, Some(Money::ZERO));
}

#[test]
fn services_roll_back_leave_the_wait_to_rollout_and_start_after_their_listener_rule() {
    let p = plan(&common::example(), "production", &cat()).unwrap();
    let shop = p.item("shop_service").unwrap();
    let ItemSpec::EcsService(spec) = &shop.spec else { panic!() };
    let EcsServiceSpec {
        rollback_failed_deployments,
        health_check_grace_period_seconds,
        wait_for_steady_state,
        target_group,
        ..
    } = &**spec;
    // `runway rollout` waits: the provider's wait reports a rolled-back release as a success.
    assert!(*rollback_failed_deployments && !*wait_for_steady_state);
    assert_eq!(*health_check_grace_period_seconds, Some(lower::HEALTH_CHECK_GRACE_SECONDS));
    assert!(shop.depends_on.iter().any(|d| d == "shop_listener-rule"), "{:?}", shop.depends_on);
    assert!(shop.depends_on.contains(target_group.as_ref().unwrap()));
    // An internal service has no target group; its HTTP health check runs in the container,
    // which the grace covers too. It rolls back the same way.
    let ItemSpec::EcsService(spec) = &p.item("metabase_service").unwrap().spec else { panic!() };
    let EcsServiceSpec {
        rollback_failed_deployments,
        health_check_grace_period_seconds,
        wait_for_steady_state,
        ..
    } = &**spec;
    assert!(*rollback_failed_deployments && !*wait_for_steady_state);
    assert_eq!(*health_check_grace_period_seconds, Some(60));
    // Without `health`, nothing checks an internal service's tasks: no grace period.
    let mut product = common::example();
    product.root.workloads["metabase"].health = None;
    let p = plan(&product, "production", &cat()).unwrap();
    let ItemSpec::EcsService(spec) = &p.item("metabase_service").unwrap().spec else { panic!() };
    assert_eq!(spec.health_check_grace_period_seconds, None);
}

/// `health.grace` is the service's grace period, public or internal.
#[test]
fn the_declared_grace_is_the_services_grace_period() {
    let mut product = common::example();
    for (name, minutes) in [("metabase", 5), ("shop", 20)] {
        let health = product.root.workloads[name].health.as_mut().unwrap();
        health.grace = runway_schema::Duration::from_millis(minutes * 60_000);
    }
    let p = plan(&product, "production", &cat()).unwrap();
    for (service, seconds) in [("metabase_service", 300), ("shop_service", 1200)] {
        let ItemSpec::EcsService(spec) = &p.item(service).unwrap().spec else { panic!() };
        assert_eq!(spec.health_check_grace_period_seconds, Some(seconds), "{service}");
    }
}

/// The container health check is decided in the plan: an internal HTTP path becomes a shell
/// GET with curl, else wget (the URL quoted for the shell); a public path stays the target
/// group's; a command is kept, `CMD` put first when it names no form.
#[test]
fn health_checks_run_in_the_container_where_nothing_else_checks() {
    let health = |p: &Plan, id: &str| {
        let ItemSpec::TaskDefinition(t) = &p.item(id).unwrap().spec else { panic!() };
        t.health.clone().unwrap()
    };
    let mut product = common::example();
    let p = plan(&product, "dev", &cat()).unwrap();
    let internal = health(&p, "metabase_task").container_command.unwrap();
    assert_eq!(
        internal,
        [
            "CMD-SHELL",
            "curl -fsS -o /dev/null 'http://localhost:3000/api/health' \
             || wget -q -O /dev/null 'http://localhost:3000/api/health' || exit 1"
        ]
    );
    assert_eq!(health(&p, "shop_task").container_command, None, "the target group checks a public path");
    // A path with a quote stays one word of the shell.
    product.root.workloads["metabase"].health.as_mut().unwrap().check =
        runway_schema::HealthCheck::Http("/it's;rm".into());
    let p = plan(&product, "dev", &cat()).unwrap();
    let quoted = health(&p, "metabase_task").container_command.unwrap();
    assert!(
        quoted[1].starts_with("curl -fsS -o /dev/null 'http://localhost:3000/it'\\''s;rm' ||"),
        "{}",
        quoted[1]
    );
    // Commands, public or internal: as written, `CMD` first when no form is named.
    for (words, want) in [
        (vec!["/bin/check", "--quick"], vec!["CMD", "/bin/check", "--quick"]),
        (vec!["CMD-SHELL", "pg_isready"], vec!["CMD-SHELL", "pg_isready"]),
    ] {
        for name in ["metabase", "shop"] {
            product.root.workloads[name].health.as_mut().unwrap().check =
                runway_schema::HealthCheck::Command(words.iter().map(|w| w.to_string()).collect());
        }
        let p = plan(&product, "dev", &cat()).unwrap();
        for task in ["metabase_task", "shop_task"] {
            assert_eq!(health(&p, task).container_command.unwrap(), want, "{task}");
        }
    }
}

/// `platform: x86_64` runs the tasks on X86_64 and prices them at the x86 Fargate rates; the
/// workload's record says which.
#[test]
fn an_x86_workload_runs_and_is_priced_on_x86() {
    let mut product = common::example();
    product.root.workloads["metabase"].platform = runway_schema::Architecture::X86_64;
    let p = plan(&product, "production", &cat()).unwrap();
    let task = |id: &str| {
        let ItemSpec::TaskDefinition(t) = &p.item(id).unwrap().spec else { panic!() };
        t.cpu_architecture.to_string()
    };
    assert_eq!(task("metabase_task"), "X86_64");
    assert_eq!(task("shop_task"), "ARM64");
    let record = |name: &str| p.workloads.iter().find(|w| w.name == name).unwrap();
    assert_eq!(record("metabase").platform, runway_schema::Architecture::X86_64);
    assert_eq!(record("shop").platform, runway_schema::Architecture::Arm64);
    let keys = |item: &str| -> Vec<String> {
        p.cost.lines.iter().filter(|l| l.item == item).map(|l| l.line.key.to_string()).collect()
    };
    assert_eq!(keys("metabase_service"), ["fargate-x86-vcpu", "fargate-x86-gb"]);
    assert_eq!(keys("shop_service"), ["fargate-arm-vcpu", "fargate-arm-gb"]);
    // medium, 2 tasks at the x86 rates: 1460 x 0.04048 + 2920 x 0.004445 = 72.0802.
    assert_eq!(p.item("metabase_service").unwrap().monthly, Some(Money::parse("72.0802").unwrap()));
}

/// Registry credentials in Infisical: a registry secret of the workload (made by `secrets
/// prepare`, looked up by the program, priced as a secret), listed as a copy with its two
/// Infisical places, named by the task definition and readable by the execution role only.
#[test]
fn infisical_registry_credentials_become_the_workloads_registry_secret() {
    let mut product = common::example();
    product.root.workloads["shop"].registry_credentials =
        Some(runway_schema::RegistryCredentials::Infisical("GHCR_PULL".into()));
    let p = plan(&product, "production", &cat()).unwrap();
    let secret = p.item("shop_registry-secret").unwrap();
    assert_eq!(secret.kind(), ItemKind::RegistrySecret);
    assert_eq!(secret.managed_by, ManagedBy::SecretsAdapter);
    assert_eq!(secret.physical_name, "acme-shop/production/shop/registry-credentials");
    assert_eq!(secret.monthly, Some(Money::parse("0.40").unwrap()));
    let [copy] = &p.secrets.registry_copies[..] else { panic!("{:?}", p.secrets.registry_copies) };
    assert_eq!((copy.workload.as_str(), copy.item.as_str()), ("shop", "shop_registry-secret"));
    assert_eq!(copy.secrets_manager, secret.physical_name);
    assert_eq!(copy.username.display(), "prod:/runtime/shop");
    assert_eq!(
        (copy.username.name.as_str(), copy.password.name.as_str()),
        ("GHCR_PULL_USERNAME", "GHCR_PULL_PASSWORD")
    );
    let ItemSpec::TaskDefinition(task) = &p.item("shop_task").unwrap().spec else { panic!() };
    assert_eq!(
        task.repository_credentials,
        Some(RepositoryCredentials::Item { item: "shop_registry-secret".into() })
    );
    assert!(p.item("shop_task").unwrap().depends_on.iter().any(|d| d == "shop_registry-secret"));
    let reads = |role: &str| -> Vec<PolicyResource> {
        let ItemSpec::TaskExecutionRole { grants, .. } = &p.item(role).unwrap().spec else { panic!() };
        grants
            .iter()
            .filter(|g| g.actions == ["secretsmanager:GetSecretValue"])
            .flat_map(|g| g.resources.clone())
            .collect()
    };
    assert_eq!(reads("shop_execution-role"), [PolicyResource::Item { item: "shop_registry-secret".into() }]);
    assert_eq!(reads("metabase_execution-role"), []);
    // The workload's items and the estimate include the secret.
    let shop = p.workloads.iter().find(|w| w.name == "shop").unwrap();
    assert!(shop.items.iter().any(|i| i == "shop_registry-secret"));
}

/// An existing secret by ARN: nothing to declare, copy or price; the task definition names it
/// and the execution role may read exactly it.
#[test]
fn an_existing_registry_secret_is_named_and_granted_by_its_arn() {
    let arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:ghcr-pull-Ab12Cd";
    let mut product = common::example();
    product.root.workloads["shop"].registry_credentials =
        Some(runway_schema::RegistryCredentials::SecretArn(arn.into()));
    let p = plan(&product, "production", &cat()).unwrap();
    assert!(p.items.iter().all(|i| i.kind() != ItemKind::RegistrySecret));
    assert!(p.secrets.registry_copies.is_empty());
    let ItemSpec::TaskDefinition(task) = &p.item("shop_task").unwrap().spec else { panic!() };
    assert_eq!(task.repository_credentials, Some(RepositoryCredentials::Arn { arn: arn.into() }));
    let ItemSpec::TaskExecutionRole { grants, .. } = &p.item("shop_execution-role").unwrap().spec else {
        panic!()
    };
    let read: Vec<&Grant> =
        grants.iter().filter(|g| g.actions == ["secretsmanager:GetSecretValue"]).collect();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].resources, [PolicyResource::Arn { arn: arn.into() }]);
}

#[test]
fn each_public_host_has_an_alias_record_to_the_alb() {
    let p = plan(&common::example(), "production", &cat()).unwrap();
    let records: Vec<&PlannedItem> = p.items.iter().filter(|i| i.kind() == ItemKind::DnsRecord).collect();
    let hosts: Vec<&str> = p.workloads.iter().filter_map(|w| w.host.as_deref()).collect();
    assert_eq!(records.iter().map(|r| r.physical_name.as_str()).collect::<Vec<_>>(), hosts);
    let ItemSpec::DnsRecord(record) = &records[0].spec else { panic!() };
    let DnsRecordSpec { host, record_type, alb, evaluate_target_health, .. } = &**record;
    assert_eq!((host.as_str(), record_type.as_str(), alb.as_str()), ("shop.acme.example", "A", "env_alb"));
    assert!(*evaluate_target_health);
    assert_eq!(records[0].monthly, Some(Money::ZERO));
}

fn database_protection(p: &Plan) -> (&PlannedItem, &DatabaseProtection) {
    let db = p.item("main-db_db").unwrap();
    match &db.spec {
        ItemSpec::RdsInstance(s) if s.storage_encrypted && !s.publicly_accessible => (db, &s.protection),
        ItemSpec::AuroraCluster(s) if s.storage_encrypted => (db, &s.protection),
        other => panic!("main-db_db is not an encrypted private database: {other:?}"),
    }
}

#[test]
fn production_databases_are_protected_and_others_are_not() {
    for engine in [PostgresEngine::Rds, PostgresEngine::Aurora] {
        let mut product = common::example();
        product.root.resources["main-db"].spec =
            runway_schema::ResourceSpec::Postgres { engine, version: "16".into() };
        let prod = plan(&product, "production", &cat()).unwrap();
        let (db, protection) = database_protection(&prod);
        assert!(protection.deletion_protection && protection.protect && db.protected(), "{engine:?}");
        assert!(protection.backup_retention_days >= 7);
        let snapshot = protection.final_snapshot.as_deref().unwrap();
        assert!(snapshot.starts_with(&format!("{}-final-", db.physical_name)), "{snapshot}");
        assert!(snapshot.len() <= 255 && !snapshot.contains("--"));
        for env in ["dev", "staging"] {
            let p = plan(&product, env, &cat()).unwrap();
            let (db, protection) = database_protection(&p);
            assert!(!protection.deletion_protection && !protection.protect && !db.protected(), "{env}");
            assert_eq!((protection.backup_retention_days, &protection.final_snapshot), (1, &None));
        }
        let instances = prod.items.iter().filter_map(|i| match &i.spec {
            ItemSpec::AuroraInstance { publicly_accessible, .. } => Some(*publicly_accessible),
            _ => None,
        });
        assert!(instances.into_iter().all(|public| !public));
    }
}

#[test]
fn a_database_that_would_be_replaced_gets_a_new_final_snapshot_name() {
    let before = plan(&common::example(), "production", &cat()).unwrap();
    let mut product = common::example();
    product.root.resources["main-db"].spec =
        runway_schema::ResourceSpec::Postgres { engine: PostgresEngine::Aurora, version: "16".into() };
    let after = plan(&product, "production", &cat()).unwrap();
    let snapshot = |p: &Plan| database_protection(p).1.final_snapshot.clone().unwrap();
    assert_ne!(snapshot(&before), snapshot(&after));
    // A resize is made in place: same name.
    let mut product = common::example();
    product.root.resources["main-db"].size.insert("production".into(), "medium".into());
    assert_eq!(snapshot(&before), snapshot(&plan(&product, "production", &cat()).unwrap()));
}

#[test]
fn every_queue_topic_bucket_and_cache_is_encrypted() {
    for env in ["dev", "staging", "production"] {
        let p = plan(&common::example(), env, &cat()).unwrap();
        let production = env == "production";
        let mut seen = 0;
        for i in &p.items {
            match &i.spec {
                ItemSpec::SqsQueue(q) => assert!(q.managed_sse, "{}", i.id),
                ItemSpec::SqsDeadLetterQueue { managed_sse, .. } => assert!(*managed_sse, "{}", i.id),
                ItemSpec::SnsTopic(t) => assert_eq!(t.kms_master_key, "alias/aws/sns"),
                ItemSpec::S3Bucket(b) => {
                    assert!(b.tls_only && b.block_public_access && b.encryption == "AES256", "{}", i.id);
                    assert_eq!((b.protect, i.protected()), (production, production), "{}", i.id);
                }
                ItemSpec::CacheReplicationGroup(s) => {
                    assert!(s.at_rest_encryption && s.transit_encryption, "{}", i.id);
                    assert_eq!(s.snapshot_retention_days, if production { 7 } else { 0 }, "{}", i.id);
                }
                _ => continue,
            }
            seen += 1;
        }
        // jobs (+ DLQ), shared-queue, events, uploads, sessions, shared-cache.
        assert!(seen >= 7, "{env}: {seen}");
    }
}

#[test]
fn platform_only_when_needed() {
    let mut product = common::example();
    product.root.workloads.clear();
    product.root.resources.retain(|n, _| n == "uploads");
    product.members.clear();
    // dev pays for one NAT gateway even without workloads, as it writes `network.nat: 1`.
    let p = plan(&product, "dev", &cat()).unwrap();
    assert_eq!(
        p.items.iter().map(|i| i.kind()).collect::<Vec<_>>(),
        [ItemKind::Vpc, ItemKind::S3Bucket, ItemKind::Budget]
    );
    product.root.environments.get_mut("dev").unwrap().network.nat = None;
    let p = plan(&product, "dev", &cat()).unwrap();
    // dev is capped: its budget backstop comes last.
    assert_eq!(p.items.iter().map(|i| i.kind()).collect::<Vec<_>>(), [ItemKind::S3Bucket, ItemKind::Budget]);
    assert!(p.secrets.generated.is_empty());
    // Only public workloads: an ALB and no Cloud Map namespace.
    let mut product = common::example();
    product.root.workloads.retain(|n, _| n == "shop");
    let p = plan(&product, "dev", &cat()).unwrap();
    assert!(p.items.iter().any(|i| i.kind() == ItemKind::Alb));
    assert!(!p.items.iter().any(|i| i.kind() == ItemKind::CloudMapNamespace));
}

#[test]
fn implicit_resources_come_from_requires() {
    let p = plan(&common::example(), "dev", &cat()).unwrap();
    let shared: Vec<(&str, Origin, Kind, &[runtime_plan::CompactString])> = p
        .resources
        .iter()
        .filter(|r| r.origin == Origin::Implicit)
        .map(|r| (r.name.as_str(), r.origin, r.kind, r.consumers.as_slice()))
        .collect();
    assert_eq!(shared.len(), 2);
    assert_eq!(shared[0].0, "shared-queue");
    assert_eq!(shared[0].3, ["orders".to_string(), "legacy".to_string()]);
    assert_eq!((shared[1].0, shared[1].2), ("shared-cache", Kind::Cache));
    let b = p.bindings.iter().find(|b| b.consumer == "legacy").unwrap();
    assert!(b.implicit && b.ssm.is_empty() && b.delivery == Delivery::Infisical);
    // The shared size of the environment sizes it.
    let mut product = common::example();
    product.root.environments["dev"].shared.insert(runway_schema::Engine::Cache, "medium".into());
    let p = plan(&product, "dev", &cat()).unwrap();
    assert_eq!(p.resources.iter().find(|r| r.name == "shared-cache").unwrap().size, "medium");
}

#[test]
fn bindings_and_secrets_layout() {
    let p = plan(&common::example(), "production", &cat()).unwrap();
    let b = p.bindings.iter().find(|b| b.consumer == "metabase" && b.resource == "main-db").unwrap();
    assert_eq!(
        *b.variables,
        [
            "MAIN_DB_URL",
            "MAIN_DB_HOST",
            "MAIN_DB_PORT",
            "MAIN_DB_DATABASE",
            "MAIN_DB_USER",
            "MAIN_DB_PASSWORD"
        ]
    );
    // Its own login's variables: its own folder and parameters, naming its own role.
    assert_eq!(b.infisical, "prod:/runtime/main-db/metabase");
    assert_eq!(&*b.ssm[5], "/acme-shop/production/main-db/metabase/MAIN_DB_PASSWORD");
    assert_eq!(b.login.as_deref(), Some("app_metabase"));
    let user = p
        .secrets
        .connection
        .iter()
        .find(|c| c.consumer.as_deref() == Some("metabase") && c.infisical.name == "MAIN_DB_USER");
    assert_eq!(
        user.map(|c| (&c.infisical.folder, &c.source)),
        Some((
            &"/runtime/main-db/metabase".into(),
            &ConnectionSource::Literal { value: "app_metabase".into() }
        ))
    );
    let o = p.bindings.iter().find(|b| b.consumer == "orders" && b.resource == "events").unwrap();
    assert_eq!((o.delivery, o.ssm.len()), (Delivery::EncoreSync, 0));
    let jobs = p.resources.iter().find(|r| r.name == "jobs").unwrap();
    assert_eq!(
        variables(&jobs.name, &common::example().root.resources["jobs"].spec),
        ["JOBS_URL", "JOBS_ARN", "JOBS_DLQ_URL"]
    );
    let g = &p.secrets.generated;
    assert_eq!(
        g.iter()
            .map(|g| (g.variable.as_str(), g.consumer.as_deref(), &*g.infisical.folder))
            .collect::<Vec<_>>(),
        [
            ("MAIN_DB_PASSWORD", None, "/runtime/main-db"),
            ("MAIN_DB_PASSWORD", Some("metabase"), "/runtime/main-db/metabase"),
            ("SESSIONS_PASSWORD", None, "/runtime/sessions"),
            ("SHARED_CACHE_PASSWORD", None, "/runtime/shared-cache")
        ]
    );
    assert_eq!(g[1].kind, CredentialKind::PostgresLoginPassword);
    assert_eq!(
        (g[1].secrets_manager.as_deref(), g[1].secrets_manager_username.as_deref()),
        (Some("acme-shop/production/main-db/proxy-metabase"), Some("app_metabase"))
    );
    assert_eq!(g[0].secrets_manager.as_deref(), Some("acme-shop/production/main-db/proxy-admin"));
    assert_eq!(g[0].infisical.display(), "prod:/runtime/main-db");
    assert_eq!(g[2].secrets_manager, None);
    // Every output-sourced connection variable is exported by the program, from a planned item.
    for c in &p.secrets.connection {
        if let ConnectionSource::Output { output } = &c.source {
            let o = p.outputs.iter().find(|o| o.name == *output).unwrap();
            assert!(p.item(&o.item).is_some(), "{o:?}");
        }
    }
    let url = p.secrets.connection.iter().find(|c| c.infisical.name == "MAIN_DB_URL").unwrap();
    let ConnectionSource::Template { template } = &url.source else { panic!() };
    assert!(template.contains("${MAIN_DB_PASSWORD}"));
    // Every parameter a task definition references is listed, and nothing else from a workload.
    for i in &p.items {
        if let ItemSpec::TaskDefinition(task) = &i.spec {
            for s in &task.secrets {
                let param = p.secrets.ssm_parameters.iter().find(|x| x.name == s.parameter).unwrap();
                assert!(param.referenced_by.contains(&i.id));
            }
        }
    }
    // Names and places only: the JSON holds no field that could carry a value.
    let json = to_json(&p);
    assert!(!json.to_lowercase().contains("\"password\":"));
}

#[test]
fn unknown_environment_is_an_error_with_a_suggestion() {
    let e = plan(&common::example(), "prod", &cat()).unwrap_err();
    let PlanError::UnknownEnvironment { suggestion, known, .. } = &e else { panic!() };
    assert_eq!(known, &["dev", "staging", "production"]);
    assert_eq!(suggestion.as_deref(), Some("production"));
    assert!(e.to_string().contains("`prod`"));
}

#[test]
fn missing_domain_is_reported() {
    let mut product = common::example();
    product.root.environments["dev"].domain = None;
    let p = plan(&product, "dev", &cat()).unwrap();
    assert!(p.diagnostics.iter().any(|d| d.code == Code::MissingDomain && d.is_error()));
    assert!(p.item("env_alb").is_none());
    let w = p.workloads.iter().find(|w| w.expose == Expose::Public).unwrap();
    assert_eq!(w.host, None);
}

#[test]
fn aurora_declares_a_cluster_and_its_instances() {
    let c = cat();
    let mut product = common::example();
    product.root.resources["main-db"].spec =
        runway_schema::ResourceSpec::Postgres { engine: PostgresEngine::Aurora, version: "16".into() };
    let p = plan(&product, "production", &c).unwrap();
    let n = c.postgres(PostgresEngine::Aurora, "large").unwrap().instances;
    let instances = p.items.iter().filter(|i| i.kind() == ItemKind::AuroraInstance).count();
    assert_eq!(instances as u32, n);
    assert_eq!(p.item("main-db_db").unwrap().kind(), ItemKind::AuroraCluster);
    let ItemSpec::RdsProxyTarget(t) = &p.item("main-db_proxy-target").unwrap().spec else { panic!() };
    assert_eq!(t.target, "main-db_db");
}
