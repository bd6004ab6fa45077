//! The environment's own KMS key (`runway secrets prepare`, before anything is encrypted with
//! it): created with its alias when the alias names no key, left alone otherwise. The key is
//! created with KMS's default key policy (the account may grant it with IAM policies), so the
//! deploy role that runs `secrets prepare` can use it at once; the program's `KeyPolicy` then
//! replaces that policy with one naming exactly the deploy role and the runtime roles, which
//! exist only after `pulumi up` (a key policy naming a principal that does not exist yet is
//! refused by KMS). `secrets prepare` never changes the policy of an existing key.
//!
//! Nothing extra under faults or concurrency: the key carries the environment's tags
//! (`product`, `environment`, `resource: environment`), which make it findable. Before creating
//! one, and after a `CreateKey` or `CreateAlias` whose answer never came (the SDK does not
//! retry those two: a retried `CreateKey` whose first answer was lost makes a second key), the
//! environment's keys are looked up instead of writing again. Once the alias names a key, every
//! other enabled key of the environment (a concurrent run's, or one a stopped run left) is
//! scheduled for deletion and reported.

use aws_sdk_kms::config::retry::RetryConfig;
use aws_sdk_kms::error::SdkError;
use aws_sdk_kms::types::{KeyManagerType, KeyState, Tag};
use serde::Serialize;

use super::{Action, AwsClients, Chain, RemoteError, Scope, standard_tags};

/// Days a key found extra waits before KMS deletes it (the least KMS allows): time to cancel
/// the deletion (`aws kms cancel-key-deletion`) if it was wanted after all.
pub const EXTRA_KEY_PENDING_DAYS: i32 = 7;

/// Writes that lose their answer are tried this many times, looking up in between.
const WRITE_ATTEMPTS: usize = 4;

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
    /// Other keys of the environment found and scheduled for deletion
    /// ([`EXTRA_KEY_PENDING_DAYS`]): a concurrent run's, or one a stopped run left.
    pub scheduled_for_deletion: Vec<String>,
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
    /// Steps completed before the failure (`created key <id>`: running again finds the key by
    /// its tags and gives it the alias).
    pub done: Vec<String>,
    /// The failed call, or why the key cannot be used.
    #[source]
    pub cause: RemoteError,
}

/// Whether a failed call's outcome is unknown: sent, perhaps carried out, no answer read.
fn unknown<E, R>(e: &SdkError<E, R>) -> bool {
    !matches!(e, SdkError::ServiceError(_) | SdkError::ConstructionFailure(_))
}

/// Refused by IAM: a key the caller may not see is not the environment's.
fn denied(e: &impl aws_sdk_kms::error::ProvideErrorMetadata) -> bool {
    e.code() == Some("AccessDeniedException")
}

/// One attempt, no retry by the SDK: the caller looks up after an unknown outcome.
fn once() -> aws_sdk_kms::config::Builder {
    aws_sdk_kms::config::Builder::default().retry_config(RetryConfig::disabled())
}

impl AwsClients {
    /// Makes sure the key `key.alias` names exists and is usable: when the alias names no
    /// key, takes the environment's key found by its tags or creates one (tagged like
    /// everything runway writes), then the alias, then schedules any other key of the
    /// environment for deletion; when it names one, checks it is enabled and changes nothing.
    pub async fn ensure_environment_key(
        &self,
        scope: &Scope,
        key: &EnvironmentKey,
        dry_run: bool,
    ) -> Result<KeyReport, KeyError> {
        let alias = key.alias.as_str();
        let fail = |done: Vec<String>, cause| KeyError { alias: alias.to_owned(), done, cause };
        let report = |action, key_id, scheduled| KeyReport {
            dry_run,
            alias: alias.to_owned(),
            action,
            key_id,
            scheduled_for_deletion: scheduled,
        };
        if let Some(key_id) = self.alias_target(alias).await.map_err(|e| fail(Vec::new(), e))? {
            return Ok(report(Action::Unchanged, Some(key_id), Vec::new()));
        }
        if dry_run {
            return Ok(report(Action::Created, None, Vec::new()));
        }
        let mut done = Vec::new();
        let ours =
            match self.environment_keys(scope).await.map_err(|e| fail(Vec::new(), e))?.into_iter().next() {
                Some(found) => found,
                None => {
                    let id = self.create_key_once(scope, key).await.map_err(|e| fail(Vec::new(), e))?;
                    done.push(format!("created key {id}"));
                    id
                }
            };
        let target = self.alias_once(alias, &ours).await.map_err(|e| fail(done.clone(), e))?;
        let mut scheduled = Vec::new();
        for extra in self.environment_keys(scope).await.map_err(|e| fail(done.clone(), e))? {
            if extra != target {
                self.schedule_deletion(&extra).await.map_err(|e| fail(done.clone(), e))?;
                scheduled.push(extra);
            }
        }
        let action = if target == ours { Action::Created } else { Action::Unchanged };
        Ok(report(action, Some(target), scheduled))
    }

    /// The id of the key `alias` names, when it names one; an error when that key is not
    /// enabled.
    async fn alias_target(&self, alias: &str) -> Result<Option<String>, RemoteError> {
        match self.kms.describe_key().key_id(alias).send().await {
            Ok(out) => {
                let meta = out.key_metadata();
                let state = meta.and_then(|m| m.key_state()).cloned();
                if state.as_ref().is_some_and(|s| *s != KeyState::Enabled) {
                    return Err(unusable(state.as_ref().map_or("", KeyState::as_str)));
                }
                Ok(meta.map(|m| m.key_id().to_owned()))
            }
            Err(e) if e.as_service_error().is_some_and(|s| s.is_not_found_exception()) => Ok(None),
            Err(e) => Err(RemoteError::from_sdk("DescribeKey", e)),
        }
    }

