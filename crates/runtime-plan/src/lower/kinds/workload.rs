//! Workloads: each its two IAM roles (`identity.rs`), a task definition (its bindings'
//! variables and its own secrets read from SSM) and an ECS service, reached through Cloud Map (internal) or an ALB host rule (public),
//! and scaled on CPU when it may grow in this environment.

use std::ops::Range;
use std::sync::Arc;

use compact_str::{CompactString, ToCompactString};
use cost::TaskSize;
use indexmap::IndexMap;
use runway_schema::{
    Architecture, DEFAULT_RELEASES_PER_MONTH, Deploy, Expose, HealthCheck, RegistryCredentials, Scale,
    Scaling, UsageKey, Workload,
};

use super::consumers::by_consumer;
use super::context::{Cx, Named, NewItem};
use super::identity::{self, Identity, Roles};
use super::platform::Platform;
use super::resources::Resources;
use super::{HEALTH_CHECK_GRACE_SECONDS, Lowered, cat};
use super::{network, protection, usage};
use crate::plan::{
    AlbListenerRuleSpec, AlbTargetGroupSpec, Binding, CloudMapServiceSpec, DnsRecordSpec, EcsServiceSpec,
    HealthSpec, ItemKind, ItemSpec, ManagedBy, OneOffTask, PlannedWorkload, PolicyResource,
    RepositoryCredentials, TaskDefinitionSpec, TaskPurpose, TaskRecord, TaskSecret, TrafficRoleSpec,
    TrafficShift,
};
use crate::pricing::Priceable;

mod scaling;
mod schedules;

/// A workload being lowered, as its items are named and sized.
struct Lowering<'w> {
    /// Its position in the file.
    index: usize,
    name: &'w str,
    spec: &'w Workload,
    /// `<product>-<env>-<name>`.
    base: CompactString,
    /// Its size and scale in this environment.
    size: &'w str,
    scale: Scale,
    /// How its releases replace its tasks in this environment.
    release: Deploy,
    /// What its count follows and when it runs here.
    scaling: Scaling,
    /// Its bindings, in order.
    bindings: &'w [&'w Binding],
    /// The SSM parameter names of its own secrets, in order: made once, shared by its task
    /// definitions, its execution role's grant and the parameters' records.
    own: Arc<[Arc<str>]>,
    /// Its pinned image, one text for its record, task definitions and task records.
    image: Arc<str>,
}

/// The resources of a plan with where their items are, for the workloads' grants.
pub(in crate::lower) struct Used<'a> {
    pub(in crate::lower) resources: &'a Resources,
    /// Where each resource's items are in the plan's item list, by resource position.
    pub(in crate::lower) items: &'a [Range<usize>],
}

/// Lowers every workload, in file order; returns their records and where their items are.
pub(in crate::lower) fn lower_all(
    cx: &mut Cx,
    workloads: &IndexMap<String, Workload>,
    bindings: &[Binding],
    used: &Used,
    platform: &Platform,
    tasks: &mut Vec<OneOffTask>,
) -> Lowered<PlannedWorkload> {
    let bindings_of = by_consumer(bindings);
    let mut records = Vec::with_capacity(workloads.len());
    let mut ranges = Vec::with_capacity(workloads.len());
    // The host rules' priorities: 1 on, in file order.
    let mut public_index = 0;
    for (index, (name, spec)) in workloads.iter().enumerate() {
        let first_item = cx.items.len();
        let w = Lowering {
            index,
            name,
            spec,
            base: cx.base(name),
            size: spec.size_in(cx.env_name),
            scale: spec.scale_in(cx.env_name),
            release: spec.deploy_in(cx.env_name),
            scaling: spec.scaling_in(cx.env_name),
            bindings: bindings_of.get(name.as_str()).map_or(&[], Vec::as_slice),
            own: spec.secrets.iter().map(|s| cx.secrets.ssm_name(name, s)).collect(),
            image: Arc::from(spec.image.as_str()),
        };
        records.push(lower(cx, &w, used, platform, &mut public_index, tasks));
        ranges.push(first_item..cx.items.len());
    }
    (records, ranges)
}

