//! No module circle inside a crate (every target: libraries, binaries, tests, examples).
//!
//! Each target's module tree is read from its root file (`mod x;` → `x.rs` or `x/mod.rs`,
//! inline modules too). Every path that names the crate's own items — `use` trees, paths in
//! code and types, and `crate::`/`super::`/`self::` paths inside macro calls — is resolved to
//! the module that defines the item, following `use` re-exports and globs. A reference from
//! module `a::x` to `a::y::z` is an edge `x → y` among the children of `a` (the top-level
//! modules are the crate root's children). A child's use of its parent's own items, and a
//! parent's use of its children, are not edges: the parent is their common room.
//! Circles are the strongly connected components of each room's graph; each is reported with
//! every edge inside it (the first place of each).
//!
//! Not followed: a bare name reached through a glob import of the parent (`use super::*;` then
//! `Context`): it is a use of the parent, so a sibling reached that way is missed (no circle is
//! invented; one may be missed).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

use super::metadata::Metadata;
use super::{Parsed, Rule, Violation, line_of, relative, unreadable};

pub(super) fn check(root: &Path, meta: &Metadata, out: &mut Vec<Violation>) {
    let mut seen = BTreeSet::new();
    for pkg in &meta.members {
        for target in &pkg.targets {
            let mut tree = Tree::default();
            tree.load(root, &target.root, out);
            let label = format!("{} ({} `{}`)", pkg.name, target.kind, target.name);
            for v in tree.circles(root, &label) {
                // Integration tests share helper modules: report each circle once.
                if seen.insert((v.path.clone(), v.message.clone())) {
                    out.push(v);
                }
            }
        }
    }
}

/// The edges among the children of one module: (from, to) → (file, line) where first seen.
type Edges = BTreeMap<(String, String), (usize, usize)>;

/// A module of one crate.
#[derive(Default)]
struct Module {
    /// Names from the crate root, empty for the root.
    path: Vec<String>,
    parent: Option<usize>,
    /// The file that declares its contents.
    file: usize,
    children: BTreeMap<String, usize>,
    /// Names of the items it defines (types, functions, constants, macros, ...).
    items: BTreeSet<String>,
    /// `use` declarations at module level: the name they bring in → the path.
    imports: BTreeMap<String, Vec<String>>,
    /// `use path::*` at module level.
    globs: Vec<Vec<String>>,
}

/// A path naming something of the crate, as written.
struct Ref {
    from: usize,
    segments: Vec<String>,
    file: usize,
    line: usize,
}

#[derive(Default)]
struct Tree {
    modules: Vec<Module>,
    files: Vec<PathBuf>,
    refs: Vec<Ref>,
}

/// The outcome of resolving a path: the defining module, or the deepest module reached when
/// the last name is not found (an item a macro defines, say).
enum Resolved {
    Found(usize),
    Unknown(usize),
}

impl Tree {
    fn load(&mut self, root: &Path, crate_root: &Path, out: &mut Vec<Violation>) {
        self.modules.push(Module::default());
        let dir = crate_root.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut parsed = Vec::new();
        self.load_file(root, crate_root, 0, &dir, &mut parsed, out);
        for (module, source) in parsed {
            let file = self.modules[module].file;
            let mut visitor = RefVisitor { tree: self, stack: vec![module], file };
            if let Ok(source) = source.as_ref() {
                visitor.visit_file(&source.ast);
            }
        }
    }

    /// Reads `file` as the contents of `module`, whose children's files live in `dir`.
    fn load_file(
        &mut self,
        root: &Path,
        file: &Path,
        module: usize,
        dir: &Path,
        parsed: &mut Vec<(usize, Rc<Result<Parsed, String>>)>,
        out: &mut Vec<Violation>,
    ) {
        let source = super::parsed(file);
        let Ok(parsed_file) = source.as_ref() else {
            if let Err(e) = source.as_ref() {
                out.push(unreadable(root, file, e));
            }
            return;
        };
        self.files.push(file.to_path_buf());
        self.modules[module].file = self.files.len() - 1;
        self.items(root, &parsed_file.ast.items, module, file, dir, parsed, out);
        parsed.push((module, Rc::clone(&source)));
    }

