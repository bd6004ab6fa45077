//! The environment's KMS key (`secrets prepare` creates it and its alias): looked up by its
//! alias, and its key policy declared (`aws:kms/keyPolicy:KeyPolicy`), naming exactly the deploy
//! role (the identity running `pulumi up`, which administers the key and encrypts with it) and
//! the plan's decrypters (the execution roles and proxy roles, decrypting through SSM and
//! Secrets Manager only).

use runtime_plan::{ItemSpec, PlannedItem};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, wrong_spec};
use super::expr::{ToJson, attr, invoke, to_json};

/// The resource type of a key policy.
pub(super) const KEY_POLICY: &str = "aws:kms/keyPolicy:KeyPolicy";

/// What the deploy role may do with the key: administer it (the policy, the alias, tags,
/// rotation, deletion) and use it (what `secrets prepare` and the program's SSM parameters do).
const DEPLOY_ACTIONS: [&str; 20] = [
    "kms:CancelKeyDeletion",
    "kms:CreateAlias",
    "kms:Decrypt",
    "kms:DeleteAlias",
    "kms:DescribeKey",
    "kms:DisableKeyRotation",
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
    sid: &'static str,
    effect: &'static str,
    principal: AwsPrincipal,
    action: Vec<&'static str>,
    resource: &'static str,
    condition: Option<ViaCondition>,
}

#[derive(Serialize)]
struct AwsPrincipal {
    #[serde(rename = "AWS")]
    aws: Vec<String>,
}

#[derive(Serialize)]
struct ViaCondition {
    #[serde(rename = "StringEquals")]
    string_equals: ViaService,
}

#[derive(Serialize)]
struct ViaService {
    #[serde(rename = "kms:ViaService")]
    via: Vec<String>,
}

/// The key, looked up by its alias into a variable of its id (`${env_kms-key.arn}`), and its
/// key policy, `<id>--policy`.
pub(super) fn look_up<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let ItemSpec::KmsKey { alias, decrypters } = &item.spec else {
        return Err(wrong_spec(item));
    };
    let lookup = invoke("aws:kms:getKey", KeyByAlias { key_id: alias, region: cx.region() });
    cx.variable(item, item.id.to_string(), &lookup)?;
    let mut statement = vec![KeyStatement {
        sid: "DeployRoleAdministersAndUses",
        effect: "Allow",
        principal: AwsPrincipal { aws: vec![cx.deploy_role()] },
        action: DEPLOY_ACTIONS.to_vec(),
        resource: "*",
        condition: None,
    }];
    if !decrypters.is_empty() {
        let mut roles = Vec::with_capacity(decrypters.len());
        for role in decrypters {
            roles.push(cx.reference(role, "arn")?);
        }
        let region = cx.region();
        statement.push(KeyStatement {
            sid: "RuntimeRolesDecryptThroughSsmAndSecretsManager",
            effect: "Allow",
            principal: AwsPrincipal { aws: roles },
            action: vec!["kms:Decrypt"],
            resource: "*",
            condition: Some(ViaCondition {
                string_equals: ViaService {
                    via: vec![
                        format!("ssm.{region}.amazonaws.com"),
                        format!("secretsmanager.{region}.amazonaws.com"),
                    ],
                },
            }),
        });
    }
    let props = KeyPolicy {
        key_id: attr(&item.id, "id"),
        policy: to_json(Document { version: "2012-10-17", statement }),
        region: cx.region(),
    };
    cx.declare_companion(item, "policy", KEY_POLICY, props)
}
