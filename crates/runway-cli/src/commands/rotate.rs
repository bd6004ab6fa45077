//! `runway rotate --env ENV RESOURCE [--login CONSUMER --outputs FILE]`: a generated
//! credential replaced without an outage (a postgres resource's admin password, a consumer's
//! own login password, a cache's token), and the restarts of the ECS services that read a
//! changed parameter (also `runway ssm publish`).
//!
//! The plan says what to change and who reads it (`Plan::rotation`, `Plan::services_reading`);
//! this module runs the steps in their order (docs/secrets.md, "Rotation"):
//!
//! 1. a new value, kept first at the plan's pending place in Infisical (a re-run finds it and
//!    goes on with it: nothing is generated twice);
//! 2. the database's master password (or the cache's token with `ROTATE`: old and new valid),
//!    waited for until AWS has applied it; a login's password: its SSM parameter written with
//!    it, then the resource's bootstrap task run, which sets it in the database;
//! 3. the proxy's Secrets Manager secret (postgres), the credential in Infisical, the SSM
//!    parameters that hold it or embed it;
//! 4. the services that read them restarted, waited for as `runway rollout` waits;
//! 5. a cache's token completed with `SET` (only the new one valid), waited for;
//! 6. the pending value cleared.
//!
//! Every step is idempotent given the pending value, so a run stopped anywhere is finished by
//! running the same command again. Step 2 is skipped once Infisical holds the pending value
//! (the steps after it then ran). No value is printed: each line names a place and an action.
//!
//! Exit codes: 0 rotated, 1 a restarted service rolled back or failed (or a login's bootstrap
//! task did), 2 usage (a resource without a generated credential, a consumer without a login,
//! `--login` without `--outputs`, no `secrets.infisical`, missing credentials, a credential
//! `secrets prepare` has not created yet), 3 refused by a cost cap, 4 a remote call failed,
//! 5 a wait timed out; after 1, 4 and 5 the new value is kept and the same command finishes.

use std::collections::HashMap;
use std::time::Duration;

use aws_adapter::aws::{
    AwsClients, CredentialHolder, HolderState, OneOffRun, ParameterRequest, ParameterWrite, RolloutTiming,
    ServiceRollout, ServiceTarget, TaskOutcome, TaskTiming, TokenStrategy, Verdict,
};
use runtime_plan::{
    CredentialKind, InfisicalPlace, OneOffTask, Plan, Rotation, RotationTarget, ServiceRestart,
};
use secrets_adapter::{Client, CredentialRule, ExposeSecret, Outcome, SecretString};
use serde::Serialize;

use crate::infisical_values::InfisicalValues;
use crate::prelude::*;
use crate::restarts::RestartJson;
use crate::session::scope;

/// Replace a generated credential (a postgres admin password, a cache AUTH token) without
/// an outage: the database or cache first (and waited for), then the proxy's secret,
/// Infisical and SSM, then the services that read it restart; a cache's token is completed
/// with `SET` last. Stopped anywhere, the same command finishes it (docs/pipeline.md,
/// "Rotation").
#[derive(clap::Args)]
pub(crate) struct Args {
    /// The resource whose credential to replace (`main-db`, `sessions`): a postgres
    /// resource's admin password, or with `--login` a consumer's own.
    // Before `env`: the first positional argument, as it always was (then FILE).
    resource: String,
    #[command(flatten)]
    env: EnvArgs,
    /// The consumer whose own login on the postgres resource to rotate (`metabase`); its
    /// password is set by the resource's bootstrap task, so `--outputs` is needed too.
    #[arg(long, value_name = "CONSUMER")]
    login: Option<String>,
    /// The stack outputs (`pulumi stack output --json --show-secrets`), as `runway migrate`
    /// takes them: where the bootstrap task runs (with `--login`).
    #[arg(long, value_name = "FILE")]
    outputs: Option<PathBuf>,
    /// Restart no service (a cache's rotation then stops before `SET`, both tokens valid).
    #[arg(long)]
    no_restart: bool,
    /// The members using the resource (listed by a run) have been redeployed with the new
    /// value: a cache's rotation may complete with `SET`.
    #[arg(long)]
    members_restarted: bool,
    #[command(flatten)]
    timing: Timing<RotateWaits>,
    /// `json`: `{"environment","resource","resumed","complete","target","steps":[..],
    /// "restarted":[..],"notRestarted":[..],"members":[..]}` on stdout, progress lines on stderr.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

impl CommandArgs for Args {
    fn json(&self) -> bool {
        self.format.json()
    }
}

/// `runway rotate`'s waits: for the database or cache, and for the restarts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RotateWaits;

impl Waits for RotateWaits {
    const TIMEOUT: &'static str = "30m";
    const TIMEOUT_HELP: &'static str =
        "The most time for each wait (the database or cache, the restarts), from 1s to 6h";
    const INTERVAL: &'static str = "10s";
    const INTERVAL_HELP: &'static str = "The pause between two looks, from 1s to 5m";
}

/// What `runway rotate` replaces.
#[derive(Clone, Copy, Debug)]
pub(crate) struct What<'a> {
    /// The resource.
    pub(crate) resource: &'a str,
    /// A consumer whose own login it is (postgres).
    pub(crate) login: Option<&'a str>,
    /// The stack outputs, for the bootstrap task a login's rotation runs.
    pub(crate) outputs: Option<&'a std::path::Path>,
}

