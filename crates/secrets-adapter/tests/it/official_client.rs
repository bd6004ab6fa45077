//! Keeps the contract server honest: Infisical's official Python client (`infisicalsdk`,
//! pinned in tools/requirements.txt) must be able to use it.
#![allow(clippy::unwrap_used, missing_docs)]

use std::process::Command;

use test_support::contract::{CLIENT_ID, CLIENT_SECRET, PROJECT};
use test_support::{ContractServer, python, workspace};

#[test]
fn official_client_can_use_the_contract_server() {
    let server = ContractServer::start();
    let out = Command::new(python())
        .arg(workspace().join("tools/infisical_official_client_check.py"))
        .args([server.url().as_str(), CLIENT_ID, CLIENT_SECRET, PROJECT, "dev"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("official client: ok"),
        "the official Infisical client could not use the contract server \
         (is infisicalsdk installed? run `cargo xtask venv`)\nstdout: {stdout}\nstderr: {stderr}"
    );
}
