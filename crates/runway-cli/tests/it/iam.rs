//! `runway iam` against what runway really calls: the deploy job's commands run against moto
//! with its request recording on (`MOTO_ENABLE_RECORDING`), and every recorded call, with the
//! resources it acts on and the tags they carry, must be allowed by the policy `runway iam`
//! prints for that environment; the same call on another environment's name is refused.
//!
//! Needs the workspace venv: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use deploy_policy::{PolicyDocument, Request, allows};
use serde_json::Value;
use test_support::{ContractServer, Moto, Scratch, scratch};

use crate::common::{self, Cloud, PROJECT, Run};

/// moto's account and the example's region.
const ACCOUNT: &str = "123456789012";
const REGION: &str = "us-east-1";

/// One recorded call: the signing service (IAM's prefix for these), the operation, and its
/// parameters (a JSON body, or a query form as `{key: value}`).
struct Call {
    service: String,
    operation: String,
    params: Value,
}

/// moto's recording as calls: the service from the signature's credential scope, the operation
/// from `X-Amz-Target` or the form's `Action`.
fn recorded(path: &std::path::Path) -> Vec<Call> {
    let script = format!(
        "import json, base64\nfrom urllib.parse import parse_qsl\nout = []\n\
         for line in open('{}'):\n\
         \x20   e = json.loads(line)\n\
         \x20   body = e.get('body') or ''\n\
         \x20   if e.get('body_encoded'): body = base64.b64decode(body).decode('utf-8', 'replace')\n\
         \x20   h = {{k.lower(): v for k, v in e['headers'].items()}}\n\
         \x20   auth = h.get('authorization', '')\n\
         \x20   if 'Credential=' not in auth: continue\n\
         \x20   service = auth.split('Credential=')[1].split(',')[0].split('/')[3]\n\
         \x20   target = h.get('x-amz-target', '')\n\
         \x20   if target:\n\
         \x20       out.append([service, target.rsplit('.', 1)[-1], json.loads(body or '{{}}')])\n\
         \x20   else:\n\
         \x20       form = dict(parse_qsl(body))\n\
         \x20       out.append([service, form.get('Action', ''), form])\n\
         print(json.dumps(out))",
        path.display()
    );
    let out = Command::new(test_support::python()).args(["-c", &script]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let calls: Vec<(String, String, Value)> = serde_json::from_slice(&out.stdout).unwrap();
    calls.into_iter().map(|(service, operation, params)| Call { service, operation, params }).collect()
}

fn arn(service: &str, rest: &str) -> String {
    format!("arn:aws:{service}:{REGION}:{ACCOUNT}:{rest}")
}

/// The ARNs IAM authorises `call` against (`*` for a call that names none), as the Service
/// Authorization Reference lists them for each operation runway makes.
fn resources(call: &Call) -> Vec<String> {
    let p = &call.params;
    let s = |k: &str| p[k].as_str().map(str::to_owned);
    let named: Vec<String> = match call.service.as_str() {
        "ssm" => {
            let mut names: Vec<String> = s("Name").or_else(|| s("ResourceId")).into_iter().collect();
            names.extend(
                p["Names"].as_array().into_iter().flatten().filter_map(|n| n.as_str().map(str::to_owned)),
            );
            names.iter().map(|n| arn("ssm", &format!("parameter{n}"))).collect()
        }
        "secretsmanager" => {
            s("SecretId")
                .or_else(|| s("Name"))
                .map(|n| {
                    if n.starts_with("arn:") {
                        n
                    } else {
                        arn("secretsmanager", &format!("secret:{n}-AbCdEf"))
                    }
                })
                .into_iter()
                .collect()
        }
        "kms" => match call.operation.as_str() {
            "CreateKey" => Vec::new(),
            "CreateAlias" => vec![arn("kms", &s("AliasName").unwrap()), arn("kms", "key/the-new-key")],
            _ => vec![arn("kms", "key/the-environments-key")],
        },
        "ecs" => {
            let cluster = s("cluster").unwrap_or_default();
            let mut out: Vec<String> = Vec::new();
            for svc in p["services"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .chain(s("service").as_deref())
            {
                out.push(arn("ecs", &format!("service/{cluster}/{svc}")));
            }
            for task in p["tasks"].as_array().into_iter().flatten().filter_map(Value::as_str) {
                out.push(if task.starts_with("arn:") {
                    task.to_owned()
                } else {
                    arn("ecs", &format!("task/{cluster}/{task}"))
                });
            }
            if call.operation == "RunTask" {
                let td = s("taskDefinition").unwrap();
                out.push(if td.starts_with("arn:") {
                    td
                } else {
                    arn("ecs", &format!("task-definition/{td}"))
                });
            }
            out
        }
        "rds" => {
            [("DBInstanceIdentifier", "db"), ("DBClusterIdentifier", "cluster"), ("DBProxyName", "db-proxy")]
                .iter()
                .filter_map(|(k, kind)| s(k).map(|v| arn("rds", &format!("{kind}:{v}"))))
                .collect()
        }
        "elasticache" => s("ReplicationGroupId")
            .map(|v| arn("elasticache", &format!("replicationgroup:{v}")))
            .into_iter()
            .collect(),
        _ => Vec::new(),
    };
    if named.is_empty() { vec!["*".to_owned()] } else { named }
}

/// The tags of the request (`aws:RequestTag/...`, from its `Tags`) and those of the key it
/// acts on (`aws:ResourceTag/...`: the tags runway created the environment's key with).
fn context(call: &Call, key_tags: &BTreeMap<String, String>) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for tag in call.params["Tags"].as_array().into_iter().flatten() {
        let key = tag["TagKey"].as_str().or(tag["Key"].as_str()).unwrap_or_default();
        let value = tag["TagValue"].as_str().or(tag["Value"].as_str()).unwrap_or_default();
        out.insert(format!("aws:RequestTag/{key}"), vec![value.to_owned()]);
    }
    if call.service == "kms" {
        for (k, v) in key_tags {
            out.insert(format!("aws:ResourceTag/{k}"), vec![v.clone()]);
        }
    }
    out
}

/// moto (recording every request) and the Infisical contract server, with a copy of the
/// example whose person-set secret is in Infisical.
struct Account {
    moto: Moto,
    infisical: ContractServer,
    dir: Scratch,
    file: PathBuf,
}

impl Account {
    fn new(name: &str, moto_variables: &[(&str, &str)]) -> Account {
        let dir = scratch(name);
        test_support::copy_dir(&test_support::example("acme-shop"), dir.path());
        let file = dir.path().join("runway.yaml");
        let recording = dir.path().join("moto-recording.jsonl");
        let mut variables =
            vec![("MOTO_ENABLE_RECORDING", "1"), ("MOTO_RECORDER_FILEPATH", recording.to_str().unwrap())];
        variables.extend_from_slice(moto_variables);
        let Cloud { infisical, moto } = Cloud::start_with(&variables);
        common::set_in_infisical(&infisical.url(), PROJECT, common::PERSON_PLACE, "set-by-a-person");
        Account { moto, infisical, dir, file }
    }

    /// `runway ARGS RUNWAY_FILE` against this moto and Infisical only.
    fn run(&self, args: &[&str]) -> Run {
        let mut cmd = common::cloud_command(&self.infisical.url(), &self.moto.url(), "runway-iam-test-home");
        Run::of_utf8(cmd.args(args).arg(&self.file))
    }

    fn recording(&self) -> PathBuf {
        self.dir.path().join("moto-recording.jsonl")
    }

    /// Forgets what moto recorded so far (calls made in `pulumi up`'s place, not runway's).
    fn forget(&self) {
        std::fs::write(self.recording(), "").unwrap();
    }

    /// Python with boto3 against this moto.
    fn python(&self, code: &str) {
        self.moto.python(&format!("import boto3\n{code}"), &[]);
    }

    /// `tools/simulate_up.py PROGRAM OUTPUTS --ecs FLAGS` against this moto: its report.
    fn simulate_up(&self, program: &std::path::Path, outputs: &std::path::Path, flags: &[&str]) -> Value {
        let out = common::simulate_up(&self.moto, program, outputs, flags);
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// The dev policy `runway iam` prints for moto's account.
    fn policy(&self) -> Vec<PolicyDocument> {
        let iam = self.run(&["iam", "--env", "dev", "--account", ACCOUNT]);
        assert_eq!(iam.code, 0, "{}", iam.stderr);
        let role: Value = serde_json::from_str(&iam.stdout).unwrap();
        role["policies"].as_array().unwrap().iter().map(|p| document(&p["document"])).collect()
    }

    /// Asserts every call moto recorded is allowed by the dev policy; returns the calls and the
    /// actions seen.
    fn assert_recorded_calls_allowed(&self, key_tags: &BTreeMap<String, String>) -> (Vec<Call>, Vec<String>) {
        let docs = self.policy();
        let docs: Vec<&PolicyDocument> = docs.iter().collect();
        let calls = recorded(&self.recording());
        let mut operations = Vec::new();
        for call in &calls {
            let request = Request {
                action: format!("{}:{}", call.service, call.operation),
                resources: resources(call),
                context: context(call, key_tags),
            };
            assert!(allows(&docs, &request), "runway iam does not allow a recorded call: {request:?}");
            operations.push(request.action);
        }
        operations.sort();
        operations.dedup();
        (calls, operations)
    }
}

/// The environment's key's tags, as `secrets prepare` created it.
fn key_tags(calls: &[Call]) -> BTreeMap<String, String> {
    let mut tags = BTreeMap::new();
    for call in calls.iter().filter(|c| c.operation == "CreateKey") {
        for tag in call.params["Tags"].as_array().into_iter().flatten() {
            tags.insert(
                tag["TagKey"].as_str().unwrap().to_owned(),
                tag["TagValue"].as_str().unwrap().to_owned(),
            );
        }
    }
    tags
}

fn assert_seen(operations: &[String], expected: &[&str]) {
    for e in expected {
        assert!(operations.iter().any(|o| o == e), "{e} was recorded: {operations:?}");
    }
}

#[test]
fn every_call_the_deploy_commands_make_against_moto_is_allowed_by_runway_iam() {
    let account = Account::new("iam-recorded", &[]);
    let prepare = account.run(&["secrets", "prepare", "--env", "dev"]);
    assert_eq!(prepare.code, 0, "{}", prepare.stderr);
    assert_eq!(account.run(&["ssm", "publish", "--env", "dev"]).code, 0);
    // The program's parameters do not exist (no `pulumi up` here): verify says so, exit 1.
    assert_eq!(account.run(&["ssm", "verify", "--env", "dev"]).code, 1);

    let tags = key_tags(&recorded(&account.recording()));
    assert_eq!(tags.get("environment").map(String::as_str), Some("dev"), "{tags:?}");
    let (calls, operations) = account.assert_recorded_calls_allowed(&tags);
    assert_seen(
        &operations,
        &[
            "ssm:PutParameter",
            "ssm:DescribeParameters",
            "kms:CreateKey",
            "kms:CreateAlias",
            "secretsmanager:CreateSecret",
        ],
    );

    // The same calls on the production environment's names are refused.
    let docs = account.policy();
    let docs: Vec<&PolicyDocument> = docs.iter().collect();
    let put = calls.iter().find(|c| c.operation == "PutParameter").unwrap();
    let mut other = Request {
        action: "ssm:PutParameter".into(),
        resources: resources(put)
            .iter()
            .map(|r| r.replace("/acme-shop/dev/", "/acme-shop/production/"))
            .collect(),
        context: BTreeMap::new(),
    };
    assert!(!allows(&docs, &other), "{other:?}");
    other.action = "secretsmanager:PutSecretValue".into();
    other.resources = vec![arn("secretsmanager", "secret:acme-shop/production/main-db/proxy-admin-AbCdEf")];
    assert!(!allows(&docs, &other), "{other:?}");
}

#[test]
fn migrate_rollout_and_rotations_against_moto_call_only_what_runway_iam_allows() {
    let account = Account::new("iam-recorded-rotate", &[("MOTO_ECS_SERVICE_RUNNING", "1")]);
    let program = account.dir.path().join("program");
    assert_eq!(account.run(&["emit", "pulumi", "--env", "dev", "--out", program.to_str().unwrap()]).code, 0);
    assert_eq!(account.run(&["secrets", "prepare", "--env", "dev"]).code, 0);
    let tags = key_tags(&recorded(&account.recording()));
    // `pulumi up`'s place: the services, and the database and cache it would create.
    let outputs = account.dir.path().join("outputs.json");
    let plan = account.run(&["plan", "--env", "dev", "--format", "json"]);
    let plan: Value = serde_json::from_str(&plan.stdout).unwrap();
    let values: serde_json::Map<String, Value> = plan["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let name = o["name"].as_str().unwrap();
            (name.to_owned(), Value::String(format!("value-of-{name}")))
        })
        .collect();
    std::fs::write(&outputs, Value::Object(values).to_string()).unwrap();
    // The deploy job's first `up` (no services), then `migrate` with its outputs.
    let first = account.simulate_up(&program, &outputs, &["--exclude-services"]);
    let mut stack: serde_json::Map<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(&outputs).unwrap()).unwrap();
    stack.extend(first["outputs"].as_object().unwrap().clone());
    std::fs::write(&outputs, Value::Object(stack).to_string()).unwrap();
    account.forget();
    let migrate =
        account.run(&["migrate", "--env", "dev", "--interval", "1s", "--outputs", outputs.to_str().unwrap()]);
    assert_eq!(migrate.code, 0, "{}{}", migrate.stdout, migrate.stderr);
    let (_, operations) = account.assert_recorded_calls_allowed(&tags);
    assert_seen(
        &operations,
        &["ecs:RunTask", "ecs:DescribeTasks", "rds:DescribeDBProxyTargets", "ssm:GetParameters"],
    );
    // The full `up`, and the database and cache it would create.
    account.simulate_up(&program, &outputs, &[]);
    account.python(
        "boto3.client('rds', region_name='us-east-1').create_db_instance(DBInstanceIdentifier='acme-shop-dev-main-db', \
         Engine='postgres', DBInstanceClass='db.t4g.micro', MasterUsername='runway', MasterUserPassword='x' * 32, \
         AllocatedStorage=20)\n\
         boto3.client('elasticache', region_name='us-east-1').create_replication_group(ReplicationGroupId=\
         'acme-shop-dev-sessions', ReplicationGroupDescription='runway', Engine='valkey', CacheNodeType=\
         'cache.t4g.micro', NumCacheClusters=1, TransitEncryptionEnabled=True, AuthToken='x' * 64)",
    );
    account.forget();

    let wait = ["--interval", "1s", "--timeout", "60s"];
    let rollout = account.run(&[&["rollout", "--env", "dev"][..], &wait].concat());
    assert_eq!(rollout.code, 0, "{}{}", rollout.stdout, rollout.stderr);
    let db = account.run(&[&["rotate", "--env", "dev", "main-db"][..], &wait].concat());
    assert_eq!(db.code, 0, "{}{}", db.stdout, db.stderr);
    let cache = account.run(&[&["rotate", "--env", "dev", "sessions"][..], &wait].concat());
    assert_eq!(cache.code, 0, "{}{}", cache.stdout, cache.stderr);
    assert_eq!(account.run(&["ssm", "publish", "--env", "dev"]).code, 0);

    let (_, operations) = account.assert_recorded_calls_allowed(&tags);
    assert_seen(
        &operations,
        &[
            "ecs:DescribeServices",
            "ecs:DescribeTaskDefinition",
            "rds:ModifyDBInstance",
            "rds:DescribeDBInstances",
            "elasticache:ModifyReplicationGroup",
            "secretsmanager:PutSecretValue",
            "ssm:PutParameter",
        ],
    );
}

