//! The diff as text (`runway diff`).

use std::fmt::Write as _;

use runtime_plan::diff::PlanDiff;
use runway_schema::Money;

/// The diff as text: added (`+`), removed (`-`) and changed (`~`) items, then the cost delta.
pub fn render_diff_text(d: &PlanDiff) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "diff of {} / {}", d.product, d.environment);
    if d.is_empty() {
        out.push_str("  no item changes\n");
    }
    for a in &d.added {
        let _ = writeln!(
            out,
            "  + {:<28} {:<24} {}  {}",
            a.id,
            a.kind.as_str(),
            a.physical_name,
            a.kind.price_text(a.monthly)
        );
    }
    for r in &d.removed {
        let _ = writeln!(
            out,
            "  - {:<28} {:<24} {}  {}",
            r.id,
            r.kind.as_str(),
            r.physical_name,
            r.kind.price_text(r.monthly)
        );
    }
    for c in &d.changed {
        let _ = writeln!(out, "  ~ {:<28} {:<24} {}", c.id, c.kind.as_str(), c.physical_name);
        for f in &c.changes {
            let _ = writeln!(
                out,
                "      {}: {} -> {}",
                f.field,
                f.before.as_deref().unwrap_or("(none)"),
                f.after.as_deref().unwrap_or("(none)")
            );
        }
    }
    let sign = if d.cost.delta.0.is_sign_negative() && !d.cost.delta.0.is_zero() { "-" } else { "+" };
    let abs = Money(d.cost.delta.0.abs());
    let _ = writeln!(
        out,
        "cost: ${} -> ${} ({sign}${abs} a month); ceiling ${} -> ${}",
        d.cost.before, d.cost.after, d.cost.ceiling_before, d.cost.ceiling_after
    );
    out
}
