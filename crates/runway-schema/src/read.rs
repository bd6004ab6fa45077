//! Small readers over the spanned tree that record a diagnostic for every problem they meet.

use crate::diagnostic::{Code, Diagnostic, Location, did_you_mean};
use crate::tree::{Node, Value};

/// Collects diagnostics for one file.
pub(crate) struct Cx<'a> {
    pub file: &'a str,
    pub diags: &'a mut Vec<Diagnostic>,
}

/// `a.b`, or `b` at the top. Built by hand: every field of a valid file gets a path, and
/// `format!` cost a sixth of `check` at N = 1,000.
pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        return key.to_owned();
    }
    let mut out = String::with_capacity(path.len() + 1 + key.len());
    out.push_str(path);
    out.push('.');
    out.push_str(key);
    out
}

/// `a.b[3]`.
pub(crate) fn index(path: &str, i: usize) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(path.len() + 8);
    out.push_str(path);
    // Writing to a String cannot fail.
    let _ = write!(out, "[{i}]");
    out
}

/// Quotes a value for a message, cut so an error never shows more than a short value.
pub(crate) fn quote(text: &str) -> String {
    const MAX: usize = 80;
    if text.chars().count() <= MAX {
        format!("`{text}`")
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("`{cut}…`")
    }
}

/// The keys of one mapping, each checked against the allowed set.
pub(crate) struct Fields<'n> {
    pub map: &'n Node,
    pub entries: Vec<(&'n str, &'n Node, &'n Node)>,
}

impl<'n> Fields<'n> {
    pub(crate) fn get(&self, key: &str) -> Option<&'n Node> {
        self.entries.iter().find(|(k, _, _)| *k == key).map(|(_, _, v)| *v)
    }
}

