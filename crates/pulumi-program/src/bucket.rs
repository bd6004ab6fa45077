//! A bucket resource: the S3 bucket, its public access block, its default encryption, its
//! TLS-only policy, its versioning when enabled, and its lifecycle. All but the bucket are
//! companions of the bucket item, not items of the plan.

use runtime_plan::{BucketLifecycle, CompactString, PlannedItem};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Tags};
use super::expr::{ToJson, attr, to_json};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Bucket<'p> {
    bucket: String,
    bucket_namespace: &'static str,
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Encryption<'p> {
    bucket: String,
    rules: [EncryptionRule<'p>; 1],
    region: &'p str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EncryptionRule<'p> {
    apply_server_side_encryption_by_default: EncryptionDefault<'p>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EncryptionDefault<'p> {
    sse_algorithm: &'p str,
}

/// A bucket's policy resource: the bucket, its document, the region (the access-log bucket
/// has a document of its own).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct BucketPolicy<'p, D> {
    /// The bucket's name (an output).
    pub(super) bucket: String,
    /// The policy document, as JSON.
    pub(super) policy: ToJson<D>,
    /// The region of the environment.
    pub(super) region: &'p str,
}

/// The bucket policy's document: one statement denying what is not sent over TLS.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct PolicyDocument {
    version: &'static str,
    statement: [DenyInsecure; 1],
}

/// A statement denying every request to a bucket not sent over TLS.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
pub(super) struct DenyInsecure {
    sid: &'static str,
    effect: &'static str,
    principal: &'static str,
    action: &'static str,
    resource: [String; 2],
    condition: Condition,
}

#[derive(Serialize)]
struct Condition {
    #[serde(rename = "Bool")]
    bool: SecureTransport,
}

#[derive(Serialize)]
struct SecureTransport {
    #[serde(rename = "aws:SecureTransport")]
    secure_transport: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Lifecycle<'p> {
    bucket: String,
    rules: Vec<LifecycleRule>,
    region: &'p str,
}

/// One rule of a lifecycle, over the whole bucket (an empty filter).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LifecycleRule {
    id: &'static str,
    status: &'static str,
    filter: Empty,
    abort_incomplete_multipart_upload: Option<AbortUploads>,
    noncurrent_version_expiration: Option<NoncurrentExpiration>,
    expiration: Option<Expiration>,
}

#[derive(Serialize)]
struct Empty {}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AbortUploads {
    days_after_initiation: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NoncurrentExpiration {
    noncurrent_days: u32,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Expiration {
    days: Option<u32>,
    expired_object_delete_marker: Option<bool>,
}

/// The number of resources a bucket item renders to.
pub(super) fn resources(versioning: bool, block_public_access: bool, tls_only: bool) -> usize {
    // The bucket, its default encryption and its lifecycle, then the optional companions.
    3 + usize::from(versioning) + usize::from(block_public_access) + usize::from(tls_only)
}

/// The lifecycle of bucket `item` as planned: one rule per thing S3 deletes by itself (after
/// its companions `after`: S3 takes one change of a bucket's configuration at a time).
pub(super) fn lifecycle<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    plan: &BucketLifecycle,
    after: &[&str],
) -> Result<(), RenderError> {
    let BucketLifecycle { abort_incomplete_uploads_days, noncurrent_version_days, expire_days } = *plan;
    let rule = |id| LifecycleRule {
        id,
        status: "Enabled",
        filter: Empty {},
        abort_incomplete_multipart_upload: None,
        noncurrent_version_expiration: None,
        expiration: None,
    };
    let mut rules = vec![LifecycleRule {
        abort_incomplete_multipart_upload: Some(AbortUploads {
            days_after_initiation: abort_incomplete_uploads_days,
        }),
        ..rule("abort-incomplete-uploads")
    }];
    if let Some(noncurrent_days) = noncurrent_version_days {
        rules.push(LifecycleRule {
            noncurrent_version_expiration: Some(NoncurrentExpiration { noncurrent_days }),
            // A delete marker whose older versions have all expired goes too.
            expiration: Some(Expiration { days: None, expired_object_delete_marker: Some(true) }),
            ..rule("expire-noncurrent-versions")
        });
    }
    if let Some(days) = expire_days {
        rules.push(LifecycleRule {
            expiration: Some(Expiration { days: Some(days), expired_object_delete_marker: None }),
            ..rule("expire-objects")
        });
    }
    let props = Lifecycle { bucket: attr(&item.id, "id"), rules, region: cx.region() };
    cx.declare_companion_after(
        item,
        "lifecycle",
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
        props,
        after,
    )
}

/// The S3 bucket of `item`, named as planned (its physical name, then `name_suffix`).
pub(super) fn declare_bucket<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    name_suffix: &str,
) -> Result<(), RenderError> {
    // Every bucket is in the account-regional namespace: only this account can create the
    // name (`<physical name>-<account id>-<region>-an`).
    let bucket = format!("{}-{}{name_suffix}", item.physical_name, cx.account());
    let props =
        Bucket { bucket, bucket_namespace: "account-regional", region: cx.region(), tags: cx.tags(item) };
    cx.declare(item, "aws:s3/bucket:Bucket", props)
}

