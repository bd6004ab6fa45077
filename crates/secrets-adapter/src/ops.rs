//! `prepare` (generated credentials) and `publish` (connection details).

use std::collections::HashSet;

use secrecy::{ExposeSecret, SecretString};

use crate::client::{Client, Outcome};
use crate::error::{Error, RunError};
use crate::generate::CredentialRule;
use crate::report::{Action, Report, folder_location, secret_location};

/// One generated credential the plan asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialSpec {
    /// The resource it belongs to (`main-db`); `rotate` names resources.
    pub resource: String,
    /// Infisical environment slug (`dev`).
    pub environment: String,
    /// Absolute folder (`/runtime/main-db`).
    pub folder: String,
    /// Secret name (`MAIN_DB_PASSWORD`).
    pub name: String,
    /// Which engine's rules the value follows.
    pub rule: CredentialRule,
}

impl CredentialSpec {
    /// `<env>:<folder>/<NAME>`.
    pub fn location(&self) -> String {
        secret_location(&self.environment, &self.folder, &self.name)
    }
}

/// One variable to publish. `Debug` never shows the value (`SecretString`).
#[derive(Debug, Clone)]
pub struct VariableWrite {
    /// Infisical environment slug.
    pub environment: String,
    /// Absolute folder.
    pub folder: String,
    /// Secret name (`MAIN_DB_HOST`).
    pub name: String,
    /// The value; may be a reference such as `postgres://app:${MAIN_DB_PASSWORD}@host/app`.
    pub value: SecretString,
}

impl VariableWrite {
    /// `<env>:<folder>/<NAME>`.
    pub fn location(&self) -> String {
        secret_location(&self.environment, &self.folder, &self.name)
    }
}

fn valid_folder(folder: &str) -> bool {
    folder.starts_with('/')
        && (folder == "/"
            || folder[1..].split('/').all(|seg| {
                !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            }))
}

fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

fn validate<'a>(items: impl Iterator<Item = (&'a str, &'a str, &'a str)>) -> Result<(), Error> {
    let mut seen = HashSet::new();
    for (env, folder, name) in items {
        let location = secret_location(env, folder, name);
        if env.is_empty() {
            return Err(Error::InvalidInput(format!("`{location}`: empty environment")));
        }
        if !valid_folder(folder) {
            return Err(Error::InvalidInput(format!(
                "`{location}`: a folder is an absolute path of `[A-Za-z0-9_-]` segments"
            )));
        }
        if !valid_name(name) {
            return Err(Error::InvalidInput(format!("`{location}`: a secret name is `[A-Za-z0-9_.-]`")));
        }
        if !seen.insert(location.clone()) {
            return Err(Error::InvalidInput(format!("`{location}` listed twice")));
        }
    }
    Ok(())
}

/// Per-run folder bookkeeping: each folder is ensured (or, in a dry run, checked) once.
struct Folders {
    done: HashSet<(String, String)>,
}

impl Folders {
    fn new() -> Self {
        Folders { done: HashSet::new() }
    }

    async fn ensure(
        &mut self,
        client: &Client,
        project_id: &str,
        environment: &str,
        folder: &str,
        dry_run: bool,
        report: &mut Report,
    ) -> Result<(), Error> {
        if !self.done.insert((environment.to_string(), folder.to_string())) {
            return Ok(());
        }
        let location = folder_location(environment, folder);
        if dry_run {
            if !client.folder_exists(project_id, environment, folder).await? {
                report.push(location, Action::WouldCreate);
            }
        } else if client.ensure_folder(project_id, environment, folder).await? == Outcome::Created {
            report.push(location, Action::Created);
        }
        Ok(())
    }
}

fn stopped(report: Report, pending: Vec<String>, cause: Error) -> RunError {
    RunError { completed: report, not_done: pending, cause }
}

/// Ensures every credential exists: for each, its folder is created when missing, and a
/// missing secret is generated ([`CredentialRule::generate`]) and created. An existing
/// credential is kept (its value is never read) unless its resource is in `rotate`, in which
/// case a new value is generated and written (`rotated`). `dry_run` calls only read endpoints
/// and reports `would-create` / `would-rotate`.
///
/// No value is returned: for the RDS Proxy's Secrets Manager copy, the caller reads the stored
/// value with [`read_for_proxy_copy`] after this run. That keeps re-runs after a partial
/// failure correct (a credential created by an earlier run is still copied) and rotation
/// consistent (the copy always matches what Infisical holds).
///
/// A remote failure stops the run with a [`RunError`] listing what was done and what was not;
/// running again finishes the job and generates nothing twice.
pub async fn prepare(
    client: &Client,
    project_id: &str,
    credentials: &[CredentialSpec],
    rotate: &[String],
    dry_run: bool,
) -> Result<Report, RunError> {
    let all = || credentials.iter().map(CredentialSpec::location).collect();
    if let Err(e) =
        validate(credentials.iter().map(|c| (c.environment.as_str(), c.folder.as_str(), c.name.as_str())))
    {
        return Err(stopped(Report::default(), all(), e));
    }
    if let Some(unknown) = rotate.iter().find(|r| !credentials.iter().any(|c| &c.resource == *r)) {
        return Err(stopped(
            Report::default(),
            all(),
            Error::InvalidInput(format!("rotation asked for `{unknown}`, which has no generated credential")),
        ));
    }
    let mut report = Report::default();
    let mut folders = Folders::new();
    for (i, spec) in credentials.iter().enumerate() {
        let step = prepare_one(client, project_id, spec, rotate, dry_run, &mut folders, &mut report);
        if let Err(cause) = step.await {
            let pending = credentials[i..].iter().map(CredentialSpec::location).collect();
            return Err(stopped(report, pending, cause));
        }
    }
    Ok(report)
}

