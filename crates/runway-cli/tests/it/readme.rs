//! The README's runway commands, run as written (with this build's binary in place of
//! `target/release/runway` and of `cargo run --release -p runway-cli --`), from a scratch
//! checkout that holds the example and a git history with `origin/main`. The costly ones stay
//! out: `cargo xtask ci` is what CI runs, and the release build is the same code.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use crate::common;

use crate::common::git;

use test_support::{copy_dir, example, scratch, workspace};

/// How the README starts a runway command.
const STARTS: [&str; 2] = ["target/release/runway ", "cargo run --release -p runway-cli -- "];

/// The runway commands of the README's `sh` blocks, as argument lists, trailing comments cut.
fn readme_commands() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let mut in_sh = false;
    let mut commands = Vec::new();
    for line in readme.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        let Some(rest) = in_sh.then(|| STARTS.iter().find_map(|s| line.strip_prefix(s))).flatten() else {
            continue;
        };
        let words = rest.split(" #").next().unwrap_or_default();
        commands.push(words.split_whitespace().map(str::to_owned).collect());
    }
    commands
}

#[test]
fn the_readme_commands_run_as_written() {
    let commands = readme_commands();
    let named: Vec<&str> = commands.iter().map(|c| c[0].as_str()).collect();
    for wanted in ["plan", "check", "cost", "graph", "emit", "diff", "catalogue"] {
        assert!(named.contains(&wanted), "the README shows no `{wanted}` command: {named:?}");
    }

    // A checkout of its own: `emit` writes under build/, `diff --base-ref origin/main` reads git.
    let dir = scratch("readme-commands");
    copy_dir(&example("acme-shop"), &dir.join("examples/acme-shop"));
    git(&dir, &["init", "-q", "-b", "main"]);
    git(&dir, &["add", "."]);
    git(&dir, &["commit", "-q", "-m", "example"]);
    git(&dir, &["update-ref", "refs/remotes/origin/main", "HEAD"]);

    for args in &commands {
        let out = common::Run::of(common::command().args(args).current_dir(dir.path()));
        let (stdout, stderr) = (out.stdout, out.stderr);
        assert_eq!(out.code, 0, "runway {}:\n{stdout}{stderr}", args.join(" "));
        let wrote = args[0] == "emit" && dir.join("build/dev/Pulumi.yaml").is_file();
        assert!(!stdout.trim().is_empty() || wrote, "runway {} printed nothing", args.join(" "));
    }
}

/// The README's table of what the example costs holds what `runway cost` gives: an estimate,
/// a ceiling and a cap per environment, each as printed.
#[test]
fn the_readme_says_what_the_example_costs() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let file = example("acme-shop").join("runway.yaml");
    let out = common::Run::of(common::command().args(["cost", "--format", "json", file.to_str().unwrap()]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let cost: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let environments = cost["environments"].as_array().unwrap();
    assert_eq!(environments.len(), 3);
    for env in environments {
        let figure = |key: &str| format!("${}", env[key].as_str().unwrap());
        let row = format!(
            "| {} | {} | {} | {} |",
            env["name"].as_str().unwrap(),
            figure("monthly"),
            figure("ceiling"),
            figure("cap")
        );
        assert!(readme.contains(&row), "README.md lacks `{row}` (run `runway cost` on the example)");
        assert_eq!(env["verdict"], "within", "{env}");
    }
}
