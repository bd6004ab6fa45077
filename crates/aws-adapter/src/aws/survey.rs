//! `runway preflight`'s reads of the network and the account: subnets and their routes, VPC
//! endpoints, security groups, the certificate, the ECS service-linked role, service quotas.
//! Only `Describe*`, `Get*` and `List*`; each returns the facts as found.

use aws_sdk_ec2::types::Filter;

use super::{AwsClients, RemoteError};

/// A subnet as found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubnetFacts {
    /// `subnet-...`.
    pub id: String,
    /// Its VPC.
    pub vpc_id: String,
    /// Its Availability Zone (`us-east-1a`).
    pub zone: String,
    /// Where its traffic to `0.0.0.0/0` goes (through its own route table, else the VPC's main).
    pub default_route: DefaultRoute,
}

/// Where a subnet's default route (`0.0.0.0/0`) leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefaultRoute {
    /// No default route: nothing leaves the VPC (but through endpoints).
    None,
    /// An internet gateway (`igw-...`): a public subnet.
    InternetGateway(String),
    /// A NAT gateway (`nat-...`).
    Nat(String),
    /// Something else that routes out: a NAT instance, a transit gateway, a firewall, ...
    Other(String),
}

/// The certificate as found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CertificateFacts {
    /// `ISSUED`, `PENDING_VALIDATION`, `EXPIRED`, ...
    pub status: String,
    /// Its domain name and subject alternative names.
    pub names: Vec<String>,
    /// When it expires, in seconds since the Unix epoch.
    pub not_after: Option<i64>,
}

/// A hosted zone as found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ZoneFacts {
    /// Its name, without the trailing dot (`dev.acme.example`).
    pub name: String,
    /// A private zone (answers inside its VPCs only).
    pub private: bool,
}

fn ec2_filter(name: &str, values: &[String]) -> Filter {
    Filter::builder().name(name).set_values(Some(values.to_vec())).build()
}

