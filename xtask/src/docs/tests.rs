//! The docs check's readers, on texts of their own and a CLI of canned help texts; and the
//! repository's docs against the path rule (the command rule needs the built binary: `cargo
//! xtask docs`).

use super::*;

/// A CLI of two levels, as clap prints its help.
fn canned(path: &[String]) -> Result<String, String> {
    match path.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        [] => Ok("Plan\n\nUsage: runway <COMMAND>\n\nCommands:\n  plan     The plan\n  secrets  Deploy \
                  job: generate credentials\n  help     Print this message\n\nOptions:\n  -h, --help     \
                  Print help\n  -V, --version  Print version\n"
            .to_owned()),
        ["plan"] => Ok("The plan\n\nUsage: runway plan [OPTIONS] --env <ENV> [ROOT]\n\nArguments:\n  \
                        [ROOT]  A root runway file\n\nOptions:\n      --env <ENV>        The environment\n      \
                        --format <FORMAT>  [default: text]\n  -h, --help  Print help\n"
            .to_owned()),
        ["secrets"] => Ok("Deploy job\n\nUsage: runway secrets <COMMAND>\n\nCommands:\n  prepare  Generate\n  \
                           publish  Write\n  help     Print\n\nOptions:\n  -h, --help  Print help\n"
            .to_owned()),
        ["secrets", "prepare" | "publish"] => {
            Ok("Generate\n\nUsage: runway secrets prepare --env <ENV>\n\nOptions:\n      --env <ENV>  The \
                environment\n      --dry-run  Say only\n"
                .to_owned())
        }
        other => Err(format!("no help for {other:?}")),
    }
}

#[test]
fn help_gives_subcommands_and_options() {
    let help = Help::parse(&canned(&[]).unwrap());
    assert_eq!(help.subcommands.iter().map(String::as_str).collect::<Vec<_>>(), ["help", "plan", "secrets"]);
    assert_eq!(help.options.iter().map(String::as_str).collect::<Vec<_>>(), ["--help", "--version"]);
    let plan = Help::parse(&canned(&["plan".to_owned()]).unwrap());
    assert!(plan.subcommands.is_empty());
    assert_eq!(plan.options.iter().map(String::as_str).collect::<Vec<_>>(), ["--env", "--format", "--help"]);
}

#[test]
fn a_command_line_parses_or_says_what_is_wrong() {
    let mut cli = Cli::new(canned);
    for ok in [
        "plan --env dev examples/acme-shop/runway.yaml",
        "plan --env=dev --format json",
        "secrets prepare --env ENV [--dry-run]",
        "secrets publish --env dev | head -1",
        "secrets publish --env dev <(pulumi stack output --json --show-secrets)",
        "--help",
        "ENV", // a placeholder, not a command
    ] {
        assert_eq!(cli.check(ok), None, "{ok}");
    }
    let unknown = cli.check("deploy --env dev").expect("not a command");
    assert!(
        unknown.contains("`deploy` is not a runway command (runway has help, plan, secrets)"),
        "{unknown}"
    );
    let option = cli.check("plan --environment dev").expect("not an option");
    assert!(option.contains("`runway plan` takes no `--environment`"), "{option}");
    let deeper = cli.check("secrets prepare --outputs out.json").expect("not an option of prepare");
    assert!(deeper.contains("`runway secrets prepare` takes no `--outputs`"), "{deeper}");
}

#[test]
fn spans_and_command_lines_are_found_with_their_lines() {
    let text = "A `docs/a.md` and a span\nacross `runway plan\n--env dev` lines.\n\n```sh\n\
                target/release/runway plan --env dev x.yaml   # a comment\nrunway secrets prepare \\\n  \
                --env dev\necho `not a span`\n```\n\n```yaml\n      - run: runway secrets publish --env dev\n\
                runway: 3\n```\n";
    let shown = shown(text);
    assert_eq!(
        shown.spans,
        [(1, "docs/a.md".to_owned()), (2, "runway plan --env dev".to_owned())],
        "a span across lines is joined; code blocks hold none"
    );
    assert_eq!(
        shown.commands,
        [
            (6, "plan --env dev x.yaml  ".to_owned()),
            (7, "secrets prepare --env dev".to_owned()),
            (13, "secrets publish --env dev".to_owned()),
        ]
    );
}

#[test]
fn only_repository_paths_are_checked() {
    let tracked: BTreeSet<String> =
        ["crates", "docs", "README.md", ".ci"].into_iter().map(str::to_owned).collect();
    for (span, path) in [
        ("crates/runway-cli/src/main.rs", Some("crates/runway-cli/src/main.rs")),
        ("crates/runway-cli/src/main.rs:42", Some("crates/runway-cli/src/main.rs")),
        ("docs/pipeline.md#rotation", Some("docs/pipeline.md")),
        ("runway-v3.md", Some("runway-v3.md")),
        ("shared/spec/infisical-api.md", Some("shared/spec/infisical-api.md")),
        (".ci/run", Some(".ci/run")),
        ("README.md", Some("README.md")),
        ("runway.yaml", None),
        ("build/dev", None),
        ("target/release/runway", None),
        ("crates/<name>/src", None),
        ("/runtime/{resource}", None),
        ("arn:aws:acm:...", None),
        ("https://example.com/x.md", None),
        ("runway check", None),
    ] {
        assert_eq!(repository_path(span, &tracked).as_deref(), path, "{span}");
    }
}

#[test]
fn a_missing_path_is_a_finding_at_its_line() {
    let root = root();
    let mut cli = Cli::new(canned);
    let text = "# Doc\n\nSee `docs/pipeline.md` and\n`docs/no-such-doc.md`, and `runway-v3.md`.\n";
    let found = check_doc(&root, "docs/x.md", text, &mut cli);
    let lines: Vec<(usize, &str)> = found.iter().map(|f| (f.line, f.message.as_str())).collect();
    assert_eq!(found.len(), 2, "{lines:?}");
    assert_eq!((found[0].line, found[1].line), (4, 4));
    assert!(found[0].message.starts_with("`docs/no-such-doc.md` is not in the repository"), "{lines:?}");
    assert!(found[1].to_string().starts_with("docs/x.md:4: [docs] `runway-v3.md` is not in the repository"));
}

/// The repository's docs name only paths it holds (their commands: `cargo xtask docs`).
#[test]
fn the_docs_name_only_paths_the_repository_holds() {
    let root = root();
    let tracked = tracked_tops(&root);
    assert!(tracked.contains("crates") && tracked.contains("docs"), "{tracked:?}");
    let mut found = Vec::new();
    for doc in doc_files(&root).unwrap() {
        let text = std::fs::read_to_string(root.join(&doc)).unwrap();
        found.extend(check_paths(&root, &doc, &shown(&text), &tracked));
    }
    let text: Vec<String> = found.iter().map(ToString::to_string).collect();
    assert!(found.is_empty(), "`cargo xtask docs` finds:\n{}", text.join("\n"));
}
