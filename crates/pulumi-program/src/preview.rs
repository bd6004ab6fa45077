//! Reads what `pulumi preview --json` printed and maps each resource back to the runway item
//! that emitted it. Pure: text in, values out; the CLI reads the file.
//!
//! Two shapes are read, both Pulumi's own (docs/review.md, "What Pulumi would do"):
//! - the document `pulumi preview --json` prints, `PreviewDigest` in pulumi/pulumi's
//!   `sdk/go/common/display/json.go`: `{"steps": [{"op", "urn", "oldState", "newState",
//!   "diffReasons", "replaceReasons", "detailedDiff"}], "diagnostics", "changeSummary", ...}`;
//! - the engine events it streams instead with `PULUMI_ENABLE_STREAMING_JSON_PREVIEW` set, one
//!   JSON object a line (`apitype.EngineEvent`): each `resourcePreEvent.metadata` is a step
//!   (`op`, `urn`, `keys` the replacement's reasons, `diffs`).
//!
//! A step's resource is named by its URN, `urn:pulumi:<stack>::<project>::<type>::<name>`: the
//! program's resource `<name>` of type `<type>` is an item's (its id, or `<id>--<suffix>` for a
//! companion; [`crate::program_resources`]).

use std::collections::BTreeMap;

use runtime_plan::{ItemPreview, Plan, PlannedItem, PulumiChange, PulumiPreview, ResourceStep};
use serde_json::Value;

use super::{ProgramResource, RenderError, program_resources};

/// A preview that cannot be read: not Pulumi's JSON, or not of this program.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum PreviewError {
    /// Neither a JSON document nor JSON lines.
    #[error(
        "not the JSON `pulumi preview --json` prints: {why} (write it with `pulumi preview --json > FILE`)"
    )]
    NotJson {
        /// serde_json's message, with its line and column.
        why: String,
    },
    /// JSON, but not a preview: no `steps` array nor engine events.
    #[error("not a `pulumi preview --json` document: {why}")]
    NotPreview {
        /// What is missing or of the wrong type.
        why: String,
    },
    /// A step whose `urn` is not a Pulumi URN.
    #[error("step {index}: `{urn}` is not a Pulumi URN (`urn:pulumi:<stack>::<project>::<type>::<name>`)")]
    BadUrn {
        /// The step's position (from 0).
        index: usize,
        /// The URN as written (control characters escaped).
        urn: String,
    },
    /// The preview is of another project than this product's program.
    #[error("the preview is of Pulumi project `{found}`, not `{expected}` (this product's program)")]
    OtherProject {
        /// The project its URNs name.
        found: String,
        /// The product.
        expected: String,
    },
    /// Its URNs name more than one stack.
    #[error("the preview names more than one stack ({stacks}): give one stack's preview per environment")]
    Stacks {
        /// The stacks, comma separated.
        stacks: String,
    },
    /// Pulumi reported an error: the preview is incomplete.
    #[error("the preview failed, so it does not say everything Pulumi would do: {message}")]
    Failed {
        /// Pulumi's first error message (control characters escaped, at most 300 characters).
        message: String,
    },
    /// A plan's program cannot be rendered to name its resources.
    #[error("the program cannot be rendered to read the preview: {0}")]
    Render(#[from] RenderError),
}

/// One step of a preview.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreviewStep {
    /// Pulumi's operation (`create`, `update`, `replace`, `delete`, ...).
    pub op: String,
    /// The stack the URN names.
    pub stack: String,
    /// The project the URN names.
    pub project: String,
    /// The resource's type token (the last of a parent chain `a$b`).
    pub token: String,
    /// The resource's name.
    pub name: String,
    /// `replaceReasons` (`keys` in an event), else `diffReasons` (`diffs`).
    pub reasons: Vec<String>,
}

/// A preview read: its steps, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Preview {
    /// The steps, the root stack's and the providers' included.
    pub steps: Vec<PreviewStep>,
}

/// Reads `pulumi preview --json`'s output: the document, or the streamed engine events.
pub fn read_preview(text: &str) -> Result<Preview, PreviewError> {
    let raw: Vec<RawStep> = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(doc)) if doc.contains_key("steps") || doc.contains_key("changeSummary") => {
            failed(doc.get("diagnostics"), "severity")?;
            digest_steps(doc.get("steps"))?
        }
        // One event alone is a document of one line.
        Ok(Value::Object(doc)) if is_event(&doc) => event_steps(text)?,
        Ok(Value::Object(_)) => {
            return Err(PreviewError::NotPreview {
                why: "an object without `steps` or `changeSummary`".to_owned(),
            });
        }
        Ok(other) => {
            return Err(PreviewError::NotPreview {
                why: format!("a JSON {}, not an object", type_name(&other)),
            });
        }
        Err(e) if text.trim_start().starts_with('{') && text.trim().lines().count() > 1 => {
            event_steps(text).map_err(|err| {
                // Not events either: the document's own error says more.
                if matches!(err, PreviewError::NotJson { .. }) {
                    PreviewError::NotJson { why: e.to_string() }
                } else {
                    err
                }
            })?
        }
        Err(e) => return Err(PreviewError::NotJson { why: e.to_string() }),
    };
    let mut steps = Vec::with_capacity(raw.len());
    for (index, r) in raw.into_iter().enumerate() {
        let (stack, project, token, name) =
            parse_urn(&r.urn).ok_or_else(|| PreviewError::BadUrn { index, urn: printable(&r.urn, 200) })?;
        steps.push(PreviewStep { op: r.op, stack, project, token, name, reasons: r.reasons });
    }
    Ok(Preview { steps })
}

