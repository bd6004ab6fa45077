//! Reads image manifests through the OCI distribution API for `runway preflight`: each pinned
//! digest exists in its registry, a multi-platform index offers the task's platform, a single
//! manifest's config names its architecture.
//!
//! Only GETs under `/v2/` and to a registry's token service are sent. The answers become
//! [`Finding`]s: a digest the registry does not have, a platform it does not offer, are errors;
//! a registry that cannot be asked (unreachable, throttled, a private one without
//! credentials) is a warning naming it, never a silent pass. Credentials and tokens are never
//! in a finding.

mod http;
mod manifest;
mod reference;

use std::collections::BTreeMap;
use std::time::Duration;

use runtime_plan::Finding;
use runtime_plan::preflight::ImageExpectation;
use secrecy::SecretString;

pub use reference::{DOCKER_HUB, DOCKER_HUB_API, Reference};

use http::{Fetch, Session};

/// The `check` of every finding this crate makes.
pub const CHECK: &str = "image";

/// How a registry is asked.
#[derive(Debug, Clone)]
pub struct Registries {
    /// Registry (as image references name it) -> base URL, replacing `https://<api host>`.
    endpoints: BTreeMap<String, String>,
    /// Attempts of a request answered 429 or 5xx, the first included.
    pub attempts: u32,
    /// The first pause before a retry (grows with each attempt, up to 2 s).
    pub pause: Duration,
    /// The most one request may take.
    pub timeout: Duration,
}

impl Default for Registries {
    fn default() -> Self {
        Self {
            endpoints: BTreeMap::new(),
            attempts: 3,
            pause: Duration::from_millis(300),
            timeout: Duration::from_secs(8),
        }
    }
}

impl Registries {
    /// Reads `registry=url` pairs separated by commas (`docker.io=http://127.0.0.1:5000`): each
    /// registry named is asked at that URL instead (a mirror, a test's loopback server).
    pub fn with_endpoints(mut self, text: &str) -> Result<Self, String> {
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((registry, url)) = pair.split_once('=') else {
                return Err(format!("`{pair}` is not `registry=url`"));
            };
            let url = url.trim().trim_end_matches('/');
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!("`{url}` is not an http(s) URL"));
            }
            self.endpoints.insert(registry.trim().to_owned(), url.to_owned());
        }
        Ok(self)
    }

    /// The base URL a reference's registry is asked at.
    fn base(&self, reference: &Reference) -> String {
        self.endpoints
            .get(&reference.registry)
            .cloned()
            .unwrap_or_else(|| format!("https://{}", reference.api_host()))
    }
}

/// How an image may be pulled.
pub enum Access {
    /// Anonymously (a public image, or a token the registry gives anyone).
    Anonymous,
    /// With a username and password (a private registry's `registryCredentials`, or ECR's
    /// authorization token as `AWS`).
    Basic {
        /// The username.
        username: String,
        /// The password or token; never shown.
        password: SecretString,
    },
    /// An encoded Basic credential (private ECR's authorization token, the Base64 of
    /// `AWS:<password>`), sent as it is.
    BasicToken {
        /// The token; never shown.
        token: SecretString,
    },
    /// It needs credentials that could not be read; the image is then not checked.
    Unavailable {
        /// Why, in words (no value): `cannot read the secret ...`.
        reason: String,
    },
}

impl std::fmt::Debug for Access {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Access::Anonymous => f.write_str("Anonymous"),
            Access::Basic { username, .. } => write!(f, "Basic({username}, [REDACTED])"),
            Access::BasicToken { .. } => f.write_str("BasicToken([REDACTED])"),
            Access::Unavailable { reason } => write!(f, "Unavailable({reason})"),
        }
    }
}