/// Lowers one workload into its items; returns its record.
fn lower(
    cx: &mut Cx,
    w: &Lowering,
    used: &Used,
    platform: &Platform,
    public_index: &mut u32,
    tasks: &mut Vec<OneOffTask>,
) -> PlannedWorkload {
    let first_item = cx.items.len();
    let log_group = log_group(cx, w);
    let registry = registry_credentials(cx, w);
    let roles = roles(cx, w, used, &log_group, registry.as_ref());
    let task = cx.catalogue.task(w.size);
    if task.is_none() {
        cx.unknown_size(format!("workloads.{}.size", w.name), "workload", w.size);
    }
    let task = task.unwrap_or(TaskSize { cpu: 0, memory_mib: 0 });
    let health = health_spec(w.spec);
    let migrate_roles = Roles { execution: roles.execution.clone(), task: roles.task.clone() };
    let run_roles: Vec<CompactString> =
        [roles.execution.clone()].into_iter().chain(roles.task.clone()).collect();
    let migrate_registry = registry.clone();
    let task_definition = task_definition(
        cx,
        w,
        (task.clone(), registry),
        health.clone(),
        roles,
        &log_group,
        (words(w.spec.entry_point.as_deref()), None),
    );
    reference_parameters(cx, w, used.resources, &task_definition);
    let (mut discovery, mut dns_name, mut entry, mut host) = (None, None, None, None);
    let env = cx.env;
    match w.spec.expose {
        // A worker listens on no port: nothing to discover.
        Expose::Internal if w.spec.port.is_none() => {}
        Expose::Internal => {
            if let Some(namespace) = &platform.namespace {
                let (id, dns) = discovery_service(cx, w, namespace);
                (discovery, dns_name) = (Some(id), Some(dns));
            }
        }
        Expose::Public => {
            // The file's rules give a public workload a port.
            if let (Some(alb), Some(listener), Some(domain), Some(port)) =
                (&platform.alb, &platform.listener, &env.domain, w.spec.port)
            {
                *public_index += 1;
                let (ids, hostname) =
                    public_entry(cx, w, (health.as_ref(), port), (alb, listener), domain, *public_index);
                (entry, host) = (Some(ids), Some(hostname));
            }
        }
    }
    let security_groups = network::workload(cx, used.resources, (w.name, &w.base, w.spec));
    if let Some(migrate) = &w.spec.migrate {
        // The migrate's own entry point, else the workload's: its image is the workload's.
        let entry_point = words(w.spec.migrate_entry_point());
        let command = words(Some(&migrate.command)).unwrap_or_default();
        let run = (entry_point.clone(), Some(command.clone()));
        let definition = (task.clone(), migrate_registry);
        let id = self::task_definition(cx, w, definition, None, migrate_roles, &log_group, run);
        reference_parameters(cx, w, used.resources, &id);
        let run = (id, entry_point.as_deref(), command.as_slice());
        tasks.push(migrate_task(cx, w, run, (&security_groups, &log_group), platform));
    }
    let target_group = entry.as_ref().map(|e| e.target_group.clone());
    let run = schedules::Run {
        task_definition: &task_definition.clone(),
        security_groups: &security_groups.clone(),
        roles: run_roles,
    };
    let service = service(cx, w, (task_definition, security_groups), discovery, entry, platform);
    schedules::lower(cx, w, &run, platform);
    if scaling::scales(w) {
        scaling::lower(cx, w, &service, (platform, target_group.as_ref()), used);
    }
    PlannedWorkload {
        name: w.name.into(),
        size: w.size.into(),
        min: w.scale.min,
        max: w.scale.max,
        expose: w.spec.expose,
        monthly: None,
        ceiling: None,
        task,
        platform: w.spec.platform,
        image: Arc::clone(&w.image),
        port: w.spec.port,
        host,
        dns_name,
        uses: w.spec.uses.iter().map(|u| u.as_str().into()).collect(),
        items: cx.items[first_item..].iter().map(|i| i.id.clone()).collect(),
    }
}

