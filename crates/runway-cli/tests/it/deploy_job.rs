//! `runway deploy --env dev` end to end: the real binary against moto, the Infisical contract
//! server and the Pulumi stand-in (`tools/pulumi_standin.py`, first on PATH as `pulumi`), on a
//! scratch copy of `examples/acme-shop`; the image registries point at a closed loopback port
//! (preflight then warns that it could not read them), so nothing leaves the machine.
//!
//! Needs the workspace venv: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::BufRead;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use test_support::contract::{CLIENT_ID, CLIENT_SECRET};
use test_support::{ContractServer, FaultProxy, Faults, Moto, Scratch, scratch};

use crate::common::{self, PROJECT, Run};

/// Metabase's own secret, set by a person in Infisical: a canary.
const PERSON_SET: &str = "set-by-a-person-canary-51c8e2";
/// The lease the tests run with (renewed every second).
const LEASE: &str = "3s";

const STEPS: [&str; 11] = [
    "preflight",
    "secrets-prepare",
    "emit",
    "up-without-services",
    "stack-outputs",
    "migrate",
    "up",
    "rollout",
    "secrets-publish",
    "ssm-publish",
    "ssm-verify",
];

/// An account, an Infisical and a product to deploy, with what a person does once: the ECS
/// service-linked role, the workload secret set in Infisical, the stack made.
pub(crate) struct World {
    pub(crate) infisical: ContractServer,
    pub(crate) moto: Moto,
    pub(crate) dir: Scratch,
    pub(crate) bin: PathBuf,
    /// Where runway's AWS calls go: moto, or a recorder in front of it.
    pub(crate) aws: String,
}

/// What boto3 `script` (`boto3`, `json` and `sys` imported) printed against `moto`.
pub(crate) fn python(moto: &Moto, script: &str) -> String {
    String::from_utf8(moto.python(&format!("import boto3, json, sys\n{script}"), &[])).unwrap()
}

impl World {
    pub(crate) fn new(name: &str) -> World {
        World::with_infisical(name, &[])
    }

    /// [`World::new`] with the contract server given `infisical` arguments too (more
    /// environments: `--environment preview`).
    pub(crate) fn with_infisical(name: &str, infisical: &[&str]) -> World {
        let moto = Moto::start_with(&[("MOTO_ECS_SERVICE_RUNNING", "1")]);
        let mut flags = vec!["--project", PROJECT];
        flags.extend_from_slice(infisical);
        let infisical = ContractServer::start_with(&flags);
        let dir = scratch(name);
        test_support::copy_dir(&test_support::example("acme-shop"), &dir);
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let standin = test_support::workspace().join("tools/pulumi_standin.py");
        let script = format!(
            "#!/bin/sh\nexec '{}' '{}' \"$@\"\n",
            test_support::python().display(),
            standin.display()
        );
        let pulumi = bin.join("pulumi");
        std::fs::write(&pulumi, script).unwrap();
        let mut permissions = std::fs::metadata(&pulumi).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
        std::fs::set_permissions(&pulumi, permissions).unwrap();
        python(
            &moto,
            "boto3.client('iam').create_role(RoleName='AWSServiceRoleForECS', \
             Path='/aws-service-role/ecs.amazonaws.com/', AssumeRolePolicyDocument='{}')",
        );
        common::set_in_infisical(&infisical.url(), PROJECT, common::PERSON_PLACE, PERSON_SET);
        let aws = moto.url();
        let world = World { infisical, moto, dir, bin, aws };
        // Once per stack, as a person does: the program's folder and `pulumi stack init`.
        let stack = world.stack_dir();
        let emit = Run::of(
            common::command().args(["emit", "pulumi", "--env", "dev", "--out"]).arg(&stack).arg(world.file()),
        );
        assert_eq!(emit.code, 0, "{}", emit.stderr);
        let mut init = Command::new(world.bin.join("pulumi"));
        let init = world.env(&mut init).args(["stack", "init", "dev", "--cwd"]).arg(&stack).output().unwrap();
        assert!(init.status.success(), "{}", String::from_utf8_lossy(&init.stderr));
        world
    }