    /// Records a module's items, imports and children (loading the children's files).
    #[allow(clippy::too_many_arguments)] // reason: the walk's state, passed down as it is
    fn items(
        &mut self,
        root: &Path,
        items: &[syn::Item],
        module: usize,
        file: &Path,
        dir: &Path,
        parsed: &mut Vec<(usize, Rc<Result<Parsed, String>>)>,
        out: &mut Vec<Violation>,
    ) {
        for item in items {
            match item {
                syn::Item::Mod(m) => {
                    let name = m.ident.to_string();
                    if self.modules[module].children.contains_key(&name) {
                        continue; // the same module under another `cfg`
                    }
                    let mut path = self.modules[module].path.clone();
                    path.push(name.clone());
                    let file_index = self.modules[module].file;
                    self.modules.push(Module {
                        path,
                        parent: Some(module),
                        file: file_index,
                        ..Module::default()
                    });
                    let child = self.modules.len() - 1;
                    self.modules[module].children.insert(name.clone(), child);
                    let child_dir = dir.join(&name);
                    match &m.content {
                        Some((_, inner)) => self.items(root, inner, child, file, &child_dir, parsed, out),
                        None => {
                            let (child_file, grand_dir) = match path_attr(m) {
                                Some(p) => {
                                    let at = file.parent().unwrap_or(dir).join(p);
                                    let d = at.parent().map(Path::to_path_buf).unwrap_or_default();
                                    (at, d)
                                }
                                None if dir.join(format!("{name}.rs")).exists() => {
                                    (dir.join(format!("{name}.rs")), child_dir)
                                }
                                None => (child_dir.join("mod.rs"), child_dir),
                            };
                            self.load_file(root, &child_file, child, &grand_dir, parsed, out);
                        }
                    }
                }
                syn::Item::Use(u) => {
                    let mut leaves = Vec::new();
                    use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
                    for leaf in leaves {
                        match leaf.name {
                            Some(name) => {
                                self.modules[module].imports.insert(name, leaf.segments);
                            }
                            None => self.modules[module].globs.push(leaf.segments),
                        }
                    }
                }
                other => {
                    if let Some(name) = item_name(other) {
                        self.modules[module].items.insert(name);
                    }
                }
            }
        }
    }

    /// Where a path written in `module` starts: the module its first segments name and the rest.
    /// `None` for a path that does not start in this crate.
    fn base(&self, module: usize, segments: &[String]) -> Option<(usize, Vec<String>)> {
        let first = segments.first()?;
        match first.as_str() {
            "crate" => Some((0, segments[1..].to_vec())),
            "self" => Some((module, segments[1..].to_vec())),
            "super" => {
                let mut at = module;
                let mut rest = segments;
                while rest.first().is_some_and(|s| s == "super") {
                    at = self.modules[at].parent?;
                    rest = &rest[1..];
                }
                Some((at, rest.to_vec()))
            }
            name if self.modules[module].children.contains_key(name) => Some((module, segments.to_vec())),
            _ => None,
        }
    }

    /// The module that defines what `segments` names, starting in `module`.
    fn resolve(&self, module: usize, segments: &[String], depth: usize) -> Resolved {
        let mut at = module;
        if depth > 16 {
            return Resolved::Unknown(at);
        }
        for (i, segment) in segments.iter().enumerate() {
            let m = &self.modules[at];
            if let Some(&child) = m.children.get(segment) {
                at = child;
                continue;
            }
            if m.items.contains(segment) {
                return Resolved::Found(at);
            }
            if let Some(target) = m.imports.get(segment) {
                let Some((base, mut path)) = self.base(at, target) else { return Resolved::Unknown(at) };
                path.extend_from_slice(&segments[i + 1..]);
                return self.resolve(base, &path, depth + 1);
            }
            for glob in &m.globs {
                let Some((base, mut path)) = self.base(at, glob) else { continue };
                path.extend_from_slice(&segments[i..]);
                if let Resolved::Found(found) = self.resolve(base, &path, depth + 1) {
                    return Resolved::Found(found);
                }
            }
            return Resolved::Unknown(at);
        }
        Resolved::Found(at)
    }

