//! An in-memory [`Files`]: a map from path (relative to the root's folder) to bytes.

use std::collections::BTreeMap;
use std::ops::Bound;

use crate::{Files, Folder};

/// Member files held in memory, for tests and for tools that embed the planner.
///
/// ```
/// use runway_schema::{MemFiles, member_folders};
/// let files = MemFiles::default().with("services/orders/runway.yaml", "runway: 3\n");
/// assert_eq!(member_folders(&files, "services/*"), vec!["services/orders".to_owned()]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemFiles {
    /// Path -> bytes.
    pub files: BTreeMap<String, Vec<u8>>,
}

impl MemFiles {
    /// Adds a file.
    #[must_use]
    pub fn with(mut self, path: &str, text: impl Into<Vec<u8>>) -> Self {
        self.files.insert(path.to_owned(), text.into());
        self
    }
}

impl Files for MemFiles {
    fn folders(&self, folder: &str) -> Vec<Folder> {
        let prefix = if folder.is_empty() { String::new() } else { format!("{folder}/") };
        let mut out = Vec::new();
        // A range from the prefix, jumping past each child's files once it is listed: a
        // product may have thousands of members, each asked for once.
        let mut from = prefix.clone();
        while let Some((path, _)) =
            self.files.range::<str, _>((Bound::Excluded(from.as_str()), Bound::Unbounded)).next()
        {
            let Some(rest) = path.strip_prefix(&prefix) else { break };
            match rest.split_once('/') {
                Some((child, _)) if !child.is_empty() => {
                    out.push(Folder::plain(child));
                    // `0` follows `/`: past every path under `child/`.
                    from = format!("{prefix}{child}0");
                }
                _ => from = path.clone(),
            }
        }
        out
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, crate::Unread> {
        self.files.get(path).cloned().ok_or(crate::Unread::Missing)
    }
}
