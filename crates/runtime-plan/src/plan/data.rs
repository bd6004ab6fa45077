//! What an item keeps that a replacement or a deletion loses: the fact a review warns on when
//! `pulumi preview` says a database, a cache, a bucket or a queue is replaced or deleted.

use serde::Serialize;

use super::kinds::ItemKind;

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

impl ItemKind {
    /// The data an item of this kind holds that no deploy re-creates, or `None` when a new one
    /// is as good as the old (its configuration is all of it). A review warns when `pulumi
    /// preview` replaces or deletes an item with stored data (docs/review.md).
    pub fn stored_data(self) -> Option<StoredData> {
        match self {
            ItemKind::RdsInstance => stored(
                "database",
                "a new instance, the data is not copied",
                "the instance and its data are deleted",
            ),
            ItemKind::AuroraCluster => stored(
                "database",
                "a new cluster, the data is not copied",
                "the cluster and its data are deleted",
            ),
            ItemKind::CacheReplicationGroup => stored(
                "cache",
                "a new cache that starts empty, its data is not copied",
                "the cache and its data are deleted",
            ),
            ItemKind::SqsQueue => stored(
                "queue",
                "a new queue, its messages in flight are lost",
                "the queue and its messages in flight are deleted",
            ),
            ItemKind::SqsDeadLetterQueue => stored(
                "dead-letter queue",
                "a new queue, the failed messages it keeps are lost",
                "the queue and the failed messages it keeps are deleted",
            ),
            ItemKind::S3Bucket => stored(
                "bucket",
                "a new bucket, its objects are not copied",
                "the bucket and its objects are deleted",
            ),
            ItemKind::AlbLogBucket => stored(
                "access-log bucket",
                "a new bucket, the access logs are not copied",
                "the bucket and its access logs are deleted",
            ),
            ItemKind::LogGroup => stored(
                "log group",
                "a new log group, the logs it kept are not copied",
                "the log group and its logs are deleted",
            ),
            // What the key encrypted (the SSM parameters, the secrets) is readable only with it.
            ItemKind::KmsKey => stored(
                "key",
                "a new key, what the old one encrypted cannot be read with it",
                "the key is scheduled for deletion, what it encrypted becomes unreadable",
            ),
            // An Aurora instance is compute: the cluster's volume holds the data.
            ItemKind::AuroraInstance
            | ItemKind::EcsCluster
            | ItemKind::TaskExecutionRole
            | ItemKind::TaskRole
            | ItemKind::RegistrySecret
            | ItemKind::SecurityGroup
            | ItemKind::CloudMapNamespace
            | ItemKind::Alb
            | ItemKind::AlbListener
            | ItemKind::DbSubnetGroup
            | ItemKind::CacheSubnetGroup
            | ItemKind::ProxySecret
            | ItemKind::ProxyRole
            | ItemKind::RdsProxy
            | ItemKind::RdsProxyTargetGroup
            | ItemKind::RdsProxyTarget
            | ItemKind::SnsTopic
            | ItemKind::TaskDefinition
            | ItemKind::EcsService
            | ItemKind::CloudMapService
            | ItemKind::AlbTargetGroup
            | ItemKind::AlbListenerRule
            | ItemKind::TrafficRole
            | ItemKind::ScalingTarget
            | ItemKind::ScalingPolicy
            | ItemKind::Budget
            | ItemKind::DnsRecord
            | ItemKind::VpcEndpoint
            | ItemKind::Vpc
            | ItemKind::AlertTopic
            | ItemKind::MetricAlarm
            | ItemKind::EcsEventRule => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn databases_caches_buckets_and_queues_hold_data_and_services_do_not() {
        for kind in [ItemKind::RdsInstance, ItemKind::AuroraCluster, ItemKind::CacheReplicationGroup] {
            assert!(kind.stored_data().is_some(), "{kind:?}");
        }
        for kind in [ItemKind::S3Bucket, ItemKind::SqsQueue, ItemKind::SqsDeadLetterQueue] {
            assert!(kind.stored_data().is_some(), "{kind:?}");
        }
        for kind in
            [ItemKind::EcsService, ItemKind::TaskDefinition, ItemKind::AuroraInstance, ItemKind::SnsTopic]
        {
            assert_eq!(kind.stored_data(), None, "{kind:?}");
        }
        assert_eq!(ItemKind::RdsInstance.stored_data().map(|d| d.noun), Some("database"));
    }
}
