//! `runway secrets prepare`: run before `pulumi up` (see `mod.rs`).

use std::collections::HashMap;

use aws_adapter::aws::{
    EnvironmentKey, KeyReport, ParameterRequest, ProxyAdminCopy, ProxyCopyReport, PublishReport,
    RegistryCredentialsCopy,
};
use runtime_plan::{CredentialKind, Plan};
use secrets_adapter::{Client, CredentialRule, CredentialSpec, SecretString};
use serde::Serialize;

use crate::infisical_values::InfisicalValues;
use crate::prelude::*;
use crate::session::scope;

/// Generate missing credentials, write them blind to Infisical, copy each postgres admin
/// credential to Secrets Manager for RDS Proxy, each workload's registry credentials
/// from Infisical to its Secrets Manager secret, and each workload's own secrets from
/// Infisical to their SSM parameters. Run before `pulumi up`.
#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    env: EnvArgs,
    /// Replaced by `runway rotate --env ENV RESOURCE`, which rotates without an outage; kept
    /// only to say so (exit 2).
    #[arg(long = "rotate", value_name = "RESOURCE", hide = true)]
    rotate: Vec<String>,
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

/// What `secrets prepare` did to the proxy copies, for `--format json`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PrepareJson<'a> {
    dry_run: bool,
    /// The environment's own KMS key, when the plan has one (made sure of first).
    #[serde(skip_serializing_if = "Option::is_none")]
    key: Option<&'a KeyReport>,
    infisical: &'a secrets_adapter::Report,
    proxy_copies: &'a [ProxyCopyJson],
    /// The generated credentials' SSM parameters.
    ssm: &'a PreparedParameters,
    /// The workloads' registry credentials copied from Infisical to Secrets Manager.
    registry_copies: &'a [ProxyCopyReport],
    /// The workloads' own secrets copied from Infisical to their SSM parameters.
    workload_secrets: &'a PublishReport,
    /// The alerts topic's HTTPS endpoints copied from Infisical to SSM, when it has any.
    #[serde(skip_serializing_if = "Option::is_none")]
    alert_endpoints: Option<&'a PublishReport>,
}

