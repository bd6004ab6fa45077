//! A workload's own secrets (`secrets: [...]`) end to end: people set them in Infisical (the
//! contract server), `runway secrets prepare` and `runway ssm publish` copy them to their SSM
//! parameters under the environment's key (moto), and one nobody has set stops the command with
//! exit 1 naming its place, once everything else is done. No value is ever printed.
//!
//! Needs the workspace venv: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use serde_json::Value;
use test_support::Moto;

use crate::common::{self, Cloud, PERSON_PARAMETER, PERSON_PLACE, PROJECT, Run};

const PLACE: &str = "dev:/runtime/metabase/MB_ENCRYPTION_SECRET_KEY";

/// `runway ARGS <the example>` against `cloud`.
fn runway(cloud: &Cloud, args: &[&str]) -> Run {
    let file = test_support::example("acme-shop").join("runway.yaml");
    Run::logged(cloud.command("runway-workload-secrets-home").args(args).arg(file), args)
}

/// The parameter's value read back decrypted with boto3, with its key (the test's own reader),
/// or `None` when it does not exist.
fn ssm_parameter(moto: &Moto, name: &str) -> Option<(String, String)> {
    let read = "import boto3, json, sys\n\
                ssm = boto3.client('ssm', region_name='us-east-1')\n\
                try:\n\
                \x20   p = ssm.get_parameter(Name=sys.argv[1], WithDecryption=True)['Parameter']\n\
                except ssm.exceptions.ParameterNotFound:\n\
                \x20   print('null'); sys.exit(0)\n\
                m = ssm.describe_parameters(ParameterFilters=[{'Key': 'Name', 'Values': [sys.argv[1]]}])\n\
                print(json.dumps([p['Value'], m['Parameters'][0].get('KeyId')]))";
    serde_json::from_slice(&moto.python(read, &[name])).unwrap()
}

fn assert_no_value(runs: &[&Run], values: &[&str]) {
    for run in runs {
        for v in values {
            assert!(!run.stdout.contains(v) && !run.stderr.contains(v), "a value was printed");
        }
    }
}

/// Unset in Infisical, the secret stops `prepare` with exit 1 naming the project, its place and
/// its parameter, after the key, the credentials, the proxy copies and their parameters are
/// done (in a dry run too); `ssm publish` copies the rest and stops the same way. Set by a
/// person, `prepare` copies it under the environment's key (an Infisical reference expanded),
/// a second run leaves it alone, and a change is copied by `ssm publish`.
#[test]
fn an_unset_workload_secret_stops_prepare_after_the_rest_and_a_set_one_is_copied_blind() {
    let cloud = Cloud::start_with(&[("MOTO_ECS_SERVICE_RUNNING", "1")]);
    let (infisical, moto) = (&cloud.infisical, &cloud.moto);

    let dry = runway(&cloud, &["secrets", "prepare", "--env", "dev", "--dry-run"]);
    assert_eq!(dry.code, 1, "the real run would stop there");
    assert!(dry.stderr.contains(PLACE), "{}", dry.stderr);

    let unset = runway(&cloud, &["secrets", "prepare", "--env", "dev"]);
    assert_eq!(unset.code, 1, "{}", unset.stderr);
    assert!(unset.stderr.contains(&format!("Infisical (project {PROJECT})")), "{}", unset.stderr);
    assert!(
        unset
            .stderr
            .contains(&format!("`{PLACE}` (secret of workload `metabase`, copied to {PERSON_PARAMETER})")),
        "{}",
        unset.stderr
    );
    assert!(unset.stderr.contains(&format!("not written: {PERSON_PARAMETER}")), "{}", unset.stderr);
    // Everything else is done first: the key, the proxy copies, the credentials' parameters.
    for done in [
        "created   alias/runway/acme-shop/dev (the environment's KMS key)",
        "created   acme-shop/dev/main-db/proxy-admin (proxy copy)",
        "created   /acme-shop/dev/shared-cache/SHARED_CACHE_PASSWORD (ssm)",
    ] {
        assert!(unset.stdout.contains(done), "{done}\n{}", unset.stdout);
    }
    assert_eq!(ssm_parameter(moto, PERSON_PARAMETER), None);
    assert!(ssm_parameter(moto, "/acme-shop/dev/main-db/MAIN_DB_PASSWORD").is_some());

    let publish = runway(&cloud, &["ssm", "publish", "--env", "dev"]);
    assert_eq!(publish.code, 1, "{}", publish.stderr);
    assert!(
        publish.stdout.contains("unchanged /acme-shop/dev/main-db/MAIN_DB_PASSWORD"),
        "{}",
        publish.stdout
    );
    assert!(publish.stdout.contains(&format!("unset     {PERSON_PARAMETER}")), "{}", publish.stdout);
    assert!(publish.stderr.contains(PLACE), "{}", publish.stderr);
    let verify = runway(&cloud, &["ssm", "verify", "--env", "dev"]);
    assert_eq!(verify.code, 1, "{}", verify.stdout);
    assert!(verify.stdout.contains(&format!("missing    {PERSON_PARAMETER}")), "{}", verify.stdout);

    // A person sets it, through an Infisical reference to another secret of the folder.
    let canary = "canary-workload-secret-6f2a9d4c1b8e";
    let (env, folder, _) = PERSON_PLACE;
    common::set_in_infisical(&infisical.url(), PROJECT, (env, folder, "MB_KEY_SOURCE"), canary);
    common::set_in_infisical(&infisical.url(), PROJECT, PERSON_PLACE, "${MB_KEY_SOURCE}");
    let set = runway(&cloud, &["secrets", "prepare", "--env", "dev", "--format", "json"]);
    assert_eq!(set.code, 0, "{}", set.stderr);
    let report: Value = serde_json::from_str(&set.stdout).unwrap();
    assert_eq!(report["workloadSecrets"]["parameters"][0]["name"], PERSON_PARAMETER);
    assert_eq!(report["workloadSecrets"]["parameters"][0]["action"], "created");
    let (value, key) = ssm_parameter(moto, PERSON_PARAMETER).unwrap();
    assert_eq!(value, canary, "the reference expanded, as Infisical's syncs deliver it");
    let env_key = ssm_parameter(moto, "/acme-shop/dev/main-db/MAIN_DB_PASSWORD").unwrap().1;
    assert_eq!(key, env_key, "under the environment's key, as the credentials");

    let again = runway(&cloud, &["secrets", "prepare", "--env", "dev"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(
        again.stdout.contains(&format!("unchanged {PERSON_PARAMETER} (ssm, workload secret)")),
        "{}",
        again.stdout
    );

    let changed = format!("{canary}-changed");
    common::set_in_infisical(&infisical.url(), PROJECT, PERSON_PLACE, &changed);
    let copied = runway(&cloud, &["ssm", "publish", "--env", "dev"]);
    assert_eq!(copied.code, 0, "{}", copied.stderr);
    assert!(
        copied.stdout.contains(&format!("updated   {PERSON_PARAMETER} (value differs)")),
        "{}",
        copied.stdout
    );
    assert_eq!(ssm_parameter(moto, PERSON_PARAMETER).unwrap().0, changed);
    assert_no_value(&[&dry, &unset, &publish, &verify, &set, &again, &copied], &[canary]);
}
