//! Tables of the text renderings: a header row, aligned columns two spaces apart, and lines
//! that fit [`WIDTH`] columns.
//!
//! One column of a table may be *flexible*: its cells wrap (at spaces, and inside a word too
//! long for a line at `/`, `_`, `-`, `.`, `:`, `@`, `?`, `,` or before `$`) to the room the
//! other columns leave. When that room is too narrow and the flexible column is the last, its
//! cells go on their own lines below each row, indented, and so does its title below the
//! header. A cell may hold `\n` to start a new line in its column. The other columns never wrap: a name is never cut.

use std::fmt;

/// The width every line of the text renderings fits in (for names up to 30 characters).
pub const WIDTH: usize = 100;

/// The narrowest room a flexible column wraps in next to the other columns.
const MIN_FLEX: usize = 32;

/// The rows of a table, kept compact: every cell's text in one buffer and where each cell
/// ends, not a `String` per cell. A table is written only once all its rows are known (the
/// columns' widths): for the small tables of the other commands. The plan's text makes its
/// rows twice instead ([`write_twice`]): a large plan's have tens of thousands.
#[derive(Default)]
pub(crate) struct Rows {
    /// Every cell's text, one after another.
    text: String,
    /// Where each cell ends in `text`.
    ends: Vec<usize>,
    /// Where each row ends in `ends`: one past its last cell.
    rows: Vec<usize>,
}

impl Rows {
    /// Adds a row of cells at the end.
    pub(crate) fn push(&mut self, cells: &[String]) {
        for c in cells {
            self.text.push_str(c);
            self.ends.push(self.text.len());
        }
        self.rows.push(self.ends.len());
    }

    /// The rows' cells, in order.
    fn iter(&self) -> impl Iterator<Item = impl Iterator<Item = &str> + Clone> {
        let mut first: usize = 0;
        self.rows.iter().map(move |&end| {
            let start = first.checked_sub(1).map_or(0, |last| self.ends[last]);
            let ends = &self.ends[first..end];
            first = end;
            ends.iter().scan(start, |at, &end| {
                let cell = &self.text[*at..end];
                *at = end;
                Some(cell)
            })
        })
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
        self.rows.push(&cells);
    }

    /// Writes the header and the rows to `out`.
    pub(crate) fn write(&self, out: &mut impl fmt::Write) -> fmt::Result {
        let mut columns = Columns::new(self.indent, self.header, self.flex);
        let mut row: Vec<&str> = Vec::new();
        for cells in self.rows.iter() {
            row.clear();
            row.extend(cells);
            columns.measure(&row);
        }
        columns.write_header(out)?;
        // One row's cells at a time, as the callers' rows had them.
        for cells in self.rows.iter() {
            row.clear();
            row.extend(cells);
            columns.write_row(out, &row)?;
        }
        Ok(())
    }
}

/// A row a section makes for [`write_twice`]: its cells, or a group title across the columns.
pub(crate) enum Line<'r> {
    /// One cell per column (missing trailing cells are empty).
    Cells(&'r [String]),
    /// A title line for the rows after it, at the table's indent; not counted in widths.
    Group(&'r str),
}

/// Where a section's rows go, one at a time.
pub(crate) type Emit<'e> = dyn FnMut(Line<'_>) -> fmt::Result + 'e;

/// A table whose rows are made twice rather than held: `rows` makes every row, in order, for
/// each call of its argument; the first pass finds the columns' widths, the second writes
/// them. A large plan's sections have tens of thousands of rows: held whole while written,
/// the cost section's were the text phase's peak (docs/benchmarks.md, "Planning's memory,
/// seventh pass"). The rows must be the same both times.
pub(crate) fn write_twice(
    out: &mut impl fmt::Write,
    (indent, header, flex): (usize, &[&str], Option<usize>),
    rows: impl Fn(&mut Emit<'_>) -> fmt::Result,
) -> fmt::Result {
    let mut columns = Columns::new(indent, header, flex);
    rows(&mut |line| {
        if let Line::Cells(cells) = line {
            columns.measure(cells);
        }
        Ok(())
    })?;
    columns.write_header(out)?;
    rows(&mut |line| match line {
        Line::Cells(cells) => columns.write_row(out, cells),
        Line::Group(title) => columns.write_group(out, title),
    })
}

/// A table's columns: measured row by row, then laid out once, before the header is written.
struct Columns<'a> {
    /// Spaces before each line.
    indent: usize,
    /// Column titles.
    header: &'a [&'a str],
    /// The column whose cells wrap, when there is one.
    flex: Option<usize>,
    /// Each column's width: the widest of its title and cells so far, then as laid out.
    widths: Vec<usize>,
    /// How the flexible column is laid out, once known.
    layout: Option<Layout>,
}

