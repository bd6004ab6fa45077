//! `runway rotate` and `runway ssm publish`'s restarts end to end: the real binary against the
//! Infisical contract server and moto (RDS, ElastiCache, Secrets Manager, SSM, ECS), on the
//! example's `dev` environment deployed as docs/pipeline.md orders it (`tools/simulate_up.py
//! --ecs` in place of `pulumi up`). moto records every request it answers
//! (`MOTO_ENABLE_RECORDING`), so the tests read back which calls were made, in which order and
//! with which value; runway itself never shows one.
//!
//! Needs the workspace venv: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::BTreeMap;
use std::path::PathBuf;

use secrets_adapter::{Auth, Client, ClientConfig, SecretString};
use serde_json::{Value, json};
use test_support::contract::{CLIENT_ID, CLIENT_SECRET};
use test_support::{ContractServer, Moto, Scratch, scratch};

use crate::common::{self, Cloud, PROJECT, Run};

const PENDING: &str = "/runway/pending";
const PROXY_SECRET: &str = "acme-shop/dev/main-db/proxy-admin";
const DB_PARAMETER: &str = "/acme-shop/dev/main-db/MAIN_DB_PASSWORD";
/// The password parameter of metabase's own login on main-db.
const LOGIN_PARAMETER: &str = "/acme-shop/dev/main-db/metabase/MAIN_DB_PASSWORD";

/// The example deployed to moto and the contract server, its dev plan at hand.
struct Deployed {
    infisical: ContractServer,
    moto: Moto,
    dir: Scratch,
    file: PathBuf,
    plan: Value,
}

impl Deployed {
    /// The example (or a copy changed by `edit`) deployed in the documented order, with the
    /// databases and caches `pulumi up` would have created.
    fn new(name: &str, edit: impl FnOnce(&str) -> String) -> Self {
        let dir = scratch(name);
        test_support::copy_dir(&test_support::example("acme-shop"), dir.path());
        let file = dir.path().join("runway.yaml");
        let text = std::fs::read_to_string(&file).unwrap();
        std::fs::write(&file, edit(&text)).unwrap();
        let recording = dir.path().join("moto-recording.jsonl");
        let Cloud { infisical, moto } = Cloud::start_with(&[
            ("MOTO_ECS_SERVICE_RUNNING", "1"),
            ("MOTO_ENABLE_RECORDING", "1"),
            ("MOTO_RECORDER_FILEPATH", recording.to_str().unwrap()),
        ]);
        let plan =
            common::bare().args(["plan", "--env", "dev", "--format", "json"]).arg(&file).output().unwrap();
        let plan: Value = serde_json::from_slice(&plan.stdout).unwrap();
        let deployed = Deployed { infisical, moto, dir, file, plan };
        deployed.deploy();
        deployed
    }

    fn deploy(&self) {
        let program = self.dir.path().join("program");
        assert_eq!(self.run(&["emit", "pulumi", "--env", "dev", "--out", program.to_str().unwrap()]).code, 0);
        // A person sets metabase's own secret in Infisical; `prepare` copies it.
        common::set_in_infisical(&self.infisical.url(), PROJECT, common::PERSON_PLACE, "set-by-a-person");
        assert_eq!(self.run(&["secrets", "prepare", "--env", "dev"]).code, 0);
        let outputs = self.outputs_file();
        let up = common::simulate_up(&self.moto, &program, &outputs, &[]);
        assert!(
            up.status.success(),
            "{}{}",
            String::from_utf8_lossy(&up.stdout),
            String::from_utf8_lossy(&up.stderr)
        );
        let publish =
            self.run(&["secrets", "publish", "--env", "dev", "--outputs", outputs.to_str().unwrap()]);
        assert_eq!(publish.code, 0, "{}", publish.stderr);
        assert_eq!(self.run(&["ssm", "publish", "--env", "dev"]).code, 0);
        // What `pulumi up` created with the credentials `secrets prepare` generated.
        for item in self.plan["items"].as_array().unwrap() {
            let id = item["physicalName"].as_str().unwrap();
            let _ = match item["kind"].as_str().unwrap() {
                "rds-instance" => self.python(&format!(
                    "boto3.client('rds', region_name='us-east-1').create_db_instance(DBInstanceIdentifier='{id}', \
                     Engine='postgres', DBInstanceClass='db.t4g.micro', MasterUsername='runway', \
                     MasterUserPassword='{}', AllocatedStorage=20)",
                    self.password("main-db", "MAIN_DB_PASSWORD")
                )),
                "cache-replication-group" => self.python(&format!(
                    "boto3.client('elasticache', region_name='us-east-1').create_replication_group(\
                     ReplicationGroupId='{id}', ReplicationGroupDescription='runway', Engine='valkey', \
                     CacheNodeType='cache.t4g.micro', NumCacheClusters=1, TransitEncryptionEnabled=True, \
                     AuthToken='{}')",
                    "x".repeat(64)
                )),
                _ => String::new(),
            };
        }
    }

