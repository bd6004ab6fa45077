//! What a root runway and its members mean right now: `check`'s diagnostics and every
//! environment's plan, computed from the editor's text of open files and the disk's of the
//! others.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cost::Catalogue;
use runtime_plan::{Checked, Plan};
use runway_schema::syntax::{self, Tree};
use runway_schema::{Diagnostic, Glob};

use crate::documents::{Documents, Overlay};
use crate::position::SourceText;

/// How many folders up from a member its root is looked for.
pub const MAX_ROOT_DEPTH: usize = 8;

/// One root runway and its members, checked and planned.
#[derive(Debug)]
pub struct Analysis {
    /// The root file.
    pub root: PathBuf,
    /// The root's text as it was analysed.
    pub root_text: SourceText,
    /// The member files the root's globs matched (read or found missing).
    pub member_files: Vec<PathBuf>,
    /// The text of every file as it was analysed (the root, each member read, the
    /// `catalogue:` file): diagnostics, fixes and references are read against it, never
    /// against a later read of the disk.
    pub texts: BTreeMap<PathBuf, SourceText>,
    /// `check`'s diagnostics by file (the root's, each member's), every file of the root
    /// present even when it has none.
    pub diagnostics: BTreeMap<PathBuf, Vec<Diagnostic>>,
    /// Every environment's plan; empty while the runway has an error.
    pub plans: Vec<Plan>,
    /// How many errors the runway has (its own, not the plans').
    pub errors: usize,
    /// The catalogue it was priced with (its sizes and regions are completed).
    pub catalogue: Arc<Catalogue>,
    /// The file its `catalogue:` setting names, if any: editing it re-analyses the root.
    pub catalogue_file: Option<PathBuf>,
}

impl Analysis {
    /// Checks and plans the root at `root` whose text is `root_text`, reading its members
    /// from `docs` (open documents first, then the disk).
    pub fn new(root: &Path, root_text: SourceText, docs: &Documents, catalogue: Arc<Catalogue>) -> Analysis {
        let base = root.parent().unwrap_or_else(|| Path::new(""));
        let overlay = Overlay::new(base, docs);
        let options = runway_files::options(&catalogue);
        let name = root.to_string_lossy().replace('\\', "/");
        let loaded = runway_schema::load(&name, root_text.as_str().as_bytes(), &overlay, &options);
        let errors = loaded.diagnostics.iter().filter(|d| d.is_error()).count();
        let checked = runtime_plan::check(loaded, &catalogue).unwrap_or_else(|e| Checked {
            // Only an undeclared environment fails planning, and every declared one is
            // planned: kept as a diagnostic rather than trusted never to happen.
            diagnostics: vec![Diagnostic::error(
                runway_schema::Code::UnknownEnvironment,
                runway_schema::Location { file: name.clone(), ..Default::default() },
                "",
                e.to_string(),
            )],
            plans: Vec::new(),
            invalid: true,
        });
        let read = overlay.read.into_inner();
        let member_files: Vec<PathBuf> = read.keys().cloned().collect();
        let mut texts: BTreeMap<PathBuf, SourceText> =
            read.into_iter().filter_map(|(file, text)| Some((file, text?))).collect();
        texts.insert(root.to_path_buf(), root_text.clone());
        let mut diagnostics: BTreeMap<PathBuf, Vec<Diagnostic>> = BTreeMap::new();
        diagnostics.insert(root.to_path_buf(), Vec::new());
        for file in &member_files {
            diagnostics.insert(file.clone(), Vec::new());
        }
        for d in checked.diagnostics {
            diagnostics.entry(PathBuf::from(&d.location.file)).or_default().push(d);
        }
        Analysis {
            root: root.to_path_buf(),
            root_text,
            member_files,
            texts,
            diagnostics,
            plans: checked.plans,
            errors,
            catalogue,
            catalogue_file: None,
        }
    }

    /// A root whose `catalogue:` file cannot be used: as `check` does, only that file's
    /// diagnostics (at the setting, and in the file), nothing planned.
    pub fn refused(
        root: &Path,
        root_text: SourceText,
        catalogue: Arc<Catalogue>,
        found: Vec<Diagnostic>,
    ) -> Analysis {
        let mut diagnostics: BTreeMap<PathBuf, Vec<Diagnostic>> = BTreeMap::new();
        diagnostics.insert(root.to_path_buf(), Vec::new());
        for d in found {
            diagnostics.entry(PathBuf::from(&d.location.file)).or_default().push(d);
        }
        Analysis {
            root: root.to_path_buf(),
            texts: BTreeMap::from([(root.to_path_buf(), root_text.clone())]),
            root_text,
            member_files: Vec::new(),
            errors: diagnostics.values().flatten().filter(|d| d.is_error()).count(),
            diagnostics,
            plans: Vec::new(),
            catalogue,
            catalogue_file: None,
        }
    }

    /// The text a file of the root was analysed with.
    pub fn text(&self, file: &Path) -> Option<&SourceText> {
        self.texts.get(file)
    }

    /// The root's tree, when its text parses.
    pub fn root_tree(&self) -> Option<Tree> {
        syntax::parse("", self.root_text.as_str()).ok()
    }

    /// The plan of an environment.
    pub fn plan(&self, env: &str) -> Option<&Plan> {
        self.plans.iter().find(|p| p.environment == env)
    }
}

/// The top-level keys only a root runway has.
const ROOT_ONLY: &[&str] = &["product", "environments", "resources", "workloads", "members", "secrets"];
/// The top-level keys only a member runway has.
const MEMBER_ONLY: &[&str] = &["member", "runtime", "requires", "uses"];

