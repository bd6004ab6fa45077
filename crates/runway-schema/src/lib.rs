//! Parses and validates runway files: typed values plus every diagnostic at once.
//!
//! This crate performs no I/O: it takes the text of a root runway and a [`Files`] source that
//! hands it member folders and texts, and returns the typed [`Product`] with every
//! [`Diagnostic`] found. It has no clock, no randomness and no network.

use std::collections::{BTreeMap, BTreeSet};

pub mod alarms;
pub mod bootstrap;
pub mod diagnostic;
mod direct;
pub mod format;
mod mem;
pub mod members;
pub mod model;
mod owners;
mod parse;
pub mod paths;
mod read;
pub mod small_map;
pub mod syntax;
mod tree;
mod validate;
pub mod values;

pub use mem::MemFiles;
pub use members::{Folder, Glob, member_folders};
pub use small_map::SmallMap;
pub use tree::{MAX_ALIASES, MAX_DEPTH, MAX_FILE_BYTES, MAX_NODES};
pub use validate::{MAX_PROXY_SECRETS, parse_days, variable_suffixes, variables};

pub use alarms::{AlarmName, AlarmSetting, Alarms};
pub use bootstrap::Bootstrap;
pub use diagnostic::{Code, Diagnostic, Location, Severity, did_you_mean, line_starts, summary};
pub use model::*;
pub use values::{Duration, ImageRef, Money};

/// The most member folders one `members` glob may match: more is an error at the glob, and
/// none of them is read.
pub const MAX_MEMBERS: usize = 10_000;

/// Where member folders and their texts come from. `runway-files` implements it over the file
/// system, the CLI over a git revision, the language server over its open documents and the
/// disk; [`MemFiles`] implements it over a map for tests and embedding. A reader only lists
/// folders: what a `members` glob matches is decided once, by [`member_folders`].
///
/// The loader asks only for paths inside the root's folder ([`paths::outside_root`] refuses the
/// others before any is asked for); an implementation over a file system must also refuse a
/// path that a symbolic link takes outside that folder ([`Unread::Outside`]).
pub trait Files {
    /// The folders directly in `folder` (relative to the root file's folder, `/`-separated;
    /// `""` is the root's own folder), a symbolic link to a folder flagged as one. Order does
    /// not matter; a folder that cannot be listed has none.
    fn folders(&self, folder: &str) -> Vec<Folder>;
    /// The bytes of a file (`<folder>/runway.yaml`), or why it was not read.
    fn read(&self, path: &str) -> Result<Vec<u8>, Unread>;
}

/// Why a file was not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unread {
    /// There is no such file.
    Missing,
    /// It could not be read: the reason, in the operating system's words.
    Failed(String),
    /// Its path leaves the root's folder (through a symbolic link, say): refused unopened. The
    /// reason says how, without anything the file holds.
    Outside(String),
}

/// What loading a product gives: the product when it has no error, and every diagnostic.
#[derive(Clone, Debug, PartialEq)]
pub struct Loaded {
    /// The typed product; `None` when any diagnostic is an error.
    pub product: Option<Product>,
    /// Every problem found, errors and warnings, in file then position order.
    pub diagnostics: Vec<Diagnostic>,
}

/// Options of the loader.
#[derive(Clone, Debug)]
pub struct Options {
    /// Size names the catalogue knows (for `unknown-size`).
    pub sizes: Vec<String>,
    /// Regions the catalogue prices; empty means any region is accepted.
    pub regions: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Self { sizes: ["small", "medium", "large"].map(String::from).to_vec(), regions: Vec::new() }
    }
}

