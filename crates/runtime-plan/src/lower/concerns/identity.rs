//! Identity: each workload's two IAM roles, each granted exactly what the plan derives for it
//! and nothing else.
//!
//! - The task role (what the containers run as), by the `uses` mode: per used queue, the five
//!   message actions (`read`: the four that consume, no `sqs:SendMessage`) on the queue and its
//!   dead-letter queue; per used topic, `sns:Publish` on it; per used bucket, `s3:ListBucket`
//!   on it and object get/put/delete under it (`read`: `s3:GetObject` only). Postgres and
//!   caches authenticate with passwords, so they grant nothing here.
//!   A workload with `exec: true` also gets the four Session Manager channel actions ECS Exec
//!   uses, on `*` (they name no resource).
//! - The execution role (what the ECS agent uses to start the task): `logs:CreateLogStream`
//!   and `logs:PutLogEvents` on the streams of its own log group (the `awslogs` driver);
//!   `ssm:GetParameters` on exactly the parameters its task definition references and
//!   `kms:Decrypt` on their key;
//!   for an image on ECR, the pull actions on its repository and `ecr:GetAuthorizationToken`,
//!   the one action AWS authorizes on no resource (`*`); for an image whose registry needs
//!   credentials (`registryCredentials`), `secretsmanager:GetSecretValue` on exactly that
//!   secret. Other images are pulled anonymously and need nothing.
//!
//! No action is a wildcard; the renderer turns each [`PolicyResource`] into an ARN.

use std::sync::Arc;

use compact_str::CompactString;
use runway_schema::Access;

use super::cat;
use super::context::{Cx, NewItem};
use crate::plan::{Grant, ItemKind, ItemSpec, PlannedItem, PolicyResource, UsedThrough};

/// What a workload's task uses on a queue (its dead-letter queue too).
pub(in crate::lower) const QUEUE_ACTIONS: [&str; 5] = [
    "sqs:ChangeMessageVisibility",
    "sqs:DeleteMessage",
    "sqs:GetQueueAttributes",
    "sqs:ReceiveMessage",
    "sqs:SendMessage",
];
/// What a workload's task uses on a queue it reads (consumes) only.
pub(in crate::lower) const QUEUE_READ_ACTIONS: [&str; 4] =
    ["sqs:ChangeMessageVisibility", "sqs:DeleteMessage", "sqs:GetQueueAttributes", "sqs:ReceiveMessage"];
/// What a workload's task uses on a topic.
pub(in crate::lower) const TOPIC_ACTIONS: [&str; 1] = ["sns:Publish"];
/// What a workload's task uses on a bucket itself.
pub(in crate::lower) const BUCKET_ACTIONS: [&str; 1] = ["s3:ListBucket"];
/// What a workload's task uses on the objects of a bucket.
pub(in crate::lower) const OBJECT_ACTIONS: [&str; 3] = ["s3:DeleteObject", "s3:GetObject", "s3:PutObject"];
/// What a workload's task uses on the objects of a bucket it reads only.
pub(in crate::lower) const OBJECT_READ_ACTIONS: [&str; 1] = ["s3:GetObject"];
/// What the `awslogs` driver uses, through the execution role, on the workload's log group.
pub(in crate::lower) const LOG_ACTIONS: [&str; 2] = ["logs:CreateLogStream", "logs:PutLogEvents"];
/// What the execution role uses on the parameters of its task definition.
pub(in crate::lower) const PARAMETER_ACTIONS: [&str; 1] = ["ssm:GetParameters"];
/// What ECS Exec uses, through the task role, to open its Session Manager channels; AWS
/// authorizes them on no resource, so they are granted on `*`.
pub(in crate::lower) const EXEC_ACTIONS: [&str; 4] = [
    "ssmmessages:CreateControlChannel",
    "ssmmessages:CreateDataChannel",
    "ssmmessages:OpenControlChannel",
    "ssmmessages:OpenDataChannel",
];
/// What the execution role uses on the parameters' key.
pub(in crate::lower) const KEY_ACTIONS: [&str; 1] = ["kms:Decrypt"];
/// The ECR token: AWS authorizes it on no resource, so it is granted on `*`.
pub(in crate::lower) const ECR_TOKEN_ACTIONS: [&str; 1] = ["ecr:GetAuthorizationToken"];
/// What pulling an image from a private registry uses on its credentials' secret.
pub(in crate::lower) const SECRET_ACTIONS: [&str; 1] = ["secretsmanager:GetSecretValue"];
/// What pulling an image uses on its ECR repository.
pub(in crate::lower) const ECR_PULL_ACTIONS: [&str; 3] =
    ["ecr:BatchCheckLayerAvailability", "ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer"];

/// A workload's roles, by logical id.
pub(in crate::lower) struct Roles {
    pub(in crate::lower) execution: CompactString,
    /// None when nothing is granted: no credentials at all.
    pub(in crate::lower) task: Option<CompactString>,
}

