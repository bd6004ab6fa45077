//! HTTP: one GET per file, the body read chunk by chunk with progress, retried when the
//! failure may pass (a GET of a public file is safe to repeat).

use std::time::Duration;

use crate::{Error, Progress};

/// The largest file read: the biggest offer the catalogue needs (AmazonEC2, for the NAT
/// gateway) is about 480 MB for us-east-1; about twice that is not a price-list file of ours.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024 * 1024;

/// An HTTP client with timeouts: 10 s to connect, 60 s without a byte.
pub(crate) fn client() -> Result<reqwest::Client, Error> {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .read_timeout(Duration::from_secs(60))
        .user_agent(concat!("runway-price-import/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| Error::Client { message: error_chain(&e) })
}

/// The waits before the second and third attempts of a GET whose failure may pass.
const RETRY_WAITS: [Duration; 2] = [Duration::from_millis(250), Duration::from_millis(1000)];

/// The body of `url`, reporting progress as it arrives. An unreachable endpoint, a broken
/// transfer, HTTP 429 or a 5xx is tried again, up to three attempts; the last error is
/// returned.
pub(crate) async fn get(
    client: &reqwest::Client,
    url: &str,
    offer: &str,
    region: Option<&str>,
    progress: &mut dyn FnMut(&Progress<'_>),
) -> Result<Vec<u8>, Error> {
    let mut waits = RETRY_WAITS.iter();
    loop {
        match get_once(client, url, offer, region, progress).await {
            Err(e) if e.may_pass() => match waits.next() {
                Some(wait) => tokio::time::sleep(*wait).await,
                None => return Err(e),
            },
            done => return done,
        }
    }
}

/// One attempt of [`get`].
async fn get_once(
    client: &reqwest::Client,
    url: &str,
    offer: &str,
    region: Option<&str>,
    progress: &mut dyn FnMut(&Progress<'_>),
) -> Result<Vec<u8>, Error> {
    let unreachable =
        |e: reqwest::Error| Error::Unreachable { url: url.to_owned(), message: error_chain(&e) };
    let mut response = client.get(url).send().await.map_err(unreachable)?;
    let status = response.status();
    if !status.is_success() {
        return Err(Error::Status { url: url.to_owned(), status: status.as_u16() });
    }
    let total = response.content_length();
    if total.is_some_and(|t| t > MAX_FILE_BYTES) {
        return Err(Error::TooLarge { url: url.to_owned(), limit: MAX_FILE_BYTES });
    }
    let capacity = usize::try_from(total.unwrap_or(0).min(MAX_FILE_BYTES)).unwrap_or(0);
    let mut body = Vec::with_capacity(capacity);
    while let Some(chunk) = response.chunk().await.map_err(unreachable)? {
        if body.len() as u64 + chunk.len() as u64 > MAX_FILE_BYTES {
            return Err(Error::TooLarge { url: url.to_owned(), limit: MAX_FILE_BYTES });
        }
        body.extend_from_slice(&chunk);
        progress(&Progress { offer, region, received: body.len() as u64, total, done: false });
    }
    if let Some(t) = total
        && t != body.len() as u64
    {
        return Err(Error::Unreachable {
            url: url.to_owned(),
            message: format!("the transfer ended after {} of {t} bytes", body.len()),
        });
    }
    progress(&Progress { offer, region, received: body.len() as u64, total, done: true });
    Ok(body)
}

/// An error and its causes on one line (reqwest's own message omits the cause: "error
/// sending request" without "connection refused").
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}
