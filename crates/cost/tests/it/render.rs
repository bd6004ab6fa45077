//! `runway catalogue` output: the text table and the JSON view.

use cost::Catalogue;
use serde_json::Value;

#[test]
fn text_lists_sizes_prices_sources_and_estimates() {
    let text = Catalogue::builtin().render_text(Some("us-east-1"));
    assert!(text.contains("postgres rds     small    1 x db.t4g.micro (2 vCPU), 20 GB"), "{text}");
    assert!(text.contains("Prices in us-east-1"), "{text}");
    assert!(!text.contains("Prices in eu-west-1"), "{text}");
    let line =
        text.lines().find(|l| l.trim_start().starts_with("cache-node/cache.t4g.micro")).expect("price line");
    assert!(
        line.contains("0.0128")
            && line.contains("node-hour")
            && line.contains("(2026-12-02)")
            && line.contains("directness 4"),
        "{line}"
    );
    // small RDS postgres with its proxy and secret: 13.98 + 21.90 + 0.40 = 36.28.
    let est =
        text.lines().rfind(|l| l.trim_start().starts_with("postgres rds     small")).expect("estimate line");
    assert!(est.trim_end().ends_with("36.28"), "{est}");
    assert!(text.contains("unpriced"), "{text}");
}

#[test]
fn text_for_an_unknown_region_says_so() {
    let text = Catalogue::builtin().render_text(Some("mars-1"));
    assert!(text.contains("no price table for region `mars-1`"), "{text}");
}

#[test]
fn json_has_exact_unit_prices_and_cent_estimates() {
    let v = Catalogue::builtin().to_json_value(Some("us-east-1"));
    assert_eq!(v["hoursPerMonth"], 730);
    assert_eq!(v["sizes"]["workload"]["large"]["cpu"], 2048);
    let regions = v["regions"].as_array().expect("regions");
    assert_eq!(regions.len(), 1);
    let prices = regions[0]["prices"].as_array().expect("prices");
    let fargate = prices.iter().find(|p| p["key"] == "fargate-arm-vcpu").expect("fargate");
    assert_eq!(fargate["price"], "0.03238");
    assert_eq!(fargate["unit"], "vCPU-hour");
    let aurora = prices.iter().find(|p| p["key"] == "aurora-instance/db.r7g.large").expect("aurora");
    assert_eq!(aurora["price"], "0.276");
    let fifo = prices.iter().find(|p| p["key"] == "sns-fifo").expect("sns-fifo");
    assert!(fifo["unpriced"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(aurora.get("unpriced").is_none());
    let est = regions[0]["estimates"].as_array().expect("estimates");
    // small workload, one task: 5.90935 + 1.2994 = 7.20875, shown as 7.21.
    let task = est.iter().find(|e| e["kind"] == "workload" && e["size"] == "small").expect("task");
    assert_eq!(task["monthly"], "7.21");
    // medium cache: 2 x 730 x 0.052 = 75.92.
    let cache = est.iter().find(|e| e["kind"] == "cache" && e["size"] == "medium").expect("cache");
    assert_eq!(cache["monthly"], "75.92");
    // Topics are priced at the standard rate; the estimate table has no FIFO row, so us-east-1
    // estimates are all priced.
    assert!(est.iter().all(|e| e["monthly"] != Value::Null), "{est:?}");
    // large cache: 2 x 730 x 0.1264 = 184.544, shown as 184.54.
    let cache = est.iter().find(|e| e["kind"] == "cache" && e["size"] == "large").expect("cache");
    assert_eq!(cache["monthly"], "184.54");
}

#[test]
fn json_without_a_region_shows_every_region() {
    let v = Catalogue::builtin().to_json_value(None);
    let names: Vec<&str> =
        v["regions"].as_array().expect("regions").iter().filter_map(|r| r["name"].as_str()).collect();
    assert_eq!(names, ["us-east-1", "eu-central-1", "eu-west-1"]);
}

/// Priced and unpriced rows share their columns: in every region's price table the USD cell
/// ends at one position, and in every estimate table the amount (or `unpriced`) ends at one.
#[test]
fn text_columns_line_up_for_unpriced_rows() {
    let text = Catalogue::builtin().render_text(None);
    for section in text.split("\nPrices in ").skip(1) {
        let (prices, estimates) = section.split_once("\nMonthly estimate").expect("estimate table");
        // Price rows: `  key  USD  unit ...`; keys and USD cells hold no spaces.
        let cell_ends: Vec<usize> = prices
            .lines()
            .filter(|l| l.starts_with("  "))
            .map(|l| {
                let after_key = l[2..].find(' ').expect("key") + 2;
                let cell_start = after_key + l[after_key..].find(|c: char| c != ' ').expect("cell");
                cell_start + l[cell_start..].find(' ').expect("cell end")
            })
            .collect();
        assert!(
            cell_ends.windows(2).all(|w| w[0] == w[1]),
            "price column misaligned: {cell_ends:?}\n{prices}"
        );
        // Estimate rows: `  kind size amount`, the amount right-aligned in columns 28..38.
        for l in estimates.lines().filter(|l| l.starts_with("  ")) {
            let cell = l.get(28..38).unwrap_or_else(|| panic!("estimate misaligned: {l}"));
            assert!(
                !cell.ends_with(' ') && !l[38..].starts_with(|c: char| c != ' '),
                "estimate misaligned: {l}"
            );
        }
    }
}
