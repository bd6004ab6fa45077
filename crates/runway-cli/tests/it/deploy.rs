//! The deploy-job commands end to end: the real `runway` binary against the Infisical contract
//! server (`tools/infisical_contract_server.py`) and moto (`python -m moto.server`), with the
//! example product `examples/acme-shop` (its `dev` environment).
//!
//! Needs the workspace venv: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};

use aws_adapter::aws::Action;
use secrets_adapter::SecretString;
use serde_json::{Value, json};
use test_support::contract::{CLIENT_ID, CLIENT_SECRET};
use test_support::{CannedAws, ContractServer, Moto, Route, free_port, scratch};

use crate::common::{self, Cloud, PROJECT, Run};
use crate::migrate_task;

mod aws_view;
use aws_view::{proxy_state, registry_state, ssm_holds};

/// A workload secret's value, set by a person.
const PERSON_SET: &str = "set-by-a-person-4d9e1b7c";

/// A stack output value that must never be printed.
const CANARY: &str = "canary-7f3a9c1e5b2d.cluster-x.us-east-1.rds.amazonaws.com";

fn example() -> PathBuf {
    test_support::example("acme-shop").join("runway.yaml")
}

/// The Infisical contract server, knowing the example's project.
fn start_infisical() -> ContractServer {
    ContractServer::start_with(&["--project", PROJECT])
}

/// `METHOD path` of the API requests that write (logins and reads excluded).
fn api_writes(infisical: &ContractServer) -> Vec<String> {
    infisical
        .requests()
        .into_iter()
        .filter(|(method, path)| method != "GET" && !path.contains("/auth/"))
        .map(|(method, path)| format!("{method} {path}"))
        .collect()
}

/// Runs `runway` with only the test's Infisical and AWS settings (the host's never leak in).
fn runway(infisical_url: &str, aws_url: &str, args: &[&str]) -> Run {
    runway_with(infisical_url, aws_url, args, &[])
}

/// [`runway`] with some settings changed: `(name, Some(value))` sets one, `(name, None)`
/// removes it.
fn runway_with(infisical_url: &str, aws_url: &str, args: &[&str], changed: &[(&str, Option<&str>)]) -> Run {
    let mut cmd = common::cloud_command(infisical_url, aws_url, "runway-deploy-test-home");
    cmd.args(args);
    for (name, value) in changed {
        match value {
            Some(value) => cmd.env(name, value),
            None => cmd.env_remove(name),
        };
    }
    Run::logged(&mut cmd, args)
}

fn assert_no_secret(runs: &[&Run], secrets: &[&str]) {
    for run in runs {
        for s in secrets {
            assert!(!run.stdout.contains(s) && !run.stderr.contains(s), "a value was printed");
        }
    }
}

/// A hand-written `pulumi stack output --json --show-secrets` for the example's dev plan.
fn outputs_file(dir: &Path) -> PathBuf {
    outputs_file_of(&example(), dir)
}

/// [`outputs_file`] of the dev plan of the runway `file`: `MAIN_DB_HOST` is the canary.
fn outputs_file_of(file: &Path, dir: &Path) -> PathBuf {
    common::dev_outputs(file, dir, |name| {
        if name == "MAIN_DB_HOST" { CANARY.to_owned() } else { format!("value-of-{name}") }
    })
}

/// `pulumi up` of the program in `program` against moto, with `outputs` as the stack's outputs
/// (`tools/simulate_up.py --ecs`): writes the parameters the program declares, in the order
/// Pulumi would, declares the ECS clusters, task definitions and services `runway rollout`
/// reads, and reports every task that could start before a parameter it reads exists.
fn simulate_up(moto: &Moto, program: &Path, outputs: &Path) -> Value {
    simulate_up_with(moto, program, outputs, &[])
}

