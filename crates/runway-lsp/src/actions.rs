//! Code actions: the fixes a diagnostic's help already names. A "did you mean" replaces the
//! offending word; a workload without a `reason` gets a skeleton to fill in; a plain-string
//! reason becomes the long form with a ground.

use std::ops::Range;

use runway_schema::syntax::{self, SyntaxNode};
use runway_schema::{Code, Diagnostic};

use crate::diagnostics;
use crate::position::SourceText;

/// A fix for one diagnostic: its title and the edits of the file (byte range, new text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// What the fix does.
    pub title: String,
    /// The diagnostic it fixes.
    pub diagnostic: Diagnostic,
    /// Replacements in the diagnostic's file.
    pub edits: Vec<(Range<usize>, String)>,
}

/// The ground a reason skeleton starts with; the person edits it.
const SKELETON_GROUND: &str = "no-managed-fit";
/// The detail a reason skeleton starts with.
const SKELETON_DETAIL: &str = "<why no managed service fits>";

/// The fixes of the diagnostics (of the file whose text is `text`) that touch `range`.
pub fn fixes(diags: &[Diagnostic], text: &SourceText, range: Range<usize>) -> Vec<Fix> {
    let mut out = Vec::new();
    for d in diags {
        let bytes = diagnostics::bytes(d, text);
        // Touching: overlapping, or the cursor at either end.
        if bytes.start > range.end || bytes.end < range.start {
            continue;
        }
        if let Some(word) = suggestion(d) {
            let old = &text.as_str()[bytes.clone()];
            if old.is_empty() || old == word {
                continue;
            }
            out.push(Fix {
                title: format!("Replace `{old}` with `{word}`"),
                diagnostic: d.clone(),
                edits: vec![(bytes, word.to_owned())],
            });
        } else if d.code == Code::MissingReason && d.path.ends_with(".reason") {
            if let Some(fix) = reason_skeleton(d, text) {
                out.push(fix);
            }
        } else if d.code == Code::ReasonWithoutGround {
            let detail = syntax::parse("", &format!("v: {}", &text.as_str()[bytes.clone()]))
                .ok()
                .and_then(|t| t.root().get("v").and_then(SyntaxNode::text))
                .unwrap_or_default();
            let quoted = serde_json::to_string(&detail).unwrap_or_else(|_| "\"\"".to_owned());
            out.push(Fix {
                title: "Write the reason with a ground".to_owned(),
                diagnostic: d.clone(),
                edits: vec![(bytes, format!("{{ ground: {SKELETON_GROUND}, detail: {quoted} }}"))],
            });
        }
    }
    out
}

/// The word of a help that reads "did you mean `word`?".
fn suggestion(d: &Diagnostic) -> Option<&str> {
    let help = d.help.as_deref()?;
    let rest = help.strip_prefix("did you mean `")?;
    let word = rest.strip_suffix("`?")?;
    (!word.is_empty() && !word.contains('`')).then_some(word)
}

/// Adds `reason` to the workload the diagnostic points at: after its last entry, as a block
/// in a block mapping and inline in a flow mapping.
fn reason_skeleton(d: &Diagnostic, text: &SourceText) -> Option<Fix> {
    let name = d.path.strip_prefix("workloads.")?.strip_suffix(".reason")?;
    let tree = syntax::parse("", text.as_str()).ok()?;
    let workload = tree.root().get("workloads")?.get(name)?;
    let (first_key, _) = workload.entries().next()?;
    let end = workload.end();
    let src = text.as_str();
    let flow = src[..first_key.span().start].trim_end_matches([' ', '\t']).ends_with('{');
    let edit = if flow {
        (end..end, format!(", reason: {{ ground: {SKELETON_GROUND}, detail: \"{SKELETON_DETAIL}\" }}"))
    } else {
        let indent = " ".repeat(first_key.line_column().1.saturating_sub(1) as usize);
        let line_end = src[end..].find(['\n', '\r']).map_or(src.len(), |i| end + i);
        let insert = format!(
            "\n{indent}reason:\n{indent}  ground: {SKELETON_GROUND}\n{indent}  detail: \"{SKELETON_DETAIL}\""
        );
        (line_end..line_end, insert)
    };
    Some(Fix { title: format!("Add a `reason` to `{name}`"), diagnostic: d.clone(), edits: vec![edit] })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, fix: &Fix) -> String {
        let mut out = text.to_owned();
        for (range, new) in fix.edits.iter().rev() {
            out.replace_range(range.clone(), new);
        }
        out
    }

    fn diags(text: &str) -> Vec<Diagnostic> {
        runway_schema::load_str("runway.yaml", text).diagnostics
    }

    const ROOT: &str = "runway: 3\nproduct: shop\nenvironments:\n  dev: { region: us-east-1 }\nresources:\n  \
                        main-db: { kind: postgres }\n";
    const IMAGE: &str = "img@sha256:0000000000000000000000000000000000000000000000000000000000000000";

    #[test]
    fn did_you_mean_replaces_the_word() {
        let text = format!(
            "{ROOT}workloads:\n  api:\n    image: {IMAGE}\n    port: 80\n    uses: [main-bd]\n    reason: {{ \
             ground: residency, detail: x }}\n"
        );
        let all = diags(&text);
        let t = SourceText::new(text.clone());
        let fixes = fixes(&all, &t, 0..text.len());
        let fix = fixes.iter().find(|f| f.diagnostic.code == Code::UnknownResource).expect("a fix");
        assert_eq!(fix.title, "Replace `main-bd` with `main-db`");
        let fixed = apply(&text, fix);
        assert!(diags(&fixed).iter().all(|d| !d.is_error()), "{:?}", diags(&fixed));
    }

    #[test]
    fn a_missing_reason_gets_a_skeleton_in_block_and_flow_form() {
        for workload in [
            format!("  api:\n    image: {IMAGE}\n    port: 80\n"),
            format!("  api: {{ image: \"{IMAGE}\", port: 80 }}\n"),
        ] {
            let text = format!("# é 𝄞\n{ROOT}workloads:\n{workload}");
            let all = diags(&text);
            let t = SourceText::new(text.clone());
            let fixes = fixes(&all, &t, 0..text.len());
            let fix = fixes.iter().find(|f| f.diagnostic.code == Code::MissingReason).expect("a fix");
            let fixed = apply(&text, fix);
            let after = diags(&fixed);
            assert!(after.iter().all(|d| !d.is_error()), "{fixed}\n{after:?}");
        }
    }

    #[test]
    fn a_plain_reason_becomes_the_long_form() {
        let text = format!(
            "{ROOT}workloads:\n  api:\n    image: {IMAGE}\n    port: 80\n    reason: \"No fit: é\"\n"
        );
        let all = diags(&text);
        let t = SourceText::new(text.clone());
        let fix = fixes(&all, &t, 0..text.len()).into_iter().next().expect("a fix");
        let fixed = apply(&text, &fix);
        assert!(fixed.contains("detail: \"No fit: é\""), "{fixed}");
        assert!(diags(&fixed).is_empty(), "{:?}", diags(&fixed));
    }
}