async fn prepare_one(
    client: &Client,
    project_id: &str,
    spec: &CredentialSpec,
    rotate: &[String],
    dry_run: bool,
    folders: &mut Folders,
    report: &mut Report,
) -> Result<(), Error> {
    let (env, folder, name) = (&spec.environment, &spec.folder, &spec.name);
    let location = spec.location();
    let exists = client.secret_meta(project_id, env, folder, name).await?.is_some();
    let rotating = rotate.contains(&spec.resource);
    match (exists, rotating, dry_run) {
        (true, false, _) => report.push(location, Action::Exists),
        (true, true, true) => report.push(location, Action::WouldRotate),
        (true, true, false) => {
            let value = spec.rule.generate()?;
            client.update_secret(project_id, env, folder, name, &value).await?;
            report.push(location, Action::Rotated);
        }
        (false, _, true) => {
            folders.ensure(client, project_id, env, folder, true, report).await?;
            report.push(location, Action::WouldCreate);
        }
        (false, _, false) => {
            folders.ensure(client, project_id, env, folder, false, report).await?;
            let value = spec.rule.generate()?;
            match client.create_secret(project_id, env, folder, name, &value).await? {
                Outcome::Created => report.push(location, Action::Created),
                // Created meanwhile (by a concurrent run, or by our own create whose answer
                // was lost and retried): a credential exists, and it is kept.
                Outcome::AlreadyExists => report.push(location, Action::Exists),
            }
        }
    }
    Ok(())
}

/// Reads a credential's stored value, for one purpose only: writing the RDS Proxy's copy to
/// AWS Secrets Manager (`<product>/<env>/<resource>/proxy-admin`). Returns
/// [`Error::InvalidInput`] when the credential does not exist (run `prepare` first).
pub async fn read_for_proxy_copy(
    client: &Client,
    project_id: &str,
    credential: &CredentialSpec,
) -> Result<SecretString, Error> {
    client
        .read_value(project_id, &credential.environment, &credential.folder, &credential.name)
        .await?
        .ok_or_else(|| {
            Error::InvalidInput(format!(
                "`{}` does not exist; run `runway secrets prepare` first",
                credential.location()
            ))
        })
}

/// Writes each variable: creates its folder and secret when absent, updates only a value that
/// differs (the stored value is read to compare, inside this function only, and never shown),
/// and reports `created` / `updated` / `unchanged` (or `would-*` in a dry run, which calls only
/// read endpoints). Values are compared as stored: references are not expanded.
pub async fn publish(
    client: &Client,
    project_id: &str,
    variables: &[VariableWrite],
    dry_run: bool,
) -> Result<Report, RunError> {
    let all = || variables.iter().map(VariableWrite::location).collect();
    if let Err(e) =
        validate(variables.iter().map(|v| (v.environment.as_str(), v.folder.as_str(), v.name.as_str())))
    {
        return Err(stopped(Report::default(), all(), e));
    }
    let mut report = Report::default();
    let mut folders = Folders::new();
    for (i, var) in variables.iter().enumerate() {
        let step = publish_one(client, project_id, var, dry_run, &mut folders, &mut report);
        if let Err(cause) = step.await {
            let pending = variables[i..].iter().map(VariableWrite::location).collect();
            return Err(stopped(report, pending, cause));
        }
    }
    Ok(report)
}

async fn publish_one(
    client: &Client,
    project_id: &str,
    var: &VariableWrite,
    dry_run: bool,
    folders: &mut Folders,
    report: &mut Report,
) -> Result<(), Error> {
    let (env, folder, name) = (&var.environment, &var.folder, &var.name);
    let location = var.location();
    let current = client.read_value(project_id, env, folder, name).await?;
    let action = match current {
        Some(stored) if stored.expose_secret() == var.value.expose_secret() => Action::Unchanged,
        Some(_) if dry_run => Action::WouldUpdate,
        Some(_) => {
            client.update_secret(project_id, env, folder, name, &var.value).await?;
            Action::Updated
        }
        None => {
            folders.ensure(client, project_id, env, folder, dry_run, report).await?;
            if dry_run {
                Action::WouldCreate
            } else {
                match client.create_secret(project_id, env, folder, name, &var.value).await? {
                    Outcome::Created => Action::Created,
                    // Our create whose answer was lost (retried, and found there), or another
                    // run's: read back, and write only a value that differs.
                    Outcome::AlreadyExists => match client.read_value(project_id, env, folder, name).await? {
                        Some(stored) if stored.expose_secret() == var.value.expose_secret() => {
                            Action::Created
                        }
                        _ => {
                            client.update_secret(project_id, env, folder, name, &var.value).await?;
                            Action::Updated
                        }
                    },
                }
            }
        }
    };
    report.push(location, action);
    Ok(())
}
