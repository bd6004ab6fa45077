//! Lowering of the spec's example (built in code), checked item by item against the catalogue.
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: tests

mod common;

use cost::Catalogue;
use plan_render::*;
use runtime_plan::plan::*;
use runtime_plan::*;
use runway_schema::{ApplyChanges, Code, Endpoints, Expose, Kind, Money, PostgresEngine};

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
    assert_eq!(secrets.first().unwrap().parameter, "/acme-shop/production/main-db/metabase/MAIN_DB_URL");
    assert_eq!(secrets.last().unwrap().parameter, "/acme-shop/production/metabase/MB_ENCRYPTION_SECRET_KEY");
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
    let ItemSpec::ScalingTarget { min_capacity, max_capacity, .. } =
        &p.item("metabase_scaling-target").unwrap().spec
    else {
        panic!()
    };
    assert_eq!((*min_capacity, *max_capacity), (2, 4));
    // min == max: no autoscaling items.
    assert!(p.item("shop_scaling-target").is_none());
    let w = p.workloads.iter().find(|w| w.name == "metabase").unwrap();
    assert!(w.ceiling.unwrap() > w.monthly.unwrap());
}

#[test]
fn public_and_internal_names() {
    let p = plan(&common::example(), "production", &cat()).unwrap();
    let ItemSpec::AlbListenerRule { host, priority, .. } = &p.item("shop_listener-rule").unwrap().spec else {
        panic!()
    };
    assert_eq!((host.as_str(), *priority), ("shop.acme.example", 1));
    assert_eq!(p.item("env_namespace").unwrap().physical_name, "production.acme-shop.internal");
    let w = p.workloads.iter().find(|w| w.name == "metabase").unwrap();
    assert_eq!(w.dns_name.as_deref(), Some("metabase.production.acme-shop.internal"));
    assert_eq!(p.item("main-db_db").unwrap().physical_name, "acme-shop-production-main-db");
}

