//! What is under the cursor: the key or value at a byte offset, its key path, and what it names
//! in the format (a resource, a workload, a use of a resource, a size).

use runway_schema::syntax::{SyntaxNode, Tree};

/// A key or value under the cursor.
#[derive(Clone, Debug)]
pub struct Hit<'t> {
    /// Keys from the top down to the node's mapping; a sequence item's index is `[]`.
    pub path: Vec<String>,
    /// The node.
    pub node: SyntaxNode<'t>,
    /// Is the node a key (else a value or an item)?
    pub is_key: bool,
}

/// The scalar key or value at `offset` (its end included, so a cursor just after a word finds
/// it).
pub fn at(tree: &Tree, offset: usize) -> Option<Hit<'_>> {
    let mut path = Vec::new();
    walk(tree.root(), offset, &mut path)
}

fn contains(node: SyntaxNode<'_>, offset: usize) -> bool {
    let span = node.span();
    node.is_scalar() && span.start <= offset && offset <= span.end && !span.is_empty()
}

fn walk<'t>(node: SyntaxNode<'t>, offset: usize, path: &mut Vec<String>) -> Option<Hit<'t>> {
    if contains(node, offset) {
        return Some(Hit { path: path.clone(), node, is_key: false });
    }
    for (k, v) in node.entries() {
        if contains(k, offset) {
            return Some(Hit { path: path.clone(), node: k, is_key: true });
        }
        path.push(k.text().unwrap_or_default());
        let found = walk(v, offset, path);
        path.pop();
        if found.is_some() {
            return found;
        }
    }
    for item in node.items() {
        path.push("[]".to_owned());
        let found = walk(item, offset, path);
        path.pop();
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Who a size belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Owner {
    /// `resources.<name>`.
    Resource(String),
    /// `workloads.<name>`.
    Workload(String),
}

/// What a key or value names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A resource's declaration (`resources.<name>` key).
    Resource(String),
    /// A workload's declaration (`workloads.<name>` key).
    Workload(String),
    /// A resource named in a `uses` list (root workload or member).
    Use(String),
    /// A size (or its environment key) in a `size` map.
    Size {
        /// The resource or workload.
        owner: Owner,
        /// The environment.
        env: String,
    },
    /// A shared-pool size: `environments.<env>.shared.<engine>`.
    Shared {
        /// The environment.
        env: String,
        /// The engine.
        engine: String,
    },
}

/// What the hit names, when it names something the server knows about.
pub fn target(hit: &Hit<'_>, root_file: bool) -> Option<Target> {
    let path: Vec<&str> = hit.path.iter().map(String::as_str).collect();
    let text = hit.node.text()?;
    if !root_file {
        return match (path.as_slice(), hit.is_key) {
            (["uses", "[]"], false) => Some(Target::Use(text)),
            _ => None,
        };
    }
    fn owned(s: &str) -> String {
        s.to_owned()
    }
    match (path.as_slice(), hit.is_key) {
        (["resources"], true) => Some(Target::Resource(text)),
        (["workloads"], true) => Some(Target::Workload(text)),
        (["workloads", _, "uses", "[]"], false) => Some(Target::Use(text)),
        // `{ uploads: read }`: the key names the resource.
        (["workloads", _, "uses", "[]"], true) => Some(Target::Use(text)),
        (["resources", r, "size"], true) => {
            Some(Target::Size { owner: Owner::Resource(owned(r)), env: text })
        }
        (["resources", r, "size", env], false) => {
            Some(Target::Size { owner: Owner::Resource(owned(r)), env: owned(env) })
        }
        (["workloads", w, "size"], true) => {
            Some(Target::Size { owner: Owner::Workload(owned(w)), env: text })
        }
        (["workloads", w, "size", env], false) => {
            Some(Target::Size { owner: Owner::Workload(owned(w)), env: owned(env) })
        }
        (["environments", env, "shared", engine], false) => {
            Some(Target::Shared { env: owned(env), engine: owned(engine) })
        }
        (["environments", env, "shared"], true) => Some(Target::Shared { env: owned(env), engine: text }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use runway_schema::syntax;

    fn target_at(text: &str, marker: &str, root: bool) -> Option<Target> {
        let tree = syntax::parse("f", text).unwrap();
        let offset = text.find(marker).unwrap() + 1;
        at(&tree, offset).and_then(|h| target(&h, root))
    }

    #[test]
    fn names_what_is_under_the_cursor() {
        let text = "resources:\n  main-db: { kind: postgres, size: { dev: medium } }\nworkloads:\n  \
                    api:\n    uses: [main-db]\nenvironments:\n  dev: { shared: { queue: large } }\n";
        assert_eq!(target_at(text, "main-db:", true), Some(Target::Resource("main-db".into())));
        assert_eq!(target_at(text, "api:", true), Some(Target::Workload("api".into())));
        assert_eq!(target_at(text, "main-db]", true), Some(Target::Use("main-db".into())));
        let size = Target::Size { owner: Owner::Resource("main-db".into()), env: "dev".into() };
        assert_eq!(target_at(text, "medium", true), Some(size.clone()));
        assert_eq!(target_at(text, "dev: medium", true), Some(size));
        let shared = Target::Shared { env: "dev".into(), engine: "queue".into() };
        assert_eq!(target_at(text, "large", true), Some(shared));
        assert_eq!(target_at(text, "postgres", true), None);
        assert_eq!(target_at("uses: [events]\n", "events", false), Some(Target::Use("events".into())));
        let text = "workloads:\n  api:\n    uses: [main-db, { uploads: read }]\n";
        assert_eq!(target_at(text, "uploads", true), Some(Target::Use("uploads".into())));
        assert_eq!(target_at(text, "read", true), None);
    }

    #[test]
    fn the_end_of_a_word_counts_and_multibyte_text_does_not_shift_it() {
        let text = "# ünïcødé\nresources:\n  jobs: { kind: queue }\n";
        let tree = syntax::parse("f", text).unwrap();
        let end = text.find("jobs").unwrap() + 4;
        let hit = at(&tree, end).unwrap();
        assert_eq!(hit.node.as_str(), Some("jobs"));
        assert!(hit.is_key);
        assert!(at(&tree, 1).is_none());
    }
}
