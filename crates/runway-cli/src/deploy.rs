//! The deploy-job commands: `runway secrets prepare|publish` and `runway ssm publish|verify`.
//!
//! They belong in the product's protected deploy job, in this order:
//! `secrets prepare` -> `pulumi up` -> `rollout` (`rollout.rs`) -> `secrets publish` ->
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

use std::collections::HashMap;
use std::path::PathBuf;

use aws_adapter::aws::{
    EnvironmentKey, KeyReport, ParameterExpectation, ParameterRequest, ProxyAdminCopy, ProxyCopyReport,
    PublishReport, RegistryCredentialsCopy, Scope, SourceError, ValueSource,
};
use clap::Subcommand;
use runtime_plan::{
    ConnectionSource, CredentialKind, InfisicalPlace, ParameterSource, ParameterWriter, Plan,
};
use runway_schema::Product;
use secrets_adapter::{Client, CredentialRule, CredentialSpec, SecretString, StackOutputs, VariableWrite};
use serde::Serialize;

use crate::args::{Format, PlanArgs};
use crate::output::{EXIT_INVALID, EXIT_REMOTE, Exit, Out, chain, warn};
use crate::planning::{catalogue_for, load_valid, refuse_before_acting};

/// `runway secrets ...`.
#[derive(Subcommand)]
pub(crate) enum SecretsCommand {
    /// Generate missing credentials, write them blind to Infisical, copy each postgres admin
    /// credential to Secrets Manager for RDS Proxy, each workload's registry credentials
    /// from Infisical to its Secrets Manager secret, and each workload's own secrets from
    /// Infisical to their SSM parameters. Run before `pulumi up`.
    Prepare {
        /// The environment.
        #[arg(long)]
        env: String,
        /// Replaced by `runway rotate --env ENV RESOURCE`, which rotates without an outage; kept
        /// only to say so (exit 2).
        #[arg(long = "rotate", value_name = "RESOURCE", hide = true)]
        rotate: Vec<String>,
        /// Call only read APIs and say what would change.
        #[arg(long)]
        dry_run: bool,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// Write connection details from the stack's outputs to Infisical. Run after `pulumi up`.
    Publish {
        /// The environment.
        #[arg(long)]
        env: String,
        /// `pulumi stack output --json --show-secrets` saved to a file.
        #[arg(long)]
        outputs: PathBuf,
        /// Call only read APIs and say what would change.
        #[arg(long)]
        dry_run: bool,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        args: PlanArgs,
    },
}

/// `runway ssm ...`.
#[derive(Subcommand)]
pub(crate) enum SsmCommand {
    /// Copy the credentials and the workloads' own secrets from Infisical into the SSM
    /// parameters workloads reference (for products without Infisical's own sync). The ECS
    /// services whose tasks read a parameter whose value changed since they started (this run,
    /// the program's `pulumi up`, `secrets prepare`) are restarted (a new deployment), since a
    /// task reads its secrets only when it starts.
    Publish {
        /// The environment.
        #[arg(long)]
        env: String,
        /// Restart no service; the output lists those whose running tasks keep the old value.
        #[arg(long)]
        no_restart: bool,
        /// Call only read APIs and say what would change.
        #[arg(long)]
        dry_run: bool,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        args: PlanArgs,
    },
    /// Check that every referenced SSM parameter exists as a SecureString with the right key,
    /// without decrypting any value. Exit 1 when one is missing or wrong.
    Verify {
        /// The environment.
        #[arg(long)]
        env: String,
        #[arg(long, value_enum, default_value = "text")]
        format: Format,
        #[command(flatten)]
        args: PlanArgs,
    },
}

/// Runs a `secrets` subcommand.
pub(crate) fn secrets(command: &SecretsCommand, out: Out) -> Result<(), Exit> {
    match command {
        SecretsCommand::Prepare { env, rotate, dry_run, format, args } => {
            secrets_prepare(env, rotate, *dry_run, *format, args, out)
        }
        SecretsCommand::Publish { env, outputs, dry_run, format, args } => {
            secrets_publish(env, outputs, *dry_run, *format, args, out)
        }
    }
}

/// Runs an `ssm` subcommand.
pub(crate) fn ssm(command: &SsmCommand, out: Out) -> Result<(), Exit> {
    match command {
        SsmCommand::Publish { env, no_restart, dry_run, format, args } => {
            ssm_publish(env, *no_restart, *dry_run, *format, args, out)
        }
        SsmCommand::Verify { env, format, args } => ssm_verify(env, *format, args, out),
    }
}

// ---- shared -------------------------------------------------------------------------------

/// Loads, validates and plans one environment, keeping the product (for `secrets.infisical`).
pub(crate) fn load(env: &str, args: &PlanArgs, out: Out) -> Result<(Product, Plan), Exit> {
    let cat = catalogue_for(&args.file, args.catalogue.as_deref(), out)?;
    let (product, warnings) = load_valid(&args.file, &cat, out)?;
    warn(&warnings);
    let plan = runtime_plan::plan(&product, env, &cat).map_err(|e| out.usage(e))?;
    Ok((product, plan))
}

/// The Infisical side of a plan: the client (from the environment, the runway's URL as the
/// default) and the project id. Exit 2 when the runway has no `secrets.infisical` or the
/// credentials are missing.
pub(crate) fn infisical(product: &Product, plan: &Plan, out: Out) -> Result<(Client, String), Exit> {
    let (Some(config), Some(project)) = (&product.root.secrets.infisical, &plan.secrets.infisical_project)
    else {
        return Err(out.usage(format!(
            "{} has no `secrets.infisical` block; the secrets commands write to Infisical \
             (add `secrets: {{ infisical: {{ project: <project id> }} }}`)",
            product.root.file
        )));
    };
    let client =
        Client::from_env_or(&config.url).map_err(|e| out.usage(format!("Infisical: {}", chain(&e))))?;
    Ok((client, project.to_string()))
}

/// A current-thread runtime for one command's remote calls.
pub(crate) fn runtime(out: Out) -> Result<tokio::runtime::Runtime, Exit> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| out.usage(format!("cannot start the async runtime: {e}")))
}

