//! The dispatcher: one planned item -> the renderer of its kind, in the module of its family.
//! Each renderer declares the item's resource(s) in the context; every property comes from the
//! plan, and references between items are `${<logical id>.<output>}`.

use runtime_plan::{ItemSpec, PlannedItem};

use super::context::{Context, unsupported};
use super::{
    RenderError, alarms, alb, alb_logs, bucket, budget, cache, endpoints, identity, key, logs, network,
    platform, postgres, queue, topic, workload,
};

/// Declares, from one table, how each kind renders: `declare`, the renderer of an item managed
/// by Pulumi, and `resources`, how many resources it renders to (see
/// [`super::expected_resources`]; the alerts topic with `subscriptions` email subscriptions). A
/// row is `Variant pattern => renderer, resource count`; a kind without a row, or a row without
/// both columns, does not compile.
macro_rules! renderers {
    ($cx:ident, $item:ident, $subscriptions:ident; $($variant:ident $fields:tt => $declare:expr, $resources:expr;)*) => {
        /// Declares the resource(s) of an item managed by Pulumi.
        // A row's resource count may use bindings its renderer does not.
        #[allow(unused_variables)]
        pub(super) fn declare<'p>($cx: &mut Context<'p>, $item: &'p PlannedItem) -> Result<(), RenderError> {
            $cx.begin($item);
            match &$item.spec { $(ItemSpec::$variant $fields => $declare,)* }
        }

        /// Resources an item renders to (see [`super::expected_resources`]), the alerts topic
        /// with `subscriptions` email subscriptions.
        #[allow(unused_variables)]
        pub(super) fn resources($item: &PlannedItem, $subscriptions: usize) -> usize {
            match &$item.spec { $(ItemSpec::$variant $fields => $resources,)* }
        }
    };
}

renderers! { cx, item, subscriptions;
    EcsCluster {} => platform::cluster(cx, item), 1;
    TaskExecutionRole { grants, .. } => identity::role(cx, item), 1 + usize::from(!grants.is_empty());
    TaskRole { grants, .. } => identity::role(cx, item), 1 + usize::from(!grants.is_empty());
    RegistrySecret { .. } => Err(unsupported(item, "a registry secret is written by `runway secrets prepare`, never declared")), 1;
    // Created by `secrets prepare`: the program declares its key policy only.
    KmsKey { .. } => Err(unsupported(
        item,
        "the environment's key is created by `runway secrets prepare`, never declared",
    )), 1;
    SecurityGroup { ingress, egress, .. } => network::security_group(cx, item), network::resources(ingress, egress);
    CloudMapNamespace { .. } => platform::namespace(cx, item), 1;
    DbSubnetGroup {} => platform::db_subnet_group(cx, item), 1;
    CacheSubnetGroup {} => platform::cache_subnet_group(cx, item), 1;
    Alb { .. } => alb::load_balancer(cx, item), 1;
    AlbListener(spec) => alb::listener(cx, item, spec), 1;
    AlbLogBucket { .. } => alb_logs::log_bucket(cx, item), alb_logs::RESOURCES;
    RdsInstance(spec) => postgres::instance(cx, item, spec), 1;
    AuroraCluster(spec) => postgres::aurora_cluster(cx, item, spec), 1;
    AuroraInstance { .. } => postgres::aurora_instance(cx, item), 1;
    ProxySecret { .. } => postgres::proxy_secret(cx, item), 1;
    // The role and its policy.
    ProxyRole { .. } => postgres::proxy_role(cx, item), 2;
    RdsProxy(spec) => postgres::proxy(cx, item, spec), 1;
    RdsProxyTargetGroup { .. } => postgres::proxy_target_group(cx, item), 1;
    RdsProxyTarget { .. } => postgres::proxy_target(cx, item), 1;
    CacheReplicationGroup(spec) => cache::replication_group(cx, item, spec), 1;
    SqsQueue { .. } => queue::queue(cx, item), 1;
    SqsDeadLetterQueue { .. } => queue::dead_letter_queue(cx, item), 1;
    SnsTopic { .. } => topic::topic(cx, item), 1;
    S3Bucket { versioning, block_public_access, tls_only, .. } => bucket::bucket(cx, item),
        bucket::resources(*versioning, *block_public_access, *tls_only);
    TaskDefinition(spec) => workload::task_definition(cx, item, spec), 1;
    EcsService(spec) => workload::service(cx, item, spec), 1;
    CloudMapService { .. } => workload::discovery_service(cx, item), 1;
    AlbTargetGroup { .. } => alb::target_group(cx, item), 1;
    AlbListenerRule { .. } => alb::listener_rule(cx, item), 1;
    // The role and its policy.
    TrafficRole { .. } => alb::traffic_role(cx, item), 2;
    DnsRecord { .. } => alb::dns_record(cx, item), 1;
    ScalingTarget { .. } => workload::scaling_target(cx, item), 1;
    ScalingPolicy { .. } => workload::scaling_policy(cx, item), 1;
    Budget { .. } => budget::budget(cx, item), 1;
    LogGroup { .. } => logs::log_group(cx, item), 1;
    VpcEndpoint { .. } => endpoints::endpoint(cx, item), 1;
    // The plan marks it `existing`, which `render` skips (and `expected_resources` does not
    // count); a plan that asks Pulumi to declare it is not one runway makes.
    Vpc { .. } => Err(unsupported(item, "the VPC is a program input, never declared")), 0;
    // The topic, its policy and its subscriptions (email, then HTTPS).
    AlertTopic { https, .. } => {
        let subscriptions = cx.alert_subscriptions;
        alarms::alert_topic(cx, item, subscriptions)
    }, 2 + subscriptions + https.len();
    MetricAlarm { .. } => alarms::metric_alarm(cx, item), 1;
    // The rule and its target.
    EcsEventRule { .. } => alarms::ecs_event_rule(cx, item), 2;
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
