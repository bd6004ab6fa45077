//! The AWS side of the adapter: SSM parameters (`runway ssm publish|verify`), the copy of a
//! database admin credential that RDS Proxy reads from Secrets Manager, the state of the ECS
//! services after `pulumi up` (`runway rollout`, which only reads), and the month's bill read
//! back from Cost Explorer (`runway spend`, read only), and `runway rotate`'s changes of a
//! database password or a cache token with the restarts of the services that read them.
//!
//! Everything here carries out what the plan already decided: names, KMS key, tags. Deletions are
//! only `runway teardown`'s, `runway restore`'s (a drill's copy, `--finish`'s old instance) and a
//! concurrent run's extra key (docs/aws.md). Values travel only as [`SecretString`] and are never printed, logged, put in an error
//! or in a report; reports say *what* changed (`created`, `updated`, `unchanged`), never *to what*.
//!
//! Every writing function takes `dry_run`: with it set, only read APIs are called and the report
//! says what would change.

mod account;
mod buckets;
mod cache_restore;
mod cost;
mod drift;
mod freshness;
mod kms;
mod lease;
mod preflight;
mod previews;
mod proxy;
mod proxy_auth;
mod proxy_target;
mod remedy;
mod restore;
mod restore_check;
mod restore_cluster;
mod rollback;
mod rollout;
mod rotate;
mod ssm;
mod stage;
mod survey;
mod switch;
mod task;
mod task_environment;
mod teardown;

use std::fmt;
use std::future::Future;
use std::time::Duration;

use aws_config::BehaviorVersion;
use aws_config::Region;
use aws_config::retry::RetryConfig;
use aws_config::timeout::TimeoutConfig;
use aws_sdk_ssm::config::Credentials;
use aws_sdk_ssm::error::{ProvideErrorMetadata, SdkError};
use secrecy::{ExposeSecret, SecretString};
use serde::Serialize;

pub use account::AccountError;
pub use buckets::{BucketEmptied, EmptyError};
pub use cache_restore::{CacheCopyRequest, GroupState, SnapshotFacts};
pub use cost::{CostByResource, CostError, CostGroup, CostPeriod, METRIC, RESOURCE_TAG};
pub use drift::{CacheFacts, DbInstanceFacts, ParameterName, ServiceCount, TaggedArn};
pub use kms::{EXTRA_KEY_PENDING_DAYS, EnvironmentKey, KeyError, KeyReport};
pub use lease::{DoneStep, Lease, LeaseError, LeaseRecord, utc};
pub use preflight::{CredentialsError, KeyFacts, PullCredentials};
pub use previews::{CREATED_TAG, MONTHLY_TAG, PREVIEW_TAG, PreviewRecord, RECORD, Removed, TaggedResource};
pub use proxy::{ProxyAdminCopy, ProxyCopyError, ProxyCopyReport, RegistryCredentialsCopy};
pub use proxy_auth::{MAX_PROXY_SECRETS, ProxyAuthChange, ProxyAuthError, secret_name};
pub use remedy::Remedy;
pub use restore::{CopyRequest, DbKind, InstanceState, RestoreWindow};
pub use restore_check::{CopyNetwork, GroupDeletion};
pub use restore_cluster::{ClusterCopyRequest, ClusterFacts, ClusterWindow};
pub use rollback::{RollbackChoice, RollbackError};
pub use rollout::{
    RolloutError, RolloutReport, RolloutState, RolloutTiming, ServiceRollout, ServiceTarget, StoppedReason,
    Verdict,
};
pub use rotate::{CredentialHolder, HolderState, TokenStrategy, WaitError};
pub use ssm::{
    ParameterExpectation, ParameterOutcome, ParameterRequest, ParameterWrite, PublishError, PublishFailure,
    PublishReport, UpdateReason, VerifyError, VerifyProblem, VerifyProblemKind, VerifyReport,
};
pub use stage::ReleaseStage;
pub use survey::{CertificateFacts, DefaultRoute, SubnetFacts, ZoneFacts};
pub use switch::InstanceFacts;
pub use task::{
    LogPlace, OneOffRun, RunRecord, STARTED_BY, TaskError, TaskOutcome, TaskOverride, TaskReport, TaskTiming,
};

/// The product and environment a call works for; they become the `product` and `environment`
/// tags of everything written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// The product name, e.g. `acme-shop`.
    pub product: String,
    /// The runway environment, e.g. `dev`.
    pub environment: String,
}

