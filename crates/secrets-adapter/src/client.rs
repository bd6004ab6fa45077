//! A thin Infisical REST client: universal-auth login, v4 secrets, v2 folders (deletion: `folders`).
//!
//! Every call has a timeout; 429, 5xx and transport failures are retried with bounded backoff
//! honouring the server's hint ("try again in N seconds"); an expired token (403 `TokenError`)
//! triggers one re-login and one retry of the call. A refused login is final.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use reqwest::Method;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde_json::json;
use zeroize::Zeroizing;

use crate::error::{Error, HttpFailure};
mod folders;
pub use folders::FolderDeletion;

/// Infisical Cloud (US).
pub const INFISICAL_CLOUD: &str = "https://app.infisical.com";

/// At most this many re-logins over a client's life: a server that keeps calling fresh tokens
/// expired is not chased.
const MAX_RELOGINS: u32 = 3;

/// How the client authenticates.
#[non_exhaustive]
pub enum Auth {
    /// Machine identity, universal auth: logs in on first use and once more when the token
    /// expires.
    UniversalAuth {
        /// `INFISICAL_CLIENT_ID`.
        client_id: String,
        /// `INFISICAL_CLIENT_SECRET`.
        client_secret: SecretString,
    },
    /// A ready access token (`INFISICAL_TOKEN`); it cannot be renewed.
    Token(SecretString),
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auth::UniversalAuth { client_id, .. } => f
                .debug_struct("UniversalAuth")
                .field("client_id", client_id)
                .field("client_secret", &"[REDACTED]")
                .finish(),
            Auth::Token(_) => f.write_str("Token([REDACTED])"),
        }
    }
}

/// Retry budget for 429, 5xx and transport failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts per call, the first included (≥ 1).
    pub max_attempts: u32,
    /// First backoff; doubles per attempt.
    pub base_delay: Duration,
    /// Cap on any single wait, including a server's hint.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            // Eight: a run must get through a flaky network (tested at 37% of requests lost
            // or failed: crates/runway-cli/tests/faults.rs); a write is read back after a lost
            // answer, never written twice.
            max_attempts: 8,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(20),
        }
    }
}

impl RetryPolicy {
    /// The wait before attempt `attempt + 1`: exponential backoff, at least the server's hint,
    /// never above `max_delay`.
    pub fn delay(&self, attempt: u32, hint: Option<Duration>) -> Duration {
        let backoff = self.base_delay.saturating_mul(2u32.saturating_pow(attempt.saturating_sub(1)));
        backoff.max(hint.unwrap_or_default()).min(self.max_delay)
    }
}

/// Everything a [`Client`] needs; no environment is read here.
#[derive(Debug)]
pub struct ClientConfig {
    /// `https://app.infisical.com`, `https://eu.infisical.com` or a self-hosted URL.
    pub base_url: String,
    /// Credentials.
    pub auth: Auth,
    /// Per-request timeout (whole request, body included).
    pub timeout: Duration,
    /// Connect timeout.
    pub connect_timeout: Duration,
    /// Retry budget.
    pub retry: RetryPolicy,
}

impl ClientConfig {
    /// A configuration with default timeouts (30 s, connect 10 s) and retries.
    pub fn new(base_url: impl Into<String>, auth: Auth) -> Self {
        ClientConfig {
            base_url: base_url.into(),
            auth,
            timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            retry: RetryPolicy::default(),
        }
    }
}

/// A secret's metadata; the value is never part of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretMeta {
    /// The secret's name (`secretKey`).
    pub name: String,
    /// Its version (1 after create, +1 per update).
    pub version: u64,
}

/// Whether a create made a new object or found one there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Newly created.
    Created,
    /// Was already there (Infisical answered 400 "already exists").
    AlreadyExists,
}

/// An Infisical client. Cheap to share by reference; calls are made one at a time by the
/// operations in this crate.
pub struct Client {
    http: reqwest::Client,
    base: String,
    auth: Auth,
    retry: RetryPolicy,
    token: Mutex<Option<SecretString>>,
    login_refused: Mutex<Option<(u16, String)>>,
    relogins: AtomicU32,
    logged_in_once: AtomicBool,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.base)
            .field("auth", &self.auth)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

