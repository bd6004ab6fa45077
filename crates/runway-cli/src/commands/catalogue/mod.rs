//! `runway catalogue [ROOT]`: the sizes and prices in use, each region's oldest price and a
//! warning for prices in use seen too long ago; `runway catalogue import`: prices from the AWS
//! Price List, written as a catalogue file (docs/catalogue.md).
//!
//! Exit codes of the import: 0 written, 2 usage (an unknown region, an unwritable `--out`),
//! 4 the price list could not be read (unreachable, an error status, a malformed file);
//! nothing is written unless every file was read.

use std::io::Write as _;

use clap::Subcommand;
use cost::{Catalogue, PriceStatus, STALE_AFTER_DAYS, StalePrice};
use serde_json::{Value, json};

use crate::planning::{catalogue, catalogue_for, load_valid};
use crate::prelude::*;

/// The sizes and prices in use, with their sources and how old they are;
/// `runway catalogue import` reads prices from the AWS Price List.
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: Option<CatalogueCommand>,
    /// A root runway file: its `catalogue:` setting is used, and the prices its plans use
    /// are checked for age.
    root: Option<PathBuf>,
    /// Only this region's prices.
    #[arg(long)]
    region: Option<String>,
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// A catalogue file that replaces or extends the built-in one.
    #[arg(long)]
    catalogue: Option<PathBuf>,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        match &self.command {
            Some(CatalogueCommand::Import { format, .. }) => format.json(),
            None => self.format.json(),
        }
    }
}

/// `runway catalogue ...`.
#[derive(Subcommand)]
enum CatalogueCommand {
    /// Read the prices the catalogue's sizes need from the AWS Price List (public files, no
    /// account needed) and write them as a catalogue file for `--catalogue` or `catalogue:`.
    Import {
        /// A region to import (repeatable).
        #[arg(long = "region", value_name = "R", required = true)]
        regions: Vec<String>,
        /// The Price List bulk API endpoint.
        #[arg(long, value_name = "URL", default_value = price_import::DEFAULT_ENDPOINT)]
        endpoint: String,
        /// The catalogue file to write; replaced only when every file was read.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Sizes to price: the built-in ones, extended with this catalogue file's.
        #[arg(long)]
        catalogue: Option<PathBuf>,
        /// `json`: `{"wrote","endpoint","regions":[{"name","priced","unpriced":[{"key","reason","wasPriced"}]}],"offers":[..]}`.
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
    },
}

/// Runs `runway catalogue` or its subcommand.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    match args.command {
        Some(CatalogueCommand::Import { regions, endpoint, out: file, catalogue, format }) => {
            import(&regions, &endpoint, &file, catalogue.as_deref(), format, out)
        }
        None => {
            show(args.root.as_deref(), args.region.as_deref(), args.format, args.catalogue.as_deref(), out)
        }
    }
}

/// Today's date (UTC), `YYYY-MM-DD`: the one clock read of `runway catalogue`.
fn today() -> String {
    let secs =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    cost::date_of_day(i64::try_from(secs / 86_400).unwrap_or(0))
}

/// `runway catalogue [ROOT]`.
fn show(
    root: Option<&Path>,
    region: Option<&str>,
    format: Format,
    flag: Option<&Path>,
    out: Out,
) -> Result<(), Exit> {
    let cat = match root {
        Some(r) => catalogue_for(r, flag, out)?,
        None => catalogue(flag, out)?,
    };
    if let Some(r) = region
        && !cat.regions().iter().any(|x| x == r)
    {
        return Err(
            out.usage(format!("the catalogue has no region `{r}` (it has: {})", cat.regions().join(", ")))
        );
    }
    // The prices in use, per region: those the root's plans use, else every key the sizes need.
    let in_use: Vec<(String, Vec<String>)> = match root {
        Some(root) => keys_of_plans(root, &cat, out)?,
        None => cat.regions().into_iter().map(|r| (r, cat.price_keys())).collect(),
    };
    let today = today();
    let stale: Vec<StalePrice> = in_use
        .iter()
        .filter(|(r, _)| region.is_none_or(|asked| asked == r))
        .flat_map(|(r, keys)| cat.stale_prices(r, keys, &today, STALE_AFTER_DAYS))
        .collect();
    let shown: Vec<String> = region.map_or_else(|| cat.regions(), |r| vec![r.to_owned()]);
    match format {
        Format::Text => {
            out!("{}", cat.render_text(region));
            outln!("\nOldest price per region (today {today})");
            for r in &shown {
                match cat.oldest_seen(r) {
                    Some(seen) => outln!("  {r:<16} {seen}{}", age(seen, &today)),
                    None => outln!("  {r:<16} no price"),
                }
            }
        }
        Format::Json => {
            let mut value = cat.to_json_value(region);
            if let Some(Value::Array(regions)) = value.get_mut("regions") {
                for r in regions.iter_mut() {
                    let name = r["name"].as_str().unwrap_or_default().to_owned();
                    r["oldestSeen"] = cat.oldest_seen(&name).map_or(Value::Null, |s| json!(s));
                }
            }
            value["today"] = json!(today);
            value["stale"] = stale
                .iter()
                .map(|s| json!({"region": s.region, "key": s.key, "seen": s.seen, "ageDays": s.age_days}))
                .collect();
            outln!("{}", serde_json::to_string_pretty(&value).unwrap_or_default());
        }
    }
    warn_stale(&stale);
    Ok(())
}

