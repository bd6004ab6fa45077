//! moto (`python -m moto.server`) on a free loopback port.

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::net::http;
use crate::paths::python;

/// A moto server on a free loopback port, killed on drop. Each test starts its own: moto keeps
/// its state in memory, so tests never see each other's parameters and secrets.
#[derive(Debug)]
pub struct Moto {
    child: Child,
    /// The port it listens on, at `127.0.0.1`.
    pub port: u16,
}

impl Moto {
    /// Starts moto with no `AWS_*` variable of the host, and waits (up to a minute) until it
    /// answers. Panics when it exits early or never answers.
    pub fn start() -> Moto {
        Moto::start_with(&[])
    }

    /// [`Moto::start`] with variables of moto's own set, e.g. `MOTO_ECS_SERVICE_RUNNING=1` (the
    /// running count and a `COMPLETED` deployment of every ECS service created).
    ///
    /// moto binds port 0 and says which port it got: a port picked here and handed over could
    /// be taken by another test's server in between (tests are threads of one process), and
    /// this one would then talk to that server.
    pub fn start_with(variables: &[(&str, &str)]) -> Moto {
        let mut command = Command::new(python());
        command
            .args(["-m", "moto.server", "-H", "127.0.0.1", "-p", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (key, _) in std::env::vars_os() {
            let name = key.to_string_lossy();
            if name.starts_with("AWS_") || name.starts_with("MOTO_") {
                command.env_remove(key);
            }
        }
        command.envs(variables.iter().copied());
        let mut child = command.spawn().expect("cannot start moto");
        let stderr = child.stderr.take().expect("moto's stderr is piped");
        let deadline = Instant::now() + Duration::from_secs(60);
        let Some(port) = announced_port(stderr, deadline) else {
            let _ = child.kill();
            let status = child.wait().map(|s| s.to_string()).unwrap_or_default();
            panic!("moto never said its port ({status}); is moto[server] installed? run `cargo xtask venv`");
        };
        let mut moto = Moto { child, port };
        loop {
            if let Some(status) = moto.child.try_wait().expect("cannot poll moto") {
                panic!("moto exited early with {status}; is moto[server] installed? run `cargo xtask venv`");
            }
            if http(port, "GET", "/moto-api/", "").is_some() {
                return moto;
            }
            assert!(Instant::now() < deadline, "moto did not answer on port {port}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Its endpoint URL, `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The venv's Python, its AWS calls going to this moto only: test credentials, region
    /// `us-east-1` unless a script names one, no `AWS_*` of the host. For a test's own readers
    /// and writers (boto3, `tools/simulate_up.py`): they see and do what `pulumi up` or a person
    /// would, without the code under test.
    pub fn python_command(&self) -> Command {
        let mut command = Command::new(python());
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("AWS_") {
                command.env_remove(key);
            }
        }
        command
            .env("AWS_ENDPOINT_URL", self.url())
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("AWS_DEFAULT_REGION", "us-east-1")
            .env("AWS_EC2_METADATA_DISABLED", "true");
        command
    }

    /// Runs `script` with `args` in [`Moto::python_command`] and returns what it printed on
    /// stdout; panics with its stderr when it fails.
    pub fn python(&self, script: &str, args: &[&str]) -> Vec<u8> {
        let out = self
            .python_command()
            .arg("-c")
            .arg(script)
            .args(args)
            .output()
            .expect("cannot run the venv's Python");
        assert!(out.status.success(), "python: {}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    }
}

/// The port werkzeug announces on moto's stderr (` * Running on http://127.0.0.1:<port>`), or
/// `None` when moto exits or stays silent until `deadline`. Its stderr is read to the end by a
/// thread of its own, so moto never blocks on a full pipe.
fn announced_port(stderr: ChildStderr, deadline: Instant) -> Option<u16> {
    const MARK: &str = "Running on http://127.0.0.1:";
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut tx = Some(tx);
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if let Some(at) = line.find(MARK) {
                let digits: String =
                    line[at + MARK.len()..].chars().take_while(char::is_ascii_digit).collect();
                if let (Some(tx), Ok(port)) = (tx.take(), digits.parse::<u16>()) {
                    let _ = tx.send(port);
                }
            }
        }
    });
    rx.recv_timeout(deadline.saturating_duration_since(Instant::now())).ok()
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Servers started at once each get a port of their own, announced by moto, and answer on
    /// it; a dropped one stops answering.
    #[test]
    fn motos_started_at_once_listen_on_ports_of_their_own() {
        let starts: Vec<_> = (0..3).map(|_| std::thread::spawn(Moto::start)).collect();
        let motos: Vec<Moto> = starts.into_iter().map(|t| t.join().expect("moto started")).collect();
        let mut ports: Vec<u16> = motos.iter().map(|m| m.port).collect();
        ports.sort_unstable();
        ports.dedup();
        assert_eq!(ports.len(), 3, "{ports:?}");
        for m in &motos {
            assert!(http(m.port, "GET", "/moto-api/", "").is_some(), "moto on {} answers", m.port);
        }
        let port = motos[0].port;
        drop(motos);
        assert_eq!(http(port, "GET", "/moto-api/", ""), None);
    }
}
