//! A pull request's preview's own database (docs/previews.md, "Data"), against a real
//! PostgreSQL 16 server this test starts on loopback (as `db_roles.rs` does, the admin made as
//! RDS makes its master user): dev's bootstrap, then two previews' (each run as the emitted
//! program declares it: command, environment, SQL, secrets by their parameters' names) make
//! `main_db_pr_7` and `main_db_pr_8` in dev's instance with their own logins and groups,
//! logging in as dev's admin (dev's parameter: a preview writes no admin password); each is
//! kept apart from dev's and the other's; then pr-7's drop SQL (what `runway preview down`
//! runs), stopped after its first statement and run again, then once more, leaves nothing of
//! pr-7 and all of dev and pr-8. No password (the canaries) reaches a plan, SQL or output.
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: a test fails loudly

use serde_json::Value;

use crate::db_roles::{ADMIN_PASSWORD, Server, Version, emitted_container_of, plan_of, rds_master};

const PRODUCT: &str = r#"runway: 3
product: roles
previews:
  from: dev
  limits: { monthly: 400 }
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
  metabase:
    image: metabase/metabase:v0.50.3@sha256:abababababababababababababababababababababababababababababababab
    port: 3000
    uses: [{ main-db: read }]
    expose: public
    reason: { ground: no-managed-fit, detail: BI. }
"#;

/// One environment's bootstrap as planned and emitted: its plan's JSON, its container, the
/// passwords (canaries) `secrets prepare` would have generated for its logins.
struct Boot {
    text: String,
    bootstrap: Value,
    container: Value,
    passwords: Vec<(String, String)>,
}

impl Boot {
    fn of(dir: &std::path::Path, env: &str) -> Boot {
        let (text, json) = plan_of(dir, PRODUCT, env);
        let bootstrap = json["secrets"]["bootstraps"][0].clone();
        let container = emitted_container_of(dir, env);
        let passwords = bootstrap["logins"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let role = l["role"].as_str().unwrap().to_owned();
                let pw = format!("canary-{role}-Zq8{}", std::process::id());
                (role, pw)
            })
            .collect();
        Boot { text, bootstrap, container, passwords }
    }

    fn pw(&self, role: &str) -> &str {
        &self.passwords.iter().find(|(r, _)| r == role).unwrap().1
    }

    /// Runs its container with `sql` in place of its SQL (`down`'s override), or as emitted.
    fn run(&self, server: &Server, sql: Option<&str>) -> String {
        let mut container = self.container.clone();
        if let Some(sql) = sql {
            for pair in container["environment"].as_array_mut().unwrap() {
                if pair["name"] == "RUNWAY_BOOTSTRAP_SQL" {
                    pair["value"] = Value::from(sql);
                }
            }
        }
        let passwords: Vec<(&str, String)> =
            self.passwords.iter().map(|(r, p)| (r.as_str(), p.clone())).collect();
        server.bootstrap((&container, &self.bootstrap["logins"]), &passwords)
    }
}

/// Every database, and every role of a login or group, with whether it may log in.
fn cluster_state(server: &Server) -> String {
    server
        .superuser(
            "postgres",
            "SELECT string_agg(x, E'\\n' ORDER BY x) FROM (
               SELECT 'database ' || datname AS x FROM pg_database WHERE datname LIKE 'main\\_db%'
               UNION ALL SELECT 'role ' || rolname || ' ' || rolcanlogin FROM pg_roles
                 WHERE rolname LIKE 'app\\_%' OR rolname LIKE 'runway\\_%'
               UNION ALL SELECT 'member ' || m.rolname || ' of ' || g.rolname FROM pg_auth_members a
                 JOIN pg_roles g ON g.oid = a.roleid JOIN pg_roles m ON m.oid = a.member
                 WHERE g.rolname LIKE 'runway\\_%') s",
        )
        .unwrap()
}

