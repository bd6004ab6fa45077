//! The small spanned tree YAML text is read into, and the bounds of reading.
//!
//! serde derive stops at the first error; a person fixing a file wants every problem at once.
//! So the text is first read into this tree (every key and value with its location, duplicate
//! keys kept so they can be reported), and validation walks the tree by hand.
//!
//! This module holds the tree, its serde reading (serde-saphyr's, the slow path) and the
//! bounds; `direct.rs` builds the same tree fast, and `parse.rs` chooses between the two.

use std::fmt;

use compact_str::CompactString;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use crate::diagnostic::Location;

/// Largest file read: past it, nothing is parsed.
pub const MAX_FILE_BYTES: usize = 16 * 1024 * 1024;
/// Deepest nesting of mappings and sequences. Runway files nest at most 6 levels; the bound
/// keeps the recursive reader well inside a 1 MiB stack even in debug builds.
pub const MAX_DEPTH: usize = 24;
/// Most YAML nodes in one file.
pub const MAX_NODES: usize = 2_000_000;
/// Most alias uses in one file.
pub const MAX_ALIASES: usize = 1_000;
/// Most events replayed by aliases in one file (what stops an alias bomb).
pub(crate) const MAX_REPLAYED_EVENTS: usize = 100_000;

/// A scalar or collection, as read.
///
/// A file's tree is held whole while it is validated (docs/benchmarks.md measures it), so the
/// layout is kept small: text up to 24 bytes lives inline, collections are exact-size boxed
/// slices, and an integer is stored so as not to raise the alignment to 16. A [`Node`] is 40
/// bytes (a test pins it).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Int(Int),
    Float(f64),
    Str(CompactString),
    Seq(Box<[Node]>),
    Map(Box<[(Node, Node)]>),
}

/// An integer of the tree (any YAML integer that fits `i128`), kept in two halves: an `i128`
/// field would make every [`Value`] and [`Node`] 16-byte aligned, and a node 48 bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Int([u64; 2]);

impl Int {
    pub(crate) fn new(v: i128) -> Int {
        let bits = v.cast_unsigned();
        // Truncation is the point: the low and the high half.
        Int([bits as u64, (bits >> 64) as u64])
    }

    pub(crate) fn get(self) -> i128 {
        ((u128::from(self.0[1]) << 64) | u128::from(self.0[0])).cast_signed()
    }
}

impl fmt::Debug for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}

/// A value and where it is. Offsets fit `u32`: files are at most [`MAX_FILE_BYTES`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub value: Value,
    pub line: u32,
    pub column: u32,
    pub offset: u32,
    pub len: u32,
}

impl Node {
    pub(crate) fn location(&self, file: &str) -> Location {
        Location {
            file: file.to_owned(),
            line: self.line,
            column: self.column,
            offset: self.offset as usize,
            len: self.len as usize,
        }
    }

    /// The scalar as text (keys, names, plain values); `None` for collections and null.
    pub(crate) fn scalar_text(&self) -> Option<String> {
        match &self.value {
            // Not `to_string`, which formats (about 180 instructions more a scalar).
            Value::Str(s) => Some(String::from(s.as_str())),
            Value::Int(i) => Some(i.get().to_string()),
            Value::Float(f) => Some(f.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            Value::Null | Value::Seq(_) | Value::Map(_) => None,
        }
    }

    /// What kind of value this is, for messages.
    pub(crate) fn describe(&self) -> &'static str {
        match &self.value {
            Value::Null => "nothing",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "a number",
            Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }
}

/// Reads the value without its location; its children carry theirs.
struct ValueVisitor;

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s: Spanned<Value> = Spanned::deserialize(d)?;
        let loc = s.referenced;
        let span = loc.span();
        Ok(Node {
            value: s.value,
            line: u32::try_from(loc.line()).unwrap_or(u32::MAX),
            column: u32::try_from(loc.column()).unwrap_or(u32::MAX),
            offset: span.byte_offset().and_then(|o| u32::try_from(o).ok()).unwrap_or(0),
            len: span.byte_len().and_then(|o| u32::try_from(o).ok()).unwrap_or(0),
        })
    }
}

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(Int::new(v.into())))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Int(Int::new(v.into())))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Ok(Value::Int(Int::new(v)))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        Ok(i128::try_from(v).map_or_else(|_| Value::Str(v.to_string().into()), |v| Value::Int(Int::new(v))))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.into()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v.into()))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Str(String::from_utf8_lossy(v).into()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Value::Seq(items.into_boxed_slice()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Node>()? {
            let value = map.next_value::<Node>()?;
            entries.push((key, value));
        }
        Ok(Value::Map(entries.into_boxed_slice()))
    }
}

/// The bounds above as serde-saphyr options: both readers read under them.
pub(crate) fn options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = MAX_DEPTH;
    budget.flow_nesting_limit = MAX_DEPTH;
    budget.max_nodes = MAX_NODES;
    budget.max_aliases = MAX_ALIASES;
    budget.max_documents = 1;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    // Duplicates reach the tree so that every one of them is reported, not just the first.
    options.duplicate_keys = serde_saphyr::DuplicateKeyPolicy::PassThrough;
    options.alias_limits.max_total_replayed_events = MAX_REPLAYED_EVENTS;
    options.with_snippet = false;
    options
}

/// The slow path alone: serde-saphyr's reading, which the fast one is checked against.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn slow(text: &str) -> Result<Node, serde_saphyr::Error> {
    serde_saphyr::from_str_with_options::<Node>(text, options())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree of a large product is held whole while it is validated; its layout is part of
    /// the memory budget (docs/benchmarks.md).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn nodes_stay_small() {
        assert_eq!(std::mem::size_of::<Value>(), 24);
        assert_eq!(std::mem::size_of::<Node>(), 40);
    }

    #[test]
    fn integers_keep_every_value() {
        for v in [0, 1, -1, 3, i128::from(i64::MIN), i128::from(u64::MAX), i128::MIN, i128::MAX] {
            assert_eq!(Int::new(v).get(), v);
        }
    }
}
