//! Typed errors. No variant ever carries a secret value: messages come from Infisical's error
//! bodies (which name secrets and folders, never values) or from this crate, and the causes
//! kept (the HTTP client's, the JSON encoder's, the OS random source's) never hold a body.
//!
//! A cause is kept as the error's `source()` and left out of its `Display`; whoever reports
//! the error prints the chain (`RunError` does for its failure).

use crate::report::Report;

/// What went wrong talking to Infisical or preparing a call. Shown as the first step to take
/// (for failures a person fixes outside runway: credentials, token, reachability, access), then
/// the cause on one line.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Infisical answered with an error body `{reqId, statusCode, message, error}`.
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
    LoginRefused {
        /// HTTP status.
        status: u16,
        /// Infisical's message.
        message: String,
    },
    /// The token expired and could not be renewed: a ready token (`INFISICAL_TOKEN`) cannot be
    /// renewed, and a token that is reported expired again right after a re-login is not
    /// chased further.
    TokenExpired {
        /// What was being done.
        operation: String,
        /// Why no (further) re-login was tried.
        reason: &'static str,
    },
    /// 429, 5xx or transport failures went on past the retry budget.
    RetriesExhausted {
        /// What was being done.
        operation: String,
        /// Attempts made.
        attempts: u32,
        /// The last failure: shown as part of this one, its source is this one's source.
        last: Box<Error>,
    },
    /// The request did not complete: connection refused or dropped, or a timeout.
    Transport {
        /// What was being done.
        operation: String,
        /// The HTTP client's error, without its URL (URLs carry no values: values travel only
        /// in bodies).
        source: HttpFailure,
        /// Whether the call timed out.
        timeout: bool,
    },
    /// Infisical answered 2xx with a body this client does not understand, or put the write
    /// behind an approval policy (`{approval}` instead of `{secret}`).
    Protocol {
        /// What was being done.
        operation: String,
        /// What was unexpected (never a value).
        detail: String,
    },
    /// A required setting is missing or malformed (e.g. `INFISICAL_CLIENT_ID`).
    Config(String),
    /// The HTTP client could not be built.
    HttpClient {
        /// The HTTP client's error.
        source: reqwest::Error,
    },
    /// A request body could not be encoded as JSON.
    Encode {
        /// The encoder's error (it names no value).
        source: serde_json::Error,
    },
    /// The input to `prepare`/`publish` is not usable (bad folder name, duplicate location…).
    InvalidInput(String),
    /// A Pulumi output was masked; the outputs must be read with `--show-secrets`.
    MaskedOutput {
        /// The output's name.
        name: String,
    },
    /// `pulumi stack output --json` text is not a JSON object.
    Outputs(String),
    /// The operating system's random source failed.
    Random {
        /// The random source's error.
        source: RandomFailure,
    },
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // `last` is shown as part of this error (after "last: "); its cause follows.
            Error::RetriesExhausted { last, .. } => last.source(),
            Error::Transport { source, .. } => Some(source),
            Error::HttpClient { source } => Some(source),
            Error::Encode { source } => Some(source),
            Error::Random { source } => Some(source),
            _ => None,
        }
    }
}

/// A request that did not complete, as the HTTP client reported it: shown as what kind of
/// failure it was (never its URL), the client's own causes following as its source.
#[derive(Debug)]
pub struct HttpFailure(reqwest::Error);

impl HttpFailure {
    /// The HTTP client's error, its URL removed.
    pub(crate) fn new(error: reqwest::Error) -> Self {
        HttpFailure(error.without_url())
    }

    /// The HTTP client's error.
    pub fn error(&self) -> &reqwest::Error {
        &self.0
    }
}

impl std::fmt::Display for HttpFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let e = &self.0;
        f.write_str(if e.is_timeout() {
            "timed out"
        } else if e.is_connect() {
            "could not connect"
        } else if e.is_body() || e.is_decode() {
            "body error"
        } else {
            "request failed"
        })
    }
}

impl std::error::Error for HttpFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.0)
    }
}

/// The operating system's random source failed.
#[derive(Debug)]
pub struct RandomFailure(pub(crate) getrandom::Error);

