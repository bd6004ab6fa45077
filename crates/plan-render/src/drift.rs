//! The text of `runway drift`: the findings as a table (kind, subject, what, planned, live,
//! monthly), then the estimate with the drift against the cap.

use std::fmt::{self, Write as _};

use runtime_plan::drift::DriftReport;
use runway_schema::Money;

use crate::table::Table;

/// The `drift` report as text.
pub fn render_drift_text(r: &DriftReport) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_drift_text(r, &mut out);
    out
}

fn write_drift_text(r: &DriftReport, out: &mut String) -> fmt::Result {
    if !r.drifted() {
        writeln!(out, "no drift in {} / {}: the account holds what the plan says", r.product, r.environment)?;
        return write_total(r, out);
    }
    let n = r.findings.len();
    writeln!(
        out,
        "drift in {} / {}: {n} difference{} from the plan",
        r.product,
        r.environment,
        if n == 1 { "" } else { "s" }
    )?;
    let mut t = Table::new(2, &["kind", "subject", "what", "planned", "live", "monthly"]);
    for f in &r.findings {
        t.row(vec![
            f.kind.words().to_owned(),
            f.subject.to_string(),
            f.what.to_string(),
            f.planned.as_deref().unwrap_or("-").to_owned(),
            f.live.as_deref().unwrap_or("-").to_owned(),
            f.monthly.map_or_else(|| "unpriced".to_owned(), signed),
        ]);
    }
    t.write(out)?;
    writeln!(out, "how each is priced:")?;
    for f in &r.findings {
        writeln!(out, "  {}: {}", f.subject, f.note)?;
    }
    write_total(r, out)
}

/// The estimate, with the drift, against the cap.
fn write_total(r: &DriftReport, out: &mut String) -> fmt::Result {
    let unpriced = match r.unpriced {
        0 => String::new(),
        n => format!(" ({n} unpriced, not counted)"),
    };
    writeln!(out, "estimate ${} a month; with the drift ${}{unpriced}", r.estimate, r.drifted)?;
    match (r.cap, r.over_cap) {
        (Some(cap), true) => writeln!(out, "over the cap: ${} is over the cap ${cap}", r.drifted),
        (Some(cap), false) => writeln!(out, "within the cap ${cap}"),
        (None, _) => writeln!(out, "no cap"),
    }
}

/// `+$5.32`, `-$1.00`, `$0.00`.
fn signed(m: Money) -> String {
    let m = m.cents();
    if m.0.is_zero() {
        return "$0.00".to_owned();
    }
    let sign = if m.0.is_sign_negative() { "-" } else { "+" };
    format!("{sign}${}", Money(m.0.abs()))
}
