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

/// The rows of a table, kept compact: every cell's text in one buffer and where each cell
/// ends, not a `String` per cell. A table is written only once all its rows are known (the
/// columns' widths), and a large plan's have tens of thousands of rows: at N = 10,000 the `cost`
/// section's held about 60,000 rows of four `String`s each while it was written, the peak RSS of
/// `runway plan` (docs/benchmarks.md, "Planning's memory, fifth pass").
#[derive(Default)]
pub(crate) struct Rows {
    /// Every cell's text, one after another.
    text: String,
    /// Where each cell ends in `text`.
    ends: Vec<usize>,
    /// Each row: a group's title or cells, and where its last cell ends in `ends`.
    rows: Vec<RowEnd>,
}

/// A row of [`Rows`]: its cells are those after the previous row's, up to `end`.
#[derive(Clone, Copy)]
struct RowEnd {
    /// A group title (one cell) rather than cells.
    group: bool,
    /// One past its last cell in [`Rows::ends`].
    end: usize,
}

impl Rows {
    /// Adds a row at the end.
    pub(crate) fn push(&mut self, row: Row) {
        let group = match row {
            Row::Cells(cells) => {
                cells.iter().for_each(|c| self.cell(c));
                false
            }
            Row::Group(title) => {
                self.cell(&title);
                true
            }
        };
        self.rows.push(RowEnd { group, end: self.ends.len() });
    }

    fn cell(&mut self, text: &str) {
        self.text.push_str(text);
        self.ends.push(self.text.len());
    }

    /// Has it no row?
    pub(crate) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The rows in order: a group title or not, and the row's cells.
    fn iter(&self) -> impl Iterator<Item = (bool, impl Iterator<Item = &str> + Clone)> {
        let mut first: usize = 0;
        self.rows.iter().map(move |r| {
            let start = first.checked_sub(1).map_or(0, |last| self.ends[last]);
            let ends = &self.ends[first..r.end];
            first = r.end;
            let cells = ends.iter().scan(start, |at, &end| {
                let cell = &self.text[*at..end];
                *at = end;
                Some(cell)
            });
            (r.group, cells)
        })
    }
}

impl FromIterator<Row> for Rows {
    fn from_iter<I: IntoIterator<Item = Row>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut rows = Rows::default();
        rows.rows.reserve(iter.size_hint().0);
        iter.for_each(|r| rows.push(r));
        rows
    }
}

