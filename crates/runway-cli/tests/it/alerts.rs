//! The alerts topic's HTTPS endpoints (`alerts.https`) end to end: the real `runway` binary
//! against the Infisical contract server and moto. Each endpoint is a secret people set in
//! Infisical; `secrets prepare` copies it to the SSM SecureString the program reads, stops with
//! exit 1 naming each one unset (after everything else), and never prints a URL.
//!
//! Needs the workspace venv: `cargo xtask venv` once (or set `RUNWAY_PYTHON`).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use test_support::{Moto, scratch};

use crate::common::{self, Cloud, PROJECT, Run};

/// The endpoint's parameter and its place in Infisical.
const PARAMETER: &str = "/acme-shop/dev/_alerts/PAGERDUTY_URL";
const PLACE: &str = "dev:/runtime/_alerts/PAGERDUTY_URL";
/// A pager's URL: it carries an integration key, so it must never be printed.
const URL: &str = "https://events.pagerduty.example/integration/canary-3b9f1d7e/enqueue";

fn runway(cloud: &Cloud, args: &[&str]) -> Run {
    Run::logged(cloud.command("runway-alerts-test-home").args(args), args)
}

/// The value SSM holds at `name`, read back decrypted with boto3 (the test's own reader).
fn ssm_value(moto: &Moto, name: &str) -> String {
    let read = "import boto3, sys\n\
                p = boto3.client('ssm', region_name='us-east-1').get_parameter(Name=sys.argv[1], WithDecryption=True)\n\
                sys.stdout.write(p['Parameter']['Value'] + '|' + p['Parameter']['Type'])";
    String::from_utf8(moto.python(read, &[name])).unwrap()
}

#[test]
fn alerts_endpoints_are_copied_from_infisical_by_prepare_and_never_shown() {
    let cloud = Cloud::start();
    let (infisical, moto) = (&cloud.infisical, &cloud.moto);
    let dir = scratch("alerts-https");
    test_support::copy_dir(&test_support::example("acme-shop"), &dir);
    let root = dir.join("runway.yaml");
    let text = std::fs::read_to_string(&root).unwrap();
    // Dev with alarms and a pager (and room in its cap for the alarms).
    let anchor = "    network: { nat: 1 }\n";
    assert!(text.contains(anchor) && text.contains("monthly: 200"));
    let text = text.replacen(
        anchor,
        &format!("{anchor}    alarms: {{ enabled: true }}\n    alerts: {{ https: [PAGERDUTY_URL] }}\n"),
        1,
    );
    std::fs::write(&root, text.replacen("monthly: 200", "monthly: 1000", 1)).unwrap();
    // Metabase's own secret is set: only the endpoint is left unset below.
    common::set_in_infisical(&infisical.url(), PROJECT, common::PERSON_PLACE, "canary-3b9f1d7e-person");
    let file = root.to_str().unwrap();
    let run = |args: &[&str]| runway(&cloud, args);

    // The plan lists the parameter as `secrets prepare`'s, with its place; no URL anywhere.
    let plan = run(&["plan", "--env", "dev", "--format", "json", file]);
    assert_eq!(plan.code, 0, "{}", plan.stderr);
    let json: serde_json::Value = serde_json::from_str(&plan.stdout).unwrap();
    let params = json["secrets"]["ssmParameters"].as_array().unwrap();
    let param = params.iter().find(|p| p["name"] == PARAMETER).expect("the endpoint's parameter");
    assert_eq!(param["writtenBy"], "secrets-prepare");
    assert_eq!(param["source"], "alert-endpoint");
    assert_eq!(param["infisical"]["folder"], "/runtime/_alerts");

    // Nobody has set it: everything else is prepared, then the command names where to set it.
    let unset = run(&["secrets", "prepare", "--env", "dev", file]);
    assert_eq!(unset.code, 1, "{}{}", unset.stdout, unset.stderr);
    assert!(unset.stderr.contains(PLACE), "{}", unset.stderr);
    assert!(unset.stdout.contains("(proxy copy)"), "the rest was done first: {}", unset.stdout);

    common::set_in_infisical(&infisical.url(), PROJECT, ("dev", "/runtime/_alerts", "PAGERDUTY_URL"), URL);
    let set = run(&["secrets", "prepare", "--env", "dev", file]);
    assert_eq!(set.code, 0, "{}", set.stderr);
    assert!(set.stdout.contains(&format!("created   {PARAMETER} (alerts endpoint)")), "{}", set.stdout);
    assert_eq!(ssm_value(moto, PARAMETER), format!("{URL}|SecureString"));
    let again = run(&["secrets", "prepare", "--env", "dev", "--format", "json", file]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let report: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(report["alertEndpoints"]["parameters"][0]["name"], PARAMETER);
    assert_eq!(report["alertEndpoints"]["parameters"][0]["action"], "unchanged");

    // The program reads it decrypted at `up`; its text holds the parameter's name only.
    let out = dir.join("program");
    let emit = run(&["emit", "pulumi", "--env", "dev", "--out", out.to_str().unwrap(), file]);
    assert_eq!(emit.code, 0, "{}", emit.stderr);
    let program = std::fs::read_to_string(out.join("Pulumi.yaml")).unwrap();
    assert!(program.contains(&format!("name: {PARAMETER}")) && program.contains("protocol: https"));
    assert!(!program.contains(URL));
    for r in [&plan, &unset, &set, &again, &emit] {
        assert!(!r.stdout.contains(URL) && !r.stderr.contains(URL), "the URL was printed");
        assert!(!r.stdout.contains("canary-3b9f1d7e") && !r.stderr.contains("canary-3b9f1d7e"));
    }
}
