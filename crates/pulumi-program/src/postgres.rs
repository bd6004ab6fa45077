//! A postgres resource: an RDS instance, or an Aurora cluster and its instances; and, when it
//! has one, its RDS Proxy with the proxy's secret, role, target group and target.

use runtime_plan::{
    AuroraClusterSpec, CompactString, DatabaseProtection, ItemKind, ItemSpec, PlannedItem, RdsInstanceSpec,
    RdsProxySpec,
};
use serde::Serialize;

use super::context::{Context, Input, Tags};
use super::expr::invoke;
use super::iam::{self, Action, Statement};
use super::{RenderError, network};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Instance<'p> {
    identifier: &'p str,
    engine: &'static str,
    engine_version: &'p str,
    instance_class: &'p str,
    allocated_storage: u32,
    /// Storage autoscaling's ceiling; the provider then ignores `allocatedStorage` drifting up.
    max_allocated_storage: Option<u32>,
    storage_type: &'p str,
    multi_az: bool,
    storage_encrypted: bool,
    db_name: &'p str,
    username: &'p str,
    /// Write-only: not read back, but kept in the state's inputs as a Pulumi secret
    /// (pulumi-terraform-bridge#3201; docs/pulumi.md, "What reaches the state").
    password_wo: String,
    password_wo_version: String,
    db_subnet_group_name: String,
    vpc_security_group_ids: Vec<String>,
    publicly_accessible: bool,
    #[serde(flatten)]
    protection: Protection<'p>,
    /// As planned (production); RDS picks one when left out.
    backup_window: Option<&'p str>,
    maintenance_window: Option<&'p str>,
    apply_immediately: bool,
    region: &'p str,
    tags: Tags<'p>,
}

/// Backups, deletion protection and the final snapshot of an instance or cluster.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Protection<'p> {
    backup_retention_period: u32,
    deletion_protection: bool,
    skip_final_snapshot: bool,
    final_snapshot_identifier: Option<&'p str>,
    copy_tags_to_snapshot: bool,
}

impl<'p> Protection<'p> {
    fn of(p: &'p DatabaseProtection) -> Self {
        Protection {
            backup_retention_period: p.backup_retention_days,
            deletion_protection: p.deletion_protection,
            skip_final_snapshot: p.final_snapshot.is_none(),
            final_snapshot_identifier: p.final_snapshot.as_deref(),
            copy_tags_to_snapshot: p.copy_tags_to_snapshot,
        }
    }
}

