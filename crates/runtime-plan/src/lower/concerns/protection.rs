//! Data protection, decided per environment. Everywhere: databases and caches encrypted at rest
//! and private, queues and dead-letter queues with SSE-SQS, topics with the AWS managed SNS key,
//! buckets with SSE-S3 and a TLS-only policy. In the environment named `production`, also:
//! databases keep 7 days of backups, refuse deletion (RDS deletion protection and Pulumi
//! `protect`) and leave a final snapshot when deleted anyway, and take their backups and
//! maintenance in fixed windows that do not overlap; buckets are `protect`ed; caches
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
/// The daily window of a production database's automated backups (UTC): early Sunday to
/// Saturday, outside European and American working hours.
pub const PRODUCTION_BACKUP_WINDOW: &str = "03:00-04:00";
/// The weekly window in which RDS applies a production database's pending changes and
/// patches (UTC): Sunday, half an hour after the backup window ends (RDS refuses windows that
/// overlap).
pub const PRODUCTION_MAINTENANCE_WINDOW: &str = "sun:04:30-sun:05:30";
/// Days a production cache keeps its daily snapshots.
pub const PRODUCTION_CACHE_SNAPSHOT_DAYS: u32 = 7;
/// The key SNS topics are encrypted with: the AWS managed key of SNS.
pub const SNS_KMS_KEY: &str = "alias/aws/sns";
/// Default encryption of bucket objects: SSE-S3.
pub const BUCKET_ENCRYPTION: &str = "AES256";

/// Days after which S3 aborts a multipart upload never completed, in every bucket.
pub const ABORT_INCOMPLETE_UPLOADS_DAYS: u32 = 7;

/// Days the workloads' logs are kept in production, unless `logs.retentionDays` says otherwise.
pub(crate) const PRODUCTION_LOG_DAYS: u32 = 90;
/// Days the workloads' logs are kept elsewhere, unless `logs.retentionDays` says otherwise.
pub(crate) const LOG_DAYS: u32 = 14;

/// Days the workloads' logs of an environment are kept: as written, or the default of its kind.
pub(in crate::lower) fn log_retention_days(env_name: &str, written: Option<u32>) -> u32 {
    written.unwrap_or(if production(env_name) { PRODUCTION_LOG_DAYS } else { LOG_DAYS })
}

/// Is this the protected environment?
pub(in crate::lower) fn production(env_name: &str) -> bool {
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
pub(in crate::lower) fn database(
    env_name: &str,
    identifier: &str,
    generation: &[&str],
) -> DatabaseProtection {
    if !production(env_name) {
        return DatabaseProtection {
            backup_retention_days: BACKUP_DAYS,
            deletion_protection: false,
            protect: false,
            final_snapshot: None,
            copy_tags_to_snapshot: true,
            backup_window: None,
            maintenance_window: None,
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
        backup_window: Some(PRODUCTION_BACKUP_WINDOW.into()),
        maintenance_window: Some(PRODUCTION_MAINTENANCE_WINDOW.into()),
    }
}

/// When a change to the environment's databases and caches takes effect: as written
/// (`applyChanges`), or at the deploy outside `production` and at the next maintenance window in
/// `production`.
pub(in crate::lower) fn apply_changes(env_name: &str, written: Option<ApplyChanges>) -> ApplyChanges {
    written.unwrap_or(if production(env_name) {
        ApplyChanges::MaintenanceWindow
    } else {
        ApplyChanges::Immediately
    })
}

/// Does a change to the environment's databases and caches take effect at the deploy?
pub(in crate::lower) fn apply_immediately(env_name: &str, written: Option<ApplyChanges>) -> bool {
    apply_changes(env_name, written) == ApplyChanges::Immediately
}

/// Days a cache keeps its daily snapshots: 0 (none) outside production.
pub(in crate::lower) fn cache_snapshot_days(env_name: &str) -> u32 {
    if production(env_name) { PRODUCTION_CACHE_SNAPSHOT_DAYS } else { 0 }
}

/// Does the deploy refuse to delete a bucket (Pulumi `protect`)?
pub(in crate::lower) fn protect_bucket(env_name: &str) -> bool {
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

    /// Minutes since Sunday 00:00 of `[ddd:]hh:mm` (a daily time counts as Sunday's).
    fn minutes(at: &str) -> u32 {
        let parts: Vec<&str> = at.split(':').collect();
        let (day, h, m) = match parts[..] {
            [d, h, m] => (d, h, m),
            [h, m] => ("sun", h, m),
            _ => panic!("not a time: {at}"),
        };
        let days = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
        let day = u32::try_from(days.iter().position(|d| *d == day).expect("a day")).unwrap_or(0);
        day * 24 * 60 + h.parse::<u32>().expect("hours") * 60 + m.parse::<u32>().expect("minutes")
    }

    #[test]
    fn production_windows_are_rds_shaped_long_enough_and_apart() {
        let p = database(PRODUCTION, "shop-production-db", &[]);
        let (backup, maintenance) = (p.backup_window.unwrap(), p.maintenance_window.unwrap());
        let (b0, b1) = backup.split_once('-').unwrap();
        let (m0, m1) = maintenance.split_once('-').unwrap();
        // RDS: `hh24:mi-hh24:mi` and `ddd:hh24:mi-ddd:hh24:mi`, each at least 30 minutes.
        assert!(b0.len() == 5 && b1.len() == 5 && m0.len() == 9 && m1.len() == 9);
        let (b0, b1, m0, m1) = (minutes(b0), minutes(b1), minutes(m0), minutes(m1));
        assert!(b1 - b0 >= 30 && m1 - m0 >= 30);
        // The Sunday backup ends before the maintenance starts; on other days it is hours
        // away from Sunday's maintenance.
        assert!(b1 < m0, "backup {backup} overlaps maintenance {maintenance}");
        let dev = database("dev", "x", &[]);
        assert_eq!((dev.backup_window, dev.maintenance_window), (None, None));
    }
}
