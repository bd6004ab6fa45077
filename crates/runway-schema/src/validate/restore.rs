//! `resources.<name>.restore` of a postgres resource: the query `runway restore` runs against a
//! restored copy before it calls it usable (`check`).

use crate::model::{MAX_RESTORE_CHECK_CHARS, RestoreSettings};
use crate::read::{Cx, join};
use crate::tree::Node;

use super::keys;

/// Reads `restore`; `None` when it is invalid (reported).
pub(super) fn restore(cx: &mut Cx<'_>, node: &Node, path: &str) -> Option<RestoreSettings> {
    let f = cx.fields(node, path, "`restore`", keys::RESTORE)?;
    let check = match f.get("check") {
        None => None,
        Some(n) => Some(check(cx, n, &join(path, "check"))?),
    };
    Some(RestoreSettings { check })
}

/// A check query: text that may span lines, not blank, within [`MAX_RESTORE_CHECK_CHARS`].
fn check(cx: &mut Cx<'_>, node: &Node, path: &str) -> Option<String> {
    let text = cx.free_text(node, path, "`restore.check`")?;
    let example = "write a query that reads the data you need back, e.g. \
                   `check: \"select count(*) from orders\"`";
    if text.trim().is_empty() {
        cx.invalid(node, path, "`restore.check` is empty".to_owned(), Some(example.to_owned()));
        return None;
    }
    let chars = text.chars().count();
    if chars > MAX_RESTORE_CHECK_CHARS {
        cx.invalid(
            node,
            path,
            format!("`restore.check` is {chars} characters long, more than {MAX_RESTORE_CHECK_CHARS}"),
            Some("keep the check to one short query (it travels in an ECS container override)".to_owned()),
        );
        return None;
    }
    Some(text)
}
