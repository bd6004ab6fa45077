//! The text of `runway teardown`: what the environment holds, what is deleted, what is kept
//! and what the kept items cost a month, then whether the teardown is refused.

use std::fmt::{self, Write as _};

use runtime_plan::teardown::TeardownPlan;

use crate::table::Table;

/// The `teardown` decision as text.
pub fn render_teardown_text(t: &TeardownPlan) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_teardown_text(t, &mut out);
    out
}

fn write_teardown_text(t: &TeardownPlan, out: &mut String) -> fmt::Result {
    writeln!(
        out,
        "teardown of {} / {} (teardown: {}): {} deleted, {} kept",
        t.product,
        t.environment,
        t.setting.as_str(),
        t.deleted.len(),
        t.kept.len()
    )?;
    writeln!(out, "deleted:")?;
    let mut d = Table::new(2, &["subject", "owner", "what"]);
    for h in &t.deleted {
        d.row(vec![h.subject.to_string(), h.owner.as_deref().unwrap_or("-").to_owned(), h.what.to_string()]);
    }
    d.write(out)?;
    writeln!(out, "kept:")?;
    let mut k = Table::new(2, &["subject", "owner", "what", "a month"]);
    for kept in &t.kept {
        k.row(vec![
            kept.subject.to_string(),
            kept.owner.as_deref().unwrap_or("-").to_owned(),
            kept.what.to_string(),
            kept.monthly.map_or_else(|| "unpriced".to_owned(), |m| format!("${m}")),
        ]);
    }
    k.write(out)?;
    for kept in &t.kept {
        writeln!(out, "  {}: {}; {}", kept.subject, kept.why, kept.note)?;
    }
    let unpriced = match t.unpriced {
        0 => String::new(),
        n => format!(" and {n} unpriced"),
    };
    writeln!(out, "the kept items cost ${} a month{unpriced}", t.kept_monthly)?;
    writeln!(
        out,
        "last: the SSM parameters under {}/ and the Infisical folders {}",
        t.parameter_prefix,
        t.infisical_folders.join(", ")
    )?;
    if let Some(refusal) = &t.refusal {
        writeln!(out, "{}", refusal.text(&t.environment))?;
    }
    Ok(())
}
