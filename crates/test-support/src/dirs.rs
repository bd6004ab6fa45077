//! Scratch directories and copies of fixtures.

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::paths::example;

/// A fresh, empty directory for one test, removed on drop.
///
/// When the test is failing (dropped while panicking) the directory is kept and its path
/// printed, so that what the test wrote can be looked at.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
}

/// A fresh, empty `runway-<name>-<process id>-<n>` under the system's temp directory: the
/// process id keeps concurrent runs of the same suite apart, `n` (counted in this process) the
/// tests of one binary, which run as threads of one process: two tests (or two calls of one
/// helper) asking for the same `name` each get their own directory.
pub fn scratch(name: &str) -> Scratch {
    static TAKEN: AtomicUsize = AtomicUsize::new(0);
    let n = TAKEN.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("runway-{name}-{}-{n}", std::process::id()));
    // A leftover of a failed run with the same process id would not be fresh.
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path)
        .unwrap_or_else(|e| panic!("cannot create the scratch directory {}: {e}", path.display()));
    Scratch { path }
}

impl Scratch {
    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept the scratch directory of the failed test: {}", self.path.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Copies the tree under `from` into `to` (created when missing).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("cannot create {}: {e}", to.display()));
    let entries = std::fs::read_dir(from).unwrap_or_else(|e| panic!("cannot read {}: {e}", from.display()));
    for entry in entries {
        let entry = entry.unwrap_or_else(|e| panic!("cannot read {}: {e}", from.display()));
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if source.is_dir() {
            copy_dir(&source, &target);
        } else {
            std::fs::copy(&source, &target)
                .unwrap_or_else(|e| panic!("cannot copy {} to {}: {e}", source.display(), target.display()));
        }
    }
}

/// A scratch copy (named `name`) of the example `acme-shop` whose `dev` cap, `monthly: 200`, is
/// `monthly: <cap>`. Panics when the example no longer declares that cap.
pub fn acme_shop_with_dev_cap(cap: &str, name: &str) -> Scratch {
    let dir = scratch(name);
    copy_dir(&example("acme-shop"), &dir);
    let root = dir.join("runway.yaml");
    let text = std::fs::read_to_string(&root).expect("the copied example has a runway.yaml");
    assert!(text.contains("monthly: 200"), "the example's dev cap is no longer `monthly: 200`");
    std::fs::write(&root, text.replace("monthly: 200", &format!("monthly: {cap}")))
        .expect("cannot write the copied runway.yaml");
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_directory_is_fresh_and_removed_on_drop() {
        let dir = scratch("test-support-fresh");
        std::fs::write(dir.join("left"), "x").unwrap();
        let again = scratch("test-support-fresh");
        assert!(!again.join("left").exists());
        // The same name, asked while the first is alive: another directory, the first kept.
        assert_ne!(dir.path(), again.path());
        assert!(dir.join("left").exists());
        let path = again.path().to_path_buf();
        drop(again);
        assert!(!path.exists());
    }

    #[test]
    fn the_capped_copy_changes_only_the_dev_cap() {
        let dir = acme_shop_with_dev_cap("12.34", "test-support-cap");
        let original = std::fs::read_to_string(example("acme-shop").join("runway.yaml")).unwrap();
        let copy = std::fs::read_to_string(dir.join("runway.yaml")).unwrap();
        assert_eq!(copy, original.replace("monthly: 200", "monthly: 12.34"));
        assert!(dir.join("services/orders/runway.yaml").exists(), "members are copied");
    }
}
