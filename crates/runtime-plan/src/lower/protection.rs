//! Data protection, decided per environment. Everywhere: databases and caches encrypted at rest
//! and private, queues and dead-letter queues with SSE-SQS, topics with the AWS managed SNS key,
//! buckets with SSE-S3 and a TLS-only policy. In the environment named `production`, also:
//! databases keep 7 days of backups, refuse deletion (RDS deletion protection and Pulumi
//! `protect`) and leave a final snapshot when deleted anyway; buckets are `protect`ed; caches
//! keep 7 daily snapshots. Elsewhere a database keeps 1 day of backups (the AWS default, written
//! out) and is deleted without a final snapshot: those environments are rebuilt, not restored,
//! and a second teardown would trip over the first one's snapshot. Every database copies its
//! tags to its snapshots.
//!
//! When a change to a database or cache takes effect is decided here too: at the deploy
//! (`applyImmediately`) outside `production`, where a restart during the deploy is the lesser
//! evil than a plan that says one size while the old one runs for up to a week; in
//! `production` at the next maintenance window unless the environment writes
//! `applyChanges: immediately`.

use compact_str::CompactString;

use runway_schema::ApplyChanges;

use crate::naming::hash6;
use crate::plan::DatabaseProtection;

/// The environment whose data is protected against deletion.
pub const PRODUCTION: &str = "production";
/// Days of automated database backups in production.
pub const PRODUCTION_BACKUP_DAYS: u32 = 7;
/// Days of automated database backups elsewhere (the AWS default).
pub const BACKUP_DAYS: u32 = 1;
/// Days a production cache keeps its daily snapshots.
pub const PRODUCTION_CACHE_SNAPSHOT_DAYS: u32 = 7;
/// The key SNS topics are encrypted with: the AWS managed key of SNS.
pub const SNS_KMS_KEY: &str = "alias/aws/sns";
/// Default encryption of bucket objects: SSE-S3.
pub const BUCKET_ENCRYPTION: &str = "AES256";

/// Days after which S3 aborts a multipart upload never completed, in every bucket.
pub const ABORT_INCOMPLETE_UPLOADS_DAYS: u32 = 7;

/// Days the workloads' logs are kept in production, unless `logs.retentionDays` says otherwise.
pub const PRODUCTION_LOG_DAYS: u32 = 90;
/// Days the workloads' logs are kept elsewhere, unless `logs.retentionDays` says otherwise.
pub const LOG_DAYS: u32 = 14;

/// Days the workloads' logs of an environment are kept: as written, or the default of its kind.
pub(super) fn log_retention_days(env_name: &str, written: Option<u32>) -> u32 {
    written.unwrap_or(if production(env_name) { PRODUCTION_LOG_DAYS } else { LOG_DAYS })
}

/// Is this the protected environment?
pub(super) fn production(env_name: &str) -> bool {
    env_name == PRODUCTION
}

/// The protection of a database named `identifier` whose replacement-forcing properties are
/// `generation` (engine, database name, master user, ...).
///
/// The final snapshot is `<identifier>-final-<hash of generation>`: a replacement caused by a
/// change of those properties deletes the old database under a name no earlier deletion used,
/// where a fixed `<identifier>-final` fails (`DBSnapshotAlreadyExists`) from the second one on.
/// Snapshot identifiers allow 255 letters, digits and single hyphens, starting with a letter;
/// the identifier already is such a name.
pub(super) fn database(env_name: &str, identifier: &str, generation: &[&str]) -> DatabaseProtection {
    if !production(env_name) {
        return DatabaseProtection {
            backup_retention_days: BACKUP_DAYS,
            deletion_protection: false,
            protect: false,
            final_snapshot: None,
            copy_tags_to_snapshot: true,
        };
    }
    let fingerprint = [&[identifier], generation].concat().join("\n");
    let snapshot: CompactString = [identifier, "-final-", &hash6(&fingerprint)].concat().into();
    DatabaseProtection {
        backup_retention_days: PRODUCTION_BACKUP_DAYS,
        deletion_protection: true,
        protect: true,
        final_snapshot: Some(snapshot),
        copy_tags_to_snapshot: true,
    }
}

/// When a change to the environment's databases and caches takes effect: as written
/// (`applyChanges`), or at the deploy outside `production` and at the next maintenance window in
/// `production`.
pub(super) fn apply_changes(env_name: &str, written: Option<ApplyChanges>) -> ApplyChanges {
    written.unwrap_or(if production(env_name) {
        ApplyChanges::MaintenanceWindow
    } else {
        ApplyChanges::Immediately
    })
}

/// Does a change to the environment's databases and caches take effect at the deploy?
pub(super) fn apply_immediately(env_name: &str, written: Option<ApplyChanges>) -> bool {
    apply_changes(env_name, written) == ApplyChanges::Immediately
}

/// Days a cache keeps its daily snapshots: 0 (none) outside production.
pub(super) fn cache_snapshot_days(env_name: &str) -> u32 {
    if production(env_name) { PRODUCTION_CACHE_SNAPSHOT_DAYS } else { 0 }
}

/// Does the deploy refuse to delete a bucket (Pulumi `protect`)?
pub(super) fn protect_bucket(env_name: &str) -> bool {
    production(env_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_generation_gets_a_new_final_snapshot() {
        let a = database(PRODUCTION, "shop-production-db", &["postgres", "db", "runway"]);
        let b = database(PRODUCTION, "shop-production-db", &["postgres", "db2", "runway"]);
        let (a, b) = (a.final_snapshot.unwrap(), b.final_snapshot.unwrap());
        assert_ne!(a, b);
        assert!(
            a.starts_with("shop-production-db-final-") && a.len() == "shop-production-db-final-".len() + 6
        );
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') && !a.contains("--"));
        assert_eq!(database("dev", "x", &[]).final_snapshot, None);
    }
}
