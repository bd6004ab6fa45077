//! The one runner of the built `runway` binary that every integration test uses: a command
//! for it, and its run (exit code, stdout, stderr); and the set-up the deploy-side tests share:
//! moto and the Infisical contract server ([`Cloud`]), and `runway` talking to them only
//! ([`cloud_command`]).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)] // reason: each test uses part of it; test helpers fail loudly

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use test_support::contract::{CLIENT_ID, CLIENT_SECRET};
use test_support::{ContractServer, Moto};

/// The built binary under test.
pub(crate) const RUNWAY: &str = env!("CARGO_BIN_EXE_runway");

/// A finished run of the binary.
pub(crate) struct Run {
    /// The exit code (-1 when ended by a signal).
    pub code: i32,
    /// What it printed on stdout.
    pub stdout: String,
    /// What it printed on stderr.
    pub stderr: String,
}

impl Run {
    /// Runs `cmd` to its end; its output decoded lossily.
    pub(crate) fn of(cmd: &mut Command) -> Self {
        let Output { status, stdout, stderr } = cmd.output().unwrap();
        Self {
            code: status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        }
    }

    /// Runs `cmd` to its end; its output must be UTF-8.
    pub(crate) fn of_utf8(cmd: &mut Command) -> Self {
        let Output { status, stdout, stderr } = cmd.output().expect("run runway");
        Self {
            code: status.code().unwrap_or(-1),
            stdout: String::from_utf8(stdout).unwrap(),
            stderr: String::from_utf8(stderr).unwrap(),
        }
    }

    /// Runs `cmd` (`runway` with `shown` among its arguments) to its end, its output UTF-8, and
    /// prints `$ runway SHOWN`, the exit code and the output: `--nocapture` shows them, and
    /// a failing test's output keeps them.
    pub(crate) fn logged(cmd: &mut Command, shown: &[&str]) -> Self {
        let run = Run::of_utf8(cmd);
        println!("$ runway {}\nexit {}\n{}{}", shown.join(" "), run.code, run.stdout, run.stderr);
        run
    }

    /// `(code, stdout, stderr)`.
    pub(crate) fn parts(self) -> (i32, String, String) {
        (self.code, self.stdout, self.stderr)
    }
}

/// The binary as a command, nothing set.
pub(crate) fn bare() -> Command {
    Command::new(RUNWAY)
}

/// The binary as a command, without colours (`NO_COLOR=1`).
pub(crate) fn command() -> Command {
    let mut cmd = bare();
    cmd.env("NO_COLOR", "1");
    cmd
}

/// The binary without colours, talking to AWS at `aws_url` only: every `AWS_*` of the host
/// removed, test credentials, and config files under `<tmp>/<home>` that do not exist, so no
/// profile, SSO cache or instance metadata of the machine is ever asked.
pub(crate) fn aws_command(aws_url: &str, home: &str) -> Command {
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

/// The example's Infisical project id (its `secrets.infisical.project`).
pub(crate) const PROJECT: &str = "3f6a1c2e-8b4d-4e21-9a7f-5c0d2e6b1a93";
/// The region of the example's environments, which the deploy-side tests call.
pub(crate) const REGION: &str = "us-east-1";

/// `runway` talking to the Infisical at `infisical_url` and the AWS at `aws_url` only:
/// [`aws_command`] (`home` names its absent AWS config folder) without any `INFISICAL_*` of the
/// host, with the contract server's client and `AWS_REGION` [`REGION`].
pub(crate) fn cloud_command(infisical_url: &str, aws_url: &str, home: &str) -> Command {
    let mut cmd = aws_command(aws_url, home);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("INFISICAL_") {
            cmd.env_remove(key);
        }
    }
    cmd.env("INFISICAL_URL", infisical_url)
        .env("INFISICAL_CLIENT_ID", CLIENT_ID)
        .env("INFISICAL_CLIENT_SECRET", CLIENT_SECRET)
        .env("AWS_REGION", REGION);
    cmd
}

/// What a deploy-side test talks to, each its own, on a free loopback port and stopped on drop:
/// the Infisical contract server knowing the example's project, and moto.
pub(crate) struct Cloud {
    /// The contract server, knowing [`PROJECT`].
    pub infisical: ContractServer,
    /// moto.
    pub moto: Moto,
}

impl Cloud {
    /// Starts both, moto with none of its own variables.
    pub(crate) fn start() -> Cloud {
        Cloud::start_with(&[])
    }

    /// Starts both, moto with `variables` (see [`Moto::start_with`]).
    pub(crate) fn start_with(variables: &[(&str, &str)]) -> Cloud {
        let moto = Moto::start_with(variables);
        Cloud { infisical: ContractServer::start_with(&["--project", PROJECT]), moto }
    }

