#![allow(clippy::unwrap_used)] // reason: test helpers fail loudly
//! A runway file from a pull request, as an attacker would write it: every path it names that
//! leaves the root's folder is refused with a diagnostic, and neither a canary environment
//! variable nor an outside file's content reaches stdout or stderr of any command that reads
//! runway files (`check`, `plan`, `cost`, `diff --base-ref` in every format).

use std::os::unix::fs::symlink;
use std::path::Path;

use crate::common::{Run, git, repo_command};
use test_support::{copy_dir, example, scratch};

/// The canary: set in the environment of every run, and written in every outside file.
const CANARY: &str = "canary-7d1f-do-not-print";

/// Every reading command's run: exit code and everything it printed, stdout then stderr.
struct Ran {
    code: i32,
    all: String,
}

fn runway(dir: &Path, args: &[&str]) -> Ran {
    let run = Run::of(repo_command(dir).args(args).env("RUNWAY_TEST_CANARY", CANARY));
    Ran { code: run.code, all: format!("{}{}", run.stdout, run.stderr) }
}

/// A copy of the example under `<scratch>/repo`, with an outside folder beside it holding the
/// canary in a file and in a member runway.
fn product(name: &str) -> (test_support::Scratch, std::path::PathBuf) {
    let s = scratch(name);
    let repo = s.path().join("repo");
    copy_dir(&example("acme-shop"), &repo);
    let outside = s.path().join("outside");
    std::fs::create_dir_all(outside.join("member")).unwrap();
    std::fs::write(outside.join("secret.txt"), format!("TOKEN={CANARY}\n")).unwrap();
    std::fs::write(outside.join("prices.yaml"), format!("regions: {{}}\n# {CANARY}\n")).unwrap();
    std::fs::write(outside.join("member/runway.yaml"), format!("runway: 3\nmember: {CANARY}\n")).unwrap();
    (s, repo)
}

/// The root with `line` added after `product:` (and `members:` replaced when it is given).
fn set_root(repo: &Path, line: &str, members: Option<&str>) {
    let path = repo.join("runway.yaml");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text = text.replacen("product: acme-shop\n", &format!("product: acme-shop\n{line}\n"), 1);
    if let Some(m) = members {
        text = text.replacen("members: [\"services/*\", \"tools/*\"]", &format!("members: {m}"), 1);
    }
    std::fs::write(path, text).unwrap();
}

/// Runs every reading command on the root and checks each for the code and for no leak.
fn refused_everywhere(repo: &Path, code: &str) {
    for args in [
        vec!["check", "runway.yaml"],
        vec!["check", "--format", "json", "runway.yaml"],
        vec!["plan", "--env", "dev", "runway.yaml"],
        vec!["plan", "--env", "dev", "--format", "json", "runway.yaml"],
        vec!["cost", "runway.yaml"],
        vec!["graph", "--env", "dev", "runway.yaml"],
    ] {
        let run = runway(repo, &args);
        assert_eq!(run.code, 1, "{args:?}: {}", run.all);
        assert!(run.all.contains(code), "{args:?}: expected `{code}`\n{}", run.all);
        assert_no_leak(&run.all, &format!("{args:?}"));
    }
}

fn assert_no_leak(all: &str, what: &str) {
    assert!(!all.contains(CANARY), "{what} printed the canary:\n{all}");
    for outside in ["root:x:0:0", "TOKEN=", "RUNWAY_TEST_CANARY", "\0"] {
        assert!(!all.contains(outside), "{what} printed `{outside:?}`:\n{all}");
    }
}

#[test]
fn a_catalogue_naming_the_process_environment_is_refused_unread() {
    let (_s, repo) = product("untrusted-environ");
    set_root(&repo, "catalogue: /proc/self/environ", None);
    refused_everywhere(&repo, "outside-root");
}

#[test]
fn absolute_and_climbing_catalogue_paths_are_refused() {
    for (i, path) in [
        "../../../../../../etc/passwd",
        "../outside/secret.txt",
        "/etc/passwd",
        "~/x.yaml",
        "a/../../outside/prices.yaml",
    ]
    .into_iter()
    .enumerate()
    {
        let (_s, repo) = product(&format!("untrusted-path-{i}"));
        set_root(&repo, &format!("catalogue: \"{path}\""), None);
        refused_everywhere(&repo, "outside-root");
    }
}

#[test]
fn a_symlink_to_a_folder_outside_is_not_followed() {
    let (s, repo) = product("untrusted-symlink");
    symlink(s.path().join("outside"), repo.join("etc-link")).unwrap();
    set_root(&repo, "catalogue: etc-link/prices.yaml", None);
    refused_everywhere(&repo, "outside-root");
    // A link to a file outside, too.
    let (s, repo) = product("untrusted-symlink-file");
    symlink(s.path().join("outside/prices.yaml"), repo.join("prices.yaml")).unwrap();
    set_root(&repo, "catalogue: prices.yaml", None);
    refused_everywhere(&repo, "outside-root");
}

