//! A `members` glob means one thing whoever lists the folders: the files on disk
//! ([`FsFiles`]) and the in-memory reader embedders and fixtures use ([`MemFiles`]) match the
//! same members, `**` and `[...]` included (docs/runway-reference.md, `members`).
#![allow(clippy::unwrap_used)] // reason: tests fail loudly

use runway_files::FsFiles;
use runway_schema::{MemFiles, Options, load, member_folders};

/// The files of one product, on disk and in memory alike.
const FILES: &[&str] = &[
    "services/api/runway.yaml",
    "services/billing/runway.yaml",
    "services/cart/runway.yaml",
    "services/cart/worker/runway.yaml",
    "services/.hidden/runway.yaml",
    "services/a-b/runway.yaml",
    "tools/x1/runway.yaml",
    "tools/xz/runway.yaml",
    "deep/one/two/runway-a/runway.yaml",
    "runway-top/runway.yaml",
    "a/b/runway.yaml",
    "a/x/y/b/runway.yaml",
    "]/runway.yaml",
];

const GLOBS: &[&str] = &[
    "services/*",
    "services/*/",
    "./services/*",
    "services/[ab]*",
    "services/[!ab]*",
    "services/[a-c]?*",
    "services/?pi",
    "services/*-*",
    "tools/x[0-9]",
    "tools/x[!0-9]",
    "[]]",
    "*/*",
    "**",
    "**/runway-*",
    "services/**",
    "a/**/b",
    "**/b",
    "services/../tools/*",
    "services/cart/*",
    // What does not parse matches nothing, in both.
    "a**",
    "services/[ab",
    "nothing/*",
];

struct Disk(std::path::PathBuf);

impl Drop for Disk {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn the_in_memory_reader_and_the_disk_match_the_same_members() {
    let disk = Disk(std::env::temp_dir().join(format!("runway-files-members-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&disk.0);
    let mut mem = MemFiles::default();
    for f in FILES {
        let path = disk.0.join(f);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "runway: 3\n").unwrap();
        mem = mem.with(f, "runway: 3\n");
    }
    let fs = FsFiles::new(&disk.0);
    for glob in GLOBS {
        assert_eq!(member_folders(&fs, glob), member_folders(&mem, glob), "`{glob}`");
    }
    // What the reference promises, checked once on the answers both agree on.
    assert_eq!(member_folders(&mem, "services/[ab]*"), ["services/a-b", "services/api", "services/billing"]);
    assert_eq!(member_folders(&mem, "**/runway-*"), ["deep/one/two/runway-a", "runway-top"]);
    assert_eq!(member_folders(&mem, "a/**/b"), ["a/b", "a/x/y/b"]);
    assert_eq!(member_folders(&mem, "tools/x[0-9]"), ["tools/x1"]);
    assert!(member_folders(&mem, "a**").is_empty());

    // And loading through either gives the same product.
    let root = "runway: 3\nproduct: shop\nmembers: [\"services/[a-c]*\", \"tools/x[0-9]\", \"deep/**/runway-*\"]\n\
                environments:\n  dev:\n    region: eu-west-1\n";
    let from_disk = load("runway.yaml", root.as_bytes(), &fs, &Options::default());
    let from_mem = load("runway.yaml", root.as_bytes(), &mem, &Options::default());
    assert_eq!(from_disk, from_mem);
    let members = from_mem.product.map(|p| p.members.len());
    assert_eq!(members, Some(6), "{:?}", from_mem.diagnostics);
}