/// An RDS PostgreSQL instance, encrypted and private as planned, kept as planned; its admin
/// password is read from its SSM SecureString into the write-only `passwordWo`.
pub(super) fn instance<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    spec: &'p RdsInstanceSpec,
) -> Result<(), RenderError> {
    let RdsInstanceSpec {
        resource: _,
        engine_version,
        size,
        storage_type,
        database,
        username,
        admin_secret,
        admin_password_parameter,
        subnet_group,
        security_groups,
        storage_encrypted,
        publicly_accessible,
        protection,
        apply_immediately,
    } = spec;
    cx.item(admin_secret)?;
    let props = Instance {
        identifier: &item.physical_name,
        engine: "postgres",
        engine_version,
        instance_class: &size.instance_class,
        allocated_storage: size.storage_gb,
        max_allocated_storage: size.max_storage_gb,
        storage_type,
        multi_az: size.multi_az,
        storage_encrypted: *storage_encrypted,
        db_name: database,
        username,
        password_wo: cx.decrypted_parameter(admin_password_parameter)?,
        password_wo_version: cx.parameter_version(admin_password_parameter)?,
        db_subnet_group_name: cx.reference(subnet_group, "name")?,
        vpc_security_group_ids: network::group_ids(cx, security_groups)?,
        publicly_accessible: *publicly_accessible,
        protection: Protection::of(protection),
        backup_window: protection.backup_window.as_deref(),
        maintenance_window: protection.maintenance_window.as_deref(),
        apply_immediately: *apply_immediately,
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:rds/instance:Instance", props)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AuroraCluster<'p> {
    cluster_identifier: &'p str,
    engine: &'static str,
    engine_version: &'p str,
    database_name: &'p str,
    master_username: &'p str,
    /// Write-only: not read back, but kept in the state's inputs as a Pulumi secret
    /// (pulumi-terraform-bridge#3201; docs/pulumi.md, "What reaches the state").
    master_password_wo: String,
    master_password_wo_version: String,
    db_subnet_group_name: String,
    vpc_security_group_ids: Vec<String>,
    storage_encrypted: bool,
    #[serde(flatten)]
    protection: Protection<'p>,
    /// As planned (production); RDS picks one when left out.
    preferred_backup_window: Option<&'p str>,
    preferred_maintenance_window: Option<&'p str>,
    apply_immediately: bool,
    region: &'p str,
    tags: Tags<'p>,
}

/// An Aurora PostgreSQL cluster, encrypted and kept as planned; its admin password is read from
/// its SSM SecureString into the write-only `masterPasswordWo`.
pub(super) fn aurora_cluster<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    spec: &'p AuroraClusterSpec,
) -> Result<(), RenderError> {
    let AuroraClusterSpec {
        engine_version,
        database,
        username,
        admin_secret,
        admin_password_parameter,
        subnet_group,
        security_groups,
        storage_encrypted,
        protection,
        apply_immediately,
        ..
    } = spec;
    cx.item(admin_secret)?;
    let props = AuroraCluster {
        cluster_identifier: &item.physical_name,
        engine: "aurora-postgresql",
        engine_version,
        database_name: database,
        master_username: username,
        master_password_wo: cx.decrypted_parameter(admin_password_parameter)?,
        master_password_wo_version: cx.parameter_version(admin_password_parameter)?,
        db_subnet_group_name: cx.reference(subnet_group, "name")?,
        vpc_security_group_ids: network::group_ids(cx, security_groups)?,
        storage_encrypted: *storage_encrypted,
        protection: Protection::of(protection),
        preferred_backup_window: protection.backup_window.as_deref(),
        preferred_maintenance_window: protection.maintenance_window.as_deref(),
        apply_immediately: *apply_immediately,
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:rds/cluster:Cluster", props)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AuroraInstance<'p> {
    identifier: &'p str,
    cluster_identifier: String,
    engine: &'static str,
    instance_class: &'p str,
    db_subnet_group_name: String,
    publicly_accessible: bool,
    /// Its cluster's planned window: each Aurora instance has a maintenance window of its own.
    preferred_maintenance_window: Option<&'p str>,
    apply_immediately: bool,
    region: &'p str,
    tags: Tags<'p>,
}

/// One instance of an Aurora cluster, in its cluster's subnet group and maintenance window.
pub(super) fn aurora_instance<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    cluster: &'p CompactString,
    instance_class: &'p CompactString,
    publicly_accessible: &'p bool,
    apply_immediately: &'p bool,
) -> Result<(), RenderError> {
    let ItemSpec::AuroraCluster(spec) = &cx.item(cluster)?.spec else {
        return Err(cx.missing("an Aurora cluster as its `cluster`"));
    };
    let AuroraClusterSpec { subnet_group, protection, .. } = &**spec;
    let props = AuroraInstance {
        identifier: &item.physical_name,
        cluster_identifier: cx.reference(cluster, "id")?,
        engine: "aurora-postgresql",
        instance_class,
        db_subnet_group_name: cx.reference(subnet_group, "name")?,
        publicly_accessible: *publicly_accessible,
        preferred_maintenance_window: protection.maintenance_window.as_deref(),
        apply_immediately: *apply_immediately,
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:rds/clusterInstance:ClusterInstance", props)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProxySecret<'p> {
    name: &'p str,
    description: String,
    region: &'p str,
    tags: Tags<'p>,
}

/// The secret RDS Proxy authenticates with; `runway secrets prepare` writes its value.
pub(super) fn proxy_secret<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    resource: &'p CompactString,
) -> Result<(), RenderError> {
    let props = ProxySecret {
        name: &item.physical_name,
        description: format!(
            "RDS Proxy admin credential of {resource}; the value is written by `runway secrets prepare`"
        ),
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:secretsmanager/secret:Secret", props)
}

#[derive(Serialize)]
struct SecretByName<'p> {
    name: &'p str,
    region: &'p str,
}

/// The proxy secret when the secrets adapter creates it: looked up by name.
pub(super) fn look_up_proxy_secret<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    name: &'p CompactString,
) -> Result<(), RenderError> {
    let lookup = invoke("aws:secretsmanager:getSecret", SecretByName { name, region: cx.region() });
    cx.variable(item, item.id.to_string(), &lookup)
}

