//! The ALB's log bucket (production): the S3 bucket, its public access block, its default
//! encryption (SSE-S3), its policy (log delivery may put objects under `AWSLogs/`; nothing
//! without TLS), and its lifecycle. All but the bucket are companions of the item; the ALB
//! waits for the policy.

use runtime_plan::{BucketLifecycle, CompactString, LogDelivery, PlannedItem};
use serde::Serialize;

use super::RenderError;
use super::bucket::{self, BucketPolicy, DenyInsecure};
use super::context::{Context, unsupported};
use super::expr::{attr, to_json};

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct PolicyDocument {
    version: &'static str,
    statement: (AllowDelivery, DenyInsecure),
}

/// Log delivery may put objects under `AWSLogs/`.
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct AllowDelivery {
    sid: &'static str,
    effect: &'static str,
    principal: Principal,
    action: &'static str,
    resource: String,
}

#[derive(Serialize)]
enum Principal {
    /// The region's Elastic Load Balancing account (`arn:aws:iam::<id>:root`).
    #[serde(rename = "AWS")]
    Account(String),
    /// The log delivery service.
    Service(String),
}

/// The number of resources the log bucket renders to: the bucket, its public access block,
/// encryption, policy and lifecycle.
pub(super) const RESOURCES: usize = 5;

/// The log bucket, then its companions.
#[allow(clippy::too_many_arguments)] // reason: the spec's fields, destructured by the dispatcher (`items.rs`)
pub(super) fn log_bucket<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    name_suffix: &'p CompactString,
    block_public_access: &'p bool,
    encryption: &'p CompactString,
    tls_only: &'p bool,
    lifecycle: &'p BucketLifecycle,
    log_delivery: &'p LogDelivery,
) -> Result<(), RenderError> {
    if !(*block_public_access && *tls_only) {
        // The plan always blocks public access and requires TLS; a log bucket without either is
        // not one runway makes.
        return Err(unsupported(item, "a log bucket is always private and TLS-only"));
    }
    bucket::declare_bucket(cx, item, name_suffix)?;
    bucket::public_access_block(cx, item)?;
    bucket::encryption(cx, item, encryption)?;
    let arn = attr(&item.id, "arn");
    let principal = match log_delivery {
        LogDelivery::Account { account_id } => Principal::Account(format!("arn:aws:iam::{account_id}:root")),
        LogDelivery::Service { principal } => Principal::Service(principal.to_string()),
    };
    let allow = AllowDelivery {
        sid: "AllowAlbLogDelivery",
        effect: "Allow",
        principal,
        action: "s3:PutObject",
        resource: format!("{arn}/AWSLogs/*"),
    };
    let policy = BucketPolicy {
        bucket: attr(&item.id, "id"),
        policy: to_json(PolicyDocument {
            version: "2012-10-17",
            statement: (allow, bucket::deny_insecure(&arn)),
        }),
        region: cx.region(),
    };
    // After the public access block: S3 takes one change of a bucket's policy settings at a time.
    cx.declare_companion_after(
        item,
        "policy",
        "aws:s3/bucketPolicy:BucketPolicy",
        policy,
        &["public-access-block"],
    )?;
    cx.guarded_by(item, "policy");
    bucket::lifecycle(cx, item, lifecycle, &[])
}
