//! Pull request previews in the account (`runway preview up|down|list|sweep`,
//! docs/previews.md): found by their tags through the Resource Groups Tagging API, never by
//! a file that can drift; each preview's record (an SSM parameter holding its creation time
//! and estimate in its tags), written before anything else of it; and what `down` removes
//! outside the stack: the parameters under its prefix and whatever still carries its tag.
//!
//! Only resources tagged `runway-preview: pr-<n>` with the product's `product` tag, or
//! parameters under the preview's own prefix, are ever deleted here.

use aws_sdk_resourcegroupstagging::types::TagFilter;
use aws_sdk_ssm::types::{ParameterType, Tag};
use serde::Serialize;

use super::{AwsClients, RemoteError};

/// The tag naming a preview (`pr-7`), with `product`.
pub const PREVIEW_TAG: &str = "runway-preview";
/// The record's tag: when the preview's first `up` began (seconds since the epoch).
pub const CREATED_TAG: &str = "runway-preview-created";
/// The record's tag: the preview's monthly estimate when it last went up (`38.77`).
pub const MONTHLY_TAG: &str = "runway-preview-monthly";
/// The record's name under the preview's SSM prefix.
pub const RECORD: &str = "runway/preview";

/// One resource carrying a preview's tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaggedResource {
    /// Its ARN.
    pub arn: String,
    /// The preview it belongs to (the tag's value).
    pub preview: String,
    /// Its tags.
    pub tags: Vec<(String, String)>,
}

impl TaggedResource {
    /// A tag's value.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Whether this is a preview's record (an SSM parameter named `.../runway/preview`).
    pub fn is_record(&self) -> bool {
        self.arn.starts_with("arn:aws:ssm:") && self.arn.ends_with(&format!("/{RECORD}"))
    }
}

/// A preview's record as `up` writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewRecord {
    /// The record parameter's name (`<prefix>/runway/preview`).
    pub parameter: String,
    /// `product`, `environment`, `runway-preview`, `runway-preview-from`, `resource`, the
    /// creation time and the estimate.
    pub tags: Vec<(String, String)>,
}

/// What removing one resource did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Removed {
    /// The ARN or the parameter's name.
    pub what: String,
    /// `deleted`, `gone` (already), or `left` (a type runway does not delete: Pulumi's
    /// `destroy` does, or a person).
    pub outcome: &'static str,
}

