//! The dispatcher: one planned item -> the renderer of its kind, in the module of its family.
//! Each renderer declares the item's resource(s) in the context; every property comes from the
//! plan, and references between items are `${<logical id>.<output>}`.

use runtime_plan::{ItemSpec, PlannedItem};

use super::context::{Context, unsupported};
use super::{
    RenderError, alarms, alb, alb_logs, bucket, budget, cache, endpoints, identity, key, logs, network,
    platform, postgres, queue, topic, workload,
};

/// Declares the resource(s) of an item managed by Pulumi.
pub(super) fn declare<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    cx.begin(item);
    match &item.spec {
        ItemSpec::EcsCluster {} => platform::cluster(cx, item),
        ItemSpec::TaskExecutionRole { .. } | ItemSpec::TaskRole { .. } => identity::role(cx, item),
        ItemSpec::RegistrySecret { .. } => {
            Err(unsupported(item, "a registry secret is written by `runway secrets prepare`, never declared"))
        }
        ItemSpec::KmsKey { .. } => Err(unsupported(
            item,
            "the environment's key is created by `runway secrets prepare`, never declared",
        )),
        ItemSpec::SecurityGroup { .. } => network::security_group(cx, item),
        ItemSpec::CloudMapNamespace { .. } => platform::namespace(cx, item),
        ItemSpec::DbSubnetGroup {} => platform::db_subnet_group(cx, item),
        ItemSpec::CacheSubnetGroup {} => platform::cache_subnet_group(cx, item),
        ItemSpec::Alb { .. } => alb::load_balancer(cx, item),
        ItemSpec::AlbListener(_) => alb::listener(cx, item),
        ItemSpec::AlbLogBucket { .. } => alb_logs::log_bucket(cx, item),
        ItemSpec::RdsInstance(_) => postgres::instance(cx, item),
        ItemSpec::AuroraCluster(_) => postgres::aurora_cluster(cx, item),
        ItemSpec::AuroraInstance { .. } => postgres::aurora_instance(cx, item),
        ItemSpec::ProxySecret { .. } => postgres::proxy_secret(cx, item),
        ItemSpec::ProxyRole { .. } => postgres::proxy_role(cx, item),
        ItemSpec::RdsProxy(_) => postgres::proxy(cx, item),
        ItemSpec::RdsProxyTargetGroup { .. } => postgres::proxy_target_group(cx, item),
        ItemSpec::RdsProxyTarget { .. } => postgres::proxy_target(cx, item),
        ItemSpec::CacheReplicationGroup(_) => cache::replication_group(cx, item),
        ItemSpec::SqsQueue { .. } => queue::queue(cx, item),
        ItemSpec::SqsDeadLetterQueue { .. } => queue::dead_letter_queue(cx, item),
        ItemSpec::SnsTopic { .. } => topic::topic(cx, item),
        ItemSpec::S3Bucket { .. } => bucket::bucket(cx, item),
        ItemSpec::TaskDefinition(_) => workload::task_definition(cx, item),
        ItemSpec::EcsService(_) => workload::service(cx, item),
        ItemSpec::CloudMapService { .. } => workload::discovery_service(cx, item),
        ItemSpec::AlbTargetGroup { .. } => alb::target_group(cx, item),
        ItemSpec::AlbListenerRule { .. } => alb::listener_rule(cx, item),
        ItemSpec::DnsRecord { .. } => alb::dns_record(cx, item),
        ItemSpec::ScalingTarget { .. } => workload::scaling_target(cx, item),
        ItemSpec::ScalingPolicy { .. } => workload::scaling_policy(cx, item),
        ItemSpec::Budget { .. } => budget::budget(cx, item),
        ItemSpec::LogGroup { .. } => logs::log_group(cx, item),
        ItemSpec::VpcEndpoint { .. } => endpoints::endpoint(cx, item),
        // The plan marks it `existing`, which `render` skips; a plan that asks Pulumi to declare
        // it is not one runway makes.
        ItemSpec::Vpc { .. } => Err(unsupported(item, "the VPC is a program input, never declared")),
        ItemSpec::AlertTopic { .. } => {
            let subscriptions = cx.alert_subscriptions;
            alarms::alert_topic(cx, item, subscriptions)
        }
        ItemSpec::MetricAlarm { .. } => alarms::metric_alarm(cx, item),
        ItemSpec::EcsEventRule { .. } => alarms::ecs_event_rule(cx, item),
    }
}

