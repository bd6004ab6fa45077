//! `runway preflight` against an account: moto's EC2 (subnets, route tables, NAT, endpoints,
//! groups), ACM (an imported certificate), IAM and KMS, with Service Quotas and Cost
//! Explorer's tags answered on loopback (moto has neither quota of the plan nor the tags), and
//! the loopback registry. A clean account passes; each problem of the issue is found.
//!
//! Needs the workspace venv: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::common::Run;
use serde_json::{Value, json};
use test_support::registry::{oci_index, oci_manifest};
use test_support::{CannedAws, CannedWeb, Moto, Route, Scratch};

use crate::common;

const METABASE: &str = "sha256:9f2b1c4e5d6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c";
const PDF: &str = "sha256:0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e";
const WORKER: &str = "sha256:7a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9";
const POSTGRES: &str = "sha256:57c72fd2a128e416c7fcc499958864df5301e940bca0a56f58fddf30ffc07777";
const ARN: &str = "arn:aws:secretsmanager:us-east-1:123456789012:secret:acme/ghcr-pull-Q3xR7p";

/// The example's images, all public here (pdf-render's and jobs-worker's credentials are the
/// other test's).
fn registry() -> CannedWeb {
    let mut routes = vec![
        oci_index("metabase/metabase", METABASE, &["linux/amd64"]),
        oci_index("docker/library/postgres", POSTGRES, &["linux/amd64", "linux/arm64"]),
    ];
    routes.extend(oci_manifest("acme/pdf-render", PDF, "arm64"));
    routes.extend(oci_manifest("acme/jobs-worker", WORKER, "arm64"));
    CannedWeb::start(routes)
}

/// The account as the deploy expects it; `broken` breaks it the way the reviews found.
/// Prints the stack settings (YAML) the test writes.
const ACCOUNT: &str = r#"
import boto3, json, datetime
from cryptography import x509
from cryptography.x509.oid import NameOID
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
c = lambda s: boto3.client(s, endpoint_url=ENDPOINT)
ec2 = c('ec2')
vpc = ec2.create_vpc(CidrBlock='10.0.0.0/16')['Vpc']['VpcId']
other = ec2.create_vpc(CidrBlock='10.1.0.0/16')['Vpc']['VpcId']
def subnet(cidr, zone, in_vpc=vpc):
    return ec2.create_subnet(VpcId=in_vpc, CidrBlock=cidr, AvailabilityZone=zone)['Subnet']['SubnetId']
pub_a, pub_b = subnet('10.0.0.0/24', 'us-east-1a'), subnet('10.0.1.0/24', 'us-east-1b')
priv_a, priv_b = subnet('10.0.10.0/24', 'us-east-1a'), subnet('10.0.11.0/24', 'us-east-1b')
bare = subnet('10.0.20.0/24', 'us-east-1b')
igw = ec2.create_internet_gateway()['InternetGateway']['InternetGatewayId']
ec2.attach_internet_gateway(InternetGatewayId=igw, VpcId=vpc)
public = ec2.create_route_table(VpcId=vpc)['RouteTable']['RouteTableId']
ec2.create_route(RouteTableId=public, DestinationCidrBlock='0.0.0.0/0', GatewayId=igw)
for s in (pub_a, pub_b):
    ec2.associate_route_table(RouteTableId=public, SubnetId=s)
eip = ec2.allocate_address(Domain='vpc')['AllocationId']
nat = ec2.create_nat_gateway(SubnetId=pub_a, AllocationId=eip)['NatGateway']['NatGatewayId']
private = ec2.create_route_table(VpcId=vpc)['RouteTable']['RouteTableId']
ec2.create_route(RouteTableId=private, DestinationCidrBlock='0.0.0.0/0', NatGatewayId=nat)
for s in (priv_a, priv_b):
    ec2.associate_route_table(RouteTableId=private, SubnetId=s)
isolated = ec2.create_route_table(VpcId=vpc)['RouteTable']['RouteTableId']
ec2.associate_route_table(RouteTableId=isolated, SubnetId=bare)
members = ec2.create_security_group(GroupName='members', Description='m', VpcId=vpc)['GroupId']
elsewhere = ec2.create_security_group(GroupName='elsewhere', Description='m', VpcId=other)['GroupId']

