//! A product's files on disk: member folders, member runway files and the root's `catalogue:`
//! file, read only inside the root runway's folder.
//!
//! The root runway can come from a pull request while the job that reads it holds secrets, so
//! every path it names is checked twice: lexically by the loader (an absolute path or a `..`
//! that climbs out is refused before anything is asked for, [`runway_schema::paths`]), and here
//! against the disk, where a symbolic link on the way may lead anywhere. The CLI and the
//! language server both read through this crate.
//!
//! # From a root path to plans
//!
//! The one way an embedder (the CLI, the language server, `examples/embed`) starts:
//!
//! ```no_run
//! # fn main() -> Result<(), String> {
//! let root = std::path::Path::new("runway.yaml");
//! let catalogue = runway_files::catalogue_for(root).map_err(|d| format!("{d:?}"))?;
//! let loaded = runway_files::load(root, &runway_files::options(&catalogue))
//!     .map_err(|u| runway_files::describe(&u))?;
//! let product = loaded.product.ok_or("the runway is invalid")?;
//! for env in product.root.environments.keys() {
//!     let plan = runtime_plan::plan(&product, env, &catalogue).map_err(|e| e.to_string())?;
//!     # let _ = plan;
//! }
//! # Ok(())
//! # }
//! ```

use std::fs::File;
use std::io::{ErrorKind, Read as _};
use std::path::{Path, PathBuf};

use cost::Catalogue;
use runway_schema::{Diagnostic, Files, Folder, Loaded, MAX_FILE_BYTES, Options, Unread};

/// Loads the product whose root runway is `root`: the root read (within [`MAX_FILE_BYTES`],
/// not through a link that leads elsewhere), then its members under the root's folder
/// ([`FsFiles`]), validated with `options` ([`options`] of the catalogue in use). The
/// diagnostics name files from `root` as given.
///
/// # Errors
/// The root file could not be read ([`describe`] says why, in the operating system's words).
pub fn load(root: &Path, options: &Options) -> Result<Loaded, Unread> {
    let bytes = read_named(root, MAX_FILE_BYTES)?;
    let base = root.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = root.to_string_lossy().replace('\\', "/");
    Ok(runway_schema::load(&name, &bytes, &FsFiles::new(base), options))
}

/// The validation options a catalogue gives: the size names it prices and its regions.
pub fn options(catalogue: &Catalogue) -> Options {
    Options { sizes: catalogue.size_names(), regions: catalogue.regions() }
}

/// The catalogue of the product at `root`: the file its `catalogue:` setting names (relative to
/// the root file, inside its folder) laid over the built-in catalogue, else the built-in one
/// (also when the root cannot be read: [`load`] reports that).
///
/// # Errors
/// A `catalogue-file` diagnostic at the setting (its file missing, outside or unreadable),
/// then the file's own diagnostics.
pub fn catalogue_for(root: &Path) -> Result<Catalogue, Vec<Diagnostic>> {
    setting_catalogue(root).unwrap_or_else(|| Ok(Catalogue::builtin()))
}

/// The catalogue a root names with `catalogue:`, laid over the built-in one; `None` when it
/// names none (or cannot be read: the loader reports that). `Err` holds a `catalogue-file`
/// diagnostic at the setting, then the file's own diagnostics.
pub fn setting_catalogue(root: &Path) -> Option<Result<Catalogue, Vec<Diagnostic>>> {
    let bytes = read_named(root, MAX_FILE_BYTES).ok()?;
    let name = root.to_string_lossy().replace('\\', "/");
    let setting = runway_schema::catalogue_setting(&name, &bytes)?;
    let base = root.parent().unwrap_or(Path::new(""));
    let path = base.join(&setting.path);
    let text = FsFiles::new(base).catalogue_text(&setting.path);
    Some(Catalogue::builtin().with_setting(
        &setting,
        &path.display().to_string(),
        text.as_deref().map_err(Clone::clone),
    ))
}

/// Member folders and files under the root's folder, on disk.
#[derive(Clone, Debug)]
pub struct FsFiles {
    /// The root file's folder, as given (relative or absolute).
    pub base: PathBuf,
}

impl FsFiles {
    /// Files under `base`, the root file's folder.
    pub fn new(base: impl Into<PathBuf>) -> Self {
        Self { base: base.into() }
    }

