//! A bucket resource: the S3 bucket, its public access block, its default encryption, its
//! TLS-only policy, and its versioning when enabled. All but the bucket are companions of the
//! bucket item, not items of the plan.

use runtime_plan::{ItemSpec, PlannedItem};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Tags, wrong_spec};
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

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BucketPolicy<'p> {
    bucket: String,
    policy: ToJson<PolicyDocument>,
    region: &'p str,
}

/// The bucket policy's document: one statement denying what is not sent over TLS.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct PolicyDocument {
    version: &'static str,
    statement: [DenyInsecure; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct DenyInsecure {
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

/// The number of resources a bucket item renders to.
pub(super) fn resources(versioning: bool, block_public_access: bool, tls_only: bool) -> usize {
    // The bucket and its default encryption, then the optional companions.
    2 + usize::from(versioning) + usize::from(block_public_access) + usize::from(tls_only)
}

/// The bucket, then its companions.
pub(super) fn bucket<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let ItemSpec::S3Bucket { name_suffix, versioning, block_public_access, encryption, tls_only, .. } =
        &item.spec
    else {
        return Err(wrong_spec(item));
    };
    // The account-regional namespace: only this account can create the name
    // (`<physical name>-<account id>-<region>-an`).
    let props = Bucket {
        bucket: format!("{}-{}{name_suffix}", item.physical_name, cx.account()),
        bucket_namespace: "account-regional",
        region: cx.region(),
        tags: cx.tags(item),
    };
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
    let sse = Encryption {
        bucket: bucket.clone(),
        rules: [EncryptionRule {
            apply_server_side_encryption_by_default: EncryptionDefault { sse_algorithm: encryption },
        }],
        region: cx.region(),
    };
    cx.declare_companion(
        item,
        "encryption",
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
        sse,
    )?;
    if *tls_only {
        let arn = attr(&item.id, "arn");
        let policy = BucketPolicy {
            bucket: bucket.clone(),
            policy: to_json(PolicyDocument {
                version: "2012-10-17",
                statement: [DenyInsecure {
                    sid: "DenyInsecureTransport",
                    effect: "Deny",
                    principal: "*",
                    action: "s3:*",
                    resource: [arn.clone(), format!("{arn}/*")],
                    condition: Condition { bool: SecureTransport { secure_transport: "false" } },
                }],
            }),
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
    Ok(())
}
