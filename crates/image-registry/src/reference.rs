//! An image reference (`[registry/]repository[:tag][@digest]`) split the way Docker and the
//! OCI distribution spec name things: a first path part with a dot or a colon (or
//! `localhost`) is the registry, else the image is on Docker Hub, whose one-part names live
//! under `library/`.

/// Docker Hub as image references name it.
pub const DOCKER_HUB: &str = "docker.io";
/// Where Docker Hub's distribution API answers.
pub const DOCKER_HUB_API: &str = "registry-1.docker.io";

/// An image reference, split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The registry as named (`docker.io`, `ghcr.io`, `public.ecr.aws`).
    pub registry: String,
    /// The repository inside it (`library/postgres`, `acme/pdf-render`).
    pub repository: String,
    /// The tag, when given.
    pub tag: Option<String>,
    /// The pinned digest (`sha256:...`), when given.
    pub digest: Option<String>,
}

impl Reference {
    /// Splits `image`; `None` when it has no repository.
    pub fn parse(image: &str) -> Option<Reference> {
        let (name, digest) = match image.split_once('@') {
            Some((name, digest)) => (name, Some(digest.to_owned())),
            None => (image, None),
        };
        let (registry, path) = match name.split_once('/') {
            Some((first, rest)) if first.contains('.') || first.contains(':') || first == "localhost" => {
                (first.to_owned(), rest)
            }
            Some(_) | None => (DOCKER_HUB.to_owned(), name),
        };
        // A tag follows the last colon after the last slash (a registry's port is before it).
        let last = path.rsplit('/').next().unwrap_or(path);
        let (path, tag) = match last.rsplit_once(':') {
            Some((_, tag)) => (&path[..path.len() - tag.len() - 1], Some(tag.to_owned())),
            None => (path, None),
        };
        if path.is_empty() {
            return None;
        }
        let repository = if registry == DOCKER_HUB && !path.contains('/') {
            format!("library/{path}")
        } else {
            path.to_owned()
        };
        Some(Reference { registry, repository, tag, digest })
    }

    /// What the manifest is asked by: the digest when pinned, else the tag (`latest` by default).
    pub fn manifest_ref(&self) -> &str {
        self.digest.as_deref().or(self.tag.as_deref()).unwrap_or("latest")
    }

    /// The host the distribution API answers on (Docker Hub's differs from its name).
    pub fn api_host(&self) -> &str {
        if self.registry == DOCKER_HUB { DOCKER_HUB_API } else { &self.registry }
    }

    /// A private ECR registry (`<account>.dkr.ecr.<region>.amazonaws.com`), whose pulls need an
    /// AWS authorization token.
    pub fn is_private_ecr(&self) -> bool {
        self.registry.contains(".dkr.ecr.") && self.registry.ends_with(".amazonaws.com")
    }
}

#[cfg(test)]
mod tests {
    use super::Reference;

    fn parts(image: &str) -> (String, String, Option<String>, Option<String>) {
        let r = Reference::parse(image).unwrap();
        (r.registry, r.repository, r.tag, r.digest)
    }

    #[test]
    fn references_split_as_docker_names_them() {
        let d = "sha256:9f2b";
        assert_eq!(
            parts(&format!("metabase/metabase:v0.50.3@{d}")),
            ("docker.io".into(), "metabase/metabase".into(), Some("v0.50.3".into()), Some(d.into()))
        );
        assert_eq!(
            parts("postgres:16"),
            ("docker.io".into(), "library/postgres".into(), Some("16".into()), None)
        );
        assert_eq!(
            parts(&format!("public.ecr.aws/docker/library/postgres:16-alpine@{d}")),
            (
                "public.ecr.aws".into(),
                "docker/library/postgres".into(),
                Some("16-alpine".into()),
                Some(d.into())
            )
        );
        assert_eq!(
            parts("localhost:5000/team/app"),
            ("localhost:5000".into(), "team/app".into(), None, None)
        );
        let ecr = Reference::parse("123456789012.dkr.ecr.us-east-1.amazonaws.com/app@sha256:1").unwrap();
        assert!(ecr.is_private_ecr());
        assert_eq!(ecr.manifest_ref(), "sha256:1");
        assert_eq!(Reference::parse("docker.io/x").unwrap().api_host(), "registry-1.docker.io");
        assert_eq!(Reference::parse("ghcr.io/"), None);
    }
}
