//! Reading runway files from disk and showing their diagnostics.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Arc;

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents, NamedSource,
    SourceCode, SourceSpan, SpanContents,
};
use runway_schema::{Diagnostic, Loaded, Options, Severity};

/// Loads the product at `file`; `None` when the root file cannot be read (reported).
pub(crate) fn load(file: &Path, options: &Options) -> Result<Loaded, String> {
    runway_files::load(file, options)
        .map_err(|u| format!("cannot read {}: {}", file.display(), runway_files::describe(&u)))
}

/// Should output be coloured? Only on a terminal, and never with `NO_COLOR`.
pub(crate) fn colour(stream_is_terminal: bool) -> bool {
    stream_is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Renders diagnostics as text with a source snippet each (miette).
pub(crate) fn render_text(diags: &[Diagnostic], colour: bool) -> String {
    let theme = if colour { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(100).with_links(false);
    let mut out = String::new();
    // Each file is read once and shared by its diagnostics (a copy per diagnostic made a file
    // with thousands of problems cost its size times their number).
    let mut sources: Vec<(String, Option<Arc<Indexed>>)> = Vec::new();
    for d in diags {
        let file = &d.location.file;
        let text = match sources.iter().find(|(f, _)| f == file) {
            Some((_, t)) => t.clone(),
            None => {
                // Read again as the loader read it: never through a link leading out.
                let t = runway_files::read_named(Path::new(file), runway_schema::MAX_FILE_BYTES)
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok())
                    .filter(|text| quotable(text))
                    .map(|text| Arc::new(Indexed::new(text)));
                sources.push((file.clone(), t.clone()));
                t
            }
        };
        let report = Report { d, source: text.map(|t| NamedSource::new(file, t)) };
        if handler.render_report(&mut out, &report).is_err() {
            out.push_str(&format!("{}: {}\n", d.code, d.message));
        }
    }
    out
}

/// May an excerpt quote this file? Only a runway or catalogue file that says what it is (or an
/// empty one), and holds no control character: a path can reach a file runway does not own (the one-line
/// diagnostic that refuses it quotes nothing either), and a CI log must never show it.
fn quotable(text: &str) -> bool {
    let declared =
        text.trim().is_empty() || runway_schema::paths::declares(text, &["runway", "regions", "sizes"]);
    // A lone carriage return or a NEL would let a quoted line overwrite or start another.
    let lone_cr = text.split("\r\n").any(|part| part.contains('\r'));
    declared && runway_schema::paths::first_control(text).is_none() && !lone_cr && !text.contains('\u{85}')
}

pub(crate) use runway_schema::summary;

/// Is stdout a terminal?
pub(crate) fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// A file's text and where each of its lines starts. miette's own `str` source finds a
/// snippet's lines by scanning from the start of the file, so thousands of diagnostics in a
/// large file took minutes; this one hands miette a window that starts a few lines before the
/// span and shifts the result back, so each snippet costs its own lines.
struct Indexed {
    text: String,
    /// Offsets where lines start, the first 0; line breaks as miette counts them (`\n`, `\r\n`,
    /// a lone `\r`).
    line_starts: Vec<usize>,
}

impl Indexed {
    fn new(text: String) -> Self {
        let line_starts = runway_schema::line_starts(&text);
        Self { text, line_starts }
    }
}

impl SourceCode for Indexed {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        // The span's line, and a window from one line more than the context before it.
        let line = self.line_starts.partition_point(|&s| s <= span.offset()).saturating_sub(1);
        let first = line.saturating_sub(context_lines_before + 1);
        let base = self.line_starts.get(first).copied().unwrap_or(0);
        let window = self.text.as_bytes().get(base..).ok_or(MietteError::OutOfBounds)?;
        let shifted = SourceSpan::new((span.offset() - base).into(), span.len());
        let c = window.read_span(&shifted, context_lines_before, context_lines_after)?;
        Ok(Box::new(MietteSpanContents::new(
            c.data(),
            (c.span().offset() + base, c.span().len()).into(),
            c.line() + first,
            c.column(),
            c.line_count() + first,
        )))
    }
}

struct Report<'a> {
    d: &'a Diagnostic,
    source: Option<NamedSource<Arc<Indexed>>>,
}

impl std::fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Report").field("code", &self.d.code).finish()
    }
}

impl std::fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let l = &self.d.location;
        write!(f, "{} ({}:{}:{}", self.d.message, l.file, l.line, l.column)?;
        if !self.d.path.is_empty() {
            write!(f, ", at `{}`", self.d.path)?;
        }
        write!(f, ")")
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new(self.d.code))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.d.help.as_ref().map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        match &self.source {
            Some(s) if self.d.location.line > 0 => Some(s),
            _ => None,
        }
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.source.as_ref()?;
        if self.d.location.line == 0 {
            return None;
        }
        let l = &self.d.location;
        Some(Box::new(std::iter::once(LabeledSpan::new(Some("here".to_owned()), l.offset, l.len.max(1)))))
    }
}

#[cfg(test)]
mod indexed_tests {
    use super::*;

    /// The window gives miette exactly what its own `str` source gives, for every span of a text
    /// with every kind of line break, and any context.
    #[test]
    fn same_contents_as_miettes_own_source() {
        let text = "a: 1\nb:\r\n  c: x\r\n\n  d: [\ry, z]\ne: last";
        let indexed = Indexed::new(text.to_owned());
        for offset in 0..text.len() {
            for len in [0, 1, 3] {
                if offset + len > text.len() {
                    continue;
                }
                for (before, after) in [(0, 0), (1, 1), (2, 3), (5, 5)] {
                    let span = SourceSpan::new(offset.into(), len);
                    let want = text.read_span(&span, before, after);
                    let got = indexed.read_span(&span, before, after);
                    match (want, got) {
                        (Ok(w), Ok(g)) => {
                            let at = format!("offset {offset} len {len} context {before}/{after}");
                            assert_eq!(w.data(), g.data(), "{at}");
                            assert_eq!(w.span(), g.span(), "{at}");
                            assert_eq!(
                                (w.line(), w.column(), w.line_count()),
                                (g.line(), g.column(), g.line_count()),
                                "{at}"
                            );
                        }
                        (Err(_), Err(_)) => {}
                        (w, g) => panic!("offset {offset}: miette {:?}, indexed {:?}", w.is_ok(), g.is_ok()),
                    }
                }
            }
        }
    }
}
