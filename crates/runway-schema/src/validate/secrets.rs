//! The root's `secrets` settings: where Infisical and SSM keep the product's values.

use indexmap::IndexMap;

use crate::diagnostic::Code;
use crate::model::*;
use crate::read::{Cx, join, quote};
use crate::tree::Node;

use super::{env_keys, keys};

pub(super) fn secrets(cx: &mut Cx<'_>, node: &Node, envs: &[String]) -> Option<Secrets> {
    let f = cx.fields(node, "secrets", "`secrets`", keys::SECRETS)?;
    let mut ok = true;
    let infisical = match f.get("infisical") {
        None => None,
        Some(n) => {
            let p = "secrets.infisical";
            let inf = cx.fields(n, p, "`secrets.infisical`", keys::INFISICAL).and_then(|inf| {
                let url = match inf.get("url") {
                    None => Some(DEFAULT_INFISICAL_URL.to_owned()),
                    Some(u) => cx.string(u, &join(p, "url"), "`url`").and_then(|u_text| {
                        if u_text.starts_with("https://") || u_text.starts_with("http://") {
                            Some(u_text.trim_end_matches('/').to_owned())
                        } else {
                            cx.invalid(
                                u,
                                &join(p, "url"),
                                format!("{} is not an http(s) URL", quote(&u_text)),
                                Some("write e.g. `https://app.infisical.com`".to_owned()),
                            );
                            None
                        }
                    }),
                };
                let project = cx
                    .require(
                        &inf,
                        p,
                        "`secrets.infisical`",
                        "project",
                        "add `project: <Infisical project id>`",
                    )
                    .and_then(|pr| cx.string(pr, &join(p, "project"), "`project`"));
                let mut environments = IndexMap::new();
                if let Some(e) = inf.get("environments") {
                    let ep = join(p, "environments");
                    for (env, _, v) in env_keys(cx, e, &ep, "`environments`", envs) {
                        if let Some(slug) = cx.string(v, &join(&ep, &env), "an Infisical environment slug") {
                            environments.insert(env, slug);
                        }
                    }
                }
                let path = match inf.get("path") {
                    None => Some(DEFAULT_INFISICAL_PATH.to_owned()),
                    Some(pn) => cx.string(pn, &join(p, "path"), "`path`").and_then(|t| {
                        if t.starts_with('/') && t.contains("{resource}") {
                            Some(t)
                        } else {
                            cx.invalid(
                                pn,
                                &join(p, "path"),
                                format!(
                                    "folder template {} must start with `/` and contain `{{resource}}`",
                                    quote(&t)
                                ),
                                Some("write e.g. `/runtime/{resource}`".to_owned()),
                            );
                            None
                        }
                    }),
                };
                Some(Infisical { url: url?, project: project?, environments, path: path? })
            });
            ok &= inf.is_some();
            inf
        }
    };
    let mut ssm = Ssm::default();
    if let Some(n) = f.get("ssm")
        && let Some(sf) = cx.fields(n, "secrets.ssm", "`secrets.ssm`", keys::SSM)
    {
        if let Some(p) = sf.get("prefix") {
            match cx.string(p, "secrets.ssm.prefix", "`prefix`") {
                Some(t) if t.starts_with('/') => ssm.prefix = t,
                Some(t) => {
                    cx.invalid(
                        p,
                        "secrets.ssm.prefix",
                        format!("SSM prefix {} must start with `/`", quote(&t)),
                        Some("write e.g. `/{product}/{env}`".to_owned()),
                    );
                    ok = false;
                }
                None => ok = false,
            }
        }
        if let Some(k) = sf.get("kmsKey") {
            match cx.string(k, "secrets.ssm.kmsKey", "`kmsKey`") {
                Some(t) if kms_key_shape(&t) => {
                    if t.starts_with("alias/aws/") || t.contains(":alias/aws/") {
                        cx.warning(
                            Code::InvalidValue,
                            k,
                            "secrets.ssm.kmsKey",
                            format!(
                                "{} is an AWS managed key: its policy lets every principal of the account decrypt",
                                quote(&t)
                            ),
                            Some(
                                "leave `kmsKey` out for the environment's own key (a key policy naming exactly \
                                 the roles that read it), or name a customer managed key"
                                    .to_owned(),
                            ),
                        );
                    }
                    ssm.kms_key = Some(t);
                }
                Some(t) => {
                    cx.invalid(
                        k,
                        "secrets.ssm.kmsKey",
                        format!("KMS key {} is not an alias, a key or alias ARN, or a key id", quote(&t)),
                        Some(
                            "write `alias/<name>`, `arn:aws:kms:<region>:<account>:key/<id>` (or `:alias/<name>`), \
                             or a key id; or leave `kmsKey` out for the environment's own key"
                                .to_owned(),
                        ),
                    );
                    ok = false;
                }
                None => ok = false,
            }
        }
    }
    ok.then_some(Secrets { infisical, ssm })
}