/// The role RDS Proxy assumes: it may read the admin's secret and the logins', no other; in
/// the environment previews are `from`, also every preview's login secrets on it (`previews`,
/// the names' pattern: Secrets Manager ends a secret's ARN with its name and six characters).
pub(super) fn proxy_role<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    secret: &'p CompactString,
    (logins, previews): (&'p [CompactString], Option<&'p str>),
) -> Result<(), RenderError> {
    let mut arns = vec![cx.reference(secret, "arn")?];
    for login in logins {
        arns.push(cx.reference(login, "arn")?);
    }
    if let Some(pattern) = previews {
        let (region, account) = (cx.region(), cx.account());
        arns.push(format!("arn:aws:secretsmanager:{region}:{account}:secret:{pattern}"));
    }
    let read = Statement::allow(Action::One("secretsmanager:GetSecretValue"), arns);
    iam::role_with_policy(cx, item, iam::Assumer::Rds, "read-proxy-secret", vec![read])
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Proxy<'p> {
    name: &'p str,
    engine_family: &'p str,
    role_arn: String,
    require_tls: bool,
    vpc_subnet_ids: String,
    vpc_security_group_ids: Vec<String>,
    auths: Vec<Auth>,
    region: &'p str,
    tags: Tags<'p>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Auth {
    auth_scheme: &'static str,
    iam_auth: &'static str,
    secret_arn: String,
}

/// The proxy, in the private subnets, authenticating with the secret.
pub(super) fn proxy<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    spec: &'p RdsProxySpec,
) -> Result<(), RenderError> {
    let RdsProxySpec { engine_family, secret, logins, role, require_tls, security_groups, .. } = spec;
    let mut auths = Vec::with_capacity(1 + logins.len());
    // The admin's (the bootstrap of the roles logs in with it), then each consumer's login.
    for s in std::iter::once(secret).chain(logins) {
        auths.push(Auth {
            auth_scheme: "SECRETS",
            iam_auth: "DISABLED",
            secret_arn: cx.reference(s, "arn")?,
        });
    }
    let props = Proxy {
        name: &item.physical_name,
        engine_family,
        role_arn: cx.reference(role, "arn")?,
        require_tls: *require_tls,
        vpc_subnet_ids: cx.input(Input::PrivateSubnetIds),
        vpc_security_group_ids: network::group_ids(cx, security_groups)?,
        auths,
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:rds/proxy:Proxy", props)
}

/// Has no `tags` input.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProxyTargetGroup<'p> {
    db_proxy_name: String,
    region: &'p str,
}

/// The proxy's `default` target group.
pub(super) fn proxy_target_group<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    proxy: &'p CompactString,
) -> Result<(), RenderError> {
    let props = ProxyTargetGroup { db_proxy_name: cx.reference(proxy, "name")?, region: cx.region() };
    cx.declare(item, "aws:rds/proxyDefaultTargetGroup:ProxyDefaultTargetGroup", props)
}

/// Has no `tags` input; names either an instance or a cluster.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProxyTarget<'p> {
    db_proxy_name: String,
    target_group_name: String,
    db_instance_identifier: Option<String>,
    db_cluster_identifier: Option<String>,
    region: &'p str,
}

/// The proxy's target: the RDS instance or the Aurora cluster.
pub(super) fn proxy_target<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    proxy: &'p CompactString,
    target_group: &'p CompactString,
    target: &'p CompactString,
) -> Result<(), RenderError> {
    // A projection: a proxy targets an RDS instance or an Aurora cluster, nothing else.
    let kind = cx.item(target)?.kind();
    let (instance, cluster) = if kind == ItemKind::RdsInstance {
        (Some(cx.reference(target, "identifier")?), None)
    } else if kind == ItemKind::AuroraCluster {
        (None, Some(cx.reference(target, "clusterIdentifier")?))
    } else {
        return Err(cx.missing("an RDS instance or Aurora cluster as its target"));
    };
    let props = ProxyTarget {
        db_proxy_name: cx.reference(proxy, "name")?,
        target_group_name: cx.reference(target_group, "name")?,
        db_instance_identifier: instance,
        db_cluster_identifier: cluster,
        region: cx.region(),
    };
    cx.declare(item, "aws:rds/proxyTarget:ProxyTarget", props)
}
