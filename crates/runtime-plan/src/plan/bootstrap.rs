//! The bootstrap of a postgres resource's roles: a one-off task, run from inside the VPC with a
//! runway-provided image, that logs in as the database's admin (the only place the admin's
//! password is used) and makes one login role per consumer, granted what its `uses` mode
//! allows (docs/secrets.md, "Database roles"). The plan describes it; a runner starts it.
//!
//! The SQL is plain text with no value in it: each role's password reaches `psql` as an
//! environment variable of the task (an ECS secret from the role's SSM parameter), read with
//! `\getenv` and handed to `ALTER ROLE ... PASSWORD` as a psql variable. Running it again changes
//! nothing but the passwords (set to what the parameters hold), so it is run after every
//! `secrets prepare` that made or rotated one.

use std::fmt::Write as _;

use compact_str::CompactString;
use runway_schema::Access;
use serde::{Serialize, Serializer};

/// The image the bootstrap runs unless the environment names another
/// (`environments.<env>.bootstrap.image`): the official PostgreSQL 16 client (psql 16, which
/// has `\getenv`), pinned by digest, from the public ECR mirror of Docker's official images (no
/// Docker Hub rate limit, no credentials; reached through a NAT only: ECR Public has no VPC
/// endpoint).
pub const BOOTSTRAP_IMAGE: &str = "public.ecr.aws/docker/library/postgres:16-alpine@sha256:57c72fd2a128e416c7fcc499958864df5301e940bca0a56f58fddf30ffc07777";

/// The container's command: `psql` reads the SQL from [`SQL_VARIABLE`]. A run that cannot
/// connect (psql's exit code 2: refused, timed out after `PGCONNECT_TIMEOUT`, or the
/// connection lost) is tried again after [`PAUSE_VARIABLE`] seconds, [`ATTEMPTS_VARIABLE`]
/// times in all (the SQL is idempotent); then the container exits 2 with a line saying so.
/// Any other exit (0, or 3 for an error in the SQL) is the container's at once. No `${` in
/// it: Pulumi YAML would read that as an interpolation (the defaults are set without braces).
pub const BOOTSTRAP_COMMAND: [&str; 3] = [
    "sh",
    "-c",
    "[ -n \"$RUNWAY_BOOTSTRAP_ATTEMPTS\" ] || RUNWAY_BOOTSTRAP_ATTEMPTS=1; \
     [ -n \"$RUNWAY_BOOTSTRAP_PAUSE\" ] || RUNWAY_BOOTSTRAP_PAUSE=0; \
     n=0; while :; do n=$((n+1)); \
     printf '%s\\n' \"$RUNWAY_BOOTSTRAP_SQL\" | psql --no-psqlrc --quiet --file=-; s=$?; \
     [ \"$s\" -eq 2 ] || exit \"$s\"; \
     if [ \"$n\" -ge \"$RUNWAY_BOOTSTRAP_ATTEMPTS\" ]; then \
     echo \"runway: psql could not connect in $n attempt(s); giving up (exit 2)\" >&2; exit 2; fi; \
     echo \"runway: psql could not connect (attempt $n of $RUNWAY_BOOTSTRAP_ATTEMPTS); \
     again in $RUNWAY_BOOTSTRAP_PAUSE s\" >&2; \
     sleep \"$RUNWAY_BOOTSTRAP_PAUSE\"; done",
];

/// The environment variable of the bootstrap that bounds its connection attempts.
pub const ATTEMPTS_VARIABLE: &str = "RUNWAY_BOOTSTRAP_ATTEMPTS";
/// The environment variable of the bootstrap that holds the pause between two attempts, in
/// seconds.
pub const PAUSE_VARIABLE: &str = "RUNWAY_BOOTSTRAP_PAUSE";
/// How many times the bootstrap tries to connect: with [`CONNECT_TIMEOUT_SECONDS`] and
/// [`PAUSE_SECONDS`], at most about four minutes (10 x 10 s + 9 x 15 s) of trying, well inside
/// `runway migrate`'s default `--timeout` of 30 minutes.
pub const ATTEMPTS: u32 = 10;
/// The pause between two attempts, in seconds.
pub const PAUSE_SECONDS: u32 = 15;
/// How long one attempt waits for the connection (`PGCONNECT_TIMEOUT`; libpq waits for ever
/// by default, which a dropped packet would turn into a run that never ends).
pub const CONNECT_TIMEOUT_SECONDS: u32 = 10;