/// The statement of a bucket policy that denies what is not sent over TLS, on the bucket of
/// ARN `arn` (an expression) and its objects.
pub(super) fn deny_insecure(arn: &str) -> DenyInsecure {
    DenyInsecure {
        sid: "DenyInsecureTransport",
        effect: "Deny",
        principal: "*",
        action: "s3:*",
        resource: [arn.to_owned(), format!("{arn}/*")],
        condition: Condition { bool: SecureTransport { secure_transport: "false" } },
    }
}

/// Bucket `item`'s public access block: every public ACL and policy refused.
pub(super) fn public_access_block<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
) -> Result<(), RenderError> {
    let block = PublicAccessBlock {
        bucket: attr(&item.id, "id"),
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
    )
}

/// Bucket `item`'s default encryption of new objects (`AES256`: SSE-S3).
pub(super) fn encryption<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    sse_algorithm: &'p str,
) -> Result<(), RenderError> {
    let sse = Encryption {
        bucket: attr(&item.id, "id"),
        rules: [EncryptionRule {
            apply_server_side_encryption_by_default: EncryptionDefault { sse_algorithm },
        }],
        region: cx.region(),
    };
    cx.declare_companion(
        item,
        "encryption",
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
        sse,
    )
}

/// The bucket, then its companions.
#[allow(clippy::too_many_arguments)] // reason: the spec's fields, destructured by the dispatcher (`items.rs`)
pub(super) fn bucket<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    name_suffix: &'p CompactString,
    versioning: &'p bool,
    plan: &'p BucketLifecycle,
    block_public_access: &'p bool,
    encryption_algorithm: &'p CompactString,
    tls_only: &'p bool,
) -> Result<(), RenderError> {
    declare_bucket(cx, item, name_suffix)?;
    // The bucket's own id: companions are declared with it and need no `dependsOn`.
    let bucket = attr(&item.id, "id");
    if *block_public_access {
        public_access_block(cx, item)?;
    }
    encryption(cx, item, encryption_algorithm)?;
    if *tls_only {
        let arn = attr(&item.id, "arn");
        let policy = BucketPolicy {
            bucket: bucket.clone(),
            policy: to_json(PolicyDocument { version: "2012-10-17", statement: [deny_insecure(&arn)] }),
            region: cx.region(),
        };
        // After the public access block: S3 takes one change of a bucket's policy settings at a time.
        let after: &[&str] = if *block_public_access { &["public-access-block"] } else { &[] };
        cx.declare_companion_after(
            item,
            "tls-only-policy",
            "aws:s3/bucketPolicy:BucketPolicy",
            policy,
            after,
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
    lifecycle(cx, item, plan, if *versioning { &["versioning"] } else { &[] })
}