/// The workload's log group, `/runway/<product>/<env>/<workload>`, kept for the environment's
/// retention; returns its id. Priced by use: the GB ingested a month the environment declares
/// for it (and what that keeps stored), else the ingestion and storage rates.
fn log_group(cx: &mut Cx, w: &Lowering) -> CompactString {
    let name = cx.named(ItemKind::LogGroup, cat(&["/runway/", cx.product, "/", cx.env_name, "/", w.name]));
    let retention_days = protection::log_retention_days(cx.env_name, cx.env.log_retention_days);
    let spec = ItemSpec::LogGroup { workload: w.name.into(), retention_days };
    let id = cat(&[w.name, "_logs"]);
    let declared = usage::declared(cx, Some(w.name), UsageKey::Logs);
    let ingested_gb = usage::count(cx, (Some(w.name), &id), UsageKey::Logs, declared, None);
    cx.push(
        NewItem::new(id, name, Some(w.name), spec)
            .priced(Priceable::LogGroup { ingested_gb, retention_days }),
    )
}

/// The workload's registry credentials, when its registry needs them: for Infisical secrets,
/// the Secrets Manager secret `secrets prepare` writes from them (an item of the plan, priced,
/// which the program looks up by name) and the copy the layout lists; else the existing
/// secret's ARN.
fn registry_credentials(cx: &mut Cx, w: &Lowering) -> Option<RepositoryCredentials> {
    match w.spec.registry_credentials.as_ref()? {
        RegistryCredentials::SecretArn(arn) => Some(RepositoryCredentials::Arn { arn: arn.as_str().into() }),
        RegistryCredentials::Infisical(name) => {
            let secret_name = cat(&[cx.product, "/", cx.env_name, "/", w.name, "/registry-credentials"]);
            let spec = ItemSpec::RegistrySecret { workload: w.name.into(), name: secret_name.clone() };
            let item = cx.push(
                NewItem::new(cat(&[w.name, "_registry-secret"]), secret_name.clone(), Some(w.name), spec)
                    .managed_by(ManagedBy::SecretsAdapter)
                    .priced(Priceable::Secret),
            );
            cx.secrets.registry_copy(w.name, (item.clone(), secret_name), name);
            Some(RepositoryCredentials::Item { item })
        }
    }
}

/// The workload's execution and task roles, granted from its log group, its registry's
/// credentials, its parameters (its bindings' lists, shared with them, and its own secrets';
/// an `env` value's parameter is a bound variable's, already among them) and the items of the
/// resources it uses.
fn roles(
    cx: &mut Cx,
    w: &Lowering,
    used: &Used,
    log_group: &str,
    registry: Option<&RepositoryCredentials>,
) -> Roles {
    let id = Identity {
        image: w.spec.image.as_str(),
        log_group,
        registry_secret: registry.map(|r| match r {
            RepositoryCredentials::Item { item } => PolicyResource::Item { item: item.clone() },
            RepositoryCredentials::Arn { arn } => PolicyResource::Arn { arn: arn.clone() },
        }),
        parameters: w.bindings.iter().map(|b| b.ssm.clone()).chain([w.own.clone()]).collect(),
        exec: w.spec.exec,
        uses: w
            .bindings
            .iter()
            .filter_map(|b| used.resources.position(&b.resource).map(|i| (i, b.access)))
            .map(|(i, access)| (&cx.items[used.items[i].clone()], access))
            .collect(),
    };
    let (execution, task) = identity::grants(&id, &cx.secrets.kms_key);
    identity::lower(cx, w.name, &w.base, execution, task)
}

/// A list of words as the plan holds them.
fn words(words: Option<&[String]>) -> Option<Vec<CompactString>> {
    words.map(|words| words.iter().map(|w| w.as_str().into()).collect())
}

