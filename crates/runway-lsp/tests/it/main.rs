//! runway-lsp's integration tests, one binary (`cargo test -p runway-lsp --test it`): the server in
//! process (`server`) and the edits it offers (`edits`). Scratch folders are named per test and per
//! process: the names must stay unique across the modules of this binary.
#![allow(clippy::unwrap_used)] // reason: tests fail loudly

mod edits;
mod server;