key = ec.generate_private_key(ec.SECP256R1())
name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CERT_NAME)])
now = datetime.datetime.now(datetime.timezone.utc)
cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=CERT_DAYS))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(CERT_NAME)]), critical=False)
        .sign(key, hashes.SHA256()))
arn = c('acm').import_certificate(
    Certificate=cert.public_bytes(serialization.Encoding.PEM),
    PrivateKey=key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption()))['CertificateArn']
if ECS_ROLE:
    c('iam').create_role(RoleName='AWSServiceRoleForECS', Path='/aws-service-role/ecs.amazonaws.com/',
                         AssumeRolePolicyDocument=json.dumps({'Version': '2012-10-17', 'Statement': []}))
kms = c('kms')
k = kms.create_key()['KeyMetadata']['KeyId']
kms.create_alias(AliasName='alias/runway/acme-shop/dev', TargetKeyId=k)
zone = c('route53').create_hosted_zone(Name=ZONE, CallerReference='preflight')['HostedZone']['Id']
names = {'priv_a': priv_a, 'priv_b': priv_b, 'pub_a': pub_a, 'pub_b': pub_b, 'bare': bare}
private = [names[n] for n in PRIVATE]
public = [names[n] for n in PUBLIC]
groups = [members] + ([elsewhere] if ELSEWHERE else [])
print(json.dumps({'config': {'acme-shop:vpcId': vpc, 'acme-shop:privateSubnetIds': private,
                  'acme-shop:publicSubnetIds': public, 'acme-shop:certificateArn': arn,
                  'acme-shop:memberSecurityGroupIds': groups,
                  'acme-shop:hostedZoneId': zone.split('/')[-1]}}))
"#;

/// How the account is set up.
struct Setup {
    cert_name: &'static str,
    cert_days: u32,
    ecs_role: bool,
    private: &'static [&'static str],
    public: &'static [&'static str],
    elsewhere: bool,
    zone: &'static str,
}

const CLEAN: Setup = Setup {
    cert_name: "*.dev.acme.example",
    cert_days: 365,
    ecs_role: true,
    private: &["priv_a", "priv_b"],
    public: &["pub_a", "pub_b"],
    elsewhere: false,
    zone: "dev.acme.example",
};