    /// The edges between sibling modules, per parent: (from, to) → where, first seen.
    fn edges(&self) -> BTreeMap<usize, Edges> {
        let mut rooms: BTreeMap<usize, Edges> = BTreeMap::new();
        for r in &self.refs {
            let Some((base, rest)) = self.base(r.from, &r.segments) else { continue };
            let target = match self.resolve(base, &rest, 0) {
                Resolved::Found(m) | Resolved::Unknown(m) => m,
            };
            let (a, t) = (&self.modules[r.from].path, &self.modules[target].path);
            let common = a.iter().zip(t).take_while(|(x, y)| x == y).count();
            if common >= a.len() || common >= t.len() {
                continue; // a parent and its descendant
            }
            let mut room = r.from;
            while self.modules[room].path.len() > common {
                room = self.modules[room].parent.unwrap_or(0);
            }
            rooms
                .entry(room)
                .or_default()
                .entry((a[common].clone(), t[common].clone()))
                .or_insert((r.file, r.line));
        }
        rooms
    }

    /// One violation per circle.
    fn circles(&self, root: &Path, label: &str) -> Vec<Violation> {
        let mut out = Vec::new();
        for (room, edges) in self.edges() {
            for members in strongly_connected(&edges) {
                let at =
                    |(file, line): (usize, usize)| format!("{}:{line}", relative(root, &self.files[file]));
                // Every edge inside the circle, by module: where each use is, to cut the right one.
                let steps: Vec<String> = members
                    .iter()
                    .map(|m| {
                        let uses: Vec<String> = edges
                            .iter()
                            .filter(|((from, to), _)| from == m && members.contains(to))
                            .map(|((_, to), place)| format!("{to} ({})", at(*place)))
                            .collect();
                        format!("    {m} → {}", uses.join(", "))
                    })
                    .collect();
                let room_name = match self.modules[room].path.as_slice() {
                    [] => "the crate root".to_owned(),
                    path => format!("module `{}`", path.join("::")),
                };
                out.push(Violation {
                    path: relative(root, &self.files[self.modules[room].file]),
                    line: 0,
                    rule: Rule::ModuleCircle,
                    name: String::new(),
                    message: format!(
                        "a module circle in {label}, among the children of {room_name}: {} use each \
                         other; move what both need below them, or pass it in, so that they use \
                         each other one way:\n{}",
                        members.iter().cloned().collect::<Vec<_>>().join(", "),
                        steps.join("\n")
                    ),
                });
            }
        }
        out
    }
}

/// The components of more than one module (Tarjan's algorithm; the graphs are small).
fn strongly_connected(edges: &Edges) -> Vec<BTreeSet<String>> {
    let nodes: BTreeSet<&String> = edges.keys().flat_map(|(a, b)| [a, b]).collect();
    let nodes: Vec<&String> = nodes.into_iter().collect();
    let index_of = |n: &String| nodes.iter().position(|m| *m == n).unwrap_or(0);
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (a, b) in edges.keys() {
        next[index_of(a)].push(index_of(b));
    }
    let mut state =
        Tarjan { next, index: vec![None; nodes.len()], low: vec![0; nodes.len()], ..Tarjan::default() };
    for v in 0..nodes.len() {
        if state.index[v].is_none() {
            state.visit(v);
        }
    }
    state
        .components
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| c.into_iter().map(|i| nodes[i].clone()).collect())
        .collect()
}

#[derive(Default)]
struct Tarjan {
    next: Vec<Vec<usize>>,
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    stack: Vec<usize>,
    on_stack: BTreeSet<usize>,
    counter: usize,
    components: Vec<Vec<usize>>,
}

impl Tarjan {
    fn visit(&mut self, v: usize) {
        self.index[v] = Some(self.counter);
        self.low[v] = self.counter;
        self.counter += 1;
        self.stack.push(v);
        self.on_stack.insert(v);
        for w in self.next[v].clone() {
            match self.index[w] {
                None => {
                    self.visit(w);
                    self.low[v] = self.low[v].min(self.low[w]);
                }
                Some(iw) if self.on_stack.contains(&w) => self.low[v] = self.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(self.low[v]) == self.index[v] {
            let mut component = Vec::new();
            while let Some(w) = self.stack.pop() {
                self.on_stack.remove(&w);
                component.push(w);
                if w == v {
                    break;
                }
            }
            self.components.push(component);
        }
    }
}

/// Collects the paths of one file, knowing which module each part of it is in.
struct RefVisitor<'t> {
    tree: &'t mut Tree,
    /// The module being visited, innermost last (inline modules push).
    stack: Vec<usize>,
    file: usize,
}

impl RefVisitor<'_> {
    fn here(&self) -> usize {
        self.stack.last().copied().unwrap_or(0)
    }