/// Where the values to publish come from. The Infisical adapter implements it; tests use an
/// in-memory map.
///
/// Implementations must keep values out of their errors: an error's `Display` is shown to the
/// user.
pub trait ValueSource {
    /// The value of `variable` (e.g. `MAIN_DB_URL`) of `resource` (e.g. `main-db`), or `None`
    /// when the source has no such value.
    fn value(
        &self,
        resource: &str,
        variable: &str,
    ) -> impl Future<Output = Result<Option<SecretString>, SourceError>> + Send;
}

/// An error from a [`ValueSource`]; its message must not contain a value.
pub type SourceError = Box<dyn std::error::Error + Send + Sync>;

/// What happened (or, in a dry run, would happen) to one thing written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Action {
    /// It did not exist and was created.
    Created,
    /// It existed and its value, type or key differed: a new version was written.
    Updated,
    /// Its value was right but some tags were missing or different; only tags were written.
    Retagged,
    /// Nothing differed; nothing was written.
    Unchanged,
}

impl Action {
    /// The word shown in reports: `created`, or `would create` in a dry run.
    pub fn word(self, dry_run: bool) -> &'static str {
        match (self, dry_run) {
            (Action::Created, false) => "created",
            (Action::Created, true) => "would create",
            (Action::Updated, false) => "updated",
            (Action::Updated, true) => "would update",
            (Action::Retagged, false) => "retagged",
            (Action::Retagged, true) => "would retag",
            (Action::Unchanged, _) => "unchanged",
        }
    }
}

/// A failed AWS call, described without any request or response body. Shown as the first
/// step to take (when the failure is of a known class), then the call; the service's own
/// message when it answered with one, else the failure of the call as the error's source
/// (`dispatch failure: io error: ...`), which whoever reports it prints after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RemoteError {
    /// The API operation, e.g. `PutParameter`.
    pub operation: &'static str,
    /// The AWS error code when the service answered, e.g. `AccessDeniedException`.
    pub code: Option<String>,
    /// The service's message, on one line, when it answered with one.
    pub message: Option<String>,
    /// What to do first, when the failure is of a known class.
    pub remedy: Option<Remedy>,
    /// Why the call failed when the service said nothing: the SDK's failure and its causes.
    pub cause: Option<Cause>,
}

impl fmt::Display for RemoteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(remedy) = self.remedy {
            write!(f, "{remedy}\n  cause: ")?;
        }
        write!(f, "{} failed", self.operation)?;
        if let Some(code) = &self.code {
            write!(f, " ({code})")?;
        }
        if let Some(message) = &self.message {
            write!(f, ": {message}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RemoteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause.as_ref().map(|c| c as &(dyn std::error::Error + 'static))
    }
}

impl RemoteError {
    pub(crate) fn from_sdk<E, R>(operation: &'static str, err: SdkError<E, R>) -> Self
    where
        E: ProvideErrorMetadata + std::error::Error + Send + Sync + 'static,
        R: fmt::Debug + 'static,
    {
        let remedy = remedy::of(&err);
        let (code, message) = match &err {
            SdkError::ServiceError(service) => {
                (service.err().code().map(str::to_owned), service.err().message().map(one_line))
            }
            _ => (None, None),
        };
        // The service's answer says it all; else the SDK's failure is the cause. Only its
        // sources are kept: a response (which may hold a value read) is dropped here.
        let cause = match message {
            Some(_) => None,
            None => Some(Cause::new(SdkFailure { what: err.to_string(), source: err.into_source().ok() })),
        };
        RemoteError { operation, code, message, remedy, cause }
    }
}

/// The SDK's failure of a call without its request or response: what failed (`dispatch
/// failure`, `response error`, ...) and why.
#[derive(Debug)]
struct SdkFailure {
    what: String,
    source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl fmt::Display for SdkFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

impl std::error::Error for SdkFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// The cause of a failure, kept as the error it was (its own sources reachable through
/// [`std::error::Error::source`], which it forwards). Compared, shown in `Debug` and
/// serialised by its messages only ([`Chain`]): never a request, response or value.
#[derive(Clone)]
pub struct Cause(std::sync::Arc<dyn std::error::Error + Send + Sync>);

impl Cause {
    /// Keeps `error` as a cause.
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Cause(std::sync::Arc::new(error))
    }

    /// Keeps a boxed error (a [`SourceError`]) as a cause.
    pub fn boxed(error: Box<dyn std::error::Error + Send + Sync>) -> Self {
        Cause(std::sync::Arc::from(error))
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Cause").field(&Chain(self).to_string()).finish()
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Self) -> bool {
        Chain(self).to_string() == Chain(other).to_string()
    }
}

impl Eq for Cause {}

impl Serialize for Cause {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&Chain(self))
    }
}

