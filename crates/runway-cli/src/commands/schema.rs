//! `runway schema`: the JSON Schema of the root and member formats.

use clap::ValueEnum;

use crate::prelude::*;

/// Print the JSON Schema of the root and member formats.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Which format.
    #[arg(long, value_enum, default_value = "root")]
    which: SchemaWhich,
    /// The schema is JSON already; `--format json` is accepted like on every command.
    #[arg(long, value_enum, default_value = "json")]
    format: SchemaFormat,
}

// Its failures (none) are never JSON: the schema is the output.
impl CommandArgs for Args {}

/// `--format` of `runway schema`: JSON only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SchemaFormat {
    Json,
}

/// Which format's schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum SchemaWhich {
    Root,
    Member,
}

/// Prints the JSON Schema of the `--which` format.
pub(crate) fn run(args: Args, _out: Out) -> Result<(), Exit> {
    let SchemaFormat::Json = args.format;
    out!(
        "{}",
        match args.which {
            SchemaWhich::Root => runway_schema::format::root_schema(),
            SchemaWhich::Member => runway_schema::format::member_schema(),
        }
    );
    Ok(())
}