impl Cx<'_> {
    pub(crate) fn loc(&self, node: &Node) -> Location {
        node.location(self.file)
    }

    pub(crate) fn error(
        &mut self,
        code: Code,
        node: &Node,
        path: &str,
        message: String,
        help: Option<String>,
    ) {
        let d = Diagnostic::error(code, self.loc(node), path, message);
        self.diags.push(match help {
            Some(help) => d.with_help(help),
            None => d,
        });
    }

    pub(crate) fn warning(
        &mut self,
        code: Code,
        node: &Node,
        path: &str,
        message: String,
        help: Option<String>,
    ) {
        let d = Diagnostic::warning(code, self.loc(node), path, message);
        self.diags.push(match help {
            Some(help) => d.with_help(help),
            None => d,
        });
    }

    pub(crate) fn invalid(&mut self, node: &Node, path: &str, message: String, help: Option<String>) {
        self.error(Code::InvalidValue, node, path, message, help);
    }

    /// Reads a mapping: reports non-string keys, duplicate keys and unknown keys (with a
    /// suggestion); returns the first occurrence of each allowed key.
    pub(crate) fn fields<'n>(
        &mut self,
        node: &'n Node,
        path: &str,
        what: &str,
        allowed: &[&str],
    ) -> Option<Fields<'n>> {
        let Value::Map(entries) = &node.value else {
            self.invalid(node, path, format!("{what} must be a mapping, found {}", node.describe()), None);
            return None;
        };
        let mut out: Vec<(&'n str, &'n Node, &'n Node)> = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            let key: &'n str = match &k.value {
                Value::Str(key) => key.as_str(),
                // `on` is YAML 1.1's `true`: a key written with two bytes is the word `on`
                // (no other spelling of true has two), where the mapping has an `on` field.
                Value::Bool(true) if k.len == 2 && allowed.contains(&"on") => "on",
                _ => {
                    self.invalid(
                        k,
                        path,
                        format!("keys of {what} must be strings, found {}", k.describe()),
                        None,
                    );
                    continue;
                }
            };
            if out.iter().any(|(seen, _, _)| *seen == key) {
                self.error(
                    Code::DuplicateKey,
                    k,
                    &join(path, key),
                    format!("{} is written twice in {what}", quote(key)),
                    Some("remove one of the two; YAML keeps only one of them".to_owned()),
                );
                continue;
            }
            if !allowed.contains(&key) {
                let help = match did_you_mean(key, allowed.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => format!("the fields of {what} are: {}", allowed.join(", ")),
                };
                self.error(
                    Code::UnknownField,
                    k,
                    &join(path, key),
                    format!("{} is not a field of {what}", quote(key)),
                    Some(help),
                );
                continue;
            }
            out.push((key, k, v));
        }
        Some(Fields { map: node, entries: out })
    }

    /// A required key; reports `missing-field` at the mapping when absent.
    pub(crate) fn require<'n>(
        &mut self,
        f: &Fields<'n>,
        path: &str,
        what: &str,
        key: &str,
        help: &str,
    ) -> Option<&'n Node> {
        let v = f.get(key);
        if v.is_none() {
            self.error(
                Code::MissingField,
                f.map,
                &join(path, key),
                format!("{what} has no `{key}`"),
                Some(help.to_owned()),
            );
        }
        v
    }

    /// A mapping whose keys are names chosen by the user: duplicates reported, values returned
    /// with their key node, in file order.
    pub(crate) fn named_map<'n>(
        &mut self,
        node: &'n Node,
        path: &str,
        what: &str,
    ) -> Vec<(&'n str, &'n Node, &'n Node)> {
        let Value::Map(entries) = &node.value else {
            if node.value != Value::Null {
                self.invalid(
                    node,
                    path,
                    format!("{what} must be a mapping, found {}", node.describe()),
                    None,
                );
            }
            return Vec::new();
        };
        let mut out: Vec<(&'n str, &'n Node, &'n Node)> = Vec::with_capacity(entries.len());
        // Names seen so far (those of `out`): a set, as a user's map may hold thousands of names;
        // a map of a few (an environment's, most of them) is scanned instead (sixth pass).
        let few = entries.len() <= 16;
        // A hash set with fixed keys (no randomness: this crate has none), for membership only:
        // the B-tree it replaced cost a load 1.4% at N = 1,000 (sixth pass).
        type Fixed = std::hash::BuildHasherDefault<std::collections::hash_map::DefaultHasher>;
        let mut seen: std::collections::HashSet<&'n str, Fixed> =
            std::collections::HashSet::with_capacity_and_hasher(
                if few { 0 } else { entries.len() },
                Fixed::default(),
            );
        for (k, v) in entries {
            let Value::Str(key) = &k.value else {
                self.invalid(
                    k,
                    path,
                    format!("names in {what} must be strings, found {}", k.describe()),
                    None,
                );
                continue;
            };
            let repeated =
                if few { out.iter().any(|(n, _, _)| *n == key.as_str()) } else { !seen.insert(key.as_str()) };
            if repeated {
                self.error(
                    Code::DuplicateKey,
                    k,
                    &join(path, key),
                    format!("{} is written twice in {what}", quote(key)),
                    Some("remove one of the two or rename it".to_owned()),
                );
                continue;
            }
            out.push((key.as_str(), k, v));
        }
        out
    }

    /// Any scalar as text (numbers and booleans as written).
    pub(crate) fn text(&mut self, node: &Node, path: &str, what: &str) -> Option<String> {
        let t = node.scalar_text();
        if t.is_none() {
            self.invalid(node, path, format!("{what} must be a string, found {}", node.describe()), None);
        }
        self.no_controls(node, path, what, t?, |_| false)
    }

    /// A string (not a number or boolean) on one line.
    pub(crate) fn string(&mut self, node: &Node, path: &str, what: &str) -> Option<String> {
        if let Value::Str(s) = &node.value {
            self.no_controls(node, path, what, String::from(s.as_str()), |_| false)
        } else {
            self.invalid(node, path, format!("{what} must be a string, found {}", node.describe()), None);
            None
        }
    }

    /// Free text (an environment value, a reason's detail): a scalar that may span lines.
    pub(crate) fn free_text(&mut self, node: &Node, path: &str, what: &str) -> Option<String> {
        let t = node.scalar_text();
        if t.is_none() {
            self.invalid(node, path, format!("{what} must be a string, found {}", node.describe()), None);
        }
        self.no_controls(node, path, what, t?, |c| c == '\n' || c == '\t')
    }

    /// `text`, unless it holds a control character `allowed` does not take: one written with a
    /// YAML escape (`"\e[2J"`) would reach plans and logs as is.
    fn no_controls(
        &mut self,
        node: &Node,
        path: &str,
        what: &str,
        text: String,
        allowed: fn(char) -> bool,
    ) -> Option<String> {
        if !text.bytes().any(crate::paths::may_start_control) {
            return Some(text);
        }
        let Some(c) = text.chars().find(|c| c.is_control() && !allowed(*c)) else { return Some(text) };
        let message = format!("{what} holds the control character U+{:04X}", u32::from(c));
        self.invalid(node, path, message, Some("write it as plain text on one line".to_owned()));
        None
    }

    /// A whole number within `min..=max`.
    pub(crate) fn uint(&mut self, node: &Node, path: &str, what: &str, min: u64, max: u64) -> Option<u64> {
        match &node.value {
            Value::Int(i) if (i128::from(min)..=i128::from(max)).contains(&i.get()) => {
                u64::try_from(i.get()).ok()
            }
            Value::Int(i) => {
                let i = i.get();
                self.invalid(node, path, format!("{what} is {i}, outside {min}..={max}"), None);
                None
            }
            _ => {
                self.invalid(
                    node,
                    path,
                    format!("{what} must be a whole number, found {}", node.describe()),
                    Some(format!("write a number between {min} and {max}")),
                );
                None
            }
        }
    }

    /// `true` or `false`.
    pub(crate) fn boolean(&mut self, node: &Node, path: &str, what: &str) -> Option<bool> {
        if let Value::Bool(b) = node.value {
            Some(b)
        } else {
            self.invalid(
                node,
                path,
                format!("{what} must be true or false, found {}", node.describe()),
                Some("write `true` or `false`".to_owned()),
            );
            None
        }
    }

    /// A list.
    pub(crate) fn list<'n>(&mut self, node: &'n Node, path: &str, what: &str) -> Option<&'n [Node]> {
        if let Value::Seq(items) = &node.value {
            Some(items)
        } else {
            self.invalid(
                node,
                path,
                format!("{what} must be a list, found {}", node.describe()),
                Some("write a list such as `[a, b]`".to_owned()),
            );
            None
        }
    }

    /// One of a fixed set of words, with a suggestion.
    pub(crate) fn one_of<'w>(
        &mut self,
        node: &Node,
        path: &str,
        what: &str,
        words: &[&'w str],
    ) -> Option<&'w str> {
        let text = self.text(node, path, what)?;
        if let Some(w) = words.iter().find(|w| **w == text) {
            return Some(w);
        }
        let help = match did_you_mean(&text, words.iter().copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("write one of: {}", words.join(", ")),
        };
        self.invalid(node, path, format!("{} is not a valid {what}", quote(&text)), Some(help));
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{index, join};

    #[test]
    fn paths_read_as_format_would_write_them() {
        assert_eq!(join("", "resources"), "resources");
        assert_eq!(join("resources", "main-db"), "resources.main-db");
        for i in [0, 7, 10, 99, 1_000, 123_456_789, usize::MAX] {
            assert_eq!(index("workloads.api.uses", i), format!("workloads.api.uses[{i}]"));
        }
        assert_eq!(index("", 3), "[3]");
    }
}