/// The price keys every environment's plan of a root uses (its lines and its usage-based
/// rates), per region in the order the environments name them.
fn keys_of_plans(root: &Path, cat: &Catalogue, out: Out) -> Result<Vec<(String, Vec<String>)>, Exit> {
    let (product, _) = load_valid(root, cat, out)?;
    let mut in_use: Vec<(String, Vec<String>)> = Vec::new();
    for (name, env) in &product.root.environments {
        let plan = runtime_plan::plan(&product, name, cat).map_err(|e| out.usage(e))?;
        let keys = plan
            .cost
            .lines
            .iter()
            .map(|l| &l.line.key)
            .chain(plan.cost.usage_based.iter().map(|u| &u.rate.key));
        let at = match in_use.iter().position(|(r, _)| *r == env.region) {
            Some(i) => i,
            None => {
                in_use.push((env.region.clone(), Vec::new()));
                in_use.len() - 1
            }
        };
        for key in keys {
            if !in_use[at].1.iter().any(|k| **k == **key) {
                in_use[at].1.push(key.to_string());
            }
        }
    }
    Ok(in_use)
}

/// ` (N days ago)`, or nothing for a date that does not parse.
fn age(seen: &str, today: &str) -> String {
    match (cost::day_number(seen), cost::day_number(today)) {
        (Some(s), Some(t)) => format!(" ({} days ago)", t - s),
        _ => String::new(),
    }
}

/// One warning per region with prices in use older than the limit, on stderr.
fn warn_stale(stale: &[StalePrice]) {
    let mut regions: Vec<&str> = stale.iter().map(|s| s.region.as_str()).collect();
    regions.dedup();
    for region in regions {
        let of: Vec<&StalePrice> = stale.iter().filter(|s| s.region == region).collect();
        let named: Vec<String> =
            of.iter().take(3).map(|s| format!("`{}` ({}, {} days)", s.key, s.seen, s.age_days)).collect();
        let more = if of.len() > 3 { format!(" and {} more", of.len() - 3) } else { String::new() };
        errln!(
            "warning: {} price(s) in use in {region} were seen more than {STALE_AFTER_DAYS} days ago: {}{more}; \
             refresh them with `runway catalogue import --region {region} --out <FILE>`",
            of.len(),
            named.join(", ")
        );
    }
}

/// A progress line on a terminal (stderr), redrawn in place; silent otherwise.
struct ProgressLine {
    terminal: bool,
    last: u64,
    drawn: bool,
}

impl ProgressLine {
    fn show(&mut self, p: &price_import::Progress<'_>) {
        // Redraw every 256 KiB and at the end of each file.
        if !self.terminal || (!p.done && p.received < self.last + 256 * 1024 && p.received >= self.last) {
            return;
        }
        self.last = if p.done { 0 } else { p.received };
        let file = match p.region {
            Some(r) => format!("{} {r}", p.offer),
            None => format!("{} region index", p.offer),
        };
        let mb = |b: u64| b as f64 / 1_000_000.0;
        let size = match p.total {
            Some(t) => format!("{:.1} of {:.1} MB", mb(p.received), mb(t)),
            None => format!("{:.1} MB", mb(p.received)),
        };
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2Kreading {file}: {size}");
        let _ = err.flush();
        self.drawn = true;
    }

