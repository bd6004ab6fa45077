//! pulumi-program's integration tests, one binary (`cargo test -p pulumi-program --test it`): one
//! module per subject, the Pulumi SDK check and program writing in [`pulumi_support`].
//!
//! Goldens (insta, `tests/it/snapshots/`, blessed with
//! `INSTA_UPDATE=always cargo test -p pulumi-program --test it`): this crate holds the Pulumi
//! renderings only — each kind's resources (`kinds`, one small golden per
//! `tests/kinds/<kind>.yaml`) and the whole example's production program (`pulumi_emit`). The plans
//! they render are runtime-plan's goldens (its `tests/it/kinds.rs` and `golden.rs`); a fixture is
//! snapshotted once per rendering. Scratch folders are named per test (`test_support::scratch`):
//! the names must stay unique across the modules of this binary.
#![allow(clippy::unwrap_used)] // reason: tests fail loudly

mod bootstrap;
mod kinds;
mod pulumi_check;
mod pulumi_emit;
mod pulumi_generated;
mod pulumi_support;
mod task_start;
mod workers;
