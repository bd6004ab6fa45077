//! `runway ssm publish` and `runway ssm verify`.

use std::fmt;

use aws_sdk_ssm::types::{
    ParameterMetadata, ParameterStringFilter, ParameterType, ResourceTypeForTagging, Tag,
};
use secrecy::{ExposeSecret, SecretString};
use serde::Serialize;

use super::{
    Action, AwsClients, Cause, Chain, RemoteError, Scope, ValueSource, standard_tags, tags_satisfied,
};

/// One parameter to publish, its value to be taken from a [`ValueSource`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParameterRequest {
    /// The parameter name, e.g. `/acme-shop/dev/main-db/MAIN_DB_URL`.
    pub name: String,
    /// The resource (or workload) it belongs to, e.g. `main-db`; also the `resource` tag.
    pub resource: String,
    /// The variable asked of the source, e.g. `MAIN_DB_URL`.
    pub variable: String,
    /// Extra tags besides `product`, `environment` and `resource`.
    pub tags: Vec<(String, String)>,
}

/// One parameter to publish with its value.
#[derive(Debug, Clone)]
pub struct ParameterWrite {
    /// The parameter name, e.g. `/acme-shop/dev/main-db/MAIN_DB_URL`.
    pub name: String,
    /// The value; never shown.
    pub value: SecretString,
    /// The resource (or workload) it belongs to; also the `resource` tag.
    pub resource: String,
    /// Extra tags besides `product`, `environment` and `resource`.
    pub tags: Vec<(String, String)>,
}

/// A parameter `ssm verify` expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParameterExpectation {
    /// The parameter name.
    pub name: String,
    /// The KMS key it must be encrypted with (id, ARN or alias, as the plan states it).
    pub kms_key: String,
}

/// Why an existing parameter was (or would be) overwritten.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
#[non_exhaustive]
pub enum UpdateReason {
    /// The stored value differs from the source's.
    Value,
    /// The stored type is not `SecureString`.
    Type {
        /// The stored type.
        found: String,
    },
    /// The stored KMS key is not the plan's.
    Key {
        /// The stored key, if any.
        found: Option<String>,
    },
}

impl fmt::Display for UpdateReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UpdateReason::Value => f.write_str("value differs"),
            UpdateReason::Type { found } => write!(f, "type was {found}"),
            UpdateReason::Key { found: Some(k) } => write!(f, "key was {k}"),
            UpdateReason::Key { found: None } => f.write_str("had no key"),
        }
    }
}

/// What happened to one parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParameterOutcome {
    /// The parameter name.
    pub name: String,
    /// What was (or would be) done.
    pub action: Action,
    /// For an update, why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<UpdateReason>,
}

/// The result of a publish: one outcome per parameter, in input order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PublishReport {
    /// Whether this was a dry run (nothing written).
    pub dry_run: bool,
    /// One entry per parameter.
    pub parameters: Vec<ParameterOutcome>,
}

impl PublishReport {
    /// How many parameters got `action`.
    pub fn count(&self, action: Action) -> usize {
        self.parameters.iter().filter(|p| p.action == action).count()
    }
}

fn outcome_line(f: &mut fmt::Formatter<'_>, o: &ParameterOutcome, dry_run: bool) -> fmt::Result {
    write!(f, "{:<9} {}", o.action.word(dry_run), o.name)?;
    if !o.reasons.is_empty() {
        let reasons: Vec<String> = o.reasons.iter().map(ToString::to_string).collect();
        write!(f, " ({})", reasons.join(", "))?;
    }
    writeln!(f)
}

impl fmt::Display for PublishReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.dry_run {
            writeln!(f, "dry run: nothing written")?;
        }
        for o in &self.parameters {
            outcome_line(f, o, self.dry_run)?;
        }
        Ok(())
    }
}

/// Why a publish stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[non_exhaustive]
pub enum PublishFailure {
    /// An AWS call failed (after retries).
    #[error(transparent)]
    Remote(RemoteError),
    /// The value source has no value for the parameter.
    #[error("the value source has no `{variable}` for `{resource}`")]
    MissingInSource {
        /// The resource asked for.
        resource: String,
        /// The variable asked for.
        variable: String,
    },
    /// The value source failed.
    #[error("the value source failed")]
    Source {
        /// The source's error (whose message names no value).
        #[source]
        source: Cause,
    },
}

