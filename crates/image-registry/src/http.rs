//! One registry conversation: GETs under `/v2/`, the bearer-token challenge answered once
//! (`WWW-Authenticate: Bearer realm=...,service=...,scope=...`, then the token, then the same
//! request again), a Basic challenge answered with the pull credentials, and 429 and 5xx
//! retried a bounded number of times. Nothing is ever sent but GET.

use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, RETRY_AFTER, WWW_AUTHENTICATE};
use secrecy::ExposeSecret;
use serde::Deserialize;

use crate::Access;

/// The longest pause a `Retry-After` may ask for before a retry: preflight answers in seconds.
const MAX_PAUSE: Duration = Duration::from_secs(2);
/// The largest manifest or config read: far over any real one, and no endless body.
const MAX_BODY: usize = 4 * 1024 * 1024;

/// How one GET ended.
#[derive(Debug)]
pub(crate) enum Fetch {
    /// 200: the content type and the body.
    Ok { content_type: String, body: Vec<u8> },
    /// 404.
    NotFound,
    /// 401 or 403 once the challenge was answered (or could not be).
    Denied { status: u16 },
    /// 429 or 5xx on every attempt.
    Busy { status: u16, attempts: u32 },
    /// No answer: the connection or the token service failed.
    Unreachable { reason: String },
    /// Any other status.
    Other { status: u16 },
}

/// A conversation with one registry for one repository, keeping its token.
pub(crate) struct Session<'a> {
    pub(crate) client: &'a reqwest::Client,
    /// `https://ghcr.io` (or a test's loopback URL), no trailing slash.
    pub(crate) base: String,
    pub(crate) repository: String,
    pub(crate) access: &'a Access,
    pub(crate) attempts: u32,
    pub(crate) pause: Duration,
    /// The `Authorization` value once a challenge was answered.
    pub(crate) authorization: Option<String>,
}

/// A `WWW-Authenticate` challenge.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Challenge {
    pub(crate) scheme: String,
    pub(crate) params: Vec<(String, String)>,
}

impl Challenge {
    /// Parses `Bearer realm="...",service="...",scope="..."` (quoted values may hold commas).
    pub(crate) fn parse(header: &str) -> Option<Challenge> {
        let header = header.trim();
        let (scheme, rest) = header.split_once(' ').unwrap_or((header, ""));
        let mut params = Vec::new();
        let mut chars = rest.chars().peekable();
        loop {
            while chars.peek().is_some_and(|c| *c == ',' || c.is_whitespace()) {
                chars.next();
            }
            let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
            if key.is_empty() {
                break;
            }
            let mut value = String::new();
            if chars.peek() == Some(&'"') {
                chars.next();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => value.extend(chars.next()),
                        other => value.push(other),
                    }
                }
            } else {
                value = chars.by_ref().take_while(|c| *c != ',').collect();
            }
            params.push((key.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
        (!scheme.is_empty()).then(|| Challenge { scheme: scheme.to_ascii_lowercase(), params })
    }

    fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

#[derive(Deserialize)]
struct TokenAnswer {
    token: Option<String>,
    access_token: Option<String>,
}

impl Session<'_> {
    /// GET `/v2/<repository>/<path>` accepting `accept`; one challenge answered, 429 and 5xx
    /// retried.
    pub(crate) async fn get(&mut self, path: &str, accept: &str) -> Fetch {
        let url = format!("{}/v2/{}/{path}", self.base, self.repository);
        let mut challenged = false;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut request = self.client.get(&url).header(ACCEPT, accept);
            if let Some(value) = &self.authorization {
                request = request.header(AUTHORIZATION, value);
            }
            let response = match request.send().await {
                Ok(r) => r,
                Err(e) => return Fetch::Unreachable { reason: describe(&e) },
            };
            let status = response.status();
            if status == StatusCode::UNAUTHORIZED && !challenged {
                challenged = true;
                let header = response.headers().get(WWW_AUTHENTICATE).and_then(|v| v.to_str().ok());
                match header.and_then(Challenge::parse) {
                    Some(challenge) => match self.answer(&challenge).await {
                        Ok(true) => continue,
                        Ok(false) => return Fetch::Denied { status: status.as_u16() },
                        Err(reason) => return Fetch::Unreachable { reason },
                    },
                    None => return Fetch::Denied { status: status.as_u16() },
                }
            }
            if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
                if attempt >= self.attempts {
                    return Fetch::Busy { status: status.as_u16(), attempts: attempt };
                }
                let hint = response
                    .headers()
                    .get(RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map(Duration::from_secs);
                let pause = hint.unwrap_or(self.pause * attempt).min(MAX_PAUSE);
                tokio::time::sleep(pause).await;
                continue;
            }
            return match status.as_u16() {
                200 => read(response).await,
                404 => Fetch::NotFound,
                401 | 403 => Fetch::Denied { status: status.as_u16() },
                other => Fetch::Other { status: other },
            };
        }
    }