/// One proxy copy: the adapter's report, or (in a dry run, when the credential does not exist
/// yet or is to be rotated) what would happen once it does.
#[derive(Serialize)]
#[serde(untagged)]
enum ProxyCopyJson {
    Done(ProxyCopyReport),
    Pending { secret_name: String, action: &'static str },
}

fn credential_specs(plan: &Plan) -> Vec<(CredentialSpec, &runtime_plan::GeneratedSecret)> {
    plan.secrets
        .generated
        .iter()
        .map(|g| {
            let rule = match g.kind {
                CredentialKind::PostgresAdminPassword | CredentialKind::PostgresLoginPassword => {
                    CredentialRule::PostgresPassword
                }
                CredentialKind::CacheAuthToken => CredentialRule::ValkeyAuthToken,
            };
            let spec = CredentialSpec {
                resource: g.resource.to_string(),
                environment: g.infisical.environment.to_string(),
                folder: g.infisical.folder.to_string(),
                name: g.infisical.name.to_string(),
                rule,
            };
            (spec, g)
        })
        .collect()
}

/// Runs `runway secrets prepare`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let (env, dry_run, format) = (args.env.env.as_str(), args.dry_run, args.format.format);
    if let Some(first) = args.rotate.first() {
        return Err(out.usage(format!(
            "`secrets prepare --rotate` is replaced by `runway rotate --env {env} {first}`, which sets the new \
             value on the database or cache first and restarts its readers (docs/pipeline.md, \"Rotation\")"
        )));
    }
    let session = Session::open(&args.env, out)?;
    session.refuse_before_acting(format)?;
    let plan = &session.plan;
    let specs = credential_specs(plan);
    let (client, project) = session.infisical()?;
    let only_specs: Vec<CredentialSpec> = specs.iter().map(|(s, _)| s.clone()).collect();
    let rt = session.runtime()?;
    rt.block_on(async {
        // The pinned account, before the first write (Infisical's included): a job holding
        // another account's credentials stops here.
        if plan.account.is_some() {
            crate::session::aws(plan, out).await?;
        }
        let report =
            secrets_adapter::prepare(&client, &project, &only_specs, &[], dry_run).await.map_err(|e| {
                out.remote(format!("secrets prepare stopped: {}\nproxy copies: not done", chain(&e)))
            })?;
        if format == Format::Text {
            if dry_run {
                outln!("dry run: nothing written");
            }
            out!("{report}");
        }

        // The environment's key, before anything is encrypted with it.
        let key = prepare_key(plan, dry_run, format, out).await?;
        let copies: Vec<_> =
            specs.iter().filter_map(|(s, g)| g.secrets_manager.as_ref().map(|n| (s, *g, n))).collect();
        let mut done = Vec::new();
        if !copies.is_empty() {
            let aws = crate::session::aws(plan, out).await?;
            let scope = scope(plan);
            for (i, (spec, generated, secret_name)) in copies.iter().enumerate() {
                let not_done =
                    || copies[i..].iter().map(|(_, _, n)| n.as_str()).collect::<Vec<_>>().join(", ");
                let fresh = matches!(
                    report.action_at(&spec.location()),
                    Some(secrets_adapter::Action::WouldCreate | secrets_adapter::Action::WouldRotate)
                );
                if dry_run && fresh {
                    // The credential does not exist yet (or is to be replaced): the copy is
                    // written once it does.
                    let pending = ProxyCopyJson::Pending {
                        secret_name: (*secret_name).to_string(),
                        action: "would-write",
                    };
                    if format == Format::Text {
                        outln!("would write {secret_name} (proxy copy of the new credential)");
                    }
                    done.push(pending);
                    continue;
                }
                let Some(username) = generated.secrets_manager_username.clone() else {
                    return Err(
                        out.usage(format!("the plan names no admin user for `{}`", generated.resource))
                    );
                };
                let password =
                    secrets_adapter::read_for_proxy_copy(&client, &project, spec).await.map_err(|e| {
                        out.remote(format!(
                            "proxy copy: cannot read `{}`: {}\nnot done: {}",
                            spec.location(),
                            chain(&e),
                            not_done()
                        ))
                    })?;
                let copy = ProxyAdminCopy {
                    secret_name: (*secret_name).to_string(),
                    resource: generated.resource.to_string(),
                    username: username.to_string(),
                    password,
                    kms_key: plan.secrets.secrets_manager_key.as_deref().map(str::to_owned),
                    tags: Vec::new(),
                };
                let copied = aws
                    .copy_proxy_admin(&scope, &copy, dry_run)
                    .await
                    .map_err(|e| out.remote(format!("{}\nnot done: {}", chain(&e), not_done())))?;
                if format == Format::Text {
                    // The adapter's dry-run banner is already printed above.
                    outln!("{:<9} {} (proxy copy)", copied.action.word(dry_run), copied.secret_name);
                }
                done.push(ProxyCopyJson::Done(copied));
            }
        }
        // What `pulumi up` reads from SSM (a cache's AUTH token) must exist before it runs.
        let parameters =
            prepare_parameters(plan, (&client, &project), &specs, &report, dry_run, format, out).await?;
        // What people set in Infisical, copied last: what `pulumi up` looks up for a private
        // registry, then the workloads' own secrets. A value nobody has set yet stops only its
        // part, and the command ends with exit 1 naming where to set it.
        let (registry, registry_unset) =
            copy_registry_credentials(plan, (&client, &project), dry_run, format, out).await?;
        let aws = crate::session::aws(plan, out).await?;
        let people =
            crate::people::copy_workload_secrets(plan, (&client, &project), (&aws, &scope(plan)), dry_run)
                .await
                .map_err(|e| out.remote(e))?;
        if format == Format::Text {
            for o in &people.report.parameters {
                outln!("{:<9} {} (ssm, workload secret)", o.action.word(dry_run), o.name);
            }
        }
        // What the alerts topic's HTTPS subscriptions read.
        let (alerts, alerts_unset) =
            crate::alerts::copy_alert_endpoints(plan, (&client, &project), dry_run, format, out).await?;
        let mut unset: Vec<String> = registry_unset.into_iter().collect();
        if !people.unset.is_empty() {
            unset.push(crate::people::unset_message(&project, &people.unset));
        }
        unset.extend(alerts_unset);
        if !unset.is_empty() {
            return Err(out.fail(EXIT_INVALID, unset.join("\n")));
        }
        if format == Format::Json {
            let json = PrepareJson {
                dry_run,
                key: key.as_ref(),
                infisical: &report,
                proxy_copies: &done,
                ssm: &parameters,
                registry_copies: &registry,
                workload_secrets: &people.report,
                alert_endpoints: alerts.as_ref(),
            };
            print_json(&json);
        }
        Ok(())
    })
}

