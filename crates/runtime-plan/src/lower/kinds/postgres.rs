//! `kind: postgres`: an RDS instance or an Aurora cluster with its instances, always behind an
//! RDS Proxy (its admin secret, role, target group and target); consumers reach it through the
//! proxy with TLS.

use std::sync::Arc;

use compact_str::{CompactString, ToCompactString, format_compact};
use cost::PostgresSize;
use runway_schema::{PostgresEngine, UsageKey};

use super::consumers::Login;
use super::context::{Cx, Named, NewItem};
use super::platform::Platform;
use super::resources::Res;
use super::{Described, POSTGRES_PORT, POSTGRES_USER, cat, database_name, usage};
use super::{network, protection};
use crate::naming::fit;
use crate::plan::{
    AuroraClusterSpec, ConnectionSource, CredentialKind, DatabaseBootstrap, DatabaseLogin, ItemKind,
    ItemSpec, ManagedBy, OwnDatabase, RdsInstanceSpec, RdsProxySpec, RdsProxyTargetSpec, TaskSecret,
    postgres_engine_str,
};
use crate::pricing::Priceable;

/// Lowers a postgres resource: database first (its main item), then the proxy's admin secret
/// and each login's, Aurora's instances, and the proxy; then its variables, each login's, and
/// the bootstrap that makes the logins.
pub(in crate::lower) fn lower(
    cx: &mut Cx,
    r: &Res,
    (engine, version): (PostgresEngine, &str),
    platform: &Platform,
    logins: &[Login],
) -> Described {
    let sizing = cx.catalogue.postgres(engine, &r.size);
    if sizing.is_none() {
        cx.unknown_resource_size(r, &format!("postgres {}", postgres_engine_str(engine)));
    }
    let sizing = sizing.unwrap_or_else(empty_postgres);
    let base = cx.base(&r.name);
    let secret = cat(&[&r.name, "_proxy-secret"]);
    // A preview's bootstrap logs in as its `from` environment's admin: that environment's
    // secret, which the preview never writes.
    let admin_env = cx.preview.map_or(cx.env_name, |p| p.from);
    let secret_name = cat(&[cx.product, "/", admin_env, "/", &r.name, "/proxy-admin"]);
    let names = Names::of(r);
    let db = database(cx, (r, &names), (engine, version), &sizing, &secret, platform);
    let spec = ItemSpec::ProxySecret { resource: r.name.clone(), name: secret_name.clone() };
    cx.add(
        NewItem::new(secret.clone(), secret_name.clone(), Some(&r.name), spec)
            .managed_by(ManagedBy::SecretsAdapter)
            .priced(Priceable::Secret),
    );
    let login_secrets = login_secrets(cx, r, logins);
    if engine == PostgresEngine::Aurora {
        aurora_instances(cx, r, &base, &db.id, &sizing);
    }
    let proxy = proxy(cx, r, engine, &base, (&secret, &login_secrets), &db);
    network::declare_postgres(cx, (r.index, &r.name, &base));
    // The same template in the resource's folder and every login's: made once.
    let url = url_template(&names);
    variables(cx, (r, &names), secret_name, &proxy, &url);
    login_variables(cx, (r, &names), logins, &login_secrets, &url);
    bootstrap(cx, (r, &names), logins, &login_secrets, platform);
    Described {
        engine: postgres_engine_str(engine).into(),
        version: Some(version.into()),
        summary: summary(engine, &sizing),
    }
}

/// A postgres resource's variable names, each found once among its variables (sixth pass:
/// looked for about 18 times a resource).
struct Names {
    url: CompactString,
    host: CompactString,
    port: CompactString,
    database: CompactString,
    user: CompactString,
    password: CompactString,
}

impl Names {
    fn of(r: &Res) -> Names {
        let [url, host, port, database, user, password] =
            ["URL", "HOST", "PORT", "DATABASE", "USER", "PASSWORD"].map(|suffix| r.var(suffix));
        Names { url, host, port, database, user, password }
    }
}