    /// A hand-written `pulumi stack output --json --show-secrets` of the dev plan.
    fn outputs_file(&self) -> PathBuf {
        common::dev_outputs(&self.file, self.dir.path(), |name| format!("value-of-{name}"))
    }

    /// Runs Python against moto with `boto3`, `json`, `sys` and an SSM client `ssm` at hand;
    /// returns its stdout.
    fn python(&self, code: &str) -> String {
        let script = format!(
            "import boto3, json, sys, base64\nssm = boto3.client('ssm', region_name='us-east-1')\n{code}"
        );
        String::from_utf8(self.moto.python(&script, &[])).unwrap()
    }

    /// `runway ARGS RUNWAY_FILE` with the test's Infisical and moto only.
    fn run(&self, args: &[&str]) -> Run {
        let mut cmd =
            common::cloud_command(&self.infisical.url(), &self.moto.url(), "runway-rotate-test-home");
        Run::logged(cmd.args(args).arg(&self.file), args)
    }

    /// A resource's credential as Infisical holds it.
    fn password(&self, resource: &str, name: &str) -> String {
        self.infisical.value("dev", &format!("/runtime/{resource}"), name).unwrap()
    }

    fn pending(&self, name: &str) -> Option<String> {
        self.infisical.value("dev", PENDING, name)
    }

    /// Whether SSM holds exactly `value` at `name`.
    fn ssm(&self, name: &str) -> String {
        self.python(&format!(
            "sys.stdout.write(ssm.get_parameter(Name='{name}', WithDecryption=True)['Parameter']['Value'])"
        ))
    }

    /// The proxy secret's password.
    fn proxy_password(&self) -> String {
        self.python(&format!(
            "s = boto3.client('secretsmanager', region_name='us-east-1').get_secret_value(SecretId='{PROXY_SECRET}')\n\
             sys.stdout.write(json.loads(s['SecretString'])['password'])"
        ))
    }

    /// The stack outputs with main-db's bootstrap task at a revision moto can run (moto 5.2.5
    /// cannot run an `awsvpc` task: the revision is registered without `FARGATE`, as
    /// `tests/migrate.rs` does).
    fn bootstrap_outputs(&self) -> PathBuf {
        let family = "acme-shop-dev-main-db-bootstrap";
        let arn = self.python(&format!(
            "ecs = boto3.client('ecs', region_name='us-east-1')\n\
             out = ecs.register_task_definition(family='{family}', containerDefinitions=[{{'name': \
             'main-db-bootstrap', 'image': 'postgres', 'memory': 512}}])\n\
             sys.stdout.write(out['taskDefinition']['taskDefinitionArn'])"
        ));
        let task = json!({
            "cluster": self.physical("ecs-cluster")[0],
            "taskDefinition": arn,
            "family": family,
            "subnets": ["subnet-0aaa"],
            "securityGroups": ["sg-0bootstrap"],
            "container": "main-db-bootstrap",
            "logGroup": "/runway/acme-shop/dev/main-db-bootstrap",
            "logStreamPrefix": "main-db-bootstrap",
            "region": "us-east-1",
        });
        let path = self.dir.path().join("bootstrap-outputs.json");
        std::fs::write(&path, json!({"runway-task-bootstrap-main-db": task}).to_string()).unwrap();
        path
    }

    /// A secret's `{"username", "password"}` in Secrets Manager.
    fn secret(&self, name: &str) -> (String, String) {
        let out = self.python(&format!(
            "s = boto3.client('secretsmanager', region_name='us-east-1').get_secret_value(SecretId='{name}')\n\
             v = json.loads(s['SecretString'])\n\
             sys.stdout.write(v['username'] + ' ' + v['password'])"
        ));
        let (user, password) = out.split_once(' ').unwrap();
        (user.to_owned(), password.to_owned())
    }

