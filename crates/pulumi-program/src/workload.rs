//! A workload: its Fargate task definition and ECS service, its Cloud Map service when
//! internal, and its autoscaling target and policy when it scales. (A public workload's target
//! group and listener rule are in `alb.rs`.)

use std::borrow::Cow;

use runtime_plan::{
    CompactString, EcsServiceSpec, HealthSpec, ItemSpec, PlannedItem, RepositoryCredentials,
    TaskDefinitionSpec,
};

mod scaling;
use runway_schema::{Deploy, Expose, Strategy};
pub(super) use scaling::{scaling_policy, scaling_target};
use serde::Serialize;

use super::context::{Context, Input, Tags};
use super::expr::{ToJson, invoke, literal, to_json};
use super::{RenderError, network};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TaskDefinition<'p> {
    family: &'p str,
    cpu: String,
    memory: String,
    network_mode: &'static str,
    requires_compatibilities: [&'static str; 1],
    runtime_platform: RuntimePlatform<'p>,
    execution_role_arn: String,
    task_role_arn: Option<String>,
    container_definitions: ToJson<[Container<'p>; 1]>,
    region: &'p str,
    tags: Tags<'p>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RuntimePlatform<'p> {
    cpu_architecture: &'p str,
    operating_system_family: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Container<'p> {
    name: &'p str,
    image: &'p str,
    /// A private registry's credentials: the secret ECS reads them from.
    repository_credentials: Option<RepositoryCredentialsProps>,
    /// The plan's entry point (ECS replaces the image's ENTRYPOINT with it); none runs the
    /// image's own.
    entry_point: Option<Vec<Cow<'p, str>>>,
    /// A one-off task's command (a workload's `migrate`), replacing the image's CMD; a service
    /// runs the image's own.
    command: Option<Vec<Cow<'p, str>>>,
    essential: bool,
    /// None for a task that listens on no port (a database's bootstrap).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    port_mappings: Vec<PortMapping>,
    environment: Vec<Variable<'p>>,
    secrets: Vec<Secret<'p>>,
    health_check: Option<ContainerHealth<'p>>,
    log_configuration: LogConfiguration<'p>,
}

/// `repositoryCredentials`: the ARN of the secret holding `{"username", "password"}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RepositoryCredentialsProps {
    credentials_parameter: String,
}

/// The `awslogs` driver: the container's output goes to the workload's log group.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogConfiguration<'p> {
    log_driver: &'static str,
    options: LogOptions<'p>,
}

#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
struct LogOptions<'p> {
    awslogs_group: String,
    awslogs_region: &'p str,
    awslogs_stream_prefix: &'p str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PortMapping {
    container_port: u16,
    protocol: &'static str,
}

/// A plain environment value.
#[derive(Serialize)]
struct Variable<'p> {
    name: &'p str,
    value: std::borrow::Cow<'p, str>,
}

/// A variable ECS reads from an SSM parameter when the task starts.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Secret<'p> {
    name: &'p str,
    value_from: &'p str,
}

#[derive(Serialize)]
struct ContainerHealth<'p> {
    command: Vec<Cow<'p, str>>,
    interval: u64,
    timeout: u64,
    retries: u32,
}