/// A step as read, before its URN is taken apart.
struct RawStep {
    op: String,
    urn: String,
    reasons: Vec<String>,
}

fn digest_steps(steps: Option<&Value>) -> Result<Vec<RawStep>, PreviewError> {
    let steps = match steps {
        // `omitempty`: a preview with nothing to show has no `steps`.
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(steps)) => steps,
        Some(other) => {
            return Err(PreviewError::NotPreview {
                why: format!("`steps` is a {}, not an array", type_name(other)),
            });
        }
    };
    steps.iter().enumerate().map(|(i, s)| raw_step(i, s, "replaceReasons", "diffReasons")).collect()
}

fn is_event(doc: &serde_json::Map<String, Value>) -> bool {
    doc.contains_key("sequence") || doc.contains_key("resourcePreEvent") || doc.contains_key("summaryEvent")
}

/// The steps of streamed engine events: each `resourcePreEvent`'s metadata.
fn event_steps(text: &str) -> Result<Vec<RawStep>, PreviewError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let event: Value = serde_json::from_str(line)
            .map_err(|e| PreviewError::NotJson { why: format!("line {}: {e}", n + 1) })?;
        let Value::Object(event) = event else {
            return Err(PreviewError::NotPreview { why: format!("line {} is not an engine event", n + 1) });
        };
        if !is_event(&event) {
            return Err(PreviewError::NotPreview { why: format!("line {} is not an engine event", n + 1) });
        }
        if let Some(diagnostic) = event.get("diagnosticEvent") {
            failed(Some(&Value::Array(vec![diagnostic.clone()])), "severity")?;
        }
        if let Some(metadata) = event.get("resourcePreEvent").and_then(|e| e.get("metadata")) {
            out.push(raw_step(out.len(), metadata, "keys", "diffs")?);
        }
    }
    Ok(out)
}

/// `op` and `urn` (required strings) and the reasons of one step.
fn raw_step(index: usize, step: &Value, replace: &str, diff: &str) -> Result<RawStep, PreviewError> {
    let field = |key: &str| step.get(key).and_then(Value::as_str).map(str::to_owned);
    let (Some(op), Some(urn)) = (field("op"), field("urn")) else {
        return Err(PreviewError::NotPreview { why: format!("step {index} has no `op` and `urn` strings") });
    };
    let list = |key: &str| -> Vec<String> {
        let items = step.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        items.iter().filter_map(Value::as_str).map(|s| printable(s, 100)).collect()
    };
    let replace_reasons = list(replace);
    let reasons = if replace_reasons.is_empty() { list(diff) } else { replace_reasons };
    Ok(RawStep { op: printable(&op, 40), urn, reasons })
}