#[test]
fn the_alb_redirects_http_to_https_and_drops_invalid_headers() {
    let p = plan(&common::example(), "dev", &cat()).unwrap();
    let ItemSpec::Alb { drop_invalid_header_fields, .. } = &p.item("env_alb").unwrap().spec else { panic!() };
    assert!(*drop_invalid_header_fields);
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
    let ItemSpec::DnsRecord { host, record_type, alb, evaluate_target_health, .. } = &records[0].spec else {
        panic!()
    };
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
                ItemSpec::SqsQueue { managed_sse, .. } | ItemSpec::SqsDeadLetterQueue { managed_sse, .. } => {
                    assert!(*managed_sse, "{}", i.id)
                }
                ItemSpec::SnsTopic { kms_master_key, .. } => assert_eq!(kms_master_key, "alias/aws/sns"),
                ItemSpec::S3Bucket { encryption, tls_only, block_public_access, protect, .. } => {
                    assert!(*tls_only && *block_public_access && encryption == "AES256", "{}", i.id);
                    assert_eq!((*protect, i.protected()), (production, production), "{}", i.id);
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
    assert_eq!(b.ssm[5], "/acme-shop/production/main-db/metabase/MAIN_DB_PASSWORD");
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
            .map(|g| (g.variable.as_str(), g.consumer.as_deref(), g.infisical.folder.as_str()))
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
    let ItemSpec::RdsProxyTarget { target, .. } = &p.item("main-db_proxy-target").unwrap().spec else {
        panic!()
    };
    assert_eq!(target, "main-db_db");
}

#[test]
fn json_has_the_spec_shape() {
    let p = plan(&common::example(), "dev", &cat()).unwrap();
    let v: serde_json::Value = serde_json::from_str(&to_json(&p)).unwrap();
    for k in ["product", "environment", "region", "resources", "workloads", "bindings", "cost", "diagnostics"]
    {
        assert!(v.get(k).is_some(), "{k}");
    }
    let r = &v["resources"][0];
    for k in ["name", "kind", "origin", "size", "physicalName", "monthly"] {
        assert!(r.get(k).is_some(), "resource {k}");
    }
    assert_eq!(r["origin"], "declared");
    let w = &v["workloads"][0];
    for k in ["name", "size", "min", "max", "expose", "monthly", "ceiling"] {
        assert!(w.get(k).is_some(), "workload {k}");
    }
    let b = &v["bindings"][0];
    for k in ["consumer", "resource", "variables", "infisical", "ssm"] {
        assert!(b.get(k).is_some(), "binding {k}");
    }
    for k in ["monthly", "ceiling", "cap", "verdict", "unpriced"] {
        assert!(v["cost"].get(k).is_some(), "cost {k}");
    }
    assert_eq!(v["cost"]["monthly"], p.cost.monthly.to_string());
    assert_eq!(v["cost"]["cap"], "150.00");
    assert!(v["cost"]["verdict"].is_string());
    let report: serde_json::Value = serde_json::from_str(&to_json(&cost_report(&[p]))).unwrap();
    for k in ["name", "monthly", "ceiling", "cap", "verdict"] {
        assert!(report["environments"][0].get(k).is_some(), "cost report {k}");
    }
}

#[test]
fn graph_links_consumers_resources_and_items() {
    let p = plan(&common::example(), "dev", &cat()).unwrap();
    let g = &p.graph();
    assert!(
        g.edges
            .iter()
            .any(|e| e.from == "consumer:metabase" && e.to == "resource:main-db" && e.label == "uses")
    );
    assert!(g.edges.iter().any(|e| e.from == "resource:main-db" && e.to == "item:main-db_proxy"));
    assert!(g.edges.iter().any(|e| e.from == "item:main-db_proxy" && e.to == "item:main-db_proxy-secret"));
    for e in &g.edges {
        assert!(g.nodes.iter().any(|n| n.id == e.from), "{e:?}");
        assert!(g.nodes.iter().any(|n| n.id == e.to), "{e:?}");
    }
    let m = render_mermaid(g);
    assert!(m.starts_with("flowchart LR\n"));
    assert_eq!(m.matches("-->|").count(), g.edges.len());
    let d = render_dot(g);
    assert!(d.starts_with("digraph plan {"));
    assert_eq!(d.matches(" -> ").count(), g.edges.len());
}

#[test]
fn diff_reports_resizes_additions_and_the_cost_delta() {
    let c = cat();
    let old = plan(&common::example(), "staging", &c).unwrap();
    let mut product = common::example();
    product.root.resources["main-db"].size.insert("staging".into(), "large".into());
    product.root.resources.shift_remove("events");
    product.root.workloads["metabase"]
        .scale
        .insert("staging".into(), runway_schema::Scale { min: 1, max: 3 });
    let new = plan(&product, "staging", &c).unwrap();
    let d = diff(&old, &new);
    let ids = |v: &[ItemRef]| v.iter().map(|i| i.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&d.removed), ["events_topic"]);
    assert_eq!(ids(&d.added), ["metabase_scaling-target", "metabase_scaling-policy"]);
    let db = d.changed.iter().find(|c| c.id == "main-db_db").unwrap();
    let fields: Vec<&str> = db.changes.iter().map(|f| f.field.as_str()).collect();
    assert!(fields.contains(&"size") && fields.contains(&"spec.instanceClass"), "{fields:?}");
    assert_eq!(d.cost.delta, Money(new.cost.monthly.0 - old.cost.monthly.0));
    let text = render_diff_text(&d);
    assert!(
        text.contains("+ metabase_scaling-target")
            && text.contains("- events_topic")
            && text.contains("~ main-db_db")
    );
    assert!(diff(&new, &new).is_empty());
}

#[test]
fn text_renders_every_section() {
    let p = plan(&common::example(), "dev", &cat()).unwrap();
    let t = render_plan_text(&p);
    for s in
        ["resources\n", "workloads\n", "bindings\n", "secrets\n", "cost (a month", "within the cap $150.00"]
    {
        assert!(t.contains(s), "{s}\n{t}");
    }
    let plans: Vec<Plan> = ["dev", "staging", "production"]
        .iter()
        .map(|e| plan(&common::example(), e, &cat()).unwrap())
        .collect();
    let ct = render_cost_text(&plans);
    assert_eq!(ct.lines().count(), 4);
    assert!(ct.contains("uncapped"));
}

/// An `env` value `${VAR}` reaches the container under the image's own name, from the bound
/// variable's SSM parameter: a secret, never a plain value.
#[test]
fn env_references_are_delivered_as_secrets_under_the_images_names() {
    let p = plan(&common::shipped_example(), "production", &cat()).unwrap();
    let ItemSpec::TaskDefinition(spec) = &p.item("metabase_task").unwrap().spec else {
        panic!("metabase_task is not a task definition")
    };
    let TaskDefinitionSpec { environment, secrets, .. } = &**spec;
    let secret = |name: &str| secrets.iter().find(|s| s.name == name).map(|s| s.parameter.as_str());
    for (name, variable) in [("MB_DB_HOST", "MAIN_DB_HOST"), ("MB_DB_PASS", "MAIN_DB_PASSWORD")] {
        let parameter = format!("/acme-shop/production/main-db/metabase/{variable}");
        assert_eq!(secret(name), Some(parameter.as_str()), "{name}");
        assert_eq!(secret(name), secret(variable), "{name} and {variable} come from one parameter");
        assert!(!environment.contains_key(name), "{name} must not be a plain value");
    }
    assert_eq!(environment.get("MB_DB_TYPE").map(|v| v.as_str()), Some("postgres"));
    assert!(environment.values().all(|v| !v.contains("${")), "no reference is passed as text");
}

