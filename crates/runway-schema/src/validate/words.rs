//! A list of words (a container's command or entry point, exec form), read with the
//! diagnostics its place names: shared by a workload's `entryPoint`, `migrate` and `schedules`.

use crate::read::{Cx, index, quote};
use crate::tree::Node;

/// What a list of words is called in its diagnostics.
pub(super) struct Words {
    pub(super) key: &'static str,
    pub(super) empty: &'static str,
    pub(super) word: &'static str,
    pub(super) help: &'static str,
}

/// A non-empty list of non-empty words (a container's command or entry point, exec form), each
/// problem reported.
pub(super) fn words(cx: &mut Cx<'_>, node: &Node, path: &str, what: &Words) -> Option<Vec<String>> {
    let items = cx.list(node, path, &quote(what.key))?;
    let mut words = Vec::new();
    let mut bad = false;
    for (i, w) in items.iter().enumerate() {
        let p = index(path, i);
        match cx.free_text(w, &p, what.word) {
            Some(word) if word.is_empty() => {
                cx.invalid(w, &p, format!("{} is empty", what.word), Some(what.help.to_owned()));
                bad = true;
            }
            Some(word) => words.push(word),
            None => bad = true,
        }
    }
    if bad {
        return None;
    }
    if words.is_empty() {
        cx.invalid(node, path, what.empty.to_owned(), Some(what.help.to_owned()));
        return None;
    }
    Some(words)
}
