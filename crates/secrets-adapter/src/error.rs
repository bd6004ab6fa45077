//! Typed errors. No variant ever carries a secret value: messages come from Infisical's error
//! bodies (which name secrets and folders, never values) or from this crate.

use crate::report::Report;

/// What went wrong talking to Infisical or preparing a call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Infisical answered with an error body `{reqId, statusCode, message, error}`.
    #[error("Infisical answered {status} {kind} to {operation}: {message} (reqId {req_id})")]
    Api {
        /// What was being done, e.g. `create secret dev:/runtime/main-db/MAIN_DB_PASSWORD`.
        operation: String,
        /// HTTP status.
        status: u16,
        /// The body's `error` field (not stable across endpoints; branch on `status`).
        kind: String,
        /// The body's `message` (a validation failure's list of issues is rendered as JSON).
        message: String,
        /// The body's `reqId`, for Infisical support.
        req_id: String,
    },
    /// Universal-auth login was refused. A failed login is final: it is never retried, since
    /// three failures lock the identity for 300 s.
    #[error("Infisical login refused ({status}): {message}; not retried (3 failures lock the identity)")]
    LoginRefused {
        /// HTTP status.
        status: u16,
        /// Infisical's message.
        message: String,
    },
    /// The token expired and could not be renewed: a ready token (`INFISICAL_TOKEN`) cannot be
    /// renewed, and a token that is reported expired again right after a re-login is not
    /// chased further.
    #[error("Infisical token expired during {operation}: {reason}")]
    TokenExpired {
        /// What was being done.
        operation: String,
        /// Why no (further) re-login was tried.
        reason: &'static str,
    },
    /// 429, 5xx or transport failures went on past the retry budget.
    #[error("gave up on {operation} after {attempts} attempts; last: {last}")]
    RetriesExhausted {
        /// What was being done.
        operation: String,
        /// Attempts made.
        attempts: u32,
        /// The last failure.
        #[source]
        last: Box<Error>,
    },
    /// The request did not complete: connection refused or dropped, or a timeout.
    #[error("{operation}: no answer from Infisical ({message})")]
    Transport {
        /// What was being done.
        operation: String,
        /// The HTTP client's description (URLs carry no values: values travel only in bodies).
        message: String,
        /// Whether the call timed out.
        timeout: bool,
    },
    /// Infisical answered 2xx with a body this client does not understand, or put the write
    /// behind an approval policy (`{approval}` instead of `{secret}`).
    #[error("unexpected answer to {operation}: {detail}")]
    Protocol {
        /// What was being done.
        operation: String,
        /// What was unexpected (never a value).
        detail: String,
    },
    /// A required setting is missing or malformed (e.g. `INFISICAL_CLIENT_ID`).
    #[error("configuration: {0}")]
    Config(String),
    /// The input to `prepare`/`publish` is not usable (bad folder name, duplicate location…).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// A Pulumi output was masked; the outputs must be read with `--show-secrets`.
    #[error(
        "Pulumi output `{name}` is masked as \"[secret]\"; read the outputs with `pulumi stack output --json --show-secrets`"
    )]
    MaskedOutput {
        /// The output's name.
        name: String,
    },
    /// `pulumi stack output --json` text is not a JSON object.
    #[error("Pulumi stack outputs are not a JSON object: {0}")]
    Outputs(String),
    /// The operating system's random source failed.
    #[error("the OS random source failed: {0}")]
    Random(String),
}

impl Error {
    /// The HTTP status of an Infisical error answer, if this is one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api { status, .. } | Error::LoginRefused { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Whether Infisical answered 404 because the secret or its folder does not exist (and not,
    /// say, because the project or environment is unknown).
    pub fn is_absent(&self) -> bool {
        matches!(self, Error::Api { status: 404, message, .. }
            if message.starts_with("Secret with name") || message.starts_with("Folder with path"))
    }

    /// Whether Infisical answered 400 because the object already exists.
    pub fn is_already_exists(&self) -> bool {
        matches!(self, Error::Api { status: 400, message, .. } if message.contains("already exists"))
    }
}

/// A `prepare` or `publish` run that stopped on a failure: what was done, what was not, and
/// why. The CLI prints it and exits 4; running the same command again finishes the job
/// (nothing is generated twice: existing credentials are detected and kept).
#[derive(Debug)]
pub struct RunError {
    /// What was done before the failure.
    pub completed: Report,
    /// Locations (`<env>:<folder>/<NAME>`) not done, the failing one first.
    pub not_done: Vec<String>,
    /// The failure.
    pub cause: Error,
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}", self.cause)?;
        writeln!(f, "done before the failure ({}):", self.completed.entries.len())?;
        for entry in &self.completed.entries {
            writeln!(f, "  {entry}")?;
        }
        writeln!(f, "not done ({}):", self.not_done.len())?;
        for location in &self.not_done {
            writeln!(f, "  {location}")?;
        }
        write!(f, "run the same command again to finish; nothing is generated twice")
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.cause)
    }
}