/// An error when a diagnostic has severity `error`: the preview stopped part way.
fn failed(diagnostics: Option<&Value>, severity: &str) -> Result<(), PreviewError> {
    let Some(Value::Array(list)) = diagnostics else { return Ok(()) };
    let error = list.iter().find(|d| d.get(severity).and_then(Value::as_str) == Some("error"));
    match error {
        Some(d) => {
            let message = d.get("message").and_then(Value::as_str).unwrap_or("(no message)");
            Err(PreviewError::Failed { message: printable(message.trim(), 300) })
        }
        None => Ok(()),
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Text from the file made safe to print: control characters escaped, at most `max` chars.
fn printable(text: &str, max: usize) -> String {
    let mut out: String = text.chars().take(max).flat_map(char::escape_debug).collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out
}

/// `urn:pulumi:<stack>::<project>::<qualified type>::<name>` -> its four parts; the type of a
/// child is the last of its chain (`parent$child`), and a name may hold `::`.
fn parse_urn(urn: &str) -> Option<(String, String, String, String)> {
    let rest = urn.strip_prefix("urn:pulumi:")?;
    let mut parts = rest.splitn(4, "::");
    let (stack, project, qualified, name) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let token = qualified.rsplit('$').next()?;
    if stack.is_empty() || project.is_empty() || token.is_empty() || name.is_empty() {
        return None;
    }
    Some((stack.to_owned(), project.to_owned(), token.to_owned(), name.to_owned()))
}

/// Pulumi's own resources (the root stack, providers): no item's, never a runway change.
fn is_pulumi_own(token: &str) -> bool {
    token.starts_with("pulumi:")
}

/// What an operation does to its resource, or `None` when it changes nothing.
fn change_of(op: &str) -> Option<PulumiChange> {
    match op {
        "create" | "import" => Some(PulumiChange::Created),
        "delete" | "discard-replaced" => Some(PulumiChange::Deleted),
        "replace" | "create-replacement" | "delete-replaced" | "import-replacement" | "read-replacement" => {
            Some(PulumiChange::Replaced)
        }
        "same" | "read" | "refresh" | "discard" | "remove-pending-replace" | "get" | "query" | "none" => None,
        // `update`, and an operation a newer Pulumi adds: shown as written, counted as an update.
        _ => Some(PulumiChange::Updated),
    }
}

/// Maps a preview of environment `new`'s stack to its items: each step's resource is looked up
/// among the resources of the working version's program, or (a deletion) the base's, `old`.
/// The preview must be of this product's project and of one stack.
pub fn items_of(preview: &Preview, old: Option<&Plan>, new: &Plan) -> Result<PulumiPreview, PreviewError> {
    let mut stacks: Vec<&str> = Vec::new();
    for s in &preview.steps {
        if s.project != new.product.as_str() {
            return Err(PreviewError::OtherProject {
                found: printable(&s.project, 100),
                expected: new.product.to_string(),
            });
        }
        if !stacks.contains(&s.stack.as_str()) {
            stacks.push(&s.stack);
        }
    }
    if stacks.len() > 1 {
        return Err(PreviewError::Stacks { stacks: printable(&stacks.join(", "), 200) });
    }
    let new_resources = program_resources(new)?;
    let old_resources = old.map(program_resources).transpose()?.unwrap_or_default();
    let find = |list: &[ProgramResource], s: &PreviewStep| -> Option<Option<String>> {
        list.iter().find(|r| r.name == s.name && r.token == s.token).map(|r| r.item.clone())
    };
    // Steps grouped per item, in the order their items first appear.
    let mut groups: BTreeMap<String, Vec<&PreviewStep>> = BTreeMap::new();
    let mut others = Vec::new();
    for s in preview.steps.iter().filter(|s| change_of(&s.op).is_some()) {
        let deleting = matches!(s.op.as_str(), "delete" | "delete-replaced" | "discard-replaced");
        let (first, second) =
            if deleting { (&old_resources, &new_resources) } else { (&new_resources, &old_resources) };
        let item = if is_pulumi_own(&s.token) { None } else { find(first, s).or_else(|| find(second, s)) };
        match item.flatten() {
            Some(id) => groups.entry(id).or_default().push(s),
            None => others.push(step(s)),
        }
    }
    let mut items: Vec<(usize, ItemPreview)> =
        groups.into_iter().filter_map(|(id, steps)| item_preview(&id, &steps, old, new)).collect();
    items.sort_by_key(|(order, i)| (i.loss.is_none(), i.change, *order));
    Ok(PulumiPreview {
        stack: stacks.first().map(|s| printable(s, 100)),
        items: items.into_iter().map(|(_, i)| i).collect(),
        others,
    })
}

fn step(s: &PreviewStep) -> ResourceStep {
    ResourceStep {
        op: s.op.clone(),
        name: printable(&s.name, 200),
        token: printable(&s.token, 200),
        reasons: s.reasons.clone(),
    }
}

/// One item's change from its resources' steps, and its place in plan order (the working
/// version's items first, then those only the base has).
fn item_preview(
    id: &str,
    steps: &[&PreviewStep],
    old: Option<&Plan>,
    new: &Plan,
) -> Option<(usize, ItemPreview)> {
    let position = |plan: &Plan| plan.items.iter().position(|i| i.id == id);
    let in_new = position(new).map(|p| (p, &new.items[p]));
    let in_old = old.and_then(|o| position(o).map(|p| (new.items.len() + p, &o.items[p])));
    let main: Vec<PulumiChange> =
        steps.iter().filter(|s| s.name == id).filter_map(|s| change_of(&s.op)).collect();
    let change = if main.contains(&PulumiChange::Replaced)
        || (main.contains(&PulumiChange::Deleted) && main.contains(&PulumiChange::Created))
    {
        PulumiChange::Replaced
    } else if main.contains(&PulumiChange::Deleted) {
        PulumiChange::Deleted
    } else if main.contains(&PulumiChange::Created) {
        PulumiChange::Created
    } else {
        PulumiChange::Updated
    };
    // What is lost is what the old item stored; what is shown is the item as it will be.
    let (order, shown): (usize, &PlannedItem) = in_new.or(in_old)?;
    let was = if change == PulumiChange::Created { shown } else { in_old.map_or(shown, |(_, i)| i) };
    // A database replaced by one of another kind (an instance by a cluster) is described as
    // what takes its place; it loses data when the kind it was stored any.
    let stored = match (was.kind().stored_data(), shown.kind().stored_data()) {
        (Some(_), Some(now)) if change == PulumiChange::Replaced => Some(now),
        (was, _) => was,
    };
    let preview = ItemPreview {
        id: id.to_owned(),
        kind: if change == PulumiChange::Deleted { was.kind() } else { shown.kind() },
        owner: shown.owner.as_ref().map(ToString::to_string),
        change,
        stored,
        loss: ItemPreview::loss_of(change, stored),
        steps: steps.iter().map(|s| step(s)).collect(),
    };
    Some((order, preview))
}

#[cfg(test)]
mod tests;
