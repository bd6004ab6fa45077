//! Pulumi as its CLI, the one way `runway deploy` and `runway teardown` run it: `up` (with the
//! services excluded, or whole), `stack output`, `preview`, `destroy` (with resources kept out),
//! and `cancel` of a lock a dead job left. Its output is streamed line by line under the step's
//! heading ([`Lines`]) and its last lines kept for a failure.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use crate::output::{EXIT_REMOTE, EXIT_USAGE, Exit};

/// Where a command's streamed lines go: the deploy's and the teardown's reports.
pub(crate) trait Lines {
    /// One line of Pulumi's output, under the running step's heading.
    fn line(&self, text: &str);
}

/// Every ECS service's URN (`urn:pulumi:<stack>::<project>::aws:ecs/service:Service::<name>`):
/// `*` stops at a `:`, `**` does not (docs/pipeline.md).
pub(crate) const SERVICES: &str = "**::aws:ecs/service:Service::*";

/// How many of a failed command's last lines are shown.
pub(crate) const TAIL: usize = 20;

/// The Pulumi CLI for one stack in one folder.
pub(crate) struct Pulumi {
    pub(crate) program: PathBuf,
    pub(crate) stack: String,
    pub(crate) cwd: PathBuf,
    /// The last lines of the last command run (for a failure's tail).
    pub(crate) tail: Arc<Mutex<VecDeque<String>>>,
}

