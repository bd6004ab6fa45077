//! `runway secrets prepare|publish`, deploy-job commands (with `runway ssm publish|verify`,
//! `../ssm/`).
//!
//! They belong in the product's protected deploy job, in this order:
//! `secrets prepare` -> `pulumi up` -> `rollout` (`../rollout.rs`) -> `secrets publish` ->
//! `ssm publish` (products without Infisical's own sync) -> `ssm verify`.
//!
//! Every name, place, key and tag comes from the plan; the adapters carry it out. No value is
//! ever printed: values travel only as `SecretString`s between Infisical and AWS, and what is
//! printed are the adapters' reports (locations and actions) and errors (which name, never
//! quote). `--dry-run` passes through to the adapters, which then call only read APIs.
//!
//! Exit codes: 1 `ssm verify` found a missing or wrong parameter, or `secrets prepare` (or `ssm
//! publish`) found a workload's registry credentials or own secrets, or an alerts endpoint, unset
//! in Infisical (after doing everything else), 2 usage (incl. a runway
//! without `secrets.infisical`, a missing stack output, missing Infisical credentials),
//! 3 refused by a cost cap (before any call), 4 a remote call failed (what was done and what
//! was not is printed; running the same command again finishes the job).

mod prepare;
mod publish;

use clap::Subcommand;

use crate::prelude::*;

/// Deploy job: generate credentials, publish connection details (Infisical, Secrets Manager).
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: SecretsCommand,
}

/// `runway secrets ...`.
#[derive(Subcommand)]
enum SecretsCommand {
    Prepare(prepare::Args),
    Publish(publish::Args),
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        match &self.command {
            SecretsCommand::Prepare(a) => a.json(),
            SecretsCommand::Publish(a) => a.json(),
        }
    }
}

/// Runs a `secrets` subcommand.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    match args.command {
        SecretsCommand::Prepare(a) => prepare::run(a, out),
        SecretsCommand::Publish(a) => publish::run(a, out),
    }
}