    pub(crate) fn file(&self) -> PathBuf {
        self.dir.join("runway.yaml")
    }

    fn stack_dir(&self) -> PathBuf {
        self.dir.join("infra/dev")
    }

    /// The test's settings only: AWS at moto, Infisical at the contract server, the stand-in
    /// first on PATH, the registries at a closed port.
    pub(crate) fn env<'c>(&self, cmd: &'c mut Command) -> &'c mut Command {
        for (k, _) in std::env::vars_os() {
            let k = k.to_string_lossy();
            if k.starts_with("AWS_") || k.starts_with("INFISICAL_") || k.starts_with("PULUMI_") {
                cmd.env_remove(&*k);
            }
        }
        let home = std::env::temp_dir().join("runway-deploy-job-test-home");
        let path = format!("{}:{}", self.bin.display(), std::env::var("PATH").unwrap_or_default());
        let closed = format!("http://127.0.0.1:{}", test_support::free_port());
        cmd.env("PATH", path)
            .env("NO_COLOR", "1")
            .env("AWS_ENDPOINT_URL", &self.aws)
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("AWS_REGION", "us-east-1")
            .env("AWS_DEFAULT_REGION", "us-east-1")
            .env("AWS_CONFIG_FILE", home.join("config"))
            .env("AWS_SHARED_CREDENTIALS_FILE", home.join("credentials"))
            .env("AWS_EC2_METADATA_DISABLED", "true")
            // moto answers Cost Explorer and Service Quotas with errors the SDK retries: at the
            // default 8 attempts each preflight waits out the whole call budget, 12 jobs over.
            .env("AWS_MAX_ATTEMPTS", "3")
            .env("INFISICAL_URL", self.infisical.url())
            .env("INFISICAL_CLIENT_ID", CLIENT_ID)
            .env("INFISICAL_CLIENT_SECRET", CLIENT_SECRET)
            .env(
                "RUNWAY_REGISTRY_ENDPOINTS",
                format!("docker.io={closed},ghcr.io={closed},public.ecr.aws={closed}"),
            )
    }

    /// `runway deploy --env dev --format json` as a command, in a process group of its own (so
    /// a kill takes Pulumi with it, as a CI runner's does).
    fn deploy(&self, holder: &str) -> Command {
        let mut cmd = Command::new(common::RUNWAY);
        self.env(&mut cmd);
        cmd.args([
            "deploy",
            "--env",
            "dev",
            "--format",
            "json",
            "--interval",
            "1s",
            "--rollout-timeout",
            "60s",
        ])
        .args(["--lease-duration", LEASE, "--holder", holder])
        .arg(self.file());
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        cmd
    }

    /// Runs a deploy to its end: its run and its JSON events.
    pub(crate) fn deploy_to_end(&self, holder: &str) -> (Run, Vec<Value>) {
        let run = Run::of_utf8(&mut self.deploy(holder));
        println!("$ runway deploy ({holder})\nexit {}\n{}{}", run.code, run.stdout, run.stderr);
        let events = run.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        (run, events)
    }

    /// Starts a deploy and kills its process group (SIGKILL) once `step` has started and run
    /// for a moment; gives what it printed.
    fn deploy_killed_at(&self, holder: &str, step: &str, after: Duration) -> String {
        let mut child = self.deploy(holder).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut seen = String::new();
        for line in stdout.lines() {
            let line = line.unwrap();
            seen.push_str(&line);
            seen.push('\n');
            let event: Value = serde_json::from_str(&line).unwrap();
            if event["step"] == step && event["status"] == "started" {
                std::thread::sleep(after);
                let killed = Command::new("kill")
                    .args(["-s", "KILL", "--", &format!("-{}", child.id())])
                    .status()
                    .unwrap();
                assert!(killed.success());
                break;
            }
        }
        let status = child.wait().unwrap();
        assert!(status.code().is_none(), "the deploy ended before it was killed at {step}:\n{seen}");
        seen
    }

    /// What the account and Infisical hold, as counts and versions (no value): KMS keys and
    /// aliases, secrets and their versions, parameters and their versions, task definition
    /// revisions, services, and Infisical's versions.
    fn state(&self) -> Value {
        let script = "\
kms, sm, ssm, ecs = (boto3.client(s) for s in ('kms', 'secretsmanager', 'ssm', 'ecs'))
secrets = {s['Name']: len(sm.list_secret_version_ids(SecretId=s['Name'])['Versions']) for s in sm.list_secrets()['SecretList']}
params = {}
for page in ssm.get_paginator('describe_parameters').paginate():
    params.update({p['Name']: p['Version'] for p in page['Parameters'] if '/runway/deploy/' not in p['Name']})
services = sorted(s for c in ecs.list_clusters()['clusterArns'] for s in ecs.list_services(cluster=c)['serviceArns'])
print(json.dumps({'keys': len(kms.list_keys()['Keys']),
    'aliases': sorted(a['AliasName'] for a in kms.list_aliases()['Aliases'] if not a['AliasName'].startswith('alias/aws/')),
    'secrets': secrets, 'parameters': params, 'taskDefinitions': sorted(ecs.list_task_definitions()['taskDefinitionArns']),
    'services': services}))";
        let mut state: Value = serde_json::from_str(&python(&self.moto, script)).unwrap();
        state["infisical"] = serde_json::to_value(self.infisical.versions()).unwrap();
        state
    }

    /// Every secret value Infisical holds (the generated credentials, the person's), as canaries.
    pub(crate) fn secrets(&self) -> Vec<String> {
        let mut values: Vec<String> =
            self.infisical.values().into_values().filter(|v| v.len() > 12 && !v.contains("${")).collect();
        values.push(PERSON_SET.to_owned());
        values
    }
}

