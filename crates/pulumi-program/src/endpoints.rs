//! VPC endpoints: an interface endpoint has a network interface in each private subnet, behind
//! the plan's endpoints group; the S3 gateway endpoint adds routes to the private route tables
//! (the `privateRouteTableIds` input).

use runtime_plan::{CompactString, EndpointType, PlannedItem};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Input, Tags};
use super::network;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct VpcEndpoint<'p> {
    vpc_id: String,
    service_name: &'p str,
    vpc_endpoint_type: &'static str,
    /// Interface endpoints only.
    subnet_ids: Option<String>,
    security_group_ids: Option<Vec<String>>,
    private_dns_enabled: Option<bool>,
    /// The gateway endpoint only.
    route_table_ids: Option<String>,
    region: &'p str,
    tags: Tags<'p>,
}

/// The endpoint.
pub(super) fn endpoint<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    service_name: &'p CompactString,
    endpoint_type: &'p EndpointType,
    private_dns: &'p bool,
    security_groups: &'p [CompactString],
) -> Result<(), RenderError> {
    let interface = *endpoint_type == EndpointType::Interface;
    let props = VpcEndpoint {
        vpc_id: cx.input(Input::VpcId),
        service_name,
        vpc_endpoint_type: endpoint_type.as_str(),
        subnet_ids: interface.then(|| cx.input(Input::PrivateSubnetIds)),
        security_group_ids: interface.then(|| network::group_ids(cx, security_groups)).transpose()?,
        private_dns_enabled: interface.then_some(*private_dns),
        route_table_ids: (!interface).then(|| cx.input(Input::PrivateRouteTableIds)),
        region: cx.region(),
        tags: cx.name_tags(item),
    };
    cx.declare(item, "aws:ec2/vpcEndpoint:VpcEndpoint", props)
}