/// Every capped environment gets one budget whose limit is its cap to the cent, with the two
/// alerts; an uncapped one gets none and says so. Log groups and the budget are billed by use:
/// their rates are listed, and nothing of theirs is in the estimate.
#[test]
fn budgets_back_every_cap_and_usage_is_shown_not_counted() {
    let product = common::shipped_example();
    for env in product.root.environments.keys() {
        let p = plan(&product, env, &cat()).unwrap();
        let budgets: Vec<&PlannedItem> = p.items.iter().filter(|i| i.kind() == ItemKind::Budget).collect();
        match p.cost.cap {
            Some(cap) => {
                let [budget] = budgets.as_slice() else { panic!("{env}: {} budgets", budgets.len()) };
                let ItemSpec::Budget { limit, alerts, product: tag, environment, .. } = &budget.spec else {
                    panic!()
                };
                assert_eq!(*limit, cap, "{env}");
                assert_eq!(limit.cents().to_string(), cap.cents().to_string());
                assert_eq!((tag.as_str(), environment.as_str()), ("acme-shop", env.as_str()));
                let shown: Vec<(BudgetBasis, u32)> = alerts.iter().map(|a| (a.basis, a.percent)).collect();
                assert_eq!(shown, [(BudgetBasis::Forecasted, 80), (BudgetBasis::Actual, 100)]);
            }
            None => {
                assert!(budgets.is_empty(), "{env} is uncapped");
                let warning = p.diagnostics.iter().find(|d| d.code == Code::Uncapped).unwrap();
                assert!(warning.message.contains("no AWS Budgets backstop"), "{}", warning.message);
            }
        }
        // Billed by use: rates listed per log group whose volume nobody declared (and budget),
        // no line in the estimate; a declared volume is counted instead (production's).
        let declared: Vec<&str> = p
            .cost
            .usage
            .iter()
            .filter(|u| u.usage == runway_schema::UsageKey::Logs)
            .map(|u| u.item.as_str())
            .collect();
        for id in &declared {
            let keys: Vec<&str> =
                p.cost.lines.iter().filter(|l| l.item == *id).map(|l| &*l.line.key).collect();
            assert_eq!(keys, ["logs-ingestion", "logs-storage"], "{env}: {id}");
            assert!(p.cost.usage_based.iter().all(|u| u.item != *id), "{env}: {id} is counted, not a rate");
        }
        let undeclared = p.workloads.len() - declared.len();
        let by_use: Vec<&str> =
            p.items.iter().filter(|i| i.pricing == Pricing::UsageBased).map(|i| i.id.as_str()).collect();
        // Production's ALB log bucket too (its storage follows the traffic).
        let log_buckets = usize::from(env == "production");
        assert_eq!(by_use.len(), undeclared + budgets.len() + log_buckets, "{env}");
        for id in &by_use {
            assert!(p.cost.usage_based.iter().any(|u| u.item == *id), "{env}: {id} has no rate");
            assert!(p.cost.lines.iter().all(|l| l.item != *id), "{env}: {id} is in the estimate");
        }
        let logs = p.cost.usage_based.iter().filter(|u| u.rate.what.starts_with("CloudWatch Logs"));
        assert!(logs.clone().all(|u| u.rate.unit_price.is_some()), "{env}: us-east-1 prices logs");
        assert_eq!(logs.count(), 2 * undeclared, "{env}: ingestion and storage per workload");
    }
}

/// A workload's logs are kept 90 days in production and 14 elsewhere, unless
/// `logs.retentionDays` says otherwise.
#[test]
fn log_retention_is_the_environments() {
    let days = |p: &Plan| match &p.item("metabase_logs").unwrap().spec {
        ItemSpec::LogGroup { retention_days, .. } => *retention_days,
        _ => panic!("metabase_logs is not a log group"),
    };
    let mut product = common::example();
    assert_eq!(days(&plan(&product, "production", &cat()).unwrap()), 90);
    assert_eq!(days(&plan(&product, "dev", &cat()).unwrap()), 14);
    product.root.environments.get_mut("dev").unwrap().log_retention_days = Some(30);
    assert_eq!(days(&plan(&product, "dev", &cat()).unwrap()), 30);
}

