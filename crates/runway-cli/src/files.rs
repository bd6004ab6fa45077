//! Reading runway files from disk and showing their diagnostics.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};
use runway_schema::{Diagnostic, Files, Loaded, Options, Severity};

/// Member folders and files under the root's folder.
pub struct FsFiles {
    /// The root file's folder.
    pub base: PathBuf,
}

impl Files for FsFiles {
    fn member_folders(&self, pattern: &str) -> Vec<String> {
        let full = self.base.join(pattern);
        let Some(full) = full.to_str() else { return Vec::new() };
        let Ok(paths) = glob::glob(full) else { return Vec::new() };
        let mut out: Vec<String> = paths
            .filter_map(Result::ok)
            .filter(|p| p.is_dir())
            .filter_map(|p| {
                p.strip_prefix(&self.base).ok().and_then(|r| r.to_str()).map(|s| s.replace('\\', "/"))
            })
            .collect();
        out.sort();
        out
    }

    fn read(&self, path: &str) -> Option<Vec<u8>> {
        std::fs::read(self.base.join(path)).ok()
    }
}

/// Loads the product at `file`; `None` when the root file cannot be read (reported).
pub fn load(file: &Path, options: &Options) -> Result<Loaded, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let base = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = file.to_string_lossy().replace('\\', "/");
    Ok(runway_schema::load(&name, &bytes, &FsFiles { base }, options))
}

/// Should output be coloured? Only on a terminal, and never with `NO_COLOR`.
pub fn colour(stream_is_terminal: bool) -> bool {
    stream_is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Renders diagnostics as text with a source snippet each (miette).
pub fn render_text(diags: &[Diagnostic], colour: bool) -> String {
    let theme = if colour { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(100).with_links(false);
    let mut out = String::new();
    let mut sources: Vec<(String, Option<String>)> = Vec::new();
    for d in diags {
        let file = &d.location.file;
        let text = match sources.iter().find(|(f, _)| f == file) {
            Some((_, t)) => t.clone(),
            None => {
                let t = std::fs::read(file).ok().and_then(|b| String::from_utf8(b).ok());
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

/// Summary line: `2 errors, 1 warning`.
pub fn summary(diags: &[Diagnostic]) -> String {
    let errors = diags.iter().filter(|d| d.severity == Severity::Error).count();
    let warnings = diags.len() - errors;
    let plural = |n: usize, w: &str| if n == 1 { format!("{n} {w}") } else { format!("{n} {w}s") };
    format!("{}, {}", plural(errors, "error"), plural(warnings, "warning"))
}

/// Is stdout a terminal?
pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

struct Report<'a> {
    d: &'a Diagnostic,
    source: Option<NamedSource<String>>,
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