#[test]
fn a_link_that_stays_inside_the_root_is_followed() {
    let (_s, repo) = product("untrusted-inside-link");
    std::fs::create_dir_all(repo.join("prices")).unwrap();
    std::fs::write(repo.join("prices/real.yaml"), "regions: {}\n").unwrap();
    symlink("prices/real.yaml", repo.join("prices.yaml")).unwrap();
    set_root(&repo, "catalogue: prices.yaml", None);
    let run = runway(&repo, &["check", "runway.yaml"]);
    assert_eq!(run.code, 0, "{}", run.all);
}

#[test]
fn member_globs_and_member_links_that_escape_are_refused() {
    let (_s, repo) = product("untrusted-members");
    set_root(&repo, "", Some("[\"services/*\", \"../outside/*\", \"/etc/*\"]"));
    refused_everywhere(&repo, "outside-root");

    let (s, repo) = product("untrusted-member-link");
    symlink(s.path().join("outside/member"), repo.join("services/evil")).unwrap();
    refused_everywhere(&repo, "outside-root");
    // A folder linked to a place outside is refused whether or not a runway.yaml is there.
    std::fs::remove_file(repo.join("services/evil")).unwrap();
    symlink("/etc", repo.join("services/evil")).unwrap();
    refused_everywhere(&repo, "outside-root");
}

#[test]
fn a_file_that_is_not_a_catalogue_or_runway_file_is_refused_unquoted() {
    // A file inside the repository that CI wrote, holding a token (as `actions/checkout`
    // leaves one in `.git/config`).
    let (_s, repo) = product("untrusted-foreign");
    std::fs::create_dir_all(repo.join(".ci-state")).unwrap();
    let config = format!("[http]\n\textraheader = AUTHORIZATION: basic {CANARY}\n[core]\n\tbare = false\n");
    std::fs::write(repo.join(".ci-state/config"), config).unwrap();
    set_root(&repo, "catalogue: .ci-state/config", None);
    refused_everywhere(&repo, "catalogue-file");
    let run = runway(&repo, &["check", "runway.yaml"]);
    assert!(run.all.contains("is not a catalogue file"), "{}", run.all);

    // The root itself, linked to the process environment by the pull request.
    let (_s, repo) = product("untrusted-root-link");
    std::fs::remove_file(repo.join("runway.yaml")).unwrap();
    symlink("/proc/self/environ", repo.join("runway.yaml")).unwrap();
    let run = runway(&repo, &["check", "runway.yaml"]);
    assert_eq!(run.code, 2, "{}", run.all);
    assert!(run.all.contains("leads outside the folder it is named from"), "{}", run.all);
    assert_no_leak(&run.all, "check of a root linked to the environment");

    // A member runway linked to a file inside the repository that is not a runway file.
    let (_s, repo) = product("untrusted-member-foreign");
    std::fs::write(repo.join("notes.txt"), format!("key: {CANARY}\nline two\n")).unwrap();
    std::fs::remove_file(repo.join("services/orders/runway.yaml")).unwrap();
    symlink("../../notes.txt", repo.join("services/orders/runway.yaml")).unwrap();
    let run = runway(&repo, &["check", "runway.yaml"]);
    assert_eq!(run.code, 1, "{}", run.all);
    assert!(run.all.contains("is not a runway file"), "{}", run.all);
    assert_no_leak(&run.all, "check of a member linked to a foreign file");
}

#[test]
fn diff_base_ref_follows_no_link_committed_in_git() {
    let (s, repo) = product("untrusted-git");
    git(&repo, &["init", "-q", "-b", "main"]);
    // The base commit carries the attack: a member folder and a member file linked outside,
    // and a catalogue path to the environment.
    symlink(s.path().join("outside/member"), repo.join("services/evil")).unwrap();
    std::fs::remove_file(repo.join("services/billing/runway.yaml")).unwrap();
    symlink("/proc/self/environ", repo.join("services/billing/runway.yaml")).unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "base"]);
    let base = runway(&repo, &["check", "runway.yaml"]);
    assert_no_leak(&base.all, "check of the linked working tree");
    // The working tree is clean again; only the base holds the links.
    std::fs::remove_file(repo.join("services/evil")).unwrap();
    std::fs::remove_file(repo.join("services/billing/runway.yaml")).unwrap();
    copy_dir(&example("acme-shop").join("services/billing"), &repo.join("services/billing"));
    for format in ["text", "json", "markdown"] {
        let run = runway(&repo, &["diff", "--base-ref", "HEAD", "--format", format, "runway.yaml"]);
        assert_eq!(run.code, 1, "{format}: {}", run.all);
        assert!(
            run.all.contains("outside-root") && run.all.contains("symbolic link in git"),
            "{format}: {}",
            run.all
        );
        assert!(
            run.all.contains("services/evil") && run.all.contains("services/billing/runway.yaml"),
            "{}",
            run.all
        );
        assert_no_leak(&run.all, &format!("diff --base-ref --format {format}"));
    }

    // A root file that is a link at the base revision is refused as a usage error.
    std::fs::rename(repo.join("runway.yaml"), repo.join("real.yaml")).unwrap();
    symlink("/proc/self/environ", repo.join("runway.yaml")).unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "root is a link"]);
    std::fs::remove_file(repo.join("runway.yaml")).unwrap();
    std::fs::rename(repo.join("real.yaml"), repo.join("runway.yaml")).unwrap();
    let run = runway(&repo, &["diff", "--base-ref", "HEAD", "--format", "markdown", "runway.yaml"]);
    assert_eq!(run.code, 2, "{}", run.all);
    assert!(run.all.contains("is a symbolic link at the base revision"), "{}", run.all);
    assert_no_leak(&run.all, "diff --base-ref of a linked root");
}