/// [`simulate_up`] with more flags (`--exclude-services`: the deploy job's first `up`).
fn simulate_up_with(moto: &Moto, program: &Path, outputs: &Path, flags: &[&str]) -> Value {
    let out = common::simulate_up(moto, program, outputs, flags);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("simulate_up: {e}\n{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(out.status.success(), report["failures"].as_array().unwrap().is_empty(), "{report:#}");
    report
}

/// The names of a JSON array of strings.
fn names(value: &Value) -> Vec<&str> {
    value.as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect()
}

/// The workload's own secret, set by a person in Infisical (the workload's folder) before
/// `secrets prepare` copies it (docs/pipeline.md).
fn set_person_secret(infisical: &ContractServer) {
    common::set_in_infisical(&infisical.url(), PROJECT, common::PERSON_PLACE, PERSON_SET);
}

/// [`ContractServer::versions`] without the person's secret: what runway wrote.
fn generated_versions(infisical: &ContractServer) -> std::collections::BTreeMap<String, u64> {
    let mut versions = infisical.versions();
    versions.remove("dev:/runtime/metabase/MB_ENCRYPTION_SECRET_KEY");
    versions
}

const CREDENTIALS: [&str; 5] = [
    "dev:/runtime/main-db/MAIN_DB_PASSWORD",
    // Each consumer's own login of main-db: the workload metabase and the member reporting.
    "dev:/runtime/main-db/metabase/MAIN_DB_PASSWORD",
    "dev:/runtime/main-db/reporting/MAIN_DB_PASSWORD",
    "dev:/runtime/sessions/SESSIONS_PASSWORD",
    "dev:/runtime/shared-cache/SHARED_CACHE_PASSWORD",
];
const PROXY_SECRET: &str = "acme-shop/dev/main-db/proxy-admin";
/// The alias of dev's own KMS key, which `secrets prepare` creates and encrypts with.
const ENV_KEY: &str = "alias/runway/acme-shop/dev";
/// The proxy secrets of main-db's two logins.
const LOGIN_SECRETS: [&str; 2] =
    ["acme-shop/dev/main-db/proxy-metabase", "acme-shop/dev/main-db/proxy-reporting"];

#[test]
fn secrets_prepare_dry_run_writes_nothing_then_creates_once() {
    let Cloud { infisical, moto } = Cloud::start();
    let file = example();
    let file = file.to_str().unwrap();
    let run = |args: &[&str]| runway(&infisical.url(), &moto.url(), args);
    set_person_secret(&infisical);
    let set_up = api_writes(&infisical).len();

    let dry = run(&["secrets", "prepare", "--env", "dev", "--dry-run", file]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(dry.stdout.contains("dry run: nothing written"));
    for c in CREDENTIALS {
        assert!(dry.stdout.contains(&format!("would-create {c}\n")), "{c}");
    }
    assert!(dry.stdout.contains(&format!("would write {PROXY_SECRET}")));
    let person = format!("{} (ssm, workload secret)", common::PERSON_PARAMETER);
    assert!(dry.stdout.contains(&format!("would create {person}")), "{}", dry.stdout);
    assert!(generated_versions(&infisical).is_empty(), "the dry run wrote to Infisical");
    assert_eq!(api_writes(&infisical)[set_up..], Vec::<String>::new(), "the dry run called a writing API");
    assert_eq!(proxy_state(&moto, "x"), Action::Created, "the dry run wrote the proxy secret");

    let first = run(&["secrets", "prepare", "--env", "dev", file]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    for c in CREDENTIALS {
        assert!(first.stdout.contains(&format!("created  {c}\n")), "{c}");
    }
    assert!(first.stdout.contains(&format!("created   {PROXY_SECRET} (proxy copy)")));
    assert!(first.stdout.contains(&format!("created   {person}")), "{}", first.stdout);
    assert!(ssm_holds(&moto, common::PERSON_PARAMETER, PERSON_SET), "the person's value, copied");
    let versions = generated_versions(&infisical);
    assert_eq!(versions.keys().map(String::as_str).collect::<Vec<_>>(), CREDENTIALS);
    assert!(versions.values().all(|v| *v == 1));
    let values = infisical.values();
    // The proxy copy holds exactly the credential Infisical holds, under the plan's admin user.
    let admin = infisical.value("dev", "/runtime/main-db", "MAIN_DB_PASSWORD").unwrap();
    assert_eq!(proxy_state(&moto, &admin), Action::Unchanged);

    let second = run(&["secrets", "prepare", "--env", "dev", "--format", "json", file]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    let report: Value = serde_json::from_str(&second.stdout).unwrap();
    let actions: Vec<&str> = report["infisical"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["exists"; 5]);
    let copies: Vec<&Value> =
        report["proxyCopies"].as_array().unwrap().iter().map(|c| &c["action"]).collect();
    assert_eq!(copies, ["unchanged"; 3]);
    assert_eq!(report["workloadSecrets"]["parameters"][0]["name"], common::PERSON_PARAMETER);
    assert_eq!(report["workloadSecrets"]["parameters"][0]["action"], "unchanged");
    assert_eq!(generated_versions(&infisical), versions, "the second run changed a credential");

    // Every credential, the logins' too (`values` keeps one per name).
    let logins: Vec<String> = ["metabase", "reporting"]
        .iter()
        .map(|c| infisical.value("dev", &format!("/runtime/main-db/{c}"), "MAIN_DB_PASSWORD").unwrap())
        .collect();
    let mut secrets: Vec<&str> = values.values().map(String::as_str).collect();
    secrets.extend(logins.iter().map(String::as_str));
    secrets.push(&admin);
    assert!(secrets.contains(&PERSON_SET));
    assert_no_secret(&[&dry, &first, &second], &secrets);
}

#[test]
fn secrets_publish_then_ssm_publish_and_verify() {
    let Cloud { infisical, moto } = Cloud::start();
    let dir = scratch("deploy-publish");
    let outputs = outputs_file(&dir);
    let outputs = outputs.to_str().unwrap();
    let file = example();
    let file = file.to_str().unwrap();
    let run = |args: &[&str]| runway(&infisical.url(), &moto.url(), args);

    // Nothing there yet: verify fails with exit 1.
    let empty = run(&["ssm", "verify", "--env", "dev", file]);
    assert_eq!(empty.code, 1, "{}", empty.stderr);
    assert!(empty.stdout.contains("missing    /acme-shop/dev/main-db/metabase/MAIN_DB_URL"));
    assert!(empty.stdout.contains("18 parameter(s) checked, 18 problem(s)"), "{}", empty.stdout);

    set_person_secret(&infisical);
    assert_eq!(run(&["secrets", "prepare", "--env", "dev", file]).code, 0);

    // A missing output is a usage error naming it, before any call.
    let partial = dir.join("partial.json");
    std::fs::write(&partial, json!({"JOBS_URL": "x"}).to_string()).unwrap();
    let missing = run(&["secrets", "publish", "--env", "dev", "--outputs", partial.to_str().unwrap(), file]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("no output `MAIN_DB_HOST`"), "{}", missing.stderr);

    let publish = run(&["secrets", "publish", "--env", "dev", "--outputs", outputs, file]);
    assert_eq!(publish.code, 0, "{}", publish.stderr);
    for v in [
        "main-db/MAIN_DB_URL",
        "main-db/MAIN_DB_HOST",
        "main-db/MAIN_DB_PORT",
        "main-db/metabase/MAIN_DB_URL",
        "main-db/metabase/MAIN_DB_USER",
        "jobs/JOBS_DLQ_URL",
    ] {
        assert!(publish.stdout.contains(&format!("created  dev:/runtime/{v}\n")), "{v}");
    }
    let values = infisical.values();
    assert_eq!(values["MAIN_DB_HOST"], CANARY);
    assert_eq!(values["MAIN_DB_PORT"], "5432");
    assert!(values["MAIN_DB_URL"].starts_with("postgresql://${MAIN_DB_USER}:${MAIN_DB_PASSWORD}@"));
    let versions = infisical.versions();

    let again = run(&["secrets", "publish", "--env", "dev", "--outputs", outputs, file]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stdout.lines().all(|l| l.starts_with("unchanged ")), "{}", again.stdout);
    // The resources' 20 and the 5 of each of main-db's two logins.
    assert_eq!(again.stdout.lines().count(), 30);
    assert_eq!(
        infisical.value("dev", "/runtime/main-db/metabase", "MAIN_DB_USER").as_deref(),
        Some("app_metabase")
    );
    assert_eq!(infisical.versions(), versions);

    // `pulumi up` writes the connection parameters.
    let before_up = run(&["ssm", "verify", "--env", "dev", file]);
    assert_eq!(before_up.code, 1, "{}", before_up.stdout);
    assert!(
        before_up.stdout.contains("missing    /acme-shop/dev/main-db/metabase/MAIN_DB_URL"),
        "{}",
        before_up.stdout
    );
    let program = dir.join("program");
    assert_eq!(run(&["emit", "pulumi", "--env", "dev", "--out", program.to_str().unwrap(), file]).code, 0);
    let up = simulate_up(&moto, &program, Path::new(outputs));
    assert_eq!(names(&up["written"]).len(), 12, "{up:#}");

    // `ssm publish` copies the credentials and leaves the program's parameters alone.
    let dry = run(&["ssm", "publish", "--env", "dev", "--dry-run", file]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(dry.stdout.contains("program   /acme-shop/dev/main-db/metabase/MAIN_DB_URL"), "{}", dry.stdout);
    let ssm = run(&["ssm", "publish", "--env", "dev", file]);
    assert_eq!(ssm.code, 0, "{}", ssm.stderr);
    assert!(ssm.stdout.contains("unchanged /acme-shop/dev/main-db/MAIN_DB_PASSWORD"), "{}", ssm.stdout);
    assert!(
        ssm.stdout.contains("unchanged /acme-shop/dev/main-db/metabase/MAIN_DB_PASSWORD"),
        "{}",
        ssm.stdout
    );
    assert!(ssm.stdout.contains("program   /acme-shop/dev/main-db/metabase/MAIN_DB_URL"));
    assert!(
        ssm.stdout.contains("unchanged /acme-shop/dev/metabase/MB_ENCRYPTION_SECRET_KEY"),
        "{}",
        ssm.stdout
    );
    assert!(!ssm.stdout.contains("created") && !ssm.stdout.contains("updated"), "{}", ssm.stdout);
    let verify = run(&["ssm", "verify", "--env", "dev", file]);
    assert_eq!(verify.code, 0, "{}", verify.stdout);
    assert!(verify.stdout.contains("18 parameter(s) checked, 0 problem(s)"), "{}", verify.stdout);

    // SSM holds what Infisical holds: the output as is, the URL with references expanded,
    // composed with metabase's own login, not the admin's.
    let own = infisical.value("dev", "/runtime/main-db/metabase", "MAIN_DB_PASSWORD").unwrap();
    let url = format!("postgresql://app_metabase:{own}@{CANARY}:5432/main_db?sslmode=require");
    assert!(ssm_holds(&moto, "/acme-shop/dev/main-db/MAIN_DB_HOST", CANARY));
    assert!(ssm_holds(&moto, "/acme-shop/dev/main-db/metabase/MAIN_DB_URL", &url));
    assert!(
        !ssm_holds(&moto, "/acme-shop/dev/main-db/metabase/MAIN_DB_URL", "postgresql://other"),
        "the check can fail"
    );
    let admin = infisical.value("dev", "/runtime/main-db", "MAIN_DB_PASSWORD").unwrap();
    assert!(ssm_holds(&moto, "/acme-shop/dev/main-db/MAIN_DB_PASSWORD", &admin));
    assert_ne!(own, admin);

    let secrets: Vec<&str> =
        values.values().map(String::as_str).filter(|v| v.len() > 12 && !v.contains("${")).collect();
    assert!(secrets.contains(&CANARY));
    assert_no_secret(&[&publish, &again, &missing, &dry, &ssm, &verify, &before_up], &secrets);
}

#[test]
fn remote_failure_exits_4_and_a_rerun_finishes() {
    let Cloud { infisical, moto } = Cloud::start();
    let file = example();
    let file = file.to_str().unwrap();
    let run = |args: &[&str]| runway(&infisical.url(), &moto.url(), args);
    set_person_secret(&infisical);

    // Every request after the login and the first credential's calls fails with 500.
    infisical.faults(json!({"fail_next_500": 1000, "after": 4}));
    let failed = run(&["secrets", "prepare", "--env", "dev", file]);
    assert_eq!(failed.code, 4, "{}", failed.stderr);
    assert!(failed.stderr.contains("not done"), "{}", failed.stderr);
    assert!(failed.stderr.contains("dev:/runtime/shared-cache/SHARED_CACHE_PASSWORD"));
    assert!(failed.stderr.contains("run the same command again"));
    assert!(failed.stdout.is_empty());

    // Connections dropped on every call of a publish.
    infisical.faults(json!({"fail_next_500": 0, "drop_next_connection": 1000}));
    let dir = scratch("deploy-fault");
    let outputs = outputs_file(&dir);
    let dropped = run(&["secrets", "publish", "--env", "dev", "--outputs", outputs.to_str().unwrap(), file]);
    assert_eq!(dropped.code, 4, "{}", dropped.stderr);
    assert!(dropped.stderr.contains("not done"), "{}", dropped.stderr);

    infisical.faults(json!({"drop_next_connection": 0}));
    let rerun = run(&["secrets", "prepare", "--env", "dev", file]);
    assert_eq!(rerun.code, 0, "{}", rerun.stderr);
    assert_eq!(generated_versions(&infisical).keys().map(String::as_str).collect::<Vec<_>>(), CREDENTIALS);
    assert!(infisical.versions().values().all(|v| *v == 1), "a credential was generated twice");

    let secrets: Vec<String> = infisical.values().into_values().collect();
    let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
    assert_no_secret(&[&failed, &dropped, &rerun], &secrets);
}

#[test]
fn aws_failure_exits_4_and_verify_unreachable_exits_4() {
    let infisical = start_infisical();
    // Nothing listens there: every AWS call fails.
    let dead = format!("http://127.0.0.1:{}", free_port());
    let file = example();
    let file = file.to_str().unwrap();
    let prepare = runway(&infisical.url(), &dead, &["secrets", "prepare", "--env", "dev", file]);
    assert_eq!(prepare.code, 4, "{}", prepare.stderr);
    assert!(prepare.stderr.contains(PROXY_SECRET), "{}", prepare.stderr);
    let verify = runway(&infisical.url(), &dead, &["ssm", "verify", "--env", "dev", file]);
    assert_eq!(verify.code, 4, "{}", verify.stderr);
    for run in [&prepare, &verify] {
        assert_first_step(run, "AWS did not answer: check the network", "Connection refused");
    }
    // With --format json, stdout still carries JSON: the error and its exit code.
    let json = runway(&infisical.url(), &dead, &["ssm", "verify", "--env", "dev", "--format", "json", file]);
    assert_eq!(json.code, 4, "{}", json.stderr);
    let error: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(error["error"]["exit"], 4);
    assert!(error["error"]["message"].as_str().unwrap().contains("AWS did not answer"));
    let secrets: Vec<String> = infisical.values().into_values().collect();
    let secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
    assert_no_secret(&[&prepare, &verify], &secrets);
}

#[test]
fn a_runway_without_infisical_is_a_usage_error() {
    let dir = scratch("deploy-no-infisical");
    let text = std::fs::read_to_string(example()).unwrap();
    let start = text.find("secrets:\n").unwrap();
    let end = text.find("environments:\n").unwrap();
    let stripped =
        format!("{}{}", &text[..start], &text[end..]).replace("members: [\"services/*\", \"tools/*\"]\n", "");
    let file = dir.join("runway.yaml");
    std::fs::write(&file, stripped).unwrap();
    let run = runway(
        "http://127.0.0.1:9",
        "http://127.0.0.1:9",
        &["secrets", "prepare", "--env", "dev", file.to_str().unwrap()],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("no `secrets.infisical` block"), "{}", run.stderr);
}

/// The error names the first step on its first line, then the cause on one line of its own.
fn assert_first_step(run: &Run, step: &str, cause: &str) {
    let mut lines = run.stderr.lines().skip_while(|l| !l.starts_with("error: "));
    let first = lines.next().unwrap_or_default();
    assert!(first.contains(step), "first line `{first}` does not say `{step}`:\n{}", run.stderr);
    let second = lines.next().unwrap_or_default();
    assert!(second.starts_with("  cause: ") && second.contains(cause), "{}", run.stderr);
}

#[test]
fn without_aws_credentials_the_error_names_the_variables_and_the_profile() {
    let file = example();
    let args = ["ssm", "verify", "--env", "dev", file.to_str().unwrap()];
    // No keys, no profile files, no instance metadata: the SDK's chain finds nothing.
    let unset = [("AWS_ACCESS_KEY_ID", None), ("AWS_SECRET_ACCESS_KEY", None)];
    let run = runway_with("http://127.0.0.1:9", "http://127.0.0.1:9", &args, &unset);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert_first_step(&run, "no AWS credentials found", "DescribeParameters failed");
    for named in ["AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "aws sso login"] {
        assert!(run.stderr.contains(named), "{named}: {}", run.stderr);
    }
}

#[test]
fn expired_aws_credentials_say_to_renew_the_session() {
    let aws = CannedAws::start(vec![Route::always(
        "400 Bad Request",
        r#"{"__type":"com.amazon.coral.service#ExpiredTokenException","message":"The security token included in the request is expired"}"#,
    )]);
    let file = example();
    let args = ["ssm", "verify", "--env", "dev", file.to_str().unwrap()];
    let run = runway_with("http://127.0.0.1:9", &aws.url(), &args, &[("AWS_SESSION_TOKEN", Some("old"))]);
    assert_eq!(run.code, 4, "{}", run.stderr);
    assert_first_step(&run, "the AWS credentials have expired: renew the session", "ExpiredTokenException");
}

#[test]
fn infisical_failures_say_what_to_fix_first() {
    let infisical = start_infisical();
    let file = example();
    let args = ["secrets", "prepare", "--env", "dev", file.to_str().unwrap()];
    let dead = format!("http://127.0.0.1:{}", free_port());

    let wrong = runway_with(&infisical.url(), &dead, &args, &[("INFISICAL_CLIENT_SECRET", Some("wrong"))]);
    assert_eq!(wrong.code, 4, "{}", wrong.stderr);
    assert_first_step(&wrong, "check INFISICAL_CLIENT_ID and INFISICAL_CLIENT_SECRET", "Invalid credentials");

    let unreachable = runway_with(&dead, &dead, &args, &[]);
    assert_eq!(unreachable.code, 4, "{}", unreachable.stderr);
    assert_first_step(
        &unreachable,
        "Infisical did not answer: check INFISICAL_URL",
        "no answer from Infisical",
    );

    // A ready token that expires cannot be renewed by runway.
    let login = test_support::http(
        infisical.port,
        "POST",
        "/api/v1/auth/universal-auth/login",
        &json!({"clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET}).to_string(),
    )
    .unwrap();
    let token: Value = serde_json::from_str(&login.body).unwrap();
    let token = token["accessToken"].as_str().unwrap();
    infisical.faults(json!({"expire_tokens_now": true}));
    let ready =
        [("INFISICAL_TOKEN", Some(token)), ("INFISICAL_CLIENT_ID", None), ("INFISICAL_CLIENT_SECRET", None)];
    let expired = runway_with(&infisical.url(), &dead, &args, &ready);
    assert_eq!(expired.code, 4, "{}", expired.stderr);
    assert_first_step(
        &expired,
        "the Infisical access token expired: set a fresh INFISICAL_TOKEN",
        "cannot be renewed",
    );
    assert_no_secret(&[&wrong, &unreachable, &expired], &[token]);
}

/// The names an emitted program looks up with `fn::invoke` of `function`: the `name:` argument
/// following each call.
fn looked_up(program: &str, function: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut lines = program.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("function: {function}") {
            let name = lines.find_map(|l| l.trim().strip_prefix("name: ")).unwrap();
            names.push(name.trim_matches('"').to_owned());
        }
    }
    names
}

/// The first deploy by the documented order, from an empty account: after `secrets prepare`,
/// everything `pulumi up` looks up exists (the proxy secret in Secrets Manager, each credential's
/// SSM parameter); a first simulated `up` without the services lets `runway migrate` run the
/// metabase migration (everything it reads exists); the full simulated `up` writes the program's parameters before any service that
/// reads them starts, so every `valueFrom` of every task resolves at its start; `rollout` finds
/// every service on its declared revision; then `secrets publish`, `ssm publish` and
/// `ssm verify` finish, and what each task reads from SSM
/// equals what Infisical holds. A later deploy that adds a binding starts as cleanly.
#[test]
fn the_documented_order_runs_from_an_empty_account() {
    // moto runs the tasks of the services the simulated `up` declares, as ECS would.
    let Cloud { infisical, moto } = Cloud::start_with(&[("MOTO_ECS_SERVICE_RUNNING", "1")]);
    let dir = scratch("deploy-first");
    let file = example();
    let file = file.to_str().unwrap();
    let run = |args: &[&str]| runway(&infisical.url(), &moto.url(), args);
    let out = dir.join("program");
    let emit = run(&["emit", "pulumi", "--env", "dev", "--out", out.to_str().unwrap(), file]);
    assert_eq!(emit.code, 0, "{}", emit.stderr);
    let program = std::fs::read_to_string(out.join("Pulumi.yaml")).unwrap();
    // Each credential is read twice: its value and its version (the write-only inputs').
    let mut parameters = looked_up(&program, "aws:ssm:getParameter");
    parameters.dedup();
    // main-db's admin (its write-only input), the two caches' tokens, and metabase's own login
    // (its URL parameter is composed with it).
    assert_eq!(
        parameters,
        [
            "/acme-shop/dev/main-db/MAIN_DB_PASSWORD",
            "/acme-shop/dev/sessions/SESSIONS_PASSWORD",
            "/acme-shop/dev/shared-cache/SHARED_CACHE_PASSWORD",
            "/acme-shop/dev/main-db/metabase/MAIN_DB_PASSWORD",
        ]
    );
    assert_eq!(
        looked_up(&program, "aws:secretsmanager:getSecret"),
        [PROXY_SECRET, LOGIN_SECRETS[0], LOGIN_SECRETS[1]]
    );

    // A person sets Metabase's own secret in Infisical, where `runway plan` says; `prepare`
    // copies it to the parameter metabase's tasks read.
    set_person_secret(&infisical);
    let prepare = run(&["secrets", "prepare", "--env", "dev", file]);
    assert_eq!(prepare.code, 0, "{}", prepare.stderr);
    for name in &parameters {
        assert!(prepare.stdout.contains(&format!("created   {name} (ssm)")), "{}", prepare.stdout);
    }
    let person = format!("created   {} (ssm, workload secret)", common::PERSON_PARAMETER);
    assert!(prepare.stdout.contains(&person), "{}", prepare.stdout);
    assert!(ssm_holds(&moto, common::PERSON_PARAMETER, PERSON_SET));
    let password = infisical.value("dev", "/runtime/main-db", "MAIN_DB_PASSWORD").unwrap();
    assert_eq!(proxy_state(&moto, &password), Action::Unchanged, "the proxy secret is in place");

    // The first `pulumi up`, without the services: no service starts, and the migrate task
    // can (everything it reads exists); its stack output goes to the outputs file.
    let outputs = outputs_file(&dir);
    let first = simulate_up_with(&moto, &out, &outputs, &["--exclude-services"]);
    assert!(first["failures"].as_array().unwrap().is_empty(), "{first:#}");
    assert!(first["started"].as_array().unwrap().is_empty(), "{first:#}");
    let mut stack: serde_json::Map<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(&outputs).unwrap()).unwrap();
    stack.extend(first["outputs"].as_object().unwrap().clone());
    assert!(stack.contains_key("runway-task-migrate-metabase"), "{first:#}");
    std::fs::write(&outputs, Value::Object(stack).to_string()).unwrap();
    let migrate =
        run(&["migrate", "--env", "dev", "--interval", "1s", "--outputs", outputs.to_str().unwrap(), file]);
    assert_eq!(migrate.code, 0, "{}{}", migrate.stdout, migrate.stderr);
    // main-db's bootstrap makes the logins first; metabase's migration then logs in as its own.
    let boot = migrate.stdout.find("succeeded  bootstrap-main-db: task ");
    let migration = migrate.stdout.find("succeeded  migrate-metabase: task ");
    assert!(boot.is_some() && boot < migration, "{}", migrate.stdout);
    migrate_task::assert_metabase_migrate_runs_its_documented_form(&moto);

    // The full `pulumi up`: no task starts before a parameter it reads exists.
    let up = simulate_up(&moto, &out, &outputs);
    assert!(up["failures"].as_array().unwrap().is_empty(), "{up:#}");
    assert_eq!(
        names(&up["started"]),
        ["metabase_service", "pdf-render_service", "jobs-worker_service"],
        "{up:#}"
    );
    let rollout = run(&["rollout", "--env", "dev", "--interval", "1s", "--timeout", "60s", file]);
    assert_eq!(rollout.code, 0, "{}{}", rollout.stdout, rollout.stderr);
    assert!(rollout.stdout.contains("complete    metabase: acme-shop-dev-metabase:1"), "{}", rollout.stdout);
    assert!(
        rollout.stdout.contains("complete    jobs-worker: acme-shop-dev-jobs-worker:1"),
        "{}",
        rollout.stdout
    );

    let publish = run(&["secrets", "publish", "--env", "dev", "--outputs", outputs.to_str().unwrap(), file]);
    assert_eq!(publish.code, 0, "{}", publish.stderr);
    let ssm = run(&["ssm", "publish", "--env", "dev", file]);
    assert_eq!(ssm.code, 0, "{}", ssm.stderr);
    for name in parameters.iter().map(String::as_str).chain([common::PERSON_PARAMETER]) {
        assert!(ssm.stdout.contains(&format!("unchanged {name}")), "{}", ssm.stdout);
    }
    // Every service started after every parameter it reads was written: none restarts.
    assert!(!ssm.stdout.contains("restart"), "{}", ssm.stdout);
    let verify = run(&["ssm", "verify", "--env", "dev", file]);
    assert_eq!(verify.code, 0, "{}", verify.stdout);
    assert!(verify.stdout.contains("18 parameter(s) checked, 0 problem(s)"), "{}", verify.stdout);

    // What a task reads from SSM is what Infisical holds, references expanded.
    for (name, folder, variable) in program_parameters(file) {
        let value = expanded(&infisical, &folder, &variable);
        assert!(ssm_holds(&moto, &name, &value), "{name} differs from Infisical's {folder}/{variable}");
    }

    let secrets: Vec<String> =
        infisical.values().into_values().filter(|v| v.len() > 12 && !v.contains("${")).collect();
    let mut secrets: Vec<&str> = secrets.iter().map(String::as_str).collect();
    secrets.push(PERSON_SET);
    assert!(ssm_holds(&moto, common::PERSON_PARAMETER, PERSON_SET), "the person's value, end to end");
    assert_no_secret(&[&prepare, &migrate, &rollout, &publish, &ssm, &verify], &secrets);

    // A later deploy adds a binding (pdf-render uses the sessions cache too): its new
    // parameters exist before the new tasks start.
    let copy = scratch("deploy-binding");
    test_support::copy_dir(&test_support::example("acme-shop"), copy.path());
    let root = copy.path().join("runway.yaml");
    let text = std::fs::read_to_string(&root).unwrap();
    let changed = text.replace("uses: [jobs, uploads]", "uses: [jobs, uploads, sessions]");
    assert_ne!(changed, text);
    std::fs::write(&root, changed).unwrap();
    let later = copy.path().join("program");
    let root = root.to_str().unwrap();
    assert_eq!(run(&["emit", "pulumi", "--env", "dev", "--out", later.to_str().unwrap(), root]).code, 0);
    let up = simulate_up(&moto, &later, &outputs_file_of(Path::new(root), copy.path()));
    assert!(names(&up["written"]).contains(&"/acme-shop/dev/sessions/SESSIONS_URL"), "{up:#}");
    assert!(up["failures"].as_array().unwrap().is_empty(), "{up:#}");
}

/// The simulated `up` can fail: the same program with the task definitions no longer waiting
/// for the parameters they read lets a service start first, from an empty account.
#[test]
fn tasks_that_do_not_wait_for_their_parameters_fail_the_simulated_up() {
    let Cloud { infisical, moto } = Cloud::start();
    let dir = scratch("deploy-no-wait");
    let file = example();
    let file = file.to_str().unwrap();
    let run = |args: &[&str]| runway(&infisical.url(), &moto.url(), args);
    let out = dir.join("program");
    assert_eq!(run(&["emit", "pulumi", "--env", "dev", "--out", out.to_str().unwrap(), file]).code, 0);
    set_person_secret(&infisical);
    assert_eq!(run(&["secrets", "prepare", "--env", "dev", file]).code, 0);
    let path = out.join("Pulumi.yaml");
    let program = std::fs::read_to_string(&path).unwrap();
    let unwaited: String = program
        .lines()
        .filter(|l| !l.trim_start().starts_with("- \"${") || !l.contains("_ssm-"))
        .map(|l| l.to_owned() + "\n")
        .collect();
    assert!(unwaited.len() < program.len());
    std::fs::write(&path, unwaited).unwrap();
    let up = simulate_up(&moto, &out, &outputs_file(&dir));
    let failures = names(&up["failures"]);
    assert!(failures.iter().all(|f| f.contains("ResourceInitializationError")), "{up:#}");
    // Every parameter the program writes is one a task may miss (some are read twice, under an
    // `env` name too).
    let missed: std::collections::BTreeSet<&str> =
        failures.iter().filter_map(|f| f.split("parameter ").nth(1)?.split(' ').next()).collect();
    assert_eq!(missed.len(), 11, "{up:#}");
}

/// `(parameter, Infisical folder, variable)` of each parameter the dev plan of `file` says the
/// program writes.
fn program_parameters(file: &str) -> Vec<(String, String, String)> {
    let plan = common::bare().args(["plan", "--env", "dev", "--format", "json", file]).output().unwrap();
    let plan: Value = serde_json::from_slice(&plan.stdout).unwrap();
    let list = plan["secrets"]["ssmParameters"].as_array().unwrap();
    let program: Vec<(String, String, String)> = list
        .iter()
        .filter(|p| p["writtenBy"] == "program")
        .map(|p| {
            let text = |v: &Value| v.as_str().unwrap().to_owned();
            (text(&p["name"]), text(&p["infisical"]["folder"]), text(&p["infisical"]["name"]))
        })
        .collect();
    assert_eq!(program.len(), 12);
    program
}

/// The value Infisical gives for `folder/variable` of `dev`, its `${VAR}` references to the
/// same folder expanded (as Infisical expands them).
fn expanded(infisical: &ContractServer, folder: &str, variable: &str) -> String {
    let mut value = infisical.value("dev", folder, variable).unwrap();
    while let Some(start) = value.find("${") {
        let end = start + value[start..].find('}').unwrap();
        let inner = infisical.value("dev", folder, &value[start + 2..end]).unwrap();
        value.replace_range(start..=end, &inner);
    }
    value
}

/// The example with pdf-render's registry credentials in Infisical (`GHCR_PULL`) instead of an
/// existing secret's ARN (jobs-worker keeps the ARN: one copy to follow).
fn example_with_infisical_registry(name: &str) -> test_support::Scratch {
    let dir = scratch(name);
    test_support::copy_dir(&test_support::example("acme-shop"), &dir);
    let root = dir.join("runway.yaml");
    let text = std::fs::read_to_string(&root).unwrap();
    let arn =
        "registryCredentials: arn:aws:secretsmanager:us-east-1:123456789012:secret:acme/ghcr-pull-Q3xR7p";
    let (head, pdf_render) = text.split_once("\n  pdf-render:\n").expect("the example's pdf-render");
    assert!(
        pdf_render.split("\n  jobs-worker:\n").next().unwrap().contains(arn),
        "the example no longer names pdf-render's secret by ARN"
    );
    let pdf_render = pdf_render.replacen(arn, "registryCredentials: GHCR_PULL", 1);
    std::fs::write(&root, format!("{head}\n  pdf-render:\n{pdf_render}")).unwrap();
    dir
}

const REGISTRY_SECRET: &str = "acme-shop/dev/pdf-render/registry-credentials";

/// A private registry's credentials set in Infisical reach the secret the program looks up,
/// through `secrets prepare` and never through its output: unset, prepare stops (exit 1) naming
/// the two places to set, after everything else is done; set (one by an Infisical reference),
/// it writes `{"username","password"}` once; the canaries appear in no output.
#[test]
fn registry_credentials_are_copied_from_infisical_before_up_and_never_shown() {
    let Cloud { infisical, moto } = Cloud::start();
    let dir = example_with_infisical_registry("deploy-registry");
    let file = dir.join("runway.yaml");
    let file = file.to_str().unwrap();
    let run = |args: &[&str]| runway(&infisical.url(), &moto.url(), args);

    // The program looks the registry secret up by name, beside the proxy secret.
    let out = dir.join("program");
    let emit = run(&["emit", "pulumi", "--env", "dev", "--out", out.to_str().unwrap(), file]);
    assert_eq!(emit.code, 0, "{}", emit.stderr);
    let program = std::fs::read_to_string(out.join("Pulumi.yaml")).unwrap();
    assert_eq!(
        looked_up(&program, "aws:secretsmanager:getSecret"),
        [PROXY_SECRET, LOGIN_SECRETS[0], LOGIN_SECRETS[1], REGISTRY_SECRET]
    );
    assert!(program.contains("credentialsParameter: \"${pdf-render_registry-secret.arn}\""), "{program}");
    set_person_secret(&infisical);

    // Nobody has set them: everything else is prepared, then the command names what to set.
    let unset = run(&["secrets", "prepare", "--env", "dev", file]);
    assert_eq!(unset.code, 1, "{}{}", unset.stdout, unset.stderr);
    for place in ["dev:/runtime/pdf-render/GHCR_PULL_USERNAME", "dev:/runtime/pdf-render/GHCR_PULL_PASSWORD"]
    {
        assert!(unset.stderr.contains(place), "{}", unset.stderr);
    }
    assert!(unset.stderr.contains(&format!("not done: {REGISTRY_SECRET}")), "{}", unset.stderr);
    assert!(unset.stdout.contains(&format!("created   {PROXY_SECRET} (proxy copy)")), "{}", unset.stdout);
    assert_eq!(registry_state(&moto, "x", "y"), Action::Created, "nothing was written for the registry");

    // People set them (the token through an Infisical reference, expanded as syncs deliver it).
    let (user, token) = ("canary-user-5c1e9a", "canary-token-8d2f4b7a0e6c");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let client = secrets_adapter::Client::new(secrets_adapter::ClientConfig::new(
            infisical.url(),
            secrets_adapter::Auth::UniversalAuth {
                client_id: CLIENT_ID.into(),
                client_secret: SecretString::from(CLIENT_SECRET),
            },
        ))
        .unwrap();
        let folder = "/runtime/pdf-render";
        client.ensure_folder(PROJECT, "dev", folder).await.unwrap();
        for (name, value) in
            [("GHCR_PULL_USERNAME", user), ("GHCR_TOKEN", token), ("GHCR_PULL_PASSWORD", "${GHCR_TOKEN}")]
        {
            client.create_secret(PROJECT, "dev", folder, name, &SecretString::from(value)).await.unwrap();
        }
    });

    let dry = run(&["secrets", "prepare", "--env", "dev", "--dry-run", file]);
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(
        dry.stdout.contains(&format!("would create {REGISTRY_SECRET} (registry credentials of pdf-render)"))
    );
    assert_eq!(registry_state(&moto, user, token), Action::Created, "the dry run wrote the secret");

    let set = run(&["secrets", "prepare", "--env", "dev", file]);
    assert_eq!(set.code, 0, "{}", set.stderr);
    assert!(
        set.stdout.contains(&format!("created   {REGISTRY_SECRET} (registry credentials of pdf-render)"))
    );
    assert_eq!(
        registry_state(&moto, user, token),
        Action::Unchanged,
        "the pair ECS reads, reference expanded"
    );

    let again = run(&["secrets", "prepare", "--env", "dev", "--format", "json", file]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let report: Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(report["registryCopies"][0]["secret_name"], REGISTRY_SECRET);
    assert_eq!(report["registryCopies"][0]["action"], "unchanged");

    assert_no_secret(&[&emit, &unset, &dry, &set, &again], &[user, token]);
}
