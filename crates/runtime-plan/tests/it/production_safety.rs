//! Production safety (issue 31, item 5), decided in the plan: storage that grows, old object
//! versions that expire, the production ALB's deletion protection and access logs, ECS Exec as
//! an opt-in per workload.
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: tests

use crate::common;

use cost::Catalogue;
use runtime_plan::lower::{ALB_LOG_DAYS, log_delivery};
use runtime_plan::plan::*;
use runtime_plan::*;
use runway_schema::{Endpoints, PostgresEngine, ResourceSpec, Versioning};

fn cat() -> Catalogue {
    Catalogue::builtin()
}

const EXEC: [&str; 4] = [
    "ssmmessages:CreateControlChannel",
    "ssmmessages:CreateDataChannel",
    "ssmmessages:OpenControlChannel",
    "ssmmessages:OpenDataChannel",
];

/// An RDS instance grows its storage up to its size's ceiling; the estimate counts the
/// allocated storage only (doubled for Multi-AZ), and an Aurora cluster has no ceiling.
#[test]
fn rds_storage_grows_to_the_sizes_ceiling_and_the_estimate_counts_what_is_allocated() {
    let p = plan(&common::example(), "production", &cat()).unwrap();
    let ItemSpec::RdsInstance(db) = &p.item("main-db_db").unwrap().spec else { panic!("an RDS instance") };
    assert_eq!((db.size.storage_gb, db.size.max_storage_gb), (200, Some(1000)));
    let storage =
        p.cost.lines.iter().find(|l| l.item == "main-db_db" && &*l.line.key == "rds-storage-gp3").unwrap();
    assert_eq!(storage.line.quantity.normalize().to_string(), "400", "200 GB, primary and standby");
    assert!(storage.line.what.contains("grows to 1000 GB as used"), "{}", storage.line.what);

    let mut product = common::example();
    product.root.resources.get_mut("main-db").unwrap().spec =
        ResourceSpec::Postgres { engine: PostgresEngine::Aurora, version: "16".into() };
    let p = plan(&product, "production", &cat()).unwrap();
    let ItemSpec::AuroraCluster(db) = &p.item("main-db_db").unwrap().spec else {
        panic!("an Aurora cluster")
    };
    assert_eq!(db.size.max_storage_gb, None, "Aurora storage grows by itself");
}

/// Every bucket aborts unfinished uploads after 7 days; a versioned one also deletes a version
/// `keepDays` after it stopped being current (30 for `versioning: true`); nothing expires the
/// current objects.
#[test]
fn versioned_buckets_expire_noncurrent_versions_after_keep_days() {
    for (versioning, noncurrent) in [(None, None), (Some(30), Some(30)), (Some(365), Some(365))] {
        let mut product = common::example();
        product.root.resources.get_mut("uploads").unwrap().spec =
            ResourceSpec::Bucket { versioning: versioning.map(|keep_days| Versioning { keep_days }) };
        for env in ["dev", "production"] {
            let p = plan(&product, env, &cat()).unwrap();
            let ItemSpec::S3Bucket(bucket) = &p.item("uploads_bucket").unwrap().spec else {
                panic!("a bucket")
            };
            let S3BucketSpec { versioning: on, lifecycle, .. } = &**bucket;
            assert_eq!(*on, versioning.is_some());
            let want = BucketLifecycle {
                abort_incomplete_uploads_days: 7,
                noncurrent_version_days: noncurrent,
                expire_days: None,
            };
            assert_eq!(*lifecycle, want, "{env} {versioning:?}");
        }
    }
}

/// In production the ALB refuses deletion and writes its access logs to a private, SSE-S3,
/// TLS-only bucket of the environment whose objects expire after 90 days, written by the
/// region's ELB account, priced by use; elsewhere neither.
#[test]
fn the_production_alb_is_protected_and_logs_to_its_bucket() {
    let p = plan(&common::example(), "production", &cat()).unwrap();
    let alb = p.item("env_alb").unwrap();
    let ItemSpec::Alb(spec) = &alb.spec else { panic!("an ALB") };
    let AlbSpec { deletion_protection, access_logs, .. } = &**spec;
    assert!(*deletion_protection);
    assert_eq!(access_logs.as_deref(), Some("env_alb-log-bucket"));
    assert!(alb.depends_on.iter().any(|d| d == "env_alb-log-bucket"), "the ALB waits for its bucket");
    let bucket = p.item("env_alb-log-bucket").unwrap();
    assert_eq!(
        (bucket.kind(), bucket.physical_name.as_str()),
        (ItemKind::AlbLogBucket, "acme-shop-production-alb-logs")
    );
    assert!(bucket.protected(), "production's buckets are protected");
    let ItemSpec::AlbLogBucket(spec) = &bucket.spec else { panic!("a log bucket") };
    let AlbLogBucketSpec { block_public_access, encryption, tls_only, lifecycle, log_delivery, .. } = &**spec;
    assert!(*block_public_access && *tls_only);
    assert_eq!(encryption, "AES256", "ALB log delivery takes SSE-S3 only");
    assert_eq!(lifecycle.expire_days, Some(ALB_LOG_DAYS));
    assert_eq!(ALB_LOG_DAYS, 90);
    assert_eq!(*log_delivery, LogDelivery::Account { account_id: "127311923021".into() });
    // Billed by use: its rate is shown, nothing of it is in the estimate.
    assert_eq!(bucket.pricing, Pricing::UsageBased);
    assert!(p.cost.lines.iter().all(|l| l.item != "env_alb-log-bucket"));
    let rate = p.cost.usage_based.iter().find(|u| u.item == "env_alb-log-bucket").unwrap();
    assert_eq!(&*rate.rate.key, "s3-standard");

    for env in ["dev", "staging"] {
        let p = plan(&common::example(), env, &cat()).unwrap();
        let ItemSpec::Alb(alb) = &p.item("env_alb").unwrap().spec else { panic!("an ALB") };
        assert!(!alb.deletion_protection && alb.access_logs.is_none(), "{env}");
        assert!(p.items.iter().all(|i| i.kind() != ItemKind::AlbLogBucket), "{env}");
    }
}

