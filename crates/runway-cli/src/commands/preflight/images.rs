//! The images: each pinned digest in its registry, offering the task's platform. Pull
//! credentials are read where `secrets prepare` put them (Secrets Manager).

use aws_adapter::aws::AwsClients;
use image_registry::{Access, Reference, Registries};
use runtime_plan::preflight::Expectations;
use runtime_plan::{Finding, preflight::ImageExpectation};

use crate::output::chain;

/// The findings of every image of the plan.
pub(crate) async fn check(
    expected: &Expectations,
    aws: Option<&AwsClients>,
    registries: &Registries,
) -> Vec<Finding> {
    let mut images = Vec::with_capacity(expected.images.len());
    for image in &expected.images {
        images.push((image.clone(), access(image, aws).await));
    }
    image_registry::check_images(registries, images).await
}

/// How the image is pulled: anonymously, with the credentials its secret holds, or with an
/// authorization token of its private ECR registry.
async fn access(image: &ImageExpectation, aws: Option<&AwsClients>) -> Access {
    let ecr = Reference::parse(&image.image).filter(Reference::is_private_ecr);
    if let (None, Some(reference)) = (&image.credentials, ecr) {
        let Some(aws) = aws else {
            return Access::Unavailable {
                reason: "private ECR's authorization token is not read without AWS (--no-aws)".into(),
            };
        };
        return match aws.ecr_token(&reference.registry).await {
            Ok(Some(token)) => Access::BasicToken { token },
            Ok(None) => Access::Unavailable {
                reason: format!("ECR gave no authorization token for {}", reference.registry),
            },
            Err(e) => Access::Unavailable {
                reason: format!("cannot get an ECR authorization token: {}", chain(&e)),
            },
        };
    }
    let Some(secret) = &image.credentials else { return Access::Anonymous };
    let Some(aws) = aws else {
        return Access::Unavailable {
            reason: format!(
                "its pull credentials (Secrets Manager `{secret}`) are not read without AWS (--no-aws)"
            ),
        };
    };
    match aws.pull_credentials(secret).await {
        Ok(c) => Access::Basic { username: c.username, password: c.password },
        Err(e) => Access::Unavailable { reason: format!("cannot read its pull credentials: {}", chain(&e)) },
    }
}
