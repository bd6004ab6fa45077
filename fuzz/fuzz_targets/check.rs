//! `check`: arbitrary bytes into the loader, as a root file and as a member file.
//!
//! The loader must return diagnostics for any input: never panic, hang or blow memory. The
//! same bytes are also read as the only member of a fixed root that declares one resource of
//! each kind, and as a root whose `members` glob (if the bytes have one) can match itself.
//! Text is also read by both YAML readers, which must build the same tree where the fast one
//! answers. And the bytes, as text, are a `catalogue:` path and a `members` glob of a root: the
//! loader must ask its files for no path outside the root's folder, and the setting it hands
//! out must stay inside it; as a catalogue file, they must never panic the catalogue reader.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use runway_schema::paths::outside_root;
use runway_schema::{Files, Folder, Loaded, MemFiles, Options, Unread, load};

/// A valid root whose members are `m/*`: member bytes reach member validation.
const ROOT: &str = r#"runway: 3
product: fuzz-shop
members: ["m/*"]
environments:
  dev: { region: us-east-1, domain: dev.fuzz.example, shared: { queue: small } }
resources:
  db: { kind: postgres }
  jobs: { kind: queue, deadLetter: { maxReceives: 3 } }
  events: { kind: topic }
  sessions: { kind: cache }
  files: { kind: bucket }
"#;

fn options() -> &'static Options {
    static OPTIONS: OnceLock<Options> = OnceLock::new();
    OPTIONS.get_or_init(|| {
        let cat = cost::Catalogue::builtin();
        Options { sizes: cat.size_names(), regions: cat.regions() }
    })
}

/// What every load promises, whatever the input.
fn check_invariants(loaded: &Loaded, files: &[(&str, &[u8])]) {
    let errors = loaded.diagnostics.iter().any(runway_schema::Diagnostic::is_error);
    assert_eq!(
        loaded.product.is_some(),
        !errors,
        "a product exactly when no error: {:?}",
        loaded.diagnostics
    );
    for d in &loaded.diagnostics {
        let l = &d.location;
        assert!(l.line >= 1 && l.column >= 1, "diagnostic without a position: {d:?}");
        if let Some((_, bytes)) = files.iter().find(|(f, _)| *f == l.file) {
            assert!(l.offset <= bytes.len(), "offset past the end of {}: {d:?}", l.file);
        } else {
            panic!("diagnostic in a file that was not read: {d:?}");
        }
    }
}

/// Answers like `MemFiles` and panics when asked for a path outside the root's folder.
struct Guard(MemFiles);

impl Files for Guard {
    fn folders(&self, folder: &str) -> Vec<Folder> {
        assert!(outside_root(folder).is_none(), "asked to list outside the root: {folder:?}");
        self.0.folders(folder)
    }
    fn read(&self, path: &str) -> Result<Vec<u8>, Unread> {
        assert!(outside_root(path).is_none(), "asked to read outside the root: {path:?}");
        self.0.read(path)
    }
}

/// The text as a root's `catalogue:` path and `members` glob (a YAML double-quoted string).
fn check_paths(text: &str) {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    let root = format!(
        "runway: 3\nproduct: fuzz-shop\ncatalogue: {quoted}\nmembers: [{quoted}, \"m/*\"]\nenvironments:\n  dev: {{ region: us-east-1 }}\n"
    );
    if let Some(setting) = runway_schema::catalogue_setting("runway.yaml", root.as_bytes()) {
        assert!(outside_root(&setting.path).is_none(), "a setting outside the root: {:?}", setting.path);
    }
    let files = Guard(MemFiles::default().with("m/a/runway.yaml", "runway: 3\n"));
    let loaded = load("runway.yaml", root.as_bytes(), &files, options());
    check_invariants(&loaded, &[("runway.yaml", root.as_bytes()), ("m/a/runway.yaml", b"runway: 3\n")]);
    let _ = cost::Catalogue::parse("prices.yaml", text);
}

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        runway_schema::compare_readers(text);
        check_paths(text);
    }
    let options = options();
    // As a root on its own.
    let loaded = load("runway.yaml", data, &MemFiles::default(), options);
    check_invariants(&loaded, &[("runway.yaml", data)]);

    // As the member `m/a` of a valid root.
    let files = MemFiles::default().with("m/a/runway.yaml", data);
    let loaded = load("runway.yaml", ROOT.as_bytes(), &files, options);
    check_invariants(&loaded, &[("runway.yaml", ROOT.as_bytes()), ("m/a/runway.yaml", data)]);

    // As a root whose own `members` globs may match the same bytes at `m/a` and `m/b`.
    let files = MemFiles::default().with("m/a/runway.yaml", data).with("m/b/runway.yaml", data);
    let loaded = load("runway.yaml", data, &files, options);
    check_invariants(&loaded, &[("runway.yaml", data), ("m/a/runway.yaml", data), ("m/b/runway.yaml", data)]);
});
