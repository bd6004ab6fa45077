//! The `from` environment's deploy role also runs its previews' `runway preview up` (the pull
//! request's job assumes it: docs/previews.md, "The pull request job"): `pulumi up` and
//! `secrets prepare` on a preview's own names. Those grants are the program's and runway's
//! statements for one preview's plan, its names written as the pattern of every preview's
//! (`pr-7` becomes `pr-*`: `<product>-pr-*`, `<product>/pr-*/*`, `/runway/<product>/pr-*/`,
//! `<from prefix>/previews/pr-*/`), and nothing of another environment.

use runtime_plan::Plan;

use crate::document::Statement;
use crate::scope::Scope;

/// What a preview's name becomes in the patterns.
const EVERY_PREVIEW: &str = "pr-*";

/// The statements of `preview`'s own names (a preview's plan), for every preview: what `pulumi
/// up` needs for the types its program declares (`types`) and runway's own calls.
/// A statement the environment's own already hold (the same actions on the same resources
/// under the same conditions, those on `*` mostly) is left out.
pub(crate) fn statements(
    preview: &Plan,
    types: &[String],
    account: &str,
    own: &[Statement],
) -> Vec<Statement> {
    let pattern = as_pattern(preview);
    let scope = Scope::new(&pattern, account);
    let mut out = crate::program::statements(&scope, types);
    out.extend(crate::runway::statements(&scope));
    let held = |s: &Statement| {
        own.iter().any(|o| {
            o.effect == s.effect
                && o.action == s.action
                && o.resource == s.resource
                && o.condition == s.condition
        })
    };
    out.retain(|s| !held(s));
    for s in &mut out {
        // Merged apart from the environment's own statement of the same purpose.
        s.sid = format!("Previews{}", s.sid);
        like_for_patterns(s);
    }
    out
}

/// A condition that equals a tag to the pattern (`environment` is `pr-*`) is a `StringLike`.
fn like_for_patterns(s: &mut Statement) {
    let Some(equals) = s.condition.get_mut("StringEquals") else { return };
    let patterns: Vec<String> =
        equals.iter().filter(|(_, v)| v.iter().any(|v| v.contains('*'))).map(|(k, _)| k.clone()).collect();
    let mut like = std::collections::BTreeMap::new();
    for key in patterns {
        if let Some(values) = equals.remove(&key) {
            like.insert(key, values);
        }
    }
    if equals.is_empty() {
        s.condition.remove("StringEquals");
    }
    if !like.is_empty() {
        s.condition.entry("StringLike".to_owned()).or_default().extend(like);
    }
}

/// `preview` with its name written `pr-*` wherever it is a part of a name (its environment,
/// its items' physical names, its SSM prefix): a name of pull request 7's preview becomes the
/// pattern of every preview's. The items it shares keep the `from` environment's names.
fn as_pattern(preview: &Plan) -> Plan {
    let mut plan = preview.clone();
    let name = preview.environment.to_string();
    plan.environment = EVERY_PREVIEW.into();
    for item in &mut plan.items {
        item.physical_name = replace_part(&item.physical_name, &name).into();
    }
    plan.secrets.ssm_prefix = replace_part(&plan.secrets.ssm_prefix, &name).into();
    plan
}

/// `text` with each `name` that stands as a part of it (between separators `-`, `/`, `.`, `_`
/// or the ends) written [`EVERY_PREVIEW`].
fn replace_part(text: &str, name: &str) -> String {
    let separator = |c: Option<char>| c.is_none_or(|c| matches!(c, '-' | '/' | '.' | '_' | ':'));
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(name) {
        let before = if at > 0 { rest[..at].chars().last() } else { out.chars().last() };
        let after = rest[at + name.len()..].chars().next();
        out.push_str(&rest[..at]);
        if separator(before) && separator(after) {
            out.push_str(EVERY_PREVIEW);
        } else {
            out.push_str(name);
        }
        rest = &rest[at + name.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::replace_part;

    #[test]
    fn a_preview_name_is_replaced_where_it_is_a_part_only() {
        assert_eq!(replace_part("acme-shop-pr-7-api", "pr-7"), "acme-shop-pr-*-api");
        assert_eq!(replace_part("/runway/acme-shop/pr-7/api", "pr-7"), "/runway/acme-shop/pr-*/api");
        assert_eq!(replace_part("acme-shop-pr-77-api", "pr-7"), "acme-shop-pr-77-api");
        assert_eq!(replace_part("pr-7", "pr-7"), "pr-*");
        assert_eq!(replace_part("xpr-7", "pr-7"), "xpr-7");
    }
}
