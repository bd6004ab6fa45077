//! Open documents and the files the loader reads: an open document's text stands for its file,
//! whether or not it is saved; any other file is read from disk.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use runway_schema::Files;

use crate::position::SourceText;

/// The documents the editor has open, by path.
#[derive(Clone, Debug, Default)]
pub struct Documents {
    open: BTreeMap<PathBuf, SourceText>,
}

impl Documents {
    /// Opens or replaces a document's text.
    pub fn set(&mut self, path: PathBuf, text: String) {
        self.open.insert(path, SourceText::new(text));
    }

    /// Closes a document: its file is read from disk again.
    pub fn close(&mut self, path: &Path) {
        self.open.remove(path);
    }

    /// An open document.
    pub fn get(&self, path: &Path) -> Option<&SourceText> {
        self.open.get(path)
    }

    /// The paths of the open documents.
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.open.keys().map(PathBuf::as_path)
    }

    /// A file's text: the open document's, else the file's on disk (`None` when it cannot be
    /// read or is not UTF-8).
    pub fn text(&self, path: &Path) -> Option<SourceText> {
        if let Some(doc) = self.open.get(path) {
            return Some(doc.clone());
        }
        let bytes = std::fs::read(path).ok()?;
        String::from_utf8(bytes).ok().map(SourceText::new)
    }
}

/// The loader's [`Files`] for a root in `base`: open documents first, then the disk. Records
/// every member file it was asked for, so that diagnostics can be cleared from a file that no
/// longer has any.
pub struct Overlay<'a> {
    /// The root file's folder.
    pub base: &'a Path,
    /// The open documents.
    pub docs: &'a Documents,
    /// Member files read (or asked for), as full paths.
    pub read: RefCell<BTreeSet<PathBuf>>,
}

impl<'a> Overlay<'a> {
    /// Files under `base`.
    pub fn new(base: &'a Path, docs: &'a Documents) -> Self {
        Self { base, docs, read: RefCell::new(BTreeSet::new()) }
    }
}

impl Files for Overlay<'_> {
    fn member_folders(&self, pattern: &str) -> Vec<String> {
        let mut out: BTreeSet<String> = BTreeSet::new();
        let full = self.base.join(pattern);
        if let Some(paths) = full.to_str().and_then(|f| glob::glob(f).ok()) {
            for path in paths.filter_map(Result::ok).filter(|p| p.is_dir()) {
                if let Some(rel) = path.strip_prefix(self.base).ok().and_then(|r| r.to_str()) {
                    out.insert(rel.replace('\\', "/"));
                }
            }
        }
        // A member opened in the editor whose folder is not on disk yet still counts.
        if let Ok(glob) = glob::Pattern::new(pattern.trim_end_matches('/')) {
            for path in self.docs.paths() {
                let folder = path.parent().and_then(|p| p.strip_prefix(self.base).ok());
                let Some(folder) = folder.and_then(Path::to_str) else { continue };
                if path.file_name().is_some_and(|n| n == "runway.yaml")
                    && !folder.is_empty()
                    && glob.matches_with(
                        folder,
                        glob::MatchOptions { require_literal_separator: true, ..Default::default() },
                    )
                {
                    out.insert(folder.replace('\\', "/"));
                }
            }
        }
        out.into_iter().collect()
    }

    fn read(&self, path: &str) -> Option<Vec<u8>> {
        let full = self.base.join(path);
        self.read.borrow_mut().insert(full.clone());
        if let Some(doc) = self.docs.get(&full) {
            return Some(doc.as_str().as_bytes().to_vec());
        }
        std::fs::read(full).ok()
    }
}
