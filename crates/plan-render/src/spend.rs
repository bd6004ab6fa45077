//! The text of `runway spend`: the rows as a table, the totals against the cap, then the hints.

use std::fmt::{self, Write as _};

use runway_schema::Money;

use crate::table::{Table, WIDTH, wrap};
use runtime_plan::plan::Verdict;
use runtime_plan::spend::{RowKind, SpendReport};

/// The `spend` report as text.
pub fn render_spend_text(r: &SpendReport) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_spend_text(r, &mut out);
    out
}

fn write_spend_text(r: &SpendReport, out: &mut String) -> fmt::Result {
    let state = match (r.partial, r.estimated) {
        (true, _) => "month to date",
        (false, true) => "estimated, not final yet",
        (false, false) => "final",
    };
    writeln!(
        out,
        "spend {} / {}, {} (Cost Explorer, unblended cost; {state})",
        r.product, r.environment, r.month
    )?;
    rows_table(r).write(out)?;
    write_notes(r, out)
}

/// The rows, the untagged spend and the totals.
fn rows_table(r: &SpendReport) -> Table<'static> {
    let mut t = Table::new(2, &["name", "kind", "estimate", "actual", "difference"]);
    for row in &r.rows {
        let difference = match (row.kind, row.estimate) {
            (RowKind::Unplanned, _) => "-".to_owned(),
            (_, None) => "unpriced".to_owned(),
            (_, Some(e)) => difference(e, row.actual),
        };
        t.row(vec![
            row.name.to_string(),
            row.kind.words().to_owned(),
            estimate(row.estimate),
            dollars(row.actual),
            difference,
        ]);
    }
    t.row(vec![
        "untagged".to_owned(),
        "no resource tag".to_owned(),
        "-".to_owned(),
        dollars(r.untagged),
        String::new(),
    ]);
    t.row(vec![
        "total".to_owned(),
        String::new(),
        dollars(r.total.estimate),
        dollars(r.total.actual),
        difference(r.total.estimate, r.total.actual),
    ]);
    t
}

/// The verdict on the cap, what the bill's state means, then the hints.
fn write_notes(r: &SpendReport, out: &mut String) -> fmt::Result {
    match (r.cap, r.verdict) {
        (Some(cap), Verdict::Over) => {
            writeln!(
                out,
                "over the cap: the actual {} is over the cap {}",
                dollars(r.total.actual),
                dollars(cap)
            )?;
        }
        (Some(cap), Verdict::Within | Verdict::RefusedUnpriced | Verdict::Uncapped) => {
            writeln!(out, "within the cap {}", dollars(cap))?;
        }
        (None, Verdict::Within | Verdict::Over | Verdict::RefusedUnpriced | Verdict::Uncapped) => {
            writeln!(out, "no cap")?;
        }
    }
    if r.untagged.cents() > Money::ZERO && r.rows.iter().all(|row| row.actual.cents() == Money::ZERO) {
        wrapped(
            out,
            0,
            "all of it is without a `resource` tag: is `resource` an active cost allocation tag in the \
             payer account? (activation does not backfill)",
        )?;
    }
    if r.partial {
        writeln!(
            out,
            "the month is not over: the actuals are month to date, the estimates a whole month (no hints)"
        )?;
    } else if r.estimated {
        writeln!(
            out,
            "Cost Explorer marks the bill as estimated: it is final a few days into the next month"
        )?;
    }
    let hints: Vec<_> = r.rows.iter().filter_map(|row| row.hint.as_ref().map(|h| (&row.name, h))).collect();
    if !hints.is_empty() {
        writeln!(out, "differences over 20%:")?;
        for (name, hint) in hints {
            wrapped(out, 2, &format!("{name}: {}", hint.text()))?;
        }
    }
    Ok(())
}

/// `text` at `indent`, wrapped to the width of the text renderings, its further lines two
/// spaces deeper.
fn wrapped(out: &mut String, indent: usize, text: &str) -> fmt::Result {
    for (i, line) in wrap(text, WIDTH - indent - 2).iter().enumerate() {
        let at = if i == 0 { indent } else { indent + 2 };
        writeln!(out, "{:at$}{line}", "")?;
    }
    Ok(())
}

fn dollars(m: Money) -> String {
    format!("${m}")
}

fn estimate(m: Option<Money>) -> String {
    m.map_or_else(|| "-".to_owned(), dollars)
}

/// `+$5.32 (+14.8%)`, `-$1.00 (-2.0%)`, of the amounts as shown (to the cent); no share when
/// the estimate is zero.
fn difference(estimate: Money, actual: Money) -> String {
    let (estimate, actual) = (estimate.cents(), actual.cents());
    let d = actual - estimate;
    let sign = if d.0.is_sign_negative() && !d.0.is_zero() { "-" } else { "+" };
    let amount = format!("{sign}${}", Money(d.0.abs()));
    if estimate.0.is_zero() {
        return amount;
    }
    let share = (d.0 * rust_decimal::Decimal::ONE_HUNDRED / estimate.0).round_dp(1);
    let share_sign = if share.is_sign_negative() && !share.is_zero() { "-" } else { "+" };
    format!("{amount} ({share_sign}{:.1}%)", share.abs())
}