/// The service names of a plan's VPC endpoints, by type.
fn endpoints(p: &Plan) -> (Vec<String>, Vec<String>) {
    let (mut interfaces, mut gateways) = (Vec::new(), Vec::new());
    for i in p.items.iter().filter(|i| i.kind() == ItemKind::VpcEndpoint) {
        let ItemSpec::VpcEndpoint { service_name, endpoint_type, .. } = &i.spec else { panic!("{}", i.id) };
        let service = service_name.strip_prefix("com.amazonaws.us-east-1.").unwrap().to_owned();
        match endpoint_type {
            EndpointType::Interface => interfaces.push(service),
            EndpointType::Gateway => gateways.push(service),
        }
    }
    (interfaces, gateways)
}

/// `network.endpoints` declares exactly the endpoints what runs calls: the task basics with
/// workloads, Secrets Manager with a postgres, SQS / SNS only when a workload uses a queue /
/// topic; each interface endpoint is priced per hour in each zone, the S3 gateway is free.
#[test]
fn endpoints_follow_what_the_environment_calls() {
    let mut product = common::example();
    assert_eq!(endpoints(&plan(&product, "dev", &cat()).unwrap()).0.len(), 0, "off by default");
    let dev = product.root.environments.get_mut("dev").unwrap();
    dev.network = runway_schema::Network { endpoints: Endpoints::Declared, zones: 3, nat: None };
    let p = plan(&product, "dev", &cat()).unwrap();
    // metabase uses main-db, shop uses sessions and uploads: no queue or topic is used.
    let basics = ["ssm", "ecr.api", "ecr.dkr", "logs", "secretsmanager"];
    assert_eq!(endpoints(&p), (basics.map(String::from).to_vec(), vec!["s3".to_owned()]));
    for id in ["env_ssm-endpoint", "env_ecr-api-endpoint", "env_secretsmanager-endpoint"] {
        let line = p.cost.lines.iter().find(|l| l.item == id).unwrap_or_else(|| panic!("{id} unpriced"));
        assert_eq!(line.line.quantity.to_string(), (730 * 3).to_string(), "{id}");
        assert_eq!(line.line.monthly, Money::parse("21.90").unwrap(), "{id}: 0.01 x 730 x 3");
    }
    let gateway = p.item("env_s3-endpoint").unwrap();
    let Pricing::Included { note } = &gateway.pricing else { panic!("{:?}", gateway.pricing) };
    assert_eq!(
        (gateway.monthly, note.as_str()),
        (Some(Money::parse("0").unwrap()), "gateway endpoints have no charge")
    );

    // A workload that uses a queue and a topic brings SQS and SNS.
    let metabase = product.root.workloads.get_mut("metabase").unwrap();
    metabase.uses.extend(["jobs".to_owned(), "events".to_owned()]);
    let p = plan(&product, "dev", &cat()).unwrap();
    let (interfaces, _) = endpoints(&p);
    assert_eq!(interfaces[5..], ["sqs".to_owned(), "sns".to_owned()]);
}

/// The endpoints admit 443 from the whole VPC (their private DNS answers for all of it, other
/// environments and members included); services and proxies reach them through their own 443
/// egress, and no group of clients is declared.
#[test]
fn the_endpoints_admit_every_client_in_the_vpc() {
    let mut product = common::example();
    product.root.environments.get_mut("dev").unwrap().network.endpoints = Endpoints::Declared;
    let p = plan(&product, "dev", &cat()).unwrap();
    assert_eq!(p.vpc_endpoints, Endpoints::Declared);
    let ItemSpec::SecurityGroup { ingress, egress, .. } = &p.item("env_endpoints-sg").unwrap().spec else {
        panic!("no endpoints group")
    };
    assert_eq!(
        (ingress.as_slice(), egress.is_empty()),
        (&[SecurityRule { peer: Peer::Vpc, port: 443 }][..], true)
    );
    assert!(p.items.iter().all(|i| !i.id.contains("endpoint-clients")), "no clients group");
    for i in p.items.iter().filter(|i| matches!(i.kind(), ItemKind::EcsService | ItemKind::RdsProxy)) {
        let out_443 = groups_of(i).iter().any(|g| {
            let Some(ItemSpec::SecurityGroup { egress, .. }) = p.item(g).map(|g| &g.spec) else {
                return false;
            };
            egress.iter().any(|r| r.port == 443 && r.peer == Peer::Internet)
        });
        assert!(out_443, "{} cannot reach the endpoints", i.id);
    }
    assert!(render_plan_text(&p).contains("from the VPC (vpcCidrBlocks)"));
}