#[test]
fn a_previews_database_and_logins_are_made_in_devs_instance_kept_apart_and_dropped() {
    let scratch = test_support::scratch("preview-db");
    let dev = Boot::of(scratch.path(), "dev");
    let pr7 = Boot::of(scratch.path(), "pr-7");
    let pr8 = Boot::of(scratch.path(), "pr-8");
    // The plan says it: its database, its logins and groups, dev's database to connect to
    // first, and the SQL that drops them.
    assert_eq!(pr7.bootstrap["database"], "main_db_pr_7");
    let roles: Vec<&str> =
        pr7.bootstrap["logins"].as_array().unwrap().iter().map(|l| l["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["app_api_pr_7", "app_metabase_pr_7"]);
    assert_eq!(pr7.bootstrap["own"]["connectsTo"], "main_db");
    assert_eq!(pr7.bootstrap["own"]["writeGroup"], "runway_write_pr_7");
    let drop7 = pr7.bootstrap["dropSql"].as_str().expect("a preview's plan holds its drop SQL").to_owned();
    assert!(drop7.contains("DROP DATABASE IF EXISTS \"main_db_pr_7\" WITH (FORCE);"), "{drop7}");
    assert!(dev.bootstrap.get("dropSql").is_none(), "an environment's database is never dropped");
    // The same plan gives the same SQL (reproducible).
    assert_eq!(Boot::of(scratch.path(), "pr-7").bootstrap, pr7.bootstrap);
    // A preview logs in as dev's admin, by dev's parameter, and generates no admin password.
    let secrets = pr7.container["secrets"].as_array().unwrap();
    let admin = secrets.iter().find(|s| s["name"] == "PGPASSWORD").unwrap();
    assert_eq!(admin["valueFrom"], "/roles/dev/main-db/MAIN_DB_PASSWORD");
    let env = |c: &Value, name: &str| {
        c["environment"].as_array().unwrap().iter().find(|e| e["name"] == name).unwrap()["value"].clone()
    };
    assert_eq!(env(&pr7.container, "PGDATABASE"), "main_db");
    let (_, json7) = plan_of(scratch.path(), PRODUCT, "pr-7");
    let generated = json7["secrets"]["generated"].as_array().unwrap();
    assert!(generated.iter().all(|g| g["kind"] != "postgres-admin-password"), "{generated:?}");

    let server = Server::start(Version::Major(16));
    rds_master(&server);
    dev.run(&server, None);
    server
        .login("app_api", dev.pw("app_api"), "CREATE TABLE orders (id int); INSERT INTO orders VALUES (1)")
        .unwrap();
    let mut outputs = vec![pr7.run(&server, None)];
    let after_first = cluster_state(&server);
    outputs.push(pr7.run(&server, None));
    assert_eq!(
        cluster_state(&server),
        after_first,
        "a second run of the preview's bootstrap changed the cluster"
    );
    outputs.push(pr8.run(&server, None));
    // Dev's bootstrap again (a deploy of dev while previews live) retires none of theirs.
    outputs.push(dev.run(&server, None));

    // Each preview writes and reads its own database only.
    let (api7, api8) = ((pr7.pw("app_api_pr_7")), pr8.pw("app_api_pr_8"));
    server
        .login_to(
            "main_db_pr_7",
            "app_api_pr_7",
            api7,
            "CREATE TABLE orders (id int); INSERT INTO orders VALUES (7)",
        )
        .unwrap();
    server.login_to("main_db_pr_8", "app_api_pr_8", api8, "CREATE TABLE orders (id int)").unwrap();
    assert_eq!(
        server
            .login_to(
                "main_db_pr_7",
                "app_metabase_pr_7",
                pr7.pw("app_metabase_pr_7"),
                "SELECT id FROM orders"
            )
            .unwrap(),
        "7"
    );
    for (db, user, pw) in [
        ("main_db", "app_api_pr_7", api7),
        ("main_db_pr_8", "app_api_pr_7", api7),
        ("main_db_pr_7", "app_api", dev.pw("app_api")),
        ("main_db_pr_7", "app_api_pr_8", api8),
    ] {
        assert!(server.login_to(db, user, pw, "SELECT 1").is_err(), "{user} reached {db}");
    }
    // Dev's logins keep their passwords and data.
    assert_eq!(server.login("app_api", dev.pw("app_api"), "SELECT id FROM orders").unwrap(), "1");
    assert!(
        !cluster_state(&server).contains("member app_api_pr_7 of runway_write\n"),
        "a preview's login in dev's group"
    );

    // `down`'s drop, stopped after its first statement (the database dropped), then run again
    // twice: absent is done.
    let first_statement: String =
        drop7.lines().take_while(|l| !l.starts_with("DO ")).collect::<Vec<_>>().join("\n");
    outputs.push(pr7.run(&server, Some(&first_statement)));
    assert!(cluster_state(&server).contains("role app_api_pr_7"), "the stop left its roles");
    outputs.push(pr7.run(&server, Some(&drop7)));
    let after_drop = cluster_state(&server);
    outputs.push(pr7.run(&server, Some(&drop7)));
    assert_eq!(cluster_state(&server), after_drop);
    assert!(!after_drop.contains("pr_7"), "pr-7 is left:\n{after_drop}");
    for kept in [
        "database main_db\n",
        "database main_db_pr_8",
        "role app_api true",
        "role app_api_pr_8 true",
        "role runway_write_pr_8",
    ] {
        assert!(after_drop.contains(kept), "{kept} is gone:\n{after_drop}");
    }
    assert_eq!(server.login("app_api", dev.pw("app_api"), "SELECT id FROM orders").unwrap(), "1");
    server.login_to("main_db_pr_8", "app_api_pr_8", api8, "SELECT count(*) FROM orders").unwrap();

    // No password was shown: not by a plan, the SQL or psql.
    for boot in [&dev, &pr7, &pr8] {
        for (_, pw) in &boot.passwords {
            for shown in outputs.iter().chain([&dev.text, &pr7.text, &pr8.text, &drop7]) {
                assert!(!shown.contains(pw.as_str()), "a password was shown: {shown}");
            }
        }
    }
    assert!(outputs.iter().chain([&pr7.text]).all(|o| !o.contains(ADMIN_PASSWORD)));
}
