//! Tables of the text renderings: a header row, aligned columns two spaces apart, and lines
//! that fit [`WIDTH`] columns.
//!
//! One column of a table may be *flexible*: its cells wrap (at spaces, and inside a word too
//! long for a line at `/`, `_`, `-`, `.`, `:`, `@`, `?`, `,` or before `$`) to the room the
//! other columns leave. When that room is too narrow and the flexible column is the last, its
//! cells go on their own lines below each row, indented, and so does its title below the
//! header. A cell may hold `\n` to start a new line in its column. The other columns never wrap: a name is never cut.

use std::fmt::{self, Write as _};

/// The width every line of the text renderings fits in (for names up to 30 characters).
pub const WIDTH: usize = 100;

/// The narrowest room a flexible column wraps in next to the other columns.
const MIN_FLEX: usize = 32;

/// A row: cells, one per column, or a group title across all columns.
pub(crate) enum Row {
    /// One cell per column (missing trailing cells are empty).
    Cells(Vec<String>),
    /// A title line for the rows after it, at the table's indent; not counted in widths.
    Group(String),
}

/// A table to write: header, rows, indent, and the column that wraps.
pub(crate) struct Table<'a> {
    /// Spaces before each line.
    pub indent: usize,
    /// Column titles.
    pub header: &'a [&'a str],
    /// The rows, in order.
    pub rows: Vec<Row>,
    /// The column whose cells wrap, when there is one.
    pub flex: Option<usize>,
}

/// How a table's flexible column is laid out.
#[derive(Clone, Copy)]
enum Layout {
    /// In its column, wrapped to this width.
    InColumn(usize),
    /// On lines of their own below the row, wrapped to this width.
    Below(usize),
}

impl Table<'_> {
    /// A table with no flexible column.
    pub(crate) fn new<'h>(indent: usize, header: &'h [&'h str]) -> Table<'h> {
        Table { indent, header, rows: Vec::new(), flex: None }
    }

    /// Adds a row of cells.
    pub(crate) fn row(&mut self, cells: Vec<String>) {
        self.rows.push(Row::Cells(cells));
    }

    /// Writes the header and the rows to `out`.
    pub(crate) fn write(&self, out: &mut impl fmt::Write) -> fmt::Result {
        let cols = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(|h| width(h)).collect();
        for r in &self.rows {
            if let Row::Cells(cells) = r {
                for (c, cell) in cells.iter().enumerate().take(cols) {
                    let w = cell.split('\n').map(width).max().unwrap_or(0);
                    widths[c] = widths[c].max(w);
                }
            }
        }
        let layout = self.flex.map(|f| {
            let others: usize = widths.iter().enumerate().filter(|(c, _)| *c != f).map(|(_, w)| w + 2).sum();
            let room = WIDTH.saturating_sub(self.indent + others);
            if widths[f] <= room {
                Layout::InColumn(widths[f])
            } else if room >= MIN_FLEX || f + 1 < cols {
                Layout::InColumn(room.max(MIN_FLEX))
            } else {
                Layout::Below(WIDTH - self.indent - 4)
            }
        });
        if let (Some(f), Some(Layout::InColumn(w))) = (self.flex, layout) {
            widths[f] = w.max(width(self.header[f]));
        }
        let header: Vec<String> = self.header.iter().map(|h| (*h).to_owned()).collect();
        match (self.flex, layout) {
            // The title of cells written below their row is below the header, where they are.
            (Some(f), Some(Layout::Below(_))) => {
                self.write_line(out, &header[..f], &widths)?;
                writeln!(out, "{:indent$}{}", "", header[f], indent = self.indent + 4)?;
            }
            _ => self.write_line(out, &header, &widths)?,
        }
        for r in &self.rows {
            match r {
                Row::Group(title) => writeln!(out, "{:indent$}{title}", "", indent = self.indent)?,
                Row::Cells(cells) => self.write_row(out, cells, &widths, layout)?,
            }
        }
        Ok(())
    }

    /// One row: its first line, then the wrapped lines of its flexible cell.
    fn write_row(
        &self,
        out: &mut impl fmt::Write,
        cells: &[String],
        widths: &[usize],
        layout: Option<Layout>,
    ) -> fmt::Result {
        let (Some(f), Some(layout)) = (self.flex, layout) else {
            return self.write_line(out, cells, widths);
        };
        let flex_cell = cells.get(f).map_or("", String::as_str);
        match layout {
            Layout::InColumn(w) => {
                let lines = wrap(flex_cell, w);
                let mut line: Vec<String> = cells.to_vec();
                for (i, text) in lines.iter().enumerate() {
                    if i > 0 {
                        line.iter_mut().for_each(String::clear);
                    }
                    if line.len() <= f {
                        line.resize(f + 1, String::new());
                    }
                    line[f].clone_from(text);
                    self.write_line(out, &line, widths)?;
                }
                Ok(())
            }
            Layout::Below(w) => {
                let head: Vec<String> = cells.iter().take(f).cloned().collect();
                self.write_line(out, &head, widths)?;
                for text in wrap(flex_cell, w).iter().filter(|t| !t.is_empty()) {
                    writeln!(out, "{:indent$}{text}", "", indent = self.indent + 4)?;
                }
                Ok(())
            }
        }
    }

    /// Cells padded to their column's width, two spaces apart, trailing spaces trimmed.
    fn write_line(&self, out: &mut impl fmt::Write, cells: &[String], widths: &[usize]) -> fmt::Result {
        let mut line = String::new();
        let _ = write!(line, "{:indent$}", "", indent = self.indent);
        for (c, cell) in cells.iter().enumerate() {
            let w = widths.get(c).copied().unwrap_or(0);
            let _ = write!(line, "{cell:<w$}  ");
        }
        out.write_str(line.trim_end())?;
        out.write_char('\n')
    }
}

