//! The pinned account: when an environment names its AWS account (`account`), the caller's
//! own account (STS `GetCallerIdentity`, which needs no permission) is compared with it before
//! any other call, so a job holding another account's credentials (dev's job with production's
//! role) stops before it reads or writes anything there.

use super::{AwsClients, ClientSettings, RemoteError};

/// The caller's credentials are not the pinned account's, or the question could not be asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccountError {
    /// The credentials belong to another account than the environment's.
    #[error(
        "the credentials are of AWS account {actual}, but the environment is pinned to account {expected}: \
         nothing was called besides sts:GetCallerIdentity"
    )]
    Mismatch {
        /// The environment's `account`.
        expected: String,
        /// The caller's account, as STS answered.
        actual: String,
        /// The caller's ARN (role or user), to tell which credentials they are.
        caller: Option<String>,
    },
    /// `GetCallerIdentity` failed (no credentials, no network, ...).
    #[error("cannot tell which AWS account the credentials are of")]
    Unknown(#[source] RemoteError),
}

impl AccountError {
    /// The help shown under the error.
    pub fn help(&self) -> String {
        match self {
            AccountError::Mismatch { expected, caller, .. } => format!(
                "use credentials of account {expected} (a role of it, `AWS_PROFILE`), or correct the environment's \
                 `account`{}",
                caller.as_ref().map(|c| format!("; the caller is {c}")).unwrap_or_default()
            ),
            AccountError::Unknown(_) => {
                "check the AWS credentials (`aws sts get-caller-identity`)".to_owned()
            }
        }
    }
}

impl AwsClients {
    /// Connects ([`AwsClients::connect`]), then, when `account` is set, asks STS whose
    /// credentials these are and refuses any other account: the first call made, so nothing
    /// else reaches a wrong account.
    pub async fn connect_pinned(
        settings: &ClientSettings,
        account: Option<&str>,
    ) -> Result<Self, AccountError> {
        let clients = Self::connect(settings).await;
        if let Some(expected) = account {
            clients.check_account(expected).await?;
        }
        Ok(clients)
    }

    /// The caller's account id (`GetCallerIdentity`, which needs no permission).
    pub async fn caller_account(&self) -> Result<String, RemoteError> {
        let me = (self.sts.get_caller_identity().send().await)
            .map_err(|e| RemoteError::from_sdk("GetCallerIdentity", e))?;
        Ok(me.account().unwrap_or_default().to_owned())
    }

    /// The caller's account is `expected`, or [`AccountError`].
    pub async fn check_account(&self, expected: &str) -> Result<(), AccountError> {
        let me = self
            .sts
            .get_caller_identity()
            .send()
            .await
            .map_err(|e| AccountError::Unknown(RemoteError::from_sdk("GetCallerIdentity", e)))?;
        let actual = me.account().unwrap_or_default();
        if actual == expected {
            return Ok(());
        }
        Err(AccountError::Mismatch {
            expected: expected.to_owned(),
            actual: actual.to_owned(),
            caller: me.arn().map(str::to_owned),
        })
    }
}
