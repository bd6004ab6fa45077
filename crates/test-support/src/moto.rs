//! moto (`python -m moto.server`) on a free loopback port.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::net::{free_port, http};
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
    pub fn start_with(variables: &[(&str, &str)]) -> Moto {
        let port = free_port();
        let mut command = Command::new(python());
        command
            .args(["-m", "moto.server", "-H", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (key, _) in std::env::vars_os() {
            let name = key.to_string_lossy();
            if name.starts_with("AWS_") || name.starts_with("MOTO_") {
                command.env_remove(key);
            }
        }
        command.envs(variables.iter().copied());
        let mut moto = Moto { child: command.spawn().expect("cannot start moto"), port };
        let deadline = Instant::now() + Duration::from_secs(60);
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
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
