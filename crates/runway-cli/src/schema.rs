//! `runway schema`: the JSON Schema of the root and member formats.

use crate::args::{SchemaFormat, SchemaWhich};
use crate::output::Exit;

/// Prints the JSON Schema of `which` format.
pub(crate) fn print(which: SchemaWhich, format: SchemaFormat) -> Result<(), Exit> {
    let SchemaFormat::Json = format;
    out!(
        "{}",
        match which {
            SchemaWhich::Root => runway_schema::format::root_schema(),
            SchemaWhich::Member => runway_schema::format::member_schema(),
        }
    );
    Ok(())
}
