//! Byte offsets of a text and LSP positions (line, UTF-16 code unit) in both directions.
//!
//! The schema's spans are byte offsets into the text; the protocol counts lines from 0 and
//! columns in UTF-16 code units by default. Lines end at `\n`, `\r\n` or a lone `\r`, as the
//! protocol says. Every conversion clamps: a position past a line's end is that end, an offset
//! past the text is its end, and an offset inside a character is that character's start.

use lsp_types::{Position, Range};

/// A document's text and where each of its lines starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceText {
    text: String,
    /// Byte offsets where lines start; the first is 0.
    line_starts: Vec<usize>,
}

impl SourceText {
    /// Indexes `text`.
    pub fn new(text: String) -> Self {
        let line_starts = runway_schema::line_starts(&text);
        Self { text, line_starts }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The byte range of a 0-based line without its line break; `None` past the last line.
    pub fn line_range(&self, line: usize) -> Option<std::ops::Range<usize>> {
        let start = *self.line_starts.get(line)?;
        let next = self.line_starts.get(line + 1).copied().unwrap_or(self.text.len());
        let content = &self.text[start..next];
        let end = start + content.trim_end_matches(['\n', '\r']).len();
        Some(start..end)
    }

    /// The number of lines (a text ending in a line break has an empty last line).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The LSP position of a byte offset.
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&s| s <= offset).saturating_sub(1);
        let start = self.line_starts[line];
        // An offset between a `\r` and its `\n` is the end of the line.
        let end = self.line_range(line).map_or(offset, |r| r.end);
        let units: usize = self.text[start..offset.min(end)].chars().map(char::len_utf16).sum();
        Position::new(to_u32(line), to_u32(units))
    }

    /// The byte offset of an LSP position: past the last line is the end of the text, past a
    /// line's end is that end, inside a surrogate pair is the character's start.
    pub fn offset(&self, position: Position) -> usize {
        let Some(range) = self.line_range(position.line as usize) else { return self.text.len() };
        let mut units = 0usize;
        let want = position.character as usize;
        for (i, c) in self.text[range.clone()].char_indices() {
            if units + c.len_utf16() > want {
                return range.start + i;
            }
            units += c.len_utf16();
        }
        range.end
    }

    /// The LSP range of a byte range.
    pub fn range(&self, bytes: std::ops::Range<usize>) -> Range {
        Range::new(self.position(bytes.start), self.position(bytes.end.max(bytes.start)))
    }

    /// The byte range of an LSP range (start and end clamped, end never before start).
    pub fn byte_range(&self, range: Range) -> std::ops::Range<usize> {
        let start = self.offset(range.start);
        start..self.offset(range.end).max(start)
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position::new(line, character)
    }

    #[test]
    fn ascii_round_trips() {
        let t = SourceText::new("a: 1\nbb: 2\n".to_owned());
        assert_eq!(t.position(0), pos(0, 0));
        assert_eq!(t.position(5), pos(1, 0));
        assert_eq!(t.position(7), pos(1, 2));
        assert_eq!(t.position(11), pos(2, 0));
        for offset in 0..=t.as_str().len() {
            assert_eq!(t.offset(t.position(offset)), offset, "offset {offset}");
        }
    }

    /// `é` is 2 bytes and 1 UTF-16 unit, `€` 3 bytes and 1 unit, `𝄞` 4 bytes and 2 units.
    #[test]
    fn multibyte_text_counts_utf16_units() {
        let text = "# é€𝄞\ndetail: \"𝄞 ok\"\n";
        let t = SourceText::new(text.to_owned());
        // After `# é€` is byte 2 + 2 + 3 = 7, unit 4; after `𝄞` byte 11, unit 6.
        assert_eq!(t.position(7), pos(0, 4));
        assert_eq!(t.position(11), pos(0, 6));
        assert_eq!(t.offset(pos(0, 4)), 7);
        assert_eq!(t.offset(pos(0, 6)), 11);
        // Inside the surrogate pair: the character's start.
        assert_eq!(t.offset(pos(0, 5)), 7);
        // Inside a character's bytes: its start.
        assert_eq!(t.position(8), pos(0, 4));
        let ok = text.find("ok").unwrap();
        assert_eq!(t.position(ok), pos(1, 12));
        assert_eq!(t.offset(pos(1, 12)), ok);
        let range = t.range(ok..ok + 2);
        assert_eq!((range.start, range.end), (pos(1, 12), pos(1, 14)));
        assert_eq!(t.byte_range(range), ok..ok + 2);
    }

    /// An emoji outside the BMP (`🚀`, 4 bytes, 2 units) and one written as a ZWJ sequence
    /// (`👩‍💻`: two such emoji and U+200D, 11 bytes, 5 units) before a word, and `é` after it.
    #[test]
    fn emoji_count_two_units_each_and_round_trip() {
        let text = "detail: \"🚀 👩\u{200d}💻 go é\"\nnext: 1\n";
        let t = SourceText::new(text.to_owned());
        let go = text.find("go").unwrap();
        assert_eq!(go, 8 + 1 + 4 + 1 + 11 + 1);
        // `detail: "` is 9 units, then 2 + 1 + 5 + 1.
        assert_eq!(t.position(go), pos(0, 18));
        assert_eq!(t.offset(pos(0, 18)), go);
        let e = text.find('é').unwrap();
        assert_eq!(t.position(e + 2), pos(0, 22));
        assert_eq!(t.byte_range(t.range(e..e + 2)), e..e + 2);
        // Inside the rocket's surrogate pair: its start, both ways.
        assert_eq!(t.offset(pos(0, 10)), 9);
        assert_eq!(t.position(10), pos(0, 9));
        for offset in (0..=text.len()).filter(|o| text.is_char_boundary(*o)) {
            assert_eq!(t.offset(t.position(offset)), offset, "offset {offset}");
        }
        assert_eq!(t.position(text.find("next").unwrap()), pos(1, 0));
    }

    #[test]
    fn every_line_break_counts_and_positions_clamp() {
        let t = SourceText::new("a\r\nb\rc\nd".to_owned());
        assert_eq!(t.line_count(), 4);
        assert_eq!(t.position(1), pos(0, 1));
        // Between `\r` and `\n`: the end of line 0.
        assert_eq!(t.position(2), pos(0, 1));
        assert_eq!(t.position(3), pos(1, 0));
        assert_eq!(t.position(5), pos(2, 0));
        assert_eq!(t.position(7), pos(3, 0));
        assert_eq!(t.offset(pos(0, 99)), 1);
        assert_eq!(t.offset(pos(9, 0)), t.as_str().len());
        assert_eq!(t.position(999), pos(3, 1));
        let empty = SourceText::new(String::new());
        assert_eq!(empty.position(0), pos(0, 0));
        assert_eq!(empty.offset(pos(3, 3)), 0);
    }
}
