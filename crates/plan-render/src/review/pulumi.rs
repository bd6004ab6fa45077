//! What `pulumi preview` said, in the review: a warning above the sections for every item with
//! stored data that Pulumi would replace or delete, and per environment a table (markdown) or
//! lines (text) of the items Pulumi would create, update, replace or delete.

use std::fmt::Write as _;

use runtime_plan::preview::{ItemPreview, PulumiChange, PulumiPreview, ResourceStep};
use runtime_plan::review::{EnvironmentReview, Review};

/// A table with more rows than this folds into `<details>` (as the items table does).
const FOLD_AFTER: usize = 10;

/// `replaces database main-db: a new instance, the data is not copied`, for an item whose
/// replacement or deletion loses stored data.
pub fn loss_warning(i: &ItemPreview) -> Option<String> {
    let loss = i.loss.as_deref()?;
    let noun = i.stored.map_or("item", |s| s.noun);
    Some(format!("{} {noun} {}: {loss}", verb(i.change), i.name()))
}

fn verb(change: PulumiChange) -> &'static str {
    match change {
        PulumiChange::Replaced => "replaces",
        PulumiChange::Deleted => "deletes",
        PulumiChange::Created => "creates",
        PulumiChange::Updated => "updates",
    }
}

/// One `> [!WARNING]` block per item whose replacement or deletion loses stored data.
pub(super) fn markdown_warnings(out: &mut String, r: &Review) {
    for e in &r.environments {
        let Some(p) = &e.pulumi else { continue };
        for i in p.losses() {
            let loss = i.loss.as_deref().unwrap_or_default();
            let noun = i.stored.map_or("item", |s| s.noun);
            let _ = writeln!(
                out,
                "> [!WARNING]\n> `{}`: Pulumi **{} {noun} {}**: {loss} ({}{}).\n",
                e.name,
                verb(i.change),
                code(i.name()),
                code(&i.id),
                forced_by(&i.steps)
            );
        }
    }
}

/// `; forced by `engine``: the properties that force a replacement, when Pulumi gave them.
fn forced_by(steps: &[ResourceStep]) -> String {
    let reasons: Vec<String> = steps
        .iter()
        .filter(|s| is_replacement(&s.op))
        .flat_map(|s| s.reasons.iter().map(|r| code(r)))
        .collect();
    if reasons.is_empty() { String::new() } else { format!("; forced by {}", reasons.join(", ")) }
}

fn is_replacement(op: &str) -> bool {
    matches!(op, "replace" | "create-replacement" | "delete-replaced")
}

/// The environment's **What Pulumi would do**: a count, then a table of items and their
/// resources' steps; nothing when the review was given no preview.
pub(super) fn markdown_section(out: &mut String, e: &EnvironmentReview) {
    let Some(p) = &e.pulumi else { return };
    let stack = p.stack.as_deref().map_or_else(String::new, |s| format!(" of stack {}", code(s)));
    let _ = write!(out, "**What Pulumi would do** (`pulumi preview`{stack}): ");
    if p.items.is_empty() && p.others.is_empty() {
        out.push_str("no change.\n\n");
        return;
    }
    let _ = writeln!(out, "{}.\n", counts(p));
    let mut table = String::from("| change | item | type | resources |\n|---|---|---|---|\n");
    for i in &p.items {
        // An item whose data is lost stands out in the table too.
        let change = if i.loss.is_some() {
            format!("**{}**", i.change.as_str())
        } else {
            i.change.as_str().to_owned()
        };
        let _ = writeln!(
            table,
            "| {change} | {} | {} | {} |",
            code(&i.id),
            i.kind.as_str(),
            steps_cell(&i.steps)
        );
    }
    for s in &p.others {
        let _ = writeln!(
            table,
            "| {} | (no runway item) | {} | {} |",
            s.op,
            code(&s.token),
            steps_cell(std::slice::from_ref(s))
        );
    }
    let rows = p.items.len() + p.others.len();
    if rows > FOLD_AFTER {
        let _ = write!(out, "<details><summary>{rows} Pulumi changes</summary>\n\n{table}\n</details>\n\n");
    } else {
        let _ = writeln!(out, "{table}");
    }
}

