//! `AWSSecretsManager`: a secret-month. Trap: API-request rows beside it.

use super::{Lookup, Rule, usage};

/// The rule of an `AWSSecretsManager` key, if the key is one.
pub(crate) fn rule(key: &str) -> Option<Lookup> {
    (key == "secret").then(|| {
        Lookup::Rule(Rule {
            key: key.to_owned(),
            offer: "AWSSecretsManager",
            unit: "secret-month",
            offer_units: &["Secrets", "Secret", "Secret-Month"],
            scale: 1,
            wants: "secrets stored (AWSSecretsManager-Secrets)".to_owned(),
            global: false,
            test: Box::new(|p, prefix| usage(p, prefix, "AWSSecretsManager-Secrets")),
        })
    })
}
