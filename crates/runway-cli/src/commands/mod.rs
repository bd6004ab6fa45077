//! Every command, one file (or folder) each, as cargo's `src/bin/cargo/commands/`: a command
//! owns its clap `Args` (its about is the struct's doc comment; shared flags are flattened from
//! `crate::args`) and its `run(args, out)`. Adding a command is its file, its `mod` line and
//! its row in the table below.

use clap::{Parser, Subcommand};

use crate::args::CommandArgs as _;
use crate::output::{Exit, Out};

mod catalogue;
mod check;
mod ci;
mod cost;
mod deploy;
mod diff;
mod drift;
mod emit;
mod graph;
mod iam;
mod init;
mod lsp;
mod migrate;
mod plan;
mod preflight;
mod preview;
mod restore;
mod rollback;
mod rollout;
mod rotate;
mod schema;
mod secrets;
mod spend;
mod ssm;
mod teardown;

/// The command line.
#[derive(Parser)]
#[command(
    name = "runway",
    version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("RUNWAY_COMMIT"), ")"),
    about = "Plan a product's cloud runtime from its runway.yaml"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The table of commands: `Variant(module)`, in the order `runway help` lists them. Each row
/// gives the variant `Variant(module::Args)` and its dispatch to `module::run`.
macro_rules! commands {
    ($($variant:ident($module:ident),)*) => {
        /// A command and its arguments.
        #[derive(Subcommand)]
        pub(crate) enum Command {
            $($variant($module::Args),)*
        }

        impl Command {
            /// Runs the command; where it reports failures (also as JSON on stdout when it
            /// prints JSON) is decided here, once, from its arguments.
            pub(crate) fn run(self) -> Result<(), Exit> {
                match self {
                    $(Self::$variant(args) => {
                        let out = Out::new(args.json());
                        $module::run(args, out)
                    })*
                }
            }
        }
    };
}

commands! {
    Init(init),
    Check(check),
    Plan(plan),
    Cost(cost),
    Spend(spend),
    Graph(graph),
    Diff(diff),
    Drift(drift),
    Emit(emit),
    Deploy(deploy),
    Preview(preview),
    Secrets(secrets),
    Ssm(ssm),
    Rollout(rollout),
    Rollback(rollback),
    Migrate(migrate),
    Rotate(rotate),
    Restore(restore),
    Teardown(teardown),
    Preflight(preflight),
    Iam(iam),
    Ci(ci),
    Schema(schema),
    Lsp(lsp),
    Catalogue(catalogue),
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    use super::Cli;

    /// clap's own checks of the whole command line (positional indices, conflicting names,
    /// defaults that parse), which it otherwise makes only when a command is run in a debug
    /// build; and every command and subcommand says what it does (its `Args`' doc comment).
    #[test]
    fn every_command_is_well_formed_and_says_what_it_does() {
        let cli = Cli::command();
        cli.clone().debug_assert();
        let mut unexplained = Vec::new();
        for command in cli.get_subcommands() {
            for c in std::iter::once(command).chain(command.get_subcommands()) {
                if c.get_about().is_none_or(|a| a.to_string().is_empty()) {
                    unexplained.push(c.get_name().to_owned());
                }
            }
        }
        assert_eq!(unexplained, Vec::<String>::new(), "commands without an about");
        assert_eq!(cli.get_subcommands().count(), 25);
    }

    /// The waits each command declares are its own (`Timing<W>`): the defaults differ.
    #[test]
    fn each_waiting_command_keeps_its_own_defaults() {
        let cli = Cli::command();
        let default = |command: &str, arg: &str| {
            let c = cli.find_subcommand(command).expect(command);
            let a = c.get_arguments().find(|a| a.get_id() == arg).expect(arg);
            a.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect::<Vec<_>>()
        };
        assert_eq!(default("rollout", "timeout"), ["15m"]);
        assert_eq!(default("rollout", "interval"), ["10s"]);
        assert_eq!(default("migrate", "timeout"), ["30m"]);
        assert_eq!(default("migrate", "interval"), ["5s"]);
        assert_eq!(default("rotate", "timeout"), ["30m"]);
        assert_eq!(default("rotate", "interval"), ["10s"]);
    }
}