/// The bootstrap task a login's rotation runs, with where it runs.
type Bootstrap<'p> = Option<(&'p OneOffTask, OneOffRun)>;

/// How `runway rotate` waits and whether it restarts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Options {
    /// Leave the services alone (a cache's rotation then stops before `SET`).
    pub(crate) no_restart: bool,
    /// People restarted the members that use the resource (a cache's `SET` waits for it).
    pub(crate) members_restarted: bool,
    /// The most time for each wait (the database, the restarts, the cache's `SET`).
    pub(crate) timeout: Duration,
    /// The pause between two looks.
    pub(crate) interval: Duration,
}

/// One step done, as printed and in JSON.
#[derive(Serialize)]
struct Step {
    step: &'static str,
    subject: String,
    action: String,
}

/// `runway rotate`'s JSON.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RotateJson<'a> {
    environment: &'a str,
    resource: &'a str,
    /// A pending value of an earlier run was found and used.
    resumed: bool,
    /// Every step done (a cache's `SET` left for later with `--no-restart`: false).
    complete: bool,
    target: &'a RotationTarget,
    steps: &'a [Step],
    restarted: Vec<RestartJson>,
    not_restarted: Vec<RestartJson>,
    /// The members using the resource, which people restart.
    members: &'a [runtime_plan::CompactString],
}

/// The run's progress: the steps done, printed as they happen (on stderr with `--format json`).
struct Progress {
    out: Out,
    steps: Vec<Step>,
}

impl Progress {
    fn done(&mut self, step: &'static str, subject: impl Into<String>, action: impl Into<String>) {
        let (subject, action) = (subject.into(), action.into());
        self.say(&format!("{step:<9} {action:<10} {subject}"));
        self.steps.push(Step { step, subject, action });
    }

    fn say(&self, line: &str) {
        self.out.progress(line);
    }

    fn summary(&self) -> String {
        let done: Vec<String> =
            self.steps.iter().map(|s| format!("{} {} {}", s.step, s.action, s.subject)).collect();
        if done.is_empty() { "nothing".to_owned() } else { done.join("; ") }
    }
}

/// The bootstrap task a login's rotation runs (`None` for another credential), with where it
/// runs from the stack outputs.
fn bootstrap_of<'p>(plan: &'p Plan, rotation: &Rotation, what: What<'_>) -> Result<Bootstrap<'p>, String> {
    let RotationTarget::Login { bootstrap, .. } = &rotation.target else { return Ok(None) };
    let Some(path) = what.outputs else {
        return Err(format!(
            "the new password is set in the database by {bootstrap}, a one-off task: give `--outputs FILE` \
             (the stack outputs, as `runway migrate` takes them)"
        ));
    };
    let task = plan
        .tasks
        .iter()
        .find(|t| t.name == *bootstrap)
        .ok_or(format!("the plan has no task {bootstrap}"))?;
    let outputs = crate::stack_outputs::read(path)?;
    Ok(Some((task, crate::one_off::run_of(plan, task, &outputs, path)?)))
}