impl<'a> Columns<'a> {
    fn new(indent: usize, header: &'a [&'a str], flex: Option<usize>) -> Self {
        let widths = header.iter().map(|h| width(h)).collect();
        Columns { indent, header, flex, widths, layout: None }
    }

    /// Widens the columns to a row's cells (a cell's widest line).
    fn measure<S: AsRef<str>>(&mut self, cells: &[S]) {
        for (w, cell) in self.widths.iter_mut().zip(cells) {
            let cell_width = cell.as_ref().split('\n').map(width).max().unwrap_or(0);
            *w = (*w).max(cell_width);
        }
    }

    /// Lays the flexible column out from the widths measured, then writes the header.
    fn write_header(&mut self, out: &mut impl fmt::Write) -> fmt::Result {
        let cols = self.header.len();
        let widths = &mut self.widths;
        self.layout = self.flex.map(|f| {
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
        if let (Some(f), Some(Layout::InColumn(w))) = (self.flex, self.layout) {
            widths[f] = w.max(width(self.header[f]));
        }
        let header = self.header;
        match (self.flex, self.layout) {
            // The title of cells written below their row is below the header, where they are.
            (Some(f), Some(Layout::Below(_))) => {
                self.write_line(out, &header[..f])?;
                writeln!(out, "{:indent$}{}", "", header[f], indent = self.indent + 4)
            }
            _ => self.write_line(out, header),
        }
    }

    /// A group's title line, at the table's indent.
    fn write_group(&self, out: &mut impl fmt::Write, title: &str) -> fmt::Result {
        writeln!(out, "{:indent$}{title}", "", indent = self.indent)
    }

    /// One row: its first line, then the wrapped lines of its flexible cell.
    fn write_row<S: AsRef<str>>(&self, out: &mut impl fmt::Write, cells: &[S]) -> fmt::Result {
        let (Some(f), Some(layout)) = (self.flex, self.layout) else {
            return self.write_line(out, cells);
        };
        let flex_cell = cells.get(f).map_or("", AsRef::as_ref);
        match layout {
            Layout::InColumn(w) => {
                let lines = wrap(flex_cell, w);
                let mut line: Vec<&str> = cells.iter().map(AsRef::as_ref).collect();
                for (i, text) in lines.iter().enumerate() {
                    if i > 0 {
                        line.iter_mut().for_each(|c| *c = "");
                    }
                    if line.len() <= f {
                        line.resize(f + 1, "");
                    }
                    line[f] = text;
                    self.write_line(out, &line)?;
                }
                Ok(())
            }
            Layout::Below(w) => {
                self.write_line(out, &cells[..f.min(cells.len())])?;
                for text in wrap(flex_cell, w).iter().filter(|t| !t.is_empty()) {
                    writeln!(out, "{:indent$}{text}", "", indent = self.indent + 4)?;
                }
                Ok(())
            }
        }
    }

    /// Cells padded to their column's width, two spaces apart, trailing spaces trimmed.
    fn write_line<S: AsRef<str>>(&self, out: &mut impl fmt::Write, cells: &[S]) -> fmt::Result {
        let mut line = String::with_capacity(WIDTH + 1);
        pad(&mut line, self.indent);
        for (c, cell) in cells.iter().enumerate() {
            let (cell, w) = (cell.as_ref(), self.widths.get(c).copied().unwrap_or(0));
            line.push_str(cell);
            pad(&mut line, w.saturating_sub(width(cell)) + 2);
        }
        out.write_str(line.trim_end())?;
        out.write_char('\n')
    }
}

/// `n` spaces at the end of `line` (what `{:<w$}` pads with, without formatting).
fn pad(line: &mut String, n: usize) {
    line.extend(std::iter::repeat_n(' ', n));
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
        // A part that fits, its words one space apart, is its own line: most cells are.
        if width(part) <= w && !part.starts_with(' ') && !part.ends_with(' ') && !part.contains("  ") {
            lines.push(part.to_owned());
            continue;
        }
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
    if width(word) <= w {
        return vec![word.to_owned()];
    }
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
        // Spaces are words' separators, whether the part fits or not.
        assert_eq!(wrap("a  b \n c\n", 10), ["a b", "c", ""]);
        assert_eq!(wrap("fits as it is", 13), ["fits as it is"]);
    }

    #[test]
    fn rows_keep_each_rows_cells_apart() {
        let mut rows = Rows::default();
        rows.push(&["a".into(), String::new(), "b\nc".into()]);
        rows.push(&[]);
        rows.push(&[String::new(), "é".into()]);
        let got: Vec<Vec<&str>> = rows.iter().map(Iterator::collect).collect();
        let want: Vec<Vec<&str>> = vec![vec!["a", "", "b\nc"], vec![], vec!["", "é"]];
        assert_eq!(got, want);
        assert_eq!(Rows::default().iter().count(), 0);
    }

    #[test]
    fn a_table_made_twice_writes_groups_and_short_rows_as_its_rows_say() {
        let mut s = String::new();
        let header: &[&str] = &["item", "what", "monthly"];
        write_twice(&mut s, (2, header, None), |emit| {
            emit(Line::Group("main-db"))?;
            emit(Line::Cells(&["  instance".into(), "db hours".into(), "$12.41".into()]))?;
            emit(Line::Cells(&["total".into()]))
        })
        .unwrap_or_default();
        assert_eq!(
            s,
            "  item        what      monthly\n  main-db\n    instance  db hours  $12.41\n  total\n"
        );
    }

    #[test]
    fn a_table_made_twice_is_the_table_held() {
        for (flex, rows) in [
            (Some(1), vec![vec!["a".to_owned(), "x ".repeat(60)], vec!["bb".into()]]),
            (Some(1), vec![vec!["n".repeat(80), "y ".repeat(30)], vec!["c".into(), "d\ne".into()]]),
            (None, vec![vec!["one".into(), "two".into()], vec![]]),
        ] {
            let mut held = Table { indent: 4, header: &["name", "list"], rows: Rows::default(), flex };
            rows.iter().for_each(|r| held.row(r.clone()));
            let (mut want, mut got) = (String::new(), String::new());
            held.write(&mut want).unwrap_or_default();
            write_twice(&mut got, (4, &["name", "list"], flex), |emit| {
                rows.iter().try_for_each(|r| emit(Line::Cells(r)))
            })
            .unwrap_or_default();
            assert!(want.lines().count() > 2, "{want}");
            assert_eq!(got, want);
        }
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
