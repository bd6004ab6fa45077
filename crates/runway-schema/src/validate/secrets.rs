//! The root's `secrets` settings: where Infisical and SSM keep the product's values.

use indexmap::IndexMap;

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
                Some(t) => ssm.kms_key = t,
                None => ok = false,
            }
        }
    }
    ok.then_some(Secrets { infisical, ssm })
}
