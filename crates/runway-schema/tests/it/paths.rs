#![allow(clippy::unwrap_used)] // reason: tests fail loudly
//! The loader asks its `Files` for nothing outside the root's folder, bounds what a glob may
//! match, and reports what a `Files` refused.

use std::cell::RefCell;

use runway_schema::{Code, Files, Folder, MAX_MEMBERS, MemFiles, Options, Unread, load, load_str};

const ROOT: &str = "runway: 3\nproduct: shop\nenvironments:\n  dev: { region: us-east-1 }\n";

/// Records every question; answers like `MemFiles`, or with `refuse` for every read.
struct Spy {
    inner: MemFiles,
    asked: RefCell<Vec<String>>,
    refuse: Option<Unread>,
}

impl Files for Spy {
    fn folders(&self, folder: &str) -> Vec<Folder> {
        self.asked.borrow_mut().push(format!("list {folder}"));
        self.inner.folders(folder)
    }
    fn read(&self, path: &str) -> Result<Vec<u8>, Unread> {
        self.asked.borrow_mut().push(format!("read {path}"));
        match &self.refuse {
            Some(why) => Err(why.clone()),
            None => self.inner.read(path),
        }
    }
}

fn codes(text: &str, files: &dyn Files) -> Vec<Code> {
    load("runway.yaml", text.as_bytes(), files, &Options::default())
        .diagnostics
        .iter()
        .map(|d| d.code)
        .collect()
}

#[test]
fn globs_and_catalogue_paths_outside_the_root_are_refused_and_never_asked_for() {
    let text = format!(
        "{ROOT}members: [\"../*\", \"/etc/*\", \"a/../../b/*\", \"ok/*\"]\ncatalogue: /proc/self/environ\n"
    );
    let spy = Spy { inner: MemFiles::default(), asked: RefCell::default(), refuse: None };
    let found = codes(&text, &spy);
    assert_eq!(found.iter().filter(|c| **c == Code::OutsideRoot).count(), 4, "{found:?}");
    // `ok/*` lists the root's folder (where no `ok` is); nothing else is asked for.
    assert_eq!(*spy.asked.borrow(), ["list "]);
    assert_eq!(runway_schema::catalogue_setting("runway.yaml", text.as_bytes()), None);
    let inside = format!("{ROOT}catalogue: prices/eu.yaml\n");
    assert!(runway_schema::catalogue_setting("runway.yaml", inside.as_bytes()).is_some());
}

#[test]
fn a_glob_over_the_member_bound_reads_none() {
    let mut files = MemFiles::default();
    for i in 0..=MAX_MEMBERS {
        files = files.with(&format!("m/{i}/runway.yaml"), "runway: 3\n");
    }
    let spy = Spy { inner: files, asked: RefCell::default(), refuse: None };
    let found = codes(&format!("{ROOT}members: [\"m/*\"]\n"), &spy);
    assert_eq!(found, [Code::TooManyMembers]);
    assert_eq!(*spy.asked.borrow(), ["list ", "list m"], "no member read");
}

#[test]
fn a_member_the_files_refuse_is_reported_at_its_glob() {
    let files = MemFiles::default().with("m/a/runway.yaml", "runway: 3\n");
    let text = format!("{ROOT}members: [\"m/*\"]\n");
    let outside = Spy {
        inner: files.clone(),
        asked: RefCell::default(),
        refuse: Some(Unread::Outside("a link".into())),
    };
    let loaded = load("runway.yaml", text.as_bytes(), &outside, &Options::default());
    assert_eq!(loaded.diagnostics.len(), 1, "{:?}", loaded.diagnostics);
    let d = &loaded.diagnostics[0];
    assert_eq!((d.code, d.location.line, d.path.as_str()), (Code::OutsideRoot, 5, "members[0]"));
    assert!(d.message.contains("m/a/runway.yaml") && d.message.contains("a link"), "{}", d.message);
    let failed =
        Spy { inner: files, asked: RefCell::default(), refuse: Some(Unread::Failed("denied".into())) };
    let loaded = load("runway.yaml", text.as_bytes(), &failed, &Options::default());
    assert_eq!(loaded.diagnostics[0].code, Code::MemberMissing);
    assert!(loaded.diagnostics[0].message.contains("denied"));
}

#[test]
fn a_file_that_is_not_a_runway_file_is_refused_without_a_word_of_it() {
    for foreign in [
        "HOME=/root\nTOKEN=canary-a1\n",
        "[core]\n\ttoken = canary-a1\n",
        "key: canary-a1\n",
        "- canary-a1\n",
    ] {
        let loaded = load_str("x.yaml", foreign);
        assert_eq!(loaded.diagnostics.len(), 1, "{foreign:?}: {:?}", loaded.diagnostics);
        let d = &loaded.diagnostics[0];
        assert!(d.message.contains("is not a runway file"), "{}", d.message);
        assert!(!format!("{d:?}").contains("canary"), "{d:?}");
    }
    let nul = load_str("x.yaml", "runway: 3\nA=canary-a1\0B=2\n");
    let d = &nul.diagnostics[0];
    assert_eq!((d.code, d.location.line, d.location.column), (Code::YamlSyntax, 2, 12));
    assert!(d.message.contains("U+0000") && !d.message.contains("canary"), "{}", d.message);
}
