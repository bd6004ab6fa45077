//! The one-off task that runs a postgres resource's bootstrap (`plan/bootstrap.rs`): its log
//! group, its execution role (which reads the admin's password, the proxy's endpoint and each
//! login's password, nothing else), its security group (out to the proxy and to 443 only; the
//! proxy admits it) and its task definition, the pinned `psql` image running the plan's SQL
//! (the environment's `bootstrap.image`, else [`BOOTSTRAP_IMAGE`]). `runway migrate` runs it
//! before any workload's migration, once the proxy's target is available, and again whenever
//! the SQL or a parameter it reads changed (its record holds their versions). A warning says
//! when the private subnets have no route to its image ([`route`]).

use std::sync::{Arc, OnceLock};

use compact_str::{CompactString, ToCompactString, format_compact};
use runway_schema::Access;

use super::context::{Cx, NewItem};
use super::identity::{self, Identity};
use super::platform::Platform;
use super::{POSTGRES_PORT, cat, network, protection};
use crate::plan::{
    ATTEMPTS, ATTEMPTS_VARIABLE, BOOTSTRAP_COMMAND, CONNECT_TIMEOUT_SECONDS, DatabaseBootstrap,
    DatabaseLogin, ItemKind, ItemSpec, OneOffTask, OwnDatabase, PAUSE_SECONDS, PAUSE_VARIABLE,
    PlainVariables, TaskDefinitionSpec, TaskPurpose, TaskRecord, TaskSecret, bootstrap_sql,
};
use cost::TaskSize;

/// The bootstrap's Fargate size: `psql` and a few kilobytes of SQL.
const SIZE: TaskSize = TaskSize { cpu: 256, memory_mib: 512 };

/// Why its task and its logs are not priced: a run is about a minute of the smallest task and
/// a few kilobytes of logs, once per change of its SQL or its passwords.
const TASK_NOTE: &str =
    "a run is about a minute of the smallest Fargate task, once per change (under a cent)";
const LOGS_NOTE: &str = "a run writes a few kilobytes (under a cent)";

/// The container variable that names the logins and their modes (not read by the SQL).
const LOGINS_VARIABLE: &str = "RUNWAY_BOOTSTRAP_LOGINS";

/// The logical id of a resource's bootstrap task definition (the reader of its parameters).
pub(in crate::lower) fn task_definition_id(resource: &str) -> CompactString {
    cat(&[resource, "_bootstrap-task"])
}

/// Declares the items of `boot`'s task and returns the task (`None` without a cluster, which
/// the platform makes whenever a postgres resource is planned).
pub(in crate::lower) fn lower(
    cx: &mut Cx,
    (boot, secrets): (&DatabaseBootstrap, Vec<TaskSecret>),
    platform: &Platform,
) -> Option<OneOffTask> {
    let cluster = platform.cluster.as_ref()?.id.clone();
    let r = boot.resource.as_str();
    let image = Arc::clone(&cx.bootstrap_image);
    super::image_route::check(cx, r, &image);
    // `<resource>-bootstrap` names its items and its container; ids keep `<resource>_` first.
    let subject = cat(&[r, "-bootstrap"]);
    let base = cx.base(&subject);
    let log_group = log_group(cx, r, &subject);
    let parameters: Arc<[Arc<str>]> = secrets.iter().map(|s| Arc::clone(&s.parameter)).collect();
    let id = Identity {
        image: &image,
        log_group: &log_group,
        registry_secret: None,
        parameters: vec![parameters.clone()],
        uses: Vec::new(),
        exec: false,
    };
    let (grants, _) = identity::grants(&id, &cx.secrets.kms_key);
    let name = cx.named(ItemKind::TaskExecutionRole, cat(&[&base, "-execution"]));
    let spec = ItemSpec::TaskExecutionRole { workload: subject.clone(), grants };
    let execution_role = cx.push(NewItem::new(cat(&[r, "_bootstrap-execution-role"]), name, Some(r), spec));
    let group = network::declare_bootstrap(cx, r, &base);
    let spec = ItemSpec::TaskDefinition(Box::new(TaskDefinitionSpec {
        workload: subject.clone(),
        image: image.clone(),
        repository_credentials: None,
        task: SIZE,
        cpu_architecture: CompactString::const_new("X86_64"),
        port: None,
        health: None,
        environment: environment(boot),
        secrets,
        execution_role: execution_role.clone(),
        task_role: None,
        log_group: log_group.clone(),
        // The postgres image's entrypoint runs a command that is not the server as given.
        entry_point: None,
        command: Some(BOOTSTRAP_COMMAND.map(CompactString::const_new).to_vec()),
    }));
    let name = cx.named(ItemKind::TaskDefinition, base);
    let item = NewItem::new(task_definition_id(r), name, Some(r), spec)
        .depends_on(vec![execution_role, log_group.clone()])
        .included(TASK_NOTE);
    let task_definition = cx.push(item);
    let purpose = TaskPurpose::DatabaseBootstrap { resource: r.into() };
    let name = cat(&[purpose.word(), "-", r]);
    let command = cx.fingerprint(fingerprinted(boot));
    Some(OneOffTask {
        output: cat(&["runway-task-", &name]),
        record: TaskRecord {
            parameter: cat(&[&cx.secrets.ssm_prefix, "/runway/", purpose.word(), "/", r]),
            image,
            command,
            versions_of: parameters.iter().map(|p| CompactString::from(&**p)).collect(),
        },
        name,
        purpose,
        task_definition,
        cluster,
        security_groups: vec![group],
        container: subject.clone(),
        log_group,
        log_stream_prefix: subject,
        proxy: proxy_name(cx, r),
    })
}