/// Checks every image against its registry, all at once; the findings in the images' order.
pub async fn check_images(registries: &Registries, images: Vec<(ImageExpectation, Access)>) -> Vec<Finding> {
    let client = match reqwest::Client::builder()
        .timeout(registries.timeout)
        .connect_timeout(registries.timeout.min(Duration::from_secs(5)))
        .user_agent(concat!("runway-preflight/", env!("CARGO_PKG_VERSION")))
        .build()
    {
        Ok(c) => c,
        Err(e) => {
            let help = "this is a fault of runway's TLS setup: report it";
            return vec![Finding::warning(CHECK, "registries", format!("no image checked: {e}"), help)];
        }
    };
    let mut tasks = tokio::task::JoinSet::new();
    for (index, (expectation, access)) in images.into_iter().enumerate() {
        let (client, registries) = (client.clone(), registries.clone());
        tasks.spawn(async move { (index, check_image(&client, &registries, &expectation, &access).await) });
    }
    let mut done = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok(result) => done.push(result),
            Err(e) => {
                let help = "this is a fault of runway's: report it";
                done.push((
                    usize::MAX,
                    vec![Finding::warning(CHECK, "registries", format!("a check stopped: {e}"), help)],
                ));
            }
        }
    }
    done.sort_by_key(|(index, _)| *index);
    done.into_iter().flat_map(|(_, findings)| findings).collect()
}

/// The findings of one image (none when it is as the plan expects).
pub async fn check_image(
    client: &reqwest::Client,
    registries: &Registries,
    expected: &ImageExpectation,
    access: &Access,
) -> Vec<Finding> {
    let image = expected.image.as_str();
    let users = expected.used_by.iter().map(|u| u.as_str()).collect::<Vec<_>>().join(", ");
    let Some(reference) = Reference::parse(image) else {
        return vec![Finding::error(
            CHECK,
            &users,
            format!("`{image}` is not an image reference"),
            "write it as `registry/repository:tag@sha256:...`",
        )];
    };
    if let Access::Unavailable { reason } = access {
        let help =
            "run preflight with AWS credentials that may read the secret (`secretsmanager:GetSecretValue`)";
        return vec![not_checked(image, &users, reason, help)];
    }
    if reference.is_private_ecr() && matches!(access, Access::Anonymous) {
        let help = "private ECR needs an authorization token: run preflight with AWS credentials allowed `ecr:GetAuthorizationToken`";
        return vec![not_checked(image, &users, "private ECR", help)];
    }
    let mut session = Session {
        client,
        base: registries.base(&reference),
        repository: reference.repository.clone(),
        access,
        attempts: registries.attempts.max(1),
        pause: registries.pause,
        authorization: None,
    };
    let what = manifest::Subject {
        image,
        users: &users,
        reference: &reference,
        platform: expected.platform,
        access,
    };
    manifest::check(&mut session, &what).await
}

/// A warning: the image was not checked, and why.
fn not_checked(image: &str, users: &str, reason: &str, help: &str) -> Finding {
    Finding::warning(CHECK, users, format!("{image} was not checked: {reason}"), help)
}

/// The finding of a GET that did not answer the manifest or config (`None` for 200).
fn failed_fetch(what: &manifest::Subject<'_>, fetch: &Fetch, part: &str) -> Option<Finding> {
    let (image, users, registry) = (what.image, what.users, what.reference.registry.as_str());
    let finding = match fetch {
        Fetch::Ok { .. } => return None,
        Fetch::NotFound => Finding::error(
            CHECK,
            users,
            format!(
                "{image}: digest not found: {registry} has no {part} {} in {}",
                what.reference.manifest_ref(),
                what.reference.repository
            ),
            "push the image, or pin the digest the registry has (`docker buildx imagetools inspect <image>` prints it)",
        ),
        Fetch::Denied { status } => match what.access {
            Access::Basic { .. } | Access::BasicToken { .. } => Finding::error(
                CHECK,
                users,
                format!("{image}: {registry} refused the pull credentials ({status})"),
                "renew the registry credentials (`registryCredentials`) and run `runway secrets prepare` again",
            ),
            Access::Anonymous | Access::Unavailable { .. } => Finding::error(
                CHECK,
                users,
                format!(
                    "{image}: {registry} refused an anonymous pull ({status}): the repository does not exist or is private"
                ),
                "check the image's name; a private image needs `registryCredentials` on its workload",
            ),
        },
        Fetch::Busy { status, attempts } => not_checked(
            image,
            users,
            &format!("{registry} answered {status} to {attempts} attempts"),
            "run preflight again later; Docker Hub limits anonymous pulls, so authenticated pulls or a mirror help",
        ),
        Fetch::Unreachable { reason } => not_checked(
            image,
            users,
            &format!("{registry} is unreachable ({reason})"),
            "check the network and the registry's status; the deploy pulls from it too",
        ),
        Fetch::Other { status } => not_checked(
            image,
            users,
            &format!("{registry} answered {status}"),
            "check the registry's status and the image's name",
        ),
    };
    Some(finding)
}