/// The RDS instance or Aurora cluster.
fn database(
    cx: &mut Cx,
    (r, names): (&Res, &Names),
    (engine, version): (PostgresEngine, &str),
    sizing: &PostgresSize,
    secret: &CompactString,
    platform: &Platform,
) -> Named {
    let subnet_group = platform.db_subnets.clone().unwrap_or_default();
    let kind = match engine {
        PostgresEngine::Rds => ItemKind::RdsInstance,
        PostgresEngine::Aurora => ItemKind::AuroraCluster,
    };
    let name = cx.named(kind, cx.base(&r.name));
    let database = database_name(&r.name);
    let shared_parameter = cx.secrets.ssm_name(&r.name, &names.password);
    let password_parameter = CompactString::from(&*shared_parameter);
    // What replaces the database when it changes (the identifier is the name itself).
    let generation = [postgres_engine_str(engine), database.as_str(), POSTGRES_USER, "encrypted"];
    let protection = protection::database(cx.env_name, &name, &generation);
    let apply_immediately = protection::apply_immediately(cx.env_name, cx.env.apply_changes);
    let spec = match engine {
        PostgresEngine::Rds => ItemSpec::RdsInstance(Box::new(RdsInstanceSpec {
            resource: r.name.clone(),
            engine_version: version.into(),
            size: sizing.clone(),
            storage_type: "gp3".into(),
            database: database.as_str().into(),
            username: POSTGRES_USER.into(),
            admin_secret: secret.clone(),
            admin_password_parameter: password_parameter.clone(),
            subnet_group: subnet_group.clone(),
            security_groups: network::database_groups(&r.name),
            storage_encrypted: true,
            publicly_accessible: false,
            protection,
            apply_immediately,
        })),
        PostgresEngine::Aurora => ItemSpec::AuroraCluster(Box::new(AuroraClusterSpec {
            resource: r.name.clone(),
            engine_version: version.into(),
            size: sizing.clone(),
            database: database.as_str().into(),
            username: POSTGRES_USER.into(),
            admin_secret: secret.clone(),
            admin_password_parameter: password_parameter.clone(),
            subnet_group: subnet_group.clone(),
            security_groups: network::database_groups(&r.name),
            storage_encrypted: true,
            protection,
            apply_immediately,
        })),
    };
    let db = cat(&[&r.name, "_db"]);
    let (storage_gb, io) = aurora_usage(cx, r, &db, engine, sizing);
    let id = cx.push(
        NewItem::new(db, name.clone(), Some(&r.name), spec)
            .size(&r.size)
            .depends_on([vec![subnet_group, secret.clone()], network::database_groups(&r.name)].concat())
            .priced(Priceable::Postgres { engine, size: r.size.as_str().into(), storage_gb, io }),
    );
    // The database reads its master password from SSM (a write-only input of the program); a
    // preview's is its `from` environment's instance, which it does not declare.
    if let Some(password) = r.var_index("PASSWORD")
        && cx.preview.is_none()
    {
        cx.secrets.resource_parameter(r, password, &shared_parameter, &id);
    }
    Named { id, name }
}

/// What an Aurora cluster stores and its I/O requests a month (declared, or the size's
/// storage); an RDS instance's storage is allocated by its size and bills no I/O.
fn aurora_usage(
    cx: &mut Cx,
    r: &Res,
    db: &str,
    engine: PostgresEngine,
    sizing: &PostgresSize,
) -> (Option<rust_decimal::Decimal>, Option<rust_decimal::Decimal>) {
    match engine {
        PostgresEngine::Rds => (None, None),
        PostgresEngine::Aurora => {
            let owner_item = (Some(r.name.as_str()), db);
            // An unknown size (reported) assumes nothing.
            let default = (!sizing.instance_class.is_empty())
                .then(|| (rust_decimal::Decimal::from(sizing.storage_gb), r.size.as_str()));
            let declared = usage::declared(cx, Some(&r.name), UsageKey::StorageGb);
            let storage = usage::count(cx, owner_item, UsageKey::StorageGb, declared, default);
            let declared = usage::declared(cx, Some(&r.name), UsageKey::AuroraIo);
            (storage, usage::count(cx, owner_item, UsageKey::AuroraIo, declared, None))
        }
    }
}