/// Makes sure the environment's own KMS key exists (the plan's `kms-key` item, when it has
/// one): created with its alias and KMS's default key policy when absent, left alone otherwise
/// (the program's `KeyPolicy` owns its policy). Everything `secrets prepare` writes to AWS
/// afterwards is encrypted with it.
async fn prepare_key(
    plan: &Plan,
    dry_run: bool,
    format: Format,
    out: Out,
) -> Result<Option<KeyReport>, Exit> {
    let Some(runtime_plan::ItemSpec::KmsKey { alias, .. }) =
        plan.item(runtime_plan::lower::KEY_ID).map(|i| &i.spec)
    else {
        return Ok(None);
    };
    let aws = crate::session::aws(plan, out).await?;
    let key = EnvironmentKey { alias: alias.to_string(), tags: Vec::new() };
    let report = aws.ensure_environment_key(&scope(plan), &key, dry_run).await.map_err(|e| {
        let copies: Vec<&str> =
            plan.secrets.generated.iter().filter_map(|g| g.secrets_manager.as_deref()).collect();
        out.remote(format!(
            "{}\nnot done: the proxy copies ({}), the credentials' SSM parameters, the registry copies, \
                 the workloads' secrets",
            chain(&e),
            copies.join(", ")
        ))
    })?;
    if format == Format::Text {
        outln!("{:<9} {} (the environment's KMS key)", report.action.word(dry_run), report.alias);
        for extra in &report.scheduled_for_deletion {
            outln!(
                "scheduled for deletion in {} days: KMS key {extra}, another key of the environment (a concurrent \
                 or stopped run's)",
                aws_adapter::aws::EXTRA_KEY_PENDING_DAYS
            );
        }
    }
    Ok(Some(report))
}

