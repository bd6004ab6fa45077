//! Every command, one file (or folder) each, as cargo's `src/bin/cargo/commands/`: a command
//! owns its clap `Args` (its about is the struct's doc comment; shared flags are flattened from
//! `crate::args`) and its `run(args, out)`. Adding a command is its file, its `mod` line and
//! its row in the table below.

use clap::{Parser, Subcommand};

use crate::args::CommandArgs as _;
use crate::output::{Exit, Out};

mod catalogue;
mod check;
mod cost;
mod diff;
mod emit;
mod graph;
mod iam;
mod init;
mod lsp;
mod migrate;
mod plan;
mod preflight;
mod rollout;
mod rotate;
mod schema;
mod secrets;
mod spend;
mod ssm;

/// The command line.
#[derive(Parser)]
#[command(name = "runway", version, about = "Plan a product's cloud runtime from its runway.yaml")]
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
    Emit(emit),
    Secrets(secrets),
    Ssm(ssm),
    Rollout(rollout),
    Migrate(migrate),
    Rotate(rotate),
    Preflight(preflight),
    Iam(iam),
    Schema(schema),
    Lsp(lsp),
    Catalogue(catalogue),
}
