//! What a person does first about a failed AWS call. The SDK's own message is a chain of
//! causes ("dispatch failure: other: an error occurred while loading credentials: failed to load
//! IMDS session token: …") that names the symptom, not the fix; a [`Remedy`] names the fix and
//! the chain follows it on one line.

use std::fmt;

use aws_credential_types::provider::error::CredentialsError;
use aws_sdk_ssm::error::{ProvideErrorMetadata, SdkError};
use serde::Serialize;

/// The first step for a class of failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Remedy {
    /// No credential source produced credentials.
    NoCredentials,
    /// The credentials were found but their session has expired.
    ExpiredCredentials,
    /// AWS does not recognise the key or token.
    InvalidCredentials,
    /// The identity is not allowed to make the call.
    AccessDenied,
    /// The endpoint did not answer: network, proxy or a wrong endpoint URL.
    Unreachable,
    /// The identity may not read the bill from Cost Explorer (`runway spend`).
    CostExplorerDenied,
}

impl fmt::Display for Remedy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Remedy::NoCredentials => {
                "no AWS credentials found: set AWS_PROFILE to a profile of ~/.aws/config (after \
                 `aws sso login --profile <name>` if it uses SSO), or set AWS_ACCESS_KEY_ID and \
                 AWS_SECRET_ACCESS_KEY (plus AWS_SESSION_TOKEN for temporary keys); in CI, let \
                 the job assume its deploy role first"
            }
            Remedy::ExpiredCredentials => {
                "the AWS credentials have expired: renew the session (`aws sso login`, or assume \
                 the role again) and run the same command; what is done is not redone"
            }
            Remedy::InvalidCredentials => {
                "AWS does not recognise these credentials: check that AWS_PROFILE or \
                 AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN belong together \
                 and to this environment's account"
            }
            Remedy::AccessDenied => {
                "the AWS identity is not allowed to make this call: grant its role the action \
                 named below on the resource named below (docs/pipeline.md lists what the deploy \
                 job needs)"
            }
            Remedy::Unreachable => {
                "AWS did not answer: check the network or proxy of this machine, and \
                 AWS_ENDPOINT_URL if it is set"
            }
            Remedy::CostExplorerDenied => {
                "the AWS identity may not read the bill: grant its role `ce:GetCostAndUsage` \
                 (resource `*`), in the payer account or in a member account the payer lets see \
                 its costs; Cost Explorer answers in us-east-1 whatever the environment's region, \
                 so a policy or SCP limiting `aws:RequestedRegion` must allow us-east-1 \
                 (docs/pipeline.md, \"The monthly spend job\")"
            }
        })
    }
}

/// The remedy for an SDK failure, when it is one of the known classes.
pub(crate) fn of<E, R>(err: &SdkError<E, R>) -> Option<Remedy>
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: fmt::Debug + 'static,
{
    match err {
        SdkError::ServiceError(service) => service.err().code().and_then(of_code),
        SdkError::TimeoutError(_) => Some(Remedy::Unreachable),
        SdkError::DispatchFailure(dispatch) => {
            if caused_by_credentials(err) {
                Some(Remedy::NoCredentials)
            } else if dispatch.is_io() || dispatch.is_timeout() {
                Some(Remedy::Unreachable)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The remedy for an AWS error code (the codes SSM, Secrets Manager and STS answer with).
fn of_code(code: &str) -> Option<Remedy> {
    match code {
        "ExpiredTokenException" | "ExpiredToken" | "RequestExpired" => Some(Remedy::ExpiredCredentials),
        "UnrecognizedClientException" | "InvalidClientTokenId" | "InvalidSignatureException" => {
            Some(Remedy::InvalidCredentials)
        }
        "AccessDeniedException" | "AccessDenied" => Some(Remedy::AccessDenied),
        _ => None,
    }
}

/// Whether a credential provider's error is among the causes: the SDK reports "no credentials"
/// as a dispatch failure.
fn caused_by_credentials(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut source = err.source();
    while let Some(e) = source {
        if e.downcast_ref::<CredentialsError>().is_some() {
            return true;
        }
        source = e.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{Remedy, of_code};

    #[test]
    fn codes_map_to_their_first_step() {
        assert_eq!(of_code("ExpiredTokenException"), Some(Remedy::ExpiredCredentials));
        assert_eq!(of_code("UnrecognizedClientException"), Some(Remedy::InvalidCredentials));
        assert_eq!(of_code("AccessDeniedException"), Some(Remedy::AccessDenied));
        assert_eq!(of_code("ParameterNotFound"), None);
    }
}
