//! `runway iam` against what runway really calls: the deploy job's commands run against moto
//! with its request recording on (`MOTO_ENABLE_RECORDING`), and every recorded call, with the
//! resources it acts on and the tags they carry, must be allowed by the policy `runway iam`
//! prints for that environment; the same call on another environment's name is refused.
//!
//! Needs the workspace venv: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::collections::BTreeMap;
use std::process::Command;

use common::Run;
use deploy_policy::{PolicyDocument, Request, allows};
use serde_json::Value;
use test_support::contract::{CLIENT_ID, CLIENT_SECRET};
use test_support::{ContractServer, Moto, scratch};

mod common;

const PROJECT: &str = "3f6a1c2e-8b4d-4e21-9a7f-5c0d2e6b1a93";
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

#[test]
fn every_call_the_deploy_commands_make_against_moto_is_allowed_by_runway_iam() {
    let dir = scratch("iam-recorded");
    test_support::copy_dir(&test_support::example("acme-shop"), dir.path());
    let file = dir.path().join("runway.yaml");
    let recording = dir.path().join("moto-recording.jsonl");
    let moto = Moto::start_with(&[
        ("MOTO_ENABLE_RECORDING", "1"),
        ("MOTO_RECORDER_FILEPATH", recording.to_str().unwrap()),
    ]);
    let infisical = ContractServer::start_with(&["--project", PROJECT]);
    common::set_in_infisical(&infisical.url(), PROJECT, common::PERSON_PLACE, "set-by-a-person");
    let run = |args: &[&str]| {
        let mut cmd = common::aws_command(&moto.url(), "runway-iam-test-home");
        cmd.args(args)
            .arg(&file)
            .env("INFISICAL_URL", infisical.url())
            .env("INFISICAL_CLIENT_ID", CLIENT_ID)
            .env("INFISICAL_CLIENT_SECRET", CLIENT_SECRET)
            .env("AWS_REGION", REGION);
        Run::of_utf8(&mut cmd)
    };
    let prepare = run(&["secrets", "prepare", "--env", "dev"]);
    assert_eq!(prepare.code, 0, "{}", prepare.stderr);
    assert_eq!(run(&["ssm", "publish", "--env", "dev"]).code, 0);
    // The program's parameters do not exist (no `pulumi up` here): verify says so, exit 1.
    assert_eq!(run(&["ssm", "verify", "--env", "dev"]).code, 1);

    let iam = run(&["iam", "--env", "dev", "--account", ACCOUNT]);
    assert_eq!(iam.code, 0, "{}", iam.stderr);
    let role: Value = serde_json::from_str(&iam.stdout).unwrap();
    let docs: Vec<PolicyDocument> =
        role["policies"].as_array().unwrap().iter().map(|p| document(&p["document"])).collect();
    let docs: Vec<&PolicyDocument> = docs.iter().collect();

    let calls = recorded(&recording);
    let mut key_tags = BTreeMap::new();
    for call in calls.iter().filter(|c| c.operation == "CreateKey") {
        for tag in call.params["Tags"].as_array().into_iter().flatten() {
            key_tags.insert(
                tag["TagKey"].as_str().unwrap().to_owned(),
                tag["TagValue"].as_str().unwrap().to_owned(),
            );
        }
    }
    let mut operations = Vec::new();
    for call in &calls {
        let request = Request {
            action: format!("{}:{}", call.service, call.operation),
            resources: resources(call),
            context: context(call, &key_tags),
        };
        assert!(allows(&docs, &request), "runway iam does not allow a recorded call: {request:?}");
        operations.push(request.action);
    }
    operations.sort();
    operations.dedup();
    for expected in [
        "ssm:PutParameter",
        "ssm:DescribeParameters",
        "kms:CreateKey",
        "kms:CreateAlias",
        "secretsmanager:CreateSecret",
    ] {
        assert!(operations.iter().any(|o| o == expected), "{expected} was recorded: {operations:?}");
    }

    // The same calls on the production environment's names are refused.
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
