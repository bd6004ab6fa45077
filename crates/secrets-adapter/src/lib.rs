//! Writes generated credentials and connection details blind to Infisical.
//!
//! - [`prepare`] makes sure every generated credential (RDS PostgreSQL master password, Valkey
//!   AUTH token) exists in Infisical, generating missing ones from the OS random source; an
//!   existing credential is kept unless rotation is asked for.
//! - [`publish`] writes connection details (e.g. from `pulumi stack output --json`, see
//!   [`StackOutputs`]) and updates only what differs.
//! - [`read_for_proxy_copy`] reads one credential for the RDS Proxy's Secrets Manager copy.
//!
//! What this crate does not do: decide anything (the plan says which credentials and variables
//! exist and where), print or log values, or hold a value outside a `SecretString` (whose
//! `Debug` is redacted and which is zeroized on drop). Errors and reports name locations
//! (`<env>:<folder>/<NAME>`), never values. It speaks Infisical's v4 secrets and v2 folders API
//! (see `shared/spec/infisical-api.md`), tested against `tools/infisical_contract_server.py`.

mod client;
mod error;
mod generate;
mod ops;
mod outputs;
mod report;

pub use client::{
    Auth, Client, ClientConfig, FolderDeletion, INFISICAL_CLOUD, Outcome, RetryPolicy, SecretMeta,
};
pub use error::{Error, HttpFailure, RandomFailure, RunError};
pub use generate::{CredentialRule, RuleViolation};
pub use ops::{CredentialSpec, VariableWrite, prepare, publish, read_for_proxy_copy};
pub use outputs::StackOutputs;
pub use report::{Action, Entry, Report, folder_location, secret_location};
pub use secrecy::{ExposeSecret, SecretString};
