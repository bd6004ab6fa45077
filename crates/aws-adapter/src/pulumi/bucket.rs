//! A bucket resource: the S3 bucket, its public access block, and its versioning when enabled.
//! The last two are companions of the bucket item, not items of the plan.

use runtime_plan::{ItemSpec, PlannedItem};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Tags, wrong_spec};
use super::expr::attr;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Bucket<'p> {
    bucket: &'p str,
    region: &'p str,
    tags: Tags<'p>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PublicAccessBlock<'p> {
    bucket: String,
    block_public_acls: bool,
    block_public_policy: bool,
    ignore_public_acls: bool,
    restrict_public_buckets: bool,
    region: &'p str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Versioning<'p> {
    bucket: String,
    versioning_configuration: VersioningConfiguration,
    region: &'p str,
}

#[derive(Serialize)]
struct VersioningConfiguration {
    status: &'static str,
}

/// The number of resources a bucket item renders to.
pub(super) fn resources(versioning: bool, block_public_access: bool) -> usize {
    1 + usize::from(versioning) + usize::from(block_public_access)
}

/// The bucket, then its companions.
pub(super) fn bucket<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let ItemSpec::S3Bucket { versioning, block_public_access, .. } = &item.spec else {
        return Err(wrong_spec(item));
    };
    let props = Bucket { bucket: &item.physical_name, region: cx.region(), tags: cx.tags(item) };
    cx.declare(item, "aws:s3/bucket:Bucket", props)?;
    // The bucket's own id: companions are declared with it and need no `dependsOn`.
    let bucket = attr(&item.id, "id");
    if *block_public_access {
        let block = PublicAccessBlock {
            bucket: bucket.clone(),
            block_public_acls: true,
            block_public_policy: true,
            ignore_public_acls: true,
            restrict_public_buckets: true,
            region: cx.region(),
        };
        cx.declare_companion(
            item,
            "public-access-block",
            "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock",
            block,
        )?;
    }
    if *versioning {
        let versioning = Versioning {
            bucket,
            versioning_configuration: VersioningConfiguration { status: "Enabled" },
            region: cx.region(),
        };
        cx.declare_companion(item, "versioning", "aws:s3/bucketVersioning:BucketVersioning", versioning)?;
    }
    Ok(())
}
