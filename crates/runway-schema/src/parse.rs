//! Reading one file's bytes into the spanned tree, or the one diagnostic that stops it.
//!
//! The bounds of the file's size and encoding are checked first; then the fast reader
//! (`direct.rs`) builds the tree where it can, and serde-saphyr (`tree.rs`'s serde reading)
//! reads the rest and words every syntax error. This module depends on both readers; neither
//! depends on it or on the other's choice.

use crate::diagnostic::{Code, Diagnostic, Location};
use crate::direct;
use crate::tree::{self, MAX_ALIASES, MAX_DEPTH, MAX_FILE_BYTES, MAX_REPLAYED_EVENTS, Node, Value};

/// Parses one file into a tree, or the one diagnostic that stops reading it.
pub(crate) fn parse(file: &str, bytes: &[u8]) -> Result<Node, Diagnostic> {
    parse_text(file, bounded_text(file, bytes)?)
}

/// Parses a text already within the bounds.
fn parse_text(file: &str, text: &str) -> Result<Node, Diagnostic> {
    if crate::paths::only_comments(text) {
        return Ok(Node { value: Value::Null, line: 1, column: 1, offset: 0, len: 0 });
    }
    let options = tree::options();
    if let Some(node) = direct::read(text, &options) {
        return Ok(node);
    }
    serde_saphyr::from_str_with_options::<Node>(text, options).map_err(|e| syntax_error(file, text, &e))
}

/// Parses a file read as a runway file: one that says so with a `runway:` key at the start of a
/// line. Any other file (a path that reached a file runway does not own) is refused whole with
/// one diagnostic that quotes none of it (and the CLI draws no excerpt from a file that does not
/// declare itself).
pub(crate) fn runway_file(file: &str, bytes: &[u8]) -> Result<Node, Diagnostic> {
    // Whether it declares itself comes first: of a foreign file not even the place of its first
    // control character is told.
    let text = utf8_text(file, bytes)?;
    // An empty file is validation's to report: there is nothing in it to quote.
    if crate::paths::declares(text, &["runway"]) || crate::paths::only_comments(text) {
        return parse_text(file, printable_text(file, text)?);
    }
    let message =
        format!("`{file}` is not a runway file: no line starts with `runway:`, so none of it is shown");
    Err(Diagnostic::error(Code::InvalidValue, at(file, 1, 1, 0), "", message)
        .with_help("a runway file starts with `runway: 3`; check that the path names a runway file"))
}

/// A zero-length location in `file`.
fn at(file: &str, line: u32, column: u32, offset: usize) -> Location {
    Location { file: file.to_owned(), line, column, offset, len: 0 }
}

/// The file as text, when it is within the size bound, UTF-8 and free of control characters
/// (none of which YAML allows; quoting them would let a file drive a terminal or a CI log).
fn bounded_text<'b>(file: &str, bytes: &'b [u8]) -> Result<&'b str, Diagnostic> {
    printable_text(file, utf8_text(file, bytes)?)
}

/// The text, when it holds no control character.
fn printable_text<'b>(file: &str, text: &'b str) -> Result<&'b str, Diagnostic> {
    match crate::paths::first_control(text) {
        None => Ok(text),
        Some((c, line, column)) => Err(Diagnostic::error(
            Code::YamlSyntax,
            at(file, line, column, 0),
            "",
            format!(
                "the file holds the control character U+{:04X} at line {line}, column {column}: it is not a text file",
                u32::from(c)
            ),
        )
        .with_help("a runway file is UTF-8 text; check that the path names a runway file")),
    }
}

/// The file as text, when it is within the size bound and UTF-8.
fn utf8_text<'b>(file: &str, bytes: &'b [u8]) -> Result<&'b str, Diagnostic> {
    if bytes.len() > MAX_FILE_BYTES {
        return Err(Diagnostic::error(
            Code::YamlSyntax,
            at(file, 1, 1, 0),
            "",
            format!("the file is {} bytes, over the limit of {} bytes", bytes.len(), MAX_FILE_BYTES),
        )
        .with_help("a runway file describes one product; split very large products or generated content"));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = good.iter().filter(|b| **b == b'\n').count() + 1;
        let line_start = good.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&good[line_start..]).chars().count() + 1;
        Diagnostic::error(
            Code::YamlSyntax,
            at(file, to_u32(line), to_u32(column), e.valid_up_to()),
            "",
            format!("the file is not UTF-8: invalid byte at offset {}", e.valid_up_to()),
        )
        .with_help("save the file as UTF-8")
    })
}

