//! Credentials copied to Secrets Manager as `{"username", "password"}`: the RDS Proxy's copy of
//! a database admin credential, and a workload's private registry credentials (what ECS reads
//! for `repositoryCredentials`). One write serves both.

use std::fmt;

use aws_sdk_secretsmanager::operation::describe_secret::DescribeSecretOutput;
use aws_sdk_secretsmanager::types::Tag;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};
use zeroize::Zeroize;

use super::ssm::same_key;
use super::{Action, AwsClients, Chain, RemoteError, Scope, standard_tags, tags_satisfied};

/// The admin credential RDS Proxy logs in with, to be stored as JSON
/// `{"username": ..., "password": ...}` in the Secrets Manager secret `secret_name`.
#[derive(Debug, Clone)]
pub struct ProxyAdminCopy {
    /// `<product>/<env>/<resource>/proxy-admin`, as the plan names it.
    pub secret_name: String,
    /// The database resource, e.g. `main-db`; also the `resource` tag.
    pub resource: String,
    /// The admin user name.
    pub username: String,
    /// The admin password; never shown.
    pub password: SecretString,
    /// The KMS key the secret is encrypted with (the plan's `secretsManagerKey`); `None`:
    /// Secrets Manager's own AWS managed key.
    pub kms_key: Option<String>,
    /// Extra tags besides `product`, `environment` and `resource`.
    pub tags: Vec<(String, String)>,
}

/// A workload's private registry credentials, to be stored as JSON
/// `{"username": ..., "password": ...}` in the Secrets Manager secret `secret_name`, the one its
/// task definition's `repositoryCredentials` names. Neither value is ever shown.
#[derive(Debug, Clone)]
pub struct RegistryCredentialsCopy {
    /// `<product>/<env>/<workload>/registry-credentials`, as the plan names it.
    pub secret_name: String,
    /// The workload, e.g. `pdf-render`; also the `resource` tag.
    pub workload: String,
    /// The registry user name; never shown.
    pub username: SecretString,
    /// The registry password or token; never shown.
    pub password: SecretString,
    /// The KMS key the secret is encrypted with, as for [`ProxyAdminCopy::kms_key`].
    pub kms_key: Option<String>,
    /// Extra tags besides `product`, `environment` and `resource`.
    pub tags: Vec<(String, String)>,
}

/// What a credential copy did (the proxy's or a registry's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProxyCopyReport {
    /// Whether this was a dry run (nothing written).
    pub dry_run: bool,
    /// The secret name.
    pub secret_name: String,
    /// Created, a new version (updated), retagged, or unchanged.
    pub action: Action,
}

impl fmt::Display for ProxyCopyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.dry_run {
            writeln!(f, "dry run: nothing written")?;
        }
        writeln!(f, "{:<9} {}", self.action.word(self.dry_run), self.secret_name)
    }
}

/// A credential copy failed; `done` says what was already written before the failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error(
    "{copy} credential copy to `{secret_name}` failed: {}; done: {}; running it again completes the rest",
    Chain(cause),
    if done.is_empty() { "nothing".to_owned() } else { done.join(", ") }
)]
pub struct ProxyCopyError {
    /// Which copy: `proxy` or `registry`.
    pub copy: &'static str,
    /// The secret name.
    pub secret_name: String,
    /// Steps completed before the failure, e.g. `new version`.
    pub done: Vec<&'static str>,
    /// The failed call (shown with its causes).
    #[source]
    pub cause: RemoteError,
}

#[derive(Serialize)]
struct CredentialOut<'a> {
    username: &'a str,
    password: &'a str,
}

#[derive(Deserialize)]
struct CredentialIn {
    username: String,
    password: String,
}

impl Drop for CredentialIn {
    fn drop(&mut self) {
        self.password.zeroize();
    }
}

/// One credential to write: the secret, its `resource` tag, the pair and the extra tags.
struct Credential<'a> {
    copy: &'static str,
    secret_name: &'a str,
    resource: &'a str,
    username: &'a str,
    password: &'a str,
    kms_key: Option<&'a str>,
    tags: &'a [(String, String)],
}

impl Credential<'_> {
    fn json(&self) -> SecretString {
        let out = CredentialOut { username: self.username, password: self.password };
        // Invariant: a struct of two strings always serialises.
        SecretString::from(serde_json::to_string(&out).expect("two strings serialise"))
    }

    fn matches(&self, stored: &str) -> bool {
        serde_json::from_str::<CredentialIn>(stored)
            .is_ok_and(|c| c.username == self.username && c.password == self.password)
    }
}

impl AwsClients {
    /// Makes the secret `copy.secret_name` hold `copy`'s credential: creates it when absent,
    /// writes a new version only when the stored value differs, adds missing tags. Never
    /// deletes anything and never shows the value.
    pub async fn copy_proxy_admin(
        &self,
        scope: &Scope,
        copy: &ProxyAdminCopy,
        dry_run: bool,
    ) -> Result<ProxyCopyReport, ProxyCopyError> {
        let credential = Credential {
            copy: "proxy",
            secret_name: &copy.secret_name,
            resource: &copy.resource,
            username: &copy.username,
            password: copy.password.expose_secret(),
            kms_key: copy.kms_key.as_deref(),
            tags: &copy.tags,
        };
        self.write_credential(scope, &credential, dry_run).await
    }

