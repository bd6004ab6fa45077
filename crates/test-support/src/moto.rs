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

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
