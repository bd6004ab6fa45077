//! An in-memory [`Files`]: a map from path (relative to the root's folder) to bytes.

use std::collections::{BTreeMap, BTreeSet};

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
        // A set, not a scan of the list so far: a product may have thousands of members.
        let mut dirs: BTreeSet<&str> = BTreeSet::new();
        for path in self.files.keys() {
            let mut dir = path.as_str();
            while let Some(i) = dir.rfind('/') {
                dir = &dir[..i];
                if glob_match(pattern.trim_end_matches('/'), dir) {
                    dirs.insert(dir);
                }
            }
        }
        dirs.into_iter().map(str::to_owned).collect()
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, crate::Unread> {
        self.files.get(path).cloned().ok_or(crate::Unread::Missing)
    }
}

/// `*` and `?` within one path segment; segments must match one to one.
pub(crate) fn glob_match(pattern: &str, path: &str) -> bool {
    let ps: Vec<&str> = pattern.split('/').collect();
    let xs: Vec<&str> = path.split('/').collect();
    ps.len() == xs.len() && ps.iter().zip(&xs).all(|(p, x)| segment_match(p.as_bytes(), x.as_bytes()))
}

/// One segment, without recursion: a pattern of many `*` (the root file's text chooses it)
/// must neither overflow the stack nor backtrack exponentially. On a mismatch only the last
/// `*` is retried, one byte further: O(pattern x path) at worst.
fn segment_match(p: &[u8], x: &[u8]) -> bool {
    let (mut pi, mut xi) = (0, 0);
    // (pattern index after the last `*`, path index that `*` has consumed up to)
    let mut star: Option<(usize, usize)> = None;
    while xi < x.len() {
        match p.get(pi) {
            Some(b'*') => {
                pi += 1;
                star = Some((pi, xi));
            }
            Some(b'?') => (pi, xi) = (pi + 1, xi + 1),
            Some(c) if *c == x[xi] => (pi, xi) = (pi + 1, xi + 1),
            _ => match star {
                Some((sp, sx)) => {
                    star = Some((sp, sx + 1));
                    (pi, xi) = (sp, sx + 1);
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_of_many_stars_neither_overflows_nor_backtracks_forever() {
        let stars = "*".repeat(200_000);
        assert!(glob_match(&stars, "m"));
        assert!(!glob_match(&format!("{stars}x"), "m"));
        let pattern = format!("{}b", "*a".repeat(40));
        assert!(!glob_match(&pattern, &"a".repeat(60)));
    }

    #[test]
    fn glob_keeps_its_meaning() {
        for (p, x, want) in [
            ("services/*", "services/orders", true),
            ("services/*", "services", false),
            ("services/*", "services/orders/x", false),
            ("s*/o?ders", "services/orders", true),
            ("*", "", true),
            ("", "", true),
            ("?", "", false),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyy", false),
            ("*x", "abx", true),
            ("*.yaml", "a.yaml.bak", false),
            ("a**", "a", true),
        ] {
            assert_eq!(glob_match(p, x), want, "{p} ~ {x}");
        }
    }
}
