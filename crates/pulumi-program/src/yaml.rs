//! A small YAML tree and its deterministic block-style emitter.
//!
//! The program is built as a [`Y`] tree whose maps keep insertion order, then written with
//! two-space indentation. Strings are written plain when that is unambiguous, otherwise as
//! double-quoted JSON strings (a JSON string is a valid YAML double-quoted scalar), so the same
//! tree always gives the same bytes.

use std::fmt::Write as _;

/// A YAML value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Y {
    /// A string.
    Str(String),
    /// An integer.
    Int(i64),
    /// A finite number that may have a fraction, as Rust writes it shortest (`1.5`, `2`):
    /// an alarm's threshold in the metric's unit.
    Number(String),
    /// A boolean.
    Bool(bool),
    /// A sequence.
    List(Vec<Y>),
    /// A mapping, in insertion order.
    Map(Vec<(String, Y)>),
}

/// A string value.
pub fn s(value: impl Into<String>) -> Y {
    Y::Str(value.into())
}

/// An integer value.
pub fn i(value: impl Into<i64>) -> Y {
    Y::Int(value.into())
}

/// A mapping from `(key, value)` pairs, in order.
pub fn m<const N: usize>(entries: [(&str, Y); N]) -> Y {
    Y::Map(entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

impl Y {
    /// Adds an entry to a mapping (no effect on other values).
    pub fn push(&mut self, key: &str, value: Y) {
        if let Y::Map(entries) = self {
            entries.push((key.to_owned(), value));
        }
    }

    fn is_scalar(&self) -> bool {
        match self {
            Y::Str(_) | Y::Int(_) | Y::Number(_) | Y::Bool(_) => true,
            Y::List(items) => items.is_empty(),
            Y::Map(entries) => entries.is_empty(),
        }
    }
}

/// Writes a document: a top-level mapping.
pub fn document(root: &Y) -> String {
    let mut out = String::new();
    match root {
        Y::Map(entries) => map(&mut out, 0, entries),
        other @ (Y::List(_) | Y::Str(_) | Y::Int(_) | Y::Number(_) | Y::Bool(_)) => {
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
    out
}

fn map(out: &mut String, indent: usize, entries: &[(String, Y)]) {
    for (key, value) in entries {
        pad(out, indent);
        out.push_str(&string(key));
        out.push(':');
        block_value(out, indent, value);
    }
}

/// After `key:` or `-`: a scalar on the same line, a block on the following lines.
fn block_value(out: &mut String, indent: usize, value: &Y) {
    if value.is_scalar() {
        out.push(' ');
        out.push_str(&scalar(value));
        out.push('\n');
        return;
    }
    out.push('\n');
    match value {
        Y::Map(entries) => map(out, indent + 2, entries),
        Y::List(items) => list(out, indent + 2, items),
        Y::Str(_) | Y::Int(_) | Y::Number(_) | Y::Bool(_) => {} // written above
    }
}

fn list(out: &mut String, indent: usize, items: &[Y]) {
    for item in items {
        pad(out, indent);
        out.push('-');
        match item {
            Y::Map(entries) if !entries.is_empty() => {
                // The first entry on the dash line, the others aligned under it.
                let mut first = String::new();
                map(&mut first, indent + 2, entries);
                out.push(' ');
                out.push_str(&first[indent + 2..]);
            }
            other @ (Y::Map(_) | Y::List(_) | Y::Str(_) | Y::Int(_) | Y::Number(_) | Y::Bool(_)) => {
                block_value(out, indent, other)
            }
        }
    }
}

fn pad(out: &mut String, indent: usize) {
    for _ in 0..indent {
        out.push(' ');
    }
}

fn scalar(value: &Y) -> String {
    match value {
        Y::Str(text) => string(text),
        Y::Int(n) => n.to_string(),
        Y::Number(n) => n.clone(),
        Y::Bool(b) => b.to_string(),
        Y::List(_) => "[]".to_owned(),
        Y::Map(_) => "{}".to_owned(),
    }
}

/// A string as a plain scalar when that reads back as the same string, else double-quoted.
fn string(text: &str) -> String {
    if is_plain(text) {
        return text.to_owned();
    }
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\t' => quoted.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(quoted, "\\u{:04x}", c as u32);
            }
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

fn is_plain(text: &str) -> bool {
    const RESERVED: [&str; 11] = ["true", "false", "yes", "no", "on", "off", "null", "y", "n", "~", ""];
    let Some(first) = text.chars().next() else { return false };
    (first.is_ascii_alphabetic() || first == '/')
        && !text.ends_with(':')
        && text.chars().all(|c| c.is_ascii_alphanumeric() || "._/@:-".contains(c))
        && !RESERVED.contains(&text.to_ascii_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_and_quoted_strings() {
        assert_eq!(string("aws:rds/instance:Instance"), "aws:rds/instance:Instance");
        assert_eq!(string("16"), "\"16\"");
        assert_eq!(string("yes"), "\"yes\"");
        assert_eq!(string("${a.b}"), "\"${a.b}\"");
        assert_eq!(string("a \"b\"\n"), "\"a \\\"b\\\"\\n\"");
        assert_eq!(string("*"), "\"*\"");
    }

    #[test]
    fn nested_blocks() {
        let doc = m([
            ("name", s("x")),
            ("list", Y::List(vec![m([("a", i(1)), ("b", Y::List(vec![s("c")]))]), s("d")])),
            ("empty", Y::List(vec![])),
            ("map", m([("k", Y::Bool(true))])),
        ]);
        assert_eq!(
            document(&doc),
            "name: x\nlist:\n  - a: 1\n    b:\n      - c\n  - d\nempty: []\nmap:\n  k: true\n"
        );
    }
}
