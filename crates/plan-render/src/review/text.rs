//! The review as text for a terminal: per environment the cost line, the item lines of
//! `runway diff` (`+`, `-`, `~`), and the breaking lines (`!`).

use std::fmt::Write as _;

use runway_schema::Money;

use runtime_plan::review::{Breaking, Cause, EnvironmentReview, ItemChangeKind, Review, SideCost};

/// The review as text.
pub fn render_review_text(r: &Review) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "review of {} against {}", r.product, r.base);
    if r.environments.is_empty() {
        out.push_str("  no environment is declared on either side\n");
    }
    for e in &r.environments {
        environment(&mut out, e);
    }
    out
}

fn environment(out: &mut String, e: &EnvironmentReview) {
    let side =
        |c: &Option<SideCost>| c.as_ref().map_or_else(|| "(none)".to_owned(), |c| format!("${}", c.monthly));
    let state = match &e.after {
        Some(a) => {
            let cap = a.cap.map_or_else(|| "no cap".to_owned(), |c| format!("cap ${c}"));
            format!("{cap}: {}", a.verdict.text(a.refused))
        }
        None => "environment removed".to_owned(),
    };
    let _ = writeln!(
        out,
        "{}: {} -> {} ({} a month); {state}",
        e.name,
        side(&e.before),
        side(&e.after),
        signed(e.delta)
    );
    if let Some(i) = e.increase.as_ref().filter(|i| i.over) {
        let _ = writeln!(
            out,
            "  warning: the rise is over its limit `limits.increase: {}` (${} a month); not a refusal",
            i.limit, i.allowed
        );
    }
    if e.items.is_empty() {
        out.push_str("  no item changes\n");
    }
    for r in &e.items {
        let mark = match r.change {
            ItemChangeKind::Added => "+",
            ItemChangeKind::Removed => "-",
            ItemChangeKind::Resized | ItemChangeKind::Changed => "~",
        };
        let money = |m: Option<Money>| r.kind.price_text(m);
        let cost = match r.change {
            ItemChangeKind::Added => money(r.monthly_after),
            ItemChangeKind::Removed => money(r.monthly_before),
            ItemChangeKind::Resized | ItemChangeKind::Changed => {
                format!("{} -> {}", money(r.monthly_before), money(r.monthly_after))
            }
        };
        let _ = writeln!(out, "  {mark} {:<28} {:<24} {}  {cost}", r.id, r.kind.as_str(), r.physical_name);
        for f in &r.fields {
            let none = "(none)";
            let (b, a) = (f.before.as_deref().unwrap_or(none), f.after.as_deref().unwrap_or(none));
            let _ = writeln!(out, "      {}: {b} -> {a}", f.field);
        }
    }
    for b in &e.breaking {
        breaking_line(out, b);
    }
    super::pulumi::text_section(out, e);
}

/// `  ! orders uses sessions: resource removed; loses SESSIONS_URL, SESSIONS_HOST`
fn breaking_line(out: &mut String, b: &Breaking) {
    let mut what = match (&b.replaced_by, b.cause) {
        (Some(r), Cause::ResourceRenamed) => format!("resource renamed to {r}"),
        (Some(r), cause) => format!("{}; {r} instead", cause.as_str()),
        (None, cause) => cause.as_str().to_owned(),
    };
    if !b.lost.is_empty() {
        let _ = write!(what, "; loses {}", b.lost.join(", "));
    }
    for r in &b.renamed {
        let _ = write!(what, "; {} is now {}", r.from, r.to);
    }
    let _ = writeln!(out, "  ! {} uses {}: {what}", b.consumer, b.resource);
}

fn signed(m: Money) -> String {
    let m = m.cents();
    if m.0.is_sign_negative() && !m.0.is_zero() {
        format!("-${}", Money(m.0.abs()))
    } else {
        format!("+${m}")
    }
}
