//! `runway ci init --provider github`: the product's CI workflows, written from its runway
//! (the environments, their regions and deploy roles) into `.github/workflows/`. GitHub
//! Actions only for now; GitLab CI can come later as another `Provider` (docs/ci.md).

mod github;

use std::path::{Component, Path, PathBuf};

use clap::{Subcommand, ValueEnum};

use crate::output::{Exit, Out};
use crate::planning::{catalogue_for, load_valid};

/// CI files for the product's repository (`runway ci init --provider github`).
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: CiCommand,
}

impl crate::args::CommandArgs for Args {}

/// `runway ci ...`.
#[derive(Subcommand)]
pub(crate) enum CiCommand {
    /// Write the CI workflows: the pull-request job (check, preflight without AWS, the review
    /// as one comment kept up to date) and the deploy job (one per environment, each behind
    /// its GitHub environment, with the OIDC role `runway iam` prints). Never overwrites a
    /// file that differs without `--force` (docs/ci.md).
    Init(InitArgs),
}

/// The CI system the workflows are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Provider {
    /// GitHub Actions (`.github/workflows/`).
    Github,
}

/// `runway ci init`'s flags.
#[derive(clap::Args)]
pub(crate) struct InitArgs {
    /// The CI system.
    #[arg(long, value_enum)]
    provider: Provider,
    /// An environment the deploy workflow deploys, in the order given (repeat it); by
    /// default every environment of the runway, in its order. The pull-request job
    /// preflights the same ones.
    #[arg(long = "env", value_name = "ENV")]
    envs: Vec<String>,
    /// The branch whose pushes deploy.
    #[arg(long, default_value = "main")]
    branch: String,
    /// runway's git repository, which the jobs `cargo install` it from (by default the
    /// `repository` runway was built with, when it names one).
    #[arg(long, value_name = "URL")]
    runway_git: Option<String>,
    /// The commit (or tag) of runway the jobs install; by default the commit this runway was
    /// built from (`runway --version`).
    #[arg(long, value_name = "REV")]
    runway_rev: Option<String>,
    /// The folder the workflows are written into.
    #[arg(long, value_name = "DIR", default_value = ".github/workflows")]
    out: PathBuf,
    /// Overwrite a workflow that exists and differs.
    #[arg(long)]
    force: bool,
    /// The root runway file, relative to the repository's root (run this from there).
    #[arg(default_value = "runway.yaml")]
    file: PathBuf,
    /// A catalogue file that replaces or extends the built-in one (for loading the runway).
    #[arg(long)]
    catalogue: Option<PathBuf>,
}

/// Runs `runway ci ...`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    match &args.command {
        CiCommand::Init(args) => init(args, out),
    }
}

/// `runway ci init`: what each workflow file became (`wrote`, `unchanged`), or exit 2 naming
/// the files that differ when `--force` is not given (nothing is written then).
fn init(args: &InitArgs, out: Out) -> Result<(), Exit> {
    let inputs = inputs(args, out)?;
    let files = match args.provider {
        Provider::Github => github::workflows(&inputs),
    };
    let mut differ = Vec::new();
    for (name, text) in &files {
        let path = args.out.join(name);
        if let Ok(current) = std::fs::read_to_string(&path)
            && current != *text
        {
            differ.push(path.display().to_string());
        }
    }
    if !differ.is_empty() && !args.force {
        return Err(out.usage(format!(
            "{} exist{} and differ{}; nothing written (`--force` overwrites)",
            differ.join(", "),
            if differ.len() == 1 { "s" } else { "" },
            if differ.len() == 1 { "s" } else { "" },
        )));
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| out.usage(format!("cannot create {}: {e}", args.out.display())))?;
    for (name, text) in &files {
        let path = args.out.join(name);
        if std::fs::read_to_string(&path).is_ok_and(|current| current == *text) {
            outln!("unchanged {}", path.display());
            continue;
        }
        std::fs::write(&path, text)
            .map_err(|e| out.usage(format!("cannot write {}: {e}", path.display())))?;
        outln!("wrote     {}", path.display());
    }
    outln!(
        "next: for each environment ({}), a GitHub environment of that name with the variable \
         AWS_ACCOUNT_ID and the secrets the deploy job reads; the role from `runway iam --env ENV \
         --github-repo OWNER/NAME` (docs/ci.md)",
        inputs.targets.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")
    );
    Ok(())
}

