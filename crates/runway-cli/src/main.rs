//! The `runway` command: plans a product's cloud runtime from its `runway.yaml`.
//!
//! Exit codes: 0 success (warnings allowed), 1 the runway is invalid, 2 usage error,
//! 3 refused by a cost cap, 4 a remote call failed.

mod files;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use cost::Catalogue;
use runway_schema::{Diagnostic, Options, Product};

/// Exit code: the runway is invalid.
const EXIT_INVALID: u8 = 1;
/// Exit code: usage error (bad flags, unreadable file).
const EXIT_USAGE: u8 = 2;

#[derive(Parser)]
#[command(name = "runway", version, about = "Plan a product's cloud runtime from its runway.yaml")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Validate the root runway and its members; print every diagnostic.
    Check {
        /// The root runway file.
        #[arg(default_value = "runway.yaml")]
        file: PathBuf,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// A catalogue file that replaces or extends the built-in one.
        #[arg(long)]
        catalogue: Option<PathBuf>,
    },
    /// Print the JSON Schema of the root and member formats.
    Schema {
        /// Which format.
        #[arg(long, value_enum, default_value = "root")]
        which: SchemaWhich,
    },
    /// The sizes and prices in use, with their sources.
    Catalogue {
        /// Only this region's prices.
        #[arg(long)]
        region: Option<String>,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        /// A catalogue file that replaces or extends the built-in one.
        #[arg(long)]
        catalogue: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SchemaWhich {
    Root,
    Member,
}

/// A command's failure: its exit code, with what was already printed.
struct Exit(u8);

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check { file, format, catalogue } => check(&file, format, catalogue.as_deref()),
        Command::Schema { which } => {
            print!(
                "{}",
                match which {
                    SchemaWhich::Root => runway_schema::format::root_schema(),
                    SchemaWhich::Member => runway_schema::format::member_schema(),
                }
            );
            Ok(())
        }
        Command::Catalogue { region, format, catalogue } => {
            show_catalogue(region.as_deref(), format, catalogue.as_deref())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Exit(code)) => ExitCode::from(code),
    }
}

/// Prints a usage-level error and gives exit 2.
fn usage(message: impl std::fmt::Display) -> Exit {
    eprintln!("error: {message}");
    Exit(EXIT_USAGE)
}

/// The built-in catalogue, extended with the user's file when given.
fn catalogue(file: Option<&Path>) -> Result<Catalogue, Exit> {
    let builtin = Catalogue::builtin();
    let Some(file) = file else { return Ok(builtin) };
    let text =
        std::fs::read_to_string(file).map_err(|e| usage(format!("cannot read {}: {e}", file.display())))?;
    let name = file.to_string_lossy();
    match Catalogue::parse(&name, &text) {
        Ok(user) => Ok(builtin.extended_with(&user)),
        Err(diags) => {
            eprint!(
                "{}",
                files::render_text(
                    &diags,
                    files::colour(std::io::IsTerminal::is_terminal(&std::io::stderr()))
                )
            );
            Err(Exit(EXIT_INVALID))
        }
    }
}

fn options(cat: &Catalogue) -> Options {
    Options { sizes: cat.size_names(), regions: cat.regions() }
}

fn print_diagnostics_json(diags: &[Diagnostic]) {
    println!("{}", serde_json::json!({ "diagnostics": diags }));
}

/// Loads and validates; prints diagnostics to stderr (text) and returns the product, or exit 1.
fn load_valid(file: &Path, cat: &Catalogue) -> Result<(Product, Vec<Diagnostic>), Exit> {
    let loaded = files::load(file, &options(cat)).map_err(usage)?;
    match loaded.product {
        Some(p) => Ok((p, loaded.diagnostics)),
        None => {
            let colour = files::colour(std::io::IsTerminal::is_terminal(&std::io::stderr()));
            eprint!("{}", files::render_text(&loaded.diagnostics, colour));
            eprintln!("{}: the runway is invalid ({})", file.display(), files::summary(&loaded.diagnostics));
            Err(Exit(EXIT_INVALID))
        }
    }
}

fn check(file: &Path, format: Format, catalogue_file: Option<&Path>) -> Result<(), Exit> {
    let cat = catalogue(catalogue_file)?;
    let loaded = files::load(file, &options(&cat)).map_err(usage)?;
    let invalid = loaded.diagnostics.iter().any(Diagnostic::is_error);
    match format {
        Format::Json => print_diagnostics_json(&loaded.diagnostics),
        Format::Text => {
            print!("{}", files::render_text(&loaded.diagnostics, files::colour(files::stdout_is_terminal())));
            if loaded.diagnostics.is_empty() {
                println!("{}: ok", file.display());
            } else {
                println!("{}: {}", file.display(), files::summary(&loaded.diagnostics));
            }
        }
    }
    if invalid { Err(Exit(EXIT_INVALID)) } else { Ok(()) }
}

fn show_catalogue(region: Option<&str>, format: Format, catalogue_file: Option<&Path>) -> Result<(), Exit> {
    let cat = catalogue(catalogue_file)?;
    if let Some(r) = region {
        if !cat.regions().iter().any(|x| x == r) {
            return Err(usage(format!(
                "the catalogue has no region `{r}` (it has: {})",
                cat.regions().join(", ")
            )));
        }
    }
    match format {
        Format::Text => print!("{}", cat.render_text(region)),
        Format::Json => {
            println!("{}", serde_json::to_string_pretty(&cat.to_json_value(region)).unwrap_or_default())
        }
    }
    Ok(())
}