/// `network.endpoints: existing`: the VPC has them already (a second environment in the same
/// VPC): nothing is declared or charged, and the plan says they are assumed present.
#[test]
fn existing_endpoints_are_assumed_not_declared() {
    let mut product = common::example();
    let without = plan(&product, "dev", &cat()).unwrap();
    product.root.environments.get_mut("dev").unwrap().network.endpoints = Endpoints::Existing;
    let p = plan(&product, "dev", &cat()).unwrap();
    assert_eq!(p.vpc_endpoints, Endpoints::Existing);
    assert!(p.items.iter().all(|i| i.kind() != ItemKind::VpcEndpoint && i.id != "env_endpoints-sg"));
    assert_eq!((p.items.len(), p.cost.monthly), (without.items.len(), without.cost.monthly));
    let text = render_plan_text(&p);
    assert!(text.contains("VPC endpoints: existing in the VPC and assumed present"), "{text}");
    assert!(!render_plan_text(&without).contains("VPC endpoints"));
    let json: serde_json::Value = serde_json::from_str(&to_json(&p)).unwrap();
    assert_eq!(json["vpcEndpoints"], "existing");
}

/// Outside `production` database and cache changes apply at the deploy; in `production` at
/// the next maintenance window unless `applyChanges: immediately`; the plan says which.
#[test]
fn database_and_cache_changes_apply_when_the_plan_says() {
    let applies = |p: &Plan| -> Vec<(String, bool)> {
        p.items.iter().filter_map(|i| Some((i.id.to_string(), i.apply_immediately()?))).collect()
    };
    for engine in [PostgresEngine::Rds, PostgresEngine::Aurora] {
        let mut product = common::example();
        product.root.resources["main-db"].spec =
            runway_schema::ResourceSpec::Postgres { engine, version: "16".into() };
        for (env, written, immediately) in [
            ("dev", None, true),
            ("staging", None, true),
            ("production", None, false),
            ("production", Some(ApplyChanges::Immediately), true),
            ("staging", Some(ApplyChanges::MaintenanceWindow), false),
        ] {
            product.root.environments.get_mut(env).unwrap().apply_changes = written;
            let p = plan(&product, env, &cat()).unwrap();
            let found = applies(&p);
            // The database (and Aurora's instances) and the cache.
            assert!(found.len() >= 2, "{env}: {found:?}");
            assert!(found.iter().all(|(_, now)| *now == immediately), "{env} {written:?}: {found:?}");
            let want = if immediately { ApplyChanges::Immediately } else { ApplyChanges::MaintenanceWindow };
            assert_eq!(p.apply_changes, want);
            // Under the title, wrapped.
            let text = render_plan_text(&p);
            // The title's block ends at the first blank line (the fixed charges or the resources).
            let header: Vec<&str> = text.split("\n\n").next().unwrap().split_whitespace().collect();
            let said: Vec<&str> = plan_render::apply_changes_text(want).split_whitespace().collect();
            assert!(header.ends_with(&said), "{text}");
            let json: serde_json::Value = serde_json::from_str(&to_json(&p)).unwrap();
            assert_eq!(json["applyChanges"], want.as_str());
            product.root.environments.get_mut(env).unwrap().apply_changes = None;
        }
    }
}

/// A plan without a database or cache says nothing of when their changes apply.
#[test]
fn no_apply_changes_line_without_a_database_or_cache() {
    let mut product = common::example();
    product.root.resources.retain(|_, r| !matches!(r.spec.kind(), Kind::Postgres | Kind::Cache));
    product.root.workloads.values_mut().for_each(|w| w.uses.clear());
    product.members.clear();
    let p = plan(&product, "production", &cat()).unwrap();
    assert!(p.items.iter().all(|i| i.apply_immediately().is_none()));
    assert!(!render_plan_text(&p).contains("changes apply"));
}

