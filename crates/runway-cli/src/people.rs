//! A workload's own secrets (`secrets: [...]`): people set them in Infisical, in the workload's
//! folder (where they set its registry credentials), and `runway secrets prepare` and `runway
//! ssm publish` copy each to its SSM SecureString under the plan's key, writing only a value
//! that differs. Nobody needs the key: people never write SSM.
//!
//! A secret still unset is no remote failure: the others are copied, and the command ends with
//! exit 1 naming each place to set ([`unset_message`]), after everything else is done. No value
//! is printed: each goes from the Infisical client to the AWS adapter as a `SecretString`.

use aws_adapter::aws::{AwsClients, ParameterWrite, PublishReport, Scope};
use runtime_plan::{ParameterSource, Plan, SsmParameter};
use secrets_adapter::Client;

use crate::output::chain;

/// What a copy of the workloads' secrets did: the adapter's report of those set, and the
/// parameters of those nobody has set yet.
pub(crate) struct PeopleCopy<'p> {
    pub(crate) report: PublishReport,
    pub(crate) unset: Vec<&'p SsmParameter>,
}

/// The workloads' own secrets of the plan, in the plan's (name) order.
pub(crate) fn workload_secrets(plan: &Plan) -> impl Iterator<Item = &SsmParameter> {
    plan.secrets.ssm_parameters.iter().filter(|p| p.source == ParameterSource::WorkloadSecret)
}

/// Reads each workload secret from its Infisical place (references expanded, as Infisical's
/// syncs deliver values) and writes those set to their parameters, tagged with `scope`; `Err`
/// is a failed call, saying what was not done.
pub(crate) async fn copy_workload_secrets<'p>(
    plan: &'p Plan,
    (client, project): (&Client, &str),
    (aws, scope): (&AwsClients, &Scope),
    dry_run: bool,
) -> Result<PeopleCopy<'p>, String> {
    let secrets: Vec<&SsmParameter> = workload_secrets(plan).collect();
    let mut writes = Vec::with_capacity(secrets.len());
    let mut unset = Vec::new();
    for (i, p) in secrets.iter().enumerate() {
        let Some(place) = &p.infisical else {
            // The plan gives every workload secret its place; one without is nothing to copy.
            unset.push(*p);
            continue;
        };
        let value = client
            .read_expanded_value(project, &place.environment, &place.folder, &place.name)
            .await
            .map_err(|e| {
                let not_done: Vec<&str> = secrets[i..].iter().map(|p| &*p.name).collect();
                format!(
                    "workload secret: cannot read `{}/{}`: {}\nnot done: {}",
                    place.display(),
                    place.name,
                    chain(&e),
                    not_done.join(", ")
                )
            })?;
        match value {
            Some(value) => writes.push(ParameterWrite {
                name: p.name.to_string(),
                value,
                resource: p.owner.to_string(),
                tags: Vec::new(),
            }),
            None => unset.push(*p),
        }
    }
    let report = aws
        .ssm_publish_values(scope, &plan.secrets.kms_key, &writes, dry_run)
        .await
        .map_err(|e| e.to_string())?;
    Ok(PeopleCopy { report, unset })
}

/// What to tell people about the workload secrets nobody has set: each place in Infisical (the
/// project, `<env>:<folder>/<NAME>`) and the parameter it goes to, then what to run.
pub(crate) fn unset_message(project: &str, unset: &[&SsmParameter]) -> String {
    let mut text = format!(
        "set each workload secret in Infisical (project {project}), then run `runway secrets prepare` again:"
    );
    for p in unset {
        let place = p.infisical.as_ref().map_or_else(String::new, |i| format!("{}/{}", i.display(), i.name));
        text.push_str(&format!("\n  `{place}` (secret of workload `{}`, copied to {})", p.owner, p.name));
    }
    text.push_str(
        "\nuntil then the tasks that read them cannot start (ECS: ResourceInitializationError)\nnot written: ",
    );
    text.push_str(&unset.iter().map(|p| &*p.name).collect::<Vec<_>>().join(", "));
    text
}