/// Copies each workload's registry credentials (`registryCredentials: NAME`) from Infisical,
/// where people set them, to the Secrets Manager secret the program looks up, as
/// `{"username", "password"}`. The two values are read with their references expanded (as
/// Infisical's syncs deliver values) and go straight to the AWS adapter. A value nobody has set
/// yet stops the copies, and is returned as what to tell people (where to set it), for the
/// command to end with exit 1 once the rest is done (in a dry run too: the real run would
/// stop there).
async fn copy_registry_credentials(
    plan: &Plan,
    (client, project): (&Client, &str),
    dry_run: bool,
    format: Format,
    out: Out,
) -> Result<(Vec<ProxyCopyReport>, Option<String>), Exit> {
    let copies = &plan.secrets.registry_copies;
    let mut done = Vec::with_capacity(copies.len());
    if copies.is_empty() {
        return Ok((done, None));
    }
    let aws = crate::session::aws(plan, out).await?;
    let scope = scope(plan);
    for (i, copy) in copies.iter().enumerate() {
        let not_done =
            || copies[i..].iter().map(|c| c.secrets_manager.as_str()).collect::<Vec<_>>().join(", ");
        let mut values = Vec::with_capacity(2);
        for place in [&copy.username, &copy.password] {
            let value = client
                .read_expanded_value(project, &place.environment, &place.folder, &place.name)
                .await
                .map_err(|e| {
                    let at = format!("{}/{}", place.display(), place.name);
                    out.remote(format!(
                        "registry copy: cannot read `{at}`: {}\nnot done: {}",
                        chain(&e),
                        not_done()
                    ))
                })?;
            values.push(value);
        }
        let [Some(username), Some(password)] =
            <[Option<SecretString>; 2]>::try_from(values).unwrap_or([None, None])
        else {
            let (user, pass) = (&copy.username, &copy.password);
            return Ok((
                done,
                Some(format!(
                    "set the registry credentials of workload `{}` in Infisical: `{}/{}` (the registry's user) and \
                     `{}/{}` (a read-only token), then run `runway secrets prepare` again; until then `pulumi up` \
                     cannot look up `{}`\nnot done: {}",
                    copy.workload,
                    user.display(),
                    user.name,
                    pass.display(),
                    pass.name,
                    copy.secrets_manager,
                    not_done()
                )),
            ));
        };
        let write = RegistryCredentialsCopy {
            secret_name: copy.secrets_manager.to_string(),
            workload: copy.workload.to_string(),
            username,
            password,
            kms_key: plan.secrets.secrets_manager_key.as_deref().map(str::to_owned),
            tags: Vec::new(),
        };
        let copied = aws
            .copy_registry_credentials(&scope, &write, dry_run)
            .await
            .map_err(|e| out.remote(format!("{}\nnot done: {}", chain(&e), not_done())))?;
        drop(write);
        if format == Format::Text {
            outln!(
                "{:<9} {} (registry credentials of {})",
                copied.action.word(dry_run),
                copied.secret_name,
                copy.workload
            );
        }
        done.push(copied);
    }
    Ok((done, None))
}

/// Publishes the generated credentials' SSM parameters (copied from Infisical, where `prepare`
/// just put them), so that everything the program looks up exists before `pulumi up`. In a
/// dry run, a credential not created yet is listed as pending without being read.
async fn prepare_parameters(
    plan: &Plan,
    (client, project): (&Client, &str),
    specs: &[(CredentialSpec, &runtime_plan::GeneratedSecret)],
    report: &secrets_adapter::Report,
    dry_run: bool,
    format: Format,
    out: Out,
) -> Result<PreparedParameters, Exit> {
    let mut requests = Vec::new();
    let mut places = HashMap::new();
    let mut pending = Vec::new();
    for (spec, g) in specs {
        let Some(p) = plan
            .secrets
            .ssm_parameters
            .iter()
            .find(|p| p.owner == g.resource && p.consumer == g.consumer && p.variable == g.variable)
        else {
            continue;
        };
        if dry_run && matches!(report.action_at(&spec.location()), Some(secrets_adapter::Action::WouldCreate))
        {
            pending.push(p.name.to_string());
            continue;
        }
        places.insert((p.owner.to_string(), p.source_key()), &g.infisical);
        requests.push(ParameterRequest {
            name: p.name.to_string(),
            resource: p.owner.to_string(),
            variable: p.source_key(),
            tags: Vec::new(),
        });
    }
    let source = InfisicalValues { client, project, places };
    let aws = crate::session::aws(plan, out).await?;
    let published = aws
        .ssm_publish(&scope(plan), &plan.secrets.kms_key, &requests, &source, dry_run)
        .await
        .map_err(|e| {
        out.remote(format!(
            "{}\n(the Infisical credentials are in place; run the same command again)",
            chain(&e)
        ))
    })?;
    if format == Format::Text {
        for o in &published.parameters {
            outln!("{:<9} {} (ssm)", o.action.word(dry_run), o.name);
        }
        for n in &pending {
            outln!("would create {n} (ssm, once the credential exists)");
        }
    }
    Ok(PreparedParameters { published, pending })
}

/// The generated credentials' SSM parameters `secrets prepare` wrote (or, in a dry run, would
/// write), for `--format json`.
#[derive(Serialize)]
struct PreparedParameters {
    #[serde(flatten)]
    published: PublishReport,
    /// Parameters of credentials a dry run has not created yet.
    pending: Vec<String>,
}
