//! The operator role (`runway-operate-<product>-<env>`): what only `runway restore` and `runway
//! teardown` call, which the deploy role must never be able to do, and the denials that keep
//! the deploy role from it even where `pulumi up`'s grants would reach (docs/iam.md, "Two
//! roles").

use runtime_plan::ItemKind as K;
use runtime_plan::cache_restore::names_beside_cache;
use runtime_plan::restore::names_beside;

use crate::document::Statement;
use crate::scope::Scope;

/// The AWS operations only the operator role allows (a test reads the adapter's source: every
/// call is in exactly one of this list and [`crate::RUNWAY_ACTIONS`], and the deploy role refuses
/// each of these).
pub const OPERATOR_ACTIONS: &[&str] = &[
    // restore: the point-in-time copy beside the live instance; a drill's copy deleted, and
    // `--finish`'s old instance deleted (with its final snapshot).
    "rds:RestoreDBInstanceToPointInTime",
    "rds:DeleteDBInstance",
    // restore of an Aurora cluster: the copy, its writer (a restored cluster has none), a
    // drill's copy deleted and `--finish`'s old cluster deleted (with its final snapshot).
    "rds:RestoreDBClusterToPointInTime",
    "rds:CreateDBInstance",
    "rds:DeleteDBCluster",
    // restore of a cache: its snapshots listed, a copy made from one, a drill's copy deleted.
    "elasticache:DescribeSnapshots",
    "elasticache:CreateReplicationGroup",
    "elasticache:DeleteReplicationGroup",
    // teardown: the environment's key's alias, and every parameter under the prefix.
    "kms:DeleteAlias",
    "ssm:DeleteParameters",
];

/// The suffix of the GitHub environment whose jobs may assume the operator role:
/// `<environment>-operations` (a GitHub environment with required reviewers gates it).
pub const OPERATIONS_SUFFIX: &str = "-operations";

/// The operator role's own statements, besides every statement of the deploy role (it runs
/// `pulumi destroy` and the deploy side's reads too).
pub(crate) fn statements(s: &Scope<'_>) -> Vec<Statement> {
    let mut out = Vec::new();
    let instances = s.each(K::RdsInstance, |n| s.arn("rds", &format!("db:{n}*")));
    if s.plan.items.iter().any(|i| i.kind() == K::RdsInstance) {
        let stem = &s.stem;
        let mut resources = instances;
        // The copy is made in the live instance's subnet group and with the default groups;
        // its tags (RestoreDBInstanceToPointInTime's Tags) need AddTagsToResource; a deleted
        // old instance leaves its final snapshot.
        resources.push(s.arn("rds", &format!("subgrp:{stem}*")));
        resources.push(s.arn("rds", "og:*"));
        resources.push(s.arn("rds", "pg:*"));
        resources.push(s.arn("rds", &format!("snapshot:{stem}*")));
        out.push(Statement::allow(
            "RestoreTheDatabasesOfThePlanBesideThemAndDeleteTheOldOnes",
            &[
                "rds:RestoreDBInstanceToPointInTime",
                "rds:AddTagsToResource",
                "rds:DeleteDBInstance",
                "rds:CreateDBSnapshot",
            ],
            resources,
        ));
    }
    out.extend(cluster_and_cache_restores(s));
    out.push(Statement::allow(
        "DeleteTheParametersUnderThePrefix",
        &["ssm:DeleteParameters"],
        vec![s.parameters()],
    ));
    if let Some(alias) = s.own_key_alias() {
        let [(_, product), (_, env)] = s.tags();
        out.push(Statement::allow(
            "DeleteTheEnvironmentsKeyAlias",
            &["kms:DeleteAlias"],
            vec![s.arn("kms", alias)],
        ));
        out.push(
            Statement::allow(
                "ScheduleTheEnvironmentsKeyForDeletionByItsTags",
                &["kms:DeleteAlias", "kms:ScheduleKeyDeletion"],
                vec![s.arn("kms", "key/*")],
            )
            .when("StringEquals", "aws:ResourceTag/product", &[product])
            .when("StringEquals", "aws:ResourceTag/environment", &[env]),
        );
    }
    out
}

