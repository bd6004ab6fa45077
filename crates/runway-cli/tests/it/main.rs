//! The `runway` binary's integration tests, one test binary for the crate (linking the AWS SDK
//! once, not once a file): each module is one former `tests/<name>.rs`, its tests run as threads
//! of this one process. Every test owns what it starts (moto, the contract server, scratch
//! folders, ports) and passes settings to the commands it spawns, never through this process's
//! environment or current folder; `common` holds the runner of the built binary and the set-up
//! the deploy-side tests share.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)] // reason: test helpers fail loudly

mod common;
mod migrate_task;

mod alerts;
mod catalogue;
mod ci;
mod db_roles;
mod deploy;
mod deploy_job;
mod drift;
mod excerpt;
mod faults;
mod fixtures;
mod iam;
mod init;
mod lsp;
mod migrate;
mod pinned_account;
mod pipes;
mod plan;
mod preflight;
mod preflight_account;
mod preview_db;
mod previews;
mod pulumi_preview;
mod readme;
mod restore;
mod restore_check;
mod restore_check_cluster;
mod restore_kinds;
mod review;
mod rollback;
mod rollout;
mod rollout_stages;
mod rotate;
mod spend;
mod teardown;
mod untrusted;
mod verdict;
mod workers;
mod workload_secrets;