/// Looks up an item another component creates, into a variable of its id.
pub(super) fn look_up<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    cx.begin(item);
    // Projections: the proxy and registry secrets are the items another tool creates.
    if let ItemSpec::RegistrySecret { .. } = &item.spec {
        return workload::look_up_registry_secret(cx, item);
    }
    if let ItemSpec::KmsKey { .. } = &item.spec {
        return key::look_up(cx, item);
    }
    let ItemSpec::ProxySecret { .. } = &item.spec else {
        return Err(unsupported(item, "only a proxy or registry secret can be created outside the program"));
    };
    postgres::look_up_proxy_secret(cx, item)
}

/// Resources an item renders to (see [`super::expected_resources`]), the alerts topic with
/// `subscriptions` email subscriptions.
pub(super) fn resources(item: &PlannedItem, subscriptions: usize) -> usize {
    match &item.spec {
        // The topic, its policy and its subscriptions (email, then HTTPS).
        ItemSpec::AlertTopic { https, .. } => 2 + subscriptions + https.len(),
        // The rule and its target.
        ItemSpec::EcsEventRule { .. } => 2,
        ItemSpec::S3Bucket { versioning, block_public_access, tls_only, .. } => {
            bucket::resources(*versioning, *block_public_access, *tls_only)
        }
        ItemSpec::TaskExecutionRole { grants, .. } | ItemSpec::TaskRole { grants, .. } => {
            1 + usize::from(!grants.is_empty())
        }
        ItemSpec::SecurityGroup { ingress, egress, .. } => network::resources(ingress, egress),
        // The role and its policy.
        ItemSpec::ProxyRole { .. } => 2,
        ItemSpec::AlbLogBucket { .. } => alb_logs::RESOURCES,
        // Created by `secrets prepare`: its key policy only.
        ItemSpec::KmsKey { .. } => 1,
        ItemSpec::EcsCluster { .. }
        | ItemSpec::CloudMapNamespace { .. }
        | ItemSpec::Alb { .. }
        | ItemSpec::AlbListener(_)
        | ItemSpec::DbSubnetGroup { .. }
        | ItemSpec::CacheSubnetGroup { .. }
        | ItemSpec::RdsInstance(_)
        | ItemSpec::AuroraCluster(_)
        | ItemSpec::AuroraInstance { .. }
        | ItemSpec::ProxySecret { .. }
        | ItemSpec::RegistrySecret { .. }
        | ItemSpec::RdsProxy(_)
        | ItemSpec::RdsProxyTargetGroup { .. }
        | ItemSpec::RdsProxyTarget { .. }
        | ItemSpec::CacheReplicationGroup(_)
        | ItemSpec::SqsQueue { .. }
        | ItemSpec::SqsDeadLetterQueue { .. }
        | ItemSpec::SnsTopic { .. }
        | ItemSpec::TaskDefinition(_)
        | ItemSpec::EcsService(_)
        | ItemSpec::CloudMapService { .. }
        | ItemSpec::AlbTargetGroup { .. }
        | ItemSpec::AlbListenerRule { .. }
        | ItemSpec::ScalingTarget { .. }
        | ItemSpec::ScalingPolicy { .. }
        | ItemSpec::DnsRecord { .. }
        | ItemSpec::LogGroup { .. }
        | ItemSpec::Budget { .. }
        | ItemSpec::VpcEndpoint { .. }
        | ItemSpec::MetricAlarm { .. } => 1,
        // Not declared (`managedBy: existing`; not counted by `expected_resources`).
        ItemSpec::Vpc { .. } => 0,
    }
}