    /// `service -> its PRIMARY deployment's id`, for every ECS service of the plan.
    fn deployments(&self) -> BTreeMap<String, String> {
        let cluster = self.physical("ecs-cluster")[0].clone();
        let services = self.physical("ecs-service");
        let out = self.python(&format!(
            "ecs = boto3.client('ecs', region_name='us-east-1')\n\
             got = ecs.describe_services(cluster='{cluster}', services={services:?})['services']\n\
             print(json.dumps({{s['serviceName']: s['deployments'][0]['id'] for s in got}}))"
        ));
        serde_json::from_str(&out).unwrap()
    }

    fn physical(&self, kind: &str) -> Vec<String> {
        let items = self.plan["items"].as_array().unwrap();
        items
            .iter()
            .filter(|i| i["kind"] == kind)
            .map(|i| i["physicalName"].as_str().unwrap().to_owned())
            .collect()
    }

    /// `(operation, body)` of every request moto answered since the last call, in order
    /// (query-protocol bodies form-decoded to `Key=value&...`).
    fn recorded(&self) -> Vec<(String, String)> {
        let path = self.dir.path().join("moto-recording.jsonl");
        let out = self.python(&format!(
            "from urllib.parse import unquote_plus\n\
             out = []\n\
             for line in open('{}'):\n\
             \x20   e = json.loads(line)\n\
             \x20   body = e.get('body') or ''\n\
             \x20   if e.get('body_encoded'): body = base64.b64decode(body).decode('utf-8', 'replace')\n\
             \x20   target = {{k.lower(): v for k, v in e['headers'].items()}}.get('x-amz-target', '')\n\
             \x20   fields = dict(p.split('=', 1) for p in body.split('&') if '=' in p) if not target else {{}}\n\
             \x20   op = target.rsplit('.', 1)[-1] if target else unquote_plus(fields.get('Action', ''))\n\
             \x20   out.append([op, unquote_plus(body) if not target else body])\n\
             open('{0}', 'w').close()\n\
             print(json.dumps(out))",
            path.display()
        ));
        serde_json::from_str::<Vec<(String, String)>>(&out).unwrap()
    }

    /// Sets an Infisical value, as a person would.
    fn set_infisical(&self, folder: &str, name: &str, value: &str) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let auth = Auth::UniversalAuth {
                client_id: CLIENT_ID.into(),
                client_secret: SecretString::from(CLIENT_SECRET),
            };
            let client = Client::new(ClientConfig::new(self.infisical.url(), auth)).unwrap();
            client.update_secret(PROJECT, "dev", folder, name, &SecretString::from(value)).await.unwrap();
        });
    }
}

/// The index of the first recorded `operation` whose body has `text`.
fn position(recorded: &[(String, String)], operation: &str, text: &str) -> usize {
    recorded
        .iter()
        .position(|(op, body)| op == operation && body.contains(text))
        .unwrap_or_else(|| panic!("no {operation} with the value: {:?}", ops(recorded)))
}

fn ops(recorded: &[(String, String)]) -> Vec<&str> {
    recorded.iter().map(|(op, _)| op.as_str()).collect()
}

fn assert_no_value(runs: &[&Run], values: &[&str]) {
    for run in runs {
        for v in values {
            assert!(!run.stdout.contains(v) && !run.stderr.contains(v), "a value was printed");
        }
    }
}