#[test]
fn a_catalogue_over_its_size_bound_is_refused_without_reading_it_all() {
    let (_s, repo) = product("untrusted-big");
    let big = format!("regions: {{}}\n{}", "# padding\n".repeat(cost::MAX_CATALOGUE_BYTES / 10 + 1));
    std::fs::write(repo.join("prices.yaml"), big).unwrap();
    set_root(&repo, "catalogue: prices.yaml", None);
    let run = runway(&repo, &["check", "runway.yaml"]);
    assert_eq!(run.code, 1, "{}", run.all);
    assert!(run.all.contains("catalogue-file") && run.all.contains("over the limit"), "{}", run.all);
}

#[test]
fn a_root_or_catalogue_named_on_the_command_line_may_not_lead_outside() {
    // The pull request turns the root the job names into a link to a runway file outside.
    let (s, repo) = product("untrusted-root-out");
    std::fs::remove_file(repo.join("runway.yaml")).unwrap();
    symlink(s.path().join("outside/member/runway.yaml"), repo.join("runway.yaml")).unwrap();
    for args in
        [vec!["check", "runway.yaml"], vec!["plan", "--env", "dev", "--format", "json", "runway.yaml"]]
    {
        let run = runway(&repo, &args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.all);
        assert!(run.all.contains("leads outside the folder it is named from"), "{}", run.all);
        assert_no_leak(&run.all, &format!("{args:?}"));
    }
    // Or a folder on the root's path.
    let (s, repo) = product("untrusted-root-folder-out");
    symlink(s.path().join("outside/member"), repo.join("app")).unwrap();
    let run = runway(&repo, &["check", "app/runway.yaml"]);
    assert_eq!(run.code, 2, "{}", run.all);
    assert_no_leak(&run.all, "check app/runway.yaml");
    // `--catalogue FILE` is the job's choice, but the file is the pull request's.
    let (s, repo) = product("untrusted-flag-out");
    symlink(s.path().join("outside/prices.yaml"), repo.join("prices.yaml")).unwrap();
    let run = runway(&repo, &["check", "--catalogue", "prices.yaml", "runway.yaml"]);
    assert_eq!(run.code, 2, "{}", run.all);
    assert_no_leak(&run.all, "check --catalogue");
}

#[test]
fn an_excerpt_is_never_drawn_through_a_link_leading_outside() {
    // The base's member is invalid; the working tree puts a link to an outside runway file
    // where that member was, hoping the base's diagnostic quotes it.
    let (s, repo) = product("untrusted-excerpt");
    let member = repo.join("services/billing/runway.yaml");
    let text = std::fs::read_to_string(&member).unwrap();
    std::fs::write(&member, format!("{text}bogus: 1\n")).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "base with an invalid member"]);
    // The canary on the very line the base's diagnostic points at, and around it.
    let line = text.lines().count() + 1;
    // Long enough lines that the diagnostic's byte offset falls inside this file too.
    let padding = format!("# {}\n", "-".repeat(78)).repeat(line - 3);
    let outside = format!("runway: 3\n{padding}x: {CANARY}\nbogus: {CANARY}\ny: {CANARY}\n");
    std::fs::write(s.path().join("outside/member/runway.yaml"), outside).unwrap();
    std::fs::remove_file(&member).unwrap();
    symlink(s.path().join("outside/member/runway.yaml"), &member).unwrap();
    // The working version no longer reads that folder, so it is valid and the base is read.
    set_root(&repo, "", Some("[\"services/orders\", \"tools/*\"]"));
    let run = runway(&repo, &["diff", "--base-ref", "HEAD", "runway.yaml"]);
    assert!(run.all.contains("bogus"), "the base's own diagnostic is shown: {}", run.all);
    // Named as of the revision, so it is never taken for today's file of that path.
    assert!(run.all.contains(":services/billing/runway.yaml:"), "{}", run.all);
    assert_ne!(run.code, 0, "{}", run.all);
    assert_no_leak(&run.all, "diff --base-ref with a linked member");
}
