//! `runway ssm publish|verify`, deploy-job commands: the SSM parameters workloads reference,
//! copied from Infisical for products without Infisical's own sync, then checked (the order
//! of the deploy job: `../secrets/mod.rs`).

mod publish;
mod verify;

use clap::Subcommand;

use crate::prelude::*;

/// Deploy job: write or check the SSM parameters workloads reference.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: SsmCommand,
}

/// `runway ssm ...`.
#[derive(Subcommand)]
enum SsmCommand {
    Publish(publish::Args),
    Verify(verify::Args),
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        match &self.command {
            SsmCommand::Publish(a) => a.json(),
            SsmCommand::Verify(a) => a.json(),
        }
    }
}

/// Runs an `ssm` subcommand.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    match args.command {
        SsmCommand::Publish(a) => publish::run(a, out),
        SsmCommand::Verify(a) => verify::run(a, out),
    }
}
