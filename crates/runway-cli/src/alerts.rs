//! `secrets prepare`'s copy of the alerts topic's HTTPS endpoints (`alerts.https`): each is a
//! secret people set in Infisical (a pager's URL carries its integration key), copied to the
//! SSM SecureString the program reads it from at `pulumi up`. Run last in `prepare`: an
//! endpoint nobody has set yet stops the command with exit 1, naming each place to set it,
//! after everything else is done. `ssm publish` copies a changed one again (the plan lists
//! each parameter as written by `secrets prepare`, with its Infisical place).

use aws_adapter::aws::{ParameterWrite, PublishReport};
use runtime_plan::{ParameterSource, Plan};
use secrets_adapter::Client;

use crate::args::Format;
use crate::output::{Exit, Out, chain};
use crate::session::scope;

/// Copies every alerts endpoint the plan lists from Infisical to its SSM parameter, under the
/// environment's key: the report (`None` when the plan has none) and, when some are unset in
/// Infisical, the message naming where to set them (the caller exits 1 with it once
/// everything else is done).
pub(crate) async fn copy_alert_endpoints(
    plan: &Plan,
    (client, project): (&Client, &str),
    dry_run: bool,
    format: Format,
    out: Out,
) -> Result<(Option<PublishReport>, Option<String>), Exit> {
    let endpoints: Vec<_> =
        plan.secrets.ssm_parameters.iter().filter(|p| p.source == ParameterSource::AlertEndpoint).collect();
    if endpoints.is_empty() {
        return Ok((None, None));
    }
    let (mut writes, mut unset) = (Vec::with_capacity(endpoints.len()), Vec::new());
    for p in &endpoints {
        let Some(place) = &p.infisical else { continue };
        let at = format!("{}/{}", place.display(), place.name);
        // The value goes straight to the AWS adapter: never printed, never in an error.
        let value = client
            .read_expanded_value(project, &place.environment, &place.folder, &place.name)
            .await
            .map_err(|e| out.remote(format!("alerts endpoint: cannot read `{at}`: {}", chain(&e))))?;
        match value {
            Some(value) => writes.push(ParameterWrite {
                name: p.name.to_string(),
                value,
                resource: p.owner.to_string(),
                tags: Vec::new(),
            }),
            None => unset.push(at),
        }
    }
    let aws = crate::session::aws(plan, out).await?;
    let report = aws
        .ssm_publish_values(&scope(plan), &plan.secrets.kms_key, &writes, dry_run)
        .await
        .map_err(|e| out.remote(format!("{}\n(run the same command again)", chain(&e))))?;
    drop(writes);
    if format == Format::Text {
        for o in &report.parameters {
            outln!("{:<9} {} (alerts endpoint)", o.action.word(dry_run), o.name);
        }
    }
    let unset = (!unset.is_empty()).then(|| {
        format!(
            "set the alerts topic's HTTPS endpoints in Infisical (each a pager's integration URL): {}; \
             then run `runway secrets prepare` again: until then `pulumi up` cannot read them",
            unset.iter().map(|at| format!("`{at}`")).collect::<Vec<_>>().join(", ")
        )
    });
    Ok((Some(report), unset))
}
