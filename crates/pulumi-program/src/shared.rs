//! The items a pull request's preview shares with the environment it comes from
//! (`ManagedBy::Shared`; `runtime_plan::previews`): never declared, looked up by that
//! environment's physical name with the provider's `get` function, so that the preview's own
//! resources reference them as `${<logical id>.<output>}` like any other item.

use runtime_plan::{ItemKind, PlannedItem};
use serde::Serialize;

use super::RenderError;
use super::context::Context;
use super::expr::invoke;

/// Looks up one shared item, or (for what no preview resource references: alarms, the
/// budget, the proxy's target and group, endpoints, the ALB's log bucket, the event rule)
/// nothing at all.
pub(super) fn look_up<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    cx.begin(item);
    let name = item.physical_name.as_str();
    let region = cx.region();
    let lookup = match item.kind() {
        ItemKind::EcsCluster => {
            invoke("aws:ecs:getCluster", ByName { cluster_name: Some(name), ..ByName::new(region) })
        }
        ItemKind::Alb => invoke("aws:lb:getLoadBalancer", ByName { name: Some(name), ..ByName::new(region) }),
        ItemKind::AlbListener => {
            let alb = item.depends_on.first().map(|d| cx.reference(d, "arn")).transpose()?;
            let args = ByName { load_balancer_arn: alb, port: Some(443), ..ByName::new(region) };
            invoke("aws:lb:getListener", args)
        }
        ItemKind::CloudMapNamespace => invoke(
            "aws:servicediscovery:getDnsNamespace",
            ByName { name: Some(name), r#type: Some("DNS_PRIVATE"), ..ByName::new(region) },
        ),
        ItemKind::SecurityGroup => {
            invoke("aws:ec2:getSecurityGroup", ByName { name: Some(name), ..ByName::new(region) })
        }
        ItemKind::RdsProxy => invoke("aws:rds:getProxy", ByName { name: Some(name), ..ByName::new(region) }),
        ItemKind::RdsInstance => invoke(
            "aws:rds:getInstance",
            ByName { db_instance_identifier: Some(name), ..ByName::new(region) },
        ),

        ItemKind::CacheReplicationGroup => invoke(
            "aws:elasticache:getReplicationGroup",
            ByName { replication_group_id: Some(name), ..ByName::new(region) },
        ),
        // IAM is global: its functions take no region.
        ItemKind::ProxyRole => {
            invoke("aws:iam:getRole", ByName { name: Some(name), region: None, ..ByName::new(region) })
        }
        ItemKind::AlertTopic => {
            invoke("aws:sns:getTopic", ByName { name: Some(name), ..ByName::new(region) })
        }
        // Referenced by the shared items only, or by nothing; a preview's own items are never
        // of these kinds shared (its roles, tasks, queues are its own).
        ItemKind::DbSubnetGroup
        | ItemKind::CacheSubnetGroup
        | ItemKind::TaskExecutionRole
        | ItemKind::TaskRole
        | ItemKind::RegistrySecret
        | ItemKind::KmsKey
        | ItemKind::AlbLogBucket
        | ItemKind::AuroraCluster
        | ItemKind::AuroraInstance
        | ItemKind::ProxySecret
        | ItemKind::RdsProxyTargetGroup
        | ItemKind::RdsProxyTarget
        | ItemKind::SqsQueue
        | ItemKind::SqsDeadLetterQueue
        | ItemKind::SnsTopic
        | ItemKind::S3Bucket
        | ItemKind::TaskDefinition
        | ItemKind::Schedule
        | ItemKind::EcsService
        | ItemKind::CloudMapService
        | ItemKind::AlbTargetGroup
        | ItemKind::AlbListenerRule
        | ItemKind::TrafficRole
        | ItemKind::ScalingTarget
        | ItemKind::ScalingPolicy
        | ItemKind::Budget
        | ItemKind::LogGroup
        | ItemKind::DnsRecord
        | ItemKind::VpcEndpoint
        | ItemKind::Vpc
        | ItemKind::MetricAlarm
        | ItemKind::EcsEventRule => return Ok(()),
    };
    cx.variable(item, item.id.to_string(), &lookup)
}

/// The arguments of a look-up by name (each function takes the ones it names).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ByName<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster_name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    db_instance_identifier: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    replication_group_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    load_balancer_arn: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    port: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    r#type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<&'a str>,
}

impl<'a> ByName<'a> {
    fn new(region: &'a str) -> Self {
        ByName {
            name: None,
            cluster_name: None,
            db_instance_identifier: None,
            replication_group_id: None,
            load_balancer_arn: None,
            port: None,
            r#type: None,
            region: Some(region),
        }
    }
}
