//! The environment's KMS key (`secrets prepare` creates it and its alias): looked up by its
//! alias, and its key policy declared (`aws:kms/keyPolicy:KeyPolicy`): the account's root (so
//! that IAM policies decide, as in AWS's default key policy: an administrator can always reach
//! the key, and recreating the deploy role orphans nothing), the deploy role (the identity
//! running `pulumi up`, which administers the key, uses it, and can disable and enable it), the
//! plan's decrypters (the execution roles and proxy roles, decrypting through SSM and Secrets
//! Manager only), and the services that publish to the alerts topic the key encrypts.

use runtime_plan::{CompactString, PlannedItem};
use serde::Serialize;

use super::RenderError;
use super::context::Context;
use super::expr::{ToJson, attr, invoke, to_json};

/// The resource type of a key policy.
pub(super) const KEY_POLICY: &str = "aws:kms/keyPolicy:KeyPolicy";

/// What the deploy role may do with the key: administer it (the policy, the alias, tags,
/// rotation, deletion) and use it (what `secrets prepare` and the program's SSM parameters do);
/// `DescribeKey` (audit), `DisableKey` and `EnableKey` (containment: a suspected leak is
/// stopped by disabling the key, and undone by enabling it).
const DEPLOY_ACTIONS: [&str; 22] = [
    "kms:CancelKeyDeletion",
    "kms:CreateAlias",
    "kms:Decrypt",
    "kms:DeleteAlias",
    "kms:DescribeKey",
    "kms:DisableKey",
    "kms:DisableKeyRotation",
    "kms:EnableKey",
    "kms:EnableKeyRotation",
    "kms:Encrypt",
    "kms:GenerateDataKey",
    "kms:GetKeyPolicy",
    "kms:GetKeyRotationStatus",
    "kms:ListResourceTags",
    "kms:PutKeyPolicy",
    "kms:ReEncryptFrom",
    "kms:ReEncryptTo",
    "kms:ScheduleKeyDeletion",
    "kms:TagResource",
    "kms:UntagResource",
    "kms:UpdateAlias",
    "kms:UpdateKeyDescription",
];

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct KeyByAlias<'p> {
    key_id: &'p str,
    region: &'p str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct KeyPolicy<'p> {
    key_id: String,
    policy: ToJson<Document>,
    region: &'p str,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Document {
    version: &'static str,
    statement: Vec<KeyStatement>,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct KeyStatement {
    sid: String,
    effect: &'static str,
    principal: Principal,
    action: Vec<&'static str>,
    resource: &'static str,
    condition: Option<Condition>,
}

#[derive(Serialize)]
enum Principal {
    #[serde(rename = "AWS")]
    Aws(Vec<String>),
    Service(&'static str),
}

#[derive(Serialize)]
struct Condition {
    #[serde(rename = "StringEquals")]
    string_equals: Equals,
}

#[derive(Serialize)]
enum Equals {
    #[serde(rename = "kms:ViaService")]
    ViaService(Vec<String>),
    #[serde(rename = "aws:SourceAccount")]
    SourceAccount(String),
}

/// What a service publishing to the encrypted alerts topic needs of the key (AWS, SNS
/// developer guide, "Enable compatibility between event sources from AWS services and
/// encrypted topics").
const PUBLISHER_ACTIONS: [&str; 2] = ["kms:Decrypt", "kms:GenerateDataKey*"];

/// The key, looked up by its alias into a variable of its id (`${env_kms-key.arn}`), and its
/// key policy, `<id>--policy`, which what depends on the key waits for.
pub(super) fn look_up<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    alias: &'p CompactString,
    decrypters: &'p [CompactString],
    publishers: &'static [runtime_plan::plan::AlertPublisher],
) -> Result<(), RenderError> {
    let lookup = invoke("aws:kms:getKey", KeyByAlias { key_id: alias, region: cx.region() });
    cx.variable(item, item.id.to_string(), &lookup)?;
    let account = cx.account();
    let mut statement = vec![
        // AWS's default key policy statement: IAM policies of the account decide too.
        KeyStatement {
            sid: "AccountIamPoliciesDecide".into(),
            effect: "Allow",
            principal: Principal::Aws(vec![format!("arn:aws:iam::{account}:root")]),
            action: vec!["kms:*"],
            resource: "*",
            condition: None,
        },
        KeyStatement {
            sid: "DeployRoleAdministersAndUses".into(),
            effect: "Allow",
            principal: Principal::Aws(vec![cx.deploy_role()]),
            action: DEPLOY_ACTIONS.to_vec(),
            resource: "*",
            condition: None,
        },
    ];
    if !decrypters.is_empty() {
        let mut roles = Vec::with_capacity(decrypters.len());
        for role in decrypters {
            roles.push(cx.reference(role, "arn")?);
        }
        let region = cx.region();
        statement.push(KeyStatement {
            sid: "RuntimeRolesDecryptThroughSsmAndSecretsManager".into(),
            effect: "Allow",
            principal: Principal::Aws(roles),
            action: vec!["kms:Decrypt"],
            resource: "*",
            condition: Some(Condition {
                string_equals: Equals::ViaService(vec![
                    format!("ssm.{region}.amazonaws.com"),
                    format!("secretsmanager.{region}.amazonaws.com"),
                ]),
            }),
        });
    }
    for p in publishers {
        statement.push(KeyStatement {
            // A policy's statement ids are unique: `CloudwatchPublishesAlerts`.
            sid: format!("{}{}PublishesAlerts", p.service[..1].to_ascii_uppercase(), &p.service[1..]),
            effect: "Allow",
            principal: Principal::Service(p.principal),
            action: PUBLISHER_ACTIONS.to_vec(),
            resource: "*",
            condition: p
                .key_source_account
                .then(|| Condition { string_equals: Equals::SourceAccount(account.clone()) }),
        });
    }
    let props = KeyPolicy {
        key_id: attr(&item.id, "id"),
        policy: to_json(Document { version: "2012-10-17", statement }),
        region: cx.region(),
    };
    cx.declare_companion(item, "policy", KEY_POLICY, props)?;
    // The alerts topic: a publisher cannot use the key before the policy names it.
    cx.guarded_by(item, "policy");
    Ok(())
}