impl AwsClients {
    /// The subnets of `ids` that exist, with the default route of each; a missing one is
    /// simply absent.
    pub async fn subnets(&self, ids: &[String]) -> Result<Vec<SubnetFacts>, RemoteError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        // A filter, not `SubnetIds`: a missing id is left out instead of failing the call.
        let out = self
            .ec2
            .describe_subnets()
            .filters(ec2_filter("subnet-id", ids))
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("DescribeSubnets", e))?;
        let mut found: Vec<SubnetFacts> = out
            .subnets()
            .iter()
            .map(|s| SubnetFacts {
                id: s.subnet_id().unwrap_or_default().to_owned(),
                vpc_id: s.vpc_id().unwrap_or_default().to_owned(),
                zone: s.availability_zone().unwrap_or_default().to_owned(),
                default_route: DefaultRoute::None,
            })
            .collect();
        let vpcs: Vec<String> = found.iter().map(|s| s.vpc_id.clone()).collect();
        let tables = self
            .ec2
            .describe_route_tables()
            .filters(ec2_filter("vpc-id", &vpcs))
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("DescribeRouteTables", e))?;
        for subnet in &mut found {
            let in_vpc = |t: &&aws_sdk_ec2::types::RouteTable| t.vpc_id() == Some(subnet.vpc_id.as_str());
            let own = tables
                .route_tables()
                .iter()
                .filter(in_vpc)
                .find(|t| t.associations().iter().any(|a| a.subnet_id() == Some(subnet.id.as_str())));
            let main = || {
                tables
                    .route_tables()
                    .iter()
                    .filter(in_vpc)
                    .find(|t| t.associations().iter().any(|a| a.main() == Some(true)))
            };
            if let Some(table) = own.or_else(main) {
                subnet.default_route = default_route(table.routes());
            }
        }
        Ok(found)
    }

    /// The service names of the VPC's endpoints that are `available`.
    pub async fn vpc_endpoints(&self, vpc_id: &str) -> Result<Vec<String>, RemoteError> {
        let out = self
            .ec2
            .describe_vpc_endpoints()
            .filters(ec2_filter("vpc-id", &[vpc_id.to_owned()]))
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("DescribeVpcEndpoints", e))?;
        Ok(out
            .vpc_endpoints()
            .iter()
            .filter(|e| e.state().is_none_or(|s| s.as_str().eq_ignore_ascii_case("available")))
            .filter_map(|e| e.service_name().map(str::to_owned))
            .collect())
    }

    /// `(group id, VPC id)` of the security groups of `ids` that exist.
    pub async fn security_group_vpcs(&self, ids: &[String]) -> Result<Vec<(String, String)>, RemoteError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let out = self
            .ec2
            .describe_security_groups()
            .filters(ec2_filter("group-id", ids))
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("DescribeSecurityGroups", e))?;
        Ok(out
            .security_groups()
            .iter()
            .map(|g| (g.group_id().unwrap_or_default().to_owned(), g.vpc_id().unwrap_or_default().to_owned()))
            .collect())
    }

    /// The certificate `arn`; `None` when ACM has no such certificate.
    pub async fn certificate(&self, arn: &str) -> Result<Option<CertificateFacts>, RemoteError> {
        let out = match self.acm.describe_certificate().certificate_arn(arn).send().await {
            Ok(out) => out,
            Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception()) => {
                return Ok(None);
            }
            Err(e) => return Err(RemoteError::from_sdk("DescribeCertificate", e)),
        };
        let Some(c) = out.certificate() else { return Ok(None) };
        let mut names: Vec<String> = c.domain_name().map(str::to_owned).into_iter().collect();
        for name in c.subject_alternative_names() {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
        Ok(Some(CertificateFacts {
            status: c.status().map(|s| s.as_str().to_owned()).unwrap_or_default(),
            names,
            not_after: c.not_after().map(aws_smithy_types_secs),
        }))
    }

    /// The hosted zone `id` (`Z...`, or `/hostedzone/Z...`); `None` when there is none.
    pub async fn hosted_zone(&self, id: &str) -> Result<Option<ZoneFacts>, RemoteError> {
        let id = id.trim_start_matches("/hostedzone/");
        let out = match self.route53.get_hosted_zone().id(id).send().await {
            Ok(out) => out,
            Err(e) if e.as_service_error().is_some_and(|s| s.is_no_such_hosted_zone()) => return Ok(None),
            Err(e) => return Err(RemoteError::from_sdk("GetHostedZone", e)),
        };
        Ok(out.hosted_zone().map(|z| ZoneFacts {
            name: z.name().trim_end_matches('.').to_ascii_lowercase(),
            private: z.config().is_some_and(|c| c.private_zone()),
        }))
    }

    /// Does the IAM role `name` exist?
    pub async fn role_exists(&self, name: &str) -> Result<bool, RemoteError> {
        match self.iam.get_role().role_name(name).send().await {
            Ok(_) => Ok(true),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_no_such_entity_exception()) => Ok(false),
            Err(e) => Err(RemoteError::from_sdk("GetRole", e)),
        }
    }

    /// The applied value of a service quota; the AWS default when the account never changed it
    /// (`GetServiceQuota` then answers `NoSuchResourceException`).
    pub async fn service_quota(&self, service: &str, quota: &str) -> Result<Option<f64>, RemoteError> {
        let applied = self.quotas.get_service_quota().service_code(service).quota_code(quota).send().await;
        match applied {
            Ok(out) => return Ok(out.quota().and_then(|q| q.value())),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_no_such_resource_exception()) => {}
            Err(e) => return Err(RemoteError::from_sdk("GetServiceQuota", e)),
        }
        let default =
            self.quotas.get_aws_default_service_quota().service_code(service).quota_code(quota).send().await;
        match default {
            Ok(out) => Ok(out.quota().and_then(|q| q.value())),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_no_such_resource_exception()) => Ok(None),
            Err(e) => Err(RemoteError::from_sdk("GetAWSDefaultServiceQuota", e)),
        }
    }
}

/// Seconds since the epoch of an SDK time.
fn aws_smithy_types_secs(t: &aws_sdk_acm::primitives::DateTime) -> i64 {
    t.secs()
}

/// Where the `0.0.0.0/0` route of a table leads.
fn default_route(routes: &[aws_sdk_ec2::types::Route]) -> DefaultRoute {
    // A blackhole route (its NAT or gateway deleted) leads nowhere.
    let live = |r: &&aws_sdk_ec2::types::Route| r.state().is_none_or(|s| s.as_str() != "blackhole");
    let Some(route) = routes.iter().filter(live).find(|r| r.destination_cidr_block() == Some("0.0.0.0/0"))
    else {
        return DefaultRoute::None;
    };
    if let Some(nat) = route.nat_gateway_id() {
        return DefaultRoute::Nat(nat.to_owned());
    }
    match route.gateway_id() {
        Some(g) if g.starts_with("igw-") => DefaultRoute::InternetGateway(g.to_owned()),
        Some(g) => DefaultRoute::Other(g.to_owned()),
        None => {
            let target = route
                .transit_gateway_id()
                .or(route.network_interface_id())
                .or(route.instance_id())
                .or(route.vpc_peering_connection_id())
                .unwrap_or("another target");
            DefaultRoute::Other(target.to_owned())
        }
    }
}