/// A publish that stopped part way: what was done, what failed, what was not attempted.
/// Running the same publish again completes the rest without redoing what is done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
pub struct PublishError {
    /// Whether this was a dry run.
    pub dry_run: bool,
    /// Parameters handled before the failure.
    pub done: Vec<ParameterOutcome>,
    /// The parameter being handled when it failed.
    pub failed: String,
    /// Why (shown with its causes).
    #[source]
    pub failure: PublishFailure,
    /// Parameters not attempted.
    pub not_done: Vec<String>,
}

impl fmt::Display for PublishError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "ssm publish stopped at `{}`: {}", self.failed, Chain(&self.failure))?;
        writeln!(f, "done ({}):", self.done.len())?;
        for o in &self.done {
            write!(f, "  ")?;
            outcome_line(f, o, self.dry_run)?;
        }
        writeln!(f, "not done ({}):", self.not_done.len() + 1)?;
        writeln!(f, "  failed    {}", self.failed)?;
        for n in &self.not_done {
            writeln!(f, "  pending   {n}")?;
        }
        write!(f, "running the same publish again completes the rest")
    }
}

/// What is wrong with one expected parameter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "problem")]
#[non_exhaustive]
pub enum VerifyProblemKind {
    /// No such parameter.
    Missing,
    /// Not a `SecureString`.
    WrongType {
        /// The type found.
        found: String,
    },
    /// Encrypted with another key.
    WrongKey {
        /// The key found, if any.
        found: Option<String>,
        /// The key expected.
        expected: String,
    },
}

/// One problem found by verify.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerifyProblem {
    /// The parameter name.
    pub name: String,
    /// What is wrong.
    #[serde(flatten)]
    pub kind: VerifyProblemKind,
}

/// The result of verify.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    /// How many parameters were checked.
    pub checked: usize,
    /// Everything wrong, in input order; empty when all is right.
    pub problems: Vec<VerifyProblem>,
}

impl VerifyReport {
    /// True when every expected parameter is right.
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }
}

impl fmt::Display for VerifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.problems {
            match &p.kind {
                VerifyProblemKind::Missing => writeln!(f, "missing    {}", p.name)?,
                VerifyProblemKind::WrongType { found } => {
                    writeln!(f, "wrong type {}: {found}, expected SecureString", p.name)?;
                }
                VerifyProblemKind::WrongKey { found, expected } => writeln!(
                    f,
                    "wrong key  {}: {}, expected {expected}",
                    p.name,
                    found.as_deref().unwrap_or("no key")
                )?,
            }
        }
        write!(f, "{} parameter(s) checked, {} problem(s)", self.checked, self.problems.len())
    }
}

