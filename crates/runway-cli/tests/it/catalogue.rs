#![allow(clippy::unwrap_used)] // reason: test helpers fail loudly
//! `runway catalogue import` end to end against a loopback server serving price-list files,
//! the root's `catalogue:` setting, and `runway catalogue ROOT`'s age of prices.

use std::path::{Path, PathBuf};

use crate::common::runway;
use serde_json::Value;
use test_support::{FileServer, Scratch, acme_shop_with_dev_cap, copy_dir, free_port, scratch, workspace};

const EXIT_INVALID: i32 = 1;
const EXIT_USAGE: i32 = 2;
const EXIT_REMOTE: i32 = 4;

/// The price-list fixtures of the price-import crate (eu-west-1 only).
fn offers() -> PathBuf {
    workspace().join("crates/price-import/tests/fixtures")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `runway catalogue import --region R --endpoint E --out OUT`, then `extra`.
fn import_prices(region: &str, endpoint: &str, out: &Path, extra: &[&str]) -> (i32, String, String) {
    let args = ["catalogue", "import", "--region", region, "--endpoint", endpoint, "--out", s(out)];
    runway(&[&args[..], extra].concat())
}

/// The example moved to eu-west-1, its database on Aurora, every environment capped.
fn european_shop(name: &str) -> (Scratch, PathBuf) {
    let dir = acme_shop_with_dev_cap("400", name);
    let root = dir.join("runway.yaml");
    let text = std::fs::read_to_string(&root).unwrap();
    let edited = text
        .replace("region: us-east-1", "region: eu-west-1")
        .replace("engine: rds", "engine: aurora")
        .replace(
            "  staging:\n    region: eu-west-1\n",
            "  staging:\n    region: eu-west-1\n    limits:\n      monthly: 3000\n    network: { endpoints: true }\n",
        );
    assert!(
        edited.contains("engine: aurora") && edited.contains("monthly: 3000"),
        "the example changed shape"
    );
    std::fs::write(&root, edited).unwrap();
    (dir, root)
}

#[test]
fn imported_prices_plan_a_european_aurora_product_under_its_caps() {
    let server = FileServer::start(&offers());
    let (dir, root) = european_shop("catalogue-import-e2e");
    // Before: the built-in catalogue leaves eu-west-1 mostly unpriced, so the caps refuse.
    let (code, _, _) = runway(&["cost", s(&root)]);
    assert_eq!(code, 3, "the built-in catalogue should not price eu-west-1 fully");

    let out = dir.join("prices.yaml");
    let (code, stdout, stderr) = import_prices("eu-west-1", &server.url(), &out, &["--format", "json"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_eq!(stderr, "", "no progress line when stderr is not a terminal");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["regions"][0]["name"], "eu-west-1");
    let unpriced: Vec<&str> = report["regions"][0]["unpriced"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["key"].as_str().unwrap())
        .collect();
    assert_eq!(unpriced, ["sns-fifo"], "{stdout}");

    // With --catalogue, every environment is priced and within its cap.
    let (code, stdout, stderr) = runway(&["cost", s(&root), "--catalogue", s(&out), "--format", "json"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let cost: Value = serde_json::from_str(&stdout).unwrap();
    for env in cost["environments"].as_array().unwrap() {
        assert_ne!(env["verdict"], "over", "{env}");
        assert_ne!(env["verdict"], "refused-unpriced", "{env}");
    }
    for env in ["dev", "staging", "production"] {
        let (code, stdout, stderr) =
            runway(&["plan", "--env", env, s(&root), "--catalogue", s(&out), "--format", "json"]);
        assert_eq!(code, 0, "{env}: {stderr}");
        let plan: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(plan["cost"]["unpriced"], Value::Array(vec![]), "{env}: {}", plan["cost"]);
    }

    // The same through the root's `catalogue:` setting, relative to the root file.
    let text = std::fs::read_to_string(&root).unwrap();
    std::fs::write(
        &root,
        text.replacen("product: acme-shop\n", "product: acme-shop\ncatalogue: prices.yaml\n", 1),
    )
    .unwrap();
    let (code, stdout, stderr) = runway(&["plan", "--env", "staging", s(&root), "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let plan: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(plan["cost"]["unpriced"], Value::Array(vec![]));
    assert_eq!(plan["cost"]["verdict"], "within");
    // Its VPC endpoints are priced from the AmazonVPC offer (0.011 in the fixture), per zone.
    let endpoint_prices: Vec<&Value> = plan["cost"]["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["unit"] == "hour" && l["source"].as_str().unwrap().contains("VpcEndpoint-Hours"))
        .map(|l| &l["unitPrice"])
        .collect();
    assert!(!endpoint_prices.is_empty(), "{}", plan["cost"]);
    assert!(endpoint_prices.iter().all(|p| *p == "0.011"), "{endpoint_prices:?}");
    // `--catalogue` overrides the setting: an empty catalogue file leaves eu-west-1 unpriced again.
    let empty = dir.join("empty.yaml");
    std::fs::write(&empty, "regions: {}\n").unwrap();
    let (code, _, _) = runway(&["plan", "--env", "staging", s(&root), "--catalogue", s(&empty)]);
    assert_eq!(code, 3);
}

#[test]
fn an_unreachable_endpoint_exits_4_and_writes_nothing() {
    let dir = scratch("catalogue-import-down");
    let out = dir.join("prices.yaml");
    std::fs::write(&out, "# the old file\n").unwrap();
    let endpoint = format!("http://127.0.0.1:{}", free_port());
    let (code, stdout, stderr) = import_prices("eu-west-1", &endpoint, &out, &[]);
    assert_eq!(code, EXIT_REMOTE, "{stdout}{stderr}");
    assert!(stderr.contains("cannot fetch") && stderr.contains("nothing was written"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "# the old file\n");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file is left");
}

#[test]
fn a_malformed_or_missing_offer_exits_4_and_writes_nothing() {
    let dir = scratch("catalogue-import-malformed");
    copy_dir(&offers(), &dir.join("site"));
    let rds = dir.join("site/offers/v1.0/aws/AmazonRDS/20261101000000/eu-west-1/index.json");
    let text = std::fs::read_to_string(&rds).unwrap();
    std::fs::write(&rds, &text[..text.len() / 2]).unwrap();
    let server = FileServer::start(&dir.join("site"));
    let out = dir.join("prices.yaml");
    let (code, stdout, stderr) = import_prices("eu-west-1", &server.url(), &out, &["--format", "json"]);
    assert_eq!(code, EXIT_REMOTE, "{stderr}");
    assert!(stderr.contains("is not a valid AWS Price List file") && stderr.contains("line"), "{stderr}");
    let error: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(error["error"]["exit"], EXIT_REMOTE);
    assert!(!out.exists());

    std::fs::remove_file(&rds).unwrap();
    let (code, _, stderr) = import_prices("eu-west-1", &server.url(), &out, &[]);
    assert_eq!(code, EXIT_REMOTE, "{stderr}");
    assert!(stderr.contains("HTTP 404"), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn an_unknown_region_is_a_usage_error_listing_the_known_ones() {
    let dir = scratch("catalogue-import-region");
    let out = dir.join("prices.yaml");
    let (code, _, stderr) = import_prices("eu-centrall-1", "http://127.0.0.1:9", &out, &[]);
    assert_eq!(code, EXIT_USAGE, "{stderr}");
    assert!(stderr.contains("`eu-centrall-1`") && stderr.contains("eu-central-1, eu-central-2"), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn an_out_file_that_cannot_be_written_is_a_usage_error_before_any_download() {
    let server = FileServer::start(&offers());
    let dir = scratch("catalogue-import-unwritable");
    let out = dir.join("no-such-folder/prices.yaml");
    let (code, _, stderr) = import_prices("eu-west-1", &server.url(), &out, &[]);
    assert_eq!(code, EXIT_USAGE, "{stderr}");
    assert!(stderr.contains("cannot write") && stderr.contains("no-such-folder"), "{stderr}");
    assert_eq!(server.requests(), 0, "nothing downloaded");
    // The parent command's flags do not apply to `import`: refused, not silently ignored.
    let (code, _, stderr) =
        runway(&["catalogue", "--region", "eu-west-1", "import", "--region", "eu-west-1", "--out", "x.yaml"]);
    assert_eq!(code, EXIT_USAGE, "{stderr}");
}

#[test]
fn a_missing_or_invalid_catalogue_setting_is_a_diagnostic_at_the_setting() {
    let dir = acme_shop_with_dev_cap("200", "catalogue-setting");
    let root = dir.join("runway.yaml");
    let text = std::fs::read_to_string(&root).unwrap();
    std::fs::write(
        &root,
        text.replacen("product: acme-shop\n", "product: acme-shop\ncatalogue: prices/eu.yaml\n", 1),
    )
    .unwrap();
    let line = text.lines().position(|l| l == "product: acme-shop").unwrap() + 2;
    let (code, stdout, stderr) = runway(&["check", s(&root), "--format", "json"]);
    assert_eq!(code, EXIT_INVALID, "{stderr}");
    let diags: Value = serde_json::from_str(&stdout).unwrap();
    let d = &diags["diagnostics"][0];
    assert_eq!(
        (d["code"].as_str(), d["line"].as_u64(), d["column"].as_u64()),
        (Some("catalogue-file"), Some(line as u64), Some(12))
    );
    assert!(d["message"].as_str().unwrap().contains("prices/eu.yaml"), "{d}");
    assert!(d["help"].as_str().unwrap().contains("runway catalogue import"), "{d}");

    std::fs::create_dir_all(dir.join("prices")).unwrap();
    std::fs::write(dir.join("prices/eu.yaml"), "regions:\n  eu-west-1:\n    secret: { unit: secret-month, price: \"0,40\", source: x, seen: \"2026-12-01\" }\n").unwrap();
    let (code, stdout, _) = runway(&["plan", "--env", "dev", s(&root), "--format", "json"]);
    assert_eq!(code, EXIT_INVALID);
    let diags: Value = serde_json::from_str(&stdout).unwrap();
    let codes: Vec<&str> =
        diags["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["catalogue-file", "invalid-value"]);
    let inner = &diags["diagnostics"][1];
    assert!(inner["file"].as_str().unwrap().ends_with("prices/eu.yaml"), "{inner}");
    assert_eq!(inner["line"], 3);

    // A value that is not a string is the root's own `invalid-value`.
    std::fs::write(&root, text.replacen("product: acme-shop\n", "product: acme-shop\ncatalogue: 3\n", 1))
        .unwrap();
    let (code, stdout, _) = runway(&["check", s(&root), "--format", "json"]);
    assert_eq!(code, EXIT_INVALID);
    let diags: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(diags["diagnostics"][0]["code"], "invalid-value");
    assert_eq!(diags["diagnostics"][0]["path"], "catalogue");
}

/// Today, as `runway catalogue` reads it (UTC).
fn today() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    cost::date_of_day(i64::try_from(secs / 86_400).unwrap())
}

#[test]
fn catalogue_root_shows_the_oldest_price_and_warns_about_old_ones_in_use() {
    let dir = acme_shop_with_dev_cap("200", "catalogue-age");
    let root = dir.join("runway.yaml");
    let today = today();
    // The root's region (us-east-1) has prices seen long ago: the proxy's secret and the logs'
    // ingestion rate, which its plans use, and an Aurora class, which they do not (its postgres
    // is on RDS); one seen today; eu-west-1, which no environment uses, has an old one too.
    // Only the old prices the plans use are warned about.
    std::fs::write(
        dir.join("prices.yaml"),
        format!(
            "regions:\n  us-east-1:\n    secret: {{ unit: secret-month, price: \"0.40\", source: \"https://example.test/old\", seen: \"2020-01-31\" }}\n    \
             s3-standard: {{ unit: GB-month, price: \"0.023\", source: \"https://example.test/new\", seen: \"{today}\" }}\n    \
             aurora-instance/db.r7g.xlarge: {{ unit: hour, price: \"0.553\", source: \"https://example.test/old\", seen: \"2020-01-31\" }}\n    \
             logs-ingestion: {{ unit: GB, price: \"0.50\", source: \"https://example.test/old\", seen: \"2020-01-31\" }}\n  eu-west-1:\n    \
             alb-lcu: {{ unit: LCU-hour, price: \"0.008\", source: \"https://example.test/old\", seen: \"2019-05-01\" }}\n"
        ),
    )
    .unwrap();
    let text = std::fs::read_to_string(&root).unwrap();
    std::fs::write(
        &root,
        text.replacen("product: acme-shop\n", "product: acme-shop\ncatalogue: prices.yaml\n", 1),
    )
    .unwrap();
    let (code, stdout, stderr) = runway(&["catalogue", s(&root), "--format", "json"]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["today"], today.as_str());
    let regions = v["regions"].as_array().unwrap();
    let oldest =
        |name: &str| regions.iter().find(|r| r["name"] == name).map(|r| r["oldestSeen"].clone()).unwrap();
    assert_eq!(oldest("us-east-1"), "2020-01-31");
    assert_eq!(oldest("eu-west-1"), "2019-05-01");
    let stale: Vec<(&str, &str)> = v["stale"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["region"].as_str().unwrap(), s["key"].as_str().unwrap()))
        .collect();
    assert!(stale.contains(&("us-east-1", "secret")), "{stale:?}");
    assert!(stale.contains(&("us-east-1", "logs-ingestion")), "a usage-based rate is in use too: {stale:?}");
    assert!(!stale.iter().any(|(_, k)| k.starts_with("aurora-")), "no plan uses Aurora: {stale:?}");
    assert!(!stale.iter().any(|(r, k)| *r == "eu-west-1" || *k == "s3-standard"), "{stale:?}");
    assert!(stderr.contains("warning:") && stderr.contains("`secret` (2020-01-31"), "{stderr}");
    assert!(stderr.contains("runway catalogue import --region us-east-1"), "{stderr}");

    let (code, stdout, _) = runway(&["catalogue", s(&root)]);
    assert_eq!(code, 0);
    assert!(stdout.contains("Oldest price per region") && stdout.contains("2020-01-31"), "{stdout}");
}

#[test]
fn an_import_that_unprices_a_price_in_use_says_so() {
    let dir = scratch("catalogue-import-unprices");
    copy_dir(&offers(), &dir.join("site"));
    // The SNS offer without its standard publish row: the built-in catalogue prices
    // `sns-standard` in eu-west-1, the imported file will not.
    let sns = dir.join("site/offers/v1.0/aws/AmazonSNS/20261106000000/eu-west-1/index.json");
    let text = std::fs::read_to_string(&sns).unwrap();
    assert!(text.contains("\"EU-Requests-Tier1\""), "the fixture changed shape");
    std::fs::write(&sns, text.replace("\"EU-Requests-Tier1\"", "\"EU-Requests-Other\"")).unwrap();
    let server = FileServer::start(&dir.join("site"));
    let out = dir.join("prices.yaml");
    let (code, stdout, stderr) = import_prices("eu-west-1", &server.url(), &out, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("sns-standard: AWS Price List offer AmazonSNS")
            && stdout.contains(
                "the catalogue in use prices `sns-standard`; laid over it, this file leaves it unpriced"
            ),
        "{stdout}"
    );
    assert!(
        !stdout.contains("the catalogue in use prices `sns-fifo`"),
        "sns-fifo was unpriced already: {stdout}"
    );
    let (code, stdout, _) = import_prices("eu-west-1", &server.url(), &out, &["--format", "json"]);
    assert_eq!(code, 0);
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let was: Vec<(&str, bool)> = report["regions"][0]["unpriced"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["key"].as_str().unwrap(), u["wasPriced"].as_bool().unwrap()))
        .collect();
    assert_eq!(was, [("sns-standard", true), ("sns-fifo", false)]);
}