/// Restoring an Aurora cluster or a cache beside the live one, and deleting the copies and the
/// old cluster a switch moved off.
fn cluster_and_cache_restores(s: &Scope<'_>) -> Vec<Statement> {
    let stem = &s.stem;
    let mut out = Vec::new();
    if s.plan.items.iter().any(|i| i.kind() == K::AuroraCluster) {
        let mut resources = s.each(K::AuroraCluster, |n| s.arn("rds", &format!("cluster:{n}*")));
        resources.extend(s.each(K::AuroraInstance, |n| s.arn("rds", &format!("db:{n}*"))));
        resources.push(s.arn("rds", &format!("subgrp:{stem}*")));
        resources.push(s.arn("rds", "cluster-pg:*"));
        resources.push(s.arn("rds", "pg:*"));
        resources.push(s.arn("rds", &format!("cluster-snapshot:{stem}*")));
        out.push(Statement::allow(
            "RestoreTheClustersOfThePlanBesideThemAndDeleteTheOldOnes",
            &[
                "rds:RestoreDBClusterToPointInTime",
                "rds:CreateDBInstance",
                "rds:AddTagsToResource",
                "rds:DeleteDBInstance",
                "rds:DeleteDBCluster",
                "rds:CreateDBClusterSnapshot",
            ],
            resources,
        ));
    }
    if s.plan.items.iter().any(|i| i.kind() == K::CacheReplicationGroup) {
        let mut resources =
            s.each(K::CacheReplicationGroup, |n| s.arn("elasticache", &format!("replicationgroup:{n}*")));
        resources
            .extend(s.each(K::CacheReplicationGroup, |n| s.arn("elasticache", &format!("cluster:{n}*"))));
        resources.push(s.arn("elasticache", &format!("subnetgroup:{stem}*")));
        resources.push(s.arn("elasticache", "parametergroup:default.*"));
        resources.push(s.arn("elasticache", "securitygroup:*"));
        // Automatic snapshots are named by ElastiCache (`automatic.<node>-<date>`).
        resources.push(s.arn("elasticache", "snapshot:*"));
        out.push(Statement::allow(
            "RestoreTheCachesOfThePlanFromTheirSnapshotsBesideThem",
            &[
                "elasticache:DescribeSnapshots",
                "elasticache:CreateReplicationGroup",
                "elasticache:DeleteReplicationGroup",
                "elasticache:AddTagsToResource",
            ],
            resources,
        ));
    }
    out
}

/// The deploy role's denials: no restore into, and no deletion of, a protected database, a
/// restore's copy or a switched-off old instance; no deletion of the environment's key (its
/// alias kept, the key that carries it never scheduled for deletion: the deploy side only
/// schedules a concurrent run's extra key, which carries no alias).
pub(crate) fn deploy_denials(s: &Scope<'_>) -> Vec<Statement> {
    let mut databases = Vec::new();
    let mut clusters = Vec::new();
    let mut caches = Vec::new();
    let (mut copies, mut cache_copies) = (Vec::new(), Vec::new());
    for item in &s.plan.items {
        let name = item.physical_name.as_str();
        match item.kind() {
            K::RdsInstance => {
                if item.protected() {
                    databases.push(s.arn("rds", &format!("db:{name}")));
                }
                databases.extend(names_beside(name).iter().map(|n| s.arn("rds", &format!("db:{n}"))));
            }
            K::AuroraCluster => {
                if item.protected() {
                    clusters.push(s.arn("rds", &format!("cluster:{name}")));
                }
                copies.extend(names_beside(name).iter().map(|n| s.arn("rds", &format!("cluster:{n}"))));
            }
            K::AuroraInstance => {
                copies.extend(names_beside(name).iter().map(|n| s.arn("rds", &format!("db:{n}"))));
            }
            K::CacheReplicationGroup => {
                if item.protected() {
                    caches.push(s.arn("elasticache", &format!("replicationgroup:{name}")));
                }
                cache_copies.extend(
                    names_beside_cache(name)
                        .iter()
                        .map(|n| s.arn("elasticache", &format!("replicationgroup:{n}"))),
                );
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if !databases.is_empty() {
        out.push(Statement::deny(
            "DeployNeverDeletesOrRestoresProtectedDatabasesOrTheirCopies",
            &["rds:DeleteDBInstance", "rds:RestoreDBInstanceToPointInTime"],
            databases,
        ));
    }
    if !clusters.is_empty() {
        out.push(Statement::deny(
            "DeployNeverDeletesProtectedClusters",
            &["rds:DeleteDBCluster", "rds:RestoreDBClusterToPointInTime"],
            clusters,
        ));
    }
    if !caches.is_empty() {
        out.push(Statement::deny(
            "DeployNeverDeletesProtectedCaches",
            &["elasticache:DeleteReplicationGroup"],
            caches,
        ));
    }
    if !copies.is_empty() {
        out.push(Statement::deny(
            "DeployNeverMakesOrDeletesTheCopiesOfARestoredCluster",
            &[
                "rds:RestoreDBClusterToPointInTime",
                "rds:CreateDBCluster",
                "rds:DeleteDBCluster",
                "rds:CreateDBInstance",
                "rds:DeleteDBInstance",
            ],
            copies,
        ));
    }
    if !cache_copies.is_empty() {
        out.push(Statement::deny(
            "DeployNeverMakesOrDeletesTheCopiesOfARestoredCache",
            &["elasticache:CreateReplicationGroup", "elasticache:DeleteReplicationGroup"],
            cache_copies,
        ));
    }
    if let Some(alias) = s.own_key_alias() {
        out.push(
            Statement::deny(
                "DeployNeverDeletesTheEnvironmentsKey",
                &["kms:ScheduleKeyDeletion", "kms:DeleteAlias"],
                vec![s.arn("kms", "key/*")],
            )
            .when("ForAnyValue:StringEquals", "kms:ResourceAliases", &[alias]),
        );
    }
    out
}
