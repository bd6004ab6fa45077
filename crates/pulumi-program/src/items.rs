//! The dispatcher: one planned item -> the renderer of its kind, in the module of its family.
//! Each renderer declares the item's resource(s) in the context; every property comes from the
//! plan, and references between items are `${<logical id>.<output>}`.

use runtime_plan::{ItemSpec, PlannedItem};

use super::context::{Context, unsupported};
use super::{
    RenderError, alarms, alb, alb_logs, bucket, budget, cache, endpoints, identity, key, logs, network,
    platform, postgres, queue, schedule, topic, workload,
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
    EcsCluster { container_insights } => platform::cluster(cx, item, container_insights), 1;
    TaskExecutionRole { grants, .. } => identity::execution_role(cx, item, grants), 1 + usize::from(!grants.is_empty());
    TaskRole { grants, .. } => identity::task_role(cx, item, grants), 1 + usize::from(!grants.is_empty());
    RegistrySecret { .. } => Err(unsupported(item, "a registry secret is written by `runway secrets prepare`, never declared")), 1;
    // Created by `secrets prepare`: the program declares its key policy only.
    KmsKey { .. } => Err(unsupported(
        item,
        "the environment's key is created by `runway secrets prepare`, never declared",
    )), 1;
    SecurityGroup { ingress, egress, .. } => network::security_group(cx, item, ingress, egress),
        network::resources(ingress, egress);
    CloudMapNamespace { name } => platform::namespace(cx, item, name), 1;
    DbSubnetGroup {} => platform::db_subnet_group(cx, item), 1;
    CacheSubnetGroup {} => platform::cache_subnet_group(cx, item), 1;
    Alb(alb) => alb::load_balancer(cx, item, &alb.security_groups, &alb.drop_invalid_header_fields,
        &alb.deletion_protection, &alb.access_logs), 1;
    AlbListener(spec) => alb::listener(cx, item, spec), 1;
    AlbLogBucket(b) => alb_logs::log_bucket(cx, item, &b.name_suffix, &b.block_public_access, &b.encryption,
        &b.tls_only, &b.lifecycle, &b.log_delivery), alb_logs::RESOURCES;
    RdsInstance(spec) => postgres::instance(cx, item, spec), 1;
    AuroraCluster(spec) => postgres::aurora_cluster(cx, item, spec), 1;
    AuroraInstance { cluster, instance_class, publicly_accessible, apply_immediately, .. } =>
        postgres::aurora_instance(cx, item, cluster, instance_class, publicly_accessible, apply_immediately), 1;
    ProxySecret { resource, .. } => postgres::proxy_secret(cx, item, resource), 1;
    // The role and its policy.
    ProxyRole { secret, logins, previews } => postgres::proxy_role(cx, item, secret, (logins, previews.as_deref())), 2;
    RdsProxy(spec) => postgres::proxy(cx, item, spec), 1;
    RdsProxyTargetGroup { proxy } => postgres::proxy_target_group(cx, item, proxy), 1;
    RdsProxyTarget(t) => postgres::proxy_target(cx, item, &t.proxy, &t.target_group, &t.target), 1;
    CacheReplicationGroup(spec) => cache::replication_group(cx, item, spec), 1;
    SqsQueue(q) => queue::queue(cx, item, &q.fifo, &q.visibility_timeout_seconds, &q.dead_letter_queue,
        &q.max_receives, &q.managed_sse), 1;
    SqsDeadLetterQueue { fifo, retention_seconds, managed_sse, .. } =>
        queue::dead_letter_queue(cx, item, fifo, retention_seconds, managed_sse), 1;
    SnsTopic(t) => topic::topic(cx, item, &t.fifo, &t.kms_master_key), 1;
    S3Bucket(b) => bucket::bucket(cx, item, &b.name_suffix, &b.versioning, &b.lifecycle, &b.block_public_access,
        &b.encryption, &b.tls_only),
        bucket::resources(b.versioning, b.block_public_access, b.tls_only);
    TaskDefinition(spec) => workload::task_definition(cx, item, spec), 1;
    EcsService(spec) => workload::service(cx, item, spec), 1;
    CloudMapService(s) => workload::discovery_service(cx, item, &s.namespace, &s.dns_name), 1;
    AlbTargetGroup(tg) => alb::target_group(cx, item, &tg.port, &tg.protocol, &tg.health_path,
        &tg.health_interval_seconds, &tg.health_timeout_seconds, &tg.healthy_threshold, &tg.unhealthy_threshold), 1;
    AlbListenerRule(r) => alb::listener_rule(cx, item, &r.listener, &r.target_group, &r.host, &r.priority,
        &r.alternate_target_group), 1;
    // The role and its policy.
    TrafficRole(r) => alb::traffic_role(cx, item, &r.listener_rule, &r.target_groups), 2;
    DnsRecord(r) => alb::dns_record(cx, item, &r.host, &r.record_type, &r.alb, &r.evaluate_target_health), 1;
    ScalingTarget(t) => workload::scaling_target(cx, item, &t.service, &t.min_capacity, &t.max_capacity, &t.active),
        1 + 2 * usize::from(t.active.is_some());
    ScalingPolicy(p) => workload::scaling_policy(cx, item, &p.target, &p.metric, &p.target_value, &p.source), 1;
    Budget(b) => budget::budget(cx, item, &b.limit, &b.product, &b.environment, &b.alerts, &b.alert_topic), 1;
    LogGroup { retention_days, .. } => logs::log_group(cx, item, retention_days), 1;
    VpcEndpoint { service_name, endpoint_type, private_dns, security_groups, .. } =>
        endpoints::endpoint(cx, item, service_name, endpoint_type, private_dns, security_groups), 1;
    // The plan marks it `existing`, which `render` skips (and `expected_resources` does not
    // count); a plan that asks Pulumi to declare it is not one runway makes.
    Vpc { .. } => Err(unsupported(item, "the VPC is a program input, never declared")), 0;
    // The topic, its policy and its subscriptions (email, then HTTPS).
    AlertTopic { publishers, kms_key, https } => {
        let subscriptions = cx.alert_subscriptions;
        alarms::alert_topic(cx, item, subscriptions, publishers, kms_key, https)
    }, 2 + subscriptions + https.len();
    MetricAlarm {
        alarm, threshold, metric_threshold, dimensions, evaluation_periods, datapoints_to_alarm, ..
    } => alarms::metric_alarm(cx, item, alarm, threshold, metric_threshold, dimensions, evaluation_periods,
        datapoints_to_alarm), 1;
    // The rule and its target.
    EcsEventRule { cluster, events } => alarms::ecs_event_rule(cx, item, cluster, events), 2;
    Schedule(spec) => schedule::schedule(cx, item, spec), schedule::resources(spec);
}

/// Looks up an item another component creates, into a variable of its id.
pub(super) fn look_up<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    cx.begin(item);
    // Projections: the proxy and registry secrets are the items another tool creates.
    if let ItemSpec::RegistrySecret { name, .. } = &item.spec {
        return workload::look_up_registry_secret(cx, item, name);
    }
    if let ItemSpec::KmsKey { alias, decrypters, publishers } = &item.spec {
        return key::look_up(cx, item, alias, decrypters, publishers);
    }
    let ItemSpec::ProxySecret { name, .. } = &item.spec else {
        return Err(unsupported(item, "only a proxy or registry secret can be created outside the program"));
    };
    postgres::look_up_proxy_secret(cx, item, name)
}