/// The task definition of the service, or (`command` set) of the workload's `migrate` one-off
/// task: the same image, variables, roles, size and log group, its own family
/// `<base>-migrate`, the command, no health check; each with its entry point. Returns its id.
fn task_definition(
    cx: &mut Cx,
    w: &Lowering,
    (task, repository_credentials): (TaskSize, Option<RepositoryCredentials>),
    health: Option<HealthSpec>,
    roles: Roles,
    log_group: &CompactString,
    (entry_point, command): (Option<Vec<CompactString>>, Option<Vec<CompactString>>),
) -> CompactString {
    let Roles { execution: execution_role, task: task_role } = roles;
    let registry_secret = match &repository_credentials {
        Some(RepositoryCredentials::Item { item }) => Some(item.clone()),
        Some(RepositoryCredentials::Arn { .. }) | None => None,
    };
    let spec = ItemSpec::TaskDefinition(Box::new(TaskDefinitionSpec {
        workload: w.name.into(),
        image: Arc::clone(&w.image),
        repository_credentials,
        task,
        cpu_architecture: cpu_architecture(w.spec.platform).into(),
        port: w.spec.port,
        health,
        environment: w.spec.env.iter().map(|(k, v)| (k.as_str().into(), v.as_str().into())).collect(),
        secrets: task_secrets(w),
        execution_role: execution_role.clone(),
        task_role: task_role.clone(),
        log_group: log_group.clone(),
        entry_point,
        command: command.clone(),
    }));
    let (id, name) = match command {
        None => (cat(&[w.name, "_task"]), w.base.clone()),
        Some(_) => (cat(&[w.name, "_migrate-task"]), cat(&[&w.base, "-migrate"])),
    };
    let name = cx.named(ItemKind::TaskDefinition, name);
    cx.push(
        NewItem::new(id, name, Some(w.name), spec).size(w.size).depends_on(
            [execution_role]
                .into_iter()
                .chain(task_role)
                .chain([log_group.clone()])
                .chain(registry_secret)
                .collect(),
        ),
    )
}

/// The workload's `migrate` one-off task: its task definition (`id`, running `command` with
/// `entry_point`), the cluster, the workload's security groups and log group; its success
/// recorded at `<ssm prefix>/runway/migrate/<workload>` with the image and the fingerprint of
/// what it runs.
fn migrate_task(
    cx: &Cx,
    w: &Lowering,
    (task_definition, entry_point, command): (CompactString, Option<&[CompactString]>, &[CompactString]),
    (security_groups, log_group): (&[CompactString], &CompactString),
    platform: &Platform,
) -> OneOffTask {
    let purpose = TaskPurpose::Migrate { workload: w.name.into() };
    let name = cat(&[purpose.word(), "-", w.name]);
    OneOffTask {
        output: cat(&["runway-task-", &name]),
        record: TaskRecord {
            parameter: cat(&[&cx.secrets.ssm_prefix, "/runway/", purpose.word(), "/", w.name]),
            image: Arc::clone(&w.image),
            command: super::task_fingerprint::run_fingerprint(entry_point, command),
            versions_of: Vec::new(),
        },
        name,
        purpose,
        task_definition,
        cluster: platform.cluster.as_ref().map(|c| c.id.clone()).unwrap_or_default(),
        security_groups: security_groups.to_vec(),
        // The program names the container and its stream prefix after the workload.
        container: w.name.into(),
        log_group: log_group.clone(),
        log_stream_prefix: w.name.into(),
        // A migration's own connections are its image's to retry.
        proxy: None,
    }
}

/// The SSM parameters the task reads: its bindings' variables, its own secrets, then its `env`
/// values that reference a bound variable (under the `env` name).
fn task_secrets(w: &Lowering) -> Vec<TaskSecret> {
    // Room for all of them, counted first: the plan holds the list (grown by doubling, a third
    // of its room was never used: 0.8 MB at N = 10,000).
    let bound: usize = w.bindings.iter().map(|b| b.variables.len().min(b.ssm.len())).sum();
    let mut secrets = Vec::with_capacity(bound + w.spec.secrets.len() + w.spec.env_from.len());
    for b in w.bindings {
        for (v, param) in b.variables.iter().zip(b.ssm.iter()) {
            secrets.push(TaskSecret { name: v.clone(), parameter: Arc::clone(param) });
        }
    }
    for (s, param) in w.spec.secrets.iter().zip(w.own.iter()) {
        secrets.push(TaskSecret { name: s.as_str().into(), parameter: Arc::clone(param) });
    }
    // `env` values written `${VAR}`: the image's own name, from the bound variable's parameter.
    for (name, var) in &w.spec.env_from {
        let bound = w.bindings.iter().flat_map(|b| b.variables.iter().zip(b.ssm.iter()));
        if let Some((_, param)) = bound.into_iter().find(|(v, _)| v.as_str() == var) {
            secrets.push(TaskSecret { name: name.as_str().into(), parameter: Arc::clone(param) });
        }
    }
    secrets
}

