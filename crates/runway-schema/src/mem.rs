//! An in-memory [`Files`]: a map from path (relative to the root's folder) to bytes.

use std::collections::BTreeMap;

use crate::Files;

/// Member files held in memory, for tests and for tools that embed the planner.
///
/// ```
/// use runway_schema::{Files, MemFiles};
/// let files = MemFiles::default().with("services/orders/runway.yaml", "runway: 3\n");
/// assert_eq!(files.member_folders("services/*"), vec!["services/orders".to_owned()]);
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
    fn member_folders(&self, pattern: &str) -> Vec<String> {
        let mut dirs: Vec<String> = Vec::new();
        for path in self.files.keys() {
            let mut dir = path.as_str();
            while let Some(i) = dir.rfind('/') {
                dir = &dir[..i];
                if glob_match(pattern.trim_end_matches('/'), dir) && !dirs.iter().any(|d| d == dir) {
                    dirs.push(dir.to_owned());
                }
            }
        }
        dirs.sort();
        dirs
    }

    fn read(&self, path: &str) -> Option<Vec<u8>> {
        self.files.get(path).cloned()
    }
}

/// `*` and `?` within one path segment; segments must match one to one.
pub(crate) fn glob_match(pattern: &str, path: &str) -> bool {
    let ps: Vec<&str> = pattern.split('/').collect();
    let xs: Vec<&str> = path.split('/').collect();
    ps.len() == xs.len() && ps.iter().zip(&xs).all(|(p, x)| segment_match(p.as_bytes(), x.as_bytes()))
}

fn segment_match(p: &[u8], x: &[u8]) -> bool {
    match (p.first(), x.first()) {
        (None, None) => true,
        (Some(b'*'), _) => segment_match(&p[1..], x) || (!x.is_empty() && segment_match(p, &x[1..])),
        (Some(b'?'), Some(_)) => segment_match(&p[1..], &x[1..]),
        (Some(a), Some(b)) if a == b => segment_match(&p[1..], &x[1..]),
        _ => false,
    }
}