    fn finish(&mut self) {
        if self.drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

/// `runway catalogue import`.
fn import(
    regions: &[String],
    endpoint: &str,
    file: &Path,
    flag: Option<&Path>,
    format: Format,
    out: Out,
) -> Result<(), Exit> {
    let cat = catalogue(flag, out)?;
    let mut wanted: Vec<String> = Vec::new();
    for r in regions {
        if !wanted.contains(r) {
            wanted.push(r.clone());
        }
    }
    let keys = cat.price_keys();
    // An `--out` that cannot be written is found before the downloads, not after.
    let temp = temp_beside(file);
    std::fs::write(&temp, "")
        .and_then(|()| std::fs::remove_file(&temp))
        .map_err(|e| out.usage(format!("cannot write {}: {e}", file.display())))?;
    let runtime = crate::session::runtime(out)?;
    let mut line = ProgressLine {
        terminal: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        last: 0,
        drawn: false,
    };
    let result = runtime.block_on(price_import::import(endpoint, &wanted, &keys, &mut |p| line.show(p)));
    line.finish();
    let imported = match result {
        Ok(i) => i,
        Err(e) if e.is_usage() => return Err(out.usage(e)),
        Err(e) => return Err(out.fail(EXIT_REMOTE, format!("{e}; nothing was written"))),
    };
    let mut text = format!(
        "# Prices read by `runway catalogue import` from the AWS Price List at {endpoint} on {}.\n\
         # Each source names the offer file, its version and the SKU; `seen` is the offer's publication date.\n",
        today()
    );
    text.push_str(&imported.catalogue.to_yaml());
    write_whole(file, &text, out)?;
    report(file, endpoint, &imported, &cat, format);
    Ok(())
}

/// Writes `text` to `path` through a temporary file in the same folder, renamed over it: a
/// reader never sees half a file, and a failure leaves the old file as it was.
fn write_whole(path: &Path, text: &str, out: Out) -> Result<(), Exit> {
    let temp = temp_beside(path);
    let written = std::fs::write(&temp, text).and_then(|()| std::fs::rename(&temp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(out.usage(format!("cannot write {}: {e}", path.display())));
    }
    Ok(())
}

/// The temporary file a write of `path` goes through, in the same folder (so the rename is
/// atomic).
fn temp_beside(path: &Path) -> PathBuf {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name =
        path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "catalogue".to_owned());
    dir.join(format!(".{name}.{}.tmp", std::process::id()))
}

/// What was written: per region the priced count and each unpriced key with its reason.
fn report(out: &Path, endpoint: &str, imported: &price_import::Imported, base: &Catalogue, format: Format) {
    let cat: &Catalogue = &imported.catalogue;
    // An unpriced key that the catalogue in use prices: laid over it, the file unprices it.
    let was_priced = |region: &str, key: &str| {
        base.price_table(region)
            .and_then(|t| t.get(key))
            .is_some_and(|e| matches!(e.status, PriceStatus::Priced { .. }))
    };
    let regions: Vec<Value> = cat
        .regions()
        .iter()
        .map(|r| {
            let table = cat.price_table(r).cloned().unwrap_or_default();
            let priced = table.values().filter(|e| matches!(e.status, PriceStatus::Priced { .. })).count();
            let unpriced: Vec<Value> = table
                .iter()
                .filter_map(|(key, e)| match &e.status {
                    PriceStatus::Unpriced { unpriced } => {
                        Some(json!({"key": key, "reason": unpriced, "wasPriced": was_priced(r, key)}))
                    }
                    PriceStatus::Priced { .. } => None,
                })
                .collect();
            json!({"name": r, "priced": priced, "unpriced": unpriced})
        })
        .collect();
    let offers: Vec<Value> = imported
        .offers
        .iter()
        .map(|o| json!({"offer": o.offer, "region": o.region, "version": o.version, "url": o.url}))
        .collect();
    if format == Format::Json {
        outln!(
            "{}",
            json!({"wrote": out.display().to_string(), "endpoint": endpoint, "regions": regions, "offers": offers})
        );
        return;
    }
    outln!("wrote {} from {endpoint}", out.display());
    for r in &regions {
        let unpriced = r["unpriced"].as_array().map_or(0, Vec::len);
        outln!("  {}: {} priced, {unpriced} unpriced", r["name"].as_str().unwrap_or_default(), r["priced"]);
        for u in r["unpriced"].as_array().into_iter().flatten() {
            let key = u["key"].as_str().unwrap_or_default();
            outln!("    {key}: {}", u["reason"].as_str().unwrap_or_default());
            if u["wasPriced"] == true {
                outln!(
                    "      (the catalogue in use prices `{key}`; laid over it, this file leaves it unpriced)"
                );
            }
        }
    }
    outln!(
        "use it with `--catalogue {0}`, or `catalogue: {0}` in the root runway (relative to it)",
        out.display()
    );
}