/// Columns a text takes (one per character).
pub(crate) fn width(s: &str) -> usize {
    s.chars().count()
}

/// `text` as lines of at most `w` columns: each `\n`-separated part wrapped at spaces,
/// keeping phrases whole where they fit (a line breaks after a word ending in `,` or before
/// one starting with `(` first); a word longer than `w` broken where a name breaks cleanly.
pub(crate) fn wrap(text: &str, w: usize) -> Vec<String> {
    let w = w.max(1);
    let mut lines = Vec::new();
    for part in text.split('\n') {
        let mut line = String::new();
        for phrase in phrases(part) {
            let joined = phrase.join(" ");
            let fits = |line: &str| line.is_empty() || width(line) + 1 + width(&joined) <= w;
            if width(&joined) <= w && !fits(&line) {
                lines.push(std::mem::take(&mut line));
            }
            for word in phrase {
                for piece in break_word(word, w) {
                    if !line.is_empty() && width(&line) + 1 + width(&piece) > w {
                        lines.push(std::mem::take(&mut line));
                    }
                    if !line.is_empty() {
                        line.push(' ');
                    }
                    line.push_str(&piece);
                }
            }
        }
        lines.push(line);
    }
    lines
}

/// The words of `text` in phrases: a phrase ends after a word ending in `,` and before a word
/// starting with `(`.
fn phrases(text: &str) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = vec![Vec::new()];
    for word in text.split(' ').filter(|s| !s.is_empty()) {
        let last = out.last().map_or(0, Vec::len);
        if word.starts_with('(') && last > 0 {
            out.push(Vec::new());
        }
        if let Some(p) = out.last_mut() {
            p.push(word);
        }
        if word.ends_with(',') {
            out.push(Vec::new());
        }
    }
    out.retain(|p| !p.is_empty());
    out
}

/// A word cut into pieces of at most `w` columns: after `/`, `:`, `@`, `?`, `,` or before `$`
/// when one is in reach, else after `_`, `-` or `.`, else at `w`. Short words stay whole.
fn break_word(word: &str, w: usize) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut pieces = Vec::new();
    let mut start = 0;
    while chars.len() - start > w {
        let window = &chars[start..start + w + 1];
        let strong = |&i: &usize| matches!(window[i - 1], '/' | ':' | '@' | '?' | ',') || window[i] == '$';
        let weak = |&i: &usize| matches!(window[i - 1], '_' | '-' | '.');
        let cut = (1..=w).rev().find(strong).or_else(|| (1..=w).rev().find(weak)).unwrap_or(w);
        pieces.push(chars[start..start + cut].iter().collect());
        start += cut;
    }
    pieces.push(chars[start..].iter().collect());
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_wrap_at_spaces_and_long_words_at_name_breaks() {
        assert_eq!(wrap("AA BB CC", 5), ["AA BB", "CC"]);
        assert_eq!(wrap("one\ntwo three", 20), ["one", "two three"]);
        assert_eq!(wrap("/a/bb/ccc/dddd", 7), ["/a/bb/", "ccc/", "dddd"]);
        assert_eq!(wrap("x://${A}:${B}@h", 8), ["x://", "${A}:", "${B}@h"]);
        assert_eq!(wrap("${AB_CD}:x_y_z", 10), ["${AB_CD}:", "x_y_z"]);
        assert_eq!(wrap("ab_cd_ef", 6), ["ab_cd_", "ef"]);
        assert_eq!(wrap("std, 10 req/month, vis 1m", 20), ["std, 10 req/month,", "vis 1m"]);
        assert_eq!(wrap("1 x db hours (Multi-AZ: a + b)", 22), ["1 x db hours", "(Multi-AZ: a + b)"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
    }

    #[test]
    fn a_flexible_column_wraps_in_place_or_below() {
        let mut t = Table { indent: 2, header: &["name", "list"], rows: Vec::new(), flex: Some(1) };
        t.row(vec!["a".into(), "x ".repeat(60)]);
        let mut s = String::new();
        t.write(&mut s).unwrap_or_default();
        assert!(s.lines().all(|l| width(l) <= WIDTH), "{s}");
        assert!(s.starts_with("  name  list\n  a     x x"), "{s}");
        let mut t = Table { indent: 2, header: &["name", "list"], rows: Vec::new(), flex: Some(1) };
        t.row(vec!["n".repeat(80), "y ".repeat(30)]);
        let mut s = String::new();
        t.write(&mut s).unwrap_or_default();
        assert!(s.lines().all(|l| width(l) <= WIDTH), "{s}");
        assert!(s.starts_with("  name\n      list\n  nnn"), "{s}");
        assert!(s.lines().nth(3).unwrap_or_default().starts_with("      y y"), "{s}");
    }
}