    fn push(&mut self, segments: Vec<String>, line: usize) {
        let from = self.here();
        self.tree.refs.push(Ref { from, segments, file: self.file, line });
    }
}

impl<'ast> Visit<'ast> for RefVisitor<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_none() {
            return; // its file is visited on its own
        }
        let Some(&child) = self.tree.modules[self.here()].children.get(&m.ident.to_string()) else { return };
        self.stack.push(child);
        syn::visit::visit_item_mod(self, m);
        self.stack.pop();
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut leaves = Vec::new();
        use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
        for leaf in leaves {
            self.push(leaf.segments, leaf.line);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if let Some(first) = path.segments.first() {
            let line = line_of(first.ident.span());
            self.push(path.segments.iter().map(|s| s.ident.to_string()).collect(), line);
        }
        syn::visit::visit_path(self, path);
    }

    /// `pub(in crate::x)` restricts who sees an item; it is no use of `x`.
    fn visit_vis_restricted(&mut self, _: &'ast syn::VisRestricted) {}

    /// An intra-doc link (`[`super::x::Y`]`) names the other module as much as code does.
    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if let syn::Meta::NameValue(nv) = &attr.meta
            && nv.path.is_ident("doc")
            && let syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(text), .. }) = &nv.value
        {
            let line = line_of(text.span());
            for segments in doc_paths(&text.value()) {
                self.push(segments, line);
            }
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let mut found = Vec::new();
        macro_paths(mac.tokens.clone(), &mut found);
        for (segments, line) in found {
            self.push(segments, line);
        }
        syn::visit::visit_macro(self, mac);
    }
}

/// `crate::a::b`, `super::x`, `self::y` inside a macro call's tokens (the macro's own text is
/// not parsed as Rust).
fn macro_paths(tokens: TokenStream, out: &mut Vec<(Vec<String>, usize)>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let is_colons = |i: usize| {
        matches!((tokens.get(i), tokens.get(i + 1)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':')
    };
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Group(g) => macro_paths(g.stream(), out),
            TokenTree::Ident(id)
                if matches!(id.to_string().as_str(), "crate" | "super" | "self") && is_colons(i + 1) =>
            {
                let mut segments = vec![id.to_string()];
                let mut j = i + 1;
                while is_colons(j) {
                    let Some(TokenTree::Ident(next)) = tokens.get(j + 2) else { break };
                    segments.push(next.to_string());
                    j += 3;
                }
                out.push((segments, line_of(id.span())));
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
}

/// The `crate::`, `super::` and `self::` paths in a doc comment's text.
fn doc_paths(text: &str) -> Vec<Vec<String>> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = ["crate::", "super::", "self::"].iter().filter_map(|p| rest.find(p)).min() {
        let before_is_word = rest[..at].chars().next_back().is_some_and(|c| word(c) || c == ':');
        let end = rest[at..].find(|c: char| !word(c) && c != ':').map_or(rest.len(), |e| at + e);
        let path = &rest[at..end];
        if !before_is_word {
            let segments: Vec<String> =
                path.split("::").filter(|s| !s.is_empty()).map(str::to_owned).collect();
            out.push(segments);
        }
        rest = &rest[end.max(at + 1)..];
    }
    out
}

/// One name a `use` brings in (`name: None` for a glob) and its full path.
pub(super) struct UseLeaf {
    pub(super) segments: Vec<String>,
    name: Option<String>,
    line: usize,
}

pub(super) fn use_leaves(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<UseLeaf>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let line = line_of(n.ident.span());
            if n.ident == "self" {
                let name = prefix.last().cloned();
                out.push(UseLeaf { segments: prefix.clone(), name, line });
            } else {
                let mut segments = prefix.clone();
                segments.push(n.ident.to_string());
                out.push(UseLeaf { segments, name: Some(n.ident.to_string()), line });
            }
        }
        syn::UseTree::Rename(r) => {
            let mut segments = prefix.clone();
            if r.ident != "self" {
                segments.push(r.ident.to_string());
            }
            out.push(UseLeaf { segments, name: Some(r.rename.to_string()), line: line_of(r.ident.span()) });
        }
        syn::UseTree::Glob(g) => {
            out.push(UseLeaf { segments: prefix.clone(), name: None, line: line_of(g.star_token.spans[0]) })
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix, out);
            }
        }
    }
}