/// The workflows' inputs from the flags and the runway, each checked to be safe to write
/// into YAML and a shell line.
fn inputs(args: &InitArgs, out: Out) -> Result<github::Inputs, Exit> {
    let file = repository_path(&args.file).ok_or_else(|| {
        out.usage(format!(
            "`{}`: give the root runway's path relative to the repository's root (letters, digits, \
             `.`, `_`, `-`, `/`; no `..`), and run `runway ci init` from there",
            args.file.display()
        ))
    })?;
    if !safe_word(&args.branch) {
        return Err(
            out.usage(format!("`{}` is not a branch name runway writes into a workflow", args.branch))
        );
    }
    let runway_git = args
        .runway_git
        .clone()
        .or_else(|| Some(env!("CARGO_PKG_REPOSITORY").to_owned()).filter(|r| !r.is_empty()))
        .ok_or_else(|| {
            out.usage("give `--runway-git URL`: the git repository the jobs install runway from")
        })?;
    if !safe_url(&runway_git) {
        return Err(out.usage(format!("`{runway_git}` is not a git URL runway writes into a workflow")));
    }
    let runway_rev = match &args.runway_rev {
        Some(rev) => rev.clone(),
        None => built_commit().ok_or_else(|| {
            out.usage(
                "this runway was built without a known commit: give `--runway-rev REV` (a commit or tag)",
            )
        })?,
    };
    if !safe_word(&runway_rev) {
        return Err(out.usage(format!("`{runway_rev}` is not a commit or tag name")));
    }
    let cat = catalogue_for(&args.file, args.catalogue.as_deref(), out)?;
    let (product, _) = load_valid(&args.file, &cat, out)?;
    let declared = &product.root.environments;
    let names: Vec<String> =
        if args.envs.is_empty() { declared.keys().cloned().collect() } else { args.envs.clone() };
    let mut targets = Vec::new();
    for name in names {
        let Some(env) = declared.get(&name) else {
            let known = declared.keys().cloned().collect::<Vec<_>>().join(", ");
            return Err(out.usage(format!("no environment `{name}` in {} (it declares {known})", file)));
        };
        if targets.iter().any(|t: &github::Target| t.name == name) {
            return Err(out.usage(format!("`--env {name}` is given twice")));
        }
        // The role's name as `runway iam` derives it (deploy-policy).
        let role = format!("runway-deploy-{}-{name}", product.root.product);
        targets.push(github::Target { name, region: env.region.clone(), role });
    }
    Ok(github::Inputs { file, targets, branch: args.branch.clone(), runway_git, runway_rev })
}

/// The commit `runway --version` prints, when known.
fn built_commit() -> Option<String> {
    let commit = env!("RUNWAY_COMMIT");
    (commit != "unknown").then(|| commit.to_owned())
}

/// A path inside the repository: relative, no `..`, in a safe alphabet; written with `/`.
fn repository_path(path: &Path) -> Option<String> {
    let mut parts = Vec::new();
    for c in path.components() {
        match c {
            Component::Normal(p) => parts.push(p.to_str().filter(|p| safe_word(p))?),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Letters, digits, `.`, `_`, `-`, `/`: a branch, a tag, a commit, a path; not starting with
/// `-` (it would read as a flag).
fn safe_word(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-/".contains(&b))
}

/// A git URL without quotes, spaces or `$`: what `cargo install --git` takes.
fn safe_url(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-/:@~+%".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_repository_and_odd_words_are_refused() {
        assert_eq!(repository_path(Path::new("./infra/runway.yaml")).as_deref(), Some("infra/runway.yaml"));
        assert_eq!(repository_path(Path::new("../runway.yaml")), None);
        assert_eq!(repository_path(Path::new("/work/runway.yaml")), None);
        assert_eq!(repository_path(Path::new("run way.yaml")), None);
        assert!(safe_word("release/2026-12"));
        assert!(!safe_word("main;rm"));
        assert!(!safe_word("--upload-pack=x"));
        assert!(safe_url("https://github.com/acme/runway.git"));
        assert!(!safe_url("https://x/'$(id)'"));
    }
}