/// An Aurora cluster's instances, `<base>-1` on, each name cut to 63 bytes before its number.
fn aurora_instances(cx: &mut Cx, r: &Res, base: &str, cluster: &CompactString, sizing: &PostgresSize) {
    for i in 1..=sizing.instances {
        let full = format_compact!("{base}-{i}");
        let name = if full.len() > 63 {
            format_compact!("{}-{i}", fit(base, 63 - 1 - i.to_string().len()))
        } else {
            full
        };
        let spec = ItemSpec::AuroraInstance {
            cluster: cluster.clone(),
            instance_class: sizing.instance_class.as_str().into(),
            index: i,
            publicly_accessible: false,
            apply_immediately: protection::apply_immediately(cx.env_name, cx.env.apply_changes),
        };
        cx.add(
            NewItem::new(format_compact!("{}_instance-{i}", r.name), name, Some(&r.name), spec)
                .size(&r.size)
                .depends_on(vec![cluster.clone()]),
        );
    }
}

/// The RDS Proxy with its role, target group and target; returns the proxy's id.
fn proxy(
    cx: &mut Cx,
    r: &Res,
    engine: PostgresEngine,
    base: &str,
    (secret, logins): (&CompactString, &[(CompactString, CompactString)]),
    db: &Named,
) -> CompactString {
    let role_name = cx.named(ItemKind::ProxyRole, cat(&[base, "-proxy-role"]));
    let logins: Vec<CompactString> = logins.iter().map(|(id, _)| id.clone()).collect();
    // The environment previews are `from`: its proxy admits their logins too, each preview's
    // registered by `runway preview up` (docs/previews.md, "The shared proxy's logins").
    let previews =
        cx.previews_from.then(|| Box::from(cat(&[cx.product, "/pr-*/", &r.name, "/proxy-*"]).as_str()));
    let spec = ItemSpec::ProxyRole { secret: secret.clone(), logins: logins.as_slice().into(), previews };
    let role = cx.push(
        NewItem::new(cat(&[&r.name, "_proxy-role"]), role_name, Some(&r.name), spec)
            .depends_on([vec![secret.clone()], logins.clone()].concat()),
    );
    let proxy_name = cx.named(ItemKind::RdsProxy, cat(&[base, "-proxy"]));
    let security_groups = network::proxy_groups(cx, r.index, &r.name);
    let depends_on =
        [vec![secret.clone()], logins.clone(), vec![role.clone()], security_groups.clone()].concat();
    let spec = ItemSpec::RdsProxy(Box::new(RdsProxySpec {
        resource: r.name.clone(),
        engine_family: "POSTGRESQL".into(),
        secret: secret.clone(),
        logins,
        role: role.clone(),
        require_tls: true,
        security_groups,
    }));
    let proxy = cx.push(
        NewItem::new(cat(&[&r.name, "_proxy"]), proxy_name.clone(), Some(&r.name), spec)
            .size(&r.size)
            .depends_on(depends_on)
            .priced(Priceable::RdsProxy { engine, size: r.size.as_str().into() }),
    );
    let spec = ItemSpec::RdsProxyTargetGroup { proxy: proxy.clone() };
    let tg = cx.push(
        NewItem::new(
            cat(&[&r.name, "_proxy-target-group"]),
            cat(&[&proxy_name, "/default"]),
            Some(&r.name),
            spec,
        )
        .depends_on(vec![proxy.clone()]),
    );
    let spec = ItemSpec::RdsProxyTarget(Box::new(RdsProxyTargetSpec {
        proxy: proxy.clone(),
        target_group: tg.clone(),
        target: db.id.clone(),
    }));
    cx.add(
        NewItem::new(
            cat(&[&r.name, "_proxy-target"]),
            cat(&[&proxy_name, "/default/", &db.name]),
            Some(&r.name),
            spec,
        )
        .depends_on(vec![proxy.clone(), tg, db.id.clone()]),
    );
    proxy
}