/// Every item's tags: the product, the environment, its resource or workload (`environment`
/// for the environment's own items) and its logical id, from the one rule the plan holds.
#[test]
fn every_item_is_tagged_with_product_environment_and_resource() {
    let p = plan(&common::example(), "production", &cat()).unwrap();
    let keys: Vec<&str> = p.tags.iter().map(|t| t.key.as_str()).collect();
    assert_eq!(keys, ["product", "environment", "resource", "runway-item"]);
    for item in &p.items {
        let tags = p.tags_of(item);
        let owner = item.owner.as_deref().unwrap_or("environment");
        assert_eq!(
            tags,
            [
                ("product", "acme-shop"),
                ("environment", "production"),
                ("resource", owner),
                ("runway-item", item.id.as_str())
            ],
            "{}",
            item.id
        );
    }
    let cluster = p.item("env_ecs-cluster").unwrap();
    assert_eq!(p.tags_of(cluster)[2], ("resource", "environment"));
    let json: serde_json::Value = serde_json::from_str(&to_json(&p)).unwrap();
    assert_eq!(json["tags"][0], serde_json::json!({"key": "product", "from": "text", "value": "acme-shop"}));
    assert_eq!(json["tags"][2], serde_json::json!({"key": "resource", "from": "owner"}));
}

/// Services propagate their tags to their tasks; databases copy theirs to their snapshots.
#[test]
fn tasks_and_snapshots_carry_the_tags() {
    for env in ["dev", "production"] {
        let p = plan(&common::example(), env, &cat()).unwrap();
        // Counted, so a plan without a service or a database cannot pass by checking nothing.
        let (mut services, mut databases) = (0, 0);
        for item in &p.items {
            match &item.spec {
                ItemSpec::EcsService(s) => {
                    services += 1;
                    assert!(s.propagate_tags, "{}", item.id);
                }
                ItemSpec::RdsInstance(s) => {
                    databases += 1;
                    assert!(s.protection.copy_tags_to_snapshot, "{}", item.id);
                }
                ItemSpec::AuroraCluster(s) => {
                    databases += 1;
                    assert!(s.protection.copy_tags_to_snapshot, "{}", item.id);
                }
                _ => {}
            }
        }
        assert!(services >= 2, "{env}: {services} services");
        assert!(databases >= 1, "{env}: {databases} databases");
    }
}

fn groups_of(i: &PlannedItem) -> &[CompactString] {
    match &i.spec {
        ItemSpec::EcsService(s) => &s.security_groups,
        ItemSpec::RdsProxy(s) => &s.security_groups,
        _ => &[],
    }
}

/// The shipped example's `migrate` (metabase): a one-off task whose task definition is the
/// service's but for its family, its command and no health check, run with the workload's
/// security groups in its cluster, recorded under the SSM prefix; no other workload has one.
#[test]
fn a_migrate_is_a_one_off_task_with_the_services_image_bindings_and_network() {
    for env in ["dev", "production"] {
        let p = plan(&common::shipped_example(), env, &cat()).unwrap();
        // main-db's bootstrap first, then the one migration.
        assert_eq!(p.tasks.len(), 2, "{env}");
        assert_eq!(p.tasks[0].name, "bootstrap-main-db");
        let t = &p.tasks[1];
        assert_eq!(t.name, "migrate-metabase");
        assert_eq!(t.purpose, TaskPurpose::Migrate { workload: "metabase".into() });
        assert_eq!(t.output, "runway-task-migrate-metabase");
        assert_eq!(t.record.parameter, format!("/acme-shop/{env}/runway/migrate/metabase"));
        assert!(
            t.record
                .image
                .ends_with("@sha256:9f2b1c4e5d6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c")
        );
        assert!(t.record.command.starts_with("sha256:") && t.record.command.len() == 71);
        let item = p.item(&t.task_definition).unwrap();
        assert_eq!((item.id.as_str(), item.owner.as_deref()), ("metabase_migrate-task", Some("metabase")));
        assert_eq!(item.physical_name, format!("acme-shop-{env}-metabase-migrate"));
        let ItemSpec::TaskDefinition(migrate) = &item.spec else { panic!() };
        let service = p
            .items
            .iter()
            .find_map(|i| match &i.spec {
                ItemSpec::EcsService(s) if s.workload == "metabase" => Some(s),
                _ => None,
            })
            .unwrap();
        assert_eq!(t.cluster, service.cluster);
        assert_eq!(t.security_groups, service.security_groups);
        let ItemSpec::TaskDefinition(own) = &p.item(&service.task_definition).unwrap().spec else { panic!() };
        // Metabase's documented form: one argument handed to the image's ENTRYPOINT
        // (`run_metabase.sh`), which neither task definition replaces.
        let words: Vec<&str> = migrate.command.as_ref().unwrap().iter().map(|w| w.as_str()).collect();
        assert_eq!(words, ["migrate up"]);
        assert!(migrate.entry_point.is_none() && own.entry_point.is_none());
        assert_eq!(t.record.command, runtime_plan::fingerprint(&["migrate up".into()]));
        assert!(own.command.is_none() && migrate.health.is_none() && own.health.is_some());
        let mut same = (**own).clone();
        same.command.clone_from(&migrate.command);
        same.health = None;
        assert_eq!(&same, &**migrate, "only the command and the health check differ");
        assert_eq!((t.log_group.as_str(), t.container.as_str()), (migrate.log_group.as_str(), "metabase"));
        // It reads the service's parameters, and the layout knows it does.
        for s in &migrate.secrets {
            let param = p.secrets.ssm_parameters.iter().find(|x| x.name == s.parameter).unwrap();
            assert!(param.referenced_by.contains(&item.id), "{}", s.parameter);
        }
        assert!(p.workloads.iter().find(|w| w.name == "metabase").unwrap().items.contains(&item.id));
    }
}

