//! The images: each pinned digest in its registry, offering the task's platform. Pull
//! credentials are read where `secrets prepare` put them (Secrets Manager).

use aws_adapter::aws::AwsClients;
use image_registry::{Access, Registries};
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

/// How the image is pulled: anonymously, or with the credentials its secret holds.
async fn access(image: &ImageExpectation, aws: Option<&AwsClients>) -> Access {
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