impl Pulumi {
    /// `pulumi ARGS --stack S --cwd DIR --non-interactive`.
    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(args)
            .arg("--stack")
            .arg(&self.stack)
            .arg("--cwd")
            .arg(&self.cwd)
            .arg("--non-interactive")
            .stdin(Stdio::null());
        cmd
    }

    /// `pulumi up --yes`, with `exclude_services` only what is not an ECS service nor depends
    /// on one.
    pub(crate) fn up(&self, exclude_services: bool, reporter: &dyn Lines) -> Result<(), Exit> {
        let mut args = vec!["up", "--yes", "--skip-preview"];
        if exclude_services {
            args.extend(["--exclude", SERVICES, "--exclude-dependents"]);
        }
        self.stream(self.command(&args), reporter, None)
    }

    /// `pulumi stack output --json --show-secrets` into `file` (created private, never shown).
    pub(crate) fn outputs(&self, file: &Path, reporter: &dyn Lines) -> Result<(), Exit> {
        let sink = private_file(file).map_err(|e| {
            errln!("error: cannot write {}: {e}", file.display());
            Exit(EXIT_USAGE)
        })?;
        self.stream(self.command(&["stack", "output", "--json", "--show-secrets"]), reporter, Some(sink))
    }

    /// `pulumi preview --json` into `file` (Pulumi's preview document; reads only).
    pub(crate) fn preview(&self, file: &Path, reporter: &dyn Lines) -> Result<(), Exit> {
        let sink = private_file(file).map_err(|e| {
            errln!("error: cannot write {}: {e}", file.display());
            Exit(EXIT_USAGE)
        })?;
        self.stream(self.command(&["preview", "--json"]), reporter, Some(sink))
    }

    /// `pulumi destroy --yes --skip-preview`, every resource whose URN matches one of `keep`
    /// left alone (`--exclude`): what the stack declared is deleted, dependents of the kept
    /// ones first (a policy naming a kept bucket), the excluded ones stay in the account and in
    /// the state.
    pub(crate) fn destroy(&self, keep: &[String], reporter: &dyn Lines) -> Result<(), Exit> {
        let mut args = vec!["destroy", "--yes", "--skip-preview"];
        for glob in keep {
            args.extend(["--exclude", glob.as_str()]);
        }
        self.stream(self.command(&args), reporter, None)
    }

    /// `pulumi state unprotect --all --yes`: lets `destroy` delete what the program
    /// `protect`s (a production database, whose deletion then takes its final snapshot); what
    /// `destroy` keeps out stays in the account. Nothing to unprotect is no failure.
    pub(crate) fn unprotect_all(&self, reporter: &dyn Lines) -> Result<(), Exit> {
        self.stream(self.command(&["state", "unprotect", "--all", "--yes"]), reporter, None)
    }

    /// `pulumi cancel --yes`: the stack's update lock of a job that died (runway's lease says
    /// no other deploy runs).
    pub(crate) fn cancel(&self, reporter: &dyn Lines) -> Result<(), Exit> {
        self.stream(self.command(&["cancel", "--yes"]), reporter, None)
    }

    /// `pulumi stack rm --yes`: the stack's state removed (after its `destroy`).
    pub(crate) fn remove_stack(&self, reporter: &dyn Lines) -> Result<(), Exit> {
        self.stream(self.command(&["stack", "rm", "--yes"]), reporter, None)
    }

    /// `pulumi stack init <stack>` in the folder (the program must be there).
    pub(crate) fn init_stack(&self, reporter: &dyn Lines) -> Result<(), Exit> {
        let mut cmd = Command::new(&self.program);
        cmd.args(["stack", "init", &self.stack, "--cwd"]).arg(&self.cwd).arg("--non-interactive");
        cmd.stdin(Stdio::null());
        self.stream(cmd, reporter, None)
    }

    /// Whether the folder's project has this stack (`pulumi stack ls --json`); a folder
    /// without a program has none.
    pub(crate) fn stack_exists(&self) -> Result<bool, Exit> {
        if !self.cwd.join("Pulumi.yaml").exists() {
            return Ok(false);
        }
        let output = Command::new(&self.program)
            .args(["stack", "ls", "--json", "--cwd"])
            .arg(&self.cwd)
            .arg("--non-interactive")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| {
                errln!(
                    "error: cannot run {}: {e} (put `pulumi` on PATH or give --pulumi PATH)",
                    self.program.display()
                );
                Exit(EXIT_USAGE)
            })?;
        if !output.status.success() {
            errln!("error: pulumi stack ls: {}", String::from_utf8_lossy(&output.stderr).trim());
            return Err(Exit(EXIT_REMOTE));
        }
        let stacks: Vec<serde_json::Value> = serde_json::from_slice(&output.stdout).map_err(|e| {
            errln!("error: pulumi stack ls --json printed no list of stacks: {e}");
            Exit(EXIT_REMOTE)
        })?;
        Ok(stacks.iter().any(|s| {
            s["name"].as_str().is_some_and(|n| n == self.stack || n.ends_with(&format!("/{}", self.stack)))
        }))
    }

    /// Runs `cmd`, its stderr (and its stdout unless `stdout_to` takes it) streamed as lines
    /// under the step's heading; the exit code of a failure is the step's.
    fn stream(
        &self,
        mut cmd: Command,
        reporter: &dyn Lines,
        stdout_to: Option<std::fs::File>,
    ) -> Result<(), Exit> {
        self.tail.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clear();
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().map_err(|e| {
            errln!(
                "error: cannot run {}: {e} (put `pulumi` on PATH or give --pulumi PATH)",
                self.program.display()
            );
            Exit(EXIT_USAGE)
        })?;
        let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(Exit(EXIT_USAGE));
        };
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        let lines = |from: Box<dyn Read + Send>, tx: std::sync::mpsc::Sender<String>| {
            std::thread::spawn(move || {
                for line in BufReader::new(from).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        return;
                    }
                }
            })
        };
        let copier = match stdout_to {
            Some(mut file) => {
                let mut stdout = stdout;
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut stdout, &mut file);
                })
            }
            None => lines(Box::new(stdout), tx.clone()),
        };
        let errors = lines(Box::new(stderr), tx);
        for line in rx {
            reporter.line(&line);
            let mut tail = self.tail.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if tail.len() == TAIL {
                tail.pop_front();
            }
            tail.push_back(line);
        }
        let _ = (copier.join(), errors.join());
        let status = child.wait().map_err(|e| {
            errln!("error: waiting for {}: {e}", self.program.display());
            Exit(EXIT_REMOTE)
        })?;
        match status.code() {
            Some(0) => Ok(()),
            // Pulumi fails with 255; a code that does not fit (or a signal) is a remote failure.
            Some(code) => Err(Exit(u8::try_from(code).unwrap_or(EXIT_REMOTE))),
            None => Err(Exit(EXIT_REMOTE)),
        }
    }

    /// The last lines the last command printed.
    pub(crate) fn last_lines(&self) -> Vec<String> {
        self.tail.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter().cloned().collect()
    }
}

/// A file only its owner reads (the outputs hold the stack's secrets), emptied.
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}