/// A postgres resource's bootstrap (issue 32): a one-off task of its own in the cluster, the
/// pinned psql image running the plan's SQL with the plan's environment and secrets, its own
/// log group, an execution role that reads what the task reads and a group that reaches the
/// proxy alone; its record names the parameters whose versions make a run new.
#[test]
fn a_postgres_bootstrap_is_a_one_off_task_of_its_own_that_reaches_the_proxy() {
    let p = plan(&common::shipped_example(), "dev", &cat()).unwrap();
    let boot = &p.secrets.bootstraps[0];
    let t = p
        .tasks
        .iter()
        .find(|t| t.purpose == TaskPurpose::DatabaseBootstrap { resource: "main-db".into() })
        .unwrap();
    assert_eq!(
        (t.name.as_str(), t.output.as_str(), t.record.parameter.as_str()),
        ("bootstrap-main-db", "runway-task-bootstrap-main-db", "/acme-shop/dev/runway/bootstrap/main-db")
    );
    assert_eq!(t.task_definition, boot.id);
    assert_eq!(t.record.image, runtime_plan::BOOTSTRAP_IMAGE);
    let ItemSpec::TaskDefinition(def) = &p.item(&t.task_definition).unwrap().spec else { panic!() };
    let read: Vec<&str> = def.secrets.iter().map(|s| s.parameter.as_str()).collect();
    assert_eq!(t.record.versions_of.iter().map(|v| v.as_str()).collect::<Vec<_>>(), read);
    assert!(read.contains(&"/acme-shop/dev/main-db/MAIN_DB_PASSWORD"), "the admin's: {read:?}");
    assert!(read.contains(&"/acme-shop/dev/main-db/metabase/MAIN_DB_PASSWORD"), "{read:?}");
    // What the SQL is made of is part of what a run is recorded as: another mode, another
    // fingerprint; the same plan, the same one.
    assert!(t.record.command.starts_with("sha256:") && t.record.command.len() == 71);
    let mut read = common::shipped_example();
    read.root
        .workloads
        .get_mut("metabase")
        .unwrap()
        .access
        .insert("main-db".into(), runway_schema::Access::Read);
    let other = plan(&read, "dev", &cat()).unwrap();
    assert_ne!(other.tasks[0].record.command, t.record.command);
    assert_ne!(other.secrets.bootstraps[0].sql(), boot.sql());
    let again = plan(&common::shipped_example(), "dev", &cat()).unwrap();
    assert_eq!(again.tasks[0].record.command, t.record.command);

    let item = p.item(&t.task_definition).unwrap();
    assert_eq!(
        (item.physical_name.as_str(), item.owner.as_deref()),
        ("acme-shop-dev-main-db-bootstrap", Some("main-db"))
    );
    let ItemSpec::TaskDefinition(def) = &item.spec else { panic!() };
    let command: Vec<&str> = def.command.iter().flatten().map(|w| w.as_str()).collect();
    assert_eq!((def.image.as_str(), command.as_slice()), (BOOTSTRAP_IMAGE, BOOTSTRAP_COMMAND.as_slice()));
    let env: Vec<(&str, &str)> = def.environment.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(
        env,
        [
            ("PGPORT", "5432"),
            ("PGDATABASE", "main_db"),
            ("PGUSER", "runway"),
            ("PGSSLMODE", "require"),
            ("PGCONNECT_TIMEOUT", "10"),
            ("RUNWAY_BOOTSTRAP_ATTEMPTS", "10"),
            ("RUNWAY_BOOTSTRAP_PAUSE", "15"),
            ("RUNWAY_BOOTSTRAP_LOGINS", "app_metabase=write,app_reporting=write")
        ]
    );
    let names: Vec<&str> = def.secrets.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["PGHOST", "PGPASSWORD", "RUNWAY_LOGIN_1_PASSWORD", "RUNWAY_LOGIN_2_PASSWORD"]);
    assert!(def.port.is_none() && def.task_role.is_none() && def.health.is_none());
    assert_eq!(
        (t.container.as_str(), t.log_stream_prefix.as_str()),
        ("main-db-bootstrap", "main-db-bootstrap")
    );
    assert_eq!(p.item(&t.log_group).unwrap().physical_name, "/runway/acme-shop/dev/main-db-bootstrap");
    assert_eq!(t.cluster, p.items.iter().find(|i| i.kind() == ItemKind::EcsCluster).unwrap().id);
    // Its group goes to the proxy and 443 only; the proxy admits it.
    assert_eq!(t.security_groups, ["main-db_bootstrap-sg"]);
    let ItemSpec::SecurityGroup { ingress, egress, .. } = &p.item("main-db_bootstrap-sg").unwrap().spec
    else {
        panic!()
    };
    assert!(ingress.is_empty());
    let to: Vec<(String, u16)> = egress.iter().map(|r| (format!("{:?}", r.peer), r.port)).collect();
    assert_eq!(to.len(), 2, "{to:?}");
    assert!(
        egress.iter().any(|r| r.peer == Peer::Group { item: "main-db_proxy-sg".into() } && r.port == 5432)
    );
    let ItemSpec::SecurityGroup { ingress, .. } = &p.item("main-db_proxy-sg").unwrap().spec else { panic!() };
    assert!(
        ingress
            .iter()
            .any(|r| r.peer == Peer::Group { item: "main-db_bootstrap-sg".into() } && r.port == 5432)
    );
    // Every parameter it reads knows its task definition reads it.
    for s in &def.secrets {
        let param = p.secrets.ssm_parameters.iter().find(|x| x.name == s.parameter).unwrap();
        assert!(param.referenced_by.contains(&item.id), "{}", s.parameter);
    }
}

