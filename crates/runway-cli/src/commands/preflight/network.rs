//! The network the stack settings name: the subnets (there, distinct, in two zones, private
//! ones private with a route out where the plan needs one, public ones public), the VPC
//! endpoints an `existing` VPC must have, the members' security groups in the VPC.

use std::collections::BTreeSet;

use aws_adapter::aws::{AwsClients, DefaultRoute, SubnetFacts};
use pulumi_program::StackInputs;
use runtime_plan::Finding;
use runtime_plan::preflight::Expectations;

use super::not_checked;

/// Fewest zones the ALB, RDS Proxy and DB subnet groups accept.
const MIN_ZONES: usize = 2;

/// The findings of the network.
pub(crate) async fn check(
    aws: &AwsClients,
    expected: &Expectations,
    inputs: &StackInputs,
    public: bool,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut ids = inputs.private_subnets.clone();
    if public {
        ids.extend(inputs.public_subnets.iter().cloned());
    }
    match aws.subnets(&ids).await {
        Ok(found) => {
            findings.extend(subnets(
                "privateSubnetIds",
                &inputs.private_subnets,
                &found,
                inputs,
                true,
                expected,
            ));
            if public {
                findings.extend(subnets(
                    "publicSubnetIds",
                    &inputs.public_subnets,
                    &found,
                    inputs,
                    false,
                    expected,
                ));
            }
            let both: Vec<&String> =
                inputs.private_subnets.iter().filter(|s| inputs.public_subnets.contains(s)).collect();
            if public && !both.is_empty() {
                findings.push(Finding::error(
                    "subnets",
                    both[0],
                    format!("{} is both a private and a public subnet", join(&both)),
                    "a subnet is private (no route to an internet gateway) or public: give each list its own",
                ));
            }
        }
        Err(e) => findings.push(not_checked("subnets", "subnets", &e)),
    }
    if !expected.existing_endpoints.is_empty() {
        findings.extend(endpoints(aws, expected, inputs).await);
    }
    if !inputs.member_security_groups.is_empty() {
        findings.extend(member_groups(aws, inputs).await);
    }
    findings
}

/// One subnet list: every id there, distinct, in the VPC, in two zones; private ones without a
/// route to an internet gateway and with a route out when needed; public ones with one.
fn subnets(
    input: &str,
    ids: &[String],
    found: &[SubnetFacts],
    inputs: &StackInputs,
    private: bool,
    expected: &Expectations,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut seen = BTreeSet::new();
    for id in ids {
        if !seen.insert(id) {
            findings.push(Finding::error(
                "subnets",
                id,
                format!("`{input}` lists {id} twice: the program needs distinct subnets in two zones"),
                format!("list another subnet of another zone in `{input}`"),
            ));
        }
    }
    let mine: Vec<&SubnetFacts> = found.iter().filter(|s| ids.contains(&s.id)).collect();
    for id in ids.iter().filter(|id| !mine.iter().any(|s| &s.id == *id)).collect::<BTreeSet<_>>() {
        findings.push(Finding::error(
            "subnets",
            id,
            format!("the subnet {id} of `{input}` does not exist in this account and region"),
            "check the id and the region (`aws ec2 describe-subnets`), then `pulumi config set`",
        ));
    }
    if let Some(vpc) = &inputs.vpc_id {
        for s in mine.iter().filter(|s| &s.vpc_id != vpc) {
            findings.push(Finding::error(
                "subnets",
                &s.id,
                format!(
                    "the subnet {} of `{input}` is in {}, not in the stack's vpcId {vpc}",
                    s.id, s.vpc_id
                ),
                "give subnets of the environment's VPC",
            ));
        }
    }
    let zones: BTreeSet<&str> = mine.iter().map(|s| s.zone.as_str()).collect();
    if !mine.is_empty() && zones.len() < MIN_ZONES {
        findings.push(Finding::error(
            "subnets",
            input,
            format!(
                "`{input}` spans {} zone(s) ({}); the program needs two",
                zones.len(),
                zones.into_iter().collect::<Vec<_>>().join(", ")
            ),
            "an ALB, an RDS Proxy and a DB subnet group each need subnets in two Availability Zones",
        ));
    }
    for s in mine {
        findings.extend(route(input, s, private, expected));
    }
    findings
}

