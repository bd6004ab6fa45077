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
        let Some(old) = text.as_str().get(bytes.clone()) else { continue };
        if let Some(word) = suggestion(d) {
            let (bytes, old, quote) = unquoted(bytes, old);
            if old.is_empty() || old == word {
                continue;
            }
            let Some(new) = replacement(quote, old, word) else { continue };
            out.push(Fix {
                title: format!("Replace `{old}` with `{word}`"),
                diagnostic: d.clone(),
                edits: vec![(bytes, new)],
            });
        } else if d.code == Code::MissingReason && d.path.ends_with(".reason") {
            if let Some(fix) = reason_skeleton(d, text) {
                out.push(fix);
            }
        } else if d.code == Code::ReasonWithoutGround {
            let detail = syntax::parse("", &format!("v: {old}"))
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

/// The inside of a quoted scalar (its bytes, its text and the quote), or the plain scalar
/// itself: a replacement goes between the quotes and keeps them.
fn unquoted(bytes: Range<usize>, old: &str) -> (Range<usize>, &str, Option<char>) {
    for q in ['"', '\''] {
        if let Some(inner) = old.strip_prefix(q).and_then(|o| o.strip_suffix(q)) {
            return (bytes.start + 1..bytes.end - 1, inner, Some(q));
        }
    }
    (bytes, old, None)
}

/// The text that writes `word` inside `quote`, or in place of the plain scalar `old` (quoted
/// when it would not read back as itself there); `None` when the quote cannot hold it without
/// escapes.
fn replacement(quote: Option<char>, old: &str, word: &str) -> Option<String> {
    /// Does `text` (`v: ` and the word, or `v: [` and the word `]`) read back as `word`?
    fn reads_as(text: &str, word: &str, flow: bool) -> bool {
        let tree = syntax::parse("", text).ok();
        let v = tree.as_ref().and_then(|t| t.root().get("v"));
        let v = if flow { v.and_then(|v| v.items().next()) } else { v };
        v.and_then(SyntaxNode::text).is_some_and(|t| t == word)
    }
    match quote {
        Some('"') => (!word.contains(['"', '\\'])).then(|| word.to_owned()),
        Some(q) => (!word.contains(q)).then(|| word.to_owned()),
        None => {
            // A plain scalar holding a flow indicator is in block context: the word only has
            // to read there.
            let block = old.contains([',', '[', ']', '{', '}']);
            let plain = reads_as(&format!("v: {word}"), word, false)
                && (block || reads_as(&format!("v: [{word}]"), word, true));
            Some(if plain { word.to_owned() } else { serde_json::to_string(word).ok()? })
        }
    }
}

/// The word of a help that reads "did you mean `word`?".
fn suggestion(d: &Diagnostic) -> Option<&str> {
    let help = d.help.as_deref()?;
    let rest = help.strip_prefix("did you mean `")?;
    let word = rest.strip_suffix("`?")?;
    (!word.is_empty() && !word.contains('`')).then_some(word)
}

/// Adds `reason` to the workload the diagnostic points at: after its last entry, as a block
/// in a block mapping and inline in a flow mapping (one written over several lines, or with a
/// trailing comma, included).
fn reason_skeleton(d: &Diagnostic, text: &SourceText) -> Option<Fix> {
    let name = d.path.strip_prefix("workloads.")?.strip_suffix(".reason")?;
    let tree = syntax::parse("", text.as_str()).ok()?;
    let workload = tree.root().get("workloads")?.get(name)?;
    let (first_key, _) = workload.entries().next()?;
    let src = text.as_str();
    // The end of the last entry's text: a block scalar's span takes in the line breaks (and
    // blank lines) after it, which can reach the next workload's line.
    let end = src.get(..workload.end())?.trim_end().len();
    let flow = src.get(..first_key.span().start)?.trim_end().ends_with('{');
    let skeleton = format!("reason: {{ ground: {SKELETON_GROUND}, detail: \"{SKELETON_DETAIL}\" }}");
    let edit = if flow {
        // After the last entry, or after its trailing comma.
        let rest = src.get(end..)?;
        let gap = rest.len() - rest.trim_start().len();
        if rest.trim_start().starts_with(',') {
            let comma = end + gap + 1;
            (comma..comma, format!(" {skeleton}"))
        } else {
            (end..end, format!(", {skeleton}"))
        }
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

    // With `secrets.infisical`: its database would otherwise warn `missing-infisical`.
    const ROOT: &str = "runway: 3\nproduct: shop\nsecrets: { infisical: { project: p } }\nenvironments:\n  \
                        dev: { region: us-east-1 }\nresources:\n  main-db: { kind: postgres }\n";
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
    fn did_you_mean_keeps_the_quotes_of_a_quoted_word() {
        for (env, want) in [
            ("{ A: \"${MAIN_DB_URLL}\" }", "{ A: \"${MAIN_DB_URL}\" }"),
            ("{ A: '${MAIN_DB_URLL}' }", "{ A: '${MAIN_DB_URL}' }"),
            ("\n      A: ${MAIN_DB_URLL}", "\n      A: ${MAIN_DB_URL}"),
        ] {
            let text = format!(
                "{ROOT}workloads:\n  api:\n    image: {IMAGE}\n    port: 80\n    uses: [main-db]\n    env: \
                 {env}\n    reason: {{ ground: residency, detail: x }}\n"
            );
            let all = diags(&text);
            let t = SourceText::new(text.clone());
            let fixes = fixes(&all, &t, 0..text.len());
            let fix = fixes.iter().find(|f| f.diagnostic.code == Code::UnknownVariable).expect("a fix");
            assert_eq!(fix.title, "Replace `${MAIN_DB_URLL}` with `${MAIN_DB_URL}`");
            let fixed = apply(&text, fix);
            assert!(fixed.contains(&format!("env: {want}\n")), "{fixed}");
            assert!(diags(&fixed).iter().all(|d| !d.is_error()), "{fixed}\n{:?}", diags(&fixed));
        }
    }

    /// The reason lands in `api` (and only there) of text that still reads.
    fn reason_lands_in_api(workloads: &str) {
        let text = format!("{ROOT}workloads:\n{workloads}");
        let all = diags(&text);
        let t = SourceText::new(text.clone());
        let fixes = fixes(&all, &t, 0..text.len());
        let fix = fixes.iter().find(|f| f.title == "Add a `reason` to `api`").expect("a fix");
        let fixed = apply(&text, fix);
        let tree = syntax::parse("", &fixed).unwrap_or_else(|e| panic!("{fixed}\n{e:?}"));
        let ground = |w: &str| tree.root().get("workloads")?.get(w)?.get("reason")?.get("ground")?.text();
        assert_eq!(ground("api").as_deref(), Some(SKELETON_GROUND), "{fixed}");
        let after = diags(&fixed);
        assert!(
            after.iter().all(|d| d.code != Code::MissingReason && d.code != Code::YamlSyntax),
            "{fixed}\n{after:?}"
        );
        assert!(after.iter().all(|d| !d.is_error()), "{fixed}\n{after:?}");
    }

    #[test]
    fn a_reason_skeleton_fits_flow_maps_over_lines_trailing_commas_and_block_scalars() {
        let other = "  web: { image: \"IMG\", port: 81, reason: { ground: residency, detail: x } }\n";
        let other = other.replace("IMG", IMAGE);
        for api in [
            format!("  api: {{\n    image: \"{IMAGE}\",\n    port: 80\n  }}\n"),
            format!("  api: {{\n    image: \"{IMAGE}\",\n    port: 80,\n  }}\n"),
            format!("  api: {{ image: \"{IMAGE}\", port: 80, }}\n"),
            format!("  api: {{ image: \"{IMAGE}\", port: 80 , }}\n"),
            format!("  api:\n    image: {IMAGE}\n    port: 80\n    env:\n      NOTE: |\n        hello\n\n"),
            format!(
                "  api:\n    image: {IMAGE}\n    port: 80\n    env:\n      NOTE: >-\n        hello\n        there\n"
            ),
        ] {
            reason_lands_in_api(&format!("{api}{other}"));
            reason_lands_in_api(&format!("{other}{api}"));
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
