//! Emptying a pull request preview's own buckets before its stack is destroyed (`runway preview
//! down`, docs/previews.md): S3 refuses to delete a bucket that holds anything (`BucketNotEmpty`),
//! and a versioned bucket holds every version of every object and every delete marker. The
//! versions are listed a page at a time (`ListObjectVersions`, at most 1000 entries) and each
//! page deleted by version in one `DeleteObjects` call, then the first page listed again, until
//! a listing is empty (a page's markers would name versions just deleted).
//!
//! Which buckets is the caller's decision (the preview's plan: its own buckets, never a shared
//! or a declared environment's); here a bucket whose name does not carry the preview's name
//! (`-pr-<n>-`) is refused before any call. `runway teardown` never empties a bucket
//! (docs/operations.md, "Teardown": buckets with objects are kept).

use aws_sdk_s3::error::ProvideErrorMetadata;
use aws_sdk_s3::types::{Delete, ObjectIdentifier};

use super::{AwsClients, RemoteError};

/// What emptying one bucket did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BucketEmptied {
    /// The bucket's name.
    pub bucket: String,
    /// Object versions and delete markers deleted.
    pub deleted: usize,
    /// `emptied`, or `gone` when the bucket does not exist (a `down` run again).
    pub outcome: &'static str,
}

/// The bucket was not a preview's: refused before any call.
#[derive(Debug, thiserror::Error)]
pub enum EmptyError {
    /// The name does not carry the preview's name.
    #[error("bucket {bucket} is not preview {preview}'s (its name lacks `-{preview}-`): not emptied")]
    NotThePreviews {
        /// The bucket asked for.
        bucket: String,
        /// The preview, `pr-7`.
        preview: String,
    },
    /// An S3 call failed (or refused to delete a version).
    #[error(transparent)]
    Remote(#[from] RemoteError),
}

impl AwsClients {
    /// Deletes every object version and delete marker of `bucket`, a bucket of `preview`
    /// (`pr-7`), page by page; a bucket that does not exist is `gone`.
    pub async fn empty_preview_bucket(
        &self,
        preview: &str,
        bucket: &str,
    ) -> Result<BucketEmptied, EmptyError> {
        if !bucket.contains(&format!("-{preview}-")) {
            return Err(EmptyError::NotThePreviews {
                bucket: bucket.to_owned(),
                preview: preview.to_owned(),
            });
        }
        let mut deleted = 0;
        // Each page is listed from the start again once the one before is deleted: a marker
        // naming a version just deleted is no place to go on from.
        loop {
            let page = match self.s3.list_object_versions().bucket(bucket).send().await {
                Ok(page) => page,
                Err(e) if e.code() == Some("NoSuchBucket") => {
                    return Ok(BucketEmptied { bucket: bucket.to_owned(), deleted, outcome: "gone" });
                }
                Err(e) => return Err(RemoteError::from_sdk("ListObjectVersions", e).into()),
            };
            let versions = page.versions().iter().map(|v| (v.key(), v.version_id()));
            let markers = page.delete_markers().iter().map(|m| (m.key(), m.version_id()));
            let objects: Vec<ObjectIdentifier> = versions
                .chain(markers)
                .filter_map(|(k, v)| {
                    // An unversioned object is listed with the version `null`, which deletes it.
                    ObjectIdentifier::builder().key(k?).version_id(v.unwrap_or("null")).build().ok()
                })
                .collect();
            if objects.is_empty() {
                return Ok(BucketEmptied { bucket: bucket.to_owned(), deleted, outcome: "emptied" });
            }
            deleted += self.delete_versions(bucket, objects).await?;
        }
    }

    /// A leftover bucket of `preview` (tagged as its, no stack holds it): emptied, then
    /// deleted; `gone` when it does not exist.
    pub async fn delete_preview_bucket(
        &self,
        preview: &str,
        bucket: &str,
    ) -> Result<&'static str, EmptyError> {
        if self.empty_preview_bucket(preview, bucket).await?.outcome == "gone" {
            return Ok("gone");
        }
        match self.s3.delete_bucket().bucket(bucket).send().await {
            Ok(_) => Ok("deleted"),
            Err(e) if e.code() == Some("NoSuchBucket") => Ok("gone"),
            Err(e) => Err(RemoteError::from_sdk("DeleteBucket", e).into()),
        }
    }

    /// One page's versions deleted (`quiet`: only failures are answered); any failure fails.
    async fn delete_versions(
        &self,
        bucket: &str,
        objects: Vec<ObjectIdentifier>,
    ) -> Result<usize, RemoteError> {
        let count = objects.len();
        if count == 0 {
            return Ok(0);
        }
        let delete =
            Delete::builder().set_objects(Some(objects)).quiet(true).build().map_err(|e| RemoteError {
                operation: "DeleteObjects",
                code: None,
                message: Some(e.to_string()),
                remedy: None,
                cause: None,
            })?;
        let answer = (self.s3.delete_objects().bucket(bucket).delete(delete).send().await)
            .map_err(|e| RemoteError::from_sdk("DeleteObjects", e))?;
        if let Some(first) = answer.errors().first() {
            return Err(RemoteError {
                operation: "DeleteObjects",
                code: first.code().map(str::to_owned),
                message: Some(format!(
                    "{} of {count} versions not deleted from {bucket}, the first {}: {}",
                    answer.errors().len(),
                    first.key().unwrap_or("?"),
                    first.message().unwrap_or("no message")
                )),
                remedy: None,
                cause: None,
            });
        }
        Ok(count)
    }
}
