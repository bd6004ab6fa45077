//! `runway catalogue`: the sizes and prices in use, as a text table or a JSON value.

use std::fmt::Write as _;

use runway_schema::{Architecture, PostgresEngine};
use serde_json::{Value, json};

use crate::{Catalogue, Item, PriceStatus, Priced, Sizes};

/// One size of one kind, as the estimate table lists it.
struct SizeRow<'a> {
    kind: &'static str,
    size: &'a str,
    declares: String,
    items: Vec<Item<'a>>,
}

impl Catalogue {
    fn size_rows(&self) -> Vec<SizeRow<'_>> {
        // Every section named: a new one is a compile error here.
        let Sizes { postgres_rds, postgres_aurora, cache, messaging, bucket, workload } = &self.sizes;
        let mut rows = Vec::new();
        for (engine, kind, map) in [
            (PostgresEngine::Rds, "postgres rds", postgres_rds),
            (PostgresEngine::Aurora, "postgres aurora", postgres_aurora),
        ] {
            for (size, p) in map {
                let az = if p.multi_az { ", Multi-AZ" } else { "" };
                let grows = p.max_storage_gb.map(|m| format!(" (grows to {m} GB)")).unwrap_or_default();
                rows.push(SizeRow {
                    kind,
                    size,
                    declares: format!(
                        "{} x {} ({} vCPU), {} GB{grows}{az}",
                        p.instances, p.instance_class, p.vcpu, p.storage_gb
                    ),
                    items: vec![
                        Item::Postgres { engine, size, storage_gb: None, io: None },
                        Item::RdsProxy { engine, size },
                        Item::Secret,
                    ],
                });
            }
        }
        for (size, c) in cache {
            rows.push(SizeRow {
                kind: "cache",
                size,
                declares: format!("{} x {}", c.nodes, c.node_type),
                items: vec![Item::Cache { size }],
            });
        }
        for (size, r) in messaging {
            rows.push(SizeRow {
                kind: "queue",
                size,
                declares: format!("{r} requests/month"),
                items: vec![Item::Queue { fifo: false, size, requests: None }],
            });
            rows.push(SizeRow {
                kind: "topic",
                size,
                declares: format!("{r} requests/month"),
                items: vec![Item::Topic { fifo: false, size, requests: None }],
            });
        }
        for (size, gb) in bucket {
            rows.push(SizeRow {
                kind: "bucket",
                size,
                declares: format!("{gb} GB"),
                items: vec![Item::Bucket { size, storage_gb: None, requests: None }],
            });
        }
        // ARM64 (the default) first, then the same sizes at the x86_64 rates.
        for (kind, architecture) in
            [("workload", Architecture::Arm64), ("workload x86_64", Architecture::X86_64)]
        {
            for (size, t) in workload {
                rows.push(SizeRow {
                    kind,
                    size,
                    declares: format!("{} CPU units / {} MiB per task", t.cpu, t.memory_mib),
                    items: vec![Item::Tasks { size, tasks: 1, architecture }],
                });
            }
        }
        rows
    }

    fn shown_regions<'a>(&'a self, region: Option<&'a str>) -> Result<Vec<&'a str>, String> {
        match region {
            Some(r) if self.regions.contains_key(r) => Ok(vec![r]),
            Some(r) => Err(format!(
                "no price table for region `{r}`; the catalogue prices: {}",
                self.regions.keys().map(String::as_str).collect::<Vec<_>>().join(", ")
            )),
            None => Ok(self.regions.keys().map(String::as_str).collect()),
        }
    }

    /// Sum of the items' prices; the first unpriced reason otherwise. Never usage-based.
    fn estimate(&self, region: &str, items: &[Item<'_>]) -> Priced {
        let mut lines = Vec::new();
        for item in items {
            match self.price(region, item) {
                // A size row's charges billed by use (Aurora I/O, bucket requests) add no amount.
                Priced::Lines { lines: l, .. } => lines.extend(l),
                unpriced @ Priced::Unpriced { .. } => return unpriced,
                // Adds no amount; no size row holds one.
                Priced::UsageBased { .. } => {}
            }
        }
        Priced::Lines { lines, rates: Vec::new() }
    }

    /// A readable table of the sizes and, per region (all, or the one asked for), the prices
    /// with their sources and dates and each size's monthly estimate.
    pub fn render_text(&self, region: Option<&str>) -> String {
        // Writing to a String cannot fail; `let _ =` drops the always-Ok fmt::Result.
        let mut o = String::new();
        let rows = self.size_rows();
        let _ = writeln!(o, "Sizes ({} hours a month)", crate::HOURS_PER_MONTH);
        let _ = writeln!(o, "  {:<16} {:<8} declares", "kind", "size");
        for r in &rows {
            let _ = writeln!(o, "  {:<16} {:<8} {}", r.kind, r.size, r.declares);
        }
        let regions = match self.shown_regions(region) {
            Ok(r) => r,
            Err(msg) => {
                let _ = writeln!(o, "\n{msg}");
                return o;
            }
        };
        for name in regions {
            let Some(table) = self.regions.get(name) else { continue };
            // The key column is as wide as the longest key, so unpriced rows line up too.
            let kw = table.keys().map(String::len).chain([5]).max().unwrap_or(5);
            let _ = writeln!(o, "\nPrices in {name} (USD, on-demand)");
            let _ = writeln!(o, "  {:<kw$} {:>10}  {:<18} source (seen)", "price", "USD", "per");
            for (key, e) in table {
                match &e.status {
                    PriceStatus::Priced { price, source, seen } => {
                        let usd = price.0.normalize().to_string();
                        let _ = writeln!(o, "  {key:<kw$} {usd:>10}  {:<18} {source} ({seen})", e.unit);
                    }
                    PriceStatus::Unpriced { unpriced } => {
                        let _ = writeln!(o, "  {key:<kw$} {:>10}  {:<18} {unpriced}", "unpriced", e.unit);
                    }
                }
            }
            let _ = writeln!(o, "\nMonthly estimate per size in {name} (postgres includes proxy and secret)");
            let _ = writeln!(o, "  {:<16} {:<8} {:>10}", "kind", "size", "USD/month");
            for r in &rows {
                // Money's Display ignores width, so it is padded as a string.
                let shown = match self.estimate(name, &r.items) {
                    p @ Priced::Lines { .. } => {
                        format!("{:>10}", p.monthly().map(|m| m.to_string()).unwrap_or_default())
                    }
                    Priced::Unpriced { reason } => format!("{:>10}  ({reason})", "unpriced"),
                    Priced::UsageBased { .. } => format!("{:>10}", "by use"),
                };
                let _ = writeln!(o, "  {:<16} {:<8} {shown}", r.kind, r.size);
            }
        }
        o
    }

    /// The catalogue as JSON for `runway catalogue --format json`: sizes, then per region (all,
    /// or the one asked for) the prices (exact decimal strings) and each size's estimate
    /// (cents, as plans show money). An unknown region gives `{"error": ...}` beside the sizes.
    pub fn to_json_value(&self, region: Option<&str>) -> Value {
        // Every section named: a new one is a compile error here.
        let Sizes { postgres_rds, postgres_aurora, cache, messaging, bucket, workload } = &self.sizes;
        let sizes = json!({
            "postgres": { "rds": postgres_rds, "aurora": postgres_aurora },
            "cache": cache,
            "messaging": messaging.iter().map(|(k, v)| (k.clone(), json!({ "requests": v }))).collect::<serde_json::Map<_, _>>(),
            "bucket": bucket.iter().map(|(k, v)| (k.clone(), json!({ "storageGb": v }))).collect::<serde_json::Map<_, _>>(),
            "workload": workload,
        });
        let mut out = json!({ "hoursPerMonth": crate::HOURS_PER_MONTH, "sizes": sizes });
        let regions = match self.shown_regions(region) {
            Ok(r) => r,
            Err(msg) => {
                out["error"] = Value::String(msg);
                out["regions"] = json!([]);
                return out;
            }
        };
        let rows = self.size_rows();
        let mut shown = Vec::new();
        for name in regions {
            let Some(table) = self.regions.get(name) else { continue };
            let prices: Vec<Value> = table
                .iter()
                .map(|(key, e)| {
                    let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
                    v["key"] = Value::String(key.clone());
                    v
                })
                .collect();
            let estimates: Vec<Value> = rows
                .iter()
                .map(|r| match self.estimate(name, &r.items) {
                    p @ Priced::Lines { .. } => {
                        json!({ "kind": r.kind, "size": r.size, "monthly": p.monthly().map(|m| m.to_string()), "lines": p })
                    }
                    Priced::Unpriced { reason } => {
                        json!({ "kind": r.kind, "size": r.size, "monthly": Value::Null, "unpriced": reason })
                    }
                    Priced::UsageBased { .. } => json!({ "kind": r.kind, "size": r.size, "monthly": Value::Null }),
                })
                .collect();
            shown.push(json!({ "name": name, "prices": prices, "estimates": estimates }));
        }
        out["regions"] = Value::Array(shown);
        out
    }
}