/// Records the task definition's references to its SSM parameters.
fn reference_parameters(cx: &mut Cx, w: &Lowering, resources: &Resources, task_definition: &str) {
    for b in w.bindings {
        // Bindings name existing resources only (consumers' uses are filtered).
        let Some(r) = resources.get(&b.resource) else { continue };
        for (vi, param) in b.ssm.iter().enumerate() {
            match &b.login {
                // Its own login's variables: a workload's position is its consumer position.
                Some(_) => cx.secrets.login_parameter(r, (w.index, w.name), vi, (param, task_definition)),
                None => cx.secrets.resource_parameter(r, vi, param, task_definition),
            }
        }
    }
    for (si, (s, param)) in w.spec.secrets.iter().zip(w.own.iter()).enumerate() {
        cx.secrets.workload_parameter((w.index, w.name), (si, s, param), task_definition);
    }
}

/// An internal workload's Cloud Map service; returns its id and DNS name.
fn discovery_service(cx: &mut Cx, w: &Lowering, namespace: &Named) -> (CompactString, CompactString) {
    let dns_name = cat(&[w.name, ".", &namespace.name]);
    let spec = ItemSpec::CloudMapService(Box::new(CloudMapServiceSpec {
        workload: w.name.into(),
        namespace: namespace.id.clone(),
        dns_name: dns_name.clone(),
    }));
    let name = cx.named(ItemKind::CloudMapService, w.name.into());
    let id = cx.push(
        NewItem::new(cat(&[w.name, "_discovery"]), name, Some(w.name), spec)
            .depends_on(vec![namespace.id.clone()]),
    );
    (id, dns_name)
}

/// How a public workload is reached: the logical ids of its target group and listener rule,
/// and what ECS shifts its traffic with when it is not released rolling.
struct Entry {
    target_group: CompactString,
    rule: CompactString,
    traffic: Option<TrafficShift>,
}

/// A public workload's ALB target group (health checked like the task), host rule
/// `<workload>.<domain>` at `priority`, and the host's alias record to the ALB; returns the
/// target group and rule, and the host.
fn public_entry(
    cx: &mut Cx,
    w: &Lowering,
    (health, port): (Option<&HealthSpec>, u16),
    (alb, listener): (&CompactString, &Named),
    domain: &str,
    priority: u32,
) -> (Entry, CompactString) {
    let spec = ItemSpec::AlbTargetGroup(Box::new(AlbTargetGroupSpec {
        workload: w.name.into(),
        port,
        protocol: "HTTP".into(),
        health_path: health.and_then(|h| h.path.clone()).unwrap_or_else(|| "/".into()),
        health_interval_seconds: health.map_or(30, |h| h.interval_seconds),
        health_timeout_seconds: health.map_or(5, |h| h.timeout_seconds),
        healthy_threshold: health.map_or(2, |h| h.healthy_threshold),
        unhealthy_threshold: health.map_or(3, |h| h.unhealthy_threshold),
    }));
    // A strategy other than rolling: a second target group, checked alike, for the new fleet.
    let alternate_spec = (!w.release.is_rolling()).then(|| spec.clone());
    let name = cx.named(ItemKind::AlbTargetGroup, cat(&[&w.base, "-tg"]));
    let tg = cx.push(NewItem::new(cat(&[w.name, "_target-group"]), name, Some(w.name), spec));
    let alternate = alternate_spec.map(|spec| {
        let name = cx.named(ItemKind::AlbTargetGroup, cat(&[&w.base, "-tg2"]));
        cx.push(NewItem::new(cat(&[w.name, "_alternate-target-group"]), name, Some(w.name), spec))
    });
    let host = cat(&[w.name, ".", domain]);
    let spec = ItemSpec::AlbListenerRule(Box::new(AlbListenerRuleSpec {
        workload: w.name.into(),
        listener: listener.id.clone(),
        target_group: tg.clone(),
        host: host.clone(),
        priority,
        alternate_target_group: alternate.clone(),
    }));
    let rule = cx.push(
        NewItem::new(
            cat(&[w.name, "_listener-rule"]),
            cat(&[&listener.name, "/", &host]),
            Some(w.name),
            spec,
        )
        .depends_on([listener.id.clone(), tg.clone()].into_iter().chain(alternate.clone()).collect()),
    );
    let traffic = alternate.map(|alternate| traffic_role(cx, w, &rule, (&tg, alternate)));
    let spec = ItemSpec::DnsRecord(Box::new(DnsRecordSpec {
        workload: w.name.into(),
        host: host.clone(),
        record_type: "A".into(),
        alb: alb.clone(),
        evaluate_target_health: true,
    }));
    cx.add(
        NewItem::new(cat(&[w.name, "_dns-record"]), host.clone(), Some(w.name), spec)
            .depends_on(vec![alb.clone()]),
    );
    (Entry { target_group: tg, rule, traffic }, host)
}

