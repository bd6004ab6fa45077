//! A member file (`runway`, `member`, `runtime`, `requires`, `uses`) and the root's shared
//! sizes no member requires.

use std::collections::BTreeMap;

use crate::diagnostic::Code;
use crate::model::*;
use crate::read::{Cx, index};
use crate::tree::{Node, Value};

use super::resources::{resource_spec_quiet, unknown_resource, variables};
use super::{ENGINES, RUNTIMES, engine_of, keys, name_ok, version};

/// Entries' values by name, the first of a repeated name (as a scan in file order finds it),
/// for the `uses` of workloads and members.
pub(crate) fn first_by_name<'n>(entries: &[(&'n str, &'n Node, &'n Node)]) -> BTreeMap<&'n str, &'n Node> {
    entries.iter().rev().map(|(n, _, v)| (*n, *v)).collect()
}

/// A member file. `resources` are the root's resource entries as written (for suggestions);
/// `by_name` is the same entries by name, the first of a repeated name (for lookups).
pub(crate) fn member<'n>(
    cx: &mut Cx<'_>,
    node: &'n Node,
    folder_name: &str,
    resources: &[(&str, &Node, &Node)],
    by_name: &BTreeMap<&str, &Node>,
) -> Option<(Member, &'n Node)> {
    if node.value == Value::Null {
        cx.invalid(
            node,
            "",
            "the member file is empty".to_owned(),
            Some("a member runway starts with `runway: 3`".to_owned()),
        );
        return None;
    }
    let f = cx.fields(node, "", "a member runway", keys::MEMBER)?;
    let errors_before = cx.diags.iter().filter(|d| d.is_error()).count();
    version(cx, &f, "a member runway");
    let (name, name_node) = match f.get("member") {
        // The node itself, not a copy: the whole file's tree when `member` is left out (sixth
        // pass).
        None => (Some(folder_name.to_owned()), node),
        Some(n) => (cx.string(n, "member", "`member`"), n),
    };
    let name = name.filter(|nm| name_ok(cx, name_node, "member", nm, "member", true));
    let runtime = match f.get("runtime") {
        None => Some(Runtime::Encore),
        Some(n) => cx
            .one_of(n, "runtime", "runtime", RUNTIMES)
            .map(|w| if w == "other" { Runtime::Other } else { Runtime::Encore }),
    };
    let mut requires = Vec::new();
    if let Some(n) = f.get("requires") {
        for (i, item) in cx.list(n, "requires", "`requires`").unwrap_or_default().iter().enumerate() {
            let p = index("requires", i);
            if item.scalar_text().as_deref() == Some("postgres") {
                cx.invalid(
                    item,
                    &p,
                    "`requires` lists legacy engines; postgres is not one".to_owned(),
                    Some("declare a postgres resource in the root runway and `uses:` it".to_owned()),
                );
                continue;
            }
            if let Some(w) = cx.one_of(item, &p, "engine", ENGINES) {
                let e = engine_of(w).unwrap_or(Engine::Queue);
                if !requires.contains(&e) {
                    requires.push(e);
                }
            }
        }
    }
    let mut uses = Vec::new();
    if let Some(n) = f.get("uses") {
        for (i, item) in cx.list(n, "uses", "`uses`").unwrap_or_default().iter().enumerate() {
            let p = index("uses", i);
            let Some(r) = cx.string(item, &p, "a resource name") else { continue };
            let Some(rnode) = by_name.get(r.as_str()) else {
                unknown_resource(cx, item, &p, &r, resources);
                continue;
            };
            if runtime == Some(Runtime::Encore)
                && matches!(resource_spec_quiet(rnode), Some(ResourceSpec::Postgres { .. }))
            {
                cx.error(
                    Code::EncorePostgres,
                    item,
                    &p,
                    format!("Encore member uses postgres resource `{r}`; Encore keeps its own database until its deploy path is settled"),
                    Some("use Encore's own database, or set `runtime: other` if this member is not an Encore app".to_owned()),
                );
                continue;
            }
            if !uses.contains(&r) {
                uses.push(r);
            }
        }
    }
    // Variables from used resources and required engines must not collide.
    let mut seen: Vec<(String, String)> = Vec::new();
    let implicit: Vec<(String, ResourceSpec)> =
        requires.iter().map(|e| (format!("shared-{}", e.as_str()), ResourceSpec::default_for(*e))).collect();
    let declared: Vec<(String, ResourceSpec)> = uses
        .iter()
        .filter_map(|r| Some((r.clone(), resource_spec_quiet(by_name.get(r.as_str())?)?)))
        .collect();
    for (r, spec) in declared.iter().chain(implicit.iter()) {
        for v in variables(r, spec) {
            if let Some((_, first)) = seen.iter().find(|(n, _)| *n == v) {
                cx.error(
                    Code::VariableCollision,
                    node,
                    "uses",
                    format!("variable `{v}` of `{r}` collides with the one of `{first}`"),
                    Some("rename one of the resources".to_owned()),
                );
            } else {
                seen.push((v, r.clone()));
            }
        }
    }
    let errors_after = cx.diags.iter().filter(|d| d.is_error()).count();
    if errors_after != errors_before {
        return None;
    }
    Some((Member { file: cx.file.to_owned(), name: name?, runtime: runtime?, requires, uses }, name_node))
}

/// `unused-shared` warnings: a shared size for an engine no member requires.
pub(crate) fn unused_shared(cx: &mut Cx<'_>, shared: &[(String, Engine, Node)], members: &[Member]) {
    for (env, engine, key) in shared {
        if !members.iter().any(|m| m.requires.contains(engine)) {
            cx.warning(
                Code::UnusedShared,
                key,
                &format!("environments.{env}.shared.{}", engine.as_str()),
                format!("shared `{}` is sized in `{env}` but no member requires it", engine.as_str()),
                Some("remove it, or add it to a member's `requires`".to_owned()),
            );
        }
    }
}
