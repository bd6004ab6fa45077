//! The operator role (`runway-operate-<product>-<env>`): what only `runway restore` and `runway
//! teardown` call, which the deploy role must never be able to do, and the denials that keep
//! the deploy role from it even where `pulumi up`'s grants would reach (docs/iam.md, "Two
//! roles").

use runtime_plan::ItemKind as K;
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

/// The deploy role's denials: no restore into, and no deletion of, a protected database, a
/// restore's copy or a switched-off old instance; no deletion of the environment's key (its
/// alias kept, the key that carries it never scheduled for deletion: the deploy side only
/// schedules a concurrent run's extra key, which carries no alias).
pub(crate) fn deploy_denials(s: &Scope<'_>) -> Vec<Statement> {
    let mut databases = Vec::new();
    let mut clusters = Vec::new();
    let mut caches = Vec::new();
    for item in &s.plan.items {
        let name = item.physical_name.as_str();
        match item.kind() {
            K::RdsInstance => {
                if item.protected() {
                    databases.push(s.arn("rds", &format!("db:{name}")));
                }
                databases.extend(names_beside(name).iter().map(|n| s.arn("rds", &format!("db:{n}"))));
            }
            K::AuroraCluster if item.protected() => clusters.push(s.arn("rds", &format!("cluster:{name}"))),
            K::CacheReplicationGroup if item.protected() => {
                caches.push(s.arn("elasticache", &format!("replicationgroup:{name}")));
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
