//! `runway check`: the root and its members validated, and every environment planned.

use runway_schema::Diagnostic;

use crate::files;
use crate::output::print_diagnostics_json;
use crate::planning::{catalogue, options, refused_message, setting_catalogue};
use crate::prelude::*;

/// Validate the root runway and its members, and plan every environment; print every
/// diagnostic, those `plan` would refuse an environment for among them.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    root: RootArgs,
    #[command(flatten)]
    format: FormatArg,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format.format.json()
    }
}

/// Runs `runway check`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    check(&args.root.file, args.format.format, args.root.catalogue.as_deref(), out)
}

/// Validates, then plans every environment of a valid runway: `check` reports what `plan`
/// would refuse (over a cap, unpriced under a cap, any other plan error) with the same
/// diagnostics and exit code, so passing `check` means no environment is refused.
fn check(file: &Path, format: Format, catalogue_file: Option<&Path>, out: Out) -> Result<(), Exit> {
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
