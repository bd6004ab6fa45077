//! runway-schema's integration tests, one binary (`cargo test -p runway-schema --test it`): one
//! module per subject. The file-format fixtures' diagnostics are snapshotted here, once each as
//! JSON (`fixtures`, `tests/it/snapshots/`, blessed with
//! `INSTA_UPDATE=always cargo test -p runway-schema --test it`).
#![allow(clippy::unwrap_used)] // reason: tests fail loudly

mod bounds;
mod example;
mod fixtures;
mod members;
mod paths;
mod reference;
mod workers;
