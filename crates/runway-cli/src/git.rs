//! The runway files as of a git revision, read with the git CLI (docs/review.md says why).
//!
//! Three commands, all local: `git rev-parse` (the repository, the file's folder in it, the
//! commit), `git ls-tree` (the files under the root's folder at that commit) and one
//! `git cat-file --batch` for every `runway.yaml` among them.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read as _, Write as _};
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use runway_schema::{Files, Folder, Unread};

/// Why the base could not be read from git.
#[derive(Debug, thiserror::Error)]
pub(crate) enum GitError {
    /// `git` could not be started.
    #[error("cannot run git (is it installed and on PATH?): {0}")]
    NotRunnable(std::io::Error),
    /// The file's folder is not inside a git work tree.
    #[error("{} is not inside a git repository ({detail}); --base-ref needs one, or use --base FILE", path.display())]
    NotInRepository {
        /// The root file as given.
        path: PathBuf,
        /// What git said.
        detail: String,
    },
    /// The revision names no commit.
    #[error("unknown revision `{rev}` in the repository of {} ({detail})", path.display())]
    UnknownRevision {
        /// The revision as given.
        rev: String,
        /// The root file as given.
        path: PathBuf,
        /// What git said.
        detail: String,
    },
    /// The root file is a symbolic link at the revision.
    #[error("{path} is a symbolic link at the base revision; runway follows no link from a revision")]
    RootIsLink {
        /// The root file's path in the repository.
        path: String,
    },
    /// Another git command failed.
    #[error("git {command} failed: {detail}")]
    Failed {
        /// The command (`ls-tree`, `cat-file`).
        command: &'static str,
        /// What git said.
        detail: String,
    },
}

/// A git command in `dir`, never fetching: a partial clone's missing object is an error, not a
/// download (the `diff` command makes no network call).
fn git(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C").arg(dir).env("GIT_NO_LAZY_FETCH", "1").env("GIT_TERMINAL_PROMPT", "0");
    c
}

