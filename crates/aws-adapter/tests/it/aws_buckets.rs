//! A preview's buckets emptied against a real moto server: every object version and delete
//! marker over more than one page of `ListObjectVersions` (1000 entries), then S3 deletes the
//! bucket; a bucket gone is `gone`; a bucket that is not the preview's is refused before any
//! call; a leftover bucket is emptied and deleted.

use crate::aws_support;

use aws_adapter::aws::EmptyError;
use aws_support::clients;
use test_support::Moto;

const BUCKET: &str = "acme-shop-pr-7-uploads-123456789012-us-east-1-an";

/// A versioned bucket holding `n` versions of one key, a delete marker on it, and one more
/// object: `n + 2` entries to delete.
fn filled(moto: &Moto, bucket: &str, n: usize) {
    let script = format!(
        "import boto3\n\
         s3 = boto3.client('s3')\n\
         s3.create_bucket(Bucket='{bucket}')\n\
         s3.put_bucket_versioning(Bucket='{bucket}', VersioningConfiguration={{'Status': 'Enabled'}})\n\
         for i in range({n}):\n    s3.put_object(Bucket='{bucket}', Key='k', Body=str(i).encode())\n\
         s3.delete_object(Bucket='{bucket}', Key='k')\n\
         s3.put_object(Bucket='{bucket}', Key='other', Body=b'x')\n"
    );
    moto.python(&script, &[]);
}

/// What the bucket still holds (versions and markers), or `gone`.
fn left(moto: &Moto, bucket: &str) -> String {
    let script = format!(
        "import boto3\n\
         s3 = boto3.client('s3')\n\
         try:\n    pages = list(s3.get_paginator('list_object_versions').paginate(Bucket='{bucket}'))\n\
         except s3.exceptions.NoSuchBucket:\n    print('gone'); raise SystemExit\n\
         print(sum(len(p.get('Versions', [])) + len(p.get('DeleteMarkers', [])) for p in pages))"
    );
    String::from_utf8(moto.python(&script, &[])).unwrap().trim().to_owned()
}

#[tokio::test]
async fn every_version_over_pages_is_deleted_and_then_the_bucket_can_go() {
    let moto = Moto::start();
    let aws = clients(&moto.url()).await;
    filled(&moto, BUCKET, 1100);
    assert_eq!(left(&moto, BUCKET), "1102");

    let emptied = aws.empty_preview_bucket("pr-7", BUCKET).await.unwrap();
    assert_eq!((emptied.deleted, emptied.outcome), (1102, "emptied"));
    assert_eq!(left(&moto, BUCKET), "0");
    // Empty now: S3 deletes it (what Pulumi's destroy then does).
    moto.python(&format!("import boto3\nboto3.client('s3').delete_bucket(Bucket='{BUCKET}')\n"), &[]);
    let again = aws.empty_preview_bucket("pr-7", BUCKET).await.unwrap();
    assert_eq!((again.deleted, again.outcome), (0, "gone"));
}

#[tokio::test]
async fn a_bucket_not_the_previews_is_refused_and_a_leftover_is_deleted() {
    let moto = Moto::start();
    let aws = clients(&moto.url()).await;
    let dev = "acme-shop-dev-uploads-123456789012-us-east-1-an";
    filled(&moto, dev, 2);
    for preview in ["pr-7", "pr-70"] {
        let refused = aws.empty_preview_bucket(preview, dev).await.unwrap_err();
        assert!(matches!(refused, EmptyError::NotThePreviews { .. }), "{refused}");
        let refused = aws.delete_preview_bucket(preview, dev).await.unwrap_err();
        assert!(refused.to_string().contains("not emptied"), "{refused}");
    }
    assert_eq!(left(&moto, dev), "4", "dev's bucket is untouched");
    // pr-7's name does not make pr-70's bucket its own.
    let other = "acme-shop-pr-70-uploads-123456789012-us-east-1-an";
    filled(&moto, other, 1);
    assert!(aws.empty_preview_bucket("pr-7", other).await.is_err());

    filled(&moto, BUCKET, 3);
    assert_eq!(aws.delete_preview_bucket("pr-7", BUCKET).await.unwrap(), "deleted");
    assert_eq!(left(&moto, BUCKET), "gone");
    assert_eq!(aws.delete_preview_bucket("pr-7", BUCKET).await.unwrap(), "gone");
}
