//! The cost section of the plan's text: the cost lines grouped by owner, the unpriced items
//! with their reasons, the estimate, typical and ceiling figures and the total against the
//! cap; then the usage counted, what is billed by use, and the budget. A large plan has tens
//! of thousands of cost lines: their rows are made twice ([`write_twice`]), never held.

use std::fmt;

use runtime_plan::plan::{BudgetBasis, CostLine, ItemSpec, Plan, PlannedItem, UnpricedItem};

use super::sorted::Sorted;
use super::{cap_text, write_note};
use crate::table::{Emit, Line, write_twice};

/// The section's look-ups: the plan's items by id and by owner, its cost lines and unpriced
/// items by item.
pub(super) struct Index<'p> {
    items: &'p Sorted<'p, PlannedItem>,
    owners: Sorted<'p, PlannedItem>,
    lines: Sorted<'p, CostLine>,
    unpriced: Sorted<'p, UnpricedItem>,
}

/// Cost lines grouped by owner (the environment, each resource, each workload), unpriced
/// items with their reason, the estimate and the ceiling, then the total against the cap.
pub(super) fn write(p: &Plan, items: &Sorted<'_, PlannedItem>, out: &mut impl fmt::Write) -> fmt::Result {
    out.write_str("\ncost (a month, 730 hours)\n")?;
    let index = Index {
        items,
        // Each owner's items together, owners in the order first met: the alarms, planned
        // last, join their resource's or workload's lines.
        owners: Sorted::by(&p.items, PlannedItem::owner_name),
        lines: Sorted::by(&p.cost.lines, |l| l.item.as_str()),
        unpriced: Sorted::by(&p.cost.unpriced, |u| u.item.as_str()),
    };
    let header: &[&str] = &["item", "what", "quantity x unit price", "monthly"];
    write_twice(out, (2, header, Some(1)), |emit| rows(p, &index, emit))?;
    writeln!(out, "  total ${} a month: {}", p.cost.monthly, cap_text(p))?;
    if !p.cost.unpriced.is_empty() {
        writeln!(out, "  {} unpriced item(s), never counted as $0:", p.cost.unpriced.len())?;
        // Unpriced items by reason (many items share one), reasons in the order first met.
        let mut reasons: Vec<(&str, Vec<&PlannedItem>)> = Vec::new();
        for item in index.owners.runs_in_order() {
            let Some(u) = index.unpriced.get(&item.id) else { continue };
            match reasons.iter_mut().find(|(r, _)| *r == u.reason.as_str()) {
                Some((_, items)) => items.push(item),
                None => reasons.push((u.reason.as_str(), vec![item])),
            }
        }
        for (reason, items) in &reasons {
            write_note(out, 4, &format!("why: {reason}"))?;
            let labels: Vec<String> = items.iter().map(|i| i.label()).collect();
            write_note(out, 4, &format!("items: {}", labels.join(", ")))?;
        }
    }
    write_usage(p, out)?;
    write_usage_based(p, index.items, out)?;
    write_budget(p, out)
}

/// The cost table's rows: each owner's title, then its items' lines (an unpriced item's with
/// why), then the floor (the estimate), typical and ceiling figures.
fn rows(p: &Plan, index: &Index<'_>, emit: &mut Emit<'_>) -> fmt::Result {
    let mut owner: Option<&str> = None;
    for item in index.owners.runs_in_order() {
        let mut item_lines = index.lines.all(&item.id).peekable();
        let why = index.unpriced.get(&item.id);
        if item_lines.peek().is_none() && why.is_none() {
            continue;
        }
        if owner != Some(item.owner_name()) {
            owner = Some(item.owner_name());
            emit(Line::Group(item.owner_name()))?;
        }
        // An alarm's name goes in the wrapping column: `alarm cache-evictions (node 2)` as an
        // item would widen the item column past the page.
        let (mut what, named) = match item.what().strip_prefix("alarm ") {
            Some(name) if matches!(item.spec, ItemSpec::MetricAlarm { .. }) => {
                ("  alarm".to_owned(), Some(format!("{name}, standard alarm")))
            }
            _ => (format!("  {}", item.what()), None),
        };
        for l in item_lines {
            emit(Line::Cells(&[
                std::mem::take(&mut what),
                named.clone().unwrap_or_else(|| l.line.what.to_string()),
                format!(
                    "{} {} x ${}",
                    quantity(l.line.quantity),
                    l.line.unit,
                    l.line.unit_price.0.normalize()
                ),
                format!("${}", l.line.monthly),
            ]))?;
        }
        if why.is_some() {
            let unpriced = match item.what().strip_prefix("alarm ") {
                Some(name) if named.is_some() => format!("{name}, not in the catalogue (why below)"),
                _ => "not in the catalogue (why below)".to_owned(),
            };
            emit(Line::Cells(&[what, unpriced, String::new(), "unpriced".into()]))?;
        }
    }
    // The floor (the estimate), typical and ceiling figures; typical only where it differs.
    let typical = p.cost.typical.map(|t| ("typical", "workloads midway to scale.max", t));
    for (name, what, m) in std::iter::once(("estimate", "workloads at scale.min", p.cost.monthly))
        .chain(typical)
        .chain([("ceiling", "workloads at scale.max", p.cost.ceiling)])
    {
        emit(Line::Cells(&[name.into(), what.into(), String::new(), format!("${m}")]))?;
    }
    Ok(())
}

