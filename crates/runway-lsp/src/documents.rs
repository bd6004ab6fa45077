//! Open documents and the files the loader reads: an open document's text stands for its file,
//! whether or not it is saved; any other file is read from disk.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use runway_files::{FsFiles, read_bounded};
use runway_schema::{Files, Folder, MAX_FILE_BYTES, Unread};

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

    /// A file's text: the open document's, else the file's on disk without a leading byte
    /// order mark, as an editor shows it (`None` when it cannot be read or is not UTF-8).
    pub fn text(&self, path: &Path) -> Option<SourceText> {
        if let Some(doc) = self.open.get(path) {
            return Some(doc.clone());
        }
        let bytes = without_bom(std::fs::read(path).ok()?);
        String::from_utf8(bytes).ok().map(SourceText::new)
    }
}

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A file's bytes without a leading byte order mark: editors drop it when they open a file,
/// so the offsets of diagnostics count from after it.
fn without_bom(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    bytes
}

/// The loader's [`Files`] for a root in `base`: open documents first, then the disk (without a
/// byte order mark). Records every member file it was asked for, so that diagnostics can be
/// cleared from a file that no longer has any, and the text it handed out, so that they are
/// published against that text even when the file changes on disk afterwards.
pub struct Overlay<'a> {
    /// The root file's folder.
    pub base: &'a Path,
    /// The open documents.
    pub docs: &'a Documents,
    /// Member files asked for, as full paths, with the text handed out (`None` for a file
    /// that could not be read; a file that is not UTF-8 decoded lossily).
    pub read: RefCell<BTreeMap<PathBuf, Option<SourceText>>>,
}

impl<'a> Overlay<'a> {
    /// Files under `base`.
    pub fn new(base: &'a Path, docs: &'a Documents) -> Self {
        Self { base, docs, read: RefCell::new(BTreeMap::new()) }
    }
}

impl Files for Overlay<'_> {
    fn folders(&self, folder: &str) -> Vec<Folder> {
        let mut out: BTreeSet<Folder> = FsFiles::new(self.base).folders(folder).into_iter().collect();
        // A member opened in the editor whose folder is not on disk yet still counts.
        let under = if folder.is_empty() { self.base.to_path_buf() } else { self.base.join(folder) };
        for path in self.docs.paths() {
            if path.file_name().is_none_or(|n| n != "runway.yaml") {
                continue;
            }
            let child = path.parent().and_then(|p| p.strip_prefix(&under).ok());
            if let Some(name) = child.and_then(|c| c.components().next()).and_then(|c| c.as_os_str().to_str())
                && !out.iter().any(|f| f.name == name)
            {
                out.insert(Folder::plain(name));
            }
        }
        out.into_iter().collect()
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, Unread> {
        let full = self.base.join(path);
        // The disk decides whether the path stays inside the root's folder, even for an open
        // document: a link on the way that leads outside is refused either way.
        let bytes = match (FsFiles::new(self.base).resolve(path), self.docs.get(&full)) {
            (Err(outside @ Unread::Outside(_)), _) => Err(outside),
            (_, Some(doc)) => Ok(doc.as_str().as_bytes().to_vec()),
            (real, None) => real.and_then(|real| read_bounded(&real, MAX_FILE_BYTES)).map(without_bom),
        };
        let text = bytes.as_ref().ok().map(|b| SourceText::new(String::from_utf8_lossy(b).into_owned()));
        self.read.borrow_mut().insert(full, text);
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_is_dropped_from_a_file_on_disk() {
        let dir = std::env::temp_dir().join(format!("runway-lsp-bom-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("m")).unwrap();
        let text = "runway: 3\nuses: [jobs]\n";
        std::fs::write(dir.join("m/runway.yaml"), [BOM, text.as_bytes()].concat()).unwrap();
        let docs = Documents::default();
        let read = docs.text(&dir.join("m/runway.yaml")).map(|t| t.as_str().to_owned());
        let overlay = Overlay::new(&dir, &docs);
        let handed = overlay.read("m/runway.yaml").ok();
        let recorded = overlay.read.borrow().get(&dir.join("m/runway.yaml")).cloned().flatten();
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(read.as_deref(), Some(text));
        assert_eq!(handed.as_deref(), Some(text.as_bytes()));
        assert_eq!(recorded.as_ref().map(SourceText::as_str), Some(text));
        assert_eq!(without_bom(b"\xEF\xBB".to_vec()), b"\xEF\xBB");
    }
}