impl AwsClients {
    /// Every resource of `product` carrying the preview tag, any value (all pages).
    pub async fn preview_resources(&self, product: &str) -> Result<Vec<TaggedResource>, RemoteError> {
        let filters = [
            TagFilter::builder().key("product").values(product).build(),
            TagFilter::builder().key(PREVIEW_TAG).build(),
        ];
        let mut out = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let answer = self
                .tagging
                .get_resources()
                .set_tag_filters(Some(filters.to_vec()))
                .set_pagination_token(token.clone())
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("GetResources", e))?;
            for mapping in answer.resource_tag_mapping_list() {
                let tags: Vec<(String, String)> =
                    mapping.tags().iter().map(|t| (t.key().to_owned(), t.value().to_owned())).collect();
                let Some(preview) = tags.iter().find(|(k, _)| k == PREVIEW_TAG).map(|(_, v)| v.clone())
                else {
                    continue;
                };
                let arn = mapping.resource_arn().unwrap_or_default().to_owned();
                out.push(TaggedResource { arn, preview, tags });
            }
            token = answer.pagination_token().filter(|t| !t.is_empty()).map(str::to_owned);
            if token.is_none() {
                break;
            }
        }
        out.sort_by(|a, b| (&a.preview, &a.arn).cmp(&(&b.preview, &b.arn)));
        // A deleted ECS service stays `INACTIVE` (and tagged) for a while: it is gone.
        let mut kept = Vec::with_capacity(out.len());
        for r in out {
            if !self.inactive_service(&r.arn).await? {
                kept.push(r);
            }
        }
        Ok(kept)
    }

    /// Whether `arn` is an ECS service ECS reports `INACTIVE` (deleted).
    async fn inactive_service(&self, arn: &str) -> Result<bool, RemoteError> {
        let Some((cluster, _)) = arn.split_once(":service/").and_then(|(_, path)| path.split_once('/'))
        else {
            return Ok(false);
        };
        let answer = self
            .ecs
            .describe_services()
            .cluster(cluster)
            .services(arn)
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("DescribeServices", e))?;
        Ok(answer.services().iter().all(|s| s.status() == Some("INACTIVE")))
    }

    /// Writes (or rewrites) a preview's record: a `String` parameter whose value says what it
    /// is, its facts in its tags.
    pub async fn put_preview_record(&self, record: &PreviewRecord) -> Result<(), RemoteError> {
        let value = "a runway preview's record: its creation time and estimate are its tags";
        self.ssm
            .put_parameter()
            .name(&record.parameter)
            .value(value)
            .r#type(ParameterType::String)
            .overwrite(true)
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("PutParameter", e))?;
        let tags: Vec<Tag> =
            (record.tags.iter()).filter_map(|(k, v)| Tag::builder().key(k).value(v).build().ok()).collect();
        self.ssm
            .add_tags_to_resource()
            .resource_type(aws_sdk_ssm::types::ResourceTypeForTagging::Parameter)
            .resource_id(&record.parameter)
            .set_tags(Some(tags))
            .send()
            .await
            .map_err(|e| RemoteError::from_sdk("AddTagsToResource", e))?;
        Ok(())
    }

    /// Deletes every parameter under `prefix` (a preview's own, `<from>/previews/pr-<n>`),
    /// the record last; gone already is no failure.
    pub async fn delete_preview_parameters(&self, prefix: &str) -> Result<Vec<Removed>, RemoteError> {
        let mut names = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let answer = self
                .ssm
                .get_parameters_by_path()
                .path(prefix)
                .recursive(true)
                .set_next_token(token.clone())
                .send()
                .await
                .map_err(|e| RemoteError::from_sdk("GetParametersByPath", e))?;
            names.extend(answer.parameters().iter().filter_map(|p| p.name().map(str::to_owned)));
            token = answer.next_token().map(str::to_owned);
            if token.is_none() {
                break;
            }
        }
        // The record goes last: a `down` stopped before it still shows the preview.
        names.sort_by_key(|n| (n.ends_with(&format!("/{RECORD}")), n.clone()));
        let mut out = Vec::new();
        for name in names {
            out.push(self.delete_parameter_named(&name).await?);
        }
        Ok(out)
    }

    /// Deletes the queue `name` of `account`: `deleted`, or `gone` when it does not exist.
    async fn delete_queue(&self, account: &str, name: &str) -> Result<&'static str, RemoteError> {
        let url = self.sqs.get_queue_url().queue_name(name).queue_owner_aws_account_id(account).send().await;
        let url = match url {
            Ok(answer) => answer.queue_url().unwrap_or_default().to_owned(),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_queue_does_not_exist()) => return Ok("gone"),
            Err(e) => return Err(RemoteError::from_sdk("GetQueueUrl", e)),
        };
        match self.sqs.delete_queue().queue_url(url).send().await {
            Ok(_) => Ok("deleted"),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_queue_does_not_exist()) => Ok("gone"),
            Err(e) => Err(RemoteError::from_sdk("DeleteQueue", e)),
        }
    }

    async fn delete_parameter_named(&self, name: &str) -> Result<Removed, RemoteError> {
        match self.ssm.delete_parameter().name(name).send().await {
            Ok(_) => Ok(Removed { what: name.to_owned(), outcome: "deleted" }),
            Err(e) if e.as_service_error().is_some_and(|s| s.is_parameter_not_found()) => {
                Ok(Removed { what: name.to_owned(), outcome: "gone" })
            }
            Err(e) => Err(RemoteError::from_sdk("DeleteParameter", e)),
        }
    }

    /// Deletes one resource a preview's tag names, by its ARN's service: an SSM parameter, a
    /// Secrets Manager secret (without recovery), an ECS service (forced) or task definition
    /// (deregistered, then deleted), an S3 bucket (emptied, then deleted), an SQS queue; any
    /// other type is `left` for Pulumi's `destroy`.
    pub async fn delete_tagged(&self, resource: &TaggedResource) -> Result<Removed, RemoteError> {
        let arn = resource.arn.as_str();
        let parts: Vec<&str> = arn.splitn(6, ':').collect();
        let (service, rest) = match parts.as_slice() {
            [_, _, service, _, _, rest] => (*service, *rest),
            _ => return Ok(Removed { what: arn.to_owned(), outcome: "left" }),
        };
        let done = |outcome| Ok(Removed { what: arn.to_owned(), outcome });
        match (service, rest.split_once('/')) {
            ("ssm", Some(("parameter", name))) => {
                let removed = self.delete_parameter_named(&format!("/{name}")).await?;
                Ok(Removed { what: arn.to_owned(), ..removed })
            }
            ("secretsmanager", _) => {
                let call = self.secrets.delete_secret().secret_id(arn).force_delete_without_recovery(true);
                match call.send().await {
                    Ok(_) => done("deleted"),
                    Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception()) => {
                        done("gone")
                    }
                    Err(e) => Err(RemoteError::from_sdk("DeleteSecret", e)),
                }
            }
            ("ecs", Some(("service", path))) => {
                let (cluster, name) = path.split_once('/').unwrap_or(("default", path));
                let call = self.ecs.delete_service().cluster(cluster).service(name).force(true);
                match call.send().await {
                    Ok(_) => done("deleted"),
                    Err(e)
                        if e.as_service_error().is_some_and(|s| {
                            s.is_service_not_found_exception() || s.is_cluster_not_found_exception()
                        }) =>
                    {
                        done("gone")
                    }
                    Err(e) => Err(RemoteError::from_sdk("DeleteService", e)),
                }
            }
            // A leftover bucket (emptied first); one whose name is not the preview's is left.
            ("s3", _) => match self.delete_preview_bucket(&resource.preview, rest).await {
                Ok(outcome) => done(outcome),
                Err(super::EmptyError::NotThePreviews { .. }) => done("left"),
                Err(super::EmptyError::Remote(e)) => Err(e),
            },
            // A leftover queue (`arn:aws:sqs:<region>:<account>:<name>`): by its URL.
            ("sqs", None) => self.delete_queue(parts[4], rest).await.map(done)?,
            ("ecs", Some(("task-definition", _))) => {
                // Deregistered first (deleting needs it); either may find it gone.
                let _ = self.ecs.deregister_task_definition().task_definition(arn).send().await;
                self.ecs
                    .delete_task_definitions()
                    .task_definitions(arn)
                    .send()
                    .await
                    .map_err(|e| RemoteError::from_sdk("DeleteTaskDefinitions", e))?;
                done("deleted")
            }
            _ => done("left"),
        }
    }
}
