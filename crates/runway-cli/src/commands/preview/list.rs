//! `runway preview list` (each preview found by its tags: PR, age, expiry, estimate; the
//! pool's total against its cap; leftovers no stack holds) and `runway preview sweep --open
//! 12,15 [--dry-run]` (removes the expired, the closed pull requests' and the leftovers, with
//! `down`'s steps; never a declared environment). The clock is `--now` or the machine's.

use std::collections::BTreeSet;

use runtime_plan::preview_pool::{LivePreview, Removal, pool_total, sweep};
use serde::Serialize;
use serde_json::json;

use super::{StackArgs, clock, down, live, span};
use crate::prelude::*;

/// Lists the live previews (found by their tags): PR, age, expiry, monthly estimate, and the
/// pool's total against its cap; leftovers no stack holds are marked.
#[derive(clap::Args)]
pub(crate) struct ListArgs {
    #[command(flatten)]
    stack: StackArgs,
    /// The time to take as now (RFC 3339; default the clock).
    #[arg(long, value_name = "TIME")]
    now: Option<String>,
    #[command(flatten)]
    format: FormatArg,
    #[command(flatten)]
    root: RootArgs,
}

impl CommandArgs for ListArgs {
    fn json(&self) -> bool {
        self.format.format.json()
    }
}

/// Removes the expired previews, those whose pull request is not open, and leftovers no
/// stack holds; never a declared environment.
#[derive(clap::Args)]
pub(crate) struct SweepArgs {
    /// The open pull requests' numbers, comma-separated (`12,15`; empty when none is open).
    #[arg(long, value_name = "N,N,...", required = true)]
    open: String,
    /// Show what would be removed, remove nothing.
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    stack: StackArgs,
    /// The time to take as now (RFC 3339; default the clock).
    #[arg(long, value_name = "TIME")]
    now: Option<String>,
    #[command(flatten)]
    format: FormatArg,
    #[command(flatten)]
    root: RootArgs,
}

impl CommandArgs for SweepArgs {
    fn json(&self) -> bool {
        self.format.format.json()
    }
}

/// One preview as `list` shows it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Row<'a> {
    #[serde(flatten)]
    preview: &'a LivePreview,
    #[serde(skip_serializing_if = "Option::is_none")]
    pr: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    age_seconds: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expires_at: Option<String>,
    leftover: bool,
    resources: usize,
}

/// Runs `runway preview list`.
pub(crate) fn run_list(args: ListArgs, out: Out) -> Result<(), Exit> {
    let (product, from, _) = live::product_and_from(&args.root, out)?;
    let now = clock(args.now.as_deref(), out)?;
    let Some(settings) = &product.root.previews else { return Err(out.usage("no previews")) };
    let expire = settings.expire_after.as_secs();
    let found = crate::session::runtime(out)?.block_on(async {
        let aws = crate::session::aws(&from, out).await?;
        live::find(&aws, &from.product, Some((&args.stack, &args.root.file)), out).await
    })?;
    let rows: Vec<Row<'_>> = found
        .previews
        .iter()
        .map(|p| Row {
            preview: p,
            pr: p.pr(),
            age_seconds: p.age(now),
            expires_at: p.expires_at(expire).map(utc),
            leftover: !p.stack,
            resources: found.resources.iter().filter(|r| r.preview == p.name).count(),
        })
        .collect();
    let total = pool_total(&found.previews);
    if args.format.format.json() {
        print_json(&json!({"previews": rows, "total": total, "cap": settings.monthly, "max": settings.max}));
        return Ok(());
    }
    if rows.is_empty() {
        outln!("no live previews");
    }
    for r in &rows {
        let age = r.age_seconds.map_or_else(|| "?".to_owned(), span);
        let expiry = match r.preview.expires_at(expire) {
            Some(at) if at <= now => "expired".to_owned(),
            Some(at) => format!("expires in {}", span(at - now)),
            None => "expiry unknown".to_owned(),
        };
        let monthly = r.preview.monthly.map_or_else(|| "?".to_owned(), |m| format!("${}", m.cents()));
        let mark = if r.leftover { "  leftover: no stack holds it" } else { "" };
        outln!("{:<8} age {age:<8} {expiry:<18} {monthly:>9}/month{mark}", r.preview.name);
    }
    outln!(
        "previews ${} of ${} a month; {} of at most {} live",
        total.cents(),
        settings.monthly.cents(),
        rows.len(),
        settings.max
    );
    Ok(())
}

/// Runs `runway preview sweep`.
pub(crate) fn run_sweep(args: SweepArgs, out: Out) -> Result<(), Exit> {
    let open = open_numbers(&args.open).map_err(|e| out.usage(e))?;
    let (product, from, cat) = live::product_and_from(&args.root, out)?;
    let now = clock(args.now.as_deref(), out)?;
    let Some(settings) = &product.root.previews else { return Err(out.usage("no previews")) };
    let found = crate::session::runtime(out)?.block_on(async {
        let aws = crate::session::aws(&from, out).await?;
        live::find(&aws, &from.product, Some((&args.stack, &args.root.file)), out).await
    })?;
    let declared: Vec<&str> = product.root.environments.keys().map(String::as_str).collect();
    let chosen: Vec<Removal> = sweep(&found.previews, &open, now, settings.expire_after.as_secs(), &declared);
    let format = args.format.format;
    let mut reports = Vec::new();
    for removal in &chosen {
        let verb = if args.dry_run { "would remove" } else { "removing" };
        if !format.json() {
            outln!("{verb} {} ({})", removal.name, reason(removal));
        }
        if args.dry_run {
            continue;
        }
        let plan = runtime_plan::preview_plan(&product, removal.pr, &cat).map_err(|e| out.usage(e))?;
        let session = Session { out, product: product.clone(), plan };
        let report = down::tear_down(
            &session,
            &args.stack,
            (&args.root.file, super::drop_db::DEFAULT_TIMING),
            Format::Text,
        )?;
        if !format.json() {
            down::show(&report, Format::Text);
        }
        reports.push(report);
    }
    if format.json() {
        print_json(&json!({"dryRun": args.dry_run, "removals": chosen, "removed": reports}));
    } else if chosen.is_empty() {
        outln!("nothing to sweep");
    }
    Ok(())
}

/// Why, in words.
fn reason(r: &Removal) -> &'static str {
    match r.reason {
        runtime_plan::preview_pool::SweepReason::Expired => "expired",
        runtime_plan::preview_pool::SweepReason::Closed => "its pull request is not open",
        runtime_plan::preview_pool::SweepReason::Leftover => "a leftover no stack holds",
    }
}

/// `12,15` → {12, 15}; empty → none.
fn open_numbers(text: &str) -> Result<BTreeSet<u64>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| t.parse::<u64>().map_err(|_| format!("--open {text:?}: `{t}` is not a pull request number")))
        .collect()
}

/// Seconds since the epoch as `2026-12-06T17:00:00Z`.
fn utc(seconds: u64) -> String {
    i64::try_from(seconds)
        .ok()
        .and_then(|s| jiff::Timestamp::from_second(s).ok())
        .map_or_else(|| seconds.to_string(), |t| t.to_string())
}
