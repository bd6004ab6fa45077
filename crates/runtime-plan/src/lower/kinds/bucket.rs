//! `kind: bucket`: an S3 bucket, public access blocked, encrypted (SSE-S3), reachable over TLS
//! only, and in production protected from deletion by the deploy. Its lifecycle aborts uploads
//! never completed after a week and, when versioned, deletes a version `keepDays` after it
//! stopped being current.

use compact_str::CompactString;

use super::context::{Cx, NewItem};
use super::protection::{self, ABORT_INCOMPLETE_UPLOADS_DAYS, BUCKET_ENCRYPTION};
use super::resources::Res;
use super::{Described, cat, usage};
use crate::naming::{fit, limit};
use crate::plan::{BucketLifecycle, ItemKind, ItemSpec, S3BucketSpec};
use crate::pricing::Priceable;
use runway_schema::{UsageKey, Versioning};

/// The end of a bucket's name in the account-regional namespace (S3's naming rule).
const ACCOUNT_REGIONAL_SUFFIX: &str = "-an";
/// The length of an AWS account id, which a bucket's name holds.
const ACCOUNT_ID_LEN: usize = 12;

/// A bucket's name in the account-regional namespace, `<head>-<account>-<region>-an`: the
/// head (lower case, cut with its hash so that the whole fits 63 characters) and what follows
/// the account id (`-<region>-an`, the plan's `nameSuffix`). The program composes the whole
/// with the deploying account.
pub(in crate::lower) fn account_regional(head: &str, region: &str) -> (CompactString, CompactString) {
    let name_suffix = cat(&["-", region, ACCOUNT_REGIONAL_SUFFIX]);
    let room = limit(ItemKind::S3Bucket).unwrap_or(63) - 1 - ACCOUNT_ID_LEN - name_suffix.len();
    (fit(&head.to_ascii_lowercase(), room), name_suffix)
}

/// Lowers a bucket resource: the bucket, its name, ARN and region.
pub(in crate::lower) fn lower(cx: &mut Cx, r: &Res, versioning: Option<Versioning>) -> Described {
    let gb = cx.catalogue.bucket_gb(&r.size);
    if gb.is_none() {
        cx.unknown_resource_size(r, "bucket");
    }
    let (name, name_suffix) = account_regional(&cx.base(&r.name), &cx.env.region);
    let spec = ItemSpec::S3Bucket(Box::new(S3BucketSpec {
        resource: r.name.clone(),
        name_suffix,
        versioning: versioning.is_some(),
        lifecycle: BucketLifecycle {
            abort_incomplete_uploads_days: ABORT_INCOMPLETE_UPLOADS_DAYS,
            noncurrent_version_days: versioning.map(|v| v.keep_days),
            expire_days: None,
        },
        block_public_access: true,
        storage_gb: gb,
        encryption: BUCKET_ENCRYPTION.into(),
        tls_only: true,
        protect: protection::protect_bucket(cx.env_name),
    }));
    let bucket = cat(&[&r.name, "_bucket"]);
    let owner_item = (Some(r.name.as_str()), bucket.as_str());
    let declared = usage::declared(cx, Some(&r.name), UsageKey::StorageGb);
    let default = gb.map(|g| (rust_decimal::Decimal::from(g), r.size.as_str()));
    let storage_gb = usage::count(cx, owner_item, UsageKey::StorageGb, declared, default);
    let declared = usage::declared(cx, Some(&r.name), UsageKey::Requests);
    let requests = usage::count(cx, owner_item, UsageKey::Requests, declared, None);
    let id = cx.push(
        NewItem::new(bucket.clone(), name, Some(&r.name), spec).size(&r.size).priced(Priceable::Bucket {
            size: r.size.as_str().into(),
            storage_gb,
            requests,
        }),
    );
    cx.output(r, &id, "bucket", r.var("NAME"));
    cx.output(r, &id, "arn", r.var("ARN"));
    cx.secrets.literal(r, r.var("REGION"), cx.env.region.as_str().into());
    Described {
        engine: "s3".into(),
        version: None,
        summary: summary(storage_gb, gb, versioning.map(|v| v.keep_days)),
    }
}

/// The bucket's size and versioning in words, joined (formatting them was most of a bucket's
/// summary, sixth pass): `50 GB, versioned (old versions kept 30 days)`.
fn summary(declared: Option<rust_decimal::Decimal>, size_gb: Option<u64>, keep_days: Option<u32>) -> String {
    use compact_str::ToCompactString;
    let mut s = String::with_capacity(64);
    match (declared, size_gb) {
        (Some(declared), _) => {
            s.push_str(&declared.normalize().to_compact_string());
            s.push_str(" GB");
        }
        (None, Some(g)) => {
            s.push_str(&g.to_compact_string());
            s.push_str(" GB");
        }
        (None, None) => s.push_str("unknown size"),
    }
    if let Some(days) = keep_days {
        s.push_str(", versioned (old versions kept ");
        s.push_str(&days.to_compact_string());
        s.push_str(" days)");
    }
    s
}
