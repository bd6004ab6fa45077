//! Test harness: a client with quick retries, and the target of the end-to-end tests: the
//! contract server (`test_support::ContractServer`, one per test) or a real Infisical when
//! `INFISICAL_URL` is set.
#![allow(dead_code, clippy::unwrap_used, missing_docs)]

use std::time::Duration;

use secrets_adapter::{Auth, Client, ClientConfig, RetryPolicy, SecretString};
use test_support::ContractServer;
use test_support::contract::{CLIENT_ID, CLIENT_SECRET, PROJECT};

pub fn fast_retry() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 4,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(50),
    }
}

pub fn client_for(url: &str, client_id: &str, secret: &str) -> Client {
    let mut config = ClientConfig::new(
        url,
        Auth::UniversalAuth { client_id: client_id.into(), client_secret: SecretString::from(secret) },
    );
    config.timeout = Duration::from_secs(5);
    config.connect_timeout = Duration::from_secs(2);
    config.retry = fast_retry();
    Client::new(config).unwrap()
}

/// Where the end-to-end tests run: the contract server, or a real Infisical when
/// `INFISICAL_URL` (+ `INFISICAL_CLIENT_ID`, `INFISICAL_CLIENT_SECRET`, `INFISICAL_PROJECT_ID`)
/// is set. `root` is a fresh folder per test so runs never collide.
pub struct Target {
    pub server: Option<ContractServer>,
    pub client: Client,
    pub project: String,
    pub root: String,
}

impl Target {
    pub fn new() -> Self {
        let suffix = {
            let mut b = [0u8; 6];
            getrandom::fill(&mut b).unwrap();
            b.iter().map(|x| format!("{x:02x}")).collect::<String>()
        };
        let root = format!("/runway-test-{suffix}");
        match std::env::var("INFISICAL_URL") {
            Ok(url) if !url.is_empty() => {
                let var = |n: &str| {
                    std::env::var(n).unwrap_or_else(|_| panic!("{n} must be set with INFISICAL_URL"))
                };
                let client = client_for(&url, &var("INFISICAL_CLIENT_ID"), &var("INFISICAL_CLIENT_SECRET"));
                Target { server: None, client, project: var("INFISICAL_PROJECT_ID"), root }
            }
            _ => {
                let server = ContractServer::start();
                let client = client_for(&server.url(), CLIENT_ID, CLIENT_SECRET);
                Target { server: Some(server), client, project: PROJECT.into(), root }
            }
        }
    }

    /// The contract server; `None` against a real Infisical (fault tests skip then).
    pub fn contract(&self) -> Option<&ContractServer> {
        self.server.as_ref()
    }
}
