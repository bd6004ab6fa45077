//! The review as markdown for a pull-request comment: a summary table, then one section per
//! environment (cost, items, breaking for consumers). Tables longer than [`FOLD_AFTER`] rows
//! fold into `<details>`.

use std::fmt::Write as _;

use runway_schema::Money;

use runtime_plan::diff::FieldChange;
use runtime_plan::plan::ConsumerKind;
use runtime_plan::review::{Breaking, Cause, EnvironmentReview, ItemChangeKind, ItemRow, Review, SideCost};

/// The comment's first line: a CI job finds its earlier comment by it and updates it.
pub const REVIEW_MARKER: &str = "<!-- runway-review -->";

/// A table with more rows than this folds into `<details>`.
const FOLD_AFTER: usize = 10;

/// At most this many properties are listed in an item's row (the JSON has them all).
const FIELDS_SHOWN: usize = 4;

/// A property's values are shown when both are at most this long.
const VALUE_SHOWN: usize = 40;

/// The review as markdown: the marker, a heading, a summary of every environment, then a
/// section for each.
pub fn render_review_markdown(r: &Review) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{REVIEW_MARKER}");
    let _ = writeln!(out, "### runway: {} against {}\n", code(&r.product), code(&r.base));
    if r.environments.is_empty() {
        out.push_str("No environment is declared on either side.\n");
        return out;
    }
    summary(&mut out, r);
    for e in r.over_increase() {
        let _ = writeln!(out, "> [!WARNING]\n> {}\n", increase_warning(e));
    }
    super::pulumi::markdown_warnings(&mut out, r);
    for e in &r.environments {
        environment(&mut out, e);
    }
    out
}

/// One row per environment: before, after, change, cap, verdict.
fn summary(out: &mut String, r: &Review) {
    out.push_str("| environment | before | after | change a month | cap | verdict |\n");
    out.push_str("|---|--:|--:|--:|--:|---|\n");
    for e in &r.environments {
        let shown = |c: &Option<SideCost>| c.as_ref().map_or_else(|| "—".to_owned(), |c| dollars(c.monthly));
        let (cap, verdict) = match &e.after {
            Some(a) => (a.cap.map_or_else(|| "none".to_owned(), dollars), verdict(a)),
            None => ("—".to_owned(), "removed".to_owned()),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {cap} | {verdict} |",
            e.name,
            shown(&e.before),
            shown(&e.after),
            signed(e.delta)
        );
    }
    out.push('\n');
}

/// An environment's section: its heading, its cost sentence, its items, its breaking list.
fn environment(out: &mut String, e: &EnvironmentReview) {
    let _ = writeln!(out, "#### {}\n", e.name);
    cost_sentence(out, e);
    if e.is_empty() {
        out.push_str("No changes.\n\n");
        return;
    }
    items(out, &e.items);
    if e.before.is_some() && e.after.is_some() {
        breaking(out, &e.breaking);
    }
    super::pulumi::markdown_section(out, e);
}

/// `Estimate $97.12 → $110.40 (+$13.28 a month); cap $150.00: **within**.`
fn cost_sentence(out: &mut String, e: &EnvironmentReview) {
    match (&e.before, &e.after) {
        (Some(b), Some(a)) => {
            let cap = match (b.cap, a.cap) {
                (x, y) if x == y => cap_text(y),
                (x, y) => format!("{} → {}", cap_text(x), cap_text(y)),
            };
            let increase = match &e.increase {
                Some(i) if i.over => format!(" **Over its rise limit** ({}).", limit_text(i)),
                Some(i) => format!(" Rise limit ({}): within.", limit_text(i)),
                None => String::new(),
            };
            let _ = writeln!(
                out,
                "Estimate {} → {} (**{} a month**); cap {cap}: **{}**.{increase}\n",
                dollars(b.monthly),
                dollars(a.monthly),
                signed(e.delta),
                verdict(a)
            );
        }
        (None, Some(a)) => {
            let _ = writeln!(
                out,
                "New environment: estimate {} a month; cap {}: **{}**.\n",
                dollars(a.monthly),
                cap_text(a.cap),
                verdict(a)
            );
        }
        (Some(b), None) => {
            let _ = writeln!(out, "Environment removed: its estimate was {} a month.\n", dollars(b.monthly));
        }
        (None, None) => {}
    }
}

/// The warning an environment over its `limits.increase` gets above the sections.
pub(super) fn increase_warning(e: &EnvironmentReview) -> String {
    let Some(i) = &e.increase else { return String::new() };
    format!(
        "`{}`: this change raises the estimate by {} a month, over its rise limit ({}). Not a \
         refusal: check the rise is meant. The base's limit applies; a new limit counts from the \
         next change.",
        e.name,
        signed(e.delta),
        limit_text(i)
    )
}

/// `` `limits.increase: 20%`, $19.43 a month `` (the amount only for a percentage).
fn limit_text(i: &runtime_plan::review::IncreaseCheck) -> String {
    if i.limit.ends_with('%') {
        format!("`limits.increase: {}`, {} a month", i.limit, dollars(i.allowed))
    } else {
        format!("`limits.increase: {}`", i.limit)
    }
}

