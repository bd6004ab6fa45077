#![allow(clippy::unwrap_used)] // reason: test helpers fail loudly
//! `runway plan|cost|graph|diff|emit` on the shipped example, through the binary.

use crate::common;
use std::path::PathBuf;

use crate::common::runway;
use test_support::{acme_shop_with_dev_cap, scratch};

fn example() -> PathBuf {
    test_support::example("acme-shop")
}

fn dev_estimate() -> String {
    let root = example().join("runway.yaml");
    let (code, out, _) = runway(&["plan", "--env", "dev", "--format", "json", root.to_str().unwrap()]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["cost"]["monthly"].as_str().unwrap().to_owned()
}

/// The streamed JSON (issue 45) is byte for byte runtime-plan's `to_json` of the same plan,
/// plus the blank line the CLI always printed after it; production's is its golden (the
/// whole example's goldens hold production only).
#[test]
fn plan_json_is_the_golden_plan_byte_for_byte() {
    let root = example().join("runway.yaml");
    let catalogue = runway_files::catalogue_for(&root).unwrap();
    let loaded = runway_files::load(&root, &runway_files::options(&catalogue)).unwrap();
    let product = loaded.product.unwrap();
    for env in ["dev", "staging", "production"] {
        let (code, out, _) = runway(&["plan", "--env", env, "--format", "json", root.to_str().unwrap()]);
        assert_eq!(code, 0);
        let plan = runtime_plan::plan(&product, env, &catalogue).unwrap();
        assert_eq!(out, format!("{}\n", runtime_plan::to_json(&plan)), "{env}");
        if env == "production" {
            let body = test_support::golden("runtime-plan", "golden__acme-shop-production.json.snap");
            assert_eq!(out, format!("{body}\n"), "{env}");
        }
    }
}

#[test]
fn plan_json_has_the_spec_shape() {
    let root = example().join("runway.yaml");
    let (code, out, _) = runway(&["plan", "--env", "dev", "--format", "json", root.to_str().unwrap()]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for key in
        ["product", "environment", "region", "resources", "workloads", "bindings", "cost", "diagnostics"]
    {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    for key in ["name", "kind", "origin", "size", "physicalName", "monthly"] {
        assert!(v["resources"][0].get(key).is_some(), "resources[0] missing {key}");
    }
    for key in ["name", "size", "min", "max", "expose", "monthly", "ceiling"] {
        assert!(v["workloads"][0].get(key).is_some(), "workloads[0] missing {key}");
    }
    for key in ["consumer", "resource", "variables", "infisical", "ssm"] {
        assert!(v["bindings"][0].get(key).is_some(), "bindings[0] missing {key}");
    }
    for key in ["monthly", "ceiling", "cap", "verdict", "unpriced"] {
        assert!(v["cost"].get(key).is_some(), "cost missing {key}");
    }
    assert_eq!(v["cost"]["verdict"], "within");
    assert_eq!(v["cost"]["cap"], "200.00");
    // Reproducible byte for byte.
    let (_, again, _) = runway(&["plan", "--env", "dev", "--format", "json", root.to_str().unwrap()]);
    assert_eq!(out, again);
}

#[test]
fn a_cap_equal_to_the_estimate_is_within_and_one_cent_less_is_refused() {
    let estimate = dev_estimate();
    let equal = acme_shop_with_dev_cap(&estimate, "cap-equal");
    let (code, _, err) = runway(&["plan", "--env", "dev", equal.join("runway.yaml").to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");

    let cents: i64 = estimate.replace('.', "").parse().unwrap();
    let below = format!("{}.{:02}", (cents - 1) / 100, (cents - 1) % 100);
    let under = acme_shop_with_dev_cap(&below, "cap-below");
    let root = under.join("runway.yaml");
    let (code, _, err) = runway(&["plan", "--env", "dev", root.to_str().unwrap()]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("cap-exceeded"), "{err}");
    assert!(err.contains(&below) && err.contains(&estimate), "names cap and estimate: {err}");
    assert!(err.contains("main-db"), "names the largest items: {err}");

    // Nothing is written when the plan is refused.
    let out = under.join("pulumi");
    let (code, _, _) =
        runway(&["emit", "pulumi", "--env", "dev", "--out", out.to_str().unwrap(), root.to_str().unwrap()]);
    assert_eq!(code, 3);
    assert!(!out.exists());
    let (code, _, _) = runway(&["cost", root.to_str().unwrap()]);
    assert_eq!(code, 3);
}

#[test]
fn cost_graph_diff_and_unknown_environment() {
    let root = example().join("runway.yaml");
    let root = root.to_str().unwrap();
    let (code, out, _) = runway(&["cost", "--format", "json", root]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let envs: Vec<&str> =
        v["environments"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(envs, ["dev", "staging", "production"]);
    let (code, out, _) = runway(&["graph", "--env", "dev", root]);
    assert_eq!(code, 0);
    assert!(out.starts_with("flowchart") || out.starts_with("graph"), "{out}");
    let (code, out, _) = runway(&["graph", "--env", "dev", "--format", "dot", root]);
    assert_eq!(code, 0);
    assert!(out.contains("digraph"), "{out}");
    let (code, out, _) = runway(&["diff", "--env", "dev", "--base", root, root]);
    assert_eq!(code, 0, "{out}");
    let (code, _, err) = runway(&["plan", "--env", "prod", root]);
    assert_eq!(code, 2);
    assert!(err.contains("production"), "suggests the declared name: {err}");
}

#[test]
fn emit_refuses_to_overwrite_a_program_it_did_not_write() {
    let dir = scratch("emit-own");
    std::fs::write(dir.join("Pulumi.yaml"), "name: hand-written\n").unwrap();
    std::fs::write(dir.join("Pulumi.dev.yaml"), "config: {}\n").unwrap();
    let root = example().join("runway.yaml");
    let args = ["emit", "pulumi", "--env", "dev", "--out", dir.to_str().unwrap(), root.to_str().unwrap()];
    assert_eq!(runway(&args).0, 2);
    assert_eq!(std::fs::read_to_string(dir.join("Pulumi.yaml")).unwrap(), "name: hand-written\n");
    std::fs::remove_file(dir.join("Pulumi.yaml")).unwrap();
    assert_eq!(runway(&args).0, 0);
    assert_eq!(runway(&args).0, 0, "its own program is rewritten");
    assert_eq!(std::fs::read_to_string(dir.join("Pulumi.dev.yaml")).unwrap(), "config: {}\n");
}

#[test]
fn a_closed_stdout_is_not_a_panic() {
    use std::process::Stdio;
    let root = example().join("runway.yaml");
    let root = root.to_str().unwrap();
    for args in [vec!["plan", "--env", "dev", root], vec!["check", root], vec!["catalogue"]] {
        let mut child =
            common::bare().args(&args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        // The reader goes away before runway writes: every write meets a broken pipe.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}

/// The plan's text marks a workload's own secret as a value a person sets in Infisical, with the
/// SSM parameter `secrets prepare` copies it to, and says what `ssm verify` prints until it is
/// set: the word of verify's report.
#[test]
fn the_plan_says_what_ssm_verify_prints_for_an_unset_workload_secret() {
    use aws_adapter::aws::{VerifyProblem, VerifyProblemKind, VerifyReport};
    let root = example().join("runway.yaml");
    let (code, out, _) = runway(&["plan", "--env", "dev", root.to_str().unwrap()]);
    assert_eq!(code, 0);
    let name = "/acme-shop/dev/metabase/MB_ENCRYPTION_SECRET_KEY";
    let own = out.split("  workload secrets: values a person sets in Infisical").nth(1).unwrap_or_default();
    let secret = format!(
        "metabase MB_ENCRYPTION_SECRET_KEY\n    set in dev:/runtime/metabase/MB_ENCRYPTION_SECRET_KEY\n    \
         copied to {name}\n"
    );
    assert!(own.contains(&secret), "{out}");
    assert!(!out.contains("put-parameter"), "{out}");
    let report = VerifyReport {
        checked: 1,
        problems: vec![VerifyProblem { name: name.into(), kind: VerifyProblemKind::Missing }],
    };
    let printed = report.to_string();
    let first = printed.lines().next().unwrap_or_default();
    let word = first.split_whitespace().next().unwrap_or_default();
    assert!(first.ends_with(name), "{printed}");
    assert!(own.contains(&format!("`runway ssm verify` reports `{word}`")), "verify says `{word}`:\n{out}");
}

/// A stack settings file beside the program is checked before anything is written: one subnet
/// is an error at its line (AWS would refuse it half-way through `pulumi up`); with interface
/// endpoints, private subnets in other than `network.zones` zones is a warning.
#[test]
fn emit_checks_the_subnets_of_the_stack_settings() {
    let dir = acme_shop_with_dev_cap("1000", "emit-subnets");
    let root = dir.join("runway.yaml");
    let text = std::fs::read_to_string(&root).unwrap();
    // dev's `network` (one NAT gateway) becomes endpoints in three zones (and no NAT).
    let with_endpoints = text.replace("network: { nat: 1 }", "network: { endpoints: true, zones: 3 }");
    assert_ne!(with_endpoints, text, "the example's dev writes `network: {{ nat: 1 }}`");
    std::fs::write(&root, with_endpoints).unwrap();
    let out = dir.join("infra");
    std::fs::create_dir_all(&out).unwrap();
    let stack = |private: &[&str]| {
        let list = |ids: &[&str]| ids.iter().map(|s| format!("    - {s}\n")).collect::<String>();
        let text = format!(
            "config:\n  aws:region: us-east-1\n  acme-shop:privateSubnetIds:\n{}  acme-shop:publicSubnetIds:\n{}",
            list(private),
            list(&["subnet-p1", "subnet-p2"])
        );
        std::fs::write(out.join("Pulumi.dev.yaml"), text).unwrap();
    };
    let args = ["emit", "pulumi", "--env", "dev", "--out", out.to_str().unwrap(), root.to_str().unwrap()];

    stack(&["subnet-a"]);
    let (code, _, err) = runway(&args);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("`privateSubnetIds` holds 1 subnet(s)"), "{err}");
    assert!(err.contains("Pulumi.dev.yaml:4:"), "points at the list: {err}");
    assert!(err.contains("privateSubnetIds[1]"), "says how to fix it: {err}");
    assert!(!out.join("Pulumi.yaml").exists(), "nothing written");

    stack(&["subnet-a", "subnet-b"]);
    let (code, _, err) = runway(&args);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("prices its interface endpoints in 3 zones"), "{err}");
    assert!(out.join("Pulumi.yaml").exists());

    stack(&["subnet-a", "subnet-b", "subnet-c"]);
    let (code, _, err) = runway(&args);
    assert_eq!((code, err.as_str()), (0, ""));

    // The endpoints admit the VPC's CIDR blocks: each one must be a block a VPC can have.
    let settings = std::fs::read_to_string(out.join("Pulumi.dev.yaml")).unwrap();
    std::fs::remove_file(out.join("Pulumi.yaml")).unwrap();
    let cidrs = |blocks: &str| {
        let text = format!("{settings}  acme-shop:vpcCidrBlocks: {blocks}\n");
        std::fs::write(out.join("Pulumi.dev.yaml"), text).unwrap();
    };
    cidrs("[10.0.0.0/16, 0.0.0.0/0]");
    let (code, _, err) = runway(&args);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("\"0.0.0.0/0\" is not an IPv4 CIDR block a VPC can have"), "{err}");
    assert!(err.contains("Pulumi.dev.yaml:10:"), "points at the list: {err}");
    assert!(!out.join("Pulumi.yaml").exists(), "nothing written");
    cidrs("[10.0.0.0/16, 100.64.0.0/20]");
    let (code, _, err) = runway(&args);
    assert_eq!((code, err.as_str()), (0, ""));
}

/// Two environments in one VPC (`tests/fixtures/valid/shared-vpc.yaml`): the plan of the one
/// that shares the other's endpoints says they are assumed present and declares none, and says
/// when its database and cache changes apply; `runway cost` charges the endpoints once.
#[test]
fn plan_says_when_changes_apply_and_which_endpoints_are_assumed() {
    let fixture = test_support::workspace().join("tests/fixtures/valid/shared-vpc.yaml");
    let fixture = fixture.to_str().unwrap();
    let (code, text, err) = runway(&["plan", "--env", "production", fixture]);
    assert_eq!(code, 0, "{err}");
    let head: Vec<&str> = text.lines().take(4).collect();
    assert_eq!(
        head,
        [
            "plan shared-vpc / production (us-east-1)",
            "  database and cache changes apply at the deploy (applyChanges: immediately)",
            "  VPC endpoints: existing in the VPC and assumed present; none declared or charged",
            "    (network.endpoints: existing)",
        ]
    );
    assert!(!text.contains("VPC endpoint ("), "no endpoint is declared or priced:\n{text}");
    let (_, json, _) = runway(&["plan", "--env", "production", "--format", "json", fixture]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (v["applyChanges"].as_str(), v["vpcEndpoints"].as_str()),
        (Some("immediately"), Some("existing"))
    );
    let keys: Vec<&str> = v["tags"].as_array().unwrap().iter().filter_map(|t| t["key"].as_str()).collect();
    assert_eq!(keys, ["product", "environment", "resource", "runway-item"]);

    let (code, text, err) = runway(&["plan", "--env", "staging", fixture]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("VPC endpoint (ssm)") && !text.contains("assumed present"), "{text}");
    assert!(text.contains("from the VPC (vpcCidrBlocks)"), "{text}");
}

/// The shared-VPC fixture without its mirror: staging has endpoints and no NAT, so main-db's
/// bootstrap cannot pull the default image from ECR Public: a warning with its code, place and
/// help, and the plan still exits 0.
#[test]
fn plan_warns_when_a_bootstrap_has_no_route_to_its_image() {
    let fixture = test_support::workspace().join("tests/fixtures/valid/shared-vpc.yaml");
    let text = std::fs::read_to_string(&fixture).unwrap();
    let without: String =
        text.lines().filter(|l| !l.contains("bootstrap: {")).map(|l| format!("{l}\n")).collect();
    assert_ne!(without, text, "the fixture sets staging's bootstrap image");
    let dir = scratch("plan-unreachable-image");
    let file = dir.path().join("runway.yaml");
    std::fs::write(&file, without).unwrap();
    let (code, out, err) = runway(&["plan", "--env", "staging", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let shown = format!("{out}{err}");
    assert!(
        shown.contains("warning[unreachable-image]: the bootstrap of `main-db` cannot pull its image"),
        "{shown}"
    );
    assert!(shown.contains("`public.ecr.aws/docker/library/postgres:16-alpine@sha256:"), "{shown}");
    assert!(shown.contains("environments.staging.bootstrap.image"), "the help: {shown}");
    // With the mirror in the account's ECR, reached through the endpoints: no warning.
    let (code, out, err) = runway(&["plan", "--env", "staging", fixture.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(!format!("{out}{err}").contains("unreachable-image"), "{out}{err}");
}

/// The smallest useful product (`tests/fixtures/valid/smallest-product.yaml`: one small
/// postgres, one queue, one public workload) with a small cache added still plans under dev's
/// default cap ($150): outside production the default is one NAT gateway, not one per zone
/// (two put the product alone at $147.85). The text names the fixed charges before the
/// resources; production keeps a NAT gateway per zone.
#[test]
fn the_smallest_product_has_room_for_a_cache_under_the_default_dev_cap() {
    let fixture = test_support::workspace().join("tests/fixtures/valid/smallest-product.yaml");
    let text = std::fs::read_to_string(&fixture).unwrap();
    let with_cache = text
        .replacen("  jobs: { kind: queue }\n", "  jobs: { kind: queue }\n  sessions: { kind: cache }\n", 1)
        .replacen("uses: [main-db, jobs]", "uses: [main-db, jobs, sessions]", 1)
        .replacen("  dev: {", "  production: { region: us-east-1, domain: shop.example.com }\n  dev: {", 1);
    assert_eq!(with_cache.matches("sessions").count(), 2, "the edits apply:\n{with_cache}");
    let dir = scratch("plan-smallest-product");
    let file = dir.path().join("runway.yaml");
    std::fs::write(&file, &with_cache).unwrap();
    let file = file.to_str().unwrap();

    let (code, json, err) = runway(&["plan", "--env", "dev", "--format", "json", file]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let figure = |key: &str| v["cost"][key].as_str().unwrap().parse::<f64>().unwrap();
    assert_eq!(figure("cap"), 150.0, "dev's default cap");
    assert!(figure("monthly") <= 130.0, "room to spare under the cap: ${}", figure("monthly"));
    assert!(v["resources"].as_array().unwrap().iter().any(|r| r["kind"] == "cache"));

    let (code, text, err) = runway(&["plan", "--env", "dev", file]);
    assert_eq!(code, 0, "{err}");
    let fixed =
        text.find("\nfixed charges (a month, whatever the sizes: $").expect("a fixed-charges section");
    let resources = text.find("\nresources\n").unwrap();
    assert!(fixed < resources, "the fixed charges come before the resources:\n{text}");
    let section = &text[fixed..resources];
    for charge in
        ["1 NAT gateway and its address in the VPC (network.nat)", "environment ALB", "main-db RDS Proxy"]
    {
        assert!(section.contains(charge), "`{charge}` missing:\n{section}");
    }
    let (code, text, err) = runway(&["plan", "--env", "production", file]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("2 NAT gateways and their addresses in the VPC"), "{text}");
}