/// The role ECS assumes to move a public workload's traffic between its two target groups
/// (`<base>-traffic`); returns what the service's load balancer names.
fn traffic_role(
    cx: &mut Cx,
    w: &Lowering,
    rule: &CompactString,
    (tg, alternate): (&CompactString, CompactString),
) -> TrafficShift {
    let spec = ItemSpec::TrafficRole(Box::new(TrafficRoleSpec {
        workload: w.name.into(),
        listener_rule: rule.clone(),
        target_groups: vec![tg.clone(), alternate.clone()],
    }));
    let name = cx.named(ItemKind::TrafficRole, cat(&[&w.base, "-traffic"]));
    let role =
        cx.push(NewItem::new(cat(&[w.name, "_traffic-role"]), name, Some(w.name), spec).depends_on(vec![
            rule.clone(),
            tg.clone(),
            alternate.clone(),
        ]));
    TrafficShift { alternate_target_group: alternate, listener_rule: rule.clone(), role }
}

/// The ECS service, priced at its tasks; returns it. Every deployment waits to be steady and
/// rolls back when its tasks do not become healthy; a public one starts after its listener
/// rule (a target group no listener forwards to cannot take a service). Its new tasks get the
/// grace of [`grace_seconds`] to boot. Its tasks carry its tags.
fn service(
    cx: &mut Cx,
    w: &Lowering,
    (task_definition, security_groups): (CompactString, Vec<CompactString>),
    discovery: Option<CompactString>,
    entry: Option<Entry>,
    platform: &Platform,
) -> Named {
    let cluster = platform.cluster.as_ref().map(|c| c.id.clone()).unwrap_or_default();
    let name = cx.named(ItemKind::EcsService, cat(&[&w.base, "-service"]));
    let mut depends_on = vec![cluster.clone(), task_definition.clone()];
    depends_on.extend(discovery.iter().cloned());
    depends_on.extend(entry.iter().flat_map(|e| [e.target_group.clone(), e.rule.clone()]));
    depends_on.extend(
        entry
            .iter()
            .filter_map(|e| e.traffic.as_ref())
            .flat_map(|t| [t.alternate_target_group.clone(), t.role.clone()]),
    );
    depends_on.extend(security_groups.iter().cloned());
    let (target_group, traffic) = entry.map_or((None, None), |e| (Some(e.target_group), e.traffic));
    let spec = ItemSpec::EcsService(Box::new(EcsServiceSpec {
        workload: w.name.into(),
        cluster,
        task_definition,
        desired_count: w.scale.min,
        expose: w.spec.expose,
        discovery_service: discovery,
        port: w.spec.port,
        security_groups,
        rollback_failed_deployments: true,
        health_check_grace_period_seconds: grace_seconds(w.spec, target_group.is_some()),
        // `runway rollout` waits, and tells a rollback from a success (docs/pipeline.md).
        wait_for_steady_state: false,
        target_group,
        propagate_tags: true,
        enable_execute_command: w.spec.exec,
        // Filled by `alerting::lower` once the alarms are planned.
        deployment_alarms: Vec::new(),
        release: w.release,
        traffic,
    }));
    let id = cat(&[w.name, "_service"]);
    let price = service_price(cx, w, &id);
    let id = cx.push(
        NewItem::new(id, name.clone(), Some(w.name), spec).size(w.size).depends_on(depends_on).priced(price),
    );
    Named { id, name }
}

