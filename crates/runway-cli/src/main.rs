//! The `runway` command.
fn main() {}
