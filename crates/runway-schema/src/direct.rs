//! The spanned tree built straight from the YAML parser's events: the fast path of reading.
//!
//! serde-saphyr reads a file through its own event layer (budgets, alias replay, merge keys,
//! scalar typing) and then through serde visitors; for a runway file that is most of the cost
//! of `check` (docs/benchmarks.md). Runway files use a small part of YAML: plain, quoted and
//! block scalars in block or flow collections. This reader builds the tree from
//! granit-parser's events (the parser under serde-saphyr, with the same options) for exactly
//! that part, and gives up — returns `None` — on anything else: a syntax error, an anchor, an
//! alias, a tag, a merge key, a complex key, a second document, a number in an unusual
//! spelling, or a bound coming near. The caller (`parse.rs`) then reads the file the slow way,
//! so every error message and every rare meaning stays serde-saphyr's. Where this reader does
//! answer, its tree is the one serde-saphyr would build; a test and the fuzz target `check`
//! compare the two.

use std::borrow::Cow;

use serde_saphyr::granit_parser::{Event, Parser, ScalarStyle, Span, StrInput};

use crate::tree::{Int, Node, Value};

/// Parser options equal to the ones serde-saphyr derives from `options`, so that both readers
/// see the same events and the same syntax errors.
fn parser_options(options: &serde_saphyr::Options) -> serde_saphyr::granit_parser::Options {
    let default_budget = serde_saphyr::Budget::default();
    let budget = options.budget.as_ref().unwrap_or(&default_budget);
    let mut out = serde_saphyr::granit_parser::Options::default();
    out.simple_key_max_lookahead = budget.simple_key_max_lookahead;
    out.flow_nesting_limit = budget.flow_nesting_limit;
    out.block_nesting_limit = out.block_nesting_limit.max(budget.max_depth.saturating_add(1));
    out.strict_indentation = options.strict_indentation;
    out.bom_inside_document_as_content = options.bom_inside_document_as_content;
    out
}

/// A collection being read: its own node (value not yet set), whether it is a mapping, and
/// where its children start in the shared list of children.
struct Open {
    node: Node,
    map: bool,
    start: usize,
}

/// Reads `text` into the tree, or `None` when the file needs serde-saphyr (see the module
/// comment). `options` are the ones the slow path uses; its bounds are kept with a margin.
pub(crate) fn read(text: &str, options: &serde_saphyr::Options) -> Option<Node> {
    let budget = options.budget.clone().unwrap_or_default();
    // Give up well before any bound: reaching one is an error, and errors are worded by the
    // slow path.
    let max_depth = budget.max_depth.saturating_sub(2);
    let max_events = budget.max_events.saturating_sub(8);
    let max_nodes = budget.max_nodes.saturating_sub(8);
    let mut events = 0usize;
    let mut nodes = 0usize;
    let mut scalar_bytes = 0usize;

    let mut stack: Vec<Open> = Vec::new();
    // The children of every open collection, in order (a mapping's keys and values alternate).
    // Each collection's list is made at its end, at its exact size: a file's tree is held
    // whole while it is validated, and vectors grown by doubling would be up to half slack.
    let mut children: Vec<Node> = Vec::new();
    let mut root: Option<Node> = None;
    let mut documents = 0usize;

    for item in Parser::with_options(StrInput::new(text), parser_options(options)) {
        let (event, span) = item.ok()?;
        events += 1;
        if events > max_events {
            return None;
        }
        let done = match event {
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => None,
            Event::DocumentStart(_, version) => {
                documents += 1;
                if documents > 1 || version.is_some() {
                    return None;
                }
                None
            }
            Event::Scalar(value, style, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return None;
                }
                nodes += 1;
                scalar_bytes += value.len();
                if nodes > max_nodes || scalar_bytes > budget.max_total_scalar_bytes {
                    return None;
                }
                Some(Node { value: scalar(value, style)?, ..at(&span) })
            }
            Event::SequenceStart(_, anchor, ref tag) | Event::MappingStart(_, anchor, ref tag) => {
                if anchor != 0 || tag.is_some() || stack.len() >= max_depth {
                    return None;
                }
                nodes += 1;
                if nodes > max_nodes {
                    return None;
                }
                // A collection as a key is a complex key: the slow path's business.
                if stack
                    .last()
                    .is_some_and(|open| open.map && (children.len() - open.start).is_multiple_of(2))
                {
                    return None;
                }
                let map = matches!(event, Event::MappingStart(..));
                stack.push(Open { node: at(&span), map, start: children.len() });
                None
            }
            Event::SequenceEnd => {
                let open = stack.pop()?;
                if open.map {
                    return None;
                }
                let items: Box<[Node]> = children.drain(open.start..).collect();
                Some(Node { value: Value::Seq(items), ..open.node })
            }
            Event::MappingEnd => {
                let open = stack.pop()?;
                let count = children.len() - open.start;
                if !open.map || !count.is_multiple_of(2) {
                    return None;
                }
                let mut entries = Vec::with_capacity(count / 2);
                let mut drained = children.drain(open.start..);
                while let (Some(key), Some(value)) = (drained.next(), drained.next()) {
                    entries.push((key, value));
                }
                Some(Node { value: Value::Map(entries.into_boxed_slice()), ..open.node })
            }
            // Aliases, anchors and anything newer.
            _ => return None,
        };
        let Some(node) = done else { continue };
        if stack.is_empty() {
            if root.is_some() {
                return None;
            }
            root = Some(node);
        } else {
            children.push(node);
        }
    }
    if !stack.is_empty() {
        return None;
    }
    root
}