/// The group role every `write` login is a member of and acts as: it owns what they create.
pub const WRITE_GROUP: &str = "runway_write";
/// The group role every `read` login is a member of: `SELECT` on everything of `public`.
pub const READ_GROUP: &str = "runway_read";
/// The environment variable the bootstrap's SQL is handed over in (not a secret).
pub const SQL_VARIABLE: &str = "RUNWAY_BOOTSTRAP_SQL";

/// One consumer's login role on a postgres resource.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseLogin {
    /// The consumer (a workload or a member).
    pub consumer: CompactString,
    /// Its role (`app_<consumer>`).
    pub role: CompactString,
    /// What it is granted: `write` (a member of [`WRITE_GROUP`], acting as it) or `read` (a
    /// member of [`READ_GROUP`], its transactions read-only).
    pub access: Access,
    /// The environment variable of the bootstrap task its password is read from
    /// (`RUNWAY_LOGIN_<n>_PASSWORD`).
    pub password_variable: CompactString,
    /// The SSM parameter of its password, which `secrets prepare` writes.
    pub password_parameter: CompactString,
    /// The Secrets Manager secret the proxy authenticates it with.
    pub proxy_secret: CompactString,
}

/// What a postgres resource's bootstrap makes: its consumers' login roles. Its one-off task
/// (the plan's `tasks`, its task definition [`DatabaseBootstrap::id`]: the image
/// [`BOOTSTRAP_IMAGE`], the command [`BOOTSTRAP_COMMAND`], where to connect, and the SSM
/// parameters it reads) reaches the database through the resource's proxy (the admin is one of
/// the proxy's credentials), so it runs in the private subnets with a security group the proxy
/// admits.
///
/// Its SQL is not stored: it grows with the logins and is a function of the database, the
/// admin and the logins ([`DatabaseBootstrap::sql`]); JSON shows it as `sql`, and the program
/// gives it to the container in [`SQL_VARIABLE`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DatabaseBootstrap {
    /// The postgres resource.
    pub resource: CompactString,
    /// The logical id of its task definition (`<resource>_bootstrap-task`), the reader of the
    /// parameters it reads: `PGHOST` (the proxy's endpoint), `PGPASSWORD` (the admin's password,
    /// read by this task only) and each login's password.
    pub id: CompactString,
    /// The logins it makes, in consumer order.
    pub logins: Vec<DatabaseLogin>,
    /// The database (`main_db`).
    pub database: CompactString,
    /// The admin it logs in as (RDS's master user).
    pub admin: CompactString,
    /// A preview's database, made in the instance it shares with its `from` environment;
    /// `None` for an environment's own (RDS made it with the instance).
    pub own: Option<OwnDatabase>,
}

/// A pull request's preview's own database in the instance of its `from` environment
/// (docs/previews.md, "Data"): the bootstrap creates it, and `runway preview down` drops it
/// with its logins and groups ([`DatabaseBootstrap::drop_sql`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnDatabase {
    /// The database the task connects to first, which exists (the `from` environment's,
    /// `main_db`): the SQL creates the preview's there, then connects to it.
    pub connects_to: CompactString,
    /// The preview's write group (`runway_write_pr_7`): the instance's roles are shared by
    /// its databases, so a preview's logins are members of its own groups only.
    pub write_group: CompactString,
    /// The preview's read group (`runway_read_pr_7`).
    pub read_group: CompactString,
}