/// What one workload's roles are granted from.
pub(in crate::lower) struct Identity<'a> {
    /// Its pinned image.
    pub(in crate::lower) image: &'a str,
    /// Logical id of its log group.
    pub(in crate::lower) log_group: &'a str,
    /// The secret of its registry's credentials, when the registry needs them.
    pub(in crate::lower) registry_secret: Option<PolicyResource>,
    /// The SSM parameters its task definition references, in order: its bindings' lists
    /// (shared with the bindings), then its own secrets'.
    pub(in crate::lower) parameters: Vec<Arc<[Arc<str>]>>,
    /// The items of each resource it uses, in order, with the mode it uses it in.
    pub(in crate::lower) uses: Vec<(&'a [PlannedItem], Access)>,
    /// ECS Exec is allowed into its tasks (`exec`).
    pub(in crate::lower) exec: bool,
}

/// The grants of a workload's two roles: (execution, task).
pub(in crate::lower) fn grants(id: &Identity, kms_key: &str) -> (Vec<Grant>, Vec<Grant>) {
    // The plan holds both lists: each is made with room for what it holds, counted first (room
    // for six grants, or for four after a filter, was 0.9 MB never used at N = 10,000; given
    // back later, the allocator would keep it).
    let repository = ecr_repository(id.image);
    let named = id.parameters.iter().filter(|names| !names.is_empty());
    let mut parameters: Vec<PolicyResource> = Vec::with_capacity(named.clone().count());
    parameters.extend(named.map(|names| PolicyResource::SsmParameters { names: names.clone() }));
    let room = 1
        + 2 * usize::from(repository.is_some())
        + usize::from(id.registry_secret.is_some())
        + 2 * usize::from(!parameters.is_empty());
    let mut execution = Vec::with_capacity(room);
    execution.push(grant(&LOG_ACTIONS, vec![PolicyResource::ItemLogStreams { item: id.log_group.into() }]));
    if let Some(repository) = repository {
        execution.push(grant(&ECR_TOKEN_ACTIONS, vec![PolicyResource::Any]));
        execution.push(grant(&ECR_PULL_ACTIONS, vec![PolicyResource::Arn { arn: repository }]));
    }
    if let Some(secret) = &id.registry_secret {
        execution.push(grant(&SECRET_ACTIONS, vec![secret.clone()]));
    }
    if !parameters.is_empty() {
        execution.push(grant(&PARAMETER_ACTIONS, parameters));
        execution.push(grant(&KEY_ACTIONS, vec![kms_key_resource(kms_key)]));
    }
    let used: Vec<Vec<Grant>> = id.uses.iter().map(|(items, access)| use_grants(items, *access)).collect();
    let mut task = Vec::with_capacity(used.iter().map(Vec::len).sum::<usize>() + usize::from(id.exec));
    task.extend(used.into_iter().flatten());
    if id.exec {
        task.push(grant(&EXEC_ACTIONS, vec![PolicyResource::Any]));
    }
    (execution, task)
}

/// Declares workload `workload`'s execution role and, when it grants anything, its task role,
/// with their grants (see [`grants`]); `base` is `<product>-<env>-<workload>`.
pub(in crate::lower) fn lower(
    cx: &mut Cx,
    workload: &str,
    base: &str,
    execution_grants: Vec<Grant>,
    task_grants: Vec<Grant>,
) -> Roles {
    let name = cx.named(ItemKind::TaskExecutionRole, cat(&[base, "-execution"]));
    let spec = ItemSpec::TaskExecutionRole { workload: workload.into(), grants: execution_grants };
    let execution = cx.push(NewItem::new(cat(&[workload, "_execution-role"]), name, Some(workload), spec));
    if task_grants.is_empty() {
        return Roles { execution, task: None };
    }
    let name = cx.named(ItemKind::TaskRole, cat(&[base, "-task"]));
    let mut on: Vec<CompactString> = Vec::new();
    for r in task_grants.iter().flat_map(|g| &g.resources) {
        if let PolicyResource::Item { item } | PolicyResource::ItemObjects { item } = r
            && !on.contains(item)
        {
            on.push(item.clone());
        }
    }
    let spec = ItemSpec::TaskRole { workload: workload.into(), grants: task_grants };
    let task =
        cx.push(NewItem::new(cat(&[workload, "_task-role"]), name, Some(workload), spec).depends_on(on));
    Roles { execution, task: Some(task) }
}

fn grant(actions: &'static [&'static str], resources: Vec<PolicyResource>) -> Grant {
    Grant { actions, resources }
}

