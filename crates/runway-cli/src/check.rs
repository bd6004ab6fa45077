//! The planning commands that only read and print: `check`, `plan`, `cost` and `graph`.

use std::io::Write as _;
use std::path::Path;

use runway_schema::Diagnostic;

use crate::args::{Format, GraphFormat, PlanArgs};
use crate::files;
use crate::output::{
    EXIT_CAP, EXIT_INVALID, Exit, Out, print_diagnostics_json, stream_stdout, stream_stdout_bytes, warn,
};
use crate::planning::{
    catalogue, catalogue_for, load_valid, options, plan_env, refuse_if_capped, refused_message,
    setting_catalogue,
};

/// Validates, then plans every environment of a valid runway: `check` reports what `plan`
/// would refuse (over a cap, unpriced under a cap, any other plan error) with the same
/// diagnostics and exit code, so passing `check` means no environment is refused.
pub(crate) fn check(
    file: &Path,
    format: Format,
    catalogue_file: Option<&Path>,
    out: Out,
) -> Result<(), Exit> {
    // A `catalogue:` file that cannot be used is reported as check reports the rest.
    let cat = match (catalogue_file, setting_catalogue(file)) {
        (None, Some(Err(diagnostics))) => {
            print_check(file, format, &diagnostics, &[]);
            return Err(Exit(EXIT_INVALID));
        }
        (None, Some(Ok(cat))) => cat,
        _ => catalogue(catalogue_file, out)?,
    };
    let loaded = files::load(file, &options(&cat)).map_err(|e| out.usage(e))?;
    let mut refused = Vec::new();
    let checked = runtime_plan::check_each(loaded, &cat, |plan| {
        if plan.has_errors() {
            refused.push(refused_message(&plan));
        }
    })
    .map_err(|e| out.usage(e))?;
    let (diagnostics, invalid) = (checked.diagnostics, checked.invalid);
    print_check(file, format, &diagnostics, &refused);
    match (invalid, refused.is_empty()) {
        (true, _) => Err(Exit(EXIT_INVALID)),
        (false, false) => Err(Exit(EXIT_CAP)),
        (false, true) => Ok(()),
    }
}

/// What `check` prints: its diagnostics, then each refused environment's line and a summary.
fn print_check(file: &Path, format: Format, diagnostics: &[Diagnostic], refused: &[String]) {
    match format {
        Format::Json => print_diagnostics_json(diagnostics),
        Format::Text => {
            out!("{}", files::render_text(diagnostics, files::colour(files::stdout_is_terminal())));
            for line in refused {
                outln!("{line}");
            }
            if diagnostics.is_empty() {
                outln!("{}: ok", file.display());
            } else {
                outln!("{}: {}", file.display(), files::summary(diagnostics));
            }
        }
    }
}

/// `runway plan`: one environment's plan; exit 3 when it is refused.
pub(crate) fn plan(env: &str, format: Format, args: &PlanArgs, out: Out) -> Result<(), Exit> {
    let cat = catalogue_for(&args.file, args.catalogue.as_deref(), out)?;
    let plan = plan_env(&args.file, env, &cat, out)?;
    match format {
        // Streamed: a large plan's text is written as it is made, never held whole.
        Format::Text => stream_stdout(|sink| plan_render::write_plan_text(&plan, sink)),
        // Streamed too (N = 10,000: 254 MB); the blank line after it is `outln!`'s, kept.
        Format::Json => stream_stdout_bytes(|sink| {
            runtime_plan::write_json(&plan, &mut *sink)?;
            sink.write_all(b"\n")
        }),
    }
    refuse_if_capped(&plan)
}

/// `runway cost`: every environment side by side; exit 3 when one is refused.
pub(crate) fn cost(format: Format, args: &PlanArgs, out: Out) -> Result<(), Exit> {
    let cat = catalogue_for(&args.file, args.catalogue.as_deref(), out)?;
    let (product, warnings) = load_valid(&args.file, &cat, out)?;
    warn(&warnings);
    let mut plans = Vec::new();
    for env in product.root.environments.keys() {
        plans.push(runtime_plan::plan(&product, env, &cat).map_err(|e| out.usage(e))?);
    }
    match format {
        Format::Text => out!("{}", plan_render::render_cost_text(&plans)),
        Format::Json => outln!("{}", runtime_plan::to_json(&plan_render::cost_report(&plans))),
    }
    if plans.iter().any(runtime_plan::Plan::has_errors) { Err(Exit(EXIT_CAP)) } else { Ok(()) }
}

/// `runway graph`: one environment's resource graph.
pub(crate) fn graph(env: &str, format: GraphFormat, args: &PlanArgs, out: Out) -> Result<(), Exit> {
    let cat = catalogue_for(&args.file, args.catalogue.as_deref(), out)?;
    let plan = plan_env(&args.file, env, &cat, out)?;
    match format {
        GraphFormat::Mermaid => out!("{}", plan_render::render_mermaid(&plan.graph())),
        GraphFormat::Dot => out!("{}", plan_render::render_dot(&plan.graph())),
        GraphFormat::Json => out!("{}", runtime_plan::to_json(&plan.graph())),
    }
    Ok(())
}
