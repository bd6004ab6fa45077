//! `runway secrets publish`: run after `pulumi up` (see `mod.rs`).

use runtime_plan::ConnectionSource;
use secrets_adapter::{SecretString, VariableWrite};

use crate::prelude::*;

/// Write connection details from the stack's outputs to Infisical. Run after `pulumi up`.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    env: EnvArgs,
    /// `pulumi stack output --json --show-secrets` saved to a file.
    #[arg(long)]
    outputs: PathBuf,
    /// Call only read APIs and say what would change.
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    format: FormatArg,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format.format.json()
    }
}

/// Runs `runway secrets publish`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let (dry_run, format, outputs_file) = (args.dry_run, args.format.format, &args.outputs);
    let session = Session::open(&args.env, out)?;
    session.refuse_before_acting(format)?;
    let plan = &session.plan;
    let outputs = crate::stack_outputs::read(outputs_file).map_err(|e| out.usage(e))?;
    let mut writes = Vec::with_capacity(plan.secrets.connection.len());
    for variable in &plan.secrets.connection {
        let value = match &variable.source {
            ConnectionSource::Output { output } => outputs.get(output).cloned().ok_or_else(|| {
                out.usage(format!(
                    "{} has no output `{output}` (needed for {}); was the stack updated with this runway's program?",
                    outputs_file.display(),
                    variable.infisical.display()
                ))
            })?,
            ConnectionSource::Literal { value } => SecretString::from(value.to_string()),
            // Written as is: Infisical expands the references when read or synced.
            ConnectionSource::Template { template } => SecretString::from(template.to_string()),
        };
        let place = &variable.infisical;
        writes.push(VariableWrite {
            environment: place.environment.to_string(),
            folder: place.folder.to_string(),
            name: place.name.to_string(),
            value,
        });
    }
    let (client, project) = session.infisical()?;
    let rt = session.runtime()?;
    let report = rt
        .block_on(secrets_adapter::publish(&client, &project, &writes, dry_run))
        .map_err(|e| out.remote(format!("secrets publish stopped: {}", chain(&e))))?;
    match format {
        Format::Text => {
            if dry_run {
                outln!("dry run: nothing written");
            }
            out!("{report}");
        }
        Format::Json => print_json(&serde_json::json!({ "dryRun": dry_run, "infisical": report })),
    }
    Ok(())
}
