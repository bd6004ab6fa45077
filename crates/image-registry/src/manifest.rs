//! What a manifest says: an index (OCI image index, Docker manifest list) lists the platforms
//! it offers; a single manifest (OCI, Docker v2) points at a config blob naming its
//! architecture.

use runtime_plan::Finding;
use runtime_plan::preflight::Platform;
use serde::Deserialize;

use crate::http::{Fetch, Session};
use crate::{Access, CHECK, Reference, failed_fetch};

/// OCI image index.
pub(crate) const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
/// Docker manifest list.
pub(crate) const DOCKER_LIST: &str = "application/vnd.docker.distribution.manifest.list.v2+json";
/// OCI image manifest.
pub(crate) const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
/// Docker image manifest, schema 2.
pub(crate) const DOCKER_MANIFEST: &str = "application/vnd.docker.distribution.manifest.v2+json";

/// The image being checked.
pub(crate) struct Subject<'a> {
    pub(crate) image: &'a str,
    pub(crate) users: &'a str,
    pub(crate) reference: &'a Reference,
    pub(crate) platform: Platform,
    pub(crate) access: &'a Access,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Manifest {
    media_type: Option<String>,
    manifests: Option<Vec<Entry>>,
    config: Option<Descriptor>,
}

#[derive(Deserialize)]
struct Entry {
    platform: Option<PlatformSpec>,
}

#[derive(Deserialize)]
struct PlatformSpec {
    os: String,
    architecture: String,
}

#[derive(Deserialize)]
struct Descriptor {
    digest: String,
}

#[derive(Deserialize)]
struct Config {
    os: Option<String>,
    architecture: Option<String>,
}

/// Reads the manifest (and a single manifest's config) and compares with the platform.
pub(crate) async fn check(session: &mut Session<'_>, what: &Subject<'_>) -> Vec<Finding> {
    let accept = [OCI_INDEX, DOCKER_LIST, OCI_MANIFEST, DOCKER_MANIFEST].join(", ");
    let fetch = session.get(&format!("manifests/{}", what.reference.manifest_ref()), &accept).await;
    if let Some(finding) = failed_fetch(what, &fetch, "manifest") {
        return vec![finding];
    }
    let Fetch::Ok { content_type, body } = fetch else { return Vec::new() };
    let Ok(manifest) = serde_json::from_slice::<Manifest>(&body) else {
        return vec![invalid(what, "the manifest is not JSON")];
    };
    let media = manifest.media_type.clone().unwrap_or(content_type);
    if let Some(entries) = &manifest.manifests {
        return offered(what, entries);
    }
    let Some(config) = manifest.config else {
        return vec![invalid(
            what,
            &format!("the manifest ({media}) is neither an index nor an image manifest"),
        )];
    };
    let fetch = session.get(&format!("blobs/{}", config.digest), "application/json, */*").await;
    if let Some(finding) = failed_fetch(what, &fetch, "config blob") {
        return vec![finding];
    }
    let Fetch::Ok { body, .. } = fetch else { return Vec::new() };
    let Ok(config) = serde_json::from_slice::<Config>(&body) else {
        return vec![invalid(what, "the image's config is not JSON")];
    };
    let os = config.os.unwrap_or_else(|| "linux".to_owned());
    let architecture = config.architecture.unwrap_or_default();
    if os == "linux" && architecture == what.platform.architecture() {
        return Vec::new();
    }
    vec![wrong_platform(what, &format!("is a single-platform image for {os}/{architecture}"))]
}

/// An index offers the platform, or the error naming what it offers.
fn offered(what: &Subject<'_>, entries: &[Entry]) -> Vec<Finding> {
    let platforms: Vec<String> = entries
        .iter()
        .filter_map(|e| e.platform.as_ref())
        // Attestation manifests carry `unknown/unknown`.
        .filter(|p| p.os != "unknown")
        .map(|p| format!("{}/{}", p.os, p.architecture))
        .collect();
    if platforms.iter().any(|p| *p == what.platform.to_string()) {
        return Vec::new();
    }
    let list = if platforms.is_empty() { "none".to_owned() } else { platforms.join(", ") };
    vec![wrong_platform(what, &format!("offers no {} (its index offers {list})", what.platform))]
}

fn wrong_platform(what: &Subject<'_>, how: &str) -> Finding {
    let other = match what.platform {
        Platform::Arm64 => "x86_64",
        Platform::Amd64 => "arm64",
    };
    let message = format!("{} {how}; the task runs on {}", what.image, what.platform);
    let help = format!(
        "pin a digest that offers {}, or set the workload's `platform: {other}` if the image is built only for it",
        what.platform
    );
    Finding::error(CHECK, what.users, message, help)
}

fn invalid(what: &Subject<'_>, why: &str) -> Finding {
    Finding::warning(
        CHECK,
        what.users,
        format!("{} was not checked: {why}", what.image),
        "check the registry answers the OCI distribution API",
    )
}
