//! `runway diff` as a review: the base (a git revision, or a file) against the working
//! version, every environment either side declares (or the one asked for), as text, JSON or
//! markdown for a pull-request comment. See docs/review.md.

use clap::ValueEnum;
use cost::Catalogue;
use runtime_plan::{Plan, Side};
use runway_schema::{Diagnostic, Product};

use crate::files;
use crate::git::Revision;
use crate::planning::{catalogue_for, load_valid, options, plan_env, refuse_if_capped};
use crate::prelude::*;

/// What changes between two runway versions: added, removed, resized items, cost delta,
/// and (as a review) what breaks for consumers.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The environment; without it, every environment either side declares.
    #[arg(long)]
    env: Option<String>,
    /// The older root runway file to compare against.
    #[arg(long, conflicts_with = "base_ref", required_unless_present = "base_ref")]
    base: Option<PathBuf>,
    /// A git revision: the base is FILE and its members as of that revision.
    #[arg(long, value_name = "REV")]
    base_ref: Option<String>,
    #[arg(long, value_enum, default_value = "text")]
    format: DiffFormat,
    /// What `pulumi preview --json` printed for an environment's stack (repeatable, one per
    /// environment): the review shows what Pulumi would create, update, replace or delete per
    /// item, and warns when a database, cache, bucket or queue would lose its data.
    #[arg(long, value_name = "[ENV=]FILE")]
    pulumi_preview: Vec<String>,
    /// The pull request's number: the review (text, markdown) ends with its preview's line,
    /// what it would add to the previews' pool against the cap (docs/previews.md).
    #[arg(long, value_name = "N")]
    preview_pr: Option<u64>,
    /// What `runway preview list --format json` printed: the live previews the line sums.
    #[arg(long, value_name = "FILE", requires = "preview_pr")]
    previews_pool: Option<PathBuf>,
    #[command(flatten)]
    root: RootArgs,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format == DiffFormat::Json
    }
}

/// Runs `runway diff`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    diff(
        args.env.as_deref(),
        (args.base.as_deref(), args.base_ref.as_deref()),
        args.format,
        (&args.pulumi_preview, args.preview_pr.map(|pr| (pr, args.previews_pool.as_deref()))),
        &args.root,
        out,
    )
}

/// The pull request's number and the live pool's file.
type PreviewPr<'a> = Option<(u64, Option<&'a Path>)>;

/// What `runway diff` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum DiffFormat {
    /// Lines for a terminal.
    Text,
    /// The review (or, for `--base FILE --env ENV`, the plan diff) as JSON.
    Json,
    /// A pull-request comment.
    Markdown,
}