/// What a service is priced at: its tasks, and under a strategy other than rolling the second
/// fleet each release runs for [`Deploy::two_fleet_minutes`], times its releases a month
/// (`usage.releases`, else [`DEFAULT_RELEASES_PER_MONTH`]; docs/planning.md, "Releases").
fn service_price(cx: &mut Cx, w: &Lowering, id: &str) -> Priceable {
    let tasks = Priceable::tasks(
        w.size,
        (scaling::hours_floor(w), w.scale.max),
        w.spec.platform,
        w.scaling.active.as_ref().map(scaling::hours_a_month),
    );
    if w.release.is_rolling() {
        return tasks;
    }
    let declared = usage::declared(cx, Some(w.name), UsageKey::Releases);
    let default = (rust_decimal::Decimal::from(DEFAULT_RELEASES_PER_MONTH), "one a working day");
    let releases = usage::count_or(cx, (Some(w.name), id), UsageKey::Releases, declared, default);
    tasks.with_releases(releases, w.release.two_fleet_minutes())
}

/// ECS's name of a CPU architecture (`runtimePlatform.cpuArchitecture`).
fn cpu_architecture(platform: Architecture) -> &'static str {
    match platform {
        Architecture::Arm64 => "ARM64",
        Architecture::X86_64 => "X86_64",
    }
}

/// Seconds ECS ignores a new task's failing health checks: `health.grace` when a check of the
/// service acts on its tasks (its target group's, public; its container's, internal with a
/// `health`), [`HEALTH_CHECK_GRACE_SECONDS`] for a public workload without `health`, none
/// when nothing checks the tasks. ECS applies the grace period to container health checks as
/// well as to a load balancer's (docs/planning.md).
fn grace_seconds(w: &Workload, target_group: bool) -> Option<u32> {
    let declared = w.health.as_ref().map(|h| u32::try_from(h.grace.as_secs()).unwrap_or(u32::MAX));
    match (declared, target_group) {
        (Some(grace), _) => Some(grace),
        (None, true) => Some(HEALTH_CHECK_GRACE_SECONDS),
        (None, false) => None,
    }
}

/// The workload's health check as the task and target group declare it, with the container
/// health check the task runs (see [`container_command`]).
fn health_spec(w: &Workload) -> Option<HealthSpec> {
    w.health.as_ref().map(|h| {
        let (path, command) = match &h.check {
            HealthCheck::Http(p) => (Some(p.as_str().into()), None),
            HealthCheck::Command(c) => (None, Some(c.iter().map(|a| a.as_str().into()).collect())),
        };
        HealthSpec {
            path,
            command,
            interval_seconds: h.interval.as_secs(),
            timeout_seconds: h.timeout.as_secs(),
            healthy_threshold: h.healthy_threshold,
            unhealthy_threshold: h.unhealthy_threshold,
            container_command: container_command(&h.check, w.expose, w.port),
        }
    })
}

/// The container health check of a workload: a command check as written (`CMD` put first
/// when it names neither form); an internal workload's HTTP path as a shell GET of
/// `http://localhost:<port><path>` with `curl`, else `wget` (busybox has it), so ECS replaces
/// a task that stops answering; none for a public workload's path, which the target group
/// checks. The shell form assumes the image has `sh` and one of the two tools; an image
/// without them declares a `command` instead (docs/runway-reference.md).
fn container_command(check: &HealthCheck, expose: Expose, port: Option<u16>) -> Option<Vec<CompactString>> {
    match (check, expose) {
        (HealthCheck::Command(words), _) => {
            let named = matches!(words.first().map(String::as_str), Some("CMD" | "CMD-SHELL"));
            let form = (!named).then(|| CompactString::from("CMD"));
            Some(form.into_iter().chain(words.iter().map(|w| w.as_str().into())).collect())
        }
        (HealthCheck::Http(path), Expose::Internal) => {
            // The file's rules refuse an HTTP check without a port.
            let port = port?;
            // Joined, not formatted (fifth pass).
            let url = shell_quote(&cat(&["http://localhost:", &port.to_compact_string(), path]));
            let line =
                cat(&["curl -fsS -o /dev/null ", &url, " || wget -q -O /dev/null ", &url, " || exit 1"]);
            Some(vec![CompactString::const_new("CMD-SHELL"), line])
        }
        (HealthCheck::Http(_), Expose::Public) => None,
    }
}

/// `text` as one word of a POSIX shell: single-quoted, each `'` written `'\''`.
fn shell_quote(text: &str) -> CompactString {
    if text.contains('\'') { cat(&["'", &text.replace('\'', "'\\''"), "'"]) } else { cat(&["'", text, "'"]) }
}
