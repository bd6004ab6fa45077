//! The JSON form of plan values: the plan (the spec's `plan` shape), a diff, a review, a
//! spend report. Their shape is their `Serialize` derive; these only fix the layout (pretty,
//! a final newline).

use serde::Serialize;

/// [`to_json`] written to `out` as it is produced, never held whole: a plan of 10,000
/// resources is hundreds of megabytes of JSON (docs/benchmarks.md). The bytes are those of
/// [`to_json`]; `out` is any sink (the CLI passes buffered stdout), so the core does no I/O.
///
/// # Errors
/// The sink's error.
pub fn write_json<T: Serialize>(value: &T, mut out: impl std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut out, value).map_err(std::io::Error::from)?;
    out.write_all(b"\n")
}

/// Pretty JSON of any plan value (plan, diff, cost report), with a final newline.
pub fn to_json<T: Serialize>(value: &T) -> String {
    // Plan values hold only string-keyed maps, strings, numbers and booleans: serializing
    // them cannot fail.
    let mut s = serde_json::to_string_pretty(value).unwrap_or_default();
    s.push('\n');
    s
}
