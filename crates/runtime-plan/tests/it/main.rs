//! runtime-plan's integration tests, one binary (`cargo test -p runtime-plan --test it`): one
//! module per subject, the helpers in [`common`] (the spec's example built in code, the shipped
//! example through the real loader, generated products).
//!
//! Goldens (insta, `tests/it/snapshots/`, blessed with
//! `INSTA_UPDATE=always cargo test -p runtime-plan --test it`): this crate holds the plan's goldens
//! — each kind's items (`kinds`, one small golden per `tests/kinds/<kind>.yaml`) and the whole
//! example's (`golden`, trimmed to what only the whole example shows: the production plan as JSON
//! and text, the cost report, the graph, a diff) and the review's renderings (`review`).
//! pulumi-program's tests hold the Pulumi side of the same fixtures (each kind's resources, the
//! example's production program); a fixture is snapshotted once per rendering, in the crate that
//! makes that rendering's decisions.
#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: tests fail loudly

mod access_properties;
mod alarms;
mod bootstrap;
mod common;
mod entry_points;
mod figures;
mod golden;
mod key_and_windows;
mod kinds;
mod lowering;
mod lowering_environment;
mod operations;
mod preflight;
mod previews;
mod production_safety;
mod properties;
mod releases;
mod renderings;
mod restore_kinds;
mod review;
mod rotation;
mod spend;
mod text;
mod usage;
mod verdict_and_names;
