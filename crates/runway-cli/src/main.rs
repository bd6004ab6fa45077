//! The `runway` command: plans a product's cloud runtime from its `runway.yaml`.
//!
//! Exit codes: 0 success (warnings allowed), 1 the runway is invalid (or what `ssm verify` and
//! `rollout` check is wrong), 2 usage error, 3 refused by a cost cap, 4 a remote call failed,
//! 5 `rollout` or `migrate` timed out, 6 another `runway deploy` holds the environment's lease.
//!
//! `commands/` holds one file per command (its flags and its run, cargo's layout), `args` the
//! flags they share, `session` what a command acting on one environment opens, `output` what
//! is printed and the exit codes; the other modules are helpers named for what they do.

// Output goes through `out!`/`outln!`/`err!`/`errln!`, which never panic on a closed pipe.
#![deny(clippy::print_stdout, clippy::print_stderr)]

/// `print!` that never panics: once stdout is closed (`runway plan | head`) nothing more is
/// written there and the command ends quietly with its own exit code.
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::write_stdout(&format!($($arg)*)) };
}

/// `println!` that never panics (see `out!`).
macro_rules! outln {
    () => { $crate::output::write_stdout("\n") };
    ($($arg:tt)*) => { $crate::output::write_stdout(&format!("{}\n", format!($($arg)*))) };
}

/// `eprint!` that never panics: a closed stderr (`runway check 2>&1 | head -1`) loses the
/// message, and the command goes on to end with its own exit code.
macro_rules! err {
    ($($arg:tt)*) => { $crate::output::write_stderr(&format!($($arg)*)) };
}

/// `eprintln!` that never panics (see `err!`).
macro_rules! errln {
    ($($arg:tt)*) => { $crate::output::write_stderr(&format!("{}\n", format!($($arg)*))) };
}

mod alerts;
mod args;
mod commands;
mod files;
mod git;
mod infisical_values;
mod one_off;
mod output;
mod people;
mod planning;
mod prelude;
mod preview_logins;
mod preview_review;
mod program;
mod pulumi_cli;
mod pulumi_preview;
mod restarts;
mod session;
mod stack_outputs;

/// Planning makes many short strings; glibc malloc spends a third of a large plan consolidating
/// free chunks, mimalloc does not (docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use clap::Parser;

use output::Exit;

fn main() -> ExitCode {
    match commands::Cli::parse().command.run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(Exit(code)) => ExitCode::from(code),
    }
}