/// Where an event is, as serde-saphyr reports it: line, column from 1, byte offset and length.
fn at(span: &Span) -> Node {
    let (offset, len) = match (span.start.byte_offset(), span.end.byte_offset()) {
        (Some(start), Some(end)) => match (u32::try_from(start), u32::try_from(end.saturating_sub(start))) {
            (Ok(start), Ok(len)) => (start, len),
            _ => (0, 0),
        },
        _ => (0, 0),
    };
    Node {
        value: Value::Null,
        line: u32::try_from(span.start.line()).unwrap_or(u32::MAX),
        column: u32::try_from(span.start.col() + 1).unwrap_or(u32::MAX),
        offset,
        len,
    }
}

/// The value of an untagged scalar the way serde-saphyr types it for an untyped target, or
/// `None` for a spelling left to it.
fn scalar(value: Cow<'_, str>, style: ScalarStyle) -> Option<Value> {
    if style != ScalarStyle::Plain {
        return Some(Value::Str(value.into()));
    }
    let text: &str = &value;
    // Plain scalars carry no padding; one that does is not worth reasoning about here. (The
    // padding characters are ASCII: looking at both ends is `trim_matches(..) != text`, without
    // its scan; sixth pass.)
    let pad = |b: Option<&u8>| matches!(b, Some(b' ' | b'\t' | b'\r' | b'\n'));
    if pad(text.as_bytes().first()) || pad(text.as_bytes().last()) || text == "<<" {
        return None;
    }
    if matches!(text, "" | "~" | "null" | "Null" | "NULL") {
        return Some(Value::Null);
    }
    if let Some(b) = yaml11_bool(text) {
        return Some(Value::Bool(b));
    }
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    match unsigned.as_bytes().first() {
        Some(b'0'..=b'9' | b'.') => number(text, negative, unsigned),
        // Nothing else reads as a number: radix prefixes start with a digit and the float
        // spellings serde-saphyr accepts start with a digit or a dot.
        _ => Some(Value::Str(value.into())),
    }
}

/// YAML 1.1 booleans, as serde-saphyr reads them by default.
fn yaml11_bool(text: &str) -> Option<bool> {
    // Every spelling has 1 to 5 letters and starts with one of these: most scalars are ruled
    // out before the eight comparisons (sixth pass).
    if text.len() > 5
        || !matches!(
            text.as_bytes().first(),
            Some(b't' | b'T' | b'y' | b'Y' | b'o' | b'O' | b'f' | b'F' | b'n' | b'N')
        )
    {
        return None;
    }
    let is = |w: &str| text.eq_ignore_ascii_case(w);
    if is("true") || is("yes") || is("y") || is("on") {
        Some(true)
    } else if is("false") || is("no") || is("n") || is("off") {
        Some(false)
    } else {
        None
    }
}

/// Plain decimal integers (`7`, `-3`, no leading zero) and plain decimal fractions (`0.25`);
/// every other numeric spelling is left to serde-saphyr.
fn number(text: &str, negative: bool, unsigned: &str) -> Option<Value> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let no_leading_zero = |s: &str| s == "0" || !s.starts_with('0');
    if digits(unsigned) && no_leading_zero(unsigned) {
        let magnitude: u64 = unsigned.parse().ok()?;
        return if negative {
            let m = i128::from(magnitude);
            i64::try_from(-m).ok().map(|v| Value::Int(Int::new(v.into())))
        } else {
            Some(Value::Int(Int::new(magnitude.into())))
        };
    }
    // A character no integer radix or float spelling uses makes it text (`31s`, `2Gi`).
    // (Not after a leading dot: `.inf` and `.nan` are floats serde-saphyr refuses untyped.)
    if unsigned.starts_with(|c: char| c.is_ascii_digit())
        && unsigned.bytes().any(|b| !(b.is_ascii_hexdigit() || b"xXoO_.+-".contains(&b)))
    {
        return Some(Value::Str(text.into()));
    }
    let (whole, fraction) = unsigned.split_once('.')?;
    if digits(whole) && no_leading_zero(whole) && digits(fraction) {
        let v: f64 = text.parse().ok()?;
        return v.is_finite().then_some(Value::Float(v));
    }
    None
}