/// Loads a product: parses and validates the root and every member it matches, reporting every
/// problem of every file at once.
///
/// `root_file` is the root's path as the user gave it; member files are named relative to its
/// folder in diagnostics, and asked of `files` relative to that folder.
pub fn load(root_file: &str, root_text: &[u8], files: &dyn Files, options: &Options) -> Loaded {
    let mut diagnostics = Vec::new();
    let tree = match parse::runway_file(root_file, root_text) {
        Ok(t) => t,
        Err(d) => return Loaded { product: None, diagnostics: vec![d] },
    };
    let known = validate::Known { sizes: &options.sizes, regions: &options.regions };
    let mut parts = {
        let mut cx = read::Cx { file: root_file, diags: &mut diagnostics };
        validate::root(&mut cx, &tree, &known)
    };
    // The resources as written (for suggestions) and by name: members look resources up by
    // name (a scan per use was quadratic in a large product), with the index the root's
    // validation built.
    let resources = resource_nodes(&tree);
    let resources_by_name = std::mem::take(&mut parts.resources_by_name);
    // Members are named from the root's name: `services/a/runway.yaml` beside `runway.yaml`, and
    // `<commit>:services/a/runway.yaml` beside `<commit>:runway.yaml` (a git revision's root), so
    // that no base member is taken for today's file of the same path.
    let base = match root_file.rfind('/').or_else(|| root_file.rfind(':')) {
        Some(i) => &root_file[..=i],
        None => "",
    };

    let mut members: Vec<Member> = Vec::new();
    // The member files read so far (a folder two globs match is read and reported once) and
    // the names of the members loaded, for the repeat checks below.
    let mut member_files: BTreeSet<String> = BTreeSet::new();
    let mut member_names: BTreeMap<String, usize> = BTreeMap::new();
    if let Some(tree::Value::Seq(globs)) = parts.members_node.as_ref().map(|n| &n.value) {
        for (i, glob) in globs.iter().enumerate() {
            let tree::Value::Str(pattern) = &glob.value else { continue };
            if paths::outside_root(pattern).is_some() {
                continue; // reported by validation; nothing outside the root is listed
            }
            let folders = member_folders(files, pattern);
            if folders.len() > MAX_MEMBERS {
                let mut cx = read::Cx { file: root_file, diags: &mut diagnostics };
                cx.error(
                    Code::TooManyMembers,
                    glob,
                    &format!("members[{i}]"),
                    format!("`{pattern}` matches more than {MAX_MEMBERS} folders; none of them is read"),
                    Some("narrow the glob to the folders that hold members".to_owned()),
                );
                continue;
            }
            for folder in folders {
                let rel = format!("{}/runway.yaml", folder.trim_end_matches('/'));
                if member_files.contains(&rel) {
                    continue;
                }
                let display = format!("{base}{rel}");
                let bytes = match files.read(&rel) {
                    Ok(bytes) => bytes,
                    Err(why) => {
                        let mut cx = read::Cx { file: root_file, diags: &mut diagnostics };
                        let (code, message, help) = unread_member(&why, &folder, &display);
                        cx.error(code, glob, &format!("members[{i}]"), message, Some(help));
                        continue;
                    }
                };
                member_files.insert(rel);
                let folder_name =
                    folder.trim_end_matches('/').rsplit('/').next().unwrap_or(&folder).to_owned();
                let mut member_diags = Vec::new();
                match parse::runway_file(&display, &bytes) {
                    Err(d) => member_diags.push(d),
                    Ok(node) => {
                        let mut cx = read::Cx { file: &display, diags: &mut member_diags };
                        if let Some((member, name_node)) =
                            validate::member(&mut cx, &node, &folder_name, &resources, &resources_by_name)
                        {
                            if let Some(first) = member_names.get(&member.name).map(|&i| &members[i]) {
                                cx.error(
                                    Code::DuplicateName,
                                    name_node,
                                    "member",
                                    format!(
                                        "member name `{}` is declared twice (also in `{}`)",
                                        member.name, first.file
                                    ),
                                    Some("give each member its own name with `member:`".to_owned()),
                                );
                            } else {
                                member_names.insert(member.name.clone(), members.len());
                                members.push(member);
                            }
                        }
                    }
                }
                diagnostics.extend(member_diags);
            }
        }
    }
    {
        let mut cx = read::Cx { file: root_file, diags: &mut diagnostics };
        validate::unused_shared(&mut cx, &parts.shared_nodes, &members);
        if let (Some(runway), Some(node)) = (&parts.runway, &parts.previews_node) {
            validate::proxy_room(&mut cx, node, runway, &members);
        }
    }
    // Stable order: by file as first met, then position. Each file's rank is looked up once
    // per diagnostic (`sort_by_cached_key` keeps equal ones in order), not searched for in
    // every comparison: a large product may have thousands of files with diagnostics.
    let mut rank: BTreeMap<String, usize> = BTreeMap::new();
    for d in &diagnostics {
        if !rank.contains_key(&d.location.file) {
            rank.insert(d.location.file.clone(), rank.len());
        }
    }
    diagnostics
        .sort_by_cached_key(|d| (rank.get(&d.location.file).copied(), d.location.line, d.location.column));
    let has_error = diagnostics.iter().any(Diagnostic::is_error);
    let product = match parts.runway {
        Some(root) if !has_error => Some(Product { root, members }),
        _ => None,
    };
    Loaded { product, diagnostics }
}