/// Runs `command`; its stdout, or its stderr's first line.
fn run(mut command: Command) -> Result<Result<Vec<u8>, String>, GitError> {
    let out = command.stdin(Stdio::null()).output().map_err(GitError::NotRunnable)?;
    if out.status.success() {
        return Ok(Ok(out.stdout));
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let first = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("no message").trim().to_owned();
    Ok(Err(first))
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8_lossy(&bytes).trim_end_matches(['\n', '\r']).to_owned()
}

/// A root file's place in a repository at one commit.
#[derive(Clone, Debug)]
pub(crate) struct Revision {
    /// The repository's top folder.
    top: PathBuf,
    /// The root file's folder relative to `top`, `/`-separated, empty or ending in `/`.
    prefix: String,
    /// The root file's name.
    file_name: String,
    /// The full commit id.
    pub commit: String,
}

impl Revision {
    /// Finds the repository holding `file` and the commit `rev` names there.
    pub(crate) fn resolve(file: &Path, rev: &str) -> Result<Self, GitError> {
        let dir = match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut c = git(&dir);
        c.args(["rev-parse", "--show-toplevel", "--show-prefix"]);
        let out = run(c)?.map_err(|detail| GitError::NotInRepository { path: file.to_path_buf(), detail })?;
        let out = text(out);
        let mut lines = out.lines();
        let top = PathBuf::from(lines.next().unwrap_or_default());
        let prefix = lines.next().unwrap_or_default().to_owned();
        let mut c = git(&top);
        // `--end-of-options`: a revision that starts with `-` is a revision, not an option.
        c.args(["rev-parse", "--verify", "--end-of-options"]).arg(format!("{rev}^{{commit}}"));
        let commit = run(c)?.map_err(|detail| GitError::UnknownRevision {
            rev: rev.to_owned(),
            path: file.to_path_buf(),
            detail,
        })?;
        let file_name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        Ok(Self { top, prefix, file_name, commit: text(commit) })
    }

    /// The root file's name in diagnostics: `<short commit>:<path in the repository>` (no
    /// file of that name exists, so no snippet of today's text is shown for the base's lines).
    pub(crate) fn display_name(&self) -> String {
        let short: String = self.commit.chars().take(12).collect();
        format!("{short}:{}{}", self.prefix, self.file_name)
    }

    /// The root file's bytes and its folder's files at the commit; `None` when the root file
    /// does not exist there.
    pub(crate) fn snapshot(&self) -> Result<Option<(Vec<u8>, GitFiles)>, GitError> {
        let mut c = git(&self.top);
        c.args(["--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", &self.commit]);
        if !self.prefix.is_empty() {
            c.arg("--").arg(&self.prefix);
        }
        let listing = run(c)?.map_err(|detail| GitError::Failed { command: "ls-tree", detail })?;
        let mut folders = BTreeSet::new();
        let mut links = BTreeSet::new();
        let mut wanted = Vec::new();
        // `<mode> <type> <object>\t<path>` per entry.
        for entry in listing.split(|b| *b == 0).filter(|p| !p.is_empty()) {
            let entry = String::from_utf8_lossy(entry);
            let Some((meta, path)) = entry.split_once('\t') else { continue };
            let Some(rel) = path.strip_prefix(self.prefix.as_str()) else { continue };
            let mut dir = rel;
            while let Some(i) = dir.rfind('/') {
                dir = &dir[..i];
                folders.insert(dir.to_owned());
            }
            if meta.starts_with("120000 ") {
                // A symbolic link is a blob of its target's path: never followed, never read.
                links.insert(rel.to_owned());
                continue;
            }
            if rel == self.file_name || rel.ends_with("/runway.yaml") {
                // By object id: a path may hold a newline, which the batch protocol would read
                // as the end of one request and the start of another.
                let oid = meta.rsplit(' ').next().unwrap_or_default();
                wanted.push((rel.to_owned(), oid.to_owned()));
            }
        }
        if links.contains(&self.file_name) {
            return Err(GitError::RootIsLink { path: format!("{}{}", self.prefix, self.file_name) });
        }
        let mut blobs = self.read_blobs(&wanted)?;
        let Some(root) = blobs.remove(&self.file_name) else { return Ok(None) };
        Ok(Some((root, GitFiles { folders, links, blobs })))
    }

    /// Reads the files at the commit with one `git cat-file --batch`.
    fn read_blobs(&self, wanted: &[(String, String)]) -> Result<BTreeMap<String, Vec<u8>>, GitError> {
        let failed = |detail: String| GitError::Failed { command: "cat-file", detail };
        let mut child = git(&self.top)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(GitError::NotRunnable)?;
        let requests: String = wanted.iter().map(|(_, oid)| format!("{oid}\n")).collect();
        let rel: Vec<String> = wanted.iter().map(|(r, _)| r.clone()).collect();
        let mut stdin = child.stdin.take().ok_or_else(|| failed("no stdin".into()))?;
        // Written from a thread: git answers while it reads, and a full stdout pipe would stop
        // it reading, and us writing, for good.
        let writer = std::thread::spawn(move || stdin.write_all(requests.as_bytes()));
        let mut out = Vec::new();
        let mut stdout = child.stdout.take().ok_or_else(|| failed("no stdout".into()))?;
        stdout.read_to_end(&mut out).map_err(|e| failed(e.to_string()))?;
        let written = writer.join().map_err(|_| failed("the writer thread panicked".into()))?;
        let status = child.wait().map_err(|e| failed(e.to_string()))?;
        written.map_err(|e| failed(e.to_string()))?;
        if !status.success() {
            let mut err = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut err);
            }
            return Err(failed(err.trim().to_owned()));
        }
        parse_batch(&rel, &out).map_err(failed)
    }
}

