//! A key nobody can lose and the truth about what production keeps (issue 39, items 4 and 6):
//! the alerts topic is encrypted with the environment's key, whose plan names the services
//! that publish to it; the ALB's log bucket is in the account-regional namespace like every
//! bucket; production databases take their backups and maintenance in fixed windows.
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: tests

use crate::common;

use cost::Catalogue;
use runtime_plan::plan::*;
use runtime_plan::*;
use runway_schema::{PostgresEngine, Product, ResourceSpec};

fn planned(product: &Product, env: &str) -> Plan {
    plan(product, env, &Catalogue::builtin()).unwrap()
}

/// Production's alerts topic names the environment's key and waits for it; the key lists the
/// topic's publishers (CloudWatch and EventBridge, Budgets too when the environment is capped),
/// and scopes only CloudWatch's use with `aws:SourceAccount`.
#[test]
fn the_alerts_topic_is_encrypted_with_the_environment_s_key() {
    let p = planned(&common::example(), "production");
    let topic = p.item(ALERTS_TOPIC_ID).unwrap();
    let ItemSpec::AlertTopic { publishers, kms_key, .. } = &topic.spec else { panic!("a topic") };
    assert_eq!(kms_key.as_deref(), Some(lower::KEY_ID));
    assert!(topic.depends_on.iter().any(|d| d == lower::KEY_ID));
    let ItemSpec::KmsKey { publishers: key_publishers, .. } = &p.item(lower::KEY_ID).unwrap().spec else {
        panic!("a key")
    };
    assert_eq!(key_publishers, publishers);
    let principals: Vec<&str> = key_publishers.iter().map(|p| p.principal).collect();
    assert!(principals.contains(&"cloudwatch.amazonaws.com") && principals.contains(&"events.amazonaws.com"));
    for publisher in *key_publishers {
        assert_eq!(publisher.key_source_account, publisher.principal == "cloudwatch.amazonaws.com");
    }
    // Dev has no alarms: its key encrypts no topic.
    let dev = planned(&common::example(), "dev");
    assert!(dev.item(ALERTS_TOPIC_ID).is_none());
    let ItemSpec::KmsKey { publishers, .. } = &dev.item(lower::KEY_ID).unwrap().spec else { panic!("a key") };
    assert!(publishers.is_empty());
}

/// A key named in the file (`secrets.ssm.kmsKey`) is not runway's to change: the topic is then
/// not encrypted, rather than under a key whose policy may not let CloudWatch publish.
#[test]
fn a_named_key_leaves_the_alerts_topic_unencrypted() {
    let mut product = common::example();
    product.root.secrets.ssm.kms_key = Some("alias/acme".to_owned());
    let p = planned(&product, "production");
    let ItemSpec::AlertTopic { kms_key, .. } = &p.item(ALERTS_TOPIC_ID).unwrap().spec else { panic!() };
    assert_eq!(kms_key, &None);
    assert!(p.items.iter().all(|i| i.kind() != ItemKind::KmsKey));
}

/// Every bucket, the ALB's log bucket included, is named in the account-regional namespace:
/// `<head>-<account>-<region>-an`, within S3's 63 characters; no bucket keeps a global name.
#[test]
fn the_alb_log_bucket_joins_the_account_regional_namespace() {
    let p = planned(&common::example(), "production");
    let log = p.item("env_alb-log-bucket").expect("production's ALB logs");
    let ItemSpec::AlbLogBucket(bucket) = &log.spec else { panic!("a log bucket") };
    assert_eq!(log.physical_name, "acme-shop-production-alb-logs");
    assert_eq!(bucket.name_suffix, format!("-{}-an", p.region));
    for item in &p.items {
        let suffix = match &item.spec {
            ItemSpec::S3Bucket(b) => &b.name_suffix,
            ItemSpec::AlbLogBucket(b) => &b.name_suffix,
            _ => continue,
        };
        assert!(suffix.ends_with("-an"), "{}", item.id);
        assert!(item.physical_name.len() + 1 + 12 + suffix.len() <= 63, "{}", item.id);
    }
}

/// Production databases, RDS and Aurora, get the fixed backup and maintenance windows; other
/// environments leave them to RDS.
#[test]
fn production_databases_get_backup_and_maintenance_windows() {
    let mut product = common::example();
    let rds = planned(&product, "production");
    product.root.resources.get_mut("main-db").unwrap().spec =
        ResourceSpec::Postgres { engine: PostgresEngine::Aurora, version: "16".into() };
    let aurora = planned(&product, "production");
    let mut seen = 0;
    for (p, want) in [(&rds, "rds"), (&aurora, "aurora")] {
        for item in &p.items {
            let protection = match &item.spec {
                ItemSpec::RdsInstance(db) if want == "rds" => &db.protection,
                ItemSpec::AuroraCluster(db) if want == "aurora" => &db.protection,
                _ => continue,
            };
            assert_eq!(protection.backup_window.as_deref(), Some(lower::PRODUCTION_BACKUP_WINDOW));
            assert_eq!(protection.maintenance_window.as_deref(), Some(lower::PRODUCTION_MAINTENANCE_WINDOW));
            seen += 1;
        }
    }
    assert!(seen >= 2, "an RDS instance and an Aurora cluster");
    let dev = planned(&common::example(), "dev");
    for item in &dev.items {
        if let ItemSpec::RdsInstance(db) = &item.spec {
            assert_eq!((&db.protection.backup_window, &db.protection.maintenance_window), (&None, &None));
        }
    }
}