impl std::fmt::Display for RandomFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for RandomFailure {}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(remedy) = self.remedy() {
            write!(f, "{remedy}\n  cause: ")?;
        }
        self.write_cause(f)
    }
}

impl Error {
    /// What a person does first, for failures fixed outside runway: the credentials, the token,
    /// the server's address, the identity's access. `None` for the rest, whose message says it.
    pub fn remedy(&self) -> Option<&'static str> {
        match self {
            Error::LoginRefused { .. } => Some(
                "Infisical refused the login: check INFISICAL_CLIENT_ID and INFISICAL_CLIENT_SECRET \
                 (a machine identity's universal-auth credentials); not retried, since 3 failures \
                 lock the identity for 5 minutes",
            ),
            Error::TokenExpired { .. } => Some(
                "the Infisical access token expired: set a fresh INFISICAL_TOKEN, or set \
                 INFISICAL_CLIENT_ID and INFISICAL_CLIENT_SECRET instead so runway renews its own \
                 token, and run the same command again",
            ),
            Error::Transport { .. } => Some(
                "Infisical did not answer: check INFISICAL_URL (or `secrets.infisical.url` in the \
                 runway), the network and any proxy",
            ),
            Error::Api { .. } if self.is_token_error() => Some(
                "Infisical does not accept the token: set a valid INFISICAL_TOKEN, or \
                 INFISICAL_CLIENT_ID and INFISICAL_CLIENT_SECRET",
            ),
            Error::Api { status: 403, .. } => Some(
                "the machine identity may not do this: give it access to the project with a role \
                 that reads and writes secrets in this environment",
            ),
            Error::RetriesExhausted { last, .. } => last.remedy(),
            _ => None,
        }
    }

    /// Whether Infisical refused the token itself (missing, malformed, revoked), not the action.
    fn is_token_error(&self) -> bool {
        match self {
            Error::Api { status: 401, .. } => true,
            Error::Api { status: 403, kind, .. } => kind == "TokenError",
            _ => false,
        }
    }

    /// The failure itself, on one line (messages come from the server or this crate).
    fn write_cause(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Api { operation, status, kind, message, req_id } => write!(
                f,
                "Infisical answered {status} {kind} to {operation}: {} (reqId {req_id})",
                one_line(message)
            ),
            Error::LoginRefused { status, message } => {
                write!(f, "Infisical login refused ({status}): {}", one_line(message))
            }
            Error::TokenExpired { operation, reason } => {
                write!(f, "Infisical token expired during {operation}: {reason}")
            }
            Error::RetriesExhausted { operation, attempts, last } => {
                write!(f, "gave up on {operation} after {attempts} attempts; last: ")?;
                last.write_cause(f)
            }
            Error::Transport { operation, .. } => write!(f, "{operation}: no answer from Infisical"),
            Error::Protocol { operation, detail } => write!(f, "unexpected answer to {operation}: {detail}"),
            Error::Config(message) => write!(f, "configuration: {message}"),
            Error::HttpClient { .. } => write!(f, "configuration: HTTP client"),
            Error::Encode { .. } => write!(f, "configuration: cannot encode the request body"),
            Error::InvalidInput(message) => write!(f, "invalid input: {message}"),
            Error::MaskedOutput { name } => write!(
                f,
                "Pulumi output `{name}` is masked as \"[secret]\"; read the outputs with \
                 `pulumi stack output --json --show-secrets`"
            ),
            Error::Outputs(message) => write!(f, "Pulumi stack outputs are not a JSON object: {message}"),
            Error::Random { .. } => write!(f, "the OS random source failed"),
        }
    }
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
        writeln!(f, "{}", Chain(&self.cause))?;
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

/// An error followed by its sources' messages, `: `-separated and each on one line, a message
/// already shown left out.
struct Chain<'a>(&'a (dyn std::error::Error + 'static));

impl std::fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut text = self.0.to_string();
        let mut source = self.0.source();
        while let Some(e) = source {
            let message = e.to_string();
            let line = one_line(&message);
            if !text.contains(&message) && !text.contains(&line) {
                text.push_str(": ");
                text.push_str(&line);
            }
            source = e.source();
        }
        f.write_str(&text)
    }
}

/// Text on one line: a server's message may span several.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