/// A 2xx answer's body, zeroized on drop (it may hold a value).
struct Answer {
    body: Zeroizing<Vec<u8>>,
}

#[derive(Deserialize)]
struct ErrorBody {
    #[serde(rename = "reqId", default)]
    req_id: Option<String>,
    #[serde(default)]
    message: Option<serde_json::Value>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Deserialize)]
struct LoginBody {
    #[serde(rename = "accessToken")]
    access_token: SecretString,
}

#[derive(Deserialize)]
struct SecretBody {
    secret: Option<SecretItem>,
}

#[derive(Deserialize)]
struct SecretItem {
    #[serde(rename = "secretKey")]
    key: String,
    version: u64,
    #[serde(rename = "secretValue", default)]
    value: Option<SecretString>,
}

#[derive(Deserialize)]
struct SecretList {
    secrets: Vec<SecretItem>,
}

#[derive(Deserialize)]
struct FolderList {
    folders: Vec<FolderItem>,
}

#[derive(Deserialize)]
struct FolderItem {
    name: String,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A poisoned lock only means another call panicked while holding it; the guarded data (an
    // optional token or refusal) is still consistent, so it is used as is.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Parses "… try again in N seconds" from a 429 message.
fn retry_hint(message: &str) -> Option<Duration> {
    let rest = &message[message.find("try again in ")? + "try again in ".len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse::<u64>().ok().map(Duration::from_secs)
}

fn split_folder(folder: &str) -> (String, String) {
    let trimmed = folder.trim_end_matches('/');
    match trimmed.rfind('/') {
        Some(i) => {
            let parent = if i == 0 { "/" } else { &trimmed[..i] };
            (parent.to_string(), trimmed[i + 1..].to_string())
        }
        None => ("/".to_string(), trimmed.to_string()),
    }
}

impl Client {
    /// Builds a client; makes no call (login happens on first use).
    pub fn new(config: ClientConfig) -> Result<Client, Error> {
        let base = config.base_url.trim_end_matches('/').to_string();
        if !(base.starts_with("https://") || base.starts_with("http://")) {
            return Err(Error::Config(format!(
                "Infisical URL `{base}` must start with https:// (or http:// for loopback tests)"
            )));
        }
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.connect_timeout)
            .user_agent(concat!("runway-secrets-adapter/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|source| Error::HttpClient { source })?;
        let token = match &config.auth {
            Auth::Token(t) => Some(t.clone()),
            Auth::UniversalAuth { .. } => None,
        };
        Ok(Client {
            http,
            base,
            auth: config.auth,
            retry: config.retry,
            token: Mutex::new(token),
            login_refused: Mutex::new(None),
            relogins: AtomicU32::new(0),
            logged_in_once: AtomicBool::new(false),
        })
    }

    /// The CLI-facing constructor: `INFISICAL_URL` (default Infisical Cloud), then
    /// `INFISICAL_TOKEN`, or else `INFISICAL_CLIENT_ID` + `INFISICAL_CLIENT_SECRET`.
    pub fn from_env() -> Result<Client, Error> {
        Client::from_env_or(INFISICAL_CLOUD)
    }

    /// Like [`Client::from_env`], with `default_url` (e.g. the runway's `secrets.infisical.url`)
    /// used when `INFISICAL_URL` is unset or empty.
    pub fn from_env_or(default_url: &str) -> Result<Client, Error> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let base = var("INFISICAL_URL").unwrap_or_else(|| default_url.to_string());
        let auth = if let Some(token) = var("INFISICAL_TOKEN") {
            Auth::Token(SecretString::from(token))
        } else {
            match (var("INFISICAL_CLIENT_ID"), var("INFISICAL_CLIENT_SECRET")) {
                (Some(client_id), Some(secret)) => {
                    Auth::UniversalAuth { client_id, client_secret: SecretString::from(secret) }
                }
                _ => {
                    return Err(Error::Config(
                        "set INFISICAL_TOKEN, or INFISICAL_CLIENT_ID and INFISICAL_CLIENT_SECRET \
                         (a machine identity with universal auth)"
                            .into(),
                    ));
                }
            }
        };
        Client::new(ClientConfig::new(base, auth))
    }

    /// The base URL in use.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    // ---- auth ------------------------------------------------------------------------------

    /// Logs in with universal auth (no-op with a ready token). A refusal is final: every later
    /// call returns the same [`Error::LoginRefused`] without contacting the server.
    pub async fn login(&self) -> Result<(), Error> {
        if let Some((status, message)) = lock(&self.login_refused).clone() {
            return Err(Error::LoginRefused { status, message });
        }
        let Auth::UniversalAuth { client_id, client_secret } = &self.auth else {
            return Ok(());
        };
        let body = Zeroizing::new(
            serde_json::to_vec(&json!({
                "clientId": client_id,
                "clientSecret": client_secret.expose_secret(),
            }))
            .map_err(|source| Error::Encode { source })?,
        );
        let op = "universal-auth login";
        let answer = self
            .send_with_retries(op, Method::POST, "/api/v1/auth/universal-auth/login", &[], Some(&body), None)
            .await;
        let answer = match answer {
            Ok(a) => a,
            Err(Error::Api { status, message, .. }) if (400..500).contains(&status) => {
                *lock(&self.login_refused) = Some((status, message.clone()));
                return Err(Error::LoginRefused { status, message });
            }
            Err(e) => return Err(e),
        };
        let parsed: LoginBody = serde_json::from_slice(&answer.body).map_err(|e| Error::Protocol {
            operation: op.into(),
            detail: format!("login answer without accessToken (line {} column {})", e.line(), e.column()),
        })?;
        *lock(&self.token) = Some(parsed.access_token);
        self.logged_in_once.store(true, Ordering::SeqCst);
        Ok(())
    }

    async fn current_token(&self) -> Result<SecretString, Error> {
        if let Some(t) = lock(&self.token).clone() {
            return Ok(t);
        }
        self.login().await?;
        lock(&self.token).clone().ok_or_else(|| Error::Protocol {
            operation: "universal-auth login".into(),
            detail: "no token after login".into(),
        })
    }

    // ---- transport -------------------------------------------------------------------------

    /// One authenticated call with retries and at most one re-login.
    async fn call(
        &self,
        op: &str,
        method: Method,
        path: &str,
        query: &[(&str, &str)],
        body: Option<&Zeroizing<Vec<u8>>>,
    ) -> Result<Answer, Error> {
        let mut relogged = false;
        loop {
            let token = self.current_token().await?;
            match self.send_with_retries(op, method.clone(), path, query, body, Some(&token)).await {
                Err(Error::Api { status: 403, message, .. }) if message.contains("expired") => {
                    let reason = match &self.auth {
                        Auth::Token(_) => Some("a ready token (INFISICAL_TOKEN) cannot be renewed"),
                        Auth::UniversalAuth { .. } if relogged => {
                            Some("reported expired again right after a re-login")
                        }
                        Auth::UniversalAuth { .. }
                            if self.relogins.load(Ordering::SeqCst) >= MAX_RELOGINS =>
                        {
                            Some("re-login budget of this run used up")
                        }
                        Auth::UniversalAuth { .. } => None,
                    };
                    if let Some(reason) = reason {
                        return Err(Error::TokenExpired { operation: op.into(), reason });
                    }
                    relogged = true;
                    self.relogins.fetch_add(1, Ordering::SeqCst);
                    *lock(&self.token) = None;
                    self.login().await?;
                }
                other => return other,
            }
        }
    }

    /// Sends one request, retrying 429/5xx/transport failures within the budget. Non-2xx
    /// answers come back as [`Error::Api`].
    async fn send_with_retries(
        &self,
        op: &str,
        method: Method,
        path: &str,
        query: &[(&str, &str)],
        body: Option<&Zeroizing<Vec<u8>>>,
        token: Option<&SecretString>,
    ) -> Result<Answer, Error> {
        let url = format!("{}{}", self.base, path);
        let attempts = self.retry.max_attempts.max(1);
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut req = self.http.request(method.clone(), &url).header("Accept", "application/json");
            if !query.is_empty() {
                req = req.query(query);
            }
            if let Some(t) = token {
                req = req.bearer_auth(t.expose_secret());
            }
            if let Some(b) = body {
                req = req.header("Content-Type", "application/json").body(b.to_vec());
            }
            let (failure, hint) = match req.send().await {
                // An update sent and not answered may have been carried out: the caller reads
                // back rather than writing again (a second write is a second version).
                Err(e) if method == Method::PATCH && !e.is_connect() => return Err(self.transport(op, e)),
                Err(e) => (self.transport(op, e), None),
                Ok(resp) => {
                    let status = resp.status().as_u16();
                    let header_hint = resp
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .map(Duration::from_secs);
                    match resp.bytes().await {
                        Err(e) => (self.transport(op, e), None),
                        Ok(bytes) => {
                            let body = Zeroizing::new(bytes.to_vec());
                            if (200..300).contains(&status) {
                                return Ok(Answer { body });
                            }
                            let err = api_error(op, status, &body);
                            let hint = match &err {
                                Error::Api { message, .. } => retry_hint(message).or(header_hint),
                                _ => header_hint,
                            };
                            if status != 429 && status < 500 {
                                return Err(err);
                            }
                            (err, hint)
                        }
                    }
                }
            };
            if attempt >= attempts {
                return Err(Error::RetriesExhausted {
                    operation: op.into(),
                    attempts: attempt,
                    last: Box::new(failure),
                });
            }
            tokio::time::sleep(self.retry.delay(attempt, hint)).await;
        }
    }

    fn transport(&self, op: &str, e: reqwest::Error) -> Error {
        // The URL is stripped: it carries only names, but the message reads better without it.
        Error::Transport { operation: op.into(), timeout: e.is_timeout(), source: HttpFailure::new(e) }
    }

    // ---- secrets (v4) ----------------------------------------------------------------------

    /// Existence check without the value (`viewSecretValue=false`): `Some(meta)` when the
    /// secret exists, `None` when it or its folder does not.
    pub async fn secret_meta(
        &self,
        project_id: &str,
        environment: &str,
        folder: &str,
        name: &str,
    ) -> Result<Option<SecretMeta>, Error> {
        let op = format!("check secret {environment}:{folder}/{name}");
        let query = [
            ("projectId", project_id),
            ("environment", environment),
            ("secretPath", folder),
            ("type", "shared"),
            ("viewSecretValue", "false"),
            ("expandSecretReferences", "false"),
        ];
        match self.call(&op, Method::GET, &secret_path(name), &query, None).await {
            Ok(answer) => {
                let item = parse_secret(&op, &answer)?;
                Ok(Some(SecretMeta { name: item.key, version: item.version }))
            }
            Err(e) if e.is_absent() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Reads a secret's stored value (`viewSecretValue=true`, references not expanded).
    /// `None` when absent. Used only to compare before a write and for the RDS Proxy copy.
    pub async fn read_value(
        &self,
        project_id: &str,
        environment: &str,
        folder: &str,
        name: &str,
    ) -> Result<Option<SecretString>, Error> {
        self.read(project_id, environment, folder, name, false).await
    }

    /// Reads a secret's value with its references (`${OTHER}`) expanded by Infisical, as
    /// Infisical's own syncs deliver it. `None` when absent. Used only by `runway ssm publish`
    /// to copy a resource variable into SSM.
    pub async fn read_expanded_value(
        &self,
        project_id: &str,
        environment: &str,
        folder: &str,
        name: &str,
    ) -> Result<Option<SecretString>, Error> {
        self.read(project_id, environment, folder, name, true).await
    }

    async fn read(
        &self,
        project_id: &str,
        environment: &str,
        folder: &str,
        name: &str,
        expand: bool,
    ) -> Result<Option<SecretString>, Error> {
        let op = format!("read secret {environment}:{folder}/{name}");
        let query = [
            ("projectId", project_id),
            ("environment", environment),
            ("secretPath", folder),
            ("type", "shared"),
            ("viewSecretValue", "true"),
            ("expandSecretReferences", if expand { "true" } else { "false" }),
        ];
        match self.call(&op, Method::GET, &secret_path(name), &query, None).await {
            Ok(answer) => {
                let item = parse_secret(&op, &answer)?;
                item.value
                    .map(Some)
                    .ok_or_else(|| Error::Protocol { operation: op, detail: "secretValue missing".into() })
            }
            Err(e) if e.is_absent() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Creates a secret; 400 "Secret already exists" is reported as [`Outcome::AlreadyExists`]
    /// (the stored value is left alone).
    pub async fn create_secret(
        &self,
        project_id: &str,
        environment: &str,
        folder: &str,
        name: &str,
        value: &SecretString,
    ) -> Result<Outcome, Error> {
        let op = format!("create secret {environment}:{folder}/{name}");
        let body = write_body(project_id, environment, folder, Some(value))?;
        match self.call(&op, Method::POST, &secret_path(name), &[], Some(&body)).await {
            Ok(answer) => {
                parse_secret(&op, &answer)?;
                Ok(Outcome::Created)
            }
            Err(e) if e.is_already_exists() => Ok(Outcome::AlreadyExists),
            Err(e) => Err(e),
        }
    }

    /// Updates a secret's value; returns its new metadata.
    pub async fn update_secret(
        &self,
        project_id: &str,
        environment: &str,
        folder: &str,
        name: &str,
        value: &SecretString,
    ) -> Result<SecretMeta, Error> {
        let op = format!("update secret {environment}:{folder}/{name}");
        let body = write_body(project_id, environment, folder, Some(value))?;
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.call(&op, Method::PATCH, &secret_path(name), &[], Some(&body)).await {
                Ok(answer) => {
                    let item = parse_secret(&op, &answer)?;
                    return Ok(SecretMeta { name: item.key, version: item.version });
                }
                // The answer was lost: read back, and write again only when the value is not
                // there yet.
                Err(e @ Error::Transport { .. }) if attempt < self.retry.max_attempts.max(1) => {
                    tokio::time::sleep(self.retry.delay(attempt, None)).await;
                    let stored = self.read_value(project_id, environment, folder, name).await?;
                    if stored.as_ref().map(ExposeSecret::expose_secret) == Some(value.expose_secret()) {
                        return self.secret_meta(project_id, environment, folder, name).await?.ok_or(e);
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Deletes a secret; `false` when it was not there.
    pub async fn delete_secret(
        &self,
        project_id: &str,
        environment: &str,
        folder: &str,
        name: &str,
    ) -> Result<bool, Error> {
        let op = format!("delete secret {environment}:{folder}/{name}");
        let body = write_body(project_id, environment, folder, None)?;
        match self.call(&op, Method::DELETE, &secret_path(name), &[], Some(&body)).await {
            Ok(_) => Ok(true),
            Err(e) if e.is_absent() => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Lists a folder's secrets without values; a missing folder lists as empty.
    pub async fn list_secrets(
        &self,
        project_id: &str,
        environment: &str,
        folder: &str,
    ) -> Result<Vec<SecretMeta>, Error> {
        let op = format!("list secrets {environment}:{folder}");
        let query = [
            ("projectId", project_id),
            ("environment", environment),
            ("secretPath", folder),
            ("viewSecretValue", "false"),
            ("expandSecretReferences", "false"),
        ];
        match self.call(&op, Method::GET, "/api/v4/secrets", &query, None).await {
            Ok(answer) => {
                let list: SecretList = serde_json::from_slice(&answer.body).map_err(|e| Error::Protocol {
                    operation: op.clone(),
                    detail: format!("not a secret list (line {} column {})", e.line(), e.column()),
                })?;
                Ok(list.secrets.into_iter().map(|s| SecretMeta { name: s.key, version: s.version }).collect())
            }
            Err(e) if e.is_absent() => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    // ---- folders (v2) ----------------------------------------------------------------------

    /// Creates a folder (absolute path, e.g. `/runtime/main-db`); Infisical creates missing
    /// parents. "already exists" (400) is [`Outcome::AlreadyExists`]. The root always exists.
    pub async fn ensure_folder(
        &self,
        project_id: &str,
        environment: &str,
        folder: &str,
    ) -> Result<Outcome, Error> {
        if folder.trim_end_matches('/').is_empty() {
            return Ok(Outcome::AlreadyExists);
        }
        let (parent, name) = split_folder(folder);
        let op = format!("create folder {environment}:{folder}");
        let body = Zeroizing::new(
            serde_json::to_vec(&json!({
                "projectId": project_id,
                "environment": environment,
                "name": name,
                "path": parent,
            }))
            .map_err(|source| Error::Encode { source })?,
        );
        match self.call(&op, Method::POST, "/api/v2/folders", &[], Some(&body)).await {
            Ok(_) => Ok(Outcome::Created),
            Err(e) if e.is_already_exists() => Ok(Outcome::AlreadyExists),
            Err(e) => Err(e),
        }
    }

    /// Whether a folder exists (lists its parent; read-only).
    pub async fn folder_exists(
        &self,
        project_id: &str,
        environment: &str,
        folder: &str,
    ) -> Result<bool, Error> {
        if folder.trim_end_matches('/').is_empty() {
            return Ok(true);
        }
        let (parent, name) = split_folder(folder);
        let op = format!("list folders {environment}:{parent}");
        let query = [("projectId", project_id), ("environment", environment), ("path", parent.as_str())];
        match self.call(&op, Method::GET, "/api/v2/folders", &query, None).await {
            Ok(answer) => {
                let list: FolderList = serde_json::from_slice(&answer.body).map_err(|e| Error::Protocol {
                    operation: op.clone(),
                    detail: format!("not a folder list (line {} column {})", e.line(), e.column()),
                })?;
                Ok(list.folders.iter().any(|f| f.name == name))
            }
            Err(e) if e.is_absent() => Ok(false),
            Err(e) => Err(e),
        }
    }
}

fn secret_path(name: &str) -> String {
    // Names are validated to `[A-Za-z0-9_.-]` before any call, so no escaping is needed.
    format!("/api/v4/secrets/{name}")
}

fn write_body(
    project_id: &str,
    environment: &str,
    folder: &str,
    value: Option<&SecretString>,
) -> Result<Zeroizing<Vec<u8>>, Error> {
    let mut body = json!({
        "projectId": project_id,
        "environment": environment,
        "secretPath": folder,
        "type": "shared",
    });
    if let Some(v) = value {
        body["secretValue"] = serde_json::Value::String(v.expose_secret().to_string());
    }
    let bytes = serde_json::to_vec(&body).map_err(|source| Error::Encode { source });
    // The JSON tree held a plain copy of the value: wipe it before it is dropped.
    if let Some(serde_json::Value::String(s)) = body.get_mut("secretValue") {
        zeroize::Zeroize::zeroize(s);
    }
    Ok(Zeroizing::new(bytes?))
}

fn parse_secret(op: &str, answer: &Answer) -> Result<SecretItem, Error> {
    let parsed: SecretBody = serde_json::from_slice(&answer.body).map_err(|e| Error::Protocol {
        operation: op.into(),
        detail: format!("not a secret answer (line {} column {})", e.line(), e.column()),
    })?;
    parsed.secret.ok_or_else(|| Error::Protocol {
        operation: op.into(),
        detail: "no `secret` in the answer: the environment has an approval policy, so the \
                 change waits for approval in Infisical"
            .into(),
    })
}

fn api_error(op: &str, status: u16, body: &[u8]) -> Error {
    let parsed: Option<ErrorBody> = serde_json::from_slice(body).ok();
    let (req_id, message, kind) = match parsed {
        Some(b) => (
            b.req_id.unwrap_or_default(),
            match b.message {
                Some(serde_json::Value::String(s)) => s,
                Some(other) => other.to_string(),
                None => String::new(),
            },
            b.error.unwrap_or_default(),
        ),
        None => (String::new(), "(no JSON error body)".into(), String::new()),
    };
    Error::Api { operation: op.into(), status, kind, message, req_id }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hint_is_parsed() {
        assert_eq!(
            retry_hint("Rate limit exceeded. Please try again in 7 seconds"),
            Some(Duration::from_secs(7))
        );
        assert_eq!(retry_hint("Something went wrong"), None);
    }

    #[test]
    fn delay_honours_hint_and_cap() {
        let p = RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(5),
        };
        assert_eq!(p.delay(1, None), Duration::from_millis(100));
        assert_eq!(p.delay(3, None), Duration::from_millis(400));
        assert_eq!(p.delay(1, Some(Duration::from_secs(2))), Duration::from_secs(2));
        assert_eq!(p.delay(1, Some(Duration::from_secs(60))), Duration::from_secs(5));
    }

    #[test]
    fn folders_split() {
        assert_eq!(split_folder("/runtime/main-db"), ("/runtime".into(), "main-db".into()));
        assert_eq!(split_folder("/runtime"), ("/".into(), "runtime".into()));
    }
}
