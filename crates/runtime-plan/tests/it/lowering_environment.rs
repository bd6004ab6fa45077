//! What lowering adds around the example's resources and workloads: the images' variable names,
//! budgets behind every cap, log retention, VPC endpoints, when database and cache changes apply,
//! tags, the one-off tasks (a migrate, a postgres bootstrap) and the environment's key.
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: tests

use crate::common;

use cost::Catalogue;
use plan_render::*;
use runtime_plan::plan::*;
use runtime_plan::*;
use runway_schema::{ApplyChanges, Code, Endpoints, Kind, Money, PostgresEngine};

fn cat() -> Catalogue {
    Catalogue::builtin()
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
    let secret = |name: &str| secrets.iter().find(|s| s.name == name).map(|s| &*s.parameter);
    for (name, variable) in [("MB_DB_HOST", "MAIN_DB_HOST"), ("MB_DB_PASS", "MAIN_DB_PASSWORD")] {
        let parameter = format!("/acme-shop/production/main-db/metabase/{variable}");
        assert_eq!(secret(name), Some(parameter.as_str()), "{name}");
        assert_eq!(secret(name), secret(variable), "{name} and {variable} come from one parameter");
        assert!(environment.get(name).is_none(), "{name} must not be a plain value");
    }
    assert_eq!(environment.get("MB_DB_TYPE").map(|v| v.as_str()), Some("postgres"));
    assert!(environment.iter().all(|(_, v)| !v.contains("${")), "no reference is passed as text");
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
                let ItemSpec::Budget(b) = &budget.spec else { panic!() };
                let BudgetSpec { limit, alerts, product: tag, environment, .. } = &**b;
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
    assert_eq!((&**ingress, egress.is_empty()), (&[SecurityRule { peer: Peer::Vpc, port: 443 }][..], true));
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

/// Services propagate their tags to their tasks; databases, RDS and Aurora, copy theirs to
/// their snapshots.
#[test]
fn tasks_and_snapshots_carry_the_tags() {
    let mut aurora = common::example();
    aurora.root.resources["main-db"].spec =
        runway_schema::ResourceSpec::Postgres { engine: PostgresEngine::Aurora, version: "16".into() };
    // Counted, so that a plan without a service or a database of either engine cannot pass by
    // checking nothing: the example's two services and one database, in two environments.
    let (mut services, mut instances, mut clusters) = (0, 0, 0);
    for product in [common::example(), aurora] {
        for env in ["dev", "production"] {
            let p = plan(&product, env, &cat()).unwrap();
            for item in &p.items {
                match &item.spec {
                    ItemSpec::EcsService(s) => {
                        services += 1;
                        assert!(s.propagate_tags, "{}", item.id);
                    }
                    ItemSpec::RdsInstance(s) => {
                        instances += 1;
                        assert!(s.protection.copy_tags_to_snapshot, "{}", item.id);
                    }
                    ItemSpec::AuroraCluster(s) => {
                        clusters += 1;
                        assert!(s.protection.copy_tags_to_snapshot, "{}", item.id);
                    }
                    _ => {}
                }
            }
        }
    }
    assert_eq!((services, instances, clusters), (8, 2, 2));
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
    assert_eq!(&*t.record.image, runtime_plan::BOOTSTRAP_IMAGE);
    let ItemSpec::TaskDefinition(def) = &p.item(&t.task_definition).unwrap().spec else { panic!() };
    let read: Vec<&str> = def.secrets.iter().map(|s| &*s.parameter).collect();
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
    assert_eq!((&*def.image, command.as_slice()), (BOOTSTRAP_IMAGE, BOOTSTRAP_COMMAND.as_slice()));
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
    // Every parameter is written with the layout's key (its JSON names it in each).
    let json = serde_json::to_value(&p.secrets).unwrap();
    let parameters = json["ssmParameters"].as_array().unwrap();
    assert_eq!(parameters.len(), p.secrets.ssm_parameters.len());
    assert!(!parameters.is_empty() && parameters.iter().all(|s| s["kmsKey"] == alias.as_str()));
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