/// The items table, folded when long.
fn items(out: &mut String, rows: &[ItemRow]) {
    if rows.is_empty() {
        out.push_str("No item changes.\n\n");
        return;
    }
    let mut table = String::from("| change | item | type | monthly before | monthly after | detail |\n");
    table.push_str("|---|---|---|--:|--:|---|\n");
    for r in rows {
        let (before, after) = match r.change {
            ItemChangeKind::Added => ("—".to_owned(), r.kind.price_text(r.monthly_after)),
            ItemChangeKind::Removed => (r.kind.price_text(r.monthly_before), "—".to_owned()),
            ItemChangeKind::Resized | ItemChangeKind::Changed => {
                (r.kind.price_text(r.monthly_before), r.kind.price_text(r.monthly_after))
            }
        };
        let detail = match r.change {
            ItemChangeKind::Added | ItemChangeKind::Removed => code(&r.physical_name),
            ItemChangeKind::Resized | ItemChangeKind::Changed => fields(&r.fields),
        };
        let _ = writeln!(
            table,
            "| {} | {} | {} | {before} | {after} | {detail} |",
            r.change.as_str(),
            code(&r.id),
            r.kind.as_str()
        );
    }
    fold(out, &table, rows.len(), &counted(rows.len(), "item change"));
}

/// The breaking list, folded when long; `none` when empty.
fn breaking(out: &mut String, lines: &[Breaking]) {
    if lines.is_empty() {
        out.push_str("**Breaking for consumers**: none.\n\n");
        return;
    }
    out.push_str("**Breaking for consumers**\n\n");
    let mut table = String::from("| consumer | resource | change | variables |\n|---|---|---|---|\n");
    for b in lines {
        let change = match (&b.replaced_by, b.cause) {
            (Some(r), Cause::ResourceRenamed) => format!("resource renamed to {}", code(r)),
            (Some(r), cause) => format!("{}; {} instead", cause.as_str(), code(r)),
            (None, cause) => cause.as_str().to_owned(),
        };
        let mut vars: Vec<String> = Vec::new();
        if !b.lost.is_empty() {
            let lost: Vec<String> = b.lost.iter().map(|v| code(v)).collect();
            vars.push(format!("loses {}", lost.join(", ")));
        }
        vars.extend(b.renamed.iter().map(|r| format!("{} → {}", code(&r.from), code(&r.to))));
        let _ = writeln!(
            table,
            "| {} ({}) | {} | {change} | {} |",
            code(&b.consumer),
            consumer_kind(b.consumer_kind),
            code(&b.resource),
            vars.join("<br>")
        );
    }
    fold(out, &table, lines.len(), &counted(lines.len(), "breaking change"));
}

/// The table as is, or inside `<details>` when it has more than [`FOLD_AFTER`] rows.
fn fold(out: &mut String, table: &str, rows: usize, summary: &str) {
    if rows > FOLD_AFTER {
        let _ = write!(out, "<details><summary>{summary}</summary>\n\n{table}\n</details>\n\n");
    } else {
        let _ = writeln!(out, "{table}");
    }
}

fn counted(n: usize, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

/// `` `size` "small" → "medium"; `monthly` ``: the first few properties, values when short.
fn fields(changes: &[FieldChange]) -> String {
    // The estimate has its own columns.
    let shown: Vec<&FieldChange> = changes.iter().filter(|f| f.field != "monthly").collect();
    let mut parts: Vec<String> = shown
        .iter()
        .take(FIELDS_SHOWN)
        .map(|f| {
            let (b, a) = (value(f.before.as_deref()), value(f.after.as_deref()));
            if b.chars().count() <= VALUE_SHOWN && a.chars().count() <= VALUE_SHOWN {
                format!("{} {} → {}", code(&f.field), code(b), code(a))
            } else {
                code(&f.field)
            }
        })
        .collect();
    if shown.len() > FIELDS_SHOWN {
        parts.push(format!("and {} more", shown.len() - FIELDS_SHOWN));
    }
    parts.join("; ")
}

/// A property's JSON text as shown: a plain JSON string without its quotes, `(none)` when
/// absent.
fn value(json: Option<&str>) -> &str {
    let Some(json) = json else { return "(none)" };
    match json.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        Some(inner) if !inner.contains(['"', '\\']) => inner,
        _ => json,
    }
}

fn consumer_kind(k: ConsumerKind) -> &'static str {
    match k {
        ConsumerKind::Workload => "workload",
        ConsumerKind::EncoreMember => "Encore member",
        ConsumerKind::OtherMember => "member",
    }
}

fn verdict(c: &SideCost) -> String {
    c.verdict.text(c.refused)
}

fn cap_text(cap: Option<Money>) -> String {
    cap.map_or_else(|| "none".to_owned(), dollars)
}

fn dollars(m: Money) -> String {
    format!("${m}")
}

/// `+$13.28`, `-$4.00`, `$0.00`.
fn signed(m: Money) -> String {
    let m = m.cents();
    if m.0.is_zero() {
        "$0.00".to_owned()
    } else if m.0.is_sign_negative() {
        format!("-${}", Money(m.0.abs()))
    } else {
        format!("+${m}")
    }
}

/// A code span that stays one table cell: `|` escaped, line breaks flattened, and a longer
/// fence when the text holds a backtick. Text in a code span is never read as HTML.
fn code(text: &str) -> String {
    let flat = text.replace(['\n', '\r'], " ").replace('|', "\\|");
    if flat.contains('`') { format!("`` {flat} ``") } else { format!("`{flat}`") }
}