/// Runs `runway rotate`.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let (env, format) = (args.env.env.as_str(), args.format);
    let options = Options {
        no_restart: args.no_restart,
        members_restarted: args.members_restarted,
        timeout: args.timing.timeout,
        interval: args.timing.interval,
    };
    let what =
        What { resource: &args.resource, login: args.login.as_deref(), outputs: args.outputs.as_deref() };
    let resource = what.resource;
    // What the lines name: the resource, or a consumer's login on it.
    let label = match what.login {
        Some(consumer) => format!("{resource}'s login of {consumer}"),
        None => resource.to_owned(),
    };
    let session = Session::open(&args.env, out)?;
    session.refuse_before_acting(format)?;
    let plan = &session.plan;
    let rotation = match what.login {
        Some(consumer) => plan.login_rotation(resource, consumer),
        None => plan.rotation(resource),
    }
    .map_err(|e| out.usage(format!("rotate {resource}: {e}")))?;
    let bootstrap =
        bootstrap_of(plan, &rotation, what).map_err(|e| out.usage(format!("rotate {resource}: {e}")))?;
    let (client, project) = session.infisical()?;
    let rt = session.runtime()?;
    let mut progress = Progress { out, steps: Vec::new() };
    // The pinned account, before anything is kept or written.
    let aws = rt.block_on(crate::session::aws(plan, out))?;
    let ran =
        rt.block_on(rotate(plan, (&rotation, bootstrap), (&client, &project, &aws), options, &mut progress));
    let (resumed, complete) = match ran {
        Ok(done) => done,
        // Before anything was kept: nothing to finish.
        Err(Stop { code: EXIT_USAGE, message }) => {
            return Err(out.usage(format!("rotate {label}: {message}")));
        }
        Err(Stop { code, message }) => {
            return Err(out.fail(
                code,
                format!(
                    "rotate {label} stopped: {message}\ndone: {}\nthe new value is kept at `{}/{}` (never shown): \
                     run the same command again to finish the rotation with it",
                    progress.summary(),
                    rotation.pending.display(),
                    rotation.pending.name
                ),
            ));
        }
    };
    let (restarted, not_restarted) = if options.no_restart {
        (Vec::new(), rotation.restarts.iter().map(RestartJson::from).collect())
    } else {
        (rotation.restarts.iter().map(RestartJson::from).collect(), Vec::new())
    };
    let members = rotation.members.iter().map(|m| m.as_str()).collect::<Vec<_>>().join(", ");
    match format {
        Format::Text if complete && !members.is_empty() && !options.members_restarted => outln!(
            "rotated {label} in {env}; the members using it ({members}) read it from Infisical and run \
             outside runway: redeploy them now, their new logins are refused until they restart"
        ),
        Format::Text if complete => outln!("rotated {label} in {env}"),
        Format::Text if !members.is_empty() && !options.members_restarted => outln!(
            "rotated {label} in {env} but not completed: both tokens stay valid; redeploy the members using it \
             ({members}: they read it from Infisical){}, then run the same command again with --members-restarted \
             to complete it (`SET`)",
            if options.no_restart { " and restart the services above" } else { "" }
        ),
        Format::Text => outln!(
            "rotated {label} in {env} but not completed: both tokens stay valid until the services above \
             restart; restart them, then run the same command again to complete it (`SET`)"
        ),
        Format::Json => print_json(&RotateJson {
            environment: env,
            resource,
            resumed,
            complete,
            target: &rotation.target,
            steps: &progress.steps,
            restarted,
            not_restarted,
            members: &rotation.members,
        }),
    }
    Ok(())
}

/// Why a rotation stopped: the exit code and what failed (no value in it).
struct Stop {
    code: u8,
    message: String,
}

