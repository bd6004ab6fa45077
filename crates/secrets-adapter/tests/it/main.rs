//! secrets-adapter's integration tests, one binary (`cargo test -p secrets-adapter --test it`): one
//! module per subject, the client and target in [`common`] (the contract server, one per test on a
//! loopback port the system picks, or a real Infisical when `INFISICAL_URL` is set).
#![allow(clippy::unwrap_used)] // reason: tests fail loudly

mod common;
mod end_to_end;
mod faults;
mod folders;
mod official_client;
mod redaction;
