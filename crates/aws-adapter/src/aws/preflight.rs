//! `runway preflight`'s reads: only `Describe*`, `Get*` and `List*` calls, nothing written.
//! Each returns the facts as found; the comparison with the plan is the caller's.

use aws_sdk_kms::types::KeyState;
use secrecy::SecretString;
use serde::Deserialize;
use zeroize::Zeroizing;

use super::{AwsClients, RemoteError};

/// Pull credentials of a private registry, as `secrets prepare` stores them
/// (`{"username","password"}`).
pub struct PullCredentials {
    /// The username.
    pub username: String,
    /// The password or token; never shown.
    pub password: SecretString,
}

impl std::fmt::Debug for PullCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PullCredentials({}, [REDACTED])", self.username)
    }
}

/// Why pull credentials could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CredentialsError {
    /// The call failed (no such secret, access denied, unreachable).
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// The secret is not `{"username","password"}` (its value is not shown).
    #[error("the secret `{0}` is not {{\"username\",\"password\"}}")]
    Shape(String),
}

/// The environment's KMS key as found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyFacts {
    /// Its ARN (`arn:aws:kms:<region>:<account>:key/<id>`).
    pub arn: String,
    /// Its state (`Enabled`, `Disabled`, `PendingDeletion`, ...).
    pub state: String,
    /// Its `default` key policy (JSON), when it could be read.
    pub policy: Option<String>,
}

impl KeyFacts {
    /// Is it enabled?
    pub fn enabled(&self) -> bool {
        self.state == KeyState::Enabled.as_str()
    }

    /// The account of its ARN.
    pub fn account(&self) -> Option<&str> {
        self.arn.split(':').nth(4).filter(|a| !a.is_empty())
    }
}

#[derive(Deserialize)]
struct Pair {
    username: String,
    // Moved into a SecretString (no copy) as soon as it is read.
    password: String,
}

impl AwsClients {
    /// The pull credentials in the Secrets Manager secret `secret` (a name or an ARN).
    pub async fn pull_credentials(&self, secret: &str) -> Result<PullCredentials, CredentialsError> {
        let out = self
            .secrets
            .get_secret_value()
            .secret_id(secret)
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("GetSecretValue", e))?;
        let text = Zeroizing::new(out.secret_string().unwrap_or_default().to_owned());
        drop(out);
        let pair: Pair =
            serde_json::from_str(&text).map_err(|_| CredentialsError::Shape(secret.to_owned()))?;
        Ok(PullCredentials { username: pair.username, password: SecretString::from(pair.password) })
    }

    /// A private ECR registry's authorization token (`GetAuthorizationToken`), for `registry`
    /// (`<account>.dkr.ecr.<region>.amazonaws.com`) in its own region: the Base64 of
    /// `AWS:<password>`, as HTTP Basic sends it. Valid for 12 hours; never shown.
    pub async fn ecr_token(&self, registry: &str) -> Result<Option<SecretString>, RemoteError> {
        let parts: Vec<&str> = registry.split('.').collect();
        let (account, region) = match parts.as_slice() {
            [account, "dkr", "ecr", region, ..] => (*account, *region),
            _ => return Ok(None),
        };
        let config =
            self.ecr.config().to_builder().region(aws_config::Region::new(region.to_owned())).build();
        #[allow(deprecated)] // reason: `registryIds` is deprecated but still selects the registry
        let out = aws_sdk_ecr::Client::from_conf(config)
            .get_authorization_token()
            .registry_ids(account)
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("GetAuthorizationToken", e))?;
        Ok(out
            .authorization_data()
            .iter()
            .find_map(|d| d.authorization_token())
            .map(|t| SecretString::from(t.to_owned())))
    }

    /// The key `alias` names, with its policy; `None` when the alias names no key.
    pub async fn key_facts(&self, alias: &str) -> Result<Option<KeyFacts>, RemoteError> {
        let described = match self.kms.describe_key().key_id(alias).send().await {
            Ok(out) => out,
            Err(e) if e.as_service_error().is_some_and(|s| s.is_not_found_exception()) => return Ok(None),
            Err(e) => return Err(RemoteError::from_sdk("DescribeKey", e)),
        };
        let Some(meta) = described.key_metadata() else { return Ok(None) };
        let policy = self
            .kms
            .get_key_policy()
            .key_id(meta.key_id())
            .policy_name("default")
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("GetKeyPolicy", e))?
            .policy()
            .map(str::to_owned);
        Ok(Some(KeyFacts {
            arn: meta.arn().unwrap_or_default().to_owned(),
            state: meta.key_state().map(|s| s.as_str().to_owned()).unwrap_or_default(),
            policy,
        }))
    }

    /// The status (`Active`, `Inactive`) of each user-defined cost allocation tag of `keys`
    /// Cost Explorer knows; a key it has never seen is absent.
    pub async fn cost_allocation_tags(&self, keys: &[&str]) -> Result<Vec<(String, String)>, RemoteError> {
        let mut found = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let out = self
                .ce
                .list_cost_allocation_tags()
                .set_tag_keys(Some(keys.iter().map(|k| (*k).to_owned()).collect()))
                .r#type(aws_sdk_costexplorer::types::CostAllocationTagType::UserDefined)
                .set_next_token(token.take())
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("ListCostAllocationTags", e))?;
            for tag in out.cost_allocation_tags() {
                found.push((tag.tag_key().to_owned(), tag.status().as_str().to_owned()));
            }
            match out.next_token() {
                Some(next) if !next.is_empty() => token = Some(next.to_owned()),
                Some(_) | None => return Ok(found),
            }
        }
    }
}