/// The diagnostic of a member file that was not read: code, message and help.
fn unread_member(why: &Unread, folder: &str, display: &str) -> (Code, String, String) {
    match why {
        Unread::Missing => (
            Code::MemberMissing,
            format!("member folder `{folder}` has no runway.yaml"),
            format!("add `{display}` with `runway: 3`, or narrow the glob"),
        ),
        Unread::Failed(reason) => (
            Code::MemberMissing,
            format!("`{display}` cannot be read ({reason})"),
            "make the file readable, or narrow the glob".to_owned(),
        ),
        Unread::Outside(reason) => (
            Code::OutsideRoot,
            format!("`{display}` is not read: {reason}"),
            "runway reads nothing outside the root runway's folder: put the member's files there \
             instead of a link to them, or narrow the glob"
                .to_owned(),
        ),
    }
}

/// A root runway's `catalogue:` setting: the path as written and where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatalogueSetting {
    /// The path as written, relative to the root file's folder.
    pub path: String,
    /// Where the value is, for a diagnostic when the file is missing or invalid.
    pub location: Location,
}

/// The `catalogue:` setting of a root runway, read before the root is validated (the
/// catalogue gives validation its sizes and regions). `None` when the root does not parse, is
/// not a runway file, or has no usable setting (empty, or a path outside the root's folder):
/// validation then reports what is wrong with it, and nothing is read.
pub fn catalogue_setting(root_file: &str, root_text: &[u8]) -> Option<CatalogueSetting> {
    // The key cannot be written without its letters, except through an escape: most roots
    // are not parsed a second time.
    if !root_text.windows(9).any(|w| w == b"catalogue") && !root_text.contains(&b'\\') {
        return None;
    }
    let tree = parse::runway_file(root_file, root_text).ok()?;
    let tree::Value::Map(root) = &tree.value else { return None };
    let (_, value) =
        root.iter().find(|(k, _)| matches!(&k.value, tree::Value::Str(s) if s == "catalogue"))?;
    match &value.value {
        tree::Value::Str(path) if !path.trim().is_empty() && paths::outside_root(path).is_none() => {
            Some(CatalogueSetting { path: path.to_string(), location: value.location(root_file) })
        }
        _ => None,
    }
}

/// Loads one file on its own (no members): convenient for embedding and editors.
pub fn load_str(file: &str, text: &str) -> Loaded {
    load(file, text.as_bytes(), &MemFiles::default(), &Options::default())
}

/// The `resources` entries of a root tree, read without reporting (validation reports).
fn resource_nodes(tree: &tree::Node) -> Vec<(&str, &tree::Node, &tree::Node)> {
    let tree::Value::Map(root) = &tree.value else { return Vec::new() };
    let Some((_, res)) =
        root.iter().find(|(k, _)| matches!(&k.value, tree::Value::Str(s) if s == "resources"))
    else {
        return Vec::new();
    };
    let tree::Value::Map(entries) = &res.value else { return Vec::new() };
    entries
        .iter()
        .filter_map(|(k, v)| match &k.value {
            tree::Value::Str(s) => Some((s.as_str(), k, v)),
            _ => None,
        })
        .collect()
}

/// For the fuzz target `check`: reads `text` with the fast YAML reader and, where it answers,
/// with serde-saphyr too, and panics if the trees differ. Returns whether the fast reader
/// answered. Not part of the API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub fn compare_readers(text: &str) -> bool {
    direct::compare(text)
}
