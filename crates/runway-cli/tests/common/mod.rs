//! The one runner of the built `runway` binary that every integration test uses: a command
//! for it, and its run (exit code, stdout, stderr).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)] // reason: each test uses part of it; test helpers fail loudly

use std::path::Path;
use std::process::{Command, Output};

/// The built binary under test.
pub const RUNWAY: &str = env!("CARGO_BIN_EXE_runway");

/// A finished run of the binary.
pub struct Run {
    /// The exit code (-1 when ended by a signal).
    pub code: i32,
    /// What it printed on stdout.
    pub stdout: String,
    /// What it printed on stderr.
    pub stderr: String,
}

impl Run {
    /// Runs `cmd` to its end; its output decoded lossily.
    pub fn of(cmd: &mut Command) -> Self {
        let Output { status, stdout, stderr } = cmd.output().unwrap();
        Self {
            code: status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        }
    }

    /// Runs `cmd` to its end; its output must be UTF-8.
    pub fn of_utf8(cmd: &mut Command) -> Self {
        let Output { status, stdout, stderr } = cmd.output().expect("run runway");
        Self {
            code: status.code().unwrap_or(-1),
            stdout: String::from_utf8(stdout).unwrap(),
            stderr: String::from_utf8(stderr).unwrap(),
        }
    }

    /// `(code, stdout, stderr)`.
    pub fn parts(self) -> (i32, String, String) {
        (self.code, self.stdout, self.stderr)
    }
}

/// The binary as a command, nothing set.
pub fn bare() -> Command {
    Command::new(RUNWAY)
}

/// The binary as a command, without colours (`NO_COLOR=1`).
pub fn command() -> Command {
    let mut cmd = bare();
    cmd.env("NO_COLOR", "1");
    cmd
}

/// The binary without colours, talking to AWS at `aws_url` only: every `AWS_*` of the host
/// removed, test credentials, and config files under `<tmp>/<home>` that do not exist, so no
/// profile, SSO cache or instance metadata of the machine is ever asked.
pub fn aws_command(aws_url: &str, home: &str) -> Command {
    let mut cmd = command();
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("AWS_") {
            cmd.env_remove(key);
        }
    }
    let home = std::env::temp_dir().join(home);
    cmd.env("AWS_ENDPOINT_URL", aws_url)
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("AWS_CONFIG_FILE", home.join("config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", home.join("credentials"))
        .env("AWS_EC2_METADATA_DISABLED", "true");
    cmd
}

/// `runway ARGS` without colours: `(code, stdout, stderr)`.
pub fn runway(args: &[&str]) -> (i32, String, String) {
    Run::of(command().args(args)).parts()
}

/// `runway ARGS` in `dir` without colours: `(code, stdout, stderr)`.
pub fn runway_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    Run::of(command().args(args).current_dir(dir)).parts()
}

/// `git ARGS` in `dir`, as a fixed user and without the machine's git configuration; fails
/// the test when git does.
pub fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=runway",
            "-c",
            "user.email=runway@example.invalid",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The place in Infisical where a person sets the example's workload secret in `dev` (its
/// folder, as `runway plan` lists it), and the SSM parameter `secrets prepare` copies it to.
pub const PERSON_PLACE: (&str, &str, &str) = ("dev", "/runtime/metabase", "MB_ENCRYPTION_SECRET_KEY");
/// The SSM parameter of [`PERSON_PLACE`].
pub const PERSON_PARAMETER: &str = "/acme-shop/dev/metabase/MB_ENCRYPTION_SECRET_KEY";

/// Sets `(env, folder, name)` of `project` in the Infisical at `url` to `value`, as a person
/// would in its UI (the folder made first; an existing value replaced).
pub fn set_in_infisical(url: &str, project: &str, (env, folder, name): (&str, &str, &str), value: &str) {
    use secrets_adapter::{Auth, Client, ClientConfig, Outcome, SecretString};
    use test_support::contract::{CLIENT_ID, CLIENT_SECRET};
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let auth = Auth::UniversalAuth {
            client_id: CLIENT_ID.into(),
            client_secret: SecretString::from(CLIENT_SECRET),
        };
        let client = Client::new(ClientConfig::new(url, auth)).unwrap();
        client.ensure_folder(project, env, folder).await.unwrap();
        let value = SecretString::from(value);
        if client.create_secret(project, env, folder, name, &value).await.unwrap() == Outcome::AlreadyExists {
            client.update_secret(project, env, folder, name, &value).await.unwrap();
        }
    });
}
