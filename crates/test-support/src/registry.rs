//! An OCI registry's answers for [`CannedWeb`](crate::CannedWeb): an index listing platforms,
//! a single manifest with its config blob, the bearer-token challenge, throttling.

use serde_json::json;

use crate::web::{Answer, WebRoute};

const OCI_INDEX: &str = "application/vnd.oci.image.index.v1+json";
const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";

/// `GET /v2/<repository>/manifests/<digest>`: an OCI index offering `platforms`
/// (`linux/arm64`, ...), plus an attestation entry (`unknown/unknown`) as buildx writes.
pub fn oci_index(repository: &str, digest: &str, platforms: &[&str]) -> WebRoute {
    let mut manifests: Vec<_> = platforms
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (os, architecture) = p.split_once('/').unwrap_or(("linux", p));
            json!({"mediaType": OCI_MANIFEST, "digest": format!("sha256:{i:064}"), "size": 1,
                   "platform": {"os": os, "architecture": architecture}})
        })
        .collect();
    manifests.push(json!({"mediaType": OCI_MANIFEST, "digest": format!("sha256:{:064}", 99), "size": 1,
                          "platform": {"os": "unknown", "architecture": "unknown"}}));
    let body = json!({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": manifests}).to_string();
    manifest_route(repository, digest, OCI_INDEX, body)
}

/// A single OCI manifest at `digest` whose config blob names `linux/<architecture>`: the
/// manifest's route and the blob's.
pub fn oci_manifest(repository: &str, digest: &str, architecture: &str) -> Vec<WebRoute> {
    let config = format!("sha256:{}", "c".repeat(64));
    let body = json!({"schemaVersion": 2, "mediaType": OCI_MANIFEST,
                      "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": config, "size": 2},
                      "layers": []})
    .to_string();
    let blob =
        json!({"architecture": architecture, "os": "linux", "rootfs": {"type": "layers", "diff_ids": []}});
    vec![
        manifest_route(repository, digest, OCI_MANIFEST, body),
        WebRoute::new(
            "GET",
            &format!("/v2/{repository}/blobs/{config}"),
            vec![Answer::new("200 OK", &[("Content-Type", "application/octet-stream")], blob.to_string())],
        ),
    ]
}

/// `routes` only with `Authorization: Bearer <token>`; without it, `401` with a challenge
/// whose realm is this server's `/token`, which gives `token` to anyone (as Docker Hub does
/// for public images).
pub fn behind_bearer(routes: Vec<WebRoute>, token: &str) -> Vec<WebRoute> {
    let bearer = format!("Bearer {token}");
    let mut out = Vec::new();
    for route in routes {
        let challenge = r#"Bearer realm="{url}/token",service="test-registry",scope="repository:x:pull""#;
        let refused = Answer::new(
            "401 Unauthorized",
            &[("Content-Type", "application/json"), ("WWW-Authenticate", challenge)],
            r#"{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}"#,
        );
        out.push(WebRoute::new(&route.method, &route.path, vec![refused]));
        out.insert(out.len() - 1, route.when("authorization", &bearer));
    }
    out.push(WebRoute::new(
        "GET",
        "/token",
        vec![Answer::new(
            "200 OK",
            &[("Content-Type", "application/json")],
            json!({"token": token}).to_string(),
        )],
    ));
    out
}

/// `GET /v2/<repository>/manifests/<digest>` answered `429 Too Many Requests` every time.
pub fn throttled(repository: &str, digest: &str) -> WebRoute {
    let answer = Answer::new(
        "429 Too Many Requests",
        &[("Content-Type", "application/json"), ("Retry-After", "0")],
        r#"{"errors":[{"code":"TOOMANYREQUESTS","message":"rate limit"}]}"#,
    );
    WebRoute::new("GET", &format!("/v2/{repository}/manifests/{digest}"), vec![answer])
}

fn manifest_route(repository: &str, digest: &str, media: &str, body: String) -> WebRoute {
    let answer = Answer::new("200 OK", &[("Content-Type", media), ("Docker-Content-Digest", digest)], body);
    WebRoute::new("GET", &format!("/v2/{repository}/manifests/{digest}"), vec![answer])
}