/// Where the base comes from.
#[derive(Clone, Copy, Debug)]
enum Base<'a> {
    /// An older root file on disk.
    File(&'a Path),
    /// The root file and its members as of a git revision.
    Rev(&'a str),
}

/// `runway diff`: the plan diff of `--base FILE --env ENV` as text or JSON, else a review.
fn diff(
    env: Option<&str>,
    (base, base_ref): (Option<&Path>, Option<&str>),
    format: DiffFormat,
    (previews, preview_pr): (&[String], PreviewPr<'_>),
    args: &RootArgs,
    out: Out,
) -> Result<(), Exit> {
    let cat = catalogue_for(&args.file, args.catalogue.as_deref(), out)?;
    let base = match (base, base_ref) {
        (Some(file), None) => Base::File(file),
        (None, Some(rev)) => Base::Rev(rev),
        // clap refuses both and neither; kept for a caller that bypasses it.
        _ => return Err(out.usage("give either --base FILE or --base-ref REV")),
    };
    // `--base FILE --env ENV` as text or JSON prints the plan diff it always printed, and
    // exits as it always did; every other form (and any with a Pulumi preview) is a review
    // (docs/review.md).
    if let (Base::File(file), Some(env), DiffFormat::Text | DiffFormat::Json, true) =
        (base, env, format, previews.is_empty() && preview_pr.is_none())
    {
        let old = plan_env(file, env, &cat, out)?;
        let new = plan_env(&args.file, env, &cat, out)?;
        let d = runtime_plan::diff(&old, &new);
        match format {
            DiffFormat::Json => outln!("{}", runtime_plan::to_json(&d)),
            _ => out!("{}", plan_render::render_diff_text(&d)),
        }
        return Ok(());
    }
    review(env, base, (format, previews, preview_pr), &args.file, &cat, out)
}

/// Reviews the working version `file` against `base`; exit 3 when a working plan is refused.
fn review(
    env: Option<&str>,
    base: Base<'_>,
    (format, previews, preview_pr): (DiffFormat, &[String], PreviewPr<'_>),
    file: &Path,
    cat: &Catalogue,
    out: Out,
) -> Result<(), Exit> {
    let (new, warnings) = load_valid(file, cat, out)?;
    warn(&warnings);
    let (old, label) = match base {
        Base::File(path) => (Some(load_valid(path, cat, out)?.0), path.display().to_string()),
        Base::Rev(rev) => (load_at(file, rev, cat, out)?, rev.to_owned()),
    };
    let envs = environments(env, old.as_ref(), &new, cat, out)?;
    let new_plans = plans(&new, &envs, cat, out)?;
    let old_plans = match &old {
        Some(o) => plans(o, &envs, cat, out)?,
        None => Vec::new(),
    };
    let old_side = old.as_ref().map(|product| Side { product, plans: &old_plans });
    let mut review = runtime_plan::review(&label, old_side, Side { product: &new, plans: &new_plans });
    crate::pulumi_preview::attach(&mut review, previews, env, (&old_plans, &new_plans), out)?;
    match format {
        DiffFormat::Text => out!("{}", plan_render::render_review_text(&review)),
        DiffFormat::Json => out!("{}", runtime_plan::to_json(&review)),
        DiffFormat::Markdown => out!("{}", plan_render::render_review_markdown(&review)),
    }
    // The preview's line closes the text and markdown reviews (the JSON review keeps its shape).
    if let Some((pr, pool)) = preview_pr
        && format != DiffFormat::Json
        && let Some(line) = crate::preview_review::line(&new, pr, pool, cat, out)?
    {
        outln!("\n{line}");
    }
    let mut refused = Ok(());
    for p in &new_plans {
        refused = refused.and(refuse_if_capped(p));
    }
    refused
}

/// The product at `rev`, or `None` when the root file does not exist there (every environment
/// is then new). Exit 2 for git's errors, 1 when the base is invalid.
fn load_at(file: &Path, rev: &str, cat: &Catalogue, out: Out) -> Result<Option<Product>, Exit> {
    let revision = Revision::resolve(file, rev).map_err(|e| out.usage(e))?;
    let Some((root, files)) = revision.snapshot().map_err(|e| out.usage(e))? else {
        errln!("note: {} does not exist at {rev}; every environment is new", file.display());
        return Ok(None);
    };
    let name = revision.display_name();
    let loaded = runway_schema::load(&name, &root, &files, &options(cat));
    match loaded.product {
        Some(p) => Ok(Some(p)),
        None => {
            let errors: Vec<Diagnostic> =
                loaded.diagnostics.into_iter().filter(Diagnostic::is_error).collect();
            out.invalid(&errors);
            errln!("{name}: the base runway at {rev} is invalid ({})", files::summary(&errors));
            Err(Exit(EXIT_INVALID))
        }
    }
}

/// The environment asked for (declared by either side), or every environment either side
/// declares: the working version's in its order, then the base's others.
fn environments(
    env: Option<&str>,
    old: Option<&Product>,
    new: &Product,
    cat: &Catalogue,
    out: Out,
) -> Result<Vec<String>, Exit> {
    let declares = |p: &Product, e: &str| p.root.environments.contains_key(e);
    if let Some(e) = env {
        if declares(new, e) || old.is_some_and(|o| declares(o, e)) {
            return Ok(vec![e.to_owned()]);
        }
        // Neither declares it: the planner's error names the declared ones and a likely typo.
        return match runtime_plan::plan(new, e, cat) {
            Err(err) => Err(out.usage(err)),
            Ok(_) => Err(out.usage(format!("environment `{e}` is not declared"))),
        };
    }
    let mut names: Vec<String> = new.root.environments.keys().cloned().collect();
    for e in old.map(|o| o.root.environments.keys()).into_iter().flatten() {
        if !names.contains(e) {
            names.push(e.clone());
        }
    }
    Ok(names)
}

/// The plans of the environments `product` declares among `envs`.
fn plans(product: &Product, envs: &[String], cat: &Catalogue, out: Out) -> Result<Vec<Plan>, Exit> {
    envs.iter()
        .filter(|e| product.root.environments.contains_key(*e))
        .map(|e| runtime_plan::plan(product, e, cat).map_err(|err| out.usage(err)))
        .collect()
}
