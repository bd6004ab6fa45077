//! The environment's own KMS key (`secrets.ssm.kmsKey` left out): one customer managed key per
//! environment, `alias/runway/<product>/<env>`, for its SSM parameters and the secrets
//! `secrets prepare` writes. `secrets prepare` creates the key and its alias before it writes
//! anything encrypted with them; the program then declares the key's policy, naming exactly the
//! deploy role and the roles planned here as its decrypters (every execution role, which reads
//! the task's parameters and registry secret, and every proxy role, which reads its secret).

use super::context::{Cx, NewItem};
use crate::plan::{ItemKind, ItemSpec, ManagedBy};
use crate::pricing::Priceable;

/// The logical id of the environment's key.
pub const KEY_ID: &str = "env_kms-key";

/// Plans the environment's key when it has one and anything it encrypts: an SSM parameter, or
/// a secret `secrets prepare` writes. Called after the workloads, so that every role exists.
pub(super) fn lower(cx: &mut Cx) {
    let secrets = cx.items.iter().any(|i| matches!(i.kind, ItemKind::ProxySecret | ItemKind::RegistrySecret));
    if !cx.secrets.own_key || !(cx.secrets.has_parameters() || secrets) {
        return;
    }
    let decrypters = cx
        .items
        .iter()
        .filter(|i| matches!(i.kind, ItemKind::TaskExecutionRole | ItemKind::ProxyRole))
        .map(|i| i.id.clone())
        .collect();
    let alias = cx.secrets.kms_key.clone();
    let name = cx.named(ItemKind::KmsKey, alias.clone());
    let spec = ItemSpec::KmsKey { alias, decrypters };
    cx.push(
        NewItem::new(KEY_ID.into(), name, None, spec)
            .managed_by(ManagedBy::SecretsAdapter)
            .priced(Priceable::KmsKey),
    );
}