/// The amounts of use the estimate counts, each with where it comes from: declared in the
/// environment's `usage`, or the default of the item's size.
fn write_usage(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    if p.cost.usage.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "  usage counted in the estimate (a month; declare it under environments.{}.usage):",
        p.environment
    )?;
    // The title names the environment's `usage`: each key is shown from there.
    let prefix = format!("environments.{}.", p.environment);
    let header: &[&str] = &["owner", "usage", "amount", "source"];
    write_twice(out, (4, header, Some(3)), |emit| {
        for u in &p.cost.usage {
            let from = u.from.strip_prefix(prefix.as_str()).unwrap_or(&u.from);
            emit(Line::Cells(&[
                u.owner.as_deref().unwrap_or("environment").to_owned(),
                u.usage.as_str().to_owned(),
                format!("{} {}", u.amount.normalize(), u.unit),
                format!("{} ({from})", u.source.as_str()),
            ]))?;
        }
        Ok(())
    })
}

/// The rates of what is billed by use: shown, never added to the estimate.
fn write_usage_based(p: &Plan, items: &Sorted<'_, PlannedItem>, out: &mut impl fmt::Write) -> fmt::Result {
    if p.cost.usage_based.is_empty() {
        return Ok(());
    }
    out.write_str("  billed by use, not in the estimate:\n")?;
    write_twice(out, (4, &["item", "charge", "rate"], Some(1)), |emit| {
        for u in &p.cost.usage_based {
            let label = items.get(&u.item).map_or_else(|| u.item.to_string(), PlannedItem::label);
            let rate = match u.rate.unit_price {
                // `$0.5 / GB`, `$5 / 1M requests`: the column stays narrow enough for
                // 30-character names beside the longest charges.
                Some(price) => {
                    format!("${} / {}", price.0.normalize(), u.rate.unit.replacen("million ", "1M ", 1))
                }
                None => "no price in the catalogue".to_owned(),
            };
            emit(Line::Cells(&[label, u.rate.what.to_string(), rate]))?;
        }
        Ok(())
    })
}

/// The budget backstop of the environment, or that it has none.
fn write_budget(p: &Plan, out: &mut impl fmt::Write) -> fmt::Result {
    let budget = p.items.iter().find_map(|i| {
        let ItemSpec::Budget(budget) = &i.spec else { return None };
        Some((&budget.limit, &budget.alerts))
    });
    match budget {
        Some((limit, alerts)) => {
            let when: Vec<String> = alerts
                .iter()
                .map(|a| {
                    let basis = match a.basis {
                        BudgetBasis::Forecasted => "forecast",
                        BudgetBasis::Actual => "actual",
                    };
                    format!("{}% {basis}", a.percent)
                })
                .collect();
            writeln!(
                out,
                "  budget: AWS Budgets ${} a month, alerts at {}",
                limit.cents(),
                when.join(" and ")
            )
        }
        None => out.write_str("  budget: none (no cap, so no AWS Budgets backstop)\n"),
    }
}

/// A quantity as the cost table shows it: exact up to two decimals, else rounded to two with
/// `~` (hours within active hours are fractions such as 70.6101190476...; the line's monthly
/// figure stays exact).
fn quantity(q: rust_decimal::Decimal) -> String {
    let shown = q.round_dp(2);
    if shown == q { q.normalize().to_string() } else { format!("~{}", shown.normalize()) }
}