/// What using one resource in mode `access` grants, from its items: queues, topics and
/// buckets only.
fn use_grants(items: &[PlannedItem], access: Access) -> Vec<Grant> {
    let (queue_actions, object_actions): (&'static [&'static str], &'static [&'static str]) = match access {
        Access::Read => (&QUEUE_READ_ACTIONS, &OBJECT_READ_ACTIONS),
        Access::Write => (&QUEUE_ACTIONS, &OBJECT_ACTIONS),
    };
    let item = |i: &PlannedItem| PolicyResource::Item { item: i.id.clone() };
    let queues: Vec<PolicyResource> =
        items.iter().filter(|i| i.kind().used_through() == UsedThrough::Queue).map(item).collect();
    let mut out = Vec::new();
    if !queues.is_empty() {
        out.push(grant(queue_actions, queues));
    }
    for i in items {
        match i.kind().used_through() {
            UsedThrough::Topic => out.push(grant(&TOPIC_ACTIONS, vec![item(i)])),
            UsedThrough::Bucket => {
                out.push(grant(&BUCKET_ACTIONS, vec![item(i)]));
                out.push(grant(object_actions, vec![PolicyResource::ItemObjects { item: i.id.clone() }]));
            }
            // Queues are granted together above.
            UsedThrough::Queue | UsedThrough::Nothing => {}
        }
    }
    out
}

/// The key of `secrets.ssm.kmsKey`: an alias (looked up by name), a key ARN, or a key id.
pub(in crate::lower) fn kms_key_resource(key: &str) -> PolicyResource {
    if key.starts_with("alias/") {
        PolicyResource::KmsAlias { alias: key.into() }
    } else if let Some(i) = key.find(":alias/").filter(|_| key.starts_with("arn:")) {
        PolicyResource::KmsAlias { alias: key[i + 1..].into() }
    } else if key.starts_with("arn:") {
        PolicyResource::Arn { arn: key.into() }
    } else {
        PolicyResource::KmsKeyId { id: key.into() }
    }
}

/// The ARN of the ECR repository of an image (`<account>.dkr.ecr.<region>.amazonaws.com/<repo>`),
/// when the image is on ECR.
pub(in crate::lower) fn ecr_repository(image: &str) -> Option<CompactString> {
    let (host, path) = image.split_once('/')?;
    // A 12-digit account, then `.dkr.ecr.`: checked in place (a `split_once` on the text
    // built a substring searcher per image, fifth pass). Twelve digits hold no `.`, so the
    // first `.dkr.ecr.` is the one at 12 whenever the account is valid.
    let account = host.get(..12)?;
    let rest = host.get(12..)?.strip_prefix(".dkr.ecr.")?;
    let region = rest.strip_suffix(".amazonaws.com")?;
    let valid_account = account.bytes().all(|b| b.is_ascii_digit());
    if !valid_account || region.is_empty() || region.contains('.') {
        return None;
    }
    let name = path.split('@').next().unwrap_or(path);
    // A tag follows the last `:` after the last `/`.
    let last_slash = name.rfind('/').map_or(0, |i| i + 1);
    let repository = match name[last_slash..].find(':') {
        Some(i) => &name[..last_slash + i],
        None => name,
    };
    Some(cat(&["arn:aws:ecr:", region, ":", account, ":repository/", repository]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecr_images_name_their_repository_and_others_none() {
        let digest = "0".repeat(64);
        let ecr = format!("123456789012.dkr.ecr.eu-west-1.amazonaws.com/team/app:1.2@sha256:{digest}");
        assert_eq!(
            ecr_repository(&ecr).as_deref(),
            Some("arn:aws:ecr:eu-west-1:123456789012:repository/team/app")
        );
        let untagged = format!("123456789012.dkr.ecr.us-east-1.amazonaws.com/app@sha256:{digest}");
        assert_eq!(
            ecr_repository(&untagged).as_deref(),
            Some("arn:aws:ecr:us-east-1:123456789012:repository/app")
        );
        for other in [
            format!("metabase/metabase:v0.50.3@sha256:{digest}"),
            format!("ghcr.io/acme/pdf:1@sha256:{digest}"),
            format!("12345.dkr.ecr.eu-west-1.amazonaws.com/app@sha256:{digest}"),
        ] {
            assert_eq!(ecr_repository(&other), None, "{other}");
        }
    }

    #[test]
    fn kms_keys_are_aliases_arns_or_ids() {
        assert_eq!(
            kms_key_resource("alias/aws/ssm"),
            PolicyResource::KmsAlias { alias: "alias/aws/ssm".into() }
        );
        assert_eq!(
            kms_key_resource("arn:aws:kms:us-east-1:123456789012:alias/app"),
            PolicyResource::KmsAlias { alias: "alias/app".into() }
        );
        let arn = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";
        assert_eq!(kms_key_resource(arn), PolicyResource::Arn { arn: arn.into() });
        assert_eq!(kms_key_resource("1234abcd"), PolicyResource::KmsKeyId { id: "1234abcd".into() });
    }
}
