//! aws-adapter's integration tests against a real moto server, one binary
//! (`cargo test -p aws-adapter --test it`): one module per part of the adapter, the shared fixtures
//! in [`aws_support`]. Each test starts its own moto and gate on loopback ports the system picks,
//! so the tests run as threads of one process without sharing state.
#![allow(clippy::unwrap_used)] // reason: tests fail loudly

mod aws_buckets;
mod aws_canary;
mod aws_kms;
mod aws_lease;
mod aws_proxy;
mod aws_proxy_auth;
mod aws_ssm;
mod aws_support;