/// An error followed by its sources' messages, `: `-separated and each on one line, a message
/// already shown left out: how a report lays out a failure in its own text.
pub(crate) struct Chain<'a>(pub(crate) &'a (dyn std::error::Error + 'static));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = self.0.to_string();
        let mut source = self.0.source();
        while let Some(e) = source {
            let message = e.to_string();
            let line = one_line(&message);
            if !text.contains(&message) && !text.contains(&line) {
                text.push_str(": ");
                text.push_str(&line);
            }
            source = e.source();
        }
        f.write_str(&text)
    }
}

/// Text on one line: the SDK's messages may carry a service's multi-line text.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How to reach AWS. Region comes from the runway environment; endpoint, credentials and profile
/// come from the standard AWS environment (`AWS_PROFILE`, `AWS_ENDPOINT_URL`, ...) unless
/// [`ClientSettings::isolated`] replaces them.
#[derive(Debug, Clone)]
pub struct ClientSettings {
    /// The AWS region, e.g. `eu-west-1`.
    pub region: String,
    /// Attempts per call, first included (standard retry mode).
    pub max_attempts: u32,
    /// The first retry back-off; later ones grow exponentially with jitter.
    pub initial_backoff: Duration,
    /// Time allowed to open a connection.
    pub connect_timeout: Duration,
    /// Time allowed for one attempt of a call.
    pub attempt_timeout: Duration,
    /// Time allowed for a call, retries included.
    pub operation_timeout: Duration,
    /// When set, the host's AWS environment (variables, profiles) is ignored entirely.
    pub isolated: Option<IsolatedEndpoint>,
}

impl ClientSettings {
    /// Defaults for `region`: 8 attempts (within the call's 60 s: a flaky network is
    /// ridden out, docs/aws.md), 5 s connect, 20 s per attempt, 60 s per call.
    pub fn new(region: impl Into<String>) -> Self {
        ClientSettings {
            region: region.into(),
            max_attempts: 8,
            initial_backoff: Duration::from_secs(1),
            connect_timeout: Duration::from_secs(5),
            attempt_timeout: Duration::from_secs(20),
            operation_timeout: Duration::from_secs(60),
            isolated: None,
        }
    }
}

/// An explicit endpoint with static credentials, used instead of anything in the host's
/// environment (tests against moto, local emulators).
#[derive(Debug, Clone)]
pub struct IsolatedEndpoint {
    /// e.g. `http://127.0.0.1:5000`.
    pub endpoint_url: String,
    /// The access key id.
    pub access_key_id: String,
    /// The secret access key.
    pub secret_access_key: SecretString,
}

/// The SDK clients the adapter works with.
#[derive(Debug, Clone)]
pub struct AwsClients {
    pub(crate) ssm: aws_sdk_ssm::Client,
    pub(crate) secrets: aws_sdk_secretsmanager::Client,
    /// The environment's own key (`secrets prepare`).
    pub(crate) kms: aws_sdk_kms::Client,
    pub(crate) ecs: aws_sdk_ecs::Client,
    /// RDS: a database's master password (`runway rotate`).
    pub(crate) rds: aws_sdk_rds::Client,
    /// ElastiCache: a cache's AUTH token (`runway rotate`).
    pub(crate) elasticache: aws_sdk_elasticache::Client,
    /// Cost Explorer: reached in us-east-1 whatever the region (its endpoint rules).
    pub(crate) ce: aws_sdk_costexplorer::Client,
    /// `runway preflight`'s reads: subnets, routes, endpoints, groups.
    pub(crate) ec2: aws_sdk_ec2::Client,
    /// The certificate (`runway preflight`).
    pub(crate) acm: aws_sdk_acm::Client,
    /// The ECS service-linked role (`runway preflight`).
    pub(crate) iam: aws_sdk_iam::Client,
    /// Service quotas (`runway preflight`).
    pub(crate) quotas: aws_sdk_servicequotas::Client,
    /// Private ECR's authorization token (`runway preflight` reads image manifests with it).
    pub(crate) ecr: aws_sdk_ecr::Client,
    /// The hosted zone of the environment's domain (`runway preflight`).
    pub(crate) route53: aws_sdk_route53::Client,
    /// Whose credentials these are (`GetCallerIdentity`: the pinned account).
    pub(crate) sts: aws_sdk_sts::Client,
    /// The resources carrying an environment's or a preview's tags (`runway drift`, `runway
    /// teardown`, `runway preview`).
    pub(crate) tagging: aws_sdk_resourcegroupstagging::Client,
    /// A preview's own buckets emptied before its destroy (`runway preview down`).
    pub(crate) s3: aws_sdk_s3::Client,
    /// A preview's leftover queue deleted (`runway preview down`, `sweep`).
    pub(crate) sqs: aws_sdk_sqs::Client,
}

