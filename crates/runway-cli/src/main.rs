//! The `runway` command: plans a product's cloud runtime from its `runway.yaml`.
//!
//! Exit codes: 0 success (warnings allowed), 1 the runway is invalid (or what `ssm verify` and
//! `rollout` check is wrong), 2 usage error, 3 refused by a cost cap, 4 a remote call failed,
//! 5 `rollout` or `migrate` timed out, 6 another `runway deploy` holds the environment's lease.
//!
//! `args` holds the command line, `output` what is printed and the exit codes, `planning`
//! what the planning commands share; one module per command family carries it out.

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
mod check;
mod deploy;
mod deploy_job;
mod emit;
mod files;
mod git;
mod iam;
mod init;
mod lsp;
mod migrate;
mod output;
mod people;
mod planning;
mod preflight;
mod prices;
mod program;
mod restarts;
mod review;
mod rollout;
mod rotate;
mod schema;
mod spend;

/// Planning makes many short strings; glibc malloc spends a third of a large plan consolidating
/// free chunks, mimalloc does not (docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command, EmitTarget};
use output::Exit;

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Where failures are reported: JSON on stdout too for a command printing JSON.
    let out = cli.command.out();
    let result = match cli.command {
        Command::Init(args) => init::run(&args, out),
        Command::Check { file, format, catalogue } => check::check(&file, format, catalogue.as_deref(), out),
        Command::Plan { env, format, args } => check::plan(&env, format, &args, out),
        Command::Cost { format, args } => check::cost(format, &args, out),
        Command::Spend { env, month, format, args } => spend::run(&env, month, format, &args, out),
        Command::Graph { env, format, args } => check::graph(&env, format, &args, out),
        Command::Diff { env, base, base_ref, format, args } => {
            review::diff(env.as_deref(), base.as_deref(), base_ref.as_deref(), format, &args, out)
        }
        Command::Emit { target: EmitTarget::Pulumi { env, out: dir, format, args } } => {
            emit::pulumi(&env, &dir, format, &args, out)
        }
        Command::Deploy(args) => deploy_job::run(&args, out),
        Command::Secrets { command } => deploy::secrets(&command, out),
        Command::Ssm { command } => deploy::ssm(&command, out),
        Command::Rollout { env, timeout, interval, format, args } => {
            rollout::run(&env, timeout, interval, format, &args, out)
        }
        Command::Migrate { env, workload, outputs, timeout, interval, format, args } => migrate::run(
            &migrate::MigrateArgs {
                env: &env,
                workload: workload.as_deref(),
                outputs: &outputs,
                timing: aws_adapter::aws::TaskTiming { timeout, interval },
                format,
                args: &args,
            },
            out,
        ),
        Command::Rotate {
            env,
            resource,
            login,
            outputs,
            no_restart,
            members_restarted,
            timeout,
            interval,
            format,
            args,
        } => {
            let options = rotate::Options { no_restart, members_restarted, timeout, interval };
            let what =
                rotate::What { resource: &resource, login: login.as_deref(), outputs: outputs.as_deref() };
            rotate::run(&env, what, options, format, &args, out)
        }
        Command::Preflight { env, stack, no_aws, format, args } => {
            let a = preflight::Args { env: &env, stack: stack.as_deref(), no_aws, format, plan: &args };
            preflight::run(&a, out)
        }
        Command::Iam { env, account, github_repo, github_environment, format, args } => iam::run(
            &env,
            account,
            github_repo.zip(github_environment.or(Some(env.clone()))),
            format,
            &args,
            out,
        ),
        Command::Schema { which, format } => schema::print(which, format),
        Command::Lsp { catalogue } => lsp::run(catalogue.as_deref(), out),
        Command::Catalogue { command: Some(command), .. } => prices::run(&command, out),
        Command::Catalogue { command: None, root, region, format, catalogue } => {
            prices::show(root.as_deref(), region.as_deref(), format, catalogue.as_deref(), out)
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Exit(code)) => ExitCode::from(code),
    }
}
