//! `runway diff` as a review: the base (a git revision, or a file) against the working
//! version, every environment either side declares (or the one asked for), as text, JSON or
//! markdown for a pull-request comment. See docs/review.md.

use std::path::Path;

use clap::ValueEnum;
use cost::Catalogue;
use runtime_plan::{Plan, Side};
use runway_schema::{Diagnostic, Product};

use crate::git::Revision;
use crate::{EXIT_INVALID, Exit, files, load_valid, options, stderr_colour, usage};

/// What `runway diff` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// Lines for a terminal.
    Text,
    /// The review (or, for `--base FILE --env ENV`, the plan diff) as JSON.
    Json,
    /// A pull-request comment.
    Markdown,
}

/// Where the base comes from.
#[derive(Clone, Copy, Debug)]
pub enum Base<'a> {
    /// An older root file on disk.
    File(&'a Path),
    /// The root file and its members as of a git revision.
    Rev(&'a str),
}

/// Reviews the working version `file` against `base`; exit 3 when a working plan is refused.
pub fn run(
    env: Option<&str>,
    base: Base<'_>,
    format: DiffFormat,
    file: &Path,
    cat: &Catalogue,
) -> Result<(), Exit> {
    let (new, warnings) = load_valid(file, cat)?;
    eprint!("{}", files::render_text(&warnings, stderr_colour()));
    let (old, label) = match base {
        Base::File(path) => (Some(load_valid(path, cat)?.0), path.display().to_string()),
        Base::Rev(rev) => (load_at(file, rev, cat)?, rev.to_owned()),
    };
    let envs = environments(env, old.as_ref(), &new, cat)?;
    let new_plans = plans(&new, &envs, cat)?;
    let old_plans = match &old {
        Some(o) => plans(o, &envs, cat)?,
        None => Vec::new(),
    };
    let old_side = old.as_ref().map(|product| Side { product, plans: &old_plans });
    let review = runtime_plan::review(&label, old_side, Side { product: &new, plans: &new_plans });
    match format {
        DiffFormat::Text => out!("{}", runtime_plan::render_review_text(&review)),
        DiffFormat::Json => out!("{}", runtime_plan::to_json(&review)),
        DiffFormat::Markdown => out!("{}", runtime_plan::render_review_markdown(&review)),
    }
    let mut refused = Ok(());
    for p in &new_plans {
        refused = refused.and(crate::refuse_if_capped(p));
    }
    refused
}

/// The product at `rev`, or `None` when the root file does not exist there (every environment
/// is then new). Exit 2 for git's errors, 1 when the base is invalid.
fn load_at(file: &Path, rev: &str, cat: &Catalogue) -> Result<Option<Product>, Exit> {
    let revision = Revision::resolve(file, rev).map_err(usage)?;
    let Some((root, files)) = revision.snapshot().map_err(usage)? else {
        eprintln!("note: {} does not exist at {rev}; every environment is new", file.display());
        return Ok(None);
    };
    let name = revision.display_name();
    let loaded = runway_schema::load(&name, &root, &files, &options(cat));
    match loaded.product {
        Some(p) => Ok(Some(p)),
        None => {
            let errors: Vec<Diagnostic> =
                loaded.diagnostics.into_iter().filter(Diagnostic::is_error).collect();
            crate::report_invalid(&errors);
            eprintln!("{name}: the base runway at {rev} is invalid ({})", files::summary(&errors));
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
) -> Result<Vec<String>, Exit> {
    let declares = |p: &Product, e: &str| p.root.environments.contains_key(e);
    if let Some(e) = env {
        if declares(new, e) || old.is_some_and(|o| declares(o, e)) {
            return Ok(vec![e.to_owned()]);
        }
        // Neither declares it: the planner's error names the declared ones and a likely typo.
        return match runtime_plan::plan(new, e, cat) {
            Err(err) => Err(usage(err)),
            Ok(_) => Err(usage(format!("environment `{e}` is not declared"))),
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
fn plans(product: &Product, envs: &[String], cat: &Catalogue) -> Result<Vec<Plan>, Exit> {
    envs.iter()
        .filter(|e| product.root.environments.contains_key(*e))
        .map(|e| runtime_plan::plan(product, e, cat).map_err(usage))
        .collect()
}