/// Sets the account up in moto; writes the stack settings into `dir` and returns their path.
fn account(moto: &Moto, dir: &Path, setup: &Setup) -> std::path::PathBuf {
    let list = |names: &[&str]| format!("{names:?}");
    let header = format!(
        "ENDPOINT = '{}'\nCERT_NAME = '{}'\nCERT_DAYS = {}\nECS_ROLE = {}\nPRIVATE = {}\nPUBLIC = {}\nELSEWHERE = {}\nZONE = '{}'\n",
        moto.url(),
        setup.cert_name,
        setup.cert_days,
        if setup.ecs_role { "True" } else { "False" },
        list(setup.private),
        list(setup.public),
        if setup.elsewhere { "True" } else { "False" },
        setup.zone,
    );
    let out = Command::new(test_support::python())
        .args(["-c", &format!("{header}{ACCOUNT}")])
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("AWS_DEFAULT_REGION", "us-east-1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // JSON is YAML: the stack settings as Pulumi reads them.
    let path = dir.join("Pulumi.dev.yaml");
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

/// Service Quotas and Cost Explorer's tags: `fargate` vCPUs as given, the rest plenty.
fn canned(fargate_vcpu: f64) -> CannedAws {
    let quota = |code: &str, value: f64| {
        Route::ok("GetServiceQuota", &json!({"Quota": {"QuotaCode": code, "Value": value}}).to_string())
            .when_body_has(code)
    };
    let tags: Vec<Value> = ["product", "environment", "resource"]
        .iter()
        .map(|k| json!({"TagKey": k, "Type": "UserDefined", "Status": "Active"}))
        .collect();
    CannedAws::start(vec![
        quota("L-3032A538", fargate_vcpu),
        quota("L-0263D0A3", 5.0),
        quota("L-7B6409FD", 40.0),
        quota("L-DFE45DF3", 300.0),
        Route::ok("ListCostAllocationTags", &json!({"CostAllocationTags": tags}).to_string()),
    ])
}

fn example(name: &str, edit: impl Fn(String) -> String) -> Scratch {
    let dir = test_support::scratch(name);
    test_support::copy_dir(&test_support::example("acme-shop"), &dir);
    let root = dir.join("runway.yaml");
    // pdf-render's and jobs-worker's images are public here: no credentials to read.
    let text = std::fs::read_to_string(&root).unwrap();
    let credentials = format!("    registryCredentials: {ARN}\n");
    assert_eq!(text.matches(&credentials).count(), 2, "pdf-render's and jobs-worker's");
    let text = text.replace(&credentials, "");
    std::fs::write(&root, edit(text)).unwrap();
    dir
}

fn preflight(
    dir: &Path,
    stack: &Path,
    moto: &Moto,
    canned: &CannedAws,
    registry: &CannedWeb,
) -> (Run, Value) {
    let url = registry.url();
    let mut cmd = common::aws_command(&moto.url(), "runway-preflight-account-home");
    cmd.env("RUNWAY_REGISTRY_ENDPOINTS", format!("docker.io={url},ghcr.io={url},public.ecr.aws={url}"))
        .env("AWS_ENDPOINT_URL_SERVICE_QUOTAS", canned.url())
        .env("AWS_ENDPOINT_URL_COST_EXPLORER", canned.url())
        .args(["preflight", "--env", "dev", "--format", "json", "--stack"])
        .arg(stack)
        .arg(dir.join("runway.yaml"));
    let started = Instant::now();
    let run = Run::of_utf8(&mut cmd);
    println!("exit {} in {:?}\n{}{}", run.code, started.elapsed(), run.stdout, run.stderr);
    let report = serde_json::from_str(&run.stdout).unwrap();
    (run, report)
}

/// `(check, subject, severity)` of every finding.
fn found(report: &Value) -> Vec<(String, String, String)> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["check"].as_str().unwrap().into(),
                f["subject"].as_str().unwrap().into(),
                f["severity"].as_str().unwrap().into(),
            )
        })
        .collect()
}

fn has(report: &Value, check: &str, severity: &str, text: &str) -> bool {
    report["findings"].as_array().unwrap().iter().any(|f| {
        f["check"] == check && f["severity"] == severity && f["message"].as_str().unwrap().contains(text)
    })
}

/// What each call moto recorded (into `file`) was: the `Action` of a query call, the operation
/// of a JSON call's `X-Amz-Target`, else `METHOD path` (a REST call such as Route 53's). The
/// recording's bodies are Base64; Python reads them.
const ACTIONS: &str = r#"
import base64, json, sys, urllib.parse
for line in open(sys.argv[1]):
    e = json.loads(line)
    body = base64.b64decode(e['body']).decode() if e['body_encoded'] else e['body']
    target = {k.lower(): v for k, v in e['headers'].items()}.get('x-amz-target')
    action = urllib.parse.parse_qs(body).get('Action', [None])[0]
    print(action or (target.rsplit('.', 1)[-1] if target else e['method'] + ' ' + e['url']))
"#;

fn recorded(file: &Path) -> Vec<String> {
    let out = Command::new(test_support::python()).args(["-c", ACTIONS]).arg(file).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(str::to_owned).collect()
}

