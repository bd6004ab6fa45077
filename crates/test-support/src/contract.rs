//! The Infisical contract server (`tools/infisical_contract_server.py`) on a free loopback port,
//! and its test-only endpoints (`/__contract/faults`, `/__contract/state`).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

use crate::net::http;
use crate::paths::{python, workspace};

/// The machine identity's client id the server accepts unless told otherwise.
pub const CLIENT_ID: &str = "contract-client-id";
/// The machine identity's client secret the server accepts unless told otherwise.
pub const CLIENT_SECRET: &str = "contract-client-secret";
/// The project the identity may use unless the server is started with `--project`.
pub const PROJECT: &str = "contract-project";

/// A contract server, killed on drop. Each test starts its own: its store is in memory.
#[derive(Debug)]
pub struct ContractServer {
    child: Child,
    /// The port it listens on, at `127.0.0.1`.
    pub port: u16,
}

impl ContractServer {
    /// Starts a server with its defaults ([`CLIENT_ID`], [`CLIENT_SECRET`], [`PROJECT`]).
    pub fn start() -> Self {
        Self::start_with(&[])
    }

    /// Starts a server with extra arguments (`--project ID`, `--token-ttl S`, ...). Panics when
    /// it does not print its port.
    pub fn start_with(extra: &[&str]) -> Self {
        let mut child = Command::new(python())
            .arg(workspace().join("tools/infisical_contract_server.py"))
            .args(["--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("cannot start the contract server");
        // The server prints the port it bound alone on its first line, then nothing more.
        let stdout = child.stdout.take().expect("the contract server's stdout is piped");
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let Ok(port) = line.trim().parse() else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the contract server printed `{line}` instead of a port");
        };
        ContractServer { child, port }
    }

    /// Its base URL, `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Switches faults on or off (`POST /__contract/faults`; the keys are in the server's doc).
    pub fn faults(&self, switch: Value) {
        let reply = self.call("POST", "/__contract/faults", &switch.to_string());
        assert_eq!(reply.status, 200, "the contract server refused the faults: {}", reply.body);
    }

    /// Switches every counted fault off.
    pub fn clear_faults(&self) {
        self.faults(json!({"throttle_next": 0, "fail_next_500": 0, "drop_next_connection": 0}));
    }

    /// `GET /__contract/state`; with `values`, the secrets' values too.
    pub fn state(&self, values: bool) -> Value {
        let path = if values { "/__contract/state?values=1" } else { "/__contract/state" };
        let reply = self.call("GET", path, "");
        serde_json::from_str(&reply.body)
            .unwrap_or_else(|e| panic!("the contract server's state is not JSON ({e}): {}", reply.body))
    }

    /// `"env:/path/NAME" -> version` of every secret.
    pub fn versions(&self) -> BTreeMap<String, u64> {
        secrets(&self.state(false))
            .iter()
            .map(|s| {
                let path = text(&s["path"]);
                let sep = if path == "/" { "" } else { "/" };
                let key = format!("{}:{path}{sep}{}", text(&s["environment"]), text(&s["name"]));
                (key, s["version"].as_u64().expect("a secret's version is a number"))
            })
            .collect()
    }

    /// The value of one secret (tests use values only as canaries and to check generation rules).
    pub fn value(&self, env: &str, path: &str, name: &str) -> Option<String> {
        secrets(&self.state(true)).iter().find_map(|s| {
            (s["environment"] == env && s["path"] == path && s["name"] == name)
                .then(|| text(&s["value"]).to_owned())
        })
    }

    /// `NAME -> value` of every secret, whatever its environment and folder.
    pub fn values(&self) -> BTreeMap<String, String> {
        secrets(&self.state(true))
            .iter()
            .map(|s| (text(&s["name"]).to_owned(), text(&s["value"]).to_owned()))
            .collect()
    }

    /// `(method, path)` of every request answered, in order.
    pub fn requests(&self) -> Vec<(String, String)> {
        let state = self.state(false);
        let requests = state["requests"].as_array().expect("the state lists the requests");
        requests.iter().map(|r| (text(&r["method"]).to_owned(), text(&r["path"]).to_owned())).collect()
    }

    fn call(&self, method: &str, path: &str, body: &str) -> crate::net::Reply {
        http(self.port, method, path, body)
            .unwrap_or_else(|| panic!("the contract server did not answer {method} {path}"))
    }
}

impl Drop for ContractServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn secrets(state: &Value) -> &[Value] {
    state["secrets"].as_array().expect("the state lists the secrets")
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_else(|| panic!("`{value}` is not a string"))
}