    /// The real path of `rel` (relative to the root's folder), when it exists and stays inside
    /// that folder once every symbolic link is followed.
    pub fn resolve(&self, rel: &str) -> Result<PathBuf, Unread> {
        if let Some(why) = runway_schema::paths::outside_root(rel) {
            return Err(Unread::Outside(why.to_owned()));
        }
        let base = if self.base.as_os_str().is_empty() { Path::new(".") } else { &self.base };
        let root = base.canonicalize().map_err(unread)?;
        let full = base.join(rel);
        // The nearest folder on the way that exists decides: a link to a folder outside is
        // refused even when the file sought is not there (whether it exists is not told).
        let mut probe = full.as_path();
        let real = loop {
            match probe.canonicalize() {
                Ok(real) => break real,
                Err(e) if e.kind() == ErrorKind::NotFound => {
                    probe = probe.parent().ok_or(Unread::Missing)?;
                }
                Err(e) => return Err(Unread::Failed(e.to_string())),
            }
        };
        if !real.starts_with(&root) {
            Err(Unread::Outside(
                "a symbolic link on its way leads outside the root runway's folder".to_owned(),
            ))
        } else if probe == full {
            Ok(real)
        } else {
            Err(Unread::Missing)
        }
    }

    /// The text of the catalogue file `rel` names (the root's `catalogue:` setting), within
    /// [`cost::MAX_CATALOGUE_BYTES`]. Every failure but a path outside the root's folder is in
    /// the operating system's words.
    pub fn catalogue_text(&self, rel: &str) -> Result<String, Unread> {
        let path = self.resolve(rel).map_err(|u| in_os_words(u, &self.base.join(rel)))?;
        let bytes = read_bounded(&path, cost::MAX_CATALOGUE_BYTES)?;
        String::from_utf8(bytes).map_err(|_| Unread::Failed("it is not UTF-8 text".to_owned()))
    }
}

impl Files for FsFiles {
    /// The folders in `folder`; a symbolic link is listed by its name when it leads to a
    /// folder, and flagged, so that the glob engine matches it but never walks through it (a
    /// link cannot make a walk loop or list what is under a folder outside the root; reading a
    /// member through it is then refused by [`FsFiles::resolve`]).
    fn folders(&self, folder: &str) -> Vec<Folder> {
        let base = if self.base.as_os_str().is_empty() { Path::new(".") } else { &self.base };
        let dir = if folder.is_empty() { base.to_path_buf() } else { base.join(folder) };
        let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
        entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().into_string().ok()?;
                let link = e.file_type().ok()?.is_symlink();
                // A link's target decides whether it is a folder to match.
                let is_dir = if link { e.path().is_dir() } else { e.file_type().ok()?.is_dir() };
                is_dir.then_some(Folder { name, link })
            })
            .collect()
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, Unread> {
        read_bounded(&self.resolve(path)?, MAX_FILE_BYTES)
    }
}

/// A regular file's bytes, refused past `max` bytes without reading the rest (a device or a
/// pipe is not opened at all).
pub fn read_bounded(path: &Path, max: usize) -> Result<Vec<u8>, Unread> {
    // Asked before opening: opening a pipe would wait for a writer.
    if !std::fs::metadata(path).map_err(unread)?.is_file() {
        return Err(Unread::Failed("it is not a regular file".to_owned()));
    }
    let file = File::open(path).map_err(unread)?;
    let mut bytes = Vec::new();
    let limit = u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1);
    file.take(limit).read_to_end(&mut bytes).map_err(unread)?;
    if bytes.len() > max {
        return Err(Unread::Failed(format!("it is over the limit of {max} bytes")));
    }
    Ok(bytes)
}

/// Reads a file the command line names (the root runway, `--catalogue FILE`), at most `max`
/// bytes. The file may come from a pull request, so a symbolic link on its way must not lead
/// outside the folder it is named from: the current folder for a relative path that stays inside
/// it, else the file's own folder.
pub fn read_named(path: &Path, max: usize) -> Result<Vec<u8>, Unread> {
    let text = path.to_string_lossy().replace('\\', "/");
    let (anchor, rel) = if path.is_relative() && runway_schema::paths::outside_root(&text).is_none() {
        (PathBuf::from("."), text)
    } else {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        (path.parent().map(Path::to_path_buf).unwrap_or_default(), name)
    };
    let real = FsFiles::new(anchor).resolve(&rel).map_err(|u| match u {
        Unread::Outside(_) => {
            Unread::Outside("a symbolic link on its way leads outside the folder it is named from".to_owned())
        }
        other => in_os_words(other, path),
    })?;
    read_bounded(&real, max)
}

/// A missing file in the operating system's words (opening it says why), as for any other
/// failure to open it; other reasons as they are.
fn in_os_words(unread: Unread, path: &Path) -> Unread {
    match unread {
        Unread::Missing => match File::open(path) {
            Err(e) => Unread::Failed(e.to_string()),
            Ok(_) => Unread::Failed("it appeared while it was read; run again".to_owned()),
        },
        other => other,
    }
}

/// Why a file was not read, as a person reads it after its name.
pub fn describe(unread: &Unread) -> String {
    match unread {
        Unread::Missing => std::io::Error::from(ErrorKind::NotFound).to_string(),
        Unread::Failed(why) | Unread::Outside(why) => why.clone(),
    }
}