/// Splits `git cat-file --batch` output (`<oid> blob <size>\n<bytes>\n` per object, or
/// `<name> missing\n`) into the files asked for, in order.
fn parse_batch(rel: &[String], mut out: &[u8]) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut blobs = BTreeMap::new();
    for name in rel {
        let end = out.iter().position(|b| *b == b'\n').ok_or("a header is cut short")?;
        let header = String::from_utf8_lossy(&out[..end]).into_owned();
        out = &out[end + 1..];
        if header.ends_with(" missing") || header.ends_with(" ambiguous") {
            continue; // the file is absent, as `Files::read` says
        }
        // `<oid> <type> <size>`: an object's header holds no name, so no space but these two.
        let mut words = header.rsplitn(3, ' ');
        let (size, kind) = (words.next(), words.next());
        let size = size.and_then(|s| s.parse::<usize>().ok()).ok_or("an unreadable header")?;
        let body = out.get(..size).ok_or("an object is cut short")?;
        if kind == Some("blob") {
            blobs.insert(name.clone(), body.to_vec());
        }
        out = out.get(size + 1..).unwrap_or_default();
    }
    Ok(blobs)
}

/// Member folders and files under the root's folder at a commit.
#[derive(Clone, Debug, Default)]
pub(crate) struct GitFiles {
    /// Every folder holding a file, relative to the root's folder.
    folders: BTreeSet<String>,
    /// Every symbolic link, relative to the root's folder.
    links: BTreeSet<String>,
    /// Every `runway.yaml`, relative to the root's folder.
    blobs: BTreeMap<String, Vec<u8>>,
}

impl GitFiles {
    /// The symbolic link on the way to `path` (itself or a folder above it), if any.
    fn link_on_way(&self, path: &str) -> Option<&str> {
        let mut at = path;
        loop {
            if let Some(link) = self.links.get(at) {
                return Some(link);
            }
            at = &at[..at.rfind('/')?];
        }
    }
}

impl Files for GitFiles {
    fn folders(&self, folder: &str) -> Vec<Folder> {
        let prefix = if folder.is_empty() { String::new() } else { format!("{folder}/") };
        // Direct children only, from the paths under `folder` (a range, not a scan of the whole
        // revision); a link is listed (flagged) so that reading it is refused out loud.
        let under = |set: &BTreeSet<String>| -> Vec<String> {
            set.range::<str, _>((Bound::Excluded(prefix.as_str()), Bound::Unbounded))
                .take_while(|f| f.starts_with(&prefix))
                .filter_map(|f| f.strip_prefix(&prefix))
                .filter(|c| !c.is_empty() && !c.contains('/'))
                .map(str::to_owned)
                .collect()
        };
        let plain = under(&self.folders).into_iter().map(Folder::plain);
        let links = under(&self.links).into_iter().map(|name| Folder { name, link: true });
        plain.chain(links).collect()
    }

    fn read(&self, path: &str) -> Result<Vec<u8>, Unread> {
        if let Some(link) = self.link_on_way(path) {
            return Err(Unread::Outside(format!(
                "`{link}` is a symbolic link in git, and runway follows no link from a revision"
            )));
        }
        self.blobs.get(path).cloned().ok_or(Unread::Missing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use runway_schema::member_folders;

    #[test]
    fn a_batch_answer_splits_into_its_files() {
        let rel = ["a/runway.yaml".to_owned(), "b/runway.yaml".to_owned(), "c/runway.yaml".to_owned()];
        let out = b"1111 blob 3\nx\ny\nabc:b/runway.yaml missing\n2222 blob 0\n\n";
        let blobs = parse_batch(&rel, out).unwrap_or_default();
        assert_eq!(blobs.get("a/runway.yaml").map(Vec::as_slice), Some(&b"x\ny"[..]));
        assert_eq!(blobs.get("b/runway.yaml"), None);
        assert_eq!(blobs.get("c/runway.yaml").map(Vec::as_slice), Some(&b""[..]));
    }

    #[test]
    fn member_folders_match_one_segment_per_star() {
        let files = GitFiles {
            folders: ["services", "services/orders", "services/orders/src", "tools", "tools/x"]
                .map(str::to_owned)
                .into_iter()
                .collect(),
            links: BTreeSet::new(),
            blobs: BTreeMap::new(),
        };
        assert_eq!(member_folders(&files, "services/*"), ["services/orders"]);
        assert_eq!(member_folders(&files, "services/*/"), ["services/orders"]);
        assert_eq!(member_folders(&files, "*/*"), ["services/orders", "tools/x"]);
        assert_eq!(member_folders(&files, "**/src"), ["services/orders/src"]);
    }
}