/// The task definition: Fargate on the planned CPU architecture, awsvpc, one container with the
/// workload's image (and its registry's credentials), port, environment, SSM secrets, its
/// output to the workload's log group, and the container health check the plan decided; the
/// plan's entry point, and for a one-off task's (`migrate`), its command.
pub(super) fn task_definition<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    spec: &'p TaskDefinitionSpec,
) -> Result<(), RenderError> {
    let TaskDefinitionSpec {
        workload,
        image,
        repository_credentials,
        task,
        cpu_architecture,
        port,
        health,
        environment: _,
        secrets,
        execution_role,
        log_group,
        task_role,
        entry_point,
        command,
    } = spec;
    for s in secrets {
        cx.waits_for(&s.parameter);
    }
    let repository_credentials = match repository_credentials {
        // Looked up by name (`runway secrets prepare` writes it before `pulumi up`).
        Some(RepositoryCredentials::Item { item }) => {
            Some(RepositoryCredentialsProps { credentials_parameter: cx.reference(item, "arn")? })
        }
        Some(RepositoryCredentials::Arn { arn }) => {
            Some(RepositoryCredentialsProps { credentials_parameter: arn.to_string() })
        }
        None => None,
    };
    let container = Container {
        name: workload,
        image,
        repository_credentials,
        entry_point: entry_point.as_ref().map(|words| words.iter().map(|w| literal(w)).collect()),
        command: command.as_ref().map(|words| words.iter().map(|w| literal(w)).collect()),
        essential: true,
        port_mappings: port
            .iter()
            .map(|&container_port| PortMapping { container_port, protocol: "tcp" })
            .collect(),
        environment: variables(cx, item, spec),
        secrets: secrets.iter().map(|s| Secret { name: &s.name, value_from: &s.parameter }).collect(),
        health_check: health.as_ref().and_then(container_health),
        log_configuration: LogConfiguration {
            log_driver: "awslogs",
            options: LogOptions {
                awslogs_group: cx.reference(log_group, "name")?,
                awslogs_region: cx.region(),
                awslogs_stream_prefix: workload,
            },
        },
    };
    let props = TaskDefinition {
        family: &item.physical_name,
        cpu: task.cpu.to_string(),
        memory: task.memory_mib.to_string(),
        network_mode: "awsvpc",
        requires_compatibilities: ["FARGATE"],
        runtime_platform: RuntimePlatform { cpu_architecture, operating_system_family: "LINUX" },
        execution_role_arn: cx.reference(execution_role, "arn")?,
        task_role_arn: task_role.as_deref().map(|r| cx.reference(r, "arn")).transpose()?,
        container_definitions: to_json([container]),
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:ecs/taskDefinition:TaskDefinition", props)
}

/// The container's plain environment: the plan's values, and for a database's bootstrap its
/// SQL (rendered from the plan's logins, which the plan does not store as text).
fn variables<'p>(cx: &Context<'p>, item: &PlannedItem, spec: &'p TaskDefinitionSpec) -> Vec<Variable<'p>> {
    let mut variables: Vec<Variable<'p>> =
        spec.environment.iter().map(|(name, value)| Variable { name, value: literal(value) }).collect();
    // Only a one-off task can be a bootstrap: a service's task definition looks for nothing.
    let bootstraps = cx.plan.secrets.bootstraps.iter();
    if let Some(boot) = bootstraps.filter(|_| spec.command.is_some()).find(|b| b.id == item.id) {
        variables.push(Variable {
            name: runtime_plan::SQL_VARIABLE,
            value: Cow::Owned(literal(&boot.sql()).into_owned()),
        });
    }
    variables
}

/// The container health check the plan decided (`containerCommand`: a command check, or an
/// internal workload's HTTP path in a shell); none when the target group checks the path.
fn container_health(health: &HealthSpec) -> Option<ContainerHealth<'_>> {
    let words = health.container_command.as_ref()?;
    Some(ContainerHealth {
        command: words.iter().map(|w| literal(w)).collect(),
        interval: health.interval_seconds,
        timeout: health.timeout_seconds,
        retries: health.unhealthy_threshold,
    })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Service<'p> {
    name: &'p str,
    cluster: String,
    task_definition: String,
    desired_count: u32,
    launch_type: &'static str,
    network_configuration: NetworkConfiguration,
    /// Internal workloads: found through Cloud Map.
    service_registries: Option<ServiceRegistry>,
    /// Public workloads: registered with their target group.
    load_balancers: Option<[LoadBalancer<'p>; 1]>,
    deployment_circuit_breaker: CircuitBreaker,
    /// ECS's deployment strategy, written when it is not rolling.
    deployment_configuration: Option<DeploymentConfiguration>,
    /// The alarms that roll a deployment back when they fire during it.
    alarms: Option<DeploymentAlarms>,
    health_check_grace_period_seconds: Option<u32>,
    wait_for_steady_state: bool,
    /// `SERVICE`: its tasks carry its tags.
    propagate_tags: Option<&'static str>,
    /// Its tasks also carry the tags ECS manages (cluster and service names).
    enable_ecs_managed_tags: bool,
    /// ECS Exec allowed (written only when it is).
    enable_execute_command: Option<bool>,
    region: &'p str,
    tags: Tags<'p>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeploymentAlarms {
    alarm_names: Vec<String>,
    enable: bool,
    rollback: bool,
}

#[derive(Serialize)]
struct CircuitBreaker {
    enable: bool,
    rollback: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NetworkConfiguration {
    subnets: String,
    security_groups: Vec<String>,
    assign_public_ip: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ServiceRegistry {
    registry_arn: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LoadBalancer<'p> {
    target_group_arn: String,
    container_name: &'p str,
    container_port: u16,
    /// What ECS shifts the traffic with, under a strategy other than rolling.
    advanced_configuration: Option<AdvancedConfiguration>,
}

/// A load balancer's `advancedConfiguration` (ECS `AdvancedConfiguration`): the alternate
/// target group, the production listener rule whose weights ECS moves, and the role it moves
/// them with.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AdvancedConfiguration {
    alternate_target_group_arn: String,
    production_listener_rule: String,
    role_arn: String,
}

/// `deploymentConfiguration` (ECS `DeploymentConfiguration`): pulumi-aws 7.x takes the bake
/// times as strings of minutes and the percentages as numbers.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeploymentConfiguration {
    strategy: &'static str,
    bake_time_in_minutes: String,
    canary_configuration: Option<CanaryConfiguration>,
    linear_configuration: Option<LinearConfiguration>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CanaryConfiguration {
    canary_percent: f64,
    canary_bake_time_in_minutes: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LinearConfiguration {
    step_percent: f64,
    step_bake_time_in_minutes: String,
}

/// The deployment strategy as ECS takes it; `None` for a rolling update (the default).
fn deployment_configuration(release: &Deploy) -> Option<DeploymentConfiguration> {
    let percent = f64::from(release.percent_tenths) / 10.0;
    let step = release.step_minutes.to_string();
    let (canary_configuration, linear_configuration) = match release.strategy {
        Strategy::Rolling => return None,
        Strategy::BlueGreen => (None, None),
        Strategy::Canary => {
            (Some(CanaryConfiguration { canary_percent: percent, canary_bake_time_in_minutes: step }), None)
        }
        Strategy::Linear => {
            (None, Some(LinearConfiguration { step_percent: percent, step_bake_time_in_minutes: step }))
        }
    };
    Some(DeploymentConfiguration {
        strategy: release.strategy.ecs_name(),
        bake_time_in_minutes: release.bake_minutes.to_string(),
        canary_configuration,
        linear_configuration,
    })
}

/// The service: Fargate tasks in the private subnets, found through Cloud Map (internal) or
/// registered with the workload's target group (public), or with neither (a worker, no port); its deployments as planned (circuit
/// breaker, health-check grace, waiting for a steady state); its tasks tagged with its tags.
pub(super) fn service<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    spec: &'p EcsServiceSpec,
) -> Result<(), RenderError> {
    let EcsServiceSpec {
        workload,
        cluster,
        task_definition,
        desired_count,
        expose,
        discovery_service,
        target_group,
        port,
        security_groups,
        rollback_failed_deployments,
        health_check_grace_period_seconds,
        wait_for_steady_state,
        propagate_tags,
        enable_execute_command,
        deployment_alarms,
        release,
        traffic,
    } = spec;
    let alarm_names: Vec<String> =
        deployment_alarms.iter().map(|a| cx.reference(a, "name")).collect::<Result<_, _>>()?;
    let alarms =
        (!alarm_names.is_empty()).then_some(DeploymentAlarms { alarm_names, enable: true, rollback: true });
    let cluster = cx.reference(cluster, "arn")?;
    let task_definition = cx.reference(task_definition, "arn")?;
    let network_configuration = NetworkConfiguration {
        subnets: cx.input(Input::PrivateSubnetIds),
        security_groups: network::group_ids(cx, security_groups)?,
        assign_public_ip: false,
    };
    let (service_registries, load_balancers) = match (expose, port) {
        // A worker: listens on no port, registered with nothing.
        (Expose::Internal, None) => (None, None),
        (Expose::Internal, Some(_)) => {
            let id = discovery_service.as_deref().ok_or_else(|| cx.missing("a Cloud Map service"))?;
            (Some(ServiceRegistry { registry_arn: cx.reference(id, "arn")? }), None)
        }
        (Expose::Public, port) => {
            let id = target_group.as_deref().ok_or_else(|| cx.missing("a target group"))?;
            let container_port = port.ok_or_else(|| cx.missing("a port for its target group"))?;
            let target_group_arn = cx.reference(id, "arn")?;
            let advanced_configuration = match traffic {
                None => None,
                Some(t) => Some(AdvancedConfiguration {
                    alternate_target_group_arn: cx.reference(&t.alternate_target_group, "arn")?,
                    production_listener_rule: cx.reference(&t.listener_rule, "arn")?,
                    role_arn: cx.reference(&t.role, "arn")?,
                }),
            };
            let lb = LoadBalancer {
                target_group_arn,
                container_name: workload,
                container_port,
                advanced_configuration,
            };
            (None, Some([lb]))
        }
    };
    let props = Service {
        name: &item.physical_name,
        cluster,
        task_definition,
        desired_count: *desired_count,
        launch_type: "FARGATE",
        network_configuration,
        service_registries,
        load_balancers,
        deployment_circuit_breaker: CircuitBreaker {
            enable: *rollback_failed_deployments,
            rollback: *rollback_failed_deployments,
        },
        deployment_configuration: deployment_configuration(release),
        alarms,
        health_check_grace_period_seconds: *health_check_grace_period_seconds,
        wait_for_steady_state: *wait_for_steady_state,
        propagate_tags: propagate_tags.then_some("SERVICE"),
        enable_ecs_managed_tags: *propagate_tags,
        enable_execute_command: enable_execute_command.then_some(true),
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:ecs/service:Service", props)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DiscoveryService<'p> {
    name: &'p str,
    dns_config: DnsConfig,
    region: &'p str,
    tags: Tags<'p>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DnsConfig {
    namespace_id: String,
    routing_policy: &'static str,
    dns_records: [DnsRecord; 1],
}

#[derive(Serialize)]
struct DnsRecord {
    #[serde(rename = "type")]
    kind: &'static str,
    ttl: u32,
}

/// An internal workload's Cloud Map service: A records of its tasks, named by the label of its
/// DNS name inside the namespace.
pub(super) fn discovery_service<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    namespace: &'p CompactString,
    dns_name: &'p CompactString,
) -> Result<(), RenderError> {
    let ItemSpec::CloudMapNamespace { name: zone } = &cx.item(namespace)?.spec else {
        return Err(cx.missing("a Cloud Map namespace as its `namespace`"));
    };
    let label = dns_name
        .strip_suffix(&format!(".{zone}"))
        .filter(|l| !l.is_empty() && !l.contains('.'))
        .ok_or_else(|| cx.missing(&format!("a DNS name inside `{zone}`")))?;
    let props = DiscoveryService {
        name: label,
        dns_config: DnsConfig {
            namespace_id: cx.reference(namespace, "id")?,
            routing_policy: "MULTIVALUE",
            dns_records: [DnsRecord { kind: "A", ttl: 10 }],
        },
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:servicediscovery/service:Service", props)
}

#[derive(Serialize)]
struct SecretByName<'p> {
    name: &'p str,
    region: &'p str,
}

/// A workload's registry secret, which `runway secrets prepare` writes: looked up by name.
pub(super) fn look_up_registry_secret<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    name: &'p CompactString,
) -> Result<(), RenderError> {
    let lookup = invoke("aws:secretsmanager:getSecret", SecretByName { name, region: cx.region() });
    cx.variable(item, item.id.to_string(), &lookup)
}