/// Reads `text` both ways; panics if the fast reader answers differently from serde-saphyr.
/// Returns whether the fast reader answered.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn compare(text: &str) -> bool {
    let fast = read(text, &crate::tree::options());
    if let Some(fast) = &fast {
        let slow = crate::tree::slow(text);
        assert_eq!(Some(fast), slow.as_ref().ok(), "the readers differ on {text:?}");
    }
    fast.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::options;

    fn same(text: &str) -> bool {
        compare(text)
    }

    #[test]
    fn answers_for_runway_shapes() {
        for text in [
            "a: 1\nb:\n  c: x\na: 2\n",
            "runway: 3\nproduct: acme\nenvironments:\n  dev: { cap: 100.50 }\n",
            "x: [a, 'b', \"c\\n\", 0, -1, 0.25, -0.5, true, No, ~, null, \"null\", '']\n",
            "k: |\n  line one\n  line two\nf: >\n  folded\n  text\n",
            "? q\n: v\n",
            "é: ünï\n'quoted key': 1\n",
            "t: 31s\nm: 512Mi\nv: 1.2.3-beta\nw: 2y\n",
            "- 18446744073709551615\n- -9223372036854775808\n",
            "---\na: 1\n...\n",
            "a: 1 # comment\n# end\n",
        ] {
            assert!(same(text), "gave up on {text:?}");
        }
    }

    #[test]
    fn gives_up_on_what_it_does_not_model() {
        for text in [
            "a: &x 1\nb: *x\n",
            "a: !!str 1\n",
            "base: &b {x: 1}\nc:\n  <<: *b\n",
            "<<: {x: 1}\n",
            "? [a]\n: 1\n",
            "a: 0x1F\n",
            "a: 1_000\n",
            "a: 012\n",
            "a: 1e3\n",
            "a: .inf\n",
            "a: -.nan\n",
            "a: 18446744073709551616\n",
            "a: -9223372036854775809\n",
            "a: 1.\n",
            "a: .5\n",
            "%YAML 1.2\n---\na: 1\n",
            "a: 1\n---\nb: 2\n",
            "a: [1, 2\n",
            "a: b: c\n",
        ] {
            assert!(!same(text), "answered {text:?}");
        }
    }

    #[test]
    fn gives_up_near_the_depth_bound() {
        let deep = format!("{}1{}", "[".repeat(30), "]".repeat(30));
        assert!(read(&deep, &options()).is_none());
        let fine = format!("{}1{}", "[".repeat(8), "]".repeat(8));
        assert!(same(&fine));
    }

    /// Every shipped runway file, and thousands of small mutations of each, read both ways.
    #[test]
    #[allow(clippy::disallowed_methods)] // reason: the test reads the repository's YAML files
    fn agrees_with_serde_saphyr_on_fixtures_and_mutations() {
        fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
            let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
            entries.sort();
            for path in entries {
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "yaml")
                    && let Ok(text) = std::fs::read_to_string(&path)
                {
                    out.push(text);
                }
            }
        }
        let mut texts = Vec::new();
        for dir in ["../../tests/fixtures", "../../examples"] {
            walk(std::path::Path::new(dir), &mut texts);
        }
        assert!(texts.len() > 30, "found {} files", texts.len());
        let answered = texts.iter().filter(|t| same(t)).count();
        // Only the fixtures written to exercise aliases, tags and syntax go the slow way.
        assert!(answered * 10 >= texts.len() * 8, "answered {answered} of {}", texts.len());

        // Mutations: a deterministic generator, so a failure names a reproducible text.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            usize::try_from(state % n as u64).unwrap()
        };
        const PIECES: [&str; 16] =
            ["", ":", " ", "\n", "- ", "[", "]", "{", "'", "\"", "0", ".", "-", "#", "\t", "yes"];
        let (mut runs, mut fast) = (0, 0);
        for text in &texts {
            for _ in 0..300 {
                let mut t = text.clone();
                for _ in 0..=next(3) {
                    let mut at = next(t.len() + 1);
                    while !t.is_char_boundary(at) {
                        at -= 1;
                    }
                    let mut end = (at + next(4)).min(t.len());
                    while !t.is_char_boundary(end) {
                        end -= 1;
                    }
                    t.replace_range(at..end, PIECES[next(PIECES.len())]);
                }
                runs += 1;
                fast += usize::from(same(&t));
            }
        }
        // Most mutations break the syntax; enough of them stay valid to exercise the comparison.
        assert!(fast * 3 > runs, "the fast reader answered {fast} of {runs} mutations");
    }
}