impl OwnDatabase {
    /// The own database of a preview whose names end with `suffix` (`_pr_7`), connecting to
    /// `connects_to` first.
    pub fn new(connects_to: &str, suffix: &str) -> Self {
        let group = |g: &str| CompactString::from([g, suffix].concat());
        OwnDatabase {
            connects_to: connects_to.into(),
            write_group: group(WRITE_GROUP),
            read_group: group(READ_GROUP),
        }
    }
}

impl DatabaseBootstrap {
    /// The SQL it runs: [`bootstrap_sql`] of its database, admin and logins (no value in it);
    /// a preview's first creates its database and connects to it, and uses its own groups.
    pub fn sql(&self) -> String {
        match &self.own {
            None => bootstrap_sql(&self.database, &self.admin, &self.logins),
            Some(own) => preview_sql(&self.database, &self.admin, &self.logins, own),
        }
    }

    /// The SQL `runway preview down` runs for a preview's database (`None` for an
    /// environment's): drops it, its logins (those it names and every other `app_` member of its
    /// groups) and its groups, each when present, so that a run after any stop finishes.
    pub fn drop_sql(&self) -> Option<String> {
        self.own.as_ref().map(|own| drop_sql(&self.database, &self.logins, own))
    }
}

impl Serialize for DatabaseBootstrap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        /// Its fields, and the SQL rendered for the reader.
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Shown<'a> {
            resource: &'a str,
            id: &'a str,
            logins: &'a [DatabaseLogin],
            database: &'a str,
            admin: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            own: Option<&'a OwnDatabase>,
            sql: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            drop_sql: Option<String>,
        }
        Shown {
            resource: &self.resource,
            id: &self.id,
            logins: &self.logins,
            database: &self.database,
            admin: &self.admin,
            own: self.own.as_ref(),
            sql: self.sql(),
            drop_sql: self.drop_sql(),
        }
        .serialize(serializer)
    }
}