/// A subnet's default route against what it is for.
fn route(input: &str, s: &SubnetFacts, private: bool, expected: &Expectations) -> Option<Finding> {
    let id = s.id.as_str();
    match (&s.default_route, private) {
        (DefaultRoute::InternetGateway(igw), true) => Some(Finding::error(
            "subnets",
            id,
            format!("{id} of `{input}` routes 0.0.0.0/0 to the internet gateway {igw}: it is public"),
            "give private subnets (their default route through a NAT gateway, or none with VPC endpoints)",
        )),
        (DefaultRoute::None, true) => expected.route_out.as_ref().map(|why| {
            Finding::error(
                "subnets",
                id,
                format!("{id} of `{input}` has no route out of the VPC, but {why}"),
                "route 0.0.0.0/0 of its route table to a NAT gateway, or pull from ECR with `network.endpoints`",
            )
        }),
        (DefaultRoute::InternetGateway(_), false) => None,
        (DefaultRoute::Nat(_) | DefaultRoute::Other(_), true) => None,
        (DefaultRoute::None | DefaultRoute::Nat(_) | DefaultRoute::Other(_), false) => Some(Finding::error(
            "subnets",
            id,
            format!("{id} of `{input}` has no route to an internet gateway: the ALB there cannot be reached"),
            "give public subnets (0.0.0.0/0 routed to the VPC's internet gateway)",
        )),
    }
}

/// `network.endpoints: existing`: each endpoint the plan relies on is in the VPC.
async fn endpoints(aws: &AwsClients, expected: &Expectations, inputs: &StackInputs) -> Vec<Finding> {
    let Some(vpc) = &inputs.vpc_id else {
        let help = "set it: `pulumi config set vpcId vpc-...`";
        return vec![Finding::warning(
            "endpoints",
            "vpcId",
            "the endpoints were not checked: the stack sets no vpcId",
            help,
        )];
    };
    let found = match aws.vpc_endpoints(vpc).await {
        Ok(found) => found,
        Err(e) => return vec![not_checked("endpoints", vpc, &e)],
    };
    expected
        .existing_endpoints
        .iter()
        .filter(|service| !found.iter().any(|f| f == service.as_str()))
        .map(|service| {
            Finding::error(
                "endpoints",
                service,
                format!(
                    "{vpc} has no available endpoint {service}, which `network.endpoints: existing` relies on"
                ),
                "create it in the VPC (or let this environment declare it: `network.endpoints: true`)",
            )
        })
        .collect()
}

/// The members' security groups exist and are in the environment's VPC.
async fn member_groups(aws: &AwsClients, inputs: &StackInputs) -> Vec<Finding> {
    let found = match aws.security_group_vpcs(&inputs.member_security_groups).await {
        Ok(found) => found,
        Err(e) => return vec![not_checked("security-groups", "memberSecurityGroupIds", &e)],
    };
    let mut findings = Vec::new();
    for id in &inputs.member_security_groups {
        match found.iter().find(|(g, _)| g == id) {
            None => findings.push(Finding::error(
                "security-groups",
                id,
                format!("the members' security group {id} does not exist"),
                "check `memberSecurityGroupIds` in the stack settings",
            )),
            Some((_, vpc)) if inputs.vpc_id.as_ref().is_some_and(|v| v != vpc) => findings.push(Finding::error(
                "security-groups",
                id,
                format!("the members' security group {id} is in {vpc}, not in the stack's vpcId"),
                "a rule may only name a group of its own VPC: give the members' groups in the environment's VPC",
            )),
            Some(_) => {}
        }
    }
    findings
}

fn join(ids: &[&String]) -> String {
    ids.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}
