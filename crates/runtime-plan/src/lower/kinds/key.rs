//! The environment's own KMS key (`secrets.ssm.kmsKey` left out): one customer managed key per
//! environment, `alias/runway/<product>/<env>`, for its SSM parameters, the secrets
//! `secrets prepare` writes and the alerts topic. `secrets prepare` creates the key and its
//! alias before it writes anything encrypted with them; the program then declares the key's
//! policy: the account (IAM policies decide, as in AWS's default key policy, so a lost deploy
//! role never orphans the key), the deploy role, the roles planned here as its decrypters
//! (every execution role, which reads the task's parameters and registry secret, and every
//! proxy role, which reads its secret), and the services that publish to the alerts topic.

use super::alerting;
use super::context::{Cx, NewItem};
use crate::plan::{ItemKind, ItemSpec, ManagedBy};
use crate::pricing::Priceable;

/// The logical id of the environment's key.
pub const KEY_ID: &str = "env_kms-key";

/// Plans the environment's key when it has one and anything it encrypts: an SSM parameter, a
/// secret `secrets prepare` writes, or the alerts topic. Called after the workloads, so that
/// every role exists, and before the alarms, whose topic it encrypts.
pub(in crate::lower) fn lower(cx: &mut Cx) {
    let secrets = cx.items.iter().any(|i| i.kind().holds_secret());
    let alerts = alerting::topic_publishers(cx);
    if !cx.secrets.own_key || !(cx.secrets.has_parameters() || secrets || alerts.is_some()) {
        return;
    }
    let decrypters = cx.items.iter().filter(|i| i.kind().decrypts_secrets()).map(|i| i.id.clone()).collect();
    let alias = cx.secrets.kms_key.clone();
    let name = cx.named(ItemKind::KmsKey, alias.clone());
    let spec = ItemSpec::KmsKey { alias, decrypters, publishers: alerts.unwrap_or_default() };
    cx.add(
        NewItem::new(KEY_ID.into(), name, None, spec)
            .managed_by(ManagedBy::SecretsAdapter)
            .priced(Priceable::KmsKey),
    );
}
