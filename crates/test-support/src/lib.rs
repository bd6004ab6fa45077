//! Helpers shared by the workspace's integration tests: where the workspace, its examples, the
//! venv Python and the PostgreSQL servers of `cargo xtask postgres` are; scratch directories
//! and fixture copies; a free loopback port and a bare HTTP call; moto, the Infisical contract
//! server, a file server, an AWS endpoint and a plain HTTP server (an OCI registry) of canned
//! answers on loopback, stopped on drop; a recording proxy that injects lost answers and failed
//! requests at a seeded rate (`FaultProxy`).
//!
//! Dev-only, and std plus serde_json only (no async runtime, no HTTP or AWS client), so that any
//! test can use it whatever runtime it runs on. Helpers panic instead of returning errors: a
//! broken fixture or a missing venv fails the test loudly, it never skips.

mod canned;
pub mod contract;
mod dirs;
mod faults;
mod files;
mod moto;
mod net;
mod paths;
pub mod registry;
mod web;

pub use canned::{AwsCall, CannedAws, Route};
pub use contract::ContractServer;
pub use dirs::{Scratch, acme_shop_with_dev_cap, copy_dir, scratch};
pub use faults::{Fate, FaultProxy, Faults, Seen as Forwarded};
pub use files::FileServer;
pub use moto::Moto;
pub use net::{Reply, free_port, http};
pub use paths::{example, golden, postgres, python, workspace};
pub use web::{Answer, CannedWeb, Seen, WebRoute};