fn remote(step: &str, e: &(dyn std::error::Error + 'static)) -> Stop {
    Stop { code: EXIT_REMOTE, message: format!("{step}: {}", chain(e)) }
}

/// What AWS holds the credential in; `None` for a login, which the bootstrap task sets.
fn holder(target: &RotationTarget) -> Option<CredentialHolder> {
    match target {
        RotationTarget::RdsInstance { identifier, .. } => {
            Some(CredentialHolder::RdsInstance(identifier.to_string()))
        }
        RotationTarget::AuroraCluster { identifier, .. } => {
            Some(CredentialHolder::AuroraCluster(identifier.to_string()))
        }
        RotationTarget::CacheReplicationGroup { replication_group_id } => {
            Some(CredentialHolder::CacheReplicationGroup(replication_group_id.to_string()))
        }
        RotationTarget::Login { .. } => None,
    }
}

fn at(place: &InfisicalPlace) -> String {
    format!("{}/{}", place.display(), place.name)
}

/// The steps, in order. Returns whether a pending value was resumed and whether the rotation
/// is complete (a cache's `SET` waits for restarts `--no-restart` left out).
async fn rotate(
    plan: &Plan,
    (rotation, bootstrap): (&Rotation, Bootstrap<'_>),
    (client, project, aws): (&Client, &str, &AwsClients),
    options: Options,
    progress: &mut Progress,
) -> Result<(bool, bool), Stop> {
    let credential = &rotation.credential.infisical;
    let exists = client
        .secret_meta(project, &credential.environment, &credential.folder, &credential.name)
        .await
        .map_err(|e| remote("infisical", &e))?;
    if exists.is_none() {
        return Err(Stop {
            code: EXIT_USAGE,
            message: format!("`{}` does not exist yet: run `runway secrets prepare` first", at(credential)),
        });
    }
    let (value, resumed) =
        pending_value(client, project, rotation).await.map_err(|e| remote("pending", &e))?;
    progress.done("pending", at(&rotation.pending), if resumed { "resumed" } else { "kept" });
    let holder = holder(&rotation.target);
    let current = client
        .read_value(project, &credential.environment, &credential.folder, &credential.name)
        .await
        .map_err(|e| remote("infisical", &e))?;
    let in_infisical = current.is_some_and(|c| c.expose_secret() == value.expose_secret());
    match (&holder, bootstrap) {
        _ if in_infisical => {
            let subject = holder.as_ref().map_or_else(|| rotation.resource.to_string(), ToString::to_string);
            progress.done("engine", subject, "done before");
        }
        (Some(holder), _) => {
            aws.set_credential(holder, &value, TokenStrategy::Rotate)
                .await
                .map_err(|e| remote("engine", &e))?;
            wait(aws, holder, options, progress).await?;
            progress.done("engine", holder.to_string(), engine_word(&rotation.target));
        }
        (None, Some(bootstrap)) => {
            set_login(plan, rotation, &value, bootstrap, aws, options, progress).await?
        }
        (None, None) => {
            return Err(Stop { code: EXIT_USAGE, message: "no bootstrap task to run".into() });
        }
    }
    if let RotationTarget::RdsInstance { proxy_secret, username, .. }
    | RotationTarget::AuroraCluster { proxy_secret, username, .. }
    | RotationTarget::Login { proxy_secret, username, .. } = &rotation.target
    {
        let copy = aws_adapter::aws::ProxyAdminCopy {
            secret_name: proxy_secret.to_string(),
            resource: rotation.resource.to_string(),
            username: username.to_string(),
            password: value.clone(),
            kms_key: plan.secrets.secrets_manager_key.as_deref().map(str::to_owned),
            tags: Vec::new(),
        };
        let copied =
            aws.copy_proxy_admin(&scope(plan), &copy, false).await.map_err(|e| remote("proxy", &e))?;
        progress.done("proxy", proxy_secret.to_string(), copied.action.word(false));
    }
    if !in_infisical {
        client
            .update_secret(project, &credential.environment, &credential.folder, &credential.name, &value)
            .await
            .map_err(|e| remote("infisical", &e))?;
    }
    progress.done("infisical", at(credential), if in_infisical { "unchanged" } else { "updated" });
    publish_parameters(plan, rotation, (client, project), aws, progress).await?;
    let complete = restart_and_complete(aws, rotation, holder.as_ref(), &value, options, progress).await?;
    if complete {
        let pending = &rotation.pending;
        client
            .delete_secret(project, &pending.environment, &pending.folder, &pending.name)
            .await
            .map_err(|e| remote("pending", &e))?;
        progress.done("pending", at(pending), "cleared");
    }
    Ok((resumed, complete))
}

fn engine_word(target: &RotationTarget) -> &'static str {
    match target {
        RotationTarget::RdsInstance { .. }
        | RotationTarget::AuroraCluster { .. }
        | RotationTarget::Login { .. } => "set",
        RotationTarget::CacheReplicationGroup { .. } => "rotate",
    }
}

/// A login's new password in the database: its SSM parameter written with it, then the
/// resource's bootstrap task run, which sets every login's password from its parameter (the
/// parameter's new version makes the run new; a re-run finds it done).
async fn set_login(
    plan: &Plan,
    rotation: &Rotation,
    value: &SecretString,
    (task, mut run): (&OneOffTask, OneOffRun),
    aws: &AwsClients,
    options: Options,
    progress: &mut Progress,
) -> Result<(), Stop> {
    let own = rotation.parameters.first().ok_or_else(|| Stop {
        code: EXIT_USAGE,
        message: "the plan declares no parameter for the login's password".into(),
    })?;
    let write = ParameterWrite {
        name: own.name.to_string(),
        value: value.clone(),
        resource: rotation.resource.to_string(),
        tags: Vec::new(),
    };
    let written = aws
        .ssm_publish_values(&scope(plan), &plan.secrets.kms_key, &[write], false)
        .await
        .map_err(|e| Stop { code: EXIT_REMOTE, message: e.to_string() })?;
    for o in &written.parameters {
        progress.done("ssm", o.name.clone(), o.action.word(false));
    }
    if let Err(missing) =
        crate::one_off::fold_versions(aws, task, &mut run).await.map_err(|e| remote("bootstrap", &e))?
    {
        return Err(Stop { code: EXIT_INVALID, message: missing });
    }
    let timing = TaskTiming { timeout: options.timeout, interval: options.interval };
    let report = aws
        .run_one_off(&run, timing, &mut |line: &str| progress.say(line))
        .await
        .map_err(|e| remote("bootstrap", &e))?;
    match report.outcome {
        TaskOutcome::AlreadyDone { .. } | TaskOutcome::Succeeded { .. } => {
            progress.done("engine", task.name.to_string(), "set");
            Ok(())
        }
        TaskOutcome::TimedOut { .. } => Err(Stop { code: EXIT_TIMEOUT, message: report.to_string() }),
        _ => Err(Stop { code: EXIT_INVALID, message: report.to_string() }),
    }
}

/// The pending value: the one an earlier run kept, or a new one generated and kept now.
async fn pending_value(
    client: &Client,
    project: &str,
    rotation: &Rotation,
) -> Result<(SecretString, bool), secrets_adapter::Error> {
    let p = &rotation.pending;
    if let Some(value) = client.read_value(project, &p.environment, &p.folder, &p.name).await? {
        return Ok((value, true));
    }
    let rule = match rotation.credential.kind {
        CredentialKind::PostgresAdminPassword | CredentialKind::PostgresLoginPassword => {
            CredentialRule::PostgresPassword
        }
        CredentialKind::CacheAuthToken => CredentialRule::ValkeyAuthToken,
    };
    client.ensure_folder(project, &p.environment, &p.folder).await?;
    let value = rule.generate()?;
    match client.create_secret(project, &p.environment, &p.folder, &p.name, &value).await? {
        Outcome::Created => Ok((value, false)),
        // Kept meanwhile (a concurrent run, or our create's answer was lost): that one is used.
        Outcome::AlreadyExists => {
            let kept = client.read_value(project, &p.environment, &p.folder, &p.name).await?;
            kept.map(|v| (v, true))
                .ok_or_else(|| secrets_adapter::Error::InvalidInput(format!("`{}` vanished", at(p))))
        }
    }
}

/// Waits for the holder to settle, each change of state shown.
async fn wait(
    aws: &AwsClients,
    holder: &CredentialHolder,
    options: Options,
    progress: &Progress,
) -> Result<(), Stop> {
    let mut show = |state: &HolderState| {
        let pending = if state.credential_pending { ", credential change pending" } else { "" };
        progress.say(&format!("waiting   {holder}: {}{pending}", state.status));
    };
    match aws.wait_settled(holder, options.timeout, options.interval, &mut show).await {
        Ok(_) => Ok(()),
        Err(e @ aws_adapter::aws::WaitError::TimedOut { .. }) => {
            Err(Stop { code: EXIT_TIMEOUT, message: e.to_string() })
        }
        Err(e) => Err(remote("engine", &e)),
    }
}

/// Writes the rotation's SSM parameters from Infisical (references expanded).
async fn publish_parameters(
    plan: &Plan,
    rotation: &Rotation,
    (client, project): (&Client, &str),
    aws: &AwsClients,
    progress: &mut Progress,
) -> Result<(), Stop> {
    let mut places = HashMap::new();
    let mut requests = Vec::new();
    for p in &rotation.parameters {
        // Each asked by its variable at the place the rotation names (the resource's folder or a login's).
        places.insert((rotation.resource.to_string(), p.variable.to_string()), &p.infisical);
        requests.push(ParameterRequest {
            name: p.name.to_string(),
            resource: rotation.resource.to_string(),
            variable: p.variable.to_string(),
            tags: Vec::new(),
        });
    }
    let source = InfisicalValues { client, project, places };
    let report = aws
        .ssm_publish(&scope(plan), &plan.secrets.kms_key, &requests, &source, false)
        .await
        .map_err(|e| Stop { code: EXIT_REMOTE, message: e.to_string() })?;
    for o in &report.parameters {
        progress.done("ssm", o.name.clone(), o.action.word(false));
    }
    Ok(())
}

/// Restarts the readers and waits for them; then a cache's token is completed with `SET`.
/// Returns whether the rotation is complete.
async fn restart_and_complete(
    aws: &AwsClients,
    rotation: &Rotation,
    holder: Option<&CredentialHolder>,
    value: &SecretString,
    options: Options,
    progress: &mut Progress,
) -> Result<bool, Stop> {
    if options.no_restart {
        for s in &rotation.restarts {
            progress.done("restart", s.workload.to_string(), "not done");
        }
    } else {
        let running = restart(aws, &rotation.restarts, progress).await?;
        wait_restarts(aws, &running, options, progress).await?;
    }
    for m in &rotation.members {
        let action = if options.members_restarted { "redeployed" } else { "redeploy" };
        progress.done("member", m.to_string(), action);
    }
    let (RotationTarget::CacheReplicationGroup { .. }, Some(holder)) = (&rotation.target, holder) else {
        return Ok(true);
    };
    let services_left = options.no_restart && !rotation.restarts.is_empty();
    let members_left = !rotation.members.is_empty() && !options.members_restarted;
    if services_left || members_left {
        return Ok(false);
    }
    aws.set_credential(holder, value, TokenStrategy::Set).await.map_err(|e| remote("engine", &e))?;
    wait(aws, holder, options, progress).await?;
    progress.done("engine", holder.to_string(), "set");
    Ok(true)
}

/// Starts a new deployment of each service (`UpdateService`, `forceNewDeployment`); returns
/// those that exist (a service not deployed yet runs no task and needs none).
async fn restart(
    aws: &AwsClients,
    restarts: &[ServiceRestart],
    progress: &mut Progress,
) -> Result<Vec<ServiceRestart>, Stop> {
    let mut running = Vec::with_capacity(restarts.len());
    for s in restarts {
        if aws.restart_service(&s.cluster, &s.service).await.map_err(|e| remote("restart", &e))? {
            progress.done("restart", s.workload.to_string(), "restarted");
            running.push(s.clone());
        } else {
            progress.done("restart", s.workload.to_string(), "not found");
        }
    }
    Ok(running)
}

/// Waits until every restarted service runs its new deployment with every desired task.
async fn wait_restarts(
    aws: &AwsClients,
    restarts: &[ServiceRestart],
    options: Options,
    progress: &Progress,
) -> Result<(), Stop> {
    if restarts.is_empty() {
        return Ok(());
    }
    let targets: Vec<ServiceTarget> = restarts
        .iter()
        .map(|s| ServiceTarget {
            workload: s.workload.to_string(),
            cluster: s.cluster.to_string(),
            service: s.service.to_string(),
            family: s.family.to_string(),
        })
        .collect();
    let timing = RolloutTiming { timeout: options.timeout, interval: options.interval };
    let mut show = |entry: &ServiceRollout| progress.say(&entry.to_string());
    let report = aws.rollout(&targets, timing, &mut show).await.map_err(|e| remote("restart", &e))?;
    match report.verdict {
        Verdict::Complete => Ok(()),
        Verdict::TimedOut => Err(Stop {
            code: EXIT_TIMEOUT,
            message: "the restarted services did not settle in time: run the same command again".to_owned(),
        }),
        Verdict::Failed => Err(Stop {
            code: EXIT_INVALID,
            message:
                "a restarted service did not complete (see above); fix it, then run the same command again"
                    .to_owned(),
        }),
    }
}