#[test]
fn a_clean_account_passes_in_seconds() {
    let dir = example("preflight-account-clean", |t| t);
    let recording = dir.join("moto-recording");
    let moto = Moto::start_with(&[("MOTO_RECORDER_FILEPATH", recording.to_str().unwrap())]);
    let (registry, canned) = (registry(), canned(6.0));
    let stack = account(&moto, &dir, &CLEAN);
    let start = test_support::http(moto.port, "POST", "/moto-api/recorder/start-recording", "").unwrap();
    assert_eq!(start.status, 200, "{}", start.body);
    let started = Instant::now();
    let (run, report) = preflight(&dir, &stack, &moto, &canned, &registry);
    let took = started.elapsed();
    assert_eq!(found(&report), Vec::<(String, String, String)>::new(), "{report}");
    assert_eq!((run.code, report["verdict"].as_str()), (0, Some("ready")));
    assert!(took.as_secs() < 10, "preflight took {took:?}");
    // Only reads reached AWS: moto's recording and the canned endpoint.
    let read =
        |op: &String| ["Describe", "Get", "List"].iter().any(|p| op.starts_with(p)) || op.starts_with("GET ");
    let calls = recorded(&recording);
    for action in ["DescribeSubnets", "DescribeRouteTables", "DescribeCertificate", "GetRole", "DescribeKey"]
    {
        assert!(calls.iter().any(|c| c == action), "{action} not recorded: {calls:?}");
    }
    assert!(calls.iter().all(read), "{calls:?}");
    assert!(canned.asked().iter().all(read), "{:?}", canned.asked());
}

#[test]
fn each_problem_of_the_account_is_found() {
    let (moto, registry, canned) = (Moto::start(), registry(), canned(0.25));
    // The VPC's endpoints are `existing`, yet the VPC has none.
    let dir = example("preflight-account-broken", |t| {
        t.replace("network: { nat: 1 }", "network: { nat: 1, endpoints: existing }")
    });
    let setup = Setup {
        cert_name: "*.acme.example",
        cert_days: 10,
        ecs_role: false,
        private: &["priv_a", "priv_a", "pub_b"],
        public: &["pub_a", "pub_b"],
        elsewhere: true,
        zone: "acme.example",
    };
    let stack = account(&moto, &dir, &setup);
    let (run, report) = preflight(&dir, &stack, &moto, &canned, &registry);
    assert_eq!(run.code, 1);
    assert!(has(&report, "subnets", "error", "lists"), "a subnet twice");
    assert!(
        has(&report, "subnets", "error", "routes 0.0.0.0/0 to the internet gateway"),
        "a public subnet as private"
    );
    assert!(has(&report, "subnets", "error", "is both a private and a public subnet"));
    assert!(has(&report, "certificate", "error", "does not cover metabase.dev.acme.example"));
    assert!(
        has(&report, "certificate", "warning", "expires in 9 day(s)")
            || has(&report, "certificate", "warning", "expires in 10 day(s)")
    );
    assert!(has(&report, "ecs-role", "error", "AWSServiceRoleForECS"));
    assert!(has(&report, "quota", "error", "the quota Fargate On-Demand vCPU is 0.25; the plan needs"));
    assert!(has(&report, "endpoints", "error", "com.amazonaws.us-east-1.ecr.dkr"));
    assert!(has(&report, "security-groups", "error", "not in the stack's vpcId"));
    assert!(has(
        &report,
        "dns",
        "error",
        "serves acme.example, not the environment's domain dev.acme.example"
    ));
}

#[test]
fn private_subnets_without_a_route_out_or_in_one_zone_or_missing_are_errors() {
    let (moto, registry, canned) = (Moto::start(), registry(), canned(6.0));
    let dir = example("preflight-account-route", |t| t);
    let setup = Setup { private: &["bare", "priv_b"], public: &["pub_a"], ..CLEAN };
    let stack = account(&moto, &dir, &setup);
    let text = std::fs::read_to_string(&stack).unwrap();
    let mut settings: Value = serde_json::from_str(&text).unwrap();
    settings["config"]["acme-shop:publicSubnetIds"]
        .as_array_mut()
        .unwrap()
        .push(json!("subnet-0000000000000dead"));
    std::fs::write(&stack, settings.to_string()).unwrap();
    let (run, report) = preflight(&dir, &stack, &moto, &canned, &registry);
    assert_eq!(run.code, 1);
    assert!(
        has(
            &report,
            "subnets",
            "error",
            "has no route out of the VPC, but main-db-bootstrap, metabase, pdf-render, jobs-worker pull images"
        ),
        "{report}"
    );
    assert!(has(&report, "subnets", "error", "subnet-0000000000000dead of `publicSubnetIds` does not exist"));
    assert!(has(&report, "subnets", "error", "`publicSubnetIds` spans 1 zone(s)"));
}
