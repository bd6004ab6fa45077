//! A preview's logins on the RDS Proxy it shares with its `from` environment
//! (docs/previews.md, "The shared proxy's logins"): RDS Proxy admits a login whose Secrets
//! Manager secret is listed in its `auth`, and `from`'s stack declares that list. `runway
//! preview up` adds the preview's login secrets to it (`ModifyDBProxy` with the whole list:
//! every other entry kept as it is, none twice) and `down` takes them out again; both read the
//! list first and call nothing when it is already as wanted, so a run after a stop finishes.
//!
//! An entry is matched to a secret by the secret's name: Secrets Manager names a secret's ARN
//! `arn:aws:secretsmanager:<region>:<account>:secret:<name>-<six characters>`.

use aws_sdk_rds::types::{UserAuthConfig, UserAuthConfigInfo};
use serde::Serialize;

use super::{AwsClients, RemoteError};

/// The most secrets one RDS Proxy lists in its `auth` (Amazon RDS User Guide, "Quotas and
/// limitations for RDS Proxy").
pub const MAX_PROXY_SECRETS: usize = 200;

/// Why a preview's logins could not be registered with (or taken off) a shared proxy.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProxyAuthError {
    /// A login's secret does not exist (`runway secrets prepare` writes it first).
    #[error("the secret {name} does not exist: `runway secrets prepare` writes it before it is registered")]
    SecretMissing {
        /// The secret's name.
        name: String,
    },
    /// The shared proxy does not exist (its environment is not deployed).
    #[error("the shared proxy {proxy} does not exist: deploy the environment previews are `from` first")]
    ProxyMissing {
        /// The proxy's name.
        proxy: String,
    },
    /// The proxy would list more secrets than RDS Proxy allows.
    #[error(
        "the proxy {proxy} would list {count} secrets, over RDS Proxy's {MAX_PROXY_SECRETS}: lower `previews.max`"
    )]
    TooMany {
        /// The proxy's name.
        proxy: String,
        /// How many it would list.
        count: usize,
    },
    /// An RDS or Secrets Manager call failed.
    #[error(transparent)]
    Remote(#[from] RemoteError),
}

/// What registering or deregistering a preview's logins did to one proxy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProxyAuthChange {
    /// The proxy's name.
    pub proxy: String,
    /// `registered`, `deregistered`, `unchanged` (already as wanted: nothing called), or `gone`
    /// (a deregistration found no proxy).
    pub outcome: &'static str,
    /// The secrets' ARNs added or removed.
    pub secrets: Vec<String>,
    /// How many entries the proxy's `auth` lists afterwards.
    pub entries: usize,
}

/// The name of the secret the ARN `arn` names (Secrets Manager ends it with a dash and six
/// characters of its own); `None` for what is not a secret's ARN.
pub fn secret_name(arn: &str) -> Option<&str> {
    let (_, rest) = arn.split_once(":secret:")?;
    let (name, suffix) = rest.rsplit_once('-')?;
    (suffix.len() == 6 && suffix.bytes().all(|b| b.is_ascii_alphanumeric())).then_some(name)
}

/// The entry an existing one stands for in `ModifyDBProxy`'s list: every field kept.
fn kept(info: &UserAuthConfigInfo) -> UserAuthConfig {
    UserAuthConfig::builder()
        .set_description(info.description().map(str::to_owned))
        .set_user_name(info.user_name().map(str::to_owned))
        .set_auth_scheme(info.auth_scheme().cloned())
        .set_secret_arn(info.secret_arn().map(str::to_owned))
        .set_iam_auth(info.iam_auth().cloned())
        .set_client_password_auth_type(info.client_password_auth_type().cloned())
        .build()
}

/// A login's entry: its secret, no IAM authentication (as the program lists `from`'s).
fn login(arn: &str) -> UserAuthConfig {
    UserAuthConfig::builder()
        .auth_scheme(aws_sdk_rds::types::AuthScheme::Secrets)
        .iam_auth(aws_sdk_rds::types::IamAuthMode::Disabled)
        .secret_arn(arn)
        .build()
}