/// `` `main-db_db` `replace` (`engine`)<br>... ``; a name with two steps (a type changed under
/// it) with each step's type.
fn steps_cell(steps: &[ResourceStep]) -> String {
    let cells: Vec<String> = steps
        .iter()
        .map(|s| {
            let reasons: Vec<String> = s.reasons.iter().map(|r| code(r)).collect();
            let why = if reasons.is_empty() { String::new() } else { format!(" ({})", reasons.join(", ")) };
            let twice = steps.iter().filter(|o| o.name == s.name).count() > 1;
            let token = if twice { format!(" {}", code(&s.token)) } else { String::new() };
            format!("{}{token} {}{why}", code(&s.name), code(&s.op))
        })
        .collect();
    cells.join("<br>")
}

/// `1 replaced, 2 created, 3 updated`: the items per change, then the other resources.
fn counts(p: &PulumiPreview) -> String {
    let mut parts = Vec::new();
    for change in
        [PulumiChange::Replaced, PulumiChange::Deleted, PulumiChange::Created, PulumiChange::Updated]
    {
        let n = p.items.iter().filter(|i| i.change == change).count();
        if n > 0 {
            parts.push(format!("{n} {}", change.as_str()));
        }
    }
    if !p.others.is_empty() {
        parts.push(format!(
            "{} other resource{}",
            p.others.len(),
            if p.others.len() == 1 { "" } else { "s" }
        ));
    }
    parts.join(", ")
}

/// `  pulumi preview (stack dev): 1 replaced, 1 updated`, a `!` line per loss, then a line per
/// item and per other resource.
pub(super) fn text_section(out: &mut String, e: &EnvironmentReview) {
    let Some(p) = &e.pulumi else { return };
    let stack = p.stack.as_deref().map_or_else(String::new, |s| format!(" (stack {s})"));
    if p.items.is_empty() && p.others.is_empty() {
        let _ = writeln!(out, "  pulumi preview{stack}: no change");
        return;
    }
    let _ = writeln!(out, "  pulumi preview{stack}: {}", counts(p));
    for i in &p.items {
        if let Some(w) = loss_warning(i) {
            let _ = writeln!(out, "  ! {w}");
        }
    }
    for i in &p.items {
        let steps: Vec<String> = i
            .steps
            .iter()
            .map(|s| {
                // A name with two steps (a type changed under it) is told apart by type.
                let twice = i.steps.iter().filter(|o| o.name == s.name).count() > 1;
                if twice { format!("{} {}", step_text(s), s.token) } else { step_text(s) }
            })
            .collect();
        let _ = writeln!(
            out,
            "    {:<9} {:<28} {:<24} {}",
            i.change.as_str(),
            i.id,
            i.kind.as_str(),
            steps.join("; ")
        );
    }
    for s in &p.others {
        let _ = writeln!(out, "    {:<9} {:<28} {:<24} {}", s.op, "(no runway item)", s.token, step_text(s));
    }
}

/// `main-db_db replace (engine)`
fn step_text(s: &ResourceStep) -> String {
    if s.reasons.is_empty() {
        format!("{} {}", s.name, s.op)
    } else {
        format!("{} {} ({})", s.name, s.op, s.reasons.join(", "))
    }
}

/// A code span that stays one table cell, as the review's others (`markdown.rs`, which calls
/// this module, so it cannot be called from here): `|` escaped, line breaks flattened, a longer
/// fence around a backtick. Text in a code span is never read as HTML.
fn code(text: &str) -> String {
    let flat = text.replace(['\n', '\r'], " ").replace('|', "\\|");
    if flat.contains('`') { format!("`` {flat} ``") } else { format!("`{flat}`") }
}
