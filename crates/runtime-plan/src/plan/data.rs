//! What an item keeps that a replacement or a deletion loses: the fact a review warns on when
//! `pulumi preview` says a database, a cache, a bucket or a queue is replaced or deleted. Each
//! kind's is the `stored_data` column of the kinds table (`ItemKind::stored_data`).

use serde::Serialize;

/// The data an item of a kind holds, in the words a review's warning uses
/// (`replaces database main-db: a new instance, the data is not copied`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredData {
    /// What the item is to its owner (`database`, `bucket`).
    pub noun: &'static str,
    /// What a replacement loses.
    pub replaced: &'static str,
    /// What a deletion loses.
    pub deleted: &'static str,
}

const fn stored(noun: &'static str, replaced: &'static str, deleted: &'static str) -> Option<StoredData> {
    Some(StoredData { noun, replaced, deleted })
}

// The `stored_data` column of the kinds with data (`super::kinds`).

/// An RDS instance's.
pub(super) const RDS_INSTANCE: Option<StoredData> =
    stored("database", "a new instance, the data is not copied", "the instance and its data are deleted");
/// An Aurora cluster's.
pub(super) const AURORA_CLUSTER: Option<StoredData> =
    stored("database", "a new cluster, the data is not copied", "the cluster and its data are deleted");
/// A cache's.
pub(super) const CACHE: Option<StoredData> = stored(
    "cache",
    "a new cache that starts empty, its data is not copied",
    "the cache and its data are deleted",
);
/// A queue's.
pub(super) const QUEUE: Option<StoredData> = stored(
    "queue",
    "a new queue, its messages in flight are lost",
    "the queue and its messages in flight are deleted",
);
/// A dead-letter queue's.
pub(super) const DEAD_LETTER_QUEUE: Option<StoredData> = stored(
    "dead-letter queue",
    "a new queue, the failed messages it keeps are lost",
    "the queue and the failed messages it keeps are deleted",
);
/// A bucket's.
pub(super) const BUCKET: Option<StoredData> =
    stored("bucket", "a new bucket, its objects are not copied", "the bucket and its objects are deleted");
/// The ALB's access-log bucket's.
pub(super) const ACCESS_LOGS: Option<StoredData> = stored(
    "access-log bucket",
    "a new bucket, the access logs are not copied",
    "the bucket and its access logs are deleted",
);
/// A log group's.
pub(super) const LOGS: Option<StoredData> = stored(
    "log group",
    "a new log group, the logs it kept are not copied",
    "the log group and its logs are deleted",
);
/// The environment's key's: what it encrypted.
pub(super) const KEY: Option<StoredData> = stored(
    "key",
    "a new key, what the old one encrypted cannot be read with it",
    "the key is scheduled for deletion, what it encrypted becomes unreadable",
);