/// The environment's own key unless `secrets.ssm.kmsKey` names one (issue 32): its alias
/// encrypts every parameter, the proxy secrets too, and its decrypters are every execution
/// role and proxy role; a named key replaces it (no key item, nothing priced), and an AWS
/// managed key is not used for Secrets Manager.
#[test]
fn the_environment_has_its_own_key_unless_one_is_named() {
    let product = common::example();
    let p = plan(&product, "production", &cat()).unwrap();
    let key = p.item(runtime_plan::lower::KEY_ID).unwrap();
    assert_eq!(key.managed_by, ManagedBy::SecretsAdapter);
    assert_eq!(key.physical_name, "alias/runway/acme-shop/production");
    assert_eq!(key.monthly, Some(Money::parse("1.00").unwrap()));
    let ItemSpec::KmsKey { alias, decrypters, .. } = &key.spec else { panic!("a key") };
    assert_eq!(alias, &p.secrets.kms_key);
    assert_eq!(p.secrets.secrets_manager_key.as_deref(), Some(alias.as_str()));
    assert!(p.secrets.ssm_parameters.iter().all(|s| s.kms_key == *alias));
    let roles: Vec<&str> = p
        .items
        .iter()
        .filter(|i| matches!(i.kind(), ItemKind::TaskExecutionRole | ItemKind::ProxyRole))
        .map(|i| i.id.as_str())
        .collect();
    assert!(roles.len() >= 3);
    assert_eq!(decrypters.iter().map(|d| d.as_str()).collect::<Vec<_>>(), roles);

    for (named, secrets_manager) in [("alias/acme", Some("alias/acme")), ("alias/aws/ssm", None)] {
        let mut product = common::example();
        product.root.secrets.ssm.kms_key = Some(named.to_owned());
        let p = plan(&product, "production", &cat()).unwrap();
        assert!(p.item(runtime_plan::lower::KEY_ID).is_none(), "{named}");
        assert!(p.items.iter().all(|i| i.kind() != ItemKind::KmsKey));
        assert_eq!(p.secrets.kms_key, named);
        assert_eq!(p.secrets.secrets_manager_key.as_deref(), secrets_manager);
    }
}