/// The name of `r`'s proxy (planned just before its bootstrap), which the bootstrap connects
/// through.
fn proxy_name(cx: &Cx, r: &str) -> Option<CompactString> {
    let id = cat(&[r, "_proxy"]);
    cx.items.iter().rev().find(|i| i.id == id).map(|i| i.physical_name.clone())
}

/// Where the container connects: the proxy's port, the database, the admin, TLS, how long one
/// attempt waits (the proxy's endpoint and the passwords are secrets; the program adds the
/// SQL); how often it tries and the pause between two tries ([`BOOTSTRAP_COMMAND`]); and the
/// logins it makes with their modes (`app_api=write,app_bi=read`), which the SQL does not read:
/// a review shows a consumer's new mode there, and the console what the task does.
fn environment(boot: &DatabaseBootstrap) -> PlainVariables {
    let mut logins = CompactString::default();
    for (n, l) in boot.logins.iter().enumerate() {
        if n > 0 {
            logins.push(',');
        }
        logins.push_str(&l.role);
        logins.push('=');
        logins.push_str(l.access.as_str());
    }
    [
        (CompactString::const_new("PGPORT"), POSTGRES_PORT.to_compact_string()),
        // A preview's connects to its `from` environment's database first, to create its own.
        (
            CompactString::const_new("PGDATABASE"),
            boot.own.as_ref().map_or(&boot.database, |o| &o.connects_to).clone(),
        ),
        (CompactString::const_new("PGUSER"), boot.admin.clone()),
        (CompactString::const_new("PGSSLMODE"), CompactString::const_new("require")),
        (CompactString::const_new("PGCONNECT_TIMEOUT"), CONNECT_TIMEOUT_SECONDS.to_compact_string()),
        (CompactString::const_new(ATTEMPTS_VARIABLE), ATTEMPTS.to_compact_string()),
        (CompactString::const_new(PAUSE_VARIABLE), PAUSE_SECONDS.to_compact_string()),
        (CompactString::const_new(LOGINS_VARIABLE), logins),
    ]
    .into_iter()
    .collect()
}

/// What makes a run the same as the last, besides its image and the versions of the parameters
/// it reads: what its SQL is made of (the revision of the SQL and the command, the database,
/// the admin, each login as the SQL names it). Not the SQL's text, which grows with the logins.
fn fingerprinted(boot: &DatabaseBootstrap) -> Vec<CompactString> {
    let mut words = vec![sql_revision().clone(), boot.database.clone(), boot.admin.clone()];
    if let Some(own) = &boot.own {
        words.extend([preview_revision().clone(), own.connects_to.clone(), own.write_group.clone()]);
        words.push(own.read_group.clone());
    }
    for l in &boot.logins {
        // Joined, not formatted (`format_compact!` cost a few thousand instructions a login).
        words.push(cat(&[&l.consumer, " ", &l.role, " ", l.access.as_str(), " ", &l.password_variable]));
    }
    words
}

/// The fingerprint of the command and the SQL written for two sample logins, one of each mode:
/// another version of either gives another, so a runway that writes them differently runs
/// every bootstrap again.
fn sql_revision() -> &'static CompactString {
    static REVISION: OnceLock<CompactString> = OnceLock::new();
    REVISION.get_or_init(|| {
        let login = |n: u8, access: Access| DatabaseLogin {
            consumer: format_compact!("c{n}"),
            role: format_compact!("app_c{n}"),
            access,
            password_variable: format_compact!("RUNWAY_LOGIN_{n}_PASSWORD"),
            password_parameter: CompactString::default(),
            proxy_secret: CompactString::default(),
        };
        let sql = bootstrap_sql("d", "a", &[login(1, Access::Write), login(2, Access::Read)]);
        let mut words: Vec<CompactString> = BOOTSTRAP_COMMAND.map(CompactString::const_new).to_vec();
        words.push(sql.into());
        super::task_fingerprint::fingerprint(&words)
    })
}

/// The fingerprint of a preview's SQL for two sample logins (its database's creation, its
/// groups), so that another version of it runs every preview's bootstrap again.
fn preview_revision() -> &'static CompactString {
    static REVISION: OnceLock<CompactString> = OnceLock::new();
    REVISION.get_or_init(|| {
        let login = |n: u8, access: Access| DatabaseLogin {
            consumer: format_compact!("c{n}"),
            role: format_compact!("app_c{n}_pr_1"),
            access,
            password_variable: format_compact!("RUNWAY_LOGIN_{n}_PASSWORD"),
            password_parameter: CompactString::default(),
            proxy_secret: CompactString::default(),
        };
        let boot = DatabaseBootstrap {
            resource: CompactString::const_new("r"),
            id: CompactString::default(),
            logins: vec![login(1, Access::Write), login(2, Access::Read)],
            database: CompactString::const_new("d_pr_1"),
            admin: CompactString::const_new("a"),
            own: Some(OwnDatabase::new("d", "_pr_1")),
        };
        let words = [boot.sql(), boot.drop_sql().unwrap_or_default()].map(CompactString::from);
        super::task_fingerprint::fingerprint(&words)
    })
}

/// Its log group, kept as the environment keeps logs.
fn log_group(cx: &mut Cx, r: &str, subject: &str) -> CompactString {
    let name = cx.named(ItemKind::LogGroup, cat(&["/runway/", cx.product, "/", cx.env_name, "/", subject]));
    let retention_days = protection::log_retention_days(cx.env_name, cx.env.log_retention_days);
    let spec = ItemSpec::LogGroup { workload: subject.into(), retention_days };
    cx.push(NewItem::new(cat(&[r, "_bootstrap-logs"]), name, Some(r), spec).included(LOGS_NOTE))
}