fn unread(e: std::io::Error) -> Unread {
    if e.kind() == ErrorKind::NotFound { Unread::Missing } else { Unread::Failed(e.to_string()) }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // reason: tests fail loudly
    use std::os::unix::fs::symlink;

    use super::*;
    use runway_schema::member_folders;

    /// `<tmp>/root` (the root's folder) beside `<tmp>/outside`, removed on drop.
    struct Tree(PathBuf);

    impl Tree {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("runway-files-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(dir.join("root/members/a")).unwrap();
            std::fs::create_dir_all(dir.join("outside/m")).unwrap();
            std::fs::write(dir.join("root/members/a/runway.yaml"), "runway: 3\n").unwrap();
            std::fs::write(dir.join("outside/m/runway.yaml"), "runway: 3\n").unwrap();
            std::fs::write(dir.join("outside/prices.yaml"), "regions: {}\n").unwrap();
            Self(dir)
        }
        fn files(&self) -> FsFiles {
            FsFiles::new(self.0.join("root"))
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn outside(r: Result<impl std::fmt::Debug, Unread>) -> bool {
        matches!(r, Err(Unread::Outside(_)))
    }

    #[test]
    fn links_that_lead_outside_are_refused_and_links_inside_are_followed() {
        let t = Tree::new("links");
        let root = t.0.join("root");
        symlink(t.0.join("outside/m"), root.join("members/out")).unwrap();
        symlink(t.0.join("outside/prices.yaml"), root.join("prices.yaml")).unwrap();
        symlink("/etc", root.join("etc")).unwrap();
        symlink("a", root.join("members/alias")).unwrap();
        let files = t.files();
        assert_eq!(member_folders(&files, "members/*"), ["members/a", "members/alias", "members/out"]);
        assert!(outside(files.read("members/out/runway.yaml")));
        assert!(outside(files.catalogue_text("prices.yaml")));
        // A folder linked outside is refused before asking whether the file is there.
        assert!(outside(files.read("etc/no-such-file")));
        assert!(outside(files.read("../outside/m/runway.yaml")));
        assert_eq!(files.read("members/alias/runway.yaml").unwrap(), b"runway: 3\n");
        assert_eq!(files.read("members/none/runway.yaml"), Err(Unread::Missing));
    }

    #[test]
    fn globs_never_walk_through_a_link_so_they_neither_loop_nor_list_outside() {
        let t = Tree::new("walk");
        let root = t.0.join("root");
        symlink(".", root.join("members/loop")).unwrap();
        symlink("/", root.join("slash")).unwrap();
        std::fs::create_dir_all(root.join("deep/a/b")).unwrap();
        let files = t.files();
        // `**` under a folder holding a link to itself ends, and finds the real folders.
        assert_eq!(member_folders(&files, "**/b"), ["deep/a/b"]);
        assert_eq!(member_folders(&files, "members/**/zz"), Vec::<String>::new());
        // The link itself is a match (its reading is then refused); nothing under it is listed.
        assert_eq!(member_folders(&files, "slash/*"), Vec::<String>::new());
        assert!(member_folders(&files, "*").contains(&"slash".to_owned()));
        assert!(outside(files.read("slash/runway.yaml")));
        assert_eq!(member_folders(&files, "members/*"), ["members/a", "members/loop"]);
        assert_eq!(member_folders(&files, "deep/../members/a"), ["members/a"]);
        // However it is called, a walk never climbs above the root's folder.
        assert_eq!(member_folders(&files, "../*"), Vec::<String>::new());
        assert_eq!(member_folders(&files, "**/../*").iter().filter(|f| f.starts_with("..")).count(), 0);
    }

    #[test]
    fn a_named_file_may_not_lead_outside_the_folder_it_is_named_from() {
        let t = Tree::new("named");
        let root = t.0.join("root");
        symlink(t.0.join("outside/m/runway.yaml"), root.join("linked.yaml")).unwrap();
        assert!(outside(read_named(&root.join("linked.yaml"), 1000)));
        assert_eq!(read_named(&root.join("members/a/runway.yaml"), 1000).unwrap(), b"runway: 3\n");
        let missing = read_named(&root.join("none.yaml"), 1000);
        assert!(matches!(missing, Err(Unread::Failed(m)) if m.contains("No such file")), "in the OS's words");
    }

    #[test]
    fn reads_are_bounded_and_only_of_regular_files() {
        let t = Tree::new("bounds");
        let root = t.0.join("root");
        std::fs::write(root.join("big.yaml"), vec![b'#'; 101]).unwrap();
        assert!(
            matches!(read_bounded(&root.join("big.yaml"), 100), Err(Unread::Failed(m)) if m.contains("100"))
        );
        assert_eq!(read_bounded(&root.join("big.yaml"), 101).unwrap().len(), 101);
        assert!(
            matches!(t.files().catalogue_text("members"), Err(Unread::Failed(m)) if m.contains("regular"))
        );
        let missing = t.files().catalogue_text("nope.yaml");
        assert!(matches!(missing, Err(Unread::Failed(m)) if m.contains("No such file")), "in the OS's words");
    }
}
