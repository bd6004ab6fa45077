//! The argument structs commands share, flattened into each command's own `Args` (as cargo's
//! `command_prelude`): the root file and the catalogue, the environment, the output format and
//! the waits. A command's own flags live in its file under `commands/`.

use std::marker::PhantomData;
use std::path::PathBuf;
use std::time::Duration;

use clap::ValueEnum;

/// `--format` of most commands: lines for a person, or JSON for a script.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
}

impl Format {
    /// Does the command print JSON on stdout?
    pub(crate) fn json(self) -> bool {
        self == Self::Json
    }
}

/// `--format text|json` for a command whose help says nothing more about it.
#[derive(clap::Args, Clone, Copy, Debug)]
pub(crate) struct FormatArg {
    #[arg(long, value_enum, default_value = "text")]
    pub(crate) format: Format,
}

/// The root runway file and the catalogue: what every planning command reads.
#[derive(clap::Args, Debug)]
pub(crate) struct RootArgs {
    /// The root runway file.
    #[arg(default_value = "runway.yaml")]
    pub(crate) file: PathBuf,
    /// A catalogue file that replaces or extends the built-in one.
    // Listed after the command's own options (and before `--help`), where every command had it.
    #[arg(long, display_order = 900)]
    pub(crate) catalogue: Option<PathBuf>,
}

/// One environment of a root: what every command acting on one plan reads. Flattened first,
/// so that `--env` heads the options.
#[derive(clap::Args, Debug)]
pub(crate) struct EnvArgs {
    /// The environment.
    #[arg(long)]
    pub(crate) env: String,
    #[command(flatten)]
    pub(crate) root: RootArgs,
}

/// A command's waits: their defaults and help (each command waits on something else).
pub(crate) trait Waits: Clone + Copy + std::fmt::Debug + Send + Sync + 'static {
    /// `--timeout`'s default.
    const TIMEOUT: &'static str;
    /// `--timeout`'s help.
    const TIMEOUT_HELP: &'static str;
    /// `--interval`'s default.
    const INTERVAL: &'static str;
    /// `--interval`'s help.
    const INTERVAL_HELP: &'static str;
}

/// `--timeout` (1 s to 6 h) and `--interval` (1 s to 5 min) of a command that waits on AWS.
#[derive(clap::Args, Clone, Copy, Debug)]
pub(crate) struct Timing<W: Waits> {
    #[arg(long, default_value = W::TIMEOUT, value_parser = timeout, help = W::TIMEOUT_HELP)]
    pub(crate) timeout: Duration,
    #[arg(long, default_value = W::INTERVAL, value_parser = interval, help = W::INTERVAL_HELP)]
    pub(crate) interval: Duration,
    #[arg(skip)]
    waits: PhantomData<W>,
}

/// The longest `--timeout`: past it a CI job's own limit is the better judge.
const MAX_TIMEOUT: Duration = Duration::from_secs(6 * 3600);
/// The bounds of `--interval`: ECS changes in seconds; a look costs one `Describe*` call (or
/// one per ten services).
const INTERVAL_BOUNDS: (Duration, Duration) = (Duration::from_secs(1), Duration::from_secs(300));

/// Parses `--timeout` (`30s`, `15m`, `1h`): from 1 s to 6 h.
pub(crate) fn timeout(text: &str) -> Result<Duration, String> {
    bounded(text, Duration::from_secs(1), MAX_TIMEOUT)
}

/// Parses `--interval` (`10s`): from 1 s to 5 min.
pub(crate) fn interval(text: &str) -> Result<Duration, String> {
    bounded(text, INTERVAL_BOUNDS.0, INTERVAL_BOUNDS.1)
}

fn bounded(text: &str, min: Duration, max: Duration) -> Result<Duration, String> {
    let parsed = runway_schema::Duration::parse(text).map_err(|e| e.to_string())?;
    let duration = Duration::from_millis(parsed.as_millis());
    if duration < min || duration > max {
        return Err(format!("`{text}` is not between {} and {}", shown(min), shown(max)));
    }
    Ok(duration)
}

/// A duration as the file format writes it (`30m`).
pub(crate) fn shown(d: Duration) -> runway_schema::Duration {
    runway_schema::Duration::from_millis(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// What `main` asks of a command's arguments before running it.
pub(crate) trait CommandArgs {
    /// Does the command print JSON on stdout? Its failures are then reported there as JSON
    /// too (`Out`).
    fn json(&self) -> bool {
        false
    }
}
