//! The environment's own KMS key (`runway secrets prepare`, before anything is encrypted with
//! it): created with its alias when the alias names no key, left alone otherwise. The key is
//! created with KMS's default key policy (the account may grant it with IAM policies), so the
//! deploy role that runs `secrets prepare` can use it at once; the program's `KeyPolicy` then
//! replaces that policy with one naming exactly the deploy role and the runtime roles, which
//! exist only after `pulumi up` (a key policy naming a principal that does not exist yet is
//! refused by KMS). `secrets prepare` never changes the policy of an existing key.

use aws_sdk_kms::types::{KeyState, Tag};
use serde::Serialize;

use super::{Action, AwsClients, Chain, RemoteError, Scope, standard_tags};

/// The environment's key as the plan names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvironmentKey {
    /// Its alias, `alias/runway/<product>/<env>`.
    pub alias: String,
    /// Extra tags besides `product`, `environment` and `resource` (`environment`).
    pub tags: Vec<(String, String)>,
}

/// What making sure of the key did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyReport {
    /// Whether this was a dry run (nothing written).
    pub dry_run: bool,
    /// The alias.
    pub alias: String,
    /// Created (with its alias), or unchanged.
    pub action: Action,
    /// The key's id, once it exists.
    pub key_id: Option<String>,
}

/// Making sure of the key failed; `done` says what was already written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error(
    "the environment's KMS key `{alias}`: {}; done: {}",
    Chain(cause),
    if done.is_empty() { "nothing".to_owned() } else { done.join(", ") }
)]
pub struct KeyError {
    /// The alias.
    pub alias: String,
    /// Steps completed before the failure (`created key <id>`: give it the alias by hand,
    /// `aws kms create-alias`, or schedule its deletion, before running again).
    pub done: Vec<String>,
    /// The failed call, or why the key cannot be used.
    #[source]
    pub cause: RemoteError,
}

impl AwsClients {
    /// Makes sure the key `key.alias` names exists and is usable: when the alias names no
    /// key, creates a symmetric encryption key (tagged like everything runway writes) and the
    /// alias; when it names one, checks it is enabled and changes nothing.
    pub async fn ensure_environment_key(
        &self,
        scope: &Scope,
        key: &EnvironmentKey,
        dry_run: bool,
    ) -> Result<KeyReport, KeyError> {
        let alias = key.alias.as_str();
        let fail = |done: Vec<String>, cause| KeyError { alias: alias.to_owned(), done, cause };
        let report = |action, key_id| KeyReport { dry_run, alias: alias.to_owned(), action, key_id };
        match self.kms.describe_key().key_id(alias).send().await {
            Ok(out) => {
                let meta = out.key_metadata();
                let state = meta.and_then(|m| m.key_state()).cloned();
                if state.as_ref().is_some_and(|s| *s != KeyState::Enabled) {
                    let state = state.map(|s| s.as_str().to_owned()).unwrap_or_default();
                    return Err(fail(Vec::new(), unusable(&state)));
                }
                return Ok(report(Action::Unchanged, meta.map(|m| m.key_id().to_owned())));
            }
            Err(e) if e.as_service_error().is_some_and(|s| s.is_not_found_exception()) => {}
            Err(e) => return Err(fail(Vec::new(), RemoteError::from_sdk("DescribeKey", e))),
        }
        if dry_run {
            return Ok(report(Action::Created, None));
        }
        let tags: Vec<Tag> = standard_tags(scope, "environment", &key.tags)
            .iter()
            .filter_map(|(k, v)| Tag::builder().tag_key(k).tag_value(v).build().ok())
            .collect();
        let created = self
            .kms
            .create_key()
            .description(format!(
                "runway: {} {}: SSM parameters and secrets (its policy is the program's)",
                scope.product, scope.environment
            ))
            .set_tags(Some(tags))
            .send()
            .await
            .map_err(|e| fail(Vec::new(), RemoteError::from_sdk("CreateKey", e)))?;
        let key_id = created.key_metadata().map(|m| m.key_id().to_owned()).unwrap_or_default();
        self.kms.create_alias().alias_name(alias).target_key_id(&key_id).send().await.map_err(|e| {
            fail(vec![format!("created key {key_id}")], RemoteError::from_sdk("CreateAlias", e))
        })?;
        Ok(report(Action::Created, Some(key_id)))
    }
}

/// A key the alias names that is not enabled (disabled, pending deletion or import).
fn unusable(state: &str) -> RemoteError {
    RemoteError {
        operation: "DescribeKey",
        code: None,
        message: Some(format!(
            "the key is {state}, not Enabled: enable it (`aws kms enable-key`, or `cancel-key-deletion` first) \
             before anything is encrypted with it"
        )),
        remedy: None,
        cause: None,
    }
}