/// The name an item defines, if any.
fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::ExternCrate(i) => i.rename.as_ref().map_or(&i.ident, |(_, r)| r),
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

/// A `#[path = "..."]` attribute's file.
fn path_attr(m: &syn::ItemMod) -> Option<String> {
    m.attrs.iter().find(|a| a.path().is_ident("path")).and_then(|a| match &a.meta {
        syn::Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a small crate's files under a scratch folder and returns its circles' messages.
    fn circles_of(name: &str, files: &[(&str, &str)]) -> Vec<String> {
        let dir = std::env::temp_dir().join(format!("xtask-tidy-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (path, text) in files {
            let full = dir.join(path);
            std::fs::create_dir_all(full.parent().expect("a parent")).expect("a scratch folder");
            std::fs::write(&full, text).expect("a scratch file");
        }
        let mut out = Vec::new();
        let mut tree = Tree::default();
        tree.load(&dir, &dir.join("src/lib.rs"), &mut out);
        assert!(out.is_empty(), "{out:?}");
        let found = tree
            .circles(&dir, "t (lib `t`)")
            .into_iter()
            .map(|v| format!("{}: {}", v.path, v.message))
            .collect();
        let _ = std::fs::remove_dir_all(&dir);
        found
    }

    #[test]
    fn a_circle_through_a_use_a_macro_and_a_re_export_is_found_with_its_edges() {
        let found = circles_of(
            "found",
            &[
                ("src/lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\npub use c::*;\n"),
                // a -> b by a `use`; b -> a inside a macro call; c only through the glob re-export.
                (
                    "src/a.rs",
                    "use crate::b::f;\npub const NAME: &str = \"a\";\npub fn g() { f(); let _ = crate::Thing; }\n",
                ),
                ("src/b.rs", "pub fn f() {\n    println!(\"{}\", crate::a::NAME);\n}\n"),
                ("src/c.rs", "pub struct Thing;\n"),
                // Inside `d`: x -> y in code, y -> x in a doc link; the parent's own items are no edge.
                ("src/d/mod.rs", "mod x;\nmod y;\npub struct Shared;\nfn h() { x::X; }\n"),
                ("src/d/x.rs", "use super::y::Y;\nuse super::Shared;\npub struct X;\n"),
                ("src/d/y.rs", "/// Made from [`super::x::X`].\npub struct Y;\n"),
            ],
        );
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(found[0].starts_with(
            "src/lib.rs: a module circle in t (lib `t`), among the children of the crate root: a, b use"
        ));
        assert!(
            found[0].contains("a → b (src/a.rs:1)") && found[0].contains("b → a (src/b.rs:2)"),
            "{}",
            found[0]
        );
        assert!(found[1].starts_with(
            "src/d/mod.rs: a module circle in t (lib `t`), among the children of module `d`: x, y use"
        ));
        assert!(
            found[1].contains("x → y (src/d/x.rs:1)") && found[1].contains("y → x (src/d/y.rs:1)"),
            "{}",
            found[1]
        );
    }

    #[test]
    fn modules_that_use_each_other_one_way_are_no_circle() {
        let found = circles_of(
            "none",
            &[
                ("src/lib.rs", "mod a;\nmod b;\npub use b::B;\nfn top() { a::f(); }\n"),
                (
                    "src/a.rs",
                    "use crate::B;\npub fn f() { let _ = B; }\n#[cfg(test)]\nmod tests { use super::*; }\n",
                ),
                ("src/b.rs", "pub struct B;\npub(in crate) fn g() { let _ = self::B; }\n"),
            ],
        );
        assert!(found.is_empty(), "{found:#?}");
    }
}
