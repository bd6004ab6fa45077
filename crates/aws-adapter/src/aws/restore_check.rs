//! `runway restore`'s check of a copy (`restore.check`): the temporary security group that lets
//! the check task reach the copy, and nothing else. The group (`<copy>-check`, in the copy's
//! VPC, tagged) admits itself on the PostgreSQL port and sends only there; it is added to the
//! copy beside its own groups (`ModifyDBInstance`, or `ModifyDBCluster` for an Aurora copy: the
//! cluster's groups are its writer's), given to the task beside the bootstrap's, then taken off
//! the copy and deleted. Every call is safe to repeat: a group that exists is found by its name,
//! a rule that exists is kept, a group gone is done. The live instance or cluster is never
//! touched.

use aws_sdk_ec2::error::ProvideErrorMetadata;
use aws_sdk_ec2::types::{Filter, IpPermission, ResourceType, Tag, TagSpecification, UserIdGroupPair};

use aws_sdk_rds::operation::modify_db_cluster::ModifyDBClusterError;
use aws_sdk_rds::operation::modify_db_instance::ModifyDBInstanceError;

use super::restore::changed;
use super::{AwsClients, DbKind, RemoteError};

/// PostgreSQL's port, the only one the group opens.
const PORT: i32 = 5432;

/// Where a copy is, and what it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyNetwork {
    /// The VPC of its subnet group.
    pub vpc: Option<String>,
    /// Its security groups' ids.
    pub security_groups: Vec<String>,
    /// Its address once there is one: an instance's `Endpoint.Address`, a cluster's `Endpoint`
    /// (its writer's).
    pub address: Option<String>,
    /// `DBInstanceStatus` or the cluster's `Status` (`available`, `modifying`, ...).
    pub status: String,
    /// Its tags (`TagList`).
    pub tags: Vec<(String, String)>,
    /// Whether each of its groups' memberships is `active` (a group just added or removed is
    /// `adding` or `removing` a while after the copy says `available`).
    pub groups_settled: bool,
}

/// How a deletion of the group went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupDeletion {
    /// Deleted, or gone already.
    Gone,
    /// Still in use (the copy's change not applied yet, or the task's network interface not
    /// released yet): try again after a pause.
    InUse,
}

fn tag_pairs(tags: &[aws_sdk_rds::types::Tag]) -> Vec<(String, String)> {
    tags.iter()
        .filter_map(|t| Some((t.key()?.to_owned(), t.value().unwrap_or_default().to_owned())))
        .collect()
}

fn group_ids(groups: &[aws_sdk_rds::types::VpcSecurityGroupMembership]) -> Vec<String> {
    groups.iter().filter_map(|g| g.vpc_security_group_id()).map(str::to_owned).collect()
}

fn settled(groups: &[aws_sdk_rds::types::VpcSecurityGroupMembership]) -> bool {
    groups.iter().all(|g| g.status().is_none_or(|s| s == "active"))
}

impl AwsClients {
    /// The copy's VPC, groups, address, status and tags; `None` when it does not exist. A
    /// cluster names only its subnet group: its VPC is that group's (`DescribeDBSubnetGroups`).
    pub async fn copy_network(&self, kind: DbKind, copy: &str) -> Result<Option<CopyNetwork>, RemoteError> {
        match kind {
            DbKind::Instance => Ok(self.describe_instance(copy).await?.map(|d| CopyNetwork {
                vpc: d.db_subnet_group().and_then(|g| g.vpc_id()).map(str::to_owned),
                security_groups: group_ids(d.vpc_security_groups()),
                address: d.endpoint().and_then(|e| e.address()).map(str::to_owned),
                status: d.db_instance_status().unwrap_or_default().to_owned(),
                tags: tag_pairs(d.tag_list()),
                groups_settled: settled(d.vpc_security_groups()),
            })),
            DbKind::Cluster => {
                let Some(c) = self.describe_cluster(copy).await? else { return Ok(None) };
                let vpc = match c.db_subnet_group() {
                    Some(name) => self.subnet_group_vpc(name).await?,
                    None => None,
                };
                Ok(Some(CopyNetwork {
                    vpc,
                    security_groups: group_ids(c.vpc_security_groups()),
                    address: c.endpoint().map(str::to_owned),
                    status: c.status().unwrap_or_default().to_owned(),
                    tags: tag_pairs(c.tag_list()),
                    groups_settled: settled(c.vpc_security_groups()),
                }))
            }
        }
    }