    /// `runway` talking to these two only (see [`cloud_command`]).
    pub(crate) fn command(&self, home: &str) -> Command {
        cloud_command(&self.infisical.url(), &self.moto.url(), home)
    }
}

/// The tests' own ECS and SSM clients of `moto` (not runway's), and a runtime to block on.
pub(crate) fn moto_clients(
    moto: &Moto,
) -> (aws_sdk_ecs::Client, aws_sdk_ssm::Client, tokio::runtime::Runtime) {
    use aws_sdk_ecs::config::{BehaviorVersion, Credentials, Region};
    let credentials = Credentials::new("testing", "testing", None, None, "test");
    let ecs = aws_sdk_ecs::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new(REGION))
        .endpoint_url(moto.url())
        .credentials_provider(credentials.clone())
        .build();
    let ssm = aws_sdk_ssm::Config::builder()
        .behavior_version(aws_sdk_ssm::config::BehaviorVersion::latest())
        .region(aws_sdk_ssm::config::Region::new(REGION))
        .endpoint_url(moto.url())
        .credentials_provider(credentials)
        .build();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    (aws_sdk_ecs::Client::from_conf(ecs), aws_sdk_ssm::Client::from_conf(ssm), rt)
}

/// The binary without colours, run in `dir`, which git must not take for part of an enclosing
/// repository (the tests' folders are under the machine's temporary folder).
pub(crate) fn repo_command(dir: &Path) -> Command {
    let mut cmd = command();
    cmd.current_dir(dir).env("GIT_CEILING_DIRECTORIES", std::env::temp_dir());
    cmd
}

/// Replaces `from`, which must be there, by `to` in the file at `path`.
pub(crate) fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from:?} is not in {}", path.display());
    std::fs::write(path, text.replace(from, to)).unwrap();
}

/// A hand-written `pulumi stack output --json --show-secrets` of the dev plan of the runway
/// `file`, written to `<dir>/outputs.json`: each output the plan declares, valued `value(name)`.
pub(crate) fn dev_outputs(file: &Path, dir: &Path, value: impl Fn(&str) -> String) -> PathBuf {
    let plan = bare().args(["plan", "--env", "dev", "--format", "json"]).arg(file).output().unwrap();
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let mut outputs = serde_json::Map::new();
    for o in plan["outputs"].as_array().unwrap() {
        let name = o["name"].as_str().unwrap();
        outputs.insert(name.to_owned(), serde_json::Value::String(value(name)));
    }
    let path = dir.join("outputs.json");
    std::fs::write(&path, serde_json::Value::Object(outputs).to_string()).unwrap();
    path
}

/// `pulumi up` of the emitted program in `program` against `moto`, in Pulumi's place, with
/// `outputs` as the stack's outputs: `tools/simulate_up.py PROGRAM OUTPUTS --ecs FLAGS`, which
/// writes the parameters the program declares, declares the ECS clusters, task definitions and
/// services, and prints its report (JSON) on stdout.
pub(crate) fn simulate_up(moto: &Moto, program: &Path, outputs: &Path, flags: &[&str]) -> Output {
    let script = test_support::workspace().join("tools/simulate_up.py");
    moto.python_command().arg(script).arg(program).arg(outputs).arg("--ecs").args(flags).output().unwrap()
}

/// `runway ARGS` without colours: `(code, stdout, stderr)`.
pub(crate) fn runway(args: &[&str]) -> (i32, String, String) {
    Run::of(command().args(args)).parts()
}

/// `runway ARGS` in `dir` without colours: `(code, stdout, stderr)`.
pub(crate) fn runway_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    Run::of(command().args(args).current_dir(dir)).parts()
}

/// `git ARGS` in `dir`, as a fixed user and without the machine's git configuration; fails
/// the test when git does.
pub(crate) fn git(dir: &Path, args: &[&str]) {
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
pub(crate) const PERSON_PLACE: (&str, &str, &str) = ("dev", "/runtime/metabase", "MB_ENCRYPTION_SECRET_KEY");
/// The SSM parameter of [`PERSON_PLACE`].
pub(crate) const PERSON_PARAMETER: &str = "/acme-shop/dev/metabase/MB_ENCRYPTION_SECRET_KEY";

/// Sets `(env, folder, name)` of `project` in the Infisical at `url` to `value`, as a person
/// would in its UI (the folder made first; an existing value replaced).
pub(crate) fn set_in_infisical(
    url: &str,
    project: &str,
    (env, folder, name): (&str, &str, &str),
    value: &str,
) {
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
