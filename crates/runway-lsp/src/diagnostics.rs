//! `check`'s diagnostics as the protocol's: ranges from their spans in the editor's text.

use std::ops::Range;

use lsp_types::{DiagnosticSeverity, NumberOrString};
use runway_schema::{Diagnostic, Severity};

use crate::position::SourceText;

/// The bytes a diagnostic points at. A diagnostic without a length (a syntax error, say)
/// covers the character it is at, so that editors show it; one with no line is at the start.
pub fn bytes(d: &Diagnostic, text: &SourceText) -> Range<usize> {
    let s = text.as_str();
    if d.location.line == 0 {
        return 0..0;
    }
    // An offset inside a character (of a text other than the one checked) is that
    // character's start, or, for the end, the next character's.
    let mut start = d.location.offset.min(s.len());
    while !s.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = start.saturating_add(d.location.len).min(s.len());
    while !s.is_char_boundary(end) {
        end += 1;
    }
    if end == start {
        end = s
            .get(start..)
            .unwrap_or_default()
            .chars()
            .next()
            .filter(|c| *c != '\n' && *c != '\r')
            .map_or(start, |c| start + c.len_utf8());
    }
    start..end
}

/// The protocol's diagnostic: code, severity, the message and its help.
pub fn to_lsp(d: &Diagnostic, text: &SourceText) -> lsp_types::Diagnostic {
    let severity = match d.severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
    };
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    lsp_types::Diagnostic {
        range: text.range(bytes(d, text)),
        severity: Some(severity),
        code: Some(NumberOrString::String(d.code.as_str().to_owned())),
        source: Some("runway".to_owned()),
        message,
        ..Default::default()
    }
}

/// The warning on a member runway no root lists, which is therefore not checked: without
/// it the editor would show nothing, as if all were well. On the file's first line.
pub fn unrooted(text: &SourceText) -> lsp_types::Diagnostic {
    let depth = crate::analysis::MAX_ROOT_DEPTH;
    lsp_types::Diagnostic {
        range: text.range(text.line_range(0).unwrap_or(0..0)),
        severity: Some(DiagnosticSeverity::WARNING),
        code: Some(NumberOrString::String("no-root".to_owned())),
        source: Some("runway".to_owned()),
        message: format!(
            "this member is not checked: no root runway.yaml in the {depth} folders above it lists \
             its folder in `members`\nhelp: add the folder to the root's `members` globs, for \
             example `members: [\"services/*\"]`"
        ),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use runway_schema::{Code, Location};

    #[test]
    fn ranges_count_utf16_units_from_the_span() {
        let text = SourceText::new("# ünï 𝄞\nuses: [évents]\n".to_owned());
        let offset = text.as_str().find("évents").unwrap();
        let at = Location { file: "f".into(), line: 2, column: 8, offset, len: "évents".len() };
        let d =
            Diagnostic::error(Code::UnknownResource, at, "uses[0]", "`évents` is not a declared resource")
                .with_help("did you mean `events`?");
        let lsp = to_lsp(&d, &text);
        assert_eq!((lsp.range.start.line, lsp.range.start.character), (1, 7));
        assert_eq!((lsp.range.end.line, lsp.range.end.character), (1, 13));
        assert!(lsp.message.ends_with("help: did you mean `events`?"));
        assert_eq!(lsp.code, Some(NumberOrString::String("unknown-resource".into())));
    }

    #[test]
    fn an_emoji_before_the_span_shifts_it_by_two_units() {
        let text = SourceText::new("workloads: { \"🚀\": { uses: [é-db] } }\n".to_owned());
        let offset = text.as_str().find("é-db").unwrap();
        let at = Location { file: "f".into(), line: 1, column: 27, offset, len: "é-db".len() };
        let d = Diagnostic::error(Code::UnknownResource, at, "workloads.🚀.uses[0]", "x");
        assert_eq!(bytes(&d, &text), offset..offset + 5);
        let range = to_lsp(&d, &text).range;
        // 13 units of `workloads: { `, 4 of `"🚀"`, 11 of `: { uses: [`; 4 of `é-db`.
        assert_eq!((range.start.line, range.start.character), (0, 28));
        assert_eq!((range.end.line, range.end.character), (0, 32));
    }

    #[test]
    fn an_empty_span_covers_one_character_and_never_leaves_the_text() {
        let text = SourceText::new("a: é\n".to_owned());
        let at = |offset| Location { file: "f".into(), line: 1, column: 1, offset, len: 0 };
        let d = Diagnostic::error(Code::YamlSyntax, at(3), "", "x");
        assert_eq!(bytes(&d, &text), 3..5);
        let d = Diagnostic::error(Code::YamlSyntax, at(99), "", "x");
        assert_eq!(bytes(&d, &text), 6..6);
        // Inside `é` (bytes 3 and 4): from its start, and to the end of a character.
        let d = Diagnostic::error(Code::YamlSyntax, at(4), "", "x");
        assert_eq!(bytes(&d, &text), 3..5);
        let inside = Location { file: "f".into(), line: 1, column: 1, offset: 1, len: 3 };
        let d = Diagnostic::error(Code::YamlSyntax, inside, "", "x");
        assert_eq!(bytes(&d, &text), 1..5);
        assert_eq!(to_lsp(&d, &text).range.end.character, 4);
    }
}
