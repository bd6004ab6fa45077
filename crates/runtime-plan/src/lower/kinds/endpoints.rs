//! VPC endpoints (`environments.<env>.network.endpoints`): the private subnets reach the AWS
//! APIs the environment calls without a NAT. Interface endpoints, billed per hour in each zone,
//! only for what runs there: ssm (task secrets), ecr.api and ecr.dkr (images) and logs when
//! there are tasks (workloads, or a postgres resource's bootstrap); secretsmanager when there
//! is a postgres (its proxy reads its secret);
//! sqs and sns when a workload uses a queue or topic; ssmmessages when a workload allows ECS
//! Exec (`exec: true`: its shell's channels). The S3 gateway endpoint (no charge) when
//! there are tasks: image layers come from S3, and so do buckets.
//!
//! `network.endpoints: existing` declares none: the VPC already has them (another environment
//! in the same VPC declared them, or the network team did), and the plan says so
//! ([`crate::Plan::vpc_endpoints`]).

use compact_str::CompactString;
use indexmap::IndexMap;
use runway_schema::{Endpoints, Kind, Workload};

use super::context::{Cx, NewItem};
use super::resources::Resources;
use super::{cat, network};
use crate::plan::{EndpointType, ItemKind, ItemSpec};
use crate::pricing::Priceable;

/// Declares the environment's endpoints and their groups, when it asks for them.
pub(in crate::lower) fn lower(cx: &mut Cx, workloads: &IndexMap<String, Workload>, resources: &Resources) {
    match cx.env.network.endpoints {
        Endpoints::Declared => {}
        Endpoints::None | Endpoints::Existing => return,
    }
    // A postgres resource's bootstrap is a task too (its secrets, its logs, an ECR image).
    let tasks = !workloads.is_empty() || resources.iter().any(|r| r.spec.kind() == Kind::Postgres);
    let exec = workloads.values().any(|w| w.exec);
    let interfaces = interface_services(cx, tasks, exec, resources);
    if interfaces.is_empty() {
        return;
    }
    let env_base = cat(&[cx.product, "-", cx.env_name]);
    let group = network::endpoints(cx, &env_base);
    let zones = cx.env.network.zones;
    for service in interfaces {
        let spec = spec(cx, service, EndpointType::Interface, vec![group.clone()], Some(zones));
        let item = endpoint(cx, &env_base, service, spec).depends_on(vec![group.clone()]);
        cx.add(item.priced(Priceable::InterfaceEndpoint { zones }));
    }
    if tasks {
        let spec = spec(cx, "s3", EndpointType::Gateway, Vec::new(), None);
        let item = endpoint(cx, &env_base, "s3", spec);
        cx.add(item);
    }
}

/// The AWS services the environment calls from its private subnets, in a fixed order.
fn interface_services(cx: &Cx, tasks: bool, exec: bool, resources: &Resources) -> Vec<&'static str> {
    let mut services = Vec::new();
    if tasks {
        services.extend(["ssm", "ecr.api", "ecr.dkr", "logs"]);
    }
    if resources.iter().any(|r| r.spec.kind() == Kind::Postgres) {
        services.push("secretsmanager");
    }
    for &kind in Kind::ALL {
        if let Some(api) = called_api(kind)
            && cx.network.workloads_use(resources, kind)
        {
            services.push(api);
        }
    }
    if exec {
        services.push("ssmmessages");
    }
    services
}

/// The AWS API a workload calls to use a resource of `kind`, when that takes an interface
/// endpoint in a VPC without NAT. Postgres (through its proxy) and caches are reached inside the
/// VPC; S3 goes through the gateway endpoint every environment with tasks gets.
fn called_api(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::Queue => Some("sqs"),
        Kind::Topic => Some("sns"),
        Kind::Postgres | Kind::Cache | Kind::Bucket => None,
    }
}

/// The spec of one endpoint; only an interface endpoint has groups and zones.
fn spec(
    cx: &Cx,
    service: &str,
    endpoint_type: EndpointType,
    security_groups: Vec<CompactString>,
    zones: Option<u32>,
) -> ItemSpec {
    ItemSpec::VpcEndpoint {
        service_name: cat(&["com.amazonaws.", &cx.env.region, ".", service]),
        endpoint_type,
        private_dns: endpoint_type == EndpointType::Interface,
        security_groups: security_groups.into(),
        zones,
    }
}

/// The item of one endpoint: `env_<service>-endpoint`, named `<product>-<env>-<service>-endpoint`.
fn endpoint(cx: &mut Cx, env_base: &str, service: &str, spec: ItemSpec) -> NewItem {
    let service = service.replace('.', "-");
    let name = cx.named(ItemKind::VpcEndpoint, cat(&[env_base, "-", &service, "-endpoint"]));
    NewItem::new(cat(&["env_", &service, "-endpoint"]), name, None, spec)
}