/// A table to write: header, rows, indent, and the column that wraps.
pub(crate) struct Table<'a> {
    /// Spaces before each line.
    pub indent: usize,
    /// Column titles.
    pub header: &'a [&'a str],
    /// The rows, in order.
    pub rows: Rows,
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
        Table { indent, header, rows: Rows::default(), flex: None }
    }

    /// Adds a row of cells.
    pub(crate) fn row(&mut self, cells: Vec<String>) {
        self.rows.push(Row::Cells(cells));
    }

    /// Writes the header and the rows to `out`.
    pub(crate) fn write(&self, out: &mut impl fmt::Write) -> fmt::Result {
        let cols = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(|h| width(h)).collect();
        for (_, cells) in self.rows.iter().filter(|(group, _)| !group) {
            for (c, cell) in cells.enumerate().take(cols) {
                let w = cell.split('\n').map(width).max().unwrap_or(0);
                widths[c] = widths[c].max(w);
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
        let header = self.header;
        match (self.flex, layout) {
            // The title of cells written below their row is below the header, where they are.
            (Some(f), Some(Layout::Below(_))) => {
                self.write_line(out, &header[..f], &widths)?;
                writeln!(out, "{:indent$}{}", "", header[f], indent = self.indent + 4)?;
            }
            _ => self.write_line(out, header, &widths)?,
        }
        // One row's cells at a time, as the callers' rows had them.
        let mut row: Vec<&str> = Vec::new();
        for (group, cells) in self.rows.iter() {
            row.clear();
            row.extend(cells);
            match (group, row.first()) {
                (true, title) => {
                    writeln!(out, "{:indent$}{}", "", title.unwrap_or(&""), indent = self.indent)?;
                }
                (false, _) => self.write_row(out, &row, &widths, layout)?,
            }
        }
        Ok(())
    }

    /// One row: its first line, then the wrapped lines of its flexible cell.
    fn write_row(
        &self,
        out: &mut impl fmt::Write,
        cells: &[&str],
        widths: &[usize],
        layout: Option<Layout>,
    ) -> fmt::Result {
        let (Some(f), Some(layout)) = (self.flex, layout) else {
            return self.write_line(out, cells, widths);
        };
        let flex_cell = cells.get(f).copied().unwrap_or("");
        match layout {
            Layout::InColumn(w) => {
                let lines = wrap(flex_cell, w);
                let mut line: Vec<&str> = cells.to_vec();
                for (i, text) in lines.iter().enumerate() {
                    if i > 0 {
                        line.iter_mut().for_each(|c| *c = "");
                    }
                    if line.len() <= f {
                        line.resize(f + 1, "");
                    }
                    line[f] = text;
                    self.write_line(out, &line, widths)?;
                }
                Ok(())
            }
            Layout::Below(w) => {
                self.write_line(out, &cells[..f.min(cells.len())], widths)?;
                for text in wrap(flex_cell, w).iter().filter(|t| !t.is_empty()) {
                    writeln!(out, "{:indent$}{text}", "", indent = self.indent + 4)?;
                }
                Ok(())
            }
        }
    }

    /// Cells padded to their column's width, two spaces apart, trailing spaces trimmed.
    fn write_line(&self, out: &mut impl fmt::Write, cells: &[&str], widths: &[usize]) -> fmt::Result {
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
    fn rows_keep_each_rows_cells_and_groups_apart() {
        let rows: Rows = [
            Row::Cells(vec!["a".into(), String::new(), "b\nc".into()]),
            Row::Group("owner".into()),
            Row::Cells(vec![]),
            Row::Cells(vec![String::new(), "é".into()]),
        ]
        .into_iter()
        .collect();
        let got: Vec<(bool, Vec<&str>)> = rows.iter().map(|(g, cells)| (g, cells.collect())).collect();
        let want: Vec<(bool, Vec<&str>)> = vec![
            (false, vec!["a", "", "b\nc"]),
            (true, vec!["owner"]),
            (false, vec![]),
            (false, vec!["", "é"]),
        ];
        assert_eq!(got, want);
        assert!(!rows.is_empty() && Rows::default().is_empty());
    }

    #[test]
    fn a_table_writes_groups_and_short_rows_as_its_rows_say() {
        let mut t = Table::new(2, &["item", "what", "monthly"]);
        t.rows.push(Row::Group("main-db".into()));
        t.row(vec!["  instance".into(), "db hours".into(), "$12.41".into()]);
        t.row(vec!["total".into()]);
        let mut s = String::new();
        t.write(&mut s).unwrap_or_default();
        assert_eq!(
            s,
            "  item        what      monthly\n  main-db\n    instance  db hours  $12.41\n  total\n"
        );
    }

    #[test]
    fn a_flexible_column_wraps_in_place_or_below() {
        let mut t = Table { indent: 2, header: &["name", "list"], rows: Rows::default(), flex: Some(1) };
        t.row(vec!["a".into(), "x ".repeat(60)]);
        let mut s = String::new();
        t.write(&mut s).unwrap_or_default();
        assert!(s.lines().all(|l| width(l) <= WIDTH), "{s}");
        assert!(s.starts_with("  name  list\n  a     x x"), "{s}");
        let mut t = Table { indent: 2, header: &["name", "list"], rows: Rows::default(), flex: Some(1) };
        t.row(vec!["n".repeat(80), "y ".repeat(30)]);
        let mut s = String::new();
        t.write(&mut s).unwrap_or_default();
        assert!(s.lines().all(|l| width(l) <= WIDTH), "{s}");
        assert!(s.starts_with("  name\n      list\n  nnn"), "{s}");
        assert!(s.lines().nth(3).unwrap_or_default().starts_with("      y y"), "{s}");
    }
}