    /// The enabled customer keys tagged as this environment's key, oldest first (the one to
    /// keep when there are several).
    async fn environment_keys(&self, scope: &Scope) -> Result<Vec<String>, RemoteError> {
        let wanted = standard_tags(scope, "environment", &[]);
        let mut found = Vec::new();
        let mut marker = None;
        loop {
            let page = (self.kms.list_keys().set_marker(marker.take()).send().await)
                .map_err(|e| RemoteError::from_sdk("ListKeys", e))?;
            for entry in page.keys() {
                let Some(id) = entry.key_id() else { continue };
                let described = self.kms.describe_key().key_id(id).send().await;
                let meta = match described {
                    Ok(out) => out.key_metadata().cloned(),
                    // Deleted between the list and the look; or not ours (the deploy role may
                    // describe only the keys tagged for its environment).
                    Err(e)
                        if e.as_service_error().is_some_and(|s| s.is_not_found_exception() || denied(s)) =>
                    {
                        None
                    }
                    Err(e) => return Err(RemoteError::from_sdk("DescribeKey", e)),
                };
                let Some(meta) = meta else { continue };
                if meta.key_manager() != Some(&KeyManagerType::Customer)
                    || meta.key_state() != Some(&KeyState::Enabled)
                {
                    continue;
                }
                let tags = match self.kms.list_resource_tags().key_id(id).send().await {
                    Ok(tags) => tags,
                    Err(e) if e.as_service_error().is_some_and(denied) => continue,
                    Err(e) => return Err(RemoteError::from_sdk("ListResourceTags", e)),
                };
                let present: Vec<(String, String)> =
                    tags.tags().iter().map(|t| (t.tag_key().to_owned(), t.tag_value().to_owned())).collect();
                if super::tags_satisfied(&wanted, &present) {
                    let created = meta.creation_date().map_or(0.0, |d| d.as_secs_f64());
                    found.push((created, id.to_owned()));
                }
            }
            match page.next_marker() {
                Some(m) if page.truncated() => marker = Some(m.to_owned()),
                _ => break,
            }
        }
        found.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        Ok(found.into_iter().map(|(_, id)| id).collect())
    }

    /// Creates the environment's key; after an unknown outcome, the key found by its tags.
    async fn create_key_once(&self, scope: &Scope, key: &EnvironmentKey) -> Result<String, RemoteError> {
        let tags: Vec<Tag> = standard_tags(scope, "environment", &key.tags)
            .iter()
            .filter_map(|(k, v)| Tag::builder().tag_key(k).tag_value(v).build().ok())
            .collect();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let created = self
                .kms
                .create_key()
                .description(format!(
                    "runway: {} {}: SSM parameters and secrets (its policy is the program's)",
                    scope.product, scope.environment
                ))
                .set_tags(Some(tags.clone()))
                .customize()
                .config_override(once())
                .send()
                .await;
            match created {
                Ok(out) => return Ok(out.key_metadata().map(|m| m.key_id().to_owned()).unwrap_or_default()),
                Err(e) if unknown(&e) && attempt < WRITE_ATTEMPTS => {
                    if let Some(found) = self.environment_keys(scope).await?.into_iter().next() {
                        return Ok(found);
                    }
                }
                Err(e) => return Err(RemoteError::from_sdk("CreateKey", e)),
            }
        }
    }

    /// Gives `key_id` the alias; returns the key the alias names afterwards: `key_id`, or
    /// another run's key when that run's alias came first. `AlreadyExistsException` for an
    /// alias already naming `key_id` (our own earlier attempt) is success.
    async fn alias_once(&self, alias: &str, key_id: &str) -> Result<String, RemoteError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let made = (self.kms.create_alias().alias_name(alias).target_key_id(key_id))
                .customize()
                .config_override(once())
                .send()
                .await;
            match made {
                Ok(_) => return Ok(key_id.to_owned()),
                Err(e) if e.as_service_error().is_some_and(|s| s.is_already_exists_exception()) => {
                    if let Some(target) = self.alias_target(alias).await? {
                        return Ok(target);
                    }
                }
                Err(e) if unknown(&e) && attempt < WRITE_ATTEMPTS => {
                    if let Some(target) = self.alias_target(alias).await? {
                        return Ok(target);
                    }
                }
                Err(e) => return Err(RemoteError::from_sdk("CreateAlias", e)),
            }
            if attempt >= WRITE_ATTEMPTS {
                return Err(RemoteError {
                    operation: "CreateAlias",
                    code: None,
                    message: Some("the alias exists and names no key, or kept failing".to_owned()),
                    remedy: None,
                    cause: None,
                });
            }
        }
    }

    /// Schedules a key found extra for deletion; one already pending deletion is done.
    async fn schedule_deletion(&self, key_id: &str) -> Result<(), RemoteError> {
        let scheduled = (self.kms.schedule_key_deletion().key_id(key_id))
            .pending_window_in_days(EXTRA_KEY_PENDING_DAYS)
            .send()
            .await;
        match scheduled {
            Ok(_) => Ok(()),
            Err(e)
                if e.as_service_error()
                    .is_some_and(|s| s.is_kms_invalid_state_exception() || s.is_not_found_exception()) =>
            {
                Ok(())
            }
            Err(e) => Err(RemoteError::from_sdk("ScheduleKeyDeletion", e)),
        }
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