    /// Makes the secret `copy.secret_name` hold a workload's registry credentials, as
    /// [`AwsClients::copy_proxy_admin`] does for the proxy: created when absent, a new version
    /// only when the stored pair differs, missing tags added; nothing deleted or shown.
    pub async fn copy_registry_credentials(
        &self,
        scope: &Scope,
        copy: &RegistryCredentialsCopy,
        dry_run: bool,
    ) -> Result<ProxyCopyReport, ProxyCopyError> {
        let credential = Credential {
            copy: "registry",
            secret_name: &copy.secret_name,
            resource: &copy.workload,
            username: copy.username.expose_secret(),
            password: copy.password.expose_secret(),
            kms_key: copy.kms_key.as_deref(),
            tags: &copy.tags,
        };
        self.write_credential(scope, &credential, dry_run).await
    }

    /// Writes one credential: see [`AwsClients::copy_proxy_admin`].
    async fn write_credential(
        &self,
        scope: &Scope,
        copy: &Credential<'_>,
        dry_run: bool,
    ) -> Result<ProxyCopyReport, ProxyCopyError> {
        let name = copy.secret_name;
        let tags = standard_tags(scope, copy.resource, copy.tags);
        let mut done = Vec::new();
        let fail = |done: &Vec<&'static str>, cause| ProxyCopyError {
            copy: copy.copy,
            secret_name: name.to_owned(),
            done: done.clone(),
            cause,
        };
        let report = |action| ProxyCopyReport { dry_run, secret_name: name.to_owned(), action };
        let Some(described) = self.describe_secret(name).await.map_err(|e| fail(&done, e))? else {
            if dry_run {
                return Ok(report(Action::Created));
            }
            let json = copy.json();
            self.secrets
                .create_secret()
                .name(name)
                .set_kms_key_id(copy.kms_key.map(str::to_owned))
                .secret_string(json.expose_secret())
                .set_tags(Some(tags.iter().map(sm_tag).collect()))
                .send()
                .await
                .map_err(|e| fail(&done, RemoteError::from_sdk("CreateSecret", e)))?;
            return Ok(report(Action::Created));
        };

        let stored = self
            .secrets
            .get_secret_value()
            .secret_id(name)
            .send()
            .await
            .map_err(|e| fail(&done, RemoteError::from_sdk("GetSecretValue", e)))?;
        let same = stored.secret_string().is_some_and(|s| copy.matches(s));
        drop(stored);
        let present: Vec<(String, String)> = described
            .tags()
            .iter()
            .filter_map(|t| Some((t.key()?.to_owned(), t.value()?.to_owned())))
            .collect();
        let tags_ok = tags_satisfied(&tags, &present);
        // Encrypted with another key than the plan's (an older secret under Secrets Manager's
        // own key): re-encrypted with a new version under the plan's key.
        let key_ok = match (copy.kms_key, described.kms_key_id()) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(k), Some(stored)) => same_key(k, stored) || self.same_kms_key(k, stored).await,
        };
        let action = match (same && key_ok, tags_ok) {
            (true, true) => Action::Unchanged,
            (true, false) => Action::Retagged,
            (false, _) => Action::Updated,
        };
        if dry_run {
            return Ok(report(action));
        }
        if !key_ok {
            // The key changes for the versions written from now on: write one at once.
            self.secrets
                .update_secret()
                .secret_id(name)
                .set_kms_key_id(copy.kms_key.map(str::to_owned))
                .secret_string(copy.json().expose_secret())
                .send()
                .await
                .map_err(|e| fail(&done, RemoteError::from_sdk("UpdateSecret", e)))?;
            done.push("re-encrypted with the plan's key");
        }
        if !same && key_ok {
            let json = copy.json();
            self.secrets
                .put_secret_value()
                .secret_id(name)
                .secret_string(json.expose_secret())
                .send()
                .await
                .map_err(|e| fail(&done, RemoteError::from_sdk("PutSecretValue", e)))?;
            done.push("new version");
        }
        if !tags_ok {
            self.secrets
                .tag_resource()
                .secret_id(name)
                .set_tags(Some(tags.iter().map(sm_tag).collect()))
                .send()
                .await
                .map_err(|e| fail(&done, RemoteError::from_sdk("TagResource", e)))?;
        }
        Ok(report(action))
    }

    /// Whether two references (alias, ARN, id) name the same KMS key, as KMS resolves them; a
    /// failed look-up answers no (the secret is then written again under the plan's key).
    async fn same_kms_key(&self, a: &str, b: &str) -> bool {
        let id = |r: String| async move {
            self.kms.describe_key().key_id(r).send().await.ok()?.key_metadata().map(|m| m.key_id().to_owned())
        };
        match (id(a.to_owned()).await, id(b.to_owned()).await) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }

    /// DescribeSecret, `None` when there is no such secret.
    async fn describe_secret(&self, name: &str) -> Result<Option<DescribeSecretOutput>, RemoteError> {
        match self.secrets.describe_secret().secret_id(name).send().await {
            Ok(out) => Ok(Some(out)),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception()) => Ok(None),
            Err(e) => Err(RemoteError::from_sdk("DescribeSecret", e)),
        }
    }
}

fn sm_tag((key, value): &(String, String)) -> Tag {
    Tag::builder().key(key).value(value).build()
}