/// The admin password to generate (copied to the proxy's secret) and the connection
/// variables: the URL template, the proxy's endpoint, and what the plan knows.
/// A preview generates no admin password and composes no admin URL: its bootstrap reads its
/// `from` environment's, and its consumers have their own logins.
fn variables(
    cx: &mut Cx,
    (r, names): (&Res, &Names),
    secret_name: CompactString,
    proxy: &str,
    url: &CompactString,
) {
    if cx.preview.is_none() {
        let copy = Some((secret_name, POSTGRES_USER.into()));
        cx.secrets.generated(r, CredentialKind::PostgresAdminPassword, copy);
        cx.secrets.template(r, names.url.clone(), url.clone());
    }
    cx.output(r, proxy, "endpoint", names.host.clone());
    cx.secrets.literal(r, names.port.clone(), POSTGRES_PORT.to_compact_string());
    let database = cx.database(&r.name);
    cx.secrets.literal(r, names.database.clone(), database);
    cx.secrets.literal(r, names.user.clone(), POSTGRES_USER.into());
}

/// Each login's proxy secret, written by `secrets prepare` like the admin's: returns their
/// logical ids and names, in login order.
fn login_secrets(cx: &mut Cx, r: &Res, logins: &[Login]) -> Vec<(CompactString, CompactString)> {
    let mut out = Vec::with_capacity(logins.len());
    for login in logins {
        let id = cat(&[&r.name, "_proxy-secret-", &login.consumer]);
        let name = cat(&[cx.product, "/", cx.env_name, "/", &r.name, "/proxy-", &login.consumer]);
        let spec = ItemSpec::ProxySecret { resource: r.name.clone(), name: name.clone() };
        cx.add(
            NewItem::new(id.clone(), name.clone(), Some(&r.name), spec)
                .managed_by(ManagedBy::SecretsAdapter)
                .priced(Priceable::Secret),
        );
        out.push((id, name));
    }
    out
}

/// Each login's own variables, in its own folder: its password (generated, copied to its proxy
/// secret), its user (the role), the URL composed with them, and the database's endpoint,
/// port and name.
fn login_variables(
    cx: &mut Cx,
    (r, names): (&Res, &Names),
    logins: &[Login],
    secrets: &[(CompactString, CompactString)],
    url: &CompactString,
) {
    // The same database in every login's folder, and the same variable names: made once
    // (sixth pass: each name was found among the resource's variables per login).
    let database = cx.database(&r.name);
    let Names { url: url_var, host, port, database: database_var, user, .. } = names;
    for (login, (_, secret_name)) in logins.iter().zip(secrets) {
        let folder = cx.secrets.login_folder(r, &login.consumer);
        let c = (login.consumer.as_str(), &folder);
        cx.secrets.generated_login(r, c, &login.role, secret_name.clone());
        let template = url.clone();
        cx.secrets.login_connection(r, c, url_var.clone(), ConnectionSource::Template { template });
        let output = ConnectionSource::Output { output: host.clone() };
        cx.secrets.login_connection(r, c, host.clone(), output);
        let value = ConnectionSource::Literal { value: POSTGRES_PORT.to_compact_string() };
        cx.secrets.login_connection(r, c, port.clone(), value);
        let value = ConnectionSource::Literal { value: database.clone() };
        cx.secrets.login_connection(r, c, database_var.clone(), value);
        let value = ConnectionSource::Literal { value: login.role.clone() };
        cx.secrets.login_connection(r, c, user.clone(), value);
    }
}