/// Quotes a name as a SQL string literal (role and database names are `[a-z0-9_]`; quoting
/// keeps the text right whatever they hold).
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// Quotes a name as a SQL identifier.
fn ident(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// Creates role `role` (`NOLOGIN`) unless it exists: `psql`'s `\gexec` runs the statement the
/// query returns, which it returns only when the role is absent.
fn create_role(sql: &mut String, role: &str) {
    let _ = writeln!(
        sql,
        "SELECT {} WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {})\\gexec",
        literal(&format!("CREATE ROLE {} NOLOGIN", ident(role))),
        literal(role),
    );
}

/// The SQL that makes database `database`'s two groups and `logins`, run as its admin `admin`
/// by `psql` with `ON_ERROR_STOP`: deterministic (the same logins give the same text),
/// idempotent (it may run any number of times), and with no password in it (each is read from
/// the login's `password_variable`).
pub fn bootstrap_sql(database: &str, admin: &str, logins: &[DatabaseLogin]) -> String {
    let mut sql = String::with_capacity(2048 + logins.len() * 512);
    sql.push_str(
        "-- The login roles of this database's consumers (written by runway; runs again unchanged).\n",
    );
    sql.push_str("\\set ON_ERROR_STOP on\n");
    roles_sql(&mut sql, database, admin, logins, (WRITE_GROUP, READ_GROUP));
    sql
}

/// A preview's bootstrap: creates its database unless it exists (connected to `own`'s
/// `connects_to`), connects to it, then [`bootstrap_sql`]'s statements with the preview's own
/// groups. Deterministic, idempotent, no value in it.
fn preview_sql(database: &str, admin: &str, logins: &[DatabaseLogin], own: &OwnDatabase) -> String {
    let mut sql = String::with_capacity(2560 + logins.len() * 512);
    sql.push_str(
        "-- A preview's own database and its consumers' login roles (written by runway; runs again unchanged).\n",
    );
    sql.push_str("\\set ON_ERROR_STOP on\n");
    // `CREATE DATABASE` runs outside a transaction: `\gexec` runs it as a statement of its own.
    let _ = writeln!(
        sql,
        "SELECT {} WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = {})\\gexec",
        literal(&format!("CREATE DATABASE {}", ident(database))),
        literal(database),
    );
    // The same host, port, user and password (libpq's variables), another database.
    let _ = writeln!(sql, "\\connect {}", ident(database));
    roles_sql(&mut sql, database, admin, logins, (&own.write_group, &own.read_group));
    sql
}

/// The SQL that drops a preview's database `database`, its logins and its groups (connected to
/// `own`'s `connects_to`): every statement a no-op when what it drops is absent.
fn drop_sql(database: &str, logins: &[DatabaseLogin], own: &OwnDatabase) -> String {
    let mut sql = String::with_capacity(1024 + logins.len() * 64);
    sql.push_str(
        "-- Drops a preview's own database, its logins and its groups (written by runway; absent is done).\n",
    );
    sql.push_str("\\set ON_ERROR_STOP on\n");
    // `FORCE` ends the preview's sessions still connected (its services being stopped).
    let _ = writeln!(sql, "DROP DATABASE IF EXISTS {} WITH (FORCE);", ident(database));
    // A login of a consumer that left since (retired, still a member of a group) goes too.
    let _ = write!(
        sql,
        "DO $runway$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT DISTINCT m.rolname FROM pg_auth_members a
      JOIN pg_roles g ON g.oid = a.roleid JOIN pg_roles m ON m.oid = a.member
     WHERE g.rolname IN ({write}, {read}) AND m.rolname LIKE 'app\\_%' AND m.rolname <> current_user
     ORDER BY m.rolname
  LOOP
    EXECUTE format('DROP ROLE %I', r.rolname);
  END LOOP;
END
$runway$;
",
        write = literal(&own.write_group),
        read = literal(&own.read_group),
    );
    for login in logins {
        let _ = writeln!(sql, "DROP ROLE IF EXISTS {};", ident(&login.role));
    }
    let _ = writeln!(sql, "DROP ROLE IF EXISTS {};", ident(&own.write_group));
    let _ = writeln!(sql, "DROP ROLE IF EXISTS {};", ident(&own.read_group));
    sql
}

/// The statements of [`bootstrap_sql`] after its head, with the groups `(write, read)`.
fn roles_sql(sql: &mut String, database: &str, admin: &str, logins: &[DatabaseLogin], groups: (&str, &str)) {
    let (db, write, read) = (ident(database), ident(groups.0), ident(groups.1));
    // The admin's own objects and privileges are kept; nobody else connects or creates by default.
    create_role(sql, groups.0);
    create_role(sql, groups.1);
    let _ = writeln!(sql, "GRANT {write} TO {};", ident(admin));
    let _ = writeln!(sql, "REVOKE CONNECT, TEMPORARY ON DATABASE {db} FROM PUBLIC;");
    let _ = writeln!(sql, "REVOKE CREATE ON SCHEMA public FROM PUBLIC;");
    let _ = writeln!(sql, "GRANT CONNECT, TEMPORARY ON DATABASE {db} TO {write};");
    let _ = writeln!(sql, "GRANT CONNECT ON DATABASE {db} TO {read};");
    let _ = writeln!(sql, "GRANT USAGE, CREATE ON SCHEMA public TO {write};");
    let _ = writeln!(sql, "GRANT USAGE ON SCHEMA public TO {read};");
    // What the admin made before the consumers had roles is handed to the write group, so a
    // write login's migrations may change it; the read group reads it, and what the write
    // group makes later.
    sql.push_str(&hand_over(admin, groups.0));
    let _ = writeln!(sql, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO {read};");
    let _ = writeln!(sql, "GRANT SELECT ON ALL SEQUENCES IN SCHEMA public TO {read};");
    let _ = writeln!(
        sql,
        "ALTER DEFAULT PRIVILEGES FOR ROLE {write} IN SCHEMA public GRANT SELECT ON TABLES TO {read};"
    );
    let _ = writeln!(
        sql,
        "ALTER DEFAULT PRIVILEGES FOR ROLE {write} IN SCHEMA public GRANT SELECT ON SEQUENCES TO {read};"
    );
    for login in logins {
        login_sql(sql, login, groups);
    }
    retire(sql, logins, groups);
}

/// Hands the tables, views, materialized views, foreign tables and sequences (those no table
/// owns) of `public` that `admin` owns, outside extensions, to the write group `write` (a
/// plain name: it is written unquoted inside the statement's text).
fn hand_over(admin: &str, write: &str) -> String {
    format!(
        "DO $runway$
DECLARE o record;
BEGIN
  FOR o IN
    SELECT CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
             WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END AS what, c.relname AS name
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relowner = {admin}::regrole
       AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
       AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                         AND d.objid = c.oid AND d.deptype IN ('a', 'i', 'e'))
     ORDER BY c.relname
  LOOP
    EXECUTE format('ALTER %s public.%I OWNER TO {write}', o.what, o.name);
  END LOOP;
END
$runway$;
",
        admin = literal(&ident(admin)),
    )
}

/// One login: made when absent, its password set from its variable, its group and settings
/// those of its mode (a mode changed since the last run is changed back and forth cleanly).
fn login_sql(sql: &mut String, login: &DatabaseLogin, groups: (&str, &str)) {
    let role = ident(&login.role);
    let (write, read) = (ident(groups.0), ident(groups.1));
    let _ = writeln!(sql, "-- {}: {}", login.consumer, login.access.as_str());
    create_role(sql, &login.role);
    let _ = writeln!(sql, "\\getenv runway_password {}", login.password_variable);
    sql.push_str("\\if :{?runway_password}\n");
    let _ = writeln!(
        sql,
        "ALTER ROLE {role} WITH LOGIN NOCREATEDB NOCREATEROLE INHERIT CONNECTION LIMIT -1 PASSWORD :'runway_password';"
    );
    sql.push_str("\\else\n");
    let _ = writeln!(
        sql,
        "DO $runway$ BEGIN RAISE EXCEPTION '{} is not set: no password for {}'; END $runway$;",
        login.password_variable, login.role
    );
    sql.push_str("\\endif\n\\unset runway_password\n");
    match login.access {
        Access::Write => {
            let _ = writeln!(sql, "REVOKE {read} FROM {role};");
            let _ = writeln!(sql, "GRANT {write} TO {role};");
            // What it creates belongs to the group: every write login may change it.
            let _ = writeln!(sql, "ALTER ROLE {role} SET role = {};", literal(groups.0));
            let _ = writeln!(sql, "ALTER ROLE {role} RESET default_transaction_read_only;");
        }
        Access::Read => {
            let _ = writeln!(sql, "REVOKE {write} FROM {role};");
            let _ = writeln!(sql, "GRANT {read} TO {role};");
            let _ = writeln!(sql, "ALTER ROLE {role} RESET role;");
            let _ = writeln!(sql, "ALTER ROLE {role} SET default_transaction_read_only = on;");
        }
    }
}

/// A login of a consumer that no longer uses the database (a member of either group, not
/// among `logins`) may no longer log in; its objects stay.
fn retire(sql: &mut String, logins: &[DatabaseLogin], groups: (&str, &str)) {
    let kept: Vec<String> = logins.iter().map(|l| literal(&l.role)).collect();
    let kept = kept.join(", ");
    let _ = write!(
        sql,
        "DO $runway$
DECLARE r record;
BEGIN
  FOR r IN
    SELECT DISTINCT m.rolname FROM pg_auth_members a
      JOIN pg_roles g ON g.oid = a.roleid JOIN pg_roles m ON m.oid = a.member
     WHERE g.rolname IN ({write}, {read}) AND m.rolcanlogin AND m.rolname LIKE 'app\\_%'
       AND NOT (m.rolname = ANY (ARRAY[{kept}]::name[]))
     ORDER BY m.rolname
  LOOP
    EXECUTE format('ALTER ROLE %I NOLOGIN', r.rolname);
  END LOOP;
END
$runway$;
",
        write = literal(groups.0),
        read = literal(groups.1),
    );
}
