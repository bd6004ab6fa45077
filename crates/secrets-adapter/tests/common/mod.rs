//! Test harness: starts `tools/infisical_contract_server.py` on a free loopback port per test
//! (killed on drop), or targets a real Infisical when `INFISICAL_URL` is set.
#![allow(dead_code, clippy::unwrap_used, missing_docs)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use secrets_adapter::{Auth, Client, ClientConfig, RetryPolicy, SecretString};
use serde_json::{Value, json};

pub const CLIENT_ID: &str = "contract-client-id";
pub const CLIENT_SECRET: &str = "contract-client-secret";
pub const PROJECT: &str = "contract-project";

pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The venv Python: `RUNWAY_PYTHON`, else `<workspace>/.venv/bin/python`. Panics (the test
/// fails) when neither exists.
pub fn python() -> PathBuf {
    if let Ok(p) = std::env::var("RUNWAY_PYTHON") {
        let p = PathBuf::from(p);
        assert!(p.exists(), "RUNWAY_PYTHON={} does not exist; run `cargo xtask venv`", p.display());
        return p;
    }
    let p = workspace().join(".venv/bin/python");
    assert!(
        p.exists(),
        "no Python for the Infisical contract server: set RUNWAY_PYTHON or run `cargo xtask venv` \
         (creates {})",
        p.display()
    );
    p
}

pub struct ContractServer {
    child: Child,
    pub url: String,
}

impl ContractServer {
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    pub fn start_with(extra: &[&str]) -> Self {
        let mut child = Command::new(python())
            .arg(workspace().join("tools/infisical_contract_server.py"))
            .args(["--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the contract server");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port: u16 = line.trim().parse().unwrap_or_else(|_| {
            let _ = child.kill();
            panic!("contract server printed `{line}` instead of a port")
        });
        ContractServer { child, url: format!("http://127.0.0.1:{port}") }
    }

    pub async fn faults(&self, body: Value) {
        let resp = reqwest::Client::new()
            .post(format!("{}/__contract/faults", self.url))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(resp.status().is_success());
    }

    pub async fn clear_faults(&self) {
        self.faults(json!({"throttle_next": 0, "fail_next_500": 0, "drop_next_connection": 0})).await;
    }

    pub async fn state(&self, values: bool) -> Value {
        let q = if values { "?values=1" } else { "" };
        reqwest::Client::new()
            .get(format!("{}/__contract/state{q}", self.url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// `"env:/path/NAME" -> version` for every secret.
    pub async fn versions(&self) -> std::collections::BTreeMap<String, u64> {
        let state = self.state(false).await;
        state["secrets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let path = s["path"].as_str().unwrap();
                let sep = if path == "/" { "" } else { "/" };
                (
                    format!(
                        "{}:{}{}{}",
                        s["environment"].as_str().unwrap(),
                        path,
                        sep,
                        s["name"].as_str().unwrap()
                    ),
                    s["version"].as_u64().unwrap(),
                )
            })
            .collect()
    }

    /// Value of one secret (tests use it only to check canaries and generation rules).
    pub async fn value(&self, env: &str, path: &str, name: &str) -> Option<String> {
        let state = self.state(true).await;
        state["secrets"].as_array().unwrap().iter().find_map(|s| {
            (s["environment"] == env && s["path"] == path && s["name"] == name)
                .then(|| s["value"].as_str().unwrap().to_string())
        })
    }

    pub async fn requests(&self) -> Vec<(String, String)> {
        let state = self.state(false).await;
        state["requests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["method"].as_str().unwrap().into(), r["path"].as_str().unwrap().into()))
            .collect()
    }
}

impl Drop for ContractServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

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
                let client = client_for(&server.url, CLIENT_ID, CLIENT_SECRET);
                Target { server: Some(server), client, project: PROJECT.into(), root }
            }
        }
    }

    /// The contract server; `None` against a real Infisical (fault tests skip then).
    pub fn contract(&self) -> Option<&ContractServer> {
        self.server.as_ref()
    }
}