/// The log bucket's writer follows the region: Frankfurt and Ireland have their ELB accounts.
#[test]
fn the_log_delivery_follows_the_region() {
    for (region, account) in [("eu-west-1", "156460612806"), ("eu-central-1", "054676820928")] {
        let mut product = common::example();
        product.root.environments.get_mut("production").unwrap().region = region.into();
        let p = plan(&product, "production", &cat()).unwrap();
        let ItemSpec::AlbLogBucket(bucket) = &p.item("env_alb-log-bucket").unwrap().spec else {
            panic!("a log bucket in {region}")
        };
        assert_eq!(bucket.log_delivery, LogDelivery::Account { account_id: account.into() }, "{region}");
    }
    assert_eq!(
        log_delivery("mx-central-1"),
        LogDelivery::Service { principal: "logdelivery.elasticloadbalancing.amazonaws.com".into() }
    );
}

/// `exec: true` turns ECS Exec on for that workload's service and grants its task role exactly
/// the four channel actions; a workload without it has neither. With declared endpoints the
/// `ssmmessages` endpoint joins the set (priced like the others) only when some workload opts in.
#[test]
fn exec_is_an_opt_in_per_workload() {
    let exec_grants = |p: &Plan, workload: &str| -> Vec<Vec<&str>> {
        let Some(ItemSpec::TaskRole { grants, .. }) =
            p.item(&format!("{workload}_task-role")).map(|i| &i.spec)
        else {
            return Vec::new();
        };
        grants
            .iter()
            .filter(|g| g.actions.iter().any(|a| a.starts_with("ssmmessages:")))
            .map(|g| {
                assert_eq!(g.resources, [PolicyResource::Any]);
                g.actions.to_vec()
            })
            .collect()
    };
    let service_exec = |p: &Plan, workload: &str| {
        let ItemSpec::EcsService(s) = &p.item(&format!("{workload}_service")).unwrap().spec else {
            panic!("a service")
        };
        s.enable_execute_command
    };
    let mut product = common::example();
    product.root.environments.get_mut("dev").unwrap().network.endpoints = Endpoints::Declared;
    let off = plan(&product, "dev", &cat()).unwrap();
    assert!(!service_exec(&off, "metabase") && !service_exec(&off, "shop"));
    assert!(exec_grants(&off, "metabase").is_empty() && exec_grants(&off, "shop").is_empty());
    assert!(off.item("env_ssmmessages-endpoint").is_none(), "no endpoint when nobody opts in");

    // metabase uses only main-db: without exec it has no task role at all; with it, one.
    assert!(off.item("metabase_task-role").is_none());
    product.root.workloads.get_mut("metabase").unwrap().exec = true;
    let on = plan(&product, "dev", &cat()).unwrap();
    assert!(service_exec(&on, "metabase") && !service_exec(&on, "shop"));
    assert_eq!(exec_grants(&on, "metabase"), [EXEC.to_vec()]);
    assert!(exec_grants(&on, "shop").is_empty());
    let endpoint = on.item("env_ssmmessages-endpoint").unwrap();
    let ItemSpec::VpcEndpoint { service_name, .. } = &endpoint.spec else { panic!("an endpoint") };
    assert_eq!(service_name, "com.amazonaws.us-east-1.ssmmessages");
    let hours = on.cost.lines.iter().find(|l| l.item == "env_ssmmessages-endpoint").unwrap();
    assert_eq!(&*hours.line.key, "vpc-endpoint-hour");
    assert!(on.cost.monthly > off.cost.monthly, "the endpoint is priced");
}
