//! Nothing extra under faults or concurrency: the part of the deploy job that runs without
//! Pulumi (`secrets prepare`, `secrets publish`, `ssm publish`) through a proxy that loses
//! answers and fails requests ([`FaultProxy`], seeded) in front of moto and of the Infisical
//! contract server converges in at most three runs, with one KMS key and one version of every
//! secret; and three `secrets prepare` started at once leave one key, the others scheduled for
//! deletion and reported.
//!
//! Needs the workspace venv: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;

use test_support::{FaultProxy, Faults, Moto, scratch};

use crate::common::{self, Cloud, PROJECT, Run};

const RATE: f64 = 0.37;
const SEEDS: [u64; 4] = [1, 2, 3, 4];

fn runway(infisical: &str, aws: &str, args: &[&str]) -> Run {
    Run::logged(common::cloud_command(infisical, aws, "runway-faults-test-home").args(args), args)
}

/// The example's dev outputs, as `pulumi stack output --json --show-secrets` gives them.
fn outputs_file(file: &str, dir: &Path) -> std::path::PathBuf {
    common::dev_outputs(Path::new(file), dir, |name| format!("value-of-{name}"))
}

/// The job's steps in the documented order, stopping at the first that fails; whether all
/// succeeded.
fn job(infisical: &str, aws: &str, file: &str, outputs: &Path) -> bool {
    let steps: [&[&str]; 3] = [
        &["secrets", "prepare", "--env", "dev", file],
        &["secrets", "publish", "--env", "dev", "--outputs", outputs.to_str().unwrap(), file],
        &["ssm", "publish", "--env", "dev", file],
    ];
    steps.iter().all(|args| {
        let run = runway(infisical, aws, args);
        assert!(
            run.code == 0 || run.code == 4,
            "{args:?}: only remote failures are expected\n{}",
            run.stderr
        );
        run.code == 0
    })
}

/// moto's KMS keys, as `(key id, state)`, read with boto3.
fn keys(moto: &Moto) -> Vec<(String, String)> {
    let script = "import boto3, json\n\
                  k = boto3.client('kms', region_name='us-east-1')\n\
                  out = []\n\
                  for key in k.list_keys()['Keys']:\n\
                  \x20   m = k.describe_key(KeyId=key['KeyId'])['KeyMetadata']\n\
                  \x20   out.append([m['KeyId'], m['KeyState']])\n\
                  print(json.dumps(out))";
    serde_json::from_slice(&moto.python(script, &[])).unwrap()
}

fn enabled(keys: &[(String, String)]) -> Vec<&str> {
    keys.iter().filter(|(_, state)| state == "Enabled").map(|(id, _)| id.as_str()).collect()
}

#[test]
fn the_job_converges_in_three_runs_at_37_percent_faults_with_nothing_extra() {
    let example = test_support::example("acme-shop").join("runway.yaml");
    let file = example.to_str().unwrap();
    let dir = scratch("faults-job");
    let outputs = outputs_file(file, &dir);
    let mut measured = Vec::new();
    for seed in SEEDS {
        let Cloud { infisical, moto } = Cloud::start();
        common::set_in_infisical(&infisical.url(), PROJECT, common::PERSON_PLACE, "set-by-a-person-5e2a");
        let aws = FaultProxy::start(moto.port, Faults { rate: RATE, seed });
        let vault = FaultProxy::start(infisical.port, Faults { rate: RATE, seed: seed + 1000 });
        let mut runs = 0;
        while !job(&vault.url(), &aws.url(), file, &outputs) {
            runs += 1;
            assert!(runs < 3, "seed {seed}: not done after {runs} runs");
        }
        runs += 1;
        let faults =
            |p: &FaultProxy| p.requests().iter().filter(|s| s.fate != test_support::Fate::Relayed).count();
        measured.push((seed, runs, faults(&aws), faults(&vault)));
        // Nothing extra: one enabled key, and every secret at its first version.
        let keys = keys(&moto);
        assert_eq!(enabled(&keys).len(), 1, "seed {seed}: {keys:?}");
        let versions = infisical.versions();
        assert!(versions.values().all(|v| *v == 1), "seed {seed}: a second version: {versions:?}");
        // Converged: one more run without faults changes nothing.
        aws.set_rate(0.0);
        vault.set_rate(0.0);
        assert!(job(&vault.url(), &aws.url(), file, &outputs));
        assert_eq!(infisical.versions(), versions, "seed {seed}");
        assert_eq!(enabled(&self::keys(&moto)).len(), 1);
    }
    println!("(seed, runs, AWS faults, Infisical faults): {measured:?}");
}

#[test]
fn three_prepares_at_once_leave_one_key_and_report_the_others() {
    let Cloud { infisical, moto } = Cloud::start();
    common::set_in_infisical(&infisical.url(), PROJECT, common::PERSON_PLACE, "set-by-a-person-5e2a");
    let example = test_support::example("acme-shop").join("runway.yaml");
    let file = example.to_str().unwrap();
    let runs: Vec<Run> = std::thread::scope(|s| {
        let started: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    runway(&infisical.url(), &moto.url(), &["secrets", "prepare", "--env", "dev", file])
                })
            })
            .collect();
        started.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let keys = keys(&moto);
    let kept = enabled(&keys);
    assert_eq!(kept.len(), 1, "{keys:?}");
    let reported: Vec<String> = runs
        .iter()
        .flat_map(|r| {
            r.stdout
                .lines()
                .filter_map(|l| l.split("KMS key ").nth(1))
                .map(|l| l.split(',').next().unwrap().to_owned())
        })
        .collect();
    // Every key made besides the one kept is scheduled for deletion, and was reported.
    for (id, state) in &keys {
        if id != kept[0] {
            assert_eq!(state, "PendingDeletion", "{keys:?}");
            assert!(reported.contains(id), "{id} not reported: {reported:?}");
        }
    }
    // One value per credential: every run that failed did so only remotely, and a rerun is clean.
    assert!(
        runs.iter().all(|r| r.code == 0 || r.code == 4),
        "{:?}",
        runs.iter().map(|r| r.code).collect::<Vec<_>>()
    );
    let again = runway(&infisical.url(), &moto.url(), &["secrets", "prepare", "--env", "dev", file]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(infisical.versions().values().all(|v| *v == 1), "{:?}", infisical.versions());
    assert_eq!(enabled(&self::keys(&moto)), kept);
}