    /// Answers a challenge: a bearer token from its realm (with the pull credentials, when
    /// there are), or the credentials themselves for Basic. `Ok(false)`: nothing to answer with.
    async fn answer(&mut self, challenge: &Challenge) -> Result<bool, String> {
        let basic = match self.access {
            Access::Basic { username, password } => {
                // Built only for its header: reqwest encodes Basic credentials.
                let request = self
                    .client
                    .get("http://unused.invalid")
                    .basic_auth(username, Some(password.expose_secret()));
                let built = request.build().map_err(|e| describe(&e))?;
                built.headers().get(AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_owned)
            }
            Access::BasicToken { token } => Some(format!("Basic {}", token.expose_secret())),
            Access::Anonymous | Access::Unavailable { .. } => None,
        };
        match challenge.scheme.as_str() {
            "basic" => {
                self.authorization = basic;
                Ok(self.authorization.is_some())
            }
            "bearer" => {
                let Some(realm) = challenge.param("realm") else { return Ok(false) };
                let default_scope = format!("repository:{}:pull", self.repository);
                let mut query =
                    vec![("scope", challenge.param("scope").unwrap_or(&default_scope).to_owned())];
                if let Some(service) = challenge.param("service") {
                    query.push(("service", service.to_owned()));
                }
                let mut request = self.client.get(realm).query(&query);
                if let Some(header) = &basic {
                    request = request.header(AUTHORIZATION, header);
                }
                let response =
                    request.send().await.map_err(|e| format!("its token service: {}", describe(&e)))?;
                if !response.status().is_success() {
                    return Ok(false);
                }
                let answer: TokenAnswer =
                    response.json().await.map_err(|e| format!("its token service: {e}"))?;
                let Some(token) = answer.token.or(answer.access_token) else { return Ok(false) };
                self.authorization = Some(format!("Bearer {token}"));
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

/// The body of a 200, bounded.
async fn read(response: reqwest::Response) -> Fetch {
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.split(';').next().unwrap_or(v).trim().to_owned())
        .unwrap_or_default();
    match response.bytes().await {
        Ok(bytes) if bytes.len() <= MAX_BODY => Fetch::Ok { content_type, body: bytes.to_vec() },
        Ok(bytes) => {
            Fetch::Unreachable { reason: format!("an answer of {} bytes, over the limit", bytes.len()) }
        }
        Err(e) => Fetch::Unreachable { reason: describe(&e) },
    }
}

/// A transport failure in words, its causes on one line (no URL query: tokens never travel
/// in one, but a realm's query is not ours to print).
fn describe(error: &reqwest::Error) -> String {
    let mut text = if error.is_timeout() {
        "timed out".to_owned()
    } else if error.is_connect() {
        "cannot connect".to_owned()
    } else {
        "the request failed".to_owned()
    };
    let mut source = std::error::Error::source(error);
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::Challenge;

    #[test]
    fn challenges_parse_with_quoted_commas() {
        let c = Challenge::parse(
            r#"Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:a/b:pull,push""#,
        )
        .unwrap();
        assert_eq!(c.scheme, "bearer");
        assert_eq!(c.param("realm"), Some("https://auth.docker.io/token"));
        assert_eq!(c.param("service"), Some("registry.docker.io"));
        assert_eq!(c.param("scope"), Some("repository:a/b:pull,push"));
        let basic = Challenge::parse(r#"Basic realm="ecr""#).unwrap();
        assert_eq!((basic.scheme.as_str(), basic.param("realm")), ("basic", Some("ecr")));
    }
}