/// Is `key` a KMS key reference AWS accepts: `alias/<name>` (letters, digits, `/`, `_`, `-`),
/// a key or alias ARN (`arn:<partition>:kms:<region>:<12 digits>:key/<id>` or `:alias/<name>`),
/// a key id (a UUID) or a multi-Region key id (`mrk-` and 32 hex digits)?
fn kms_key_shape(key: &str) -> bool {
    let alias_name = |name: &str| {
        !name.is_empty()
            && name.len() <= 250
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '_' | '-'))
    };
    let key_id = |id: &str| {
        let uuid = id.len() == 36
            && id
                .char_indices()
                .all(|(i, c)| if matches!(i, 8 | 13 | 18 | 23) { c == '-' } else { c.is_ascii_hexdigit() });
        let mrk = id
            .strip_prefix("mrk-")
            .is_some_and(|h| h.len() == 32 && h.chars().all(|c| c.is_ascii_hexdigit()));
        uuid || mrk
    };
    if let Some(name) = key.strip_prefix("alias/") {
        return alias_name(name);
    }
    if let Some(rest) = key.strip_prefix("arn:") {
        let parts: Vec<&str> = rest.splitn(5, ':').collect();
        let [partition, service, region, account, resource] = parts[..] else { return false };
        let head_ok = partition.starts_with("aws")
            && service == "kms"
            && !region.is_empty()
            && account.len() == 12
            && account.chars().all(|c| c.is_ascii_digit());
        return head_ok
            && (resource.strip_prefix("key/").is_some_and(key_id)
                || resource.strip_prefix("alias/").is_some_and(alias_name));
    }
    key_id(key)
}

#[cfg(test)]
mod kms_tests {
    use super::kms_key_shape;

    #[test]
    fn kms_keys_are_aliases_arns_or_key_ids() {
        for good in [
            "alias/aws/ssm",
            "alias/acme/prod_key-1",
            "arn:aws:kms:us-east-1:123456789012:key/0b6c5b9e-3f1a-4c2d-9e8f-7a6b5c4d3e2f",
            "arn:aws:kms:us-east-1:123456789012:alias/app",
            "arn:aws-us-gov:kms:us-gov-west-1:123456789012:alias/app",
            "0b6c5b9e-3f1a-4c2d-9e8f-7a6b5c4d3e2f",
            "mrk-0123456789abcdef0123456789abcdef",
        ] {
            assert!(kms_key_shape(good), "{good}");
        }
        for bad in [
            "",
            "alias/",
            "alias/has space",
            "my-key",
            "1234abcd",
            "arn:aws:kms:us-east-1:1234:key/0b6c5b9e-3f1a-4c2d-9e8f-7a6b5c4d3e2f",
            "arn:aws:s3:us-east-1:123456789012:key/0b6c5b9e-3f1a-4c2d-9e8f-7a6b5c4d3e2f",
            "arn:aws:kms:us-east-1:123456789012:key/not-a-uuid",
            "0b6c5b9e_3f1a_4c2d_9e8f_7a6b5c4d3e2f",
        ] {
            assert!(!kms_key_shape(bad), "{bad}");
        }
    }
}