fn summary(events: &[Value]) -> &Value {
    events.iter().find(|e| e["event"] == "summary").expect("a summary event")
}

fn statuses(summary: &Value) -> Vec<(String, String)> {
    summary["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["step"].as_str().unwrap().to_owned(), s["status"].as_str().unwrap().to_owned()))
        .collect()
}

pub(crate) fn assert_no_secret(text: &str, secrets: &[String]) {
    for s in secrets {
        assert!(!text.contains(s.as_str()), "a secret value was printed");
    }
}

/// From an empty account to every service running what the stack declared, in one command;
/// the JSON lists every step, ran, in the documented order; no value is printed; the lease is
/// gone at the end.
#[test]
fn a_deploy_from_an_empty_account_runs_every_step_in_order() {
    let world = World::new("deploy-job-empty");
    let (run, events) = world.deploy_to_end("first job");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let summary = summary(&events);
    assert_eq!(summary["status"], "complete", "{summary}");
    let expected: Vec<(String, String)> = STEPS.iter().map(|s| ((*s).to_owned(), "ran".to_owned())).collect();
    assert_eq!(statuses(summary), expected);
    assert!(summary["steps"].as_array().unwrap().iter().all(|s| s["seconds"].is_number()));
    assert_eq!(events[0]["event"], "lease");
    assert_eq!(events[0]["action"], "taken");
    // Pulumi's output was streamed under its step, and rollout found every service complete.
    assert!(run.stderr.contains("  | Updating (dev):"), "{}", run.stderr);
    assert!(run.stderr.contains("complete    metabase: acme-shop-dev-metabase:1"), "{}", run.stderr);
    assert!(run.stderr.contains("complete    jobs-worker: acme-shop-dev-jobs-worker:1"), "{}", run.stderr);
    assert!(run.stderr.contains("18 parameter(s) checked, 0 problem(s)"), "{}", run.stderr);
    let state = world.state();
    assert_eq!(state["keys"], 1, "{state:#}");
    // metabase, pdf-render and the worker jobs-worker.
    assert_eq!(state["services"].as_array().unwrap().len(), 3, "{state:#}");
    assert_no_secret(&run.stdout, &world.secrets());
    assert_no_secret(&run.stderr, &world.secrets());
    // Released: nothing holds the environment once the job is done.
    let lease = python(
        &world.moto,
        "print(len(boto3.client('ssm').get_parameters(Names=['/acme-shop/dev/runway/deploy/lease'])['Parameters']))",
    );
    assert_eq!(lease.trim(), "0");
}

/// A job killed (SIGKILL, Pulumi with it) at each step in turn, and the same command run again
/// each time: while the dead job's lease holds, a second deploy is refused naming it (exit 6);
/// once it expires the next job takes it over, cancels the stale Pulumi lock of an `up` it died
/// in, skips the `up`s already done and goes on; the end state is the clean deploy's, with
/// nothing made twice (keys, secret versions, parameter versions, task definitions, Infisical).
#[test]
fn killed_at_each_step_the_same_command_ends_where_a_clean_deploy_does() {
    let world = World::new("deploy-job-killed");
    let mut printed = String::new();
    for (i, step) in STEPS.iter().enumerate() {
        let holder = format!("job {i}");
        // The quick steps (under half a second here) are killed as they start, the others
        // in the middle of what they do.
        let quick = ["emit", "stack-outputs", "secrets-publish", "ssm-publish", "ssm-verify"];
        let after = if quick.contains(step) { Duration::ZERO } else { Duration::from_millis(400) };
        printed.push_str(&world.deploy_killed_at(&holder, step, after));
        if i == 0 {
            // The dead job's lease still holds: refused, naming it and when it ends.
            let (refused, events) = world.deploy_to_end("second job");
            assert_eq!(refused.code, 6, "{}", refused.stderr);
            assert!(
                refused.stderr.contains("another deploy holds /acme-shop/dev/runway/deploy/lease: job 0"),
                "{}",
                refused.stderr
            );
            assert_eq!(events[0]["action"], "refused");
            assert_eq!(events[0]["holder"], "job 0");
            assert!(events[0]["until"].as_str().unwrap().ends_with('Z'));
        }
        // The lease expires (nobody renews it).
        std::thread::sleep(Duration::from_secs(4));
    }
    let started = Instant::now();
    let (run, events) = world.deploy_to_end("last job");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(events[0]["action"], "taken-over", "{}", run.stdout);
    let summary = summary(&events);
    assert_eq!(summary["status"], "complete");
    // The `up`s were done for this program: skipped, and said so.
    assert_eq!(summary["skippedAsDone"], serde_json::json!(["up-without-services", "up"]), "{summary}");
    println!("the last run took {:?}", started.elapsed());
    let after_kills = world.state();

    let clean = World::new("deploy-job-clean");
    let (run_clean, _) = clean.deploy_to_end("clean job");
    assert_eq!(run_clean.code, 0, "{}", run_clean.stderr);
    let clean_state = clean.state();
    assert_eq!(after_kills["keys"], 1, "a second KMS key: {after_kills:#}");
    // Names differ only by moto's random suffixes and ids: compare the shapes.
    for key in ["aliases", "secrets", "parameters", "infisical"] {
        assert_eq!(after_kills[key], clean_state[key], "{key} differs from a clean deploy's");
    }
    let count = |v: &Value| v.as_array().unwrap().len();
    assert_eq!(count(&after_kills["taskDefinitions"]), count(&clean_state["taskDefinitions"]));
    assert_eq!(count(&after_kills["services"]), count(&clean_state["services"]));
    assert_no_secret(&printed, &world.secrets());
    assert_no_secret(&run.stdout, &world.secrets());
    assert_no_secret(&run.stderr, &world.secrets());
}

/// `--until` stops after a step and keeps the journal; `--from` starts at one, the earlier
/// ones reported skipped.
#[test]
fn until_and_from_split_the_job() {
    let world = World::new("deploy-job-split");
    let mut first = world.deploy("split job");
    first.args(["--until", "stack-outputs"]);
    let run = Run::of_utf8(&mut first);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let events: Vec<Value> = run.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let ran: Vec<String> = statuses(summary(&events)).into_iter().map(|(s, _)| s).collect();
    assert_eq!(ran, STEPS[..5]);
    let mut second = world.deploy("split job");
    second.args(["--from", "migrate"]);
    let run = Run::of_utf8(&mut second);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let events: Vec<Value> = run.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let steps = statuses(summary(&events));
    // The outputs are read again (the later steps need them, reads only); the rest is skipped.
    let before: Vec<&str> = steps[..5].iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(before, ["skipped", "skipped", "skipped", "skipped", "ran"]);
    assert!(steps[5..].iter().all(|(_, s)| s == "ran"), "{steps:?}");
}

/// `runway deploy --preview`, the pull request's run, on a stack never deployed: exit 0; every
/// call AWS saw (a recorder in front of moto) reads (`Get*`, `List*`, `Describe*`); no
/// write reached Infisical; no lease taken; and its file, Pulumi's preview JSON (every resource
/// to create), is what `runway diff --pulumi-preview` reads.
#[test]
fn a_preview_only_reads_and_its_file_feeds_the_review() {
    let mut world = World::new("deploy-job-preview");
    let proxy = FaultProxy::start(world.moto.port, Faults::NONE);
    world.aws = proxy.url();
    let before = world.infisical.requests().len();
    let mut cmd = world.deploy("preview job");
    cmd.arg("--preview");
    let run = Run::of_utf8(&mut cmd);
    println!("$ runway deploy --preview\nexit {}\n{}{}", run.code, run.stdout, run.stderr);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let events: Vec<Value> = run.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let steps = statuses(summary(&events));
    let ran = |s: &str| (s.to_owned(), "ran".to_owned());
    assert_eq!(steps, [ran("preflight"), ran("emit"), ran("preview")]);
    assert!(events.iter().all(|e| e["event"] != "lease"), "{}", run.stdout);

    let calls: Vec<Option<String>> = proxy.requests().into_iter().map(|s| s.operation).collect();
    // Preflight's reads went through the recorder (dev pins no account: no STS call).
    assert!(calls.contains(&Some("DescribeKey".to_owned())), "{calls:?}");
    let reads = ["Get", "List", "Describe"];
    for call in &calls {
        let op = call.as_deref().unwrap_or("(not an AWS operation)");
        assert!(reads.iter().any(|r| op.starts_with(r)), "a call that is not a read: {op} in {calls:?}");
    }
    let writes: Vec<(String, String)> = world.infisical.requests()[before..]
        .iter()
        .filter(|(m, p)| m != "GET" && !p.contains("/auth/"))
        .cloned()
        .collect();
    assert_eq!(writes, Vec::<(String, String)>::new(), "Infisical saw a write");
    let lease = python(
        &world.moto,
        "print(len(boto3.client('ssm').get_parameters(Names=['/acme-shop/dev/runway/deploy/lease'])['Parameters']))",
    );
    assert_eq!(lease.trim(), "0");

    // The default file, in the stack's folder: Pulumi's document, every resource created.
    let file = world.stack_dir().join(".runway-preview.json");
    let preview: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let steps = preview["steps"].as_array().unwrap();
    assert!(steps.len() > 10 && steps.iter().all(|s| s["op"] == "create"), "{preview:#}");
    assert!(steps.iter().any(|s| s["urn"].as_str().unwrap().contains("aws:rds/instance:Instance")));

    // The review reads it: the runway file committed, the work tree as the pull request's.
    common::git(&world.dir, &["init", "-q", "-b", "main"]);
    common::git(&world.dir, &["add", "runway.yaml"]);
    common::git(&world.dir, &["commit", "-q", "-m", "base"]);
    let arg = format!("dev={}", file.display());
    let review = Run::of_utf8(
        common::command()
            .args(["diff", "--base-ref", "HEAD", "--env", "dev", "--format", "markdown", "--pulumi-preview"])
            .arg(&arg)
            .arg("runway.yaml")
            .current_dir(&world.dir)
            .env("GIT_CEILING_DIRECTORIES", std::env::temp_dir()),
    );
    assert_eq!(review.code, 0, "{}", review.stderr);
    assert!(review.stdout.contains("What Pulumi would do"), "{}", review.stdout);
}