/// serde-saphyr's error as the file's one diagnostic, with help for the bounds it hit.
fn syntax_error(file: &str, text: &str, e: &serde_saphyr::Error) -> Diagnostic {
    // The excerpt is drawn at `offset` and the header names line and column, so the offset is
    // derived from them: the parser's span has no byte offset for syntax errors, and an offset of
    // 0 drew the excerpt at the file's first line.
    let (line, column) = e
        .location()
        .map(|l| {
            (to_u32(usize::try_from(l.line()).unwrap_or(0)), to_u32(usize::try_from(l.column()).unwrap_or(0)))
        })
        .filter(|&(line, _)| line > 0)
        .unwrap_or((1, 1));
    let offset = offset_of(text, line, column);
    let message = syntax_message(e);
    let help = if message.contains("alias") || message.contains("anchor") {
        format!(
            "aliases are bounded ({MAX_ALIASES} uses, {MAX_REPLAYED_EVENTS} replayed nodes): write the values out"
        )
    } else if message.contains("depth") || message.contains("nesting") {
        format!("nesting is bounded at {MAX_DEPTH} levels")
    } else {
        "fix the YAML at this position: indentation, brackets, quotes or a missing `:`".to_owned()
    };
    Diagnostic::error(Code::YamlSyntax, at(file, line, column, offset), "", message).with_help(help)
}

/// The byte offset of 1-based `line` and `column` (in characters) in `text`, clamped to the end
/// of that line, or of the text when the line is past its end.
fn offset_of(text: &str, line: u32, column: u32) -> usize {
    let skip = usize::try_from(line.saturating_sub(1)).unwrap_or(usize::MAX);
    let Some(start) = line_start(text, skip) else { return text.len() };
    let rest = &text[start..];
    let line_len = rest.find(['\n', '\r']).unwrap_or(rest.len());
    let chars = usize::try_from(column.saturating_sub(1)).unwrap_or(usize::MAX);
    start + rest[..line_len].char_indices().nth(chars).map_or(line_len, |(i, _)| i)
}

/// Where the line after `skip` line breaks starts (`\n`, `\r\n` or a lone `\r`, as the parser
/// and the excerpt count them), if the text has that many.
fn line_start(text: &str, skip: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut start = 0;
    for _ in 0..skip {
        let i = start + bytes[start..].iter().position(|b| *b == b'\n' || *b == b'\r')?;
        start = if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') { i + 2 } else { i + 1 };
    }
    Some(start)
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The parser's message without any source snippet: errors never echo more than the offending
/// value.
fn syntax_message(e: &serde_saphyr::Error) -> String {
    let mut msg = e.without_snippet().to_string();
    // The message may end with the position again; keep the first line only.
    if let Some(i) = msg.find('\n') {
        msg.truncate(i);
    }
    if msg.len() > 300 {
        let mut cut = 300;
        while !msg.is_char_boundary(cut) {
            cut -= 1;
        }
        msg.truncate(cut);
        msg.push('…');
    }
    format!("invalid YAML: {msg}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{Int, Value};

    #[test]
    fn keeps_locations_and_duplicates() {
        let n = parse("f", b"a: 1\nb:\n  c: x\na: 2\n").unwrap();
        let Value::Map(m) = &n.value else { panic!("not a map: {n:?}") };
        assert_eq!(m.len(), 3);
        assert_eq!((m[2].0.line, m[2].0.column), (4, 1));
        let Value::Map(inner) = &m[1].1.value else { panic!() };
        assert_eq!((inner[0].1.line, inner[0].1.column, inner[0].1.offset), (3, 6, 13));
    }

    #[test]
    fn reads_integers_to_their_bounds() {
        let n = parse("f", b"big: 18446744073709551615\nneg: -9223372036854775808\n").unwrap();
        let Value::Map(m) = &n.value else { panic!("not a map: {n:?}") };
        assert_eq!(m[0].1.value, Value::Int(Int::new(i128::from(u64::MAX))));
        assert_eq!(m[1].1.value, Value::Int(Int::new(i128::from(i64::MIN))));
    }

    #[test]
    fn refuses_bombs_and_depth() {
        let mut bomb = String::from("a: &a [x,x,x,x,x,x,x,x,x,x]\n");
        for i in 0..9 {
            let prev = if i == 0 { "a".to_owned() } else { format!("b{}", i - 1) };
            bomb.push_str(&format!("b{i}: &b{i} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"));
        }
        let e = parse("f", bomb.as_bytes()).unwrap_err();
        assert_eq!(e.code, Code::YamlSyntax, "{e:?}");
        let deep = "[".repeat(100_000);
        let e = parse("f", deep.as_bytes()).unwrap_err();
        assert_eq!(e.code, Code::YamlSyntax, "{e:?}");
        println!("{e:?}");
    }
}