/// A document printed by `runway iam`, read back into the matcher's types.
fn document(v: &Value) -> PolicyDocument {
    let strings = |v: &Value| -> Vec<String> {
        v.as_array().into_iter().flatten().filter_map(|s| s.as_str().map(str::to_owned)).collect()
    };
    let statements = v["Statement"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let mut st =
                deploy_policy::Statement::allow(s["Sid"].as_str().unwrap(), &[], strings(&s["Resource"]));
            st.action = strings(&s["Action"]);
            for (op, keys) in s["Condition"].as_object().into_iter().flatten() {
                for (key, values) in keys.as_object().unwrap() {
                    st.condition.entry(op.clone()).or_default().insert(key.clone(), strings(values));
                }
            }
            st
        })
        .collect();
    PolicyDocument::new(statements)
}

#[test]
fn malformed_accounts_and_repositories_are_usage_errors() {
    let example = test_support::example("acme-shop").join("runway.yaml");
    let example = example.to_str().unwrap();
    let (code, _, err) = common::runway(&["iam", "--env", "dev", "--account", "12345", example]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("twelve digits"), "{err}");
    let (code, _, err) = common::runway(&["iam", "--env", "dev", "--github-repo", "acme", example]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("owner/name"), "{err}");
    let (code, _, err) = common::runway(&["iam", "--env", "nowhere", example]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn the_pulumi_format_declares_the_role_its_trust_and_the_json_s_documents() {
    let example = test_support::example("acme-shop").join("runway.yaml");
    let example = example.to_str().unwrap();
    let args = ["iam", "--env", "production", "--github-repo", "acme/shop", "--github-environment", "prod"];
    let (code, json, err) = common::runway(&[&args[..], &[example]].concat());
    assert_eq!(code, 0, "{err}");
    let (code, yaml, err) = common::runway(&[&args[..], &["--format", "pulumi", example]].concat());
    assert_eq!(code, 0, "{err}");
    let out = Command::new(test_support::python())
        .args(["-c", "import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read())))"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(yaml.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let snippet: Value = serde_json::from_slice(&out.stdout).unwrap();
    let role: Value = serde_json::from_str(&json).unwrap();
    let name = role["roleName"].as_str().unwrap();
    assert_eq!(name, "runway-deploy-acme-shop-production");
    let resources = &snippet["resources"];
    assert_eq!(resources[name]["type"], "aws:iam/role:Role");
    let trust: Value =
        serde_json::from_str(resources[name]["properties"]["assumeRolePolicy"].as_str().unwrap()).unwrap();
    assert_eq!(trust, role["trustPolicy"]);
    assert_eq!(
        trust["Statement"][0]["Condition"]["StringEquals"]["token.actions.githubusercontent.com:sub"][0],
        "repo:acme/shop:environment:prod"
    );
    let policies = role["policies"].as_array().unwrap();
    assert!(policies.len() >= 2, "production needs more than one policy: {}", policies.len());
    for policy in policies {
        let id = policy["name"].as_str().unwrap();
        assert_eq!(resources[id]["type"], "aws:iam/policy:Policy");
        let document: Value =
            serde_json::from_str(resources[id]["properties"]["policy"].as_str().unwrap()).unwrap();
        assert_eq!(document, policy["document"]);
        let attachment = &resources[format!("{id}-attachment").as_str()];
        assert_eq!(attachment["properties"]["policyArn"], format!("${{{id}.arn}}"));
        assert_eq!(attachment["properties"]["role"], format!("${{{name}.name}}"));
    }
    assert_eq!(
        snippet["variables"]["aws-account-id"]["fn::invoke"]["function"],
        "aws:index:getCallerIdentity"
    );
    assert!(json.contains("${aws-account-id}"), "the placeholder without --account");
}
