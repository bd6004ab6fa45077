#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: test helpers fail loudly on broken fixtures
#![allow(clippy::disallowed_methods)] // reason: the test reads the fixtures from disk
//! The file-format fixtures (`tests/fixtures/{valid,invalid,warnings}`) through
//! [`runway_schema::load`], without the binary: each fixture's diagnostics are snapshotted as
//! JSON (code, severity, message, file, line, column, path, help), and every mismatch is
//! reported, not only the first.
//!
//! A fixture is a file (`<category>/<name>.yaml`) or a folder whose root is
//! `<category>/<name>/runway.yaml`; a folder's other files are handed to the loader through
//! [`MemFiles`]. The root's `catalogue:` file is the CLI's to read (the `cost` crate checks
//! it): here every fixture is loaded with the default [`Options`], and the `catalogue-file`
//! fixtures are held only to what the loader reports. `crates/runway-cli/tests/fixtures.rs`
//! checks the binary's rendering of the same fixtures.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use runway_schema::{Diagnostic, MemFiles, Options, Severity, load};

/// The workspace root, two folders above this crate.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// Every file under `dir` but `skip`, by its path relative to `base`, with `/` separators.
fn add_files(dir: &Path, base: &Path, skip: &Path, files: &mut MemFiles) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            add_files(&path, base, skip, files);
        } else if path != skip {
            let rel = path.strip_prefix(base).unwrap();
            let rel: Vec<String> =
                rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            files.files.insert(rel.join("/"), std::fs::read(&path).unwrap());
        }
    }
}

/// The code a fixture's name promises: the part before `--`.
fn expected_code(name: &str) -> &str {
    name.split("--").next().unwrap()
}

/// Loads one fixture's root and returns its category, name and diagnostics.
fn load_fixture(root: &Path) -> (String, String, Vec<Diagnostic>) {
    let workspace = workspace();
    let rel = root.strip_prefix(&workspace).unwrap();
    let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    // tests/fixtures/<category>/<name>.yaml or tests/fixtures/<category>/<name>/runway.yaml
    let category = parts[2].clone();
    let mut files = MemFiles::default();
    let name = if parts.len() == 5 {
        let folder = root.parent().unwrap();
        add_files(folder, folder, root, &mut files);
        parts[3].clone()
    } else {
        parts[3].trim_end_matches(".yaml").to_owned()
    };
    let loaded = load(&parts.join("/"), &std::fs::read(root).unwrap(), &files, &Options::default());
    (category, name, loaded.diagnostics)
}

/// What the fixture's category and name promise, or why it does not hold.
fn promise_broken(category: &str, name: &str, diags: &[Diagnostic]) -> Option<String> {
    let has = |code: &str| diags.iter().any(|d| d.code.as_str() == code);
    match category {
        "valid" => (!diags.is_empty()).then(|| format!("valid/{name} has diagnostics")),
        "warnings" => {
            let only_warnings = diags.iter().all(|d| d.severity == Severity::Warning);
            (!only_warnings || !has(expected_code(name))).then(|| {
                format!("warnings/{name}: expected only warnings, `{}` among them", expected_code(name))
            })
        }
        "invalid" => {
            let want = expected_code(name);
            // The catalogue file is read and checked outside this crate.
            if want == "catalogue-file" {
                return None;
            }
            let error = diags.iter().any(Diagnostic::is_error);
            let positioned = diags.iter().all(|d| d.location.line >= 1 && d.location.column >= 1);
            (!error || !positioned || (want != "several" && !has(want)))
                .then(|| format!("invalid/{name}: expected a positioned error `{want}`"))
        }
        other => Some(format!("unknown category `{other}`")),
    }
}

#[test]
fn every_fixture_loads_to_its_snapshotted_diagnostics() {
    let broken = RefCell::new(Vec::new());
    let seen = RefCell::new(0);
    let check = |root: &Path| {
        let (category, name, diags) = load_fixture(root);
        *seen.borrow_mut() += 1;
        if let Some(why) = promise_broken(&category, &name, &diags) {
            broken.borrow_mut().push(why);
        }
        insta::assert_json_snapshot!(diags);
    };
    insta::glob!("../../../../tests/fixtures", "*/*.yaml", check);
    insta::glob!("../../../../tests/fixtures", "*/*/runway.yaml", check);
    assert!(*seen.borrow() >= 39, "only {} fixtures found", seen.borrow());
    let broken = broken.into_inner();
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}
