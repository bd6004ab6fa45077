//! `runway drift`'s reads (reads only): the resources carrying an environment's tags (the
//! Resource Groups Tagging API's `GetResources`), the SSM parameters under its prefix
//! (`DescribeParameters`, names and tiers, never values), the account's DB instances
//! (`DescribeDBInstances`), replication groups (`DescribeReplicationGroups`) and the named ECS
//! services of a cluster (`DescribeServices`). The facts come back as found; the plan's side
//! compares them (`runtime_plan::drift`).

use aws_sdk_ssm::types::{ParameterStringFilter, ParameterTier};

use super::{AwsClients, RemoteError, Scope};

/// A resource carrying the scope's tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaggedArn {
    /// Its ARN.
    pub arn: String,
    /// Its tags, `(key, value)` as listed.
    pub tags: Vec<(String, String)>,
}

impl TaggedArn {
    /// The value of tag `key`, when it has it.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// An SSM parameter's name and tier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParameterName {
    /// Its name.
    pub name: String,
    /// Advanced tier.
    pub advanced: bool,
}

/// A DB instance's identity and size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbInstanceFacts {
    /// Its identifier.
    pub identifier: String,
    /// Its class.
    pub instance_class: String,
    /// Its engine (`postgres`, `aurora-postgresql`).
    pub engine: String,
    /// Multi-AZ.
    pub multi_az: bool,
    /// Its status (`available`, `creating`, `deleting`, ...).
    pub status: String,
}

/// A replication group's id and size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheFacts {
    /// Its id.
    pub id: String,
    /// Its node type.
    pub node_type: String,
    /// Its member clusters.
    pub nodes: u32,
}

/// An ECS service's name and desired count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceCount {
    /// The service name.
    pub name: String,
    /// Its desired count.
    pub desired_count: u32,
}

impl AwsClients {
    /// Every resource the Tagging API lists under the scope's `product` and `environment`
    /// tags, in the order listed.
    pub async fn tagged_resources(&self, scope: &Scope) -> Result<Vec<TaggedArn>, RemoteError> {
        use aws_sdk_resourcegroupstagging::types::TagFilter;
        let filter = |k: &str, v: &str| TagFilter::builder().key(k).values(v).build();
        let mut found = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let page = self
                .tagging
                .get_resources()
                .tag_filters(filter("product", &scope.product))
                .tag_filters(filter("environment", &scope.environment))
                .set_pagination_token(token.take())
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("GetResources", e))?;
            for r in page.resource_tag_mapping_list() {
                let Some(arn) = r.resource_arn() else { continue };
                let tags = r.tags().iter().map(|t| (t.key().to_owned(), t.value().to_owned())).collect();
                found.push(TaggedArn { arn: arn.to_owned(), tags });
            }
            match page.pagination_token().filter(|t| !t.is_empty()) {
                Some(t) => token = Some(t.to_owned()),
                None => return Ok(found),
            }
        }
    }

    /// Every SSM parameter under `prefix` (recursively): names and tiers, never values.
    pub async fn parameters_under(&self, prefix: &str) -> Result<Vec<ParameterName>, RemoteError> {
        let path =
            ParameterStringFilter::builder().key("Path").option("Recursive").values(prefix).build().map_err(
                |e| RemoteError {
                    operation: "DescribeParameters",
                    code: None,
                    message: Some(super::one_line(&e.to_string())),
                    remedy: None,
                    cause: None,
                },
            )?;
        let mut found = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let page = self
                .ssm
                .describe_parameters()
                .parameter_filters(path.clone())
                .set_next_token(token.take())
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("DescribeParameters", e))?;
            for p in page.parameters() {
                let Some(name) = p.name() else { continue };
                found.push(ParameterName {
                    name: name.to_owned(),
                    advanced: p.tier() == Some(&ParameterTier::Advanced),
                });
            }
            match page.next_token() {
                Some(t) => token = Some(t.to_owned()),
                None => return Ok(found),
            }
        }
    }

    /// The account's DB instances in the region.
    pub async fn db_instances(&self) -> Result<Vec<DbInstanceFacts>, RemoteError> {
        let mut found = Vec::new();
        let mut marker: Option<String> = None;
        loop {
            let page = self
                .rds
                .describe_db_instances()
                .set_marker(marker.take())
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("DescribeDBInstances", e))?;
            for d in page.db_instances() {
                found.push(DbInstanceFacts {
                    identifier: d.db_instance_identifier().unwrap_or_default().to_owned(),
                    instance_class: d.db_instance_class().unwrap_or_default().to_owned(),
                    engine: d.engine().unwrap_or_default().to_owned(),
                    multi_az: d.multi_az().unwrap_or(false),
                    status: d.db_instance_status().unwrap_or_default().to_owned(),
                });
            }
            match page.marker() {
                Some(m) => marker = Some(m.to_owned()),
                None => return Ok(found),
            }
        }
    }

    /// The account's replication groups in the region.
    pub async fn replication_groups(&self) -> Result<Vec<CacheFacts>, RemoteError> {
        let mut found = Vec::new();
        let mut marker: Option<String> = None;
        loop {
            let page = self
                .elasticache
                .describe_replication_groups()
                .set_marker(marker.take())
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("DescribeReplicationGroups", e))?;
            for g in page.replication_groups() {
                found.push(CacheFacts {
                    id: g.replication_group_id().unwrap_or_default().to_owned(),
                    node_type: g.cache_node_type().unwrap_or_default().to_owned(),
                    nodes: u32::try_from(g.member_clusters().len()).unwrap_or(u32::MAX),
                });
            }
            match page.marker() {
                Some(m) => marker = Some(m.to_owned()),
                None => return Ok(found),
            }
        }
    }

    /// The desired counts of the named services of `cluster` that exist (ten per call; a
    /// missing service or cluster is left out).
    pub async fn service_counts(
        &self,
        cluster: &str,
        services: &[String],
    ) -> Result<Vec<ServiceCount>, RemoteError> {
        let mut found = Vec::new();
        for chunk in services.chunks(10) {
            let answer =
                self.ecs.describe_services().cluster(cluster).set_services(Some(chunk.to_vec())).send().await;
            let answer = match answer {
                Ok(a) => a,
                // No cluster: no service of it exists.
                Err(e) if e.as_service_error().is_some_and(|s| s.is_cluster_not_found_exception()) => {
                    return Ok(found);
                }
                Err(e) => return Err(RemoteError::from_sdk("DescribeServices", e)),
            };
            for s in answer.services() {
                if s.status() == Some("INACTIVE") {
                    continue;
                }
                found.push(ServiceCount {
                    name: s.service_name().unwrap_or_default().to_owned(),
                    desired_count: u32::try_from(s.desired_count()).unwrap_or(0),
                });
            }
        }
        Ok(found)
    }
}
