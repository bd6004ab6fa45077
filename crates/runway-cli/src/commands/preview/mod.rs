//! `runway preview up|down|list|sweep`: a pull request's preview (docs/previews.md). The
//! preview `pr-<n>` is an environment every command can act on (`--env pr-<n>`,
//! `runtime_plan::plan_named`); `up` is `runway deploy --env pr-<n>` after the pool's check
//! (`runtime_plan::preview_pool::admit`) and the preview's record, `down` removes what it
//! made, `list` and `sweep` find the previews by their tags.
//!
//! Exit codes: 3 the pool refuses a preview (before any write), 2 usage, 4 a remote call
//! failed (`down` and `sweep` run again finish the job); `up`'s failed deploy step its own.

mod down;
mod drop_db;
mod list;
mod live;
mod up;

use clap::Subcommand;

use crate::prelude::*;

/// Pull request previews under one pooled cap: up, down, list, sweep.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: PreviewCommand,
}

/// `runway preview ...`.
#[derive(Subcommand)]
enum PreviewCommand {
    Up(up::Args),
    Down(down::Args),
    List(list::ListArgs),
    Sweep(list::SweepArgs),
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        match &self.command {
            PreviewCommand::Up(a) => a.json(),
            PreviewCommand::Down(a) => a.json(),
            PreviewCommand::List(a) => a.json(),
            PreviewCommand::Sweep(a) => a.json(),
        }
    }
}

/// Runs a `preview` subcommand.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    match args.command {
        PreviewCommand::Up(a) => up::run(a, out),
        PreviewCommand::Down(a) => down::run(a, out),
        PreviewCommand::List(a) => list::run_list(a, out),
        PreviewCommand::Sweep(a) => list::run_sweep(a, out),
    }
}

/// The Pulumi side every preview command shares: the CLI and where each preview's stack
/// lives.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct StackArgs {
    /// The Pulumi CLI to run.
    #[arg(long, value_name = "PATH", default_value = "pulumi")]
    pulumi: PathBuf,
    /// The folder holding each preview's stack folder, `<DIR>/pr-<n>` (default: `infra`
    /// beside the runway file, as `runway deploy` uses `infra/<env>`).
    #[arg(long, value_name = "DIR")]
    stacks: Option<PathBuf>,
}

impl StackArgs {
    /// The stack folder of preview `name` for the root `file`.
    pub(crate) fn folder(&self, file: &Path, name: &str) -> PathBuf {
        let base = self.stacks.clone().unwrap_or_else(|| {
            let root = file.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
            let root = if root.as_os_str().is_empty() { PathBuf::from(".") } else { root };
            root.join("infra")
        });
        base.join(name)
    }

    /// The Pulumi CLI's path.
    pub(crate) fn pulumi_program(&self) -> &Path {
        &self.pulumi
    }

    /// The Pulumi CLI on preview `name`'s stack.
    pub(crate) fn pulumi(&self, file: &Path, name: &str) -> crate::pulumi_cli::Pulumi {
        crate::pulumi_cli::Pulumi {
            program: self.pulumi.clone(),
            stack: name.to_owned(),
            cwd: self.folder(file, name),
            tail: Default::default(),
        }
    }
}

/// The seconds since the Unix epoch now, or `--now` (a test's clock; RFC 3339).
pub(crate) fn clock(now: Option<&str>, out: Out) -> Result<u64, Exit> {
    match now {
        Some(text) => {
            let t: jiff::Timestamp = text
                .parse()
                .map_err(|e| out.usage(format!("--now {text:?} is not an RFC 3339 time: {e}")))?;
            u64::try_from(t.as_second()).map_err(|_| out.usage(format!("--now {text:?} is before 1970")))
        }
        None => {
            Ok(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()))
        }
    }
}

/// `3d 4h`, `5h 12m`, `40m`: an age or a time left, to the minute.
pub(crate) fn span(seconds: u64) -> String {
    let (d, h, m) = (seconds / 86_400, (seconds % 86_400) / 3600, (seconds % 3600) / 60);
    match (d, h) {
        (0, 0) => format!("{m}m"),
        (0, _) => format!("{h}h {m}m"),
        _ => format!("{d}d {h}h"),
    }
}