/// Does the text have one of `keys` at its top level? A file with a syntax error (it is being
/// typed) still says so at the start of a line.
fn has_top_level_key(text: &str, keys: &[&str]) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match syntax::parse("", text) {
        Ok(tree) => tree.root().entries().any(|(k, _)| k.as_str().is_some_and(|k| keys.contains(&k))),
        Err(_) => {
            text.lines().any(|l| keys.iter().any(|k| l.strip_prefix(k).is_some_and(|r| r.starts_with(':'))))
        }
    }
}

/// Is this text a root runway (it has a top-level key only roots have)?
pub fn is_root(text: &str) -> bool {
    has_top_level_key(text, ROOT_ONLY)
}

/// The root runway a file belongs to: itself when it is a root, else the nearest
/// `runway.yaml` above it that is a root whose `members` globs match the file's folder. A
/// `runway.yaml` that is neither (empty, garbage, or only `runway: 3` so far) and has no
/// member-only key is checked as a root, as `runway check` would check it.
pub fn root_of(path: &Path, docs: &Documents) -> Option<PathBuf> {
    let text = docs.text(path)?;
    if is_root(text.as_str()) {
        return Some(path.to_path_buf());
    }
    let folder = path.parent()?;
    for base in folder.ancestors().skip(1).take(MAX_ROOT_DEPTH) {
        let candidate = base.join("runway.yaml");
        let Some(root_text) = docs.text(&candidate) else { continue };
        if is_root(root_text.as_str()) && matches_members(root_text.as_str(), base, folder) {
            return Some(candidate);
        }
    }
    let named = path.file_name().is_some_and(|n| n == "runway.yaml");
    (named && !has_top_level_key(text.as_str(), MEMBER_ONLY)).then(|| path.to_path_buf())
}

/// Is this a member runway: a `runway.yaml` with a key only members have? For a file
/// [`root_of`] found no root for, it means a member no root lists.
pub fn is_member(path: &Path, text: &str) -> bool {
    path.file_name().is_some_and(|n| n == "runway.yaml") && has_top_level_key(text, MEMBER_ONLY)
}

/// Does a root's `members` match `folder` (a folder under `base`)?
fn matches_members(root_text: &str, base: &Path, folder: &Path) -> bool {
    let Some(rel) = folder.strip_prefix(base).ok().and_then(Path::to_str) else { return false };
    let rel = rel.replace('\\', "/");
    member_globs(root_text).iter().any(|g| Glob::new(g).is_some_and(|g| g.matches(&rel)))
}

/// The `members` globs of a root; from its `members:` line when the text does not parse (it
/// is being typed).
fn member_globs(root_text: &str) -> Vec<String> {
    if let Ok(tree) = syntax::parse("", root_text) {
        return tree
            .root()
            .get("members")
            .into_iter()
            .flat_map(|m| m.items())
            .filter_map(|g| g.text())
            .collect();
    }
    let Some(line) = root_text.lines().find_map(|l| l.strip_prefix("members:")) else { return Vec::new() };
    let list =
        line.split(" #").next().unwrap_or_default().trim().trim_start_matches('[').trim_end_matches(']');
    list.split(',').map(|g| g.trim().trim_matches(['"', '\'']).to_owned()).filter(|g| !g.is_empty()).collect()
}

/// The files of a root the server has published diagnostics for, to clear those no longer
/// reported.
#[derive(Debug, Default)]
pub struct Published {
    by_root: BTreeMap<PathBuf, BTreeSet<PathBuf>>,
}

impl Published {
    /// Records the files published for `root` now; returns those published before and not now.
    pub fn replace(&mut self, root: &Path, now: BTreeSet<PathBuf>) -> Vec<PathBuf> {
        let before = self.by_root.insert(root.to_path_buf(), now.clone()).unwrap_or_default();
        before.difference(&now).cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_globs_are_read_even_from_text_that_does_not_parse() {
        let ok = "members: [\"services/*\", tools/*]\nproduct: x\n";
        assert_eq!(member_globs(ok), ["services/*", "tools/*"]);
        let typing = "members: [\"services/*\", 'tools/*'] # c\nworkloads:\n  a: { uses: [\n";
        assert_eq!(member_globs(typing), ["services/*", "tools/*"]);
        assert!(is_root(typing));
        assert!(!is_root("runway: 3\nuses: [\n"));
        assert!(has_top_level_key("runway: 3\nuses: [\n", MEMBER_ONLY));
        // A byte order mark before the first key, in text that parses and text that does not.
        assert!(is_root("\u{feff}product: x\n"));
        assert!(is_root("\u{feff}product: [\n"));
        assert!(has_top_level_key("\u{feff}uses: [\n", MEMBER_ONLY));
        assert!(matches_members(typing, Path::new("/p"), Path::new("/p/tools/x")));
        assert!(!matches_members(typing, Path::new("/p"), Path::new("/p/tools/x/y")));
    }

    #[test]
    fn an_empty_or_garbage_runway_file_is_checked_as_a_root_and_a_lone_member_is_not() {
        let mut docs = Documents::default();
        let dir = Path::new("/nonexistent-runway-lsp-test/shop");
        let (root, member, other) = (dir.join("runway.yaml"), dir.join("m/runway.yaml"), dir.join("x.yaml"));
        for text in ["", "\u{fffd}\u{0} [", "runway: 3\n"] {
            docs.set(root.clone(), text.to_owned());
            assert_eq!(root_of(&root, &docs), Some(root.clone()), "{text:?}");
        }
        docs.set(member.clone(), "runway: 3\nuses: [jobs]\n".to_owned());
        // Its folder's root above is no root and does not list it.
        assert_eq!(root_of(&member, &docs), None);
        docs.set(other.clone(), String::new());
        assert_eq!(root_of(&other, &docs), None);
    }
}
