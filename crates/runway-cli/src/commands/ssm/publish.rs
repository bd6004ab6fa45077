//! `runway ssm publish`: the credentials and the workloads' own secrets copied from Infisical
//! into their SSM parameters, and the services reading a changed one restarted.

use std::collections::HashMap;

use aws_adapter::aws::ParameterRequest;
use runtime_plan::{ParameterSource, ParameterWriter};

use crate::infisical_values::InfisicalValues;
use crate::prelude::*;
use crate::session::scope;

/// Copy the credentials and the workloads' own secrets from Infisical into the SSM
/// parameters workloads reference (for products without Infisical's own sync). The ECS
/// services whose tasks read a parameter whose value changed since they started (this run,
/// the program's `pulumi up`, `secrets prepare`) are restarted (a new deployment), since a
/// task reads its secrets only when it starts.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    env: EnvArgs,
    /// Restart no service; the output lists those whose running tasks keep the old value.
    #[arg(long)]
    no_restart: bool,
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

/// Runs `runway ssm publish`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let (no_restart, dry_run, format) = (args.no_restart, args.dry_run, args.format.format);
    let session = Session::open(&args.env, out)?;
    session.refuse_before_acting(format)?;
    let plan = &session.plan;
    let (client, project) = session.infisical()?;
    let mut requests = Vec::new();
    let mut places = HashMap::new();
    let (mut skipped, mut program) = (Vec::new(), Vec::new());
    for p in &plan.secrets.ssm_parameters {
        match (p.written_by, p.source, &p.infisical) {
            // People's, copied below: one still unset is named, not a failure.
            (ParameterWriter::SecretsPrepare, ParameterSource::WorkloadSecret, _) => {}
            (
                ParameterWriter::SecretsPrepare,
                ParameterSource::Resource | ParameterSource::AlertEndpoint,
                Some(place),
            ) => {
                places.insert((p.owner.to_string(), p.source_key()), place);
                requests.push(ParameterRequest {
                    name: p.name.to_string(),
                    resource: p.owner.to_string(),
                    variable: p.source_key(),
                    tags: Vec::new(),
                });
            }
            // The program writes it from the resources' outputs; a copy here would race it.
            (ParameterWriter::Program, _, _) => program.push(&*p.name),
            // The plan gives it no place in Infisical: nothing to copy it from.
            (
                ParameterWriter::SecretsPrepare,
                ParameterSource::Resource | ParameterSource::AlertEndpoint,
                None,
            ) => skipped.push(&*p.name),
        }
    }
    let source = InfisicalValues { client: &client, project: &project, places };
    let rt = session.runtime()?;
    rt.block_on(async {
        let aws = crate::session::aws(plan, out).await?;
        let mut report = aws
            .ssm_publish(&scope(plan), &plan.secrets.kms_key, &requests, &source, dry_run)
            .await
            .map_err(|e| out.remote(chain(&e)))?;
        let people =
            crate::people::copy_workload_secrets(plan, (&client, &project), (&aws, &scope(plan)), dry_run)
                .await
                .map_err(|e| {
                    out.remote(format!(
                        "{e}\nthe resources' parameters are written; run the same command again"
                    ))
                })?;
        report.parameters.extend(people.report.parameters);
        if format == Format::Text {
            out!("{report}");
            for name in &program {
                outln!("program   {name} (written by the program at `pulumi up`)");
            }
            for name in &skipped {
                outln!("skipped   {name} (no place in Infisical)");
            }
            for p in &people.unset {
                outln!("unset     {} (set it in Infisical first)", p.name);
            }
        }
        let outcomes: Vec<_> = report.parameters.iter().collect();
        let not_yet = "the parameters are written; run the same command again to restart";
        let readers = crate::restarts::stale_readers(plan, &aws, &outcomes)
            .await
            .map_err(|e| out.remote(format!("{e}\n{not_yet}")))?;
        let (restarted, not_restarted) =
            crate::restarts::restart_readers(&readers, &aws, no_restart, dry_run, format)
                .await
                .map_err(|e| out.remote(format!("{e}\n{not_yet}")))?;
        if !people.unset.is_empty() {
            return Err(out.fail(EXIT_INVALID, crate::people::unset_message(&project, &people.unset)));
        }
        if format == Format::Json {
            print_json(&serde_json::json!({
                "ssm": report,
                "program": program,
                "skipped": skipped,
                "restarted": restarted,
                "notRestarted": not_restarted,
            }));
        }
        Ok(())
    })
}