fn changed(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> Vec<String> {
    before.iter().filter(|(s, id)| after.get(*s) != Some(id)).map(|(s, _)| s.clone()).collect()
}

const WAIT: [&str; 4] = ["--interval", "1s", "--timeout", "60s"];

fn rotate(d: &Deployed, resource: &str, extra: &[&str]) -> Run {
    let mut args = vec!["rotate", "--env", "dev", resource];
    args.extend(WAIT);
    args.extend(extra);
    d.run(&args)
}

#[test]
fn a_postgres_rotation_sets_the_database_first_then_the_proxy_infisical_and_ssm_and_restarts_nobody() {
    let d = Deployed::new("rotate-postgres", str::to_owned);
    let old = d.password("main-db", "MAIN_DB_PASSWORD");
    let before = d.deployments();
    d.recorded();

    let run = rotate(&d, "main-db", &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let new = d.password("main-db", "MAIN_DB_PASSWORD");
    assert_ne!(new, old);
    assert_eq!(new.len(), 40);
    assert_eq!(d.pending("MAIN_DB_PASSWORD"), None, "the pending value is cleared");
    assert_eq!(d.proxy_password(), new);
    assert_eq!(d.ssm(DB_PARAMETER), new);

    // The database first (applied at once), then the proxy, then SSM. Only the bootstrap of
    // the roles reads the admin's password: no service restarts, no member is told to.
    let recorded = d.recorded();
    let db = position(&recorded, "ModifyDBInstance", &format!("MasterUserPassword={new}"));
    assert!(recorded[db].1.contains("ApplyImmediately=true"), "{}", recorded[db].0);
    assert!(recorded[db].1.contains("DBInstanceIdentifier=acme-shop-dev-main-db"));
    let proxy = position(&recorded, "PutSecretValue", &new);
    let ssm = position(&recorded, "PutParameter", DB_PARAMETER);
    assert!(db < proxy && proxy < ssm, "{:?}", ops(&recorded));
    assert!(!ops(&recorded).contains(&"UpdateService"), "{:?}", ops(&recorded));
    assert_eq!(d.deployments(), before);
    assert!(!run.stdout.contains("redeploy"), "{}", run.stdout);
    assert!(run.stdout.contains("rotated main-db in dev"), "{}", run.stdout);

    // Again, as JSON: a new value each time, every step listed.
    let json = rotate(&d, "main-db", &["--format", "json"]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(report["members"], json!([]), "members log in with their own roles");
    assert_eq!(report["complete"], true);
    assert_eq!(report["resumed"], false);
    assert_eq!(report["target"]["kind"], "rdsInstance");
    assert_eq!(report["target"]["proxySecret"], PROXY_SECRET);
    assert_eq!(report["restarted"], json!([]));
    assert_eq!(report["notRestarted"], json!([]));
    let newer = d.password("main-db", "MAIN_DB_PASSWORD");
    assert_ne!(newer, new);
    assert_no_value(&[&run, &json], &[&old, &new, &newer]);
}

/// A consumer's own login (issue 32): its password parameter is written first, then main-db's
/// bootstrap task runs (it sets the password in the database from the parameter), then the
/// login's proxy secret, Infisical and the login's URL; its one reader restarts; the admin's
/// password is left alone. Run twice: each run a new value and a bootstrap run.
#[test]
fn a_login_rotation_writes_its_parameter_runs_the_bootstrap_then_the_proxy_and_restarts_its_reader() {
    let d = Deployed::new("rotate-login", str::to_owned);
    let outputs = d.bootstrap_outputs();
    let folder = "/runtime/main-db/metabase";
    let old = d.infisical.value("dev", folder, "MAIN_DB_PASSWORD").unwrap();
    let admin = d.password("main-db", "MAIN_DB_PASSWORD");
    let before = d.deployments();
    d.recorded();

    let args = ["--login", "metabase", "--outputs", outputs.to_str().unwrap()];
    // Without the outputs the bootstrap cannot run: a usage error, nothing done.
    let usage = rotate(&d, "main-db", &args[..2]);
    assert_eq!(usage.code, 2, "{}", usage.stderr);
    assert!(usage.stderr.contains("give `--outputs FILE`"), "{}", usage.stderr);
    let nobody = rotate(&d, "main-db", &["--login", "pdf-render"]);
    assert_eq!(nobody.code, 2, "{}", nobody.stderr);
    assert!(nobody.stderr.contains("`pdf-render` has no login of its own on `main-db`"), "{}", nobody.stderr);

    let run = rotate(&d, "main-db", &args);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let new = d.infisical.value("dev", folder, "MAIN_DB_PASSWORD").unwrap();
    assert_ne!(new, old);
    assert_eq!(new.len(), 40);
    assert_eq!(d.infisical.value("dev", "/runway/pending/metabase", "MAIN_DB_PASSWORD"), None, "cleared");
    assert_eq!(d.ssm(LOGIN_PARAMETER), new);
    assert!(d.ssm("/acme-shop/dev/main-db/metabase/MAIN_DB_URL").contains(&format!("app_metabase:{new}@")));
    assert_eq!(d.secret("acme-shop/dev/main-db/proxy-metabase"), ("app_metabase".to_owned(), new.clone()));
    // The admin's password is not touched.
    assert_eq!(d.password("main-db", "MAIN_DB_PASSWORD"), admin);
    assert_eq!(d.ssm(DB_PARAMETER), admin);

    let recorded = d.recorded();
    assert!(!ops(&recorded).contains(&"ModifyDBInstance"), "{:?}", ops(&recorded));
    let parameter = position(&recorded, "PutParameter", LOGIN_PARAMETER);
    let task = position(&recorded, "RunTask", "acme-shop-dev-main-db-bootstrap");
    let proxy = position(&recorded, "PutSecretValue", &new);
    let restart = position(&recorded, "UpdateService", "acme-shop-dev-metabase-service");
    assert!(parameter < task && task < proxy && proxy < restart, "{:?}", ops(&recorded));
    assert_eq!(changed(&before, &d.deployments()), ["acme-shop-dev-metabase-service"]);
    assert!(run.stdout.contains("rotated main-db's login of metabase in dev"), "{}", run.stdout);
    let record = d.ssm("/acme-shop/dev/runway/bootstrap/main-db");
    assert!(record.contains("\"command\":\"sha256:"), "the run is recorded: {record}");

    // Again: a new value, and the bootstrap runs again for it (its parameter's new version).
    let again = rotate(&d, "main-db", &args);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let newer = d.infisical.value("dev", folder, "MAIN_DB_PASSWORD").unwrap();
    assert_ne!(newer, new);
    assert_eq!(ops(&d.recorded()).iter().filter(|op| **op == "RunTask").count(), 1);
    assert_no_value(&[&usage, &run, &again], &[&old, &new, &newer, &admin]);
}

#[test]
fn a_rotation_stopped_after_the_database_changed_is_finished_by_a_rerun_with_the_same_value() {
    let d = Deployed::new("rotate-interrupted", str::to_owned);
    // A first rotation tells which Infisical request writes the credential.
    let before = d.infisical.requests().len();
    assert_eq!(rotate(&d, "main-db", &[]).code, 0);
    let requests = d.infisical.requests();
    let write = requests[before..]
        .iter()
        .position(|(method, path)| method == "PATCH" && path.ends_with("/MAIN_DB_PASSWORD"))
        .unwrap();
    let old = d.password("main-db", "MAIN_DB_PASSWORD");
    let deployments = d.deployments();
    d.recorded();

    // The second stops there: Infisical fails every attempt to write the credential.
    d.infisical.faults(json!({"fail_next_500": 8, "after": write}));
    let stopped = rotate(&d, "main-db", &[]);
    assert_eq!(stopped.code, 4, "{}{}", stopped.stdout, stopped.stderr);
    assert!(
        stopped.stderr.contains("the new value is kept at `dev:/runway/pending/MAIN_DB_PASSWORD`"),
        "{}",
        stopped.stderr
    );
    assert!(stopped.stderr.contains("run the same command again"), "{}", stopped.stderr);
    let pending = d.pending("MAIN_DB_PASSWORD").expect("the new value is kept");
    assert_eq!(d.password("main-db", "MAIN_DB_PASSWORD"), old, "Infisical was not written");
    let recorded = d.recorded();
    position(&recorded, "ModifyDBInstance", &format!("MasterUserPassword={pending}"));
    assert_eq!(d.proxy_password(), pending, "the proxy follows the database");
    assert_eq!(d.deployments(), deployments, "nothing restarted yet");

    // The re-run finishes with the same value.
    d.infisical.clear_faults();
    let rerun = rotate(&d, "main-db", &["--format", "json"]);
    assert_eq!(rerun.code, 0, "{}", rerun.stderr);
    let report: Value = serde_json::from_str(&rerun.stdout).unwrap();
    assert_eq!(report["resumed"], true);
    assert_eq!(d.password("main-db", "MAIN_DB_PASSWORD"), pending);
    assert_eq!(d.pending("MAIN_DB_PASSWORD"), None);
    assert_eq!(d.ssm(DB_PARAMETER), pending);
    assert_eq!(d.proxy_password(), pending);
    let recorded = d.recorded();
    let db = position(&recorded, "ModifyDBInstance", &format!("MasterUserPassword={pending}"));
    assert!(db < position(&recorded, "PutParameter", DB_PARAMETER), "{:?}", ops(&recorded));
    assert_eq!(d.deployments(), deployments, "no service reads the admin's password");
    assert_no_value(&[&stopped, &rerun], &[&old, &pending]);
}

#[test]
fn a_cache_token_rotates_then_is_set_once_its_readers_restarted() {
    // pdf-render uses the sessions cache, so it reads the URL that embeds the token.
    let d = Deployed::new("rotate-cache", |text| {
        text.replace("uses: [jobs, uploads]", "uses: [jobs, uploads, sessions]")
    });
    let old = d.password("sessions", "SESSIONS_PASSWORD");
    let before = d.deployments();
    d.recorded();

    // With --no-restart, the new token is added (ROTATE) and published, but not made the only one.
    let partial = rotate(&d, "sessions", &["--no-restart"]);
    assert_eq!(partial.code, 0, "{}", partial.stderr);
    assert!(partial.stdout.contains("not completed"), "{}", partial.stdout);
    // The member `orders` uses the sessions cache: runway cannot restart it, so SET waits for people.
    assert!(partial.stdout.contains("redeploy the members using it (orders"), "{}", partial.stdout);
    assert!(partial.stdout.contains("--members-restarted"), "{}", partial.stdout);
    let new = d.pending("SESSIONS_PASSWORD").expect("kept until SET");
    assert_eq!(d.password("sessions", "SESSIONS_PASSWORD"), new);
    assert_eq!(d.ssm("/acme-shop/dev/sessions/SESSIONS_PASSWORD"), new);
    assert!(d.ssm("/acme-shop/dev/sessions/SESSIONS_URL").contains(&new));
    let recorded = d.recorded();
    let rotate_at = position(&recorded, "ModifyReplicationGroup", "AuthTokenUpdateStrategy=ROTATE");
    assert!(recorded[rotate_at].1.contains(&format!("AuthToken={new}")));
    assert!(
        !recorded.iter().any(|(op, b)| op == "ModifyReplicationGroup" && b.contains("=SET")),
        "{:?}",
        ops(&recorded)
    );
    assert!(!ops(&recorded).contains(&"UpdateService"));
    assert_eq!(d.deployments(), before);

    // Run again once the member is redeployed: the readers restart, then SET; the token is
    // not rotated twice.
    let complete = rotate(&d, "sessions", &["--members-restarted"]);
    assert_eq!(complete.code, 0, "{}", complete.stderr);
    assert!(complete.stdout.contains("rotated sessions in dev"), "{}", complete.stdout);
    assert_eq!(d.password("sessions", "SESSIONS_PASSWORD"), new);
    assert_eq!(d.pending("SESSIONS_PASSWORD"), None);
    let recorded = d.recorded();
    assert!(!recorded.iter().any(|(op, b)| op == "ModifyReplicationGroup" && b.contains("=ROTATE")));
    let restart = position(&recorded, "UpdateService", "acme-shop-dev-pdf-render-service");
    let set = position(&recorded, "ModifyReplicationGroup", "AuthTokenUpdateStrategy=SET");
    assert!(restart < set, "{:?}", ops(&recorded));
    assert!(recorded[set].1.contains(&format!("AuthToken={new}")));
    assert_eq!(changed(&before, &d.deployments()), ["acme-shop-dev-pdf-render-service"]);

    // A whole rotation in one run: ROTATE, restart, SET.
    let whole = rotate(&d, "sessions", &["--members-restarted"]);
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    let newer = d.password("sessions", "SESSIONS_PASSWORD");
    let recorded = d.recorded();
    let order = [
        position(&recorded, "ModifyReplicationGroup", "AuthTokenUpdateStrategy=ROTATE"),
        position(&recorded, "PutParameter", "SESSIONS_PASSWORD"),
        position(&recorded, "UpdateService", "pdf-render"),
        position(&recorded, "ModifyReplicationGroup", "AuthTokenUpdateStrategy=SET"),
    ];
    assert!(order.is_sorted(), "{:?}", ops(&recorded));
    assert_no_value(&[&partial, &complete, &whole], &[&old, &new, &newer]);
}

#[test]
fn ssm_publish_restarts_exactly_the_services_reading_a_changed_parameter() {
    let d = Deployed::new("rotate-ssm-publish", str::to_owned);
    let before = d.deployments();
    let unchanged = d.run(&["ssm", "publish", "--env", "dev"]);
    assert_eq!(unchanged.code, 0, "{}", unchanged.stderr);
    assert!(!unchanged.stdout.contains("restarted"), "{}", unchanged.stdout);
    assert_eq!(d.deployments(), before, "nothing changed, nothing restarted");

    // A person changes metabase's login password in Infisical: metabase reads it, pdf-render
    // does not.
    let canary = "canary-value-3e9d7a1b5c2f8e4d6a0b";
    d.set_infisical("/runtime/main-db/metabase", "MAIN_DB_PASSWORD", canary);
    let json = d.run(&["ssm", "publish", "--env", "dev", "--format", "json"]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    let report: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(report["restarted"][0]["workload"], "metabase");
    assert_eq!(report["restarted"][0]["parameters"], json!([LOGIN_PARAMETER]));
    assert_eq!(report["restarted"].as_array().unwrap().len(), 1);
    assert_eq!(changed(&before, &d.deployments()), ["acme-shop-dev-metabase-service"]);
    let after_first = d.deployments();

    // --no-restart: written, nobody restarted, and the output says who keeps the old value.
    d.set_infisical("/runtime/main-db/metabase", "MAIN_DB_PASSWORD", &format!("{canary}-2"));
    let text = d.run(&["ssm", "publish", "--env", "dev", "--no-restart"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(text.stdout.contains(&format!("updated   {LOGIN_PARAMETER} (value differs)")), "{}", text.stdout);
    assert!(
        text.stdout.contains(&format!(
            "not restarted (--no-restart) metabase (acme-shop-dev-metabase-service): reads {LOGIN_PARAMETER}"
        )),
        "{}",
        text.stdout
    );
    assert_eq!(d.deployments(), after_first);
    assert_eq!(d.ssm(LOGIN_PARAMETER), format!("{canary}-2"));
    assert_no_value(&[&unchanged, &json, &text], &[canary]);
}

/// Whoever changed a parameter, `ssm publish` restarts exactly the services whose tasks read
/// it: a workload secret a person changed in Infisical (copied now), a parameter the program
/// rewrote at a `pulumi up` after the service's deployment (an endpoint after a replacement);
/// a second run restarts nobody (the new deployments are newer), and `--no-restart` nobody.
#[test]
fn ssm_publish_restarts_the_readers_of_a_changed_workload_secret_or_program_parameter() {
    let d = Deployed::new("rotate-people-program", str::to_owned);
    let before = d.deployments();
    let canary = "canary-person-9b4e2d7f1a6c3e8b";
    common::set_in_infisical(&d.infisical.url(), PROJECT, common::PERSON_PLACE, canary);
    let person = d.run(&["ssm", "publish", "--env", "dev", "--format", "json"]);
    assert_eq!(person.code, 0, "{}", person.stderr);
    let report: Value = serde_json::from_str(&person.stdout).unwrap();
    assert_eq!(report["restarted"][0]["workload"], "metabase");
    assert_eq!(report["restarted"][0]["parameters"], json!([common::PERSON_PARAMETER]));
    assert_eq!(report["restarted"].as_array().unwrap().len(), 1, "{report:#}");
    assert_eq!(changed(&before, &d.deployments()), ["acme-shop-dev-metabase-service"]);
    assert_eq!(d.ssm(common::PERSON_PARAMETER), canary);

    // The program rewrites the queue's URL (a replaced queue): pdf-render and the worker
    // jobs-worker read it, metabase does not.
    let queue = "/acme-shop/dev/jobs/JOBS_URL";
    let after_person = d.deployments();
    d.python(&format!(
        "ssm.put_parameter(Name='{queue}', Value='https://sqs.us-east-1.amazonaws.com/1/replaced', \
         Type='SecureString', KeyId='alias/runway/acme-shop/dev', Overwrite=True)"
    ));
    let program = d.run(&["ssm", "publish", "--env", "dev"]);
    assert_eq!(program.code, 0, "{}", program.stderr);
    for workload in ["pdf-render", "jobs-worker"] {
        assert!(
            program.stdout.contains(&format!(
                "restarted {workload} (acme-shop-dev-{workload}-service): reads {queue}\n"
            )),
            "{}",
            program.stdout
        );
    }
    assert!(!program.stdout.contains("restarted metabase"), "{}", program.stdout);
    assert_eq!(
        changed(&after_person, &d.deployments()),
        ["acme-shop-dev-jobs-worker-service", "acme-shop-dev-pdf-render-service"]
    );

    // Every deployment is newer than every parameter: nothing to restart.
    let settled = d.deployments();
    let again = d.run(&["ssm", "publish", "--env", "dev"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(!again.stdout.contains("restart"), "{}", again.stdout);
    assert_eq!(d.deployments(), settled);

    // --no-restart: both changes written or found, nobody restarted, each reader listed.
    common::set_in_infisical(&d.infisical.url(), PROJECT, common::PERSON_PLACE, &format!("{canary}-2"));
    d.python(&format!(
        "ssm.put_parameter(Name='{queue}', Value='https://sqs.us-east-1.amazonaws.com/1/again', \
         Type='SecureString', KeyId='alias/runway/acme-shop/dev', Overwrite=True)"
    ));
    let held = d.run(&["ssm", "publish", "--env", "dev", "--no-restart"]);
    assert_eq!(held.code, 0, "{}", held.stderr);
    let readers = [("metabase", common::PERSON_PARAMETER), ("pdf-render", queue), ("jobs-worker", queue)];
    for (workload, parameter) in readers {
        let line = format!(
            "not restarted (--no-restart) {workload} (acme-shop-dev-{workload}-service): reads {parameter}"
        );
        assert!(held.stdout.contains(&line), "{}", held.stdout);
    }
    assert_eq!(d.deployments(), settled);
    assert_eq!(d.ssm(common::PERSON_PARAMETER), format!("{canary}-2"));
    assert_no_value(&[&person, &program, &again, &held], &[canary, "set-by-a-person"]);
}

#[test]
fn rotate_without_credentials_or_for_an_unknown_resource_is_a_usage_error() {
    let d = Deployed::new("rotate-usage", str::to_owned);
    let unknown = rotate(&d, "uploads", &[]);
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
    assert!(unknown.stderr.contains("`uploads` has no generated credential"), "{}", unknown.stderr);
    assert!(unknown.stderr.contains("main-db"), "{}", unknown.stderr);

    let mut cmd = common::aws_command(&d.moto.url(), "runway-rotate-test-home");
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("INFISICAL_") {
            cmd.env_remove(k);
        }
    }
    cmd.args(["rotate", "--env", "dev", "main-db"]).arg(&d.file).env("INFISICAL_URL", d.infisical.url());
    let no_infisical = Run::of_utf8(&mut cmd);
    assert_eq!(no_infisical.code, 2, "{}", no_infisical.stderr);
    assert!(no_infisical.stderr.contains("INFISICAL_CLIENT_ID"), "{}", no_infisical.stderr);

    let mut cmd = common::command();
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("AWS_") {
            cmd.env_remove(k);
        }
    }
    let home = std::env::temp_dir().join("runway-rotate-no-aws");
    cmd.args(["rotate", "--env", "dev", "main-db"])
        .arg(&d.file)
        .env("INFISICAL_URL", d.infisical.url())
        .env("INFISICAL_CLIENT_ID", CLIENT_ID)
        .env("INFISICAL_CLIENT_SECRET", CLIENT_SECRET)
        .env("AWS_CONFIG_FILE", home.join("config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", home.join("credentials"))
        .env("AWS_EC2_METADATA_DISABLED", "true");
    let no_aws = Run::of_utf8(&mut cmd);
    assert_eq!(no_aws.code, 4, "{}", no_aws.stderr);
    assert!(no_aws.stderr.contains("no AWS credentials found"), "{}", no_aws.stderr);
    assert!(no_aws.stderr.contains("ModifyDBInstance"), "{}", no_aws.stderr);
    assert!(no_aws.stderr.contains("the new value is kept at"), "{}", no_aws.stderr);

    let old_flag = d.run(&["secrets", "prepare", "--env", "dev", "--rotate", "main-db"]);
    assert_eq!(old_flag.code, 2);
    assert!(old_flag.stderr.contains("runway rotate --env dev main-db"), "{}", old_flag.stderr);
}