/// Verify could not read parameter metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("ssm verify could not read parameter metadata: {}", Chain(.0))]
pub struct VerifyError(#[source] pub RemoteError);

/// Whether a stored key id matches the plan's: equal, or one is an ARN ending in the other
/// (`arn:aws:kms:...:key/<id>` and `<id>`, `arn:aws:kms:...:alias/x` and `alias/x`).
pub(super) fn same_key(expected: &str, found: &str) -> bool {
    let arn_of = |arn: &str, short: &str| {
        arn.starts_with("arn:")
            && (arn.ends_with(&format!(":{short}")) || arn.ends_with(&format!(":key/{short}")))
    };
    expected == found || arn_of(found, expected) || arn_of(expected, found)
}

/// DescribeParameters per name filter values: AWS accepts up to 50 values in one filter.
pub(super) const NAMES_PER_DESCRIBE: usize = 50;

impl AwsClients {
    /// Publishes parameters whose values come from `source`, one at a time in input order:
    /// each is written as a `SecureString` under `kms_key` only when absent or different.
    /// Nothing is deleted. Stops at the first failure with a [`PublishError`] saying what was
    /// done and what was not; re-running completes the rest.
    pub async fn ssm_publish<S: ValueSource + Sync>(
        &self,
        scope: &Scope,
        kms_key: &str,
        requests: &[ParameterRequest],
        source: &S,
        dry_run: bool,
    ) -> Result<PublishReport, PublishError> {
        let mut done = Vec::with_capacity(requests.len());
        for (i, req) in requests.iter().enumerate() {
            let fail = |done: Vec<ParameterOutcome>, failure| PublishError {
                dry_run,
                done,
                failed: req.name.clone(),
                failure,
                not_done: requests[i + 1..].iter().map(|r| r.name.clone()).collect(),
            };
            let value = match source.value(&req.resource, &req.variable).await {
                Ok(Some(v)) => v,
                Ok(None) => {
                    return Err(fail(
                        done,
                        PublishFailure::MissingInSource {
                            resource: req.resource.clone(),
                            variable: req.variable.clone(),
                        },
                    ));
                }
                Err(e) => {
                    return Err(fail(done, PublishFailure::Source { source: Cause::boxed(e) }));
                }
            };
            let write = ParameterWrite {
                name: req.name.clone(),
                value,
                resource: req.resource.clone(),
                tags: req.tags.clone(),
            };
            match self.publish_one(scope, kms_key, &write, dry_run).await {
                Ok(outcome) => done.push(outcome),
                Err(e) => return Err(fail(done, PublishFailure::Remote(e))),
            }
        }
        Ok(PublishReport { dry_run, parameters: done })
    }

    /// Like [`AwsClients::ssm_publish`], with the values already at hand.
    pub async fn ssm_publish_values(
        &self,
        scope: &Scope,
        kms_key: &str,
        writes: &[ParameterWrite],
        dry_run: bool,
    ) -> Result<PublishReport, PublishError> {
        let mut done = Vec::with_capacity(writes.len());
        for (i, write) in writes.iter().enumerate() {
            match self.publish_one(scope, kms_key, write, dry_run).await {
                Ok(outcome) => done.push(outcome),
                Err(e) => {
                    return Err(PublishError {
                        dry_run,
                        done,
                        failed: write.name.clone(),
                        failure: PublishFailure::Remote(e),
                        not_done: writes[i + 1..].iter().map(|w| w.name.clone()).collect(),
                    });
                }
            }
        }
        Ok(PublishReport { dry_run, parameters: done })
    }

    /// Checks, from metadata only (no value is decrypted), that every expected parameter
    /// exists, is a `SecureString` and uses the expected key.
    pub async fn ssm_verify(&self, expected: &[ParameterExpectation]) -> Result<VerifyReport, VerifyError> {
        let mut found: Vec<ParameterMetadata> = Vec::new();
        for chunk in expected.chunks(NAMES_PER_DESCRIBE) {
            let names: Vec<&str> = chunk.iter().map(|e| e.name.as_str()).collect();
            found.extend(self.describe(&names).await.map_err(VerifyError)?);
        }
        let problems = expected
            .iter()
            .filter_map(|e| {
                let kind = match found.iter().find(|m| m.name() == Some(e.name.as_str())) {
                    None => VerifyProblemKind::Missing,
                    Some(m) if m.r#type() != Some(&ParameterType::SecureString) => {
                        VerifyProblemKind::WrongType {
                            found: m.r#type().map_or("unknown", |t| t.as_str()).to_owned(),
                        }
                    }
                    Some(m) if !m.key_id().is_some_and(|k| same_key(&e.kms_key, k)) => {
                        VerifyProblemKind::WrongKey {
                            found: m.key_id().map(str::to_owned),
                            expected: e.kms_key.clone(),
                        }
                    }
                    Some(_) => return None,
                };
                Some(VerifyProblem { name: e.name.clone(), kind })
            })
            .collect();
        Ok(VerifyReport { checked: expected.len(), problems })
    }

    /// Metadata of the named parameters that exist (DescribeParameters, every page).
    pub(super) async fn describe(&self, names: &[&str]) -> Result<Vec<ParameterMetadata>, RemoteError> {
        let filter = ParameterStringFilter::builder()
            .key("Name")
            .option("Equals")
            .set_values(Some(names.iter().map(|n| (*n).to_owned()).collect()))
            .build()
            // Invariant: `key` is set just above, the only required field.
            .expect("ParameterStringFilter has its key");
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let page = self
                .ssm
                .describe_parameters()
                .parameter_filters(filter.clone())
                .max_results(50)
                .set_next_token(token.take())
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("DescribeParameters", e))?;
            out.extend(page.parameters().iter().cloned());
            match page.next_token() {
                Some(t) if !t.is_empty() => token = Some(t.to_owned()),
                _ => break,
            }
        }
        Ok(out)
    }

    async fn publish_one(
        &self,
        scope: &Scope,
        kms_key: &str,
        write: &ParameterWrite,
        dry_run: bool,
    ) -> Result<ParameterOutcome, RemoteError> {
        let tags = standard_tags(scope, &write.resource, &write.tags);
        let outcome = |action, reasons| ParameterOutcome { name: write.name.clone(), action, reasons };
        let mut meta = self.describe(&[&write.name]).await?.into_iter().next();
        if meta.is_none() {
            if dry_run {
                return Ok(outcome(Action::Created, Vec::new()));
            }
            let created = self
                .ssm
                .put_parameter()
                .name(&write.name)
                .value(write.value.expose_secret())
                .r#type(ParameterType::SecureString)
                .key_id(kms_key)
                .set_tags(Some(tags.iter().map(ssm_tag).collect()))
                .send()
                .await;
            match created {
                Ok(_) => return Ok(outcome(Action::Created, Vec::new())),
                // Created meanwhile (or an earlier attempt of this call got through): compare
                // it like any existing parameter.
                Err(e) if e.as_service_error().is_some_and(|s| s.is_parameter_already_exists()) => {
                    meta = self.describe(&[&write.name]).await?.into_iter().next();
                }
                Err(e) => return Err(RemoteError::from_sdk("PutParameter", e)),
            }
        }
        let reasons = self.differences(kms_key, write, meta.as_ref()).await?;
        let tags_ok = self.tags_ok(&write.name, &tags).await?;
        let action = match (reasons.is_empty(), tags_ok) {
            (true, true) => Action::Unchanged,
            (true, false) => Action::Retagged,
            (false, _) => Action::Updated,
        };
        if dry_run {
            return Ok(outcome(action, reasons));
        }
        if !reasons.is_empty() {
            self.ssm
                .put_parameter()
                .name(&write.name)
                .value(write.value.expose_secret())
                .r#type(ParameterType::SecureString)
                .key_id(kms_key)
                .overwrite(true)
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("PutParameter", e))?;
        }
        if !tags_ok {
            self.ssm
                .add_tags_to_resource()
                .resource_type(ResourceTypeForTagging::Parameter)
                .resource_id(&write.name)
                .set_tags(Some(tags.iter().map(ssm_tag).collect()))
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("AddTagsToResource", e))?;
        }
        Ok(outcome(action, reasons))
    }

    /// How an existing parameter differs from `write` (value, type, key).
    async fn differences(
        &self,
        kms_key: &str,
        write: &ParameterWrite,
        meta: Option<&ParameterMetadata>,
    ) -> Result<Vec<UpdateReason>, RemoteError> {
        let mut reasons = Vec::new();
        let got = self
            .ssm
            .get_parameter()
            .name(&write.name)
            .with_decryption(true)
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("GetParameter", e))?;
        let current: Option<SecretString> =
            got.parameter().and_then(|p| p.value()).map(|v| SecretString::from(v.to_owned()));
        drop(got);
        if current.as_ref().map(ExposeSecret::expose_secret) != Some(write.value.expose_secret()) {
            reasons.push(UpdateReason::Value);
        }
        if let Some(m) = meta {
            if m.r#type() != Some(&ParameterType::SecureString) {
                reasons.push(UpdateReason::Type {
                    found: m.r#type().map_or("unknown", |t| t.as_str()).to_owned(),
                });
            } else if !m.key_id().is_some_and(|k| same_key(kms_key, k)) {
                reasons.push(UpdateReason::Key { found: m.key_id().map(str::to_owned) });
            }
        }
        Ok(reasons)
    }

    async fn tags_ok(&self, name: &str, wanted: &[(String, String)]) -> Result<bool, RemoteError> {
        let listed = self
            .ssm
            .list_tags_for_resource()
            .resource_type(ResourceTypeForTagging::Parameter)
            .resource_id(name)
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("ListTagsForResource", e))?;
        let present: Vec<(String, String)> =
            listed.tag_list().iter().map(|t| (t.key().to_owned(), t.value().to_owned())).collect();
        Ok(tags_satisfied(wanted, &present))
    }
}

pub(super) fn ssm_tag((key, value): &(String, String)) -> Tag {
    Tag::builder()
        .key(key)
        .value(value)
        .build()
        // Invariant: both required fields are set just above.
        .expect("Tag has key and value")
}

#[cfg(test)]
mod tests {
    use super::same_key;

    #[test]
    fn keys_match_by_id_arn_or_alias() {
        let arn = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab";
        let alias_arn = "arn:aws:kms:eu-west-1:123456789012:alias/acme";
        for (expected, found, same) in [
            ("alias/acme", "alias/acme", true),
            ("1234abcd-12ab", arn, true),
            (arn, "1234abcd-12ab", true),
            ("alias/acme", alias_arn, true),
            ("alias/acme", "alias/other", false),
            ("alias/acme", "arn:aws:kms:eu-west-1:123456789012:alias/acme-2", false),
            ("12ab", arn, false),
        ] {
            assert_eq!(same_key(expected, found), same, "{expected} vs {found}");
        }
    }
}