    /// The VPC of the DB subnet group `name`; `None` when there is no such group.
    async fn subnet_group_vpc(&self, name: &str) -> Result<Option<String>, RemoteError> {
        let sent = self.rds.describe_db_subnet_groups().db_subnet_group_name(name).send().await;
        match sent {
            Ok(out) => Ok(out.db_subnet_groups().first().and_then(|g| g.vpc_id()).map(str::to_owned)),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_db_subnet_group_not_found_fault()) => {
                Ok(None)
            }
            Err(e) => Err(RemoteError::from_sdk("DescribeDBSubnetGroups", e)),
        }
    }

    /// The id of the group `name` in `vpc`, when it exists.
    pub async fn check_group(&self, vpc: &str, name: &str) -> Result<Option<String>, RemoteError> {
        let filter = |key: &str, value: &str| Filter::builder().name(key).values(value).build();
        let out = self
            .ec2
            .describe_security_groups()
            .filters(filter("group-name", name))
            .filters(filter("vpc-id", vpc))
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("DescribeSecurityGroups", e))?;
        Ok(out.security_groups().iter().find_map(|g| g.group_id()).map(str::to_owned))
    }

    /// Makes the group `name` in `vpc` (or finds it) with its two rules: in from itself on
    /// 5432, out to itself on 5432 (EC2's default rule out to anywhere removed). Its id.
    pub async fn ensure_check_group(
        &self,
        vpc: &str,
        name: &str,
        tags: &[(String, String)],
    ) -> Result<String, RemoteError> {
        let id = match self.check_group(vpc, name).await? {
            Some(id) => id,
            None => {
                let tags = TagSpecification::builder()
                    .resource_type(ResourceType::SecurityGroup)
                    .set_tags(Some(
                        tags.iter().map(|(k, v)| Tag::builder().key(k).value(v).build()).collect(),
                    ))
                    .build();
                let made = self
                    .ec2
                    .create_security_group()
                    .group_name(name)
                    .description("runway restore: a check task reaches a restored copy (temporary)")
                    .vpc_id(vpc)
                    .tag_specifications(tags)
                    .send()
                    .await;
                match made {
                    Ok(out) => out.group_id().unwrap_or_default().to_owned(),
                    // Made by a concurrent run between the look and the call.
                    Err(e) if e.code() == Some("InvalidGroup.Duplicate") => {
                        self.check_group(vpc, name).await?.unwrap_or_default()
                    }
                    Err(e) => return Err(RemoteError::from_sdk("CreateSecurityGroup", e)),
                }
            }
        };
        let to_itself = IpPermission::builder()
            .ip_protocol("tcp")
            .from_port(PORT)
            .to_port(PORT)
            .user_id_group_pairs(UserIdGroupPair::builder().group_id(&id).build())
            .build();
        let sent = self
            .ec2
            .authorize_security_group_ingress()
            .group_id(&id)
            .ip_permissions(to_itself.clone())
            .send()
            .await;
        if let Err(e) = sent
            && e.code() != Some("InvalidPermission.Duplicate")
        {
            return Err(RemoteError::from_sdk("AuthorizeSecurityGroupIngress", e));
        }
        let sent =
            self.ec2.authorize_security_group_egress().group_id(&id).ip_permissions(to_itself).send().await;
        if let Err(e) = sent
            && e.code() != Some("InvalidPermission.Duplicate")
        {
            return Err(RemoteError::from_sdk("AuthorizeSecurityGroupEgress", e));
        }
        let anywhere = IpPermission::builder()
            .ip_protocol("-1")
            .ip_ranges(aws_sdk_ec2::types::IpRange::builder().cidr_ip("0.0.0.0/0").build())
            .build();
        let sent =
            self.ec2.revoke_security_group_egress().group_id(&id).ip_permissions(anywhere).send().await;
        if let Err(e) = sent
            && e.code() != Some("InvalidPermission.NotFound")
        {
            return Err(RemoteError::from_sdk("RevokeSecurityGroupEgress", e));
        }
        Ok(id)
    }

    /// Gives the copy exactly `groups`, at once (`ModifyDBInstance`, or `ModifyDBCluster` for a
    /// cluster); `false` when the copy does not exist.
    pub async fn set_copy_groups(
        &self,
        kind: DbKind,
        copy: &str,
        groups: &[String],
    ) -> Result<bool, RemoteError> {
        let groups = Some(groups.to_vec());
        match kind {
            DbKind::Instance => {
                let call = self.rds.modify_db_instance().db_instance_identifier(copy);
                let sent = call.set_vpc_security_group_ids(groups).apply_immediately(true).send().await;
                changed("ModifyDBInstance", sent, ModifyDBInstanceError::is_db_instance_not_found_fault)
            }
            DbKind::Cluster => {
                let call = self.rds.modify_db_cluster().db_cluster_identifier(copy);
                let sent = call.set_vpc_security_group_ids(groups).apply_immediately(true).send().await;
                changed("ModifyDBCluster", sent, ModifyDBClusterError::is_db_cluster_not_found_fault)
            }
        }
    }

    /// Deletes the group `id`.
    pub async fn delete_check_group(&self, id: &str) -> Result<GroupDeletion, RemoteError> {
        match self.ec2.delete_security_group().group_id(id).send().await {
            Ok(_) => Ok(GroupDeletion::Gone),
            Err(e) if e.code() == Some("InvalidGroup.NotFound") => Ok(GroupDeletion::Gone),
            Err(e) if e.code() == Some("DependencyViolation") => Ok(GroupDeletion::InUse),
            Err(e) => Err(RemoteError::from_sdk("DeleteSecurityGroup", e)),
        }
    }
}