/// The bootstrap of the resource's logins (docs/secrets.md, "Database roles"): it reads the
/// proxy's endpoint and the admin's password (its parameters referenced by it alone) and each
/// login's password.
fn bootstrap(
    cx: &mut Cx,
    (r, names): (&Res, &Names),
    logins: &[Login],
    secrets: &[(CompactString, CompactString)],
    platform: &Platform,
) {
    let id = super::postgres_bootstrap::task_definition_id(&r.name);
    let mut task_secrets = Vec::with_capacity(logins.len() + 2);
    for (env, suffix) in [("PGHOST", "HOST"), ("PGPASSWORD", "PASSWORD")] {
        let Some(var) = r.var_index(suffix) else { continue };
        let parameter = match cx.preview {
            // The `from` environment's admin password, read where that environment keeps it.
            Some(p) if suffix == "PASSWORD" => {
                Arc::from(cat(&[p.from_ssm_prefix, "/", &r.name, "/", &r.vars[var]]).as_str())
            }
            _ => {
                let parameter = cx.secrets.ssm_name(&r.name, &r.vars[var]);
                cx.secrets.resource_parameter(r, var, &parameter, &id);
                parameter
            }
        };
        task_secrets.push(TaskSecret { name: env.into(), parameter });
    }
    let mut planned = Vec::with_capacity(logins.len());
    let (password, password_index) = (&names.password, r.var_index("PASSWORD"));
    for (n, (login, (_, proxy_secret))) in logins.iter().zip(secrets).enumerate() {
        let password_parameter = cx.secrets.login_ssm_name(&r.name, &login.consumer, password);
        if let Some(var) = password_index {
            cx.secrets.login_parameter(r, (login.index, &login.consumer), var, (&password_parameter, &id));
        }
        let password_variable = cat(&["RUNWAY_LOGIN_", &(n + 1).to_compact_string(), "_PASSWORD"]);
        task_secrets
            .push(TaskSecret { name: password_variable.clone(), parameter: Arc::clone(&password_parameter) });
        planned.push(DatabaseLogin {
            consumer: login.consumer.clone(),
            role: login.role.clone(),
            access: login.access,
            password_variable,
            password_parameter: CompactString::from(&*password_parameter),
            proxy_secret: proxy_secret.clone(),
        });
    }
    let boot = DatabaseBootstrap {
        resource: r.name.clone(),
        id,
        logins: planned,
        database: cx.database(&r.name),
        admin: CompactString::const_new(POSTGRES_USER),
        own: cx.preview.map(|p| OwnDatabase::new(&database_name(&r.name), p.suffix)),
    };
    if let Some(task) = super::postgres_bootstrap::lower(cx, (&boot, task_secrets), platform) {
        cx.tasks.push(task);
    }
    cx.secrets.bootstraps.push(boot);
}

/// The URL of a postgres resource's variables, composed by Infisical from the other variables
/// of the same folder.
fn url_template(names: &Names) -> CompactString {
    // Joined, not formatted: `format_compact!` cost about 2,900 instructions a template.
    let Names { user: u, password: pw, host: h, port: po, database: d, .. } = names;
    cat(&["postgresql://${", u, "}:${", pw, "}@${", h, "}:${", po, "}/${", d, "}?sslmode=require"])
}

/// What the size declares, in words.
fn summary(engine: PostgresEngine, s: &PostgresSize) -> String {
    if s.instances == 0 {
        return "unknown size".into();
    }
    // Joined, not formatted (sixth pass): `db.t4g.micro, 20 GB gp3 (grows to 100 GB), single-AZ`.
    let mut out = String::with_capacity(64);
    match engine {
        PostgresEngine::Rds => {
            out.push_str(&s.instance_class);
            out.push_str(", ");
            out.push_str(&s.storage_gb.to_compact_string());
            out.push_str(" GB gp3");
            if let Some(m) = s.max_storage_gb {
                out.push_str(" (grows to ");
                out.push_str(&m.to_compact_string());
                out.push_str(" GB)");
            }
            out.push_str(if s.multi_az { ", Multi-AZ" } else { ", single-AZ" });
        }
        PostgresEngine::Aurora => {
            out.push_str(&s.instances.to_compact_string());
            out.push_str(" x ");
            out.push_str(&s.instance_class);
        }
    }
    out
}

/// The sizing of a size the catalogue does not list (its diagnostic is reported).
fn empty_postgres() -> PostgresSize {
    PostgresSize {
        instance_class: String::new(),
        instances: 0,
        storage_gb: 0,
        max_storage_gb: None,
        multi_az: false,
        vcpu: 0,
        max_connections: None,
    }
}