impl AwsClients {
    /// Adds the secrets named `secrets` to the `auth` of the proxy `proxy`, every other entry
    /// kept, none twice; an entry naming one of them by an older ARN (the secret made again)
    /// is replaced. `unchanged` when they are all listed already.
    ///
    /// # Errors
    /// [`ProxyAuthError::SecretMissing`], [`ProxyAuthError::ProxyMissing`],
    /// [`ProxyAuthError::TooMany`] before any write, or a failed call.
    pub async fn register_proxy_logins(
        &self,
        proxy: &str,
        secrets: &[String],
    ) -> Result<ProxyAuthChange, ProxyAuthError> {
        let mut arns = Vec::with_capacity(secrets.len());
        for name in secrets {
            match self.secrets.describe_secret().secret_id(name).send().await {
                Ok(d) => arns.push(d.arn().unwrap_or_default().to_owned()),
                Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception()) => {
                    return Err(ProxyAuthError::SecretMissing { name: name.clone() });
                }
                Err(e) => return Err(RemoteError::from_sdk("DescribeSecret", e).into()),
            }
        }
        let Some(current) = self.proxy_auth(proxy).await? else {
            return Err(ProxyAuthError::ProxyMissing { proxy: proxy.to_owned() });
        };
        // Kept: every entry but one naming these secrets by an ARN they no longer have.
        let stale = |arn: &str| {
            secret_name(arn).is_some_and(|n| secrets.iter().any(|s| s == n)) && !arns.iter().any(|a| a == arn)
        };
        let mut list: Vec<UserAuthConfig> =
            current.iter().filter(|i| !i.secret_arn().is_some_and(stale)).map(kept).collect();
        let mut added = Vec::new();
        for arn in &arns {
            let listed = list.iter().any(|e| e.secret_arn() == Some(arn.as_str()));
            if !listed && !added.contains(arn) {
                list.push(login(arn));
                added.push(arn.clone());
            }
        }
        if added.is_empty() && list.len() == current.len() {
            return Ok(ProxyAuthChange {
                proxy: proxy.to_owned(),
                outcome: "unchanged",
                secrets: Vec::new(),
                entries: list.len(),
            });
        }
        if list.len() > MAX_PROXY_SECRETS {
            return Err(ProxyAuthError::TooMany { proxy: proxy.to_owned(), count: list.len() });
        }
        let entries = list.len();
        self.modify_proxy_auth(proxy, list).await?;
        Ok(ProxyAuthChange { proxy: proxy.to_owned(), outcome: "registered", secrets: added, entries })
    }

    /// Takes every entry naming a secret whose name begins with `prefix` (a preview's
    /// `<product>/pr-<n>/<resource>/proxy-`: its logins', a consumer's that left since included)
    /// out of the `auth` of the proxy `proxy`, every other entry kept: `unchanged` when none is
    /// listed, `gone` when the proxy does not exist (nothing to take out).
    ///
    /// # Errors
    /// A failed call.
    pub async fn deregister_proxy_logins(
        &self,
        proxy: &str,
        prefix: &str,
    ) -> Result<ProxyAuthChange, ProxyAuthError> {
        let done = |outcome, removed: Vec<String>, entries| ProxyAuthChange {
            proxy: proxy.to_owned(),
            outcome,
            secrets: removed,
            entries,
        };
        let Some(current) = self.proxy_auth(proxy).await? else { return Ok(done("gone", Vec::new(), 0)) };
        let ours = |i: &UserAuthConfigInfo| {
            i.secret_arn().and_then(secret_name).is_some_and(|n| !prefix.is_empty() && n.starts_with(prefix))
        };
        let removed: Vec<String> =
            current.iter().filter(|i| ours(i)).filter_map(|i| i.secret_arn().map(str::to_owned)).collect();
        let list: Vec<UserAuthConfig> = current.iter().filter(|i| !ours(i)).map(kept).collect();
        if removed.is_empty() {
            return Ok(done("unchanged", removed, list.len()));
        }
        let entries = list.len();
        self.modify_proxy_auth(proxy, list).await?;
        Ok(done("deregistered", removed, entries))
    }

    /// The proxy's `auth` entries, `None` when there is no such proxy.
    async fn proxy_auth(&self, proxy: &str) -> Result<Option<Vec<UserAuthConfigInfo>>, RemoteError> {
        match self.rds.describe_db_proxies().db_proxy_name(proxy).send().await {
            Ok(answer) => {
                let found = answer.db_proxies().iter().find(|p| p.db_proxy_name() == Some(proxy));
                Ok(found.map(|p| p.auth().to_vec()))
            }
            Err(e) if e.as_service_error().is_some_and(|s| s.is_db_proxy_not_found_fault()) => Ok(None),
            Err(e) => Err(RemoteError::from_sdk("DescribeDBProxies", e)),
        }
    }

    /// `ModifyDBProxy` with the whole `auth` list.
    async fn modify_proxy_auth(&self, proxy: &str, list: Vec<UserAuthConfig>) -> Result<(), RemoteError> {
        self.rds
            .modify_db_proxy()
            .db_proxy_name(proxy)
            .set_auth(Some(list))
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("ModifyDBProxy", e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::secret_name;

    #[test]
    fn a_secrets_arn_names_it_before_its_dash_and_six_characters() {
        let arn =
            "arn:aws:secretsmanager:us-east-1:123456789012:secret:acme-shop/pr-7/main-db/proxy-api-AbC123";
        assert_eq!(secret_name(arn), Some("acme-shop/pr-7/main-db/proxy-api"));
        let dashed =
            "arn:aws:secretsmanager:us-east-1:1:secret:acme-shop/pr-7/main-db/proxy-pdf-render-AbC123";
        assert_eq!(secret_name(dashed), Some("acme-shop/pr-7/main-db/proxy-pdf-render"));
        assert_eq!(secret_name("arn:aws:secretsmanager:us-east-1:1:secret:name-short"), None);
        assert_eq!(secret_name("not an arn"), None);
    }
}
