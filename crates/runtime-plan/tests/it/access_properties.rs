//! Property tests of access over generated runways (`proptest1` strategies): each role grants
//! exactly what its workload uses, security groups allow exactly what `uses` and `expose` allow,
//! and each database consumer has its own role, granted its mode and never the admin.
#![cfg(feature = "proptest1")]
#![allow(clippy::unwrap_used)] // reason: tests

use std::collections::BTreeSet;

use cost::Catalogue;
use proptest::prelude::*;
use runtime_plan::plan::*;
use runtime_plan::strategy::product;
use runtime_plan::*;
use runway_schema::{Access, Kind, Product, Workload};

fn config() -> ProptestConfig {
    ProptestConfig { cases: 64, ..ProptestConfig::default() }
}

fn plans(p: &Product, c: &Catalogue) -> Vec<Plan> {
    p.root.environments.keys().map(|e| plan(p, e, c).unwrap()).collect()
}

/// What ECS Exec uses on the task role.
const EXEC_ACTIONS: &[&str] = &[
    "ssmmessages:CreateControlChannel",
    "ssmmessages:CreateDataChannel",
    "ssmmessages:OpenControlChannel",
    "ssmmessages:OpenDataChannel",
];

/// One permission of a role: an action on a resource.
type Permission = (&'static str, PolicyResource);

/// One resource of a grant: a list of SSM parameters is one resource per name.
fn singles(r: &PolicyResource) -> Vec<PolicyResource> {
    match r {
        PolicyResource::SsmParameters { names } => names
            .iter()
            .map(|n| PolicyResource::SsmParameters { names: std::sync::Arc::from([n.clone()]) })
            .collect(),
        other => vec![other.clone()],
    }
}

/// Every (action, resource) pair of a role's grants.
fn permissions(grants: &[Grant]) -> BTreeSet<Permission> {
    let mut out = BTreeSet::new();
    for g in grants {
        for r in g.resources.iter().flat_map(singles) {
            for a in g.actions {
                out.insert((*a, r.clone()));
            }
        }
    }
    out
}

fn all(actions: &[&'static str], resource: &PolicyResource) -> Vec<Permission> {
    actions.iter().map(|a| (*a, resource.clone())).collect()
}

/// What a workload's task role must grant: derived from its `uses`, their modes (as the
/// product writes them), `exec` and the used resources' items, independently of the lowering.
fn task_permissions(plan: &Plan, w: &PlannedWorkload, spec: &Workload) -> BTreeSet<Permission> {
    let mut want = BTreeSet::new();
    // `exec: true`: the four channels of ECS Exec, on no resource (`*`).
    if spec.exec {
        want.extend(all(EXEC_ACTIONS, &PolicyResource::Any));
    }
    for u in &w.uses {
        let r = plan.resources.iter().find(|r| r.name == *u).unwrap();
        let read = spec.access_to(u) == Access::Read;
        for id in &r.items {
            let item = PolicyResource::Item { item: id.clone() };
            let objects = PolicyResource::ItemObjects { item: id.clone() };
            match plan.item(id).unwrap().kind() {
                ItemKind::SqsQueue | ItemKind::SqsDeadLetterQueue => {
                    want.extend(all(
                        &[
                            "sqs:ReceiveMessage",
                            "sqs:DeleteMessage",
                            "sqs:ChangeMessageVisibility",
                            "sqs:GetQueueAttributes",
                        ],
                        &item,
                    ));
                    if !read {
                        want.extend(all(&["sqs:SendMessage"], &item));
                    }
                }
                ItemKind::SnsTopic => want.extend(all(&["sns:Publish"], &item)),
                ItemKind::S3Bucket => {
                    want.extend(all(&["s3:ListBucket"], &item));
                    want.extend(all(&["s3:GetObject"], &objects));
                    if !read {
                        want.extend(all(&["s3:PutObject", "s3:DeleteObject"], &objects));
                    }
                }
                _ => {}
            }
        }
    }
    want
}

/// What a workload's execution role must grant: reading exactly the SSM parameters the plan
/// records its task definition referencing, decrypting with the plan's key, and pulling its
/// image when it is on ECR.
/// The environment's key as a policy names it.
fn key_resource(plan: &Plan) -> PolicyResource {
    let key = plan.secrets.kms_key.as_str();
    if let Some(alias) = key.strip_prefix("arn:").and_then(|k| k.split_once(":alias/")) {
        PolicyResource::KmsAlias { alias: format!("alias/{}", alias.1).into() }
    } else if key.starts_with("alias/") {
        PolicyResource::KmsAlias { alias: key.into() }
    } else if key.starts_with("arn:") {
        PolicyResource::Arn { arn: key.into() }
    } else {
        PolicyResource::KmsKeyId { id: key.into() }
    }
}

/// What a postgres resource's bootstrap execution role `role` must grant: its log streams, each
/// parameter its task reads, the key; it runs in the cluster with its own group.
fn bootstrap_permissions(
    plan: &Plan,
    boot: &DatabaseBootstrap,
    role: &str,
) -> Result<BTreeSet<Permission>, TestCaseError> {
    let ItemSpec::TaskDefinition(t) = &plan.item(&boot.id).unwrap().spec else { panic!("{}", boot.id) };
    prop_assert_eq!(t.execution_role.as_str(), role);
    prop_assert!(t.task_role.is_none() && t.port.is_none() && *t.image == *BOOTSTRAP_IMAGE);
    // It reads the proxy's endpoint, the admin's password and each login's, nothing else.
    let resource_parameter = |suffix: &str| {
        plan.secrets
            .ssm_parameters
            .iter()
            .find(|s| s.owner == boot.resource && s.consumer.is_none() && s.variable.ends_with(suffix))
            .map(|s| s.name.clone())
    };
    let mut read = vec![
        TaskSecret { name: "PGHOST".into(), parameter: resource_parameter("_HOST").unwrap() },
        TaskSecret { name: "PGPASSWORD".into(), parameter: resource_parameter("_PASSWORD").unwrap() },
    ];
    read.extend(boot.logins.iter().map(|l| TaskSecret {
        name: l.password_variable.clone(),
        parameter: std::sync::Arc::from(l.password_parameter.as_str()),
    }));
    prop_assert_eq!(&t.secrets, &read);
    let logs = PolicyResource::ItemLogStreams { item: t.log_group.clone() };
    let mut want: BTreeSet<Permission> =
        all(&["logs:CreateLogStream", "logs:PutLogEvents"], &logs).into_iter().collect();
    for s in &t.secrets {
        want.insert((
            "ssm:GetParameters",
            PolicyResource::SsmParameters { names: std::sync::Arc::from([s.parameter.clone()]) },
        ));
    }
    want.insert(("kms:Decrypt", key_resource(plan)));
    Ok(want)
}

fn execution_permissions(plan: &Plan, w: &PlannedWorkload, task: &str) -> BTreeSet<Permission> {
    let mut want = BTreeSet::new();
    // The `awslogs` driver writes to the workload's own log group.
    let logs = w.items.iter().find(|i| plan.item(i).unwrap().kind() == ItemKind::LogGroup).unwrap();
    want.extend(all(
        &["logs:CreateLogStream", "logs:PutLogEvents"],
        &PolicyResource::ItemLogStreams { item: logs.clone() },
    ));
    let parameters: Vec<&SsmParameter> =
        plan.secrets.ssm_parameters.iter().filter(|s| s.referenced_by.iter().any(|r| r == task)).collect();
    for s in &parameters {
        let one = PolicyResource::SsmParameters { names: std::sync::Arc::from([s.name.clone()]) };
        want.insert(("ssm:GetParameters", one));
    }
    if !parameters.is_empty() {
        want.insert(("kms:Decrypt", key_resource(plan)));
    }
    let (host, path) = w.image.split_once('/').unwrap();
    if let Some((account, region)) =
        host.strip_suffix(".amazonaws.com").and_then(|h| h.split_once(".dkr.ecr."))
    {
        let repository = path.split('@').next().unwrap().rsplit_once(':').map_or(path, |(r, _)| r);
        let arn = format!("arn:aws:ecr:{region}:{account}:repository/{repository}");
        want.insert(("ecr:GetAuthorizationToken", PolicyResource::Any));
        want.extend(all(
            &["ecr:BatchCheckLayerAvailability", "ecr:GetDownloadUrlForLayer", "ecr:BatchGetImage"],
            &PolicyResource::Arn { arn: arn.into() },
        ));
    }
    // A private registry's credentials: its own registry secret, or the existing secret the
    // task definition names; that one secret only.
    let registry_item = w.items.iter().find(|i| plan.item(i).unwrap().kind() == ItemKind::RegistrySecret);
    let ItemSpec::TaskDefinition(spec) = &plan.item(task).unwrap().spec else { panic!("{task}") };
    let secret = match (&spec.repository_credentials, registry_item) {
        (Some(RepositoryCredentials::Item { item }), Some(own)) if item == own => {
            Some(PolicyResource::Item { item: own.clone() })
        }
        (Some(RepositoryCredentials::Arn { arn }), None) => Some(PolicyResource::Arn { arn: arn.clone() }),
        (None, None) => None,
        other => panic!("{}: registry credentials {other:?}", w.name),
    };
    want.extend(secret.map(|s| ("secretsmanager:GetSecretValue", s)));
    want
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn each_role_grants_exactly_what_its_workload_uses(p in product()) {
        let c = Catalogue::builtin();
        for plan in plans(&p, &c) {
            for w in &plan.workloads {
                // The service's task definition (a `migrate` has one of its own, checked below).
                let one_off = |i: &PlannedItem| matches!(&i.spec, ItemSpec::TaskDefinition(t) if t.command.is_some());
                let of_kind = |kind: ItemKind| {
                    let mut found =
                        w.items.iter().map(|id| plan.item(id).unwrap()).filter(|i| i.kind() == kind && !one_off(i));
                    let first = found.next();
                    assert!(found.next().is_none(), "{} has two {}", w.name, kind.as_str());
                    first
                };
                let (execution, task) =
                    (of_kind(ItemKind::TaskExecutionRole).unwrap(), of_kind(ItemKind::TaskDefinition).unwrap());
                let task_role = of_kind(ItemKind::TaskRole);
                let ItemSpec::TaskExecutionRole { grants: execution_grants, .. } = &execution.spec else { panic!() };
                let task_grants: &[Grant] = match task_role.map(|r| &r.spec) {
                    Some(ItemSpec::TaskRole { grants, .. }) => grants,
                    _ => &[],
                };
                let ItemSpec::TaskDefinition(spec) = &task.spec else { panic!() };
                let TaskDefinitionSpec { execution_role, task_role: role, .. } = &**spec;
                // The task definition runs with its own workload's roles; no task role when
                // nothing is granted (no credentials at all).
                prop_assert_eq!(execution_role, &execution.id);
                prop_assert_eq!(role.as_ref(), task_role.map(|r| &r.id));
                prop_assert!(task_role.is_none() || !task_grants.is_empty());
                let declared = &p.root.workloads[w.name.as_str()];
                prop_assert_eq!(permissions(task_grants), task_permissions(&plan, w, declared), "task role of {}", w.name);
                let ItemSpec::EcsService(service) = &of_kind(ItemKind::EcsService).unwrap().spec else { panic!() };
                prop_assert_eq!(service.enable_execute_command, declared.exec, "ECS Exec of {}", w.name);
                prop_assert_eq!(
                    permissions(execution_grants),
                    execution_permissions(&plan, w, &task.id),
                    "execution role of {}", w.name
                );
                // A `migrate` runs as the service does: the same roles, the same secrets, and
                // a one-off task of the plan names it.
                for migrate in w.items.iter().map(|id| plan.item(id).unwrap()).filter(|i| one_off(i)) {
                    let ItemSpec::TaskDefinition(m) = &migrate.spec else { panic!() };
                    prop_assert_eq!(&m.execution_role, execution_role);
                    prop_assert_eq!(&m.task_role, role);
                    prop_assert_eq!(&m.secrets, &spec.secrets);
                    prop_assert!(plan.tasks.iter().any(|t| t.task_definition == migrate.id), "{}", migrate.id);
                }
                // No wildcard: no action has one, and `*` is the resource of the ECR token and
                // of ECS Exec's channels only.
                for g in execution_grants.iter().chain(task_grants) {
                    prop_assert!(g.actions.iter().all(|a| !a.contains('*')), "{:?}", g.actions);
                    if g.resources.contains(&PolicyResource::Any) {
                        prop_assert!(g.actions == ["ecr:GetAuthorizationToken"] || g.actions == EXEC_ACTIONS, "{:?}", g.actions);
                        prop_assert_eq!(g.resources.len(), 1);
                    }
                }
            }
            // No role is left over from the environment: every role belongs to a workload, or
            // is the execution role of a postgres resource's bootstrap, granted what its task
            // reads and nothing else.
            for i in plan.items.iter().filter(|i| matches!(i.kind(), ItemKind::TaskExecutionRole | ItemKind::TaskRole)) {
                let owner = i.owner.as_deref().unwrap_or_default();
                if plan.workloads.iter().any(|w| w.name == owner) {
                    continue;
                }
                let boot = plan.secrets.bootstraps.iter().find(|b| b.resource == owner);
                prop_assert!(boot.is_some() && i.kind() == ItemKind::TaskExecutionRole, "{} belongs to no workload", i.id);
                let ItemSpec::TaskExecutionRole { grants, .. } = &i.spec else { panic!() };
                prop_assert_eq!(permissions(grants), bootstrap_permissions(&plan, boot.unwrap(), &i.id)?, "{}", i.id);
            }
        }
    }
}

/// What a security group is attached to, or the outside.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Node {
    Internet,
    Members,
    Alb,
    Workload(String),
    Proxy(String),
    Database(String),
    Cache(String),
    /// The environment's VPC interface endpoints (`network.endpoints`).
    Endpoints,
    /// Any address of the VPC (`vpcCidrBlocks`): other environments, members, anything else.
    Vpc,
    /// A postgres resource's bootstrap task.
    Bootstrap(String),
}

type Reach = BTreeSet<(Node, Node, u16)>;

/// Who reaches what on which port, computed from the plan's security groups and what they are
/// attached to: a group's ingress from another group counts when that group's egress allows
/// it too (the groups have no default egress). Also checks that every rule between two groups
/// has its counterpart.
fn reachability(plan: &Plan) -> Result<Reach, TestCaseError> {
    use std::collections::BTreeMap;
    let mut attached: BTreeMap<&str, Vec<Node>> = BTreeMap::new();
    let mut groups: BTreeMap<&str, (&[SecurityRule], &[SecurityRule])> = BTreeMap::new();
    for i in &plan.items {
        let (node, ids) = match &i.spec {
            ItemSpec::SecurityGroup { ingress, egress, .. } => {
                groups.insert(i.id.as_str(), (ingress, egress));
                continue;
            }
            ItemSpec::Alb(alb) => (Node::Alb, alb.security_groups.as_slice()),
            ItemSpec::EcsService(s) => (Node::Workload(s.workload.to_string()), s.security_groups.as_slice()),
            ItemSpec::RdsProxy(s) => (Node::Proxy(s.resource.to_string()), s.security_groups.as_slice()),
            ItemSpec::RdsInstance(s) => {
                (Node::Database(s.resource.to_string()), s.security_groups.as_slice())
            }
            ItemSpec::AuroraCluster(s) => {
                (Node::Database(s.resource.to_string()), s.security_groups.as_slice())
            }
            ItemSpec::CacheReplicationGroup(s) => {
                (Node::Cache(s.resource.to_string()), s.security_groups.as_slice())
            }
            ItemSpec::VpcEndpoint { security_groups, .. } => (Node::Endpoints, &**security_groups),
            _ => continue,
        };
        for g in ids {
            attached.entry(g.as_str()).or_default().push(node.clone());
        }
    }
    // A one-off task's network interface: a migration's is its workload's, a bootstrap's its own.
    for t in &plan.tasks {
        let node = match &t.purpose {
            TaskPurpose::Migrate { workload } => Node::Workload(workload.to_string()),
            TaskPurpose::DatabaseBootstrap { resource } => Node::Bootstrap(resource.to_string()),
        };
        for g in &t.security_groups {
            let nodes = attached.entry(g.as_str()).or_default();
            if !nodes.contains(&node) {
                nodes.push(node.clone());
            }
        }
    }
    let on = |g: &str| attached.get(g).cloned().unwrap_or_default();
    let mut reach = Reach::new();
    for (b, (ingress, egress)) in &groups {
        prop_assert!(attached.contains_key(b), "group {} is attached to nothing", b);
        for r in ingress.iter() {
            let sources = match &r.peer {
                Peer::Internet => vec![Node::Internet],
                Peer::Members => vec![Node::Members],
                Peer::Vpc => vec![Node::Vpc],
                Peer::Group { item: a } => {
                    let allowed = groups[a.as_str()]
                        .1
                        .iter()
                        .any(|e| e.peer == Peer::Group { item: (*b).into() } && e.port == r.port);
                    prop_assert!(allowed, "{} admits {} on {} but {} may not go there", b, a, r.port, a);
                    on(a)
                }
            };
            for s in sources {
                for t in on(b) {
                    reach.insert((s.clone(), t, r.port));
                }
            }
        }
        for e in egress.iter() {
            match &e.peer {
                Peer::Internet => {
                    for s in on(b) {
                        reach.insert((s, Node::Internet, e.port));
                    }
                }
                Peer::Group { item: t } => {
                    let admitted = groups[t.as_str()]
                        .0
                        .iter()
                        .any(|i| i.peer == Peer::Group { item: (*b).into() } && i.port == e.port);
                    prop_assert!(admitted, "{} may go to {} on {} but is not admitted", b, t, e.port);
                }
                _ => prop_assert!(false, "egress to {:?}", e.peer),
            }
        }
    }
    Ok(reach)
}

/// Who may reach what, from `uses` and `expose` alone.
fn allowed(p: &Product, plan: &Plan) -> Reach {
    let mut want = Reach::new();
    let kind = |r: &str| plan.resources.iter().find(|x| x.name == r).map(|x| x.kind);
    let port = |w: &PlannedWorkload| w.port;
    let has_domain = p.root.environments[plan.environment.as_str()].domain.is_some();
    let public: Vec<&PlannedWorkload> =
        plan.workloads.iter().filter(|w| w.expose == runway_schema::Expose::Public).collect();
    if !public.is_empty() && has_domain {
        want.insert((Node::Internet, Node::Alb, 443));
        want.insert((Node::Internet, Node::Alb, 80));
        for w in &public {
            // A public workload has a port (the file format refuses one without).
            if let Some(port) = port(w) {
                want.insert((Node::Alb, Node::Workload(w.name.to_string()), port));
            }
        }
    }
    for w in &plan.workloads {
        want.insert((Node::Workload(w.name.to_string()), Node::Internet, 443));
        for u in &w.uses {
            match kind(u) {
                Some(Kind::Postgres) => {
                    want.insert((Node::Workload(w.name.to_string()), Node::Proxy(u.to_string()), 5432));
                }
                Some(Kind::Cache) => {
                    want.insert((Node::Workload(w.name.to_string()), Node::Cache(u.to_string()), 6379));
                }
                _ => {}
            }
        }
        // A worker (no port) is reached by nothing.
        if let (runway_schema::Expose::Internal, Some(port)) = (w.expose, port(w)) {
            for other in &plan.workloads {
                want.insert((
                    Node::Workload(other.name.to_string()),
                    Node::Workload(w.name.to_string()),
                    port,
                ));
            }
            if !p.members.is_empty() {
                want.insert((Node::Members, Node::Workload(w.name.to_string()), port));
            }
        }
    }
    for r in &plan.resources {
        let by_members =
            plan.bindings.iter().any(|b| b.resource == r.name && b.consumer_kind != ConsumerKind::Workload);
        match r.kind {
            Kind::Postgres => {
                want.insert((Node::Proxy(r.name.to_string()), Node::Database(r.name.to_string()), 5432));
                want.insert((Node::Proxy(r.name.to_string()), Node::Internet, 443));
                // Its bootstrap task: the proxy, and 443 for its image, parameters and logs.
                want.insert((Node::Bootstrap(r.name.to_string()), Node::Proxy(r.name.to_string()), 5432));
                want.insert((Node::Bootstrap(r.name.to_string()), Node::Internet, 443));
                if by_members {
                    want.insert((Node::Members, Node::Proxy(r.name.to_string()), 5432));
                }
            }
            Kind::Cache if by_members => {
                want.insert((Node::Members, Node::Cache(r.name.to_string()), 6379));
            }
            _ => {}
        }
    }
    // With `network.endpoints: true`, the whole VPC reaches the interface endpoints (their
    // private DNS answers for all of it), which exist when something calls AWS from the private
    // subnets: a task or a proxy (whose 443 egress reaches them). `existing` declares none.
    let postgres = plan.resources.iter().any(|r| r.kind == Kind::Postgres);
    let endpoints = p.root.environments[plan.environment.as_str()].network.endpoints;
    if endpoints == runway_schema::Endpoints::Declared && (!plan.workloads.is_empty() || postgres) {
        want.insert((Node::Vpc, Node::Endpoints, 443));
    }
    want
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn security_groups_allow_exactly_what_uses_and_expose_allow(p in product()) {
        let c = Catalogue::builtin();
        for plan in plans(&p, &c) {
            prop_assert_eq!(reachability(&plan)?, allowed(&p, &plan), "{}", plan.environment);
        }
    }
}

/// The consumers of postgres resource `r` with the mode each is to be granted, from the
/// product (workloads' `uses` and modes, then members', always `write`).
fn postgres_consumers(p: &Product, r: &str) -> Vec<(String, Access)> {
    let workloads = (p.root.workloads.iter())
        .filter(|(_, w)| w.uses.iter().any(|u| u == r))
        .map(|(n, w)| (n.clone(), w.access_to(r)));
    let members =
        p.members.iter().filter(|m| m.uses.iter().any(|u| u == r)).map(|m| (m.name.clone(), Access::Write));
    workloads.chain(members).collect()
}

proptest! {
    #![proptest_config(config())]

    /// Every consumer of a postgres resource logs in as its own role, granted what its `uses`
    /// mode allows and nothing of the admin's: its variables name that role, its parameters are
    /// its own, and only the bootstrap reads the admin's password.
    #[test]
    fn each_database_consumer_has_its_own_role_granted_its_mode_and_never_the_admin(p in product()) {
        let c = Catalogue::builtin();
        for plan in plans(&p, &c) {
            let postgres: Vec<&PlannedResource> = plan.resources.iter().filter(|r| r.kind == Kind::Postgres).collect();
            prop_assert_eq!(plan.secrets.bootstraps.len(), postgres.len());
            for (r, boot) in postgres.iter().zip(&plan.secrets.bootstraps) {
                prop_assert_eq!(&boot.resource, &r.name);
                let sql = boot.sql();
                let want = postgres_consumers(&p, &r.name);
                let got: Vec<(String, Access)> =
                    boot.logins.iter().map(|l| (l.consumer.to_string(), l.access)).collect();
                prop_assert_eq!(&got, &want);
                let admin_password = plan
                    .secrets
                    .ssm_parameters
                    .iter()
                    .find(|s| s.owner == r.name && s.consumer.is_none() && s.variable.ends_with("_PASSWORD"))
                    .unwrap();
                // The admin's password: read by the bootstrap alone, and by the database's own
                // write-only input (the program sets it from the parameter).
                prop_assert!(admin_password.referenced_by.contains(&boot.id), "{:?}", admin_password.referenced_by);
                for reader in &admin_password.referenced_by {
                    prop_assert!(*reader == boot.id || r.items.contains(reader), "{} reads the admin's password", reader);
                }
                let mut roles = BTreeSet::new();
                for l in &boot.logins {
                    prop_assert_eq!(l.role.as_str(), format!("app_{}", l.consumer.replace('-', "_")));
                    prop_assert!(roles.insert(l.role.clone()), "two logins are {}", l.role);
                    prop_assert!(l.role != lower::POSTGRES_USER && !l.role.starts_with("pg_") && l.role.len() <= 63);
                    let role = format!("\"{}\"", l.role);
                    let (granted, other) = match l.access {
                        Access::Write => (WRITE_GROUP, READ_GROUP),
                        Access::Read => (READ_GROUP, WRITE_GROUP),
                    };
                    prop_assert!(sql.contains(&format!("GRANT \"{granted}\" TO {role};")), "{}", l.role);
                    prop_assert!(!sql.contains(&format!("GRANT \"{other}\" TO {role};")), "{}", l.role);
                    prop_assert!(sql.contains(&format!("REVOKE \"{other}\" FROM {role};")), "{}", l.role);
                    // Its own password, by variable: the SQL holds none.
                    prop_assert!(sql.contains(&format!("\\getenv runway_password {}\n", l.password_variable)), "{}", l.role);
                    prop_assert!(l.password_parameter != admin_password.name);
                    // Its generated password is copied to its own proxy secret under its role.
                    let g = plan.secrets.generated.iter().find(|g| g.resource == r.name && g.consumer.as_deref() == Some(l.consumer.as_str())).unwrap();
                    prop_assert_eq!(g.kind, CredentialKind::PostgresLoginPassword);
                    prop_assert_eq!(g.secrets_manager.as_ref(), Some(&l.proxy_secret));
                    prop_assert_eq!(g.secrets_manager_username.as_ref(), Some(&l.role));
                    // Its variables: its user is its role, and a workload's task reads its
                    // own parameters, never the admin's.
                    let user = plan.secrets.connection.iter().find(|v| {
                        v.resource == r.name && v.consumer.as_deref() == Some(l.consumer.as_str()) && v.infisical.name.ends_with("_USER")
                    });
                    prop_assert_eq!(user.map(|v| &v.source), Some(&ConnectionSource::Literal { value: l.role.clone() }));
                    let b = plan.bindings.iter().find(|b| b.consumer == l.consumer && b.resource == r.name).unwrap();
                    prop_assert_eq!(b.login.as_ref(), Some(&l.role));
                    prop_assert_eq!(b.access, l.access);
                    let own = format!("{}/{}/{}/", plan.secrets.ssm_prefix, r.name, l.consumer);
                    prop_assert!(b.ssm.iter().all(|s| s.starts_with(&own)), "{:?}", b.ssm);
                }
                // No other grant of a role to anyone but the admin's own membership of the
                // write group; no attribute beyond login.
                let grants: Vec<&str> = sql.lines().filter(|l| l.starts_with("GRANT \"")).collect();
                prop_assert_eq!(grants.len(), boot.logins.len() + 1);
                prop_assert!(!sql.contains(" SUPERUSER") && !sql.contains(" CREATEROLE") && !sql.contains("BYPASSRLS"));
                let admin_granted = format!("GRANT \"{}\" TO", lower::POSTGRES_USER);
                prop_assert!(!sql.contains(&admin_granted));
                // The proxy authenticates each login with its own secret.
                let proxy = r.items.iter().map(|i| plan.item(i).unwrap()).find(|i| i.kind() == ItemKind::RdsProxy).unwrap();
                let ItemSpec::RdsProxy(spec) = &proxy.spec else { panic!() };
                let secrets: Vec<&str> = spec.logins.iter().map(|s| plan.item(s).unwrap().physical_name.as_str()).collect();
                let want: Vec<&str> = boot.logins.iter().map(|l| l.proxy_secret.as_str()).collect();
                prop_assert_eq!(secrets, want);
            }
        }
    }
}