pub(crate) fn scope(plan: &Plan) -> Scope {
    Scope { product: plan.product.to_string(), environment: plan.environment.to_string() }
}

/// Prints a remote failure (never holding a value) and gives exit 4.
pub(crate) fn remote(out: Out, message: impl std::fmt::Display) -> Exit {
    out.fail(EXIT_REMOTE, message)
}

pub(crate) fn print_json(value: &impl Serialize) {
    // Invariant: the reports are plain strings, numbers and lists; serialising cannot fail.
    outln!("{}", serde_json::to_string_pretty(value).unwrap_or_default());
}

// ---- secrets prepare ----------------------------------------------------------------------

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

fn secrets_prepare(
    env: &str,
    rotate: &[String],
    dry_run: bool,
    format: Format,
    args: &PlanArgs,
    out: Out,
) -> Result<(), Exit> {
    if let Some(first) = rotate.first() {
        return Err(out.usage(format!(
            "`secrets prepare --rotate` is replaced by `runway rotate --env {env} {first}`, which sets the new \
             value on the database or cache first and restarts its readers (docs/pipeline.md, \"Rotation\")"
        )));
    }
    let (product, plan) = load(env, args, out)?;
    refuse_before_acting(&plan, format)?;
    let specs = credential_specs(&plan);
    let (client, project) = infisical(&product, &plan, out)?;
    let only_specs: Vec<CredentialSpec> = specs.iter().map(|(s, _)| s.clone()).collect();
    let rt = runtime(out)?;
    rt.block_on(async {
        // The pinned account, before the first write (Infisical's included): a job holding
        // another account's credentials stops here.
        if plan.account.is_some() {
            crate::pinned::connect(&plan, out).await?;
        }
        let report =
            secrets_adapter::prepare(&client, &project, &only_specs, &[], dry_run).await.map_err(|e| {
                remote(out, format!("secrets prepare stopped: {}\nproxy copies: not done", chain(&e)))
            })?;
        if format == Format::Text {
            if dry_run {
                outln!("dry run: nothing written");
            }
            out!("{report}");
        }

        // The environment's key, before anything is encrypted with it.
        let key = prepare_key(&plan, dry_run, format, out).await?;
        let copies: Vec<_> =
            specs.iter().filter_map(|(s, g)| g.secrets_manager.as_ref().map(|n| (s, *g, n))).collect();
        let mut done = Vec::new();
        if !copies.is_empty() {
            let aws = crate::pinned::connect(&plan, out).await?;
            let scope = scope(&plan);
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
                        remote(
                            out,
                            format!(
                                "proxy copy: cannot read `{}`: {}\nnot done: {}",
                                spec.location(),
                                chain(&e),
                                not_done()
                            ),
                        )
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
                    .map_err(|e| remote(out, format!("{}\nnot done: {}", chain(&e), not_done())))?;
                if format == Format::Text {
                    // The adapter's dry-run banner is already printed above.
                    outln!("{:<9} {} (proxy copy)", copied.action.word(dry_run), copied.secret_name);
                }
                done.push(ProxyCopyJson::Done(copied));
            }
        }
        // What `pulumi up` reads from SSM (a cache's AUTH token) must exist before it runs.
        let parameters =
            prepare_parameters(&plan, (&client, &project), &specs, &report, dry_run, format, out).await?;
        // What people set in Infisical, copied last: what `pulumi up` looks up for a private
        // registry, then the workloads' own secrets. A value nobody has set yet stops only its
        // part, and the command ends with exit 1 naming where to set it.
        let (registry, registry_unset) =
            copy_registry_credentials(&plan, (&client, &project), dry_run, format, out).await?;
        let aws = crate::pinned::connect(&plan, out).await?;
        let people =
            crate::people::copy_workload_secrets(&plan, (&client, &project), (&aws, &scope(&plan)), dry_run)
                .await
                .map_err(|e| remote(out, e))?;
        if format == Format::Text {
            for o in &people.report.parameters {
                outln!("{:<9} {} (ssm, workload secret)", o.action.word(dry_run), o.name);
            }
        }
        // What the alerts topic's HTTPS subscriptions read.
        let (alerts, alerts_unset) =
            crate::alerts::copy_alert_endpoints(&plan, (&client, &project), dry_run, format, out).await?;
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
    let aws = crate::pinned::connect(plan, out).await?;
    let key = EnvironmentKey { alias: alias.to_string(), tags: Vec::new() };
    let report = aws.ensure_environment_key(&scope(plan), &key, dry_run).await.map_err(|e| {
        let copies: Vec<&str> =
            plan.secrets.generated.iter().filter_map(|g| g.secrets_manager.as_deref()).collect();
        remote(
            out,
            format!(
                "{}\nnot done: the proxy copies ({}), the credentials' SSM parameters, the registry copies, \
                 the workloads' secrets",
                chain(&e),
                copies.join(", ")
            ),
        )
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
    let aws = crate::pinned::connect(plan, out).await?;
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
                    remote(
                        out,
                        format!("registry copy: cannot read `{at}`: {}\nnot done: {}", chain(&e), not_done()),
                    )
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
            .map_err(|e| remote(out, format!("{}\nnot done: {}", chain(&e), not_done())))?;
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
    let aws = crate::pinned::connect(plan, out).await?;
    let published = aws
        .ssm_publish(&scope(plan), &plan.secrets.kms_key, &requests, &source, dry_run)
        .await
        .map_err(|e| {
        remote(
            out,
            format!("{}\n(the Infisical credentials are in place; run the same command again)", chain(&e)),
        )
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

// ---- secrets publish ----------------------------------------------------------------------

fn secrets_publish(
    env: &str,
    outputs_file: &std::path::Path,
    dry_run: bool,
    format: Format,
    args: &PlanArgs,
    out: Out,
) -> Result<(), Exit> {
    let (product, plan) = load(env, args, out)?;
    refuse_before_acting(&plan, format)?;
    let outputs = read_outputs(outputs_file).map_err(|e| out.usage(e))?;
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
    let (client, project) = infisical(&product, &plan, out)?;
    let rt = runtime(out)?;
    let report = rt
        .block_on(secrets_adapter::publish(&client, &project, &writes, dry_run))
        .map_err(|e| remote(out, format!("secrets publish stopped: {}", chain(&e))))?;
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

// ---- ssm publish --------------------------------------------------------------------------

/// The stack outputs of `path` (`pulumi stack output --json --show-secrets`).
pub(crate) fn read_outputs(path: &std::path::Path) -> Result<StackOutputs, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    StackOutputs::parse(&text).map_err(|e| format!("{}: {}", path.display(), chain(&e)))
}

/// Values for `ssm publish`, read from Infisical at the places the plan gives, with
/// references expanded (as Infisical's own sync would deliver them). The value is read with
/// `viewSecretValue=true` here only and goes straight to the AWS adapter.
pub(crate) struct InfisicalValues<'a> {
    pub(crate) client: &'a Client,
    pub(crate) project: &'a str,
    /// `(resource, variable)` -> its place in Infisical; a postgres login's own variable is
    /// asked as `<consumer>/<VAR>` ([`runtime_plan::SsmParameter::source_key`]).
    pub(crate) places: HashMap<(String, String), &'a InfisicalPlace>,
}

impl ValueSource for InfisicalValues<'_> {
    fn value(
        &self,
        resource: &str,
        variable: &str,
    ) -> impl Future<Output = Result<Option<SecretString>, SourceError>> + Send {
        let place = self.places.get(&(resource.to_owned(), variable.to_owned())).copied();
        async move {
            let Some(place) = place else { return Ok(None) };
            self.client
                .read_expanded_value(self.project, &place.environment, &place.folder, &place.name)
                .await
                .map_err(|e| -> SourceError { Box::new(e) })
        }
    }
}

fn ssm_publish(
    env: &str,
    no_restart: bool,
    dry_run: bool,
    format: Format,
    args: &PlanArgs,
    out: Out,
) -> Result<(), Exit> {
    let (product, plan) = load(env, args, out)?;
    refuse_before_acting(&plan, format)?;
    let (client, project) = infisical(&product, &plan, out)?;
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
            (ParameterWriter::Program, _, _) => program.push(p.name.as_str()),
            // The plan gives it no place in Infisical: nothing to copy it from.
            (
                ParameterWriter::SecretsPrepare,
                ParameterSource::Resource | ParameterSource::AlertEndpoint,
                None,
            ) => skipped.push(p.name.as_str()),
        }
    }
    let source = InfisicalValues { client: &client, project: &project, places };
    let rt = runtime(out)?;
    rt.block_on(async {
        let aws = crate::pinned::connect(&plan, out).await?;
        let mut report = aws
            .ssm_publish(&scope(&plan), &plan.secrets.kms_key, &requests, &source, dry_run)
            .await
            .map_err(|e| remote(out, chain(&e)))?;
        let people =
            crate::people::copy_workload_secrets(&plan, (&client, &project), (&aws, &scope(&plan)), dry_run)
                .await
                .map_err(|e| {
                    remote(
                        out,
                        format!("{e}\nthe resources' parameters are written; run the same command again"),
                    )
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
        let readers = crate::restarts::stale_readers(&plan, &aws, &outcomes)
            .await
            .map_err(|e| remote(out, format!("{e}\n{not_yet}")))?;
        let (restarted, not_restarted) =
            crate::restarts::restart_readers(&readers, &aws, no_restart, dry_run, format)
                .await
                .map_err(|e| remote(out, format!("{e}\n{not_yet}")))?;
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

// ---- ssm verify ---------------------------------------------------------------------------

fn ssm_verify(env: &str, format: Format, args: &PlanArgs, out: Out) -> Result<(), Exit> {
    let (_, plan) = load(env, args, out)?;
    let expected: Vec<ParameterExpectation> = plan
        .secrets
        .ssm_parameters
        .iter()
        .map(|p| ParameterExpectation { name: p.name.to_string(), kms_key: p.kms_key.to_string() })
        .collect();
    let rt = runtime(out)?;
    let aws = rt.block_on(crate::pinned::connect(&plan, out))?;
    let report = rt.block_on(aws.ssm_verify(&expected)).map_err(|e| remote(out, chain(&e)))?;
    match format {
        Format::Text => outln!("{report}"),
        Format::Json => print_json(&report),
    }
    if report.is_ok() { Ok(()) } else { Err(Exit(EXIT_INVALID)) }
}