impl AwsClients {
    /// Loads the AWS configuration and builds the SSM, Secrets Manager, ECS and Cost Explorer
    /// clients.
    pub async fn connect(settings: &ClientSettings) -> Self {
        let timeouts = TimeoutConfig::builder()
            .connect_timeout(settings.connect_timeout)
            .operation_attempt_timeout(settings.attempt_timeout)
            .operation_timeout(settings.operation_timeout)
            .build();
        let retry = RetryConfig::standard()
            .with_max_attempts(settings.max_attempts)
            .with_initial_backoff(settings.initial_backoff);
        let mut loader = aws_config::defaults(BehaviorVersion::latest())
            .region(Region::new(settings.region.clone()))
            .retry_config(retry)
            .timeout_config(timeouts);
        if let Some(iso) = &settings.isolated {
            loader = loader
                .empty_test_environment()
                .endpoint_url(iso.endpoint_url.clone())
                .credentials_provider(Credentials::new(
                    iso.access_key_id.clone(),
                    iso.secret_access_key.expose_secret().to_owned(),
                    None,
                    None,
                    "runway-isolated",
                ));
        }
        let config = loader.load().await;
        AwsClients {
            ssm: aws_sdk_ssm::Client::new(&config),
            secrets: aws_sdk_secretsmanager::Client::new(&config),
            kms: aws_sdk_kms::Client::new(&config),
            ecs: aws_sdk_ecs::Client::new(&config),
            rds: aws_sdk_rds::Client::new(&config),
            elasticache: aws_sdk_elasticache::Client::new(&config),
            ce: aws_sdk_costexplorer::Client::new(&config),
            ec2: aws_sdk_ec2::Client::new(&config),
            acm: aws_sdk_acm::Client::new(&config),
            iam: aws_sdk_iam::Client::new(&config),
            quotas: aws_sdk_servicequotas::Client::new(&config),
            ecr: aws_sdk_ecr::Client::new(&config),
            route53: aws_sdk_route53::Client::new(&config),
            sts: aws_sdk_sts::Client::new(&config),
            tagging: aws_sdk_resourcegroupstagging::Client::new(&config),
            s3: s3_client(&config),
            sqs: aws_sdk_sqs::Client::new(&config),
        }
    }
}

/// S3's client: path-style addressing when an endpoint is set (moto on loopback has no
/// `<bucket>.<host>` names to resolve).
fn s3_client(config: &aws_config::SdkConfig) -> aws_sdk_s3::Client {
    let s3 = aws_sdk_s3::config::Builder::from(config).force_path_style(config.endpoint_url().is_some());
    aws_sdk_s3::Client::from_conf(s3.build())
}

/// The tags written: `product`, `environment`, `resource`, then the caller's extra tags (an
/// extra tag cannot override one of the three).
pub(crate) fn standard_tags(
    scope: &Scope,
    resource: &str,
    extra: &[(String, String)],
) -> Vec<(String, String)> {
    let mut tags = vec![
        ("product".to_owned(), scope.product.clone()),
        ("environment".to_owned(), scope.environment.clone()),
        ("resource".to_owned(), resource.to_owned()),
    ];
    for (k, v) in extra {
        if !tags.iter().any(|(known, _)| known == k) {
            tags.push((k.clone(), v.clone()));
        }
    }
    tags
}

/// Whether every wanted tag is present with the wanted value (other tags may exist too).
pub(crate) fn tags_satisfied(wanted: &[(String, String)], present: &[(String, String)]) -> bool {
    wanted.iter().all(|w| present.contains(w))
}

#[cfg(test)]
mod tests {
    use super::{Scope, standard_tags, tags_satisfied};

    fn pair(k: &str, v: &str) -> (String, String) {
        (k.to_owned(), v.to_owned())
    }

    #[test]
    fn extra_tags_cannot_override_the_standard_three() {
        let scope = Scope { product: "acme-shop".into(), environment: "dev".into() };
        let tags = standard_tags(&scope, "main-db", &[pair("resource", "x"), pair("owner", "ops")]);
        assert_eq!(
            tags,
            vec![
                pair("product", "acme-shop"),
                pair("environment", "dev"),
                pair("resource", "main-db"),
                pair("owner", "ops")
            ]
        );
        assert!(tags_satisfied(&tags[..2], &tags));
        assert!(!tags_satisfied(&tags, &tags[..3]));
        assert!(!tags_satisfied(&[pair("owner", "dev")], &tags));
    }
}
