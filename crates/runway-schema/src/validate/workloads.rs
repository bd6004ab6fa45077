//! One workload: each concern read in file-format order (image, env, secrets, uses, expose),
//! then the check that every variable it sees has one source.

use std::collections::BTreeMap;

use indexmap::IndexMap;

use crate::SmallMap;
use crate::diagnostic::{Code, did_you_mean};
use crate::model::*;
use crate::read::{Cx, Fields, index, join, quote};
use crate::tree::Node;
use crate::values::{ImageError, ImageRef, variable_prefix};

use super::deploy::deploys;
use super::health::{Declared, health, reason};
use super::resources::{
    is_variable_name, resource_spec_quiet, unknown_resource, variable_suffixes, variables,
};
use super::scaling::{Reach, scales};
use super::schedules::schedules;
use super::words::{Words, words};
use super::{EXPOSES, Known, PLATFORMS, keys, sizes};

/// One workload: each concern read in file-format order (the order of its diagnostics), then
/// the check that every variable it sees has one source. `None` when any of it is an error.
#[allow(clippy::too_many_arguments)] // reason: one call site; the pieces are the file's parts
pub(super) fn workload(
    cx: &mut Cx<'_>,
    name: &str,
    node: &Node,
    path: &str,
    envs: &[String],
    environments: &IndexMap<String, Environment>,
    resources: &[(&str, &Node, &Node)],
    resource_nodes: &BTreeMap<&str, &Node>,
    known: &Known<'_>,
) -> Option<Workload> {
    let what = ["workload `", name, "`"].concat();
    let f = cx.fields(node, path, &what, keys::WORKLOAD)?;
    let errors_before = cx.diags.iter().filter(|d| d.is_error()).count();

    let image = image(cx, &f, path, &what);
    let platform = f.get("platform").map_or(Some(Architecture::Arm64), |n| platform(cx, n, path));
    let registry_credentials = match f.get("registryCredentials") {
        None => Some(None),
        Some(n) => registry_credentials(cx, n, &join(path, "registryCredentials")).map(Some),
    };
    let entry_point = optional_words(cx, &f, path, &ENTRY_POINT);
    // `None` inside: a worker, without a port.
    let port = match f.get("port") {
        None => Some(None),
        Some(n) => {
            cx.uint(n, &join(path, "port"), "`port`", 1, 65535).and_then(|p| u16::try_from(p).ok()).map(Some)
        }
    };
    let declared = f.get("health").and_then(|n| health(cx, n, &join(path, "health")));
    // The workload's own variable names (env, then secrets) and where each is declared.
    let mut own_names: Vec<(String, String)> = Vec::new();
    let (env, references) = env_values(cx, &f, path, &mut own_names);
    let secrets = secret_names(cx, &f, path, &mut own_names);
    let (uses, access, used) = used_resources(cx, &f, path, resources, resource_nodes);
    let env_from = env_references(cx, name, references, &used, resource_nodes);
    let expose = expose(cx, &f, path, name, environments);
    if let (Some(port), Some(expose)) = (port, expose) {
        listening(cx, &f, (path, name), (port, expose), declared.as_ref());
    }
    let (health, unchecked) = match declared {
        Some(Declared::Check(h)) => (Some(h), None),
        Some(Declared::Unchecked(why)) => (None, Some(why)),
        None => (None, None),
    };
    let size = sizes(cx, &f, path, envs, known);
    let queues: Vec<String> = used
        .iter()
        .filter(|(r, _, _)| {
            resource_nodes
                .get(r.as_str())
                .and_then(|n| resource_spec_quiet(n))
                .is_some_and(|s| s.kind() == Kind::Queue)
        })
        .map(|(r, _, _)| r.clone())
        .collect();
    let reach = Reach { public: expose == Some(Expose::Public), queues: &queues };
    let (scale, scaling) = scales(cx, &f, path, envs, &reach);
    let deploy = deploys(cx, &f, path, envs, expose);
    let schedules = schedules(cx, &f, path);
    let exec = f.get("exec").map_or(Some(false), |n| cx.boolean(n, &join(path, "exec"), "`exec`"));
    let reason = match f.get("reason") {
        None => {
            cx.error(
                Code::MissingReason,
                f.map,
                &join(path, "reason"),
                format!("workload `{name}` has no `reason`"),
                Some("add `reason: { ground: no-managed-fit | residency | on-prem-parity, detail: <why no managed service fits> }`".to_owned()),
            );
            None
        }
        Some(n) => reason(cx, n, &join(path, "reason")),
    };
    let migrate = match f.get("migrate") {
        None => Some(None),
        Some(n) => migrate(cx, n, &join(path, "migrate")).map(Some),
    };
    variable_collisions(cx, name, own_names, &used, resource_nodes);

    let errors_after = cx.diags.iter().filter(|d| d.is_error()).count();
    if errors_after != errors_before {
        return None;
    }
    Some(Workload {
        image: image?,
        platform: platform?,
        registry_credentials: registry_credentials?,
        entry_point: entry_point?,
        port: port?,
        health,
        unchecked,
        env,
        env_from,
        secrets,
        uses,
        access,
        expose: expose?,
        size,
        scale,
        deploy,
        scaling,
        schedules: schedules?,
        exec: exec?,
        reason: reason?,
        migrate: migrate?,
    })
}

/// `migrate: { entryPoint: [...], command: [...] }`: `command` required, each a non-empty list
/// of non-empty words.
fn migrate(cx: &mut Cx<'_>, node: &Node, path: &str) -> Option<Migrate> {
    let f = cx.fields(node, path, "`migrate`", keys::MIGRATE)?;
    let entry_point = optional_words(cx, &f, path, &ENTRY_POINT);
    let c = cx.require(&f, path, "`migrate`", "command", COMMAND.help);
    let command = c.and_then(|c| words(cx, c, &join(path, "command"), &COMMAND));
    Some(Migrate { entry_point: entry_point?, command: command? })
}

/// `migrate.command`.
const COMMAND: Words = Words {
    key: "command",
    empty: "the migrate command is empty",
    word: "a command word",
    help: "write the command word by word, e.g. `command: [\"./manage.py\", \"migrate\"]`",
};

/// `entryPoint` of a workload or of its `migrate`.
const ENTRY_POINT: Words = Words {
    key: "entryPoint",
    empty: "the entry point is empty",
    word: "an entry point word",
    help: "write the entry point word by word, e.g. `entryPoint: [\"/app/start.sh\"]`, or remove \
           `entryPoint` to keep the image's own ENTRYPOINT",
};

/// An optional list of words (`entryPoint`): `Some(None)` when absent, `None` when invalid.
fn optional_words(cx: &mut Cx<'_>, f: &Fields<'_>, path: &str, what: &Words) -> Option<Option<Vec<String>>> {
    match f.get(what.key) {
        None => Some(None),
        Some(n) => words(cx, n, &join(path, what.key), what).map(Some),
    }
}

/// `image`: required, and pinned by digest.
fn image(cx: &mut Cx<'_>, f: &Fields<'_>, path: &str, what: &str) -> Option<ImageRef> {
    let n = cx.require(f, path, what, "image", "add `image: <name>:<tag>@sha256:<digest>`")?;
    image_value(cx, n, &join(path, "image"))
}

/// An image reference at `p`: a string pinned by digest (`unpinned-image` without one,
/// `invalid-value` when malformed). A workload's `image` and an environment's
/// `bootstrap.image` are read alike.
pub(super) fn image_value(cx: &mut Cx<'_>, n: &Node, p: &str) -> Option<ImageRef> {
    let text = cx.string(n, p, "`image`")?;
    match ImageRef::parse_owned(text) {
        Ok(i) => Some(i),
        Err(ImageError::Unpinned(text)) if text.starts_with(crate::values::IMAGE_PLACEHOLDER) => {
            cx.error(
                Code::UnpinnedImage,
                n,
                p,
                format!("image {} is the placeholder `runway init` wrote, not an image", quote(&text)),
                Some(
                    "write your image pinned by digest, `<name>:<tag>@sha256:<64 hex>` (`docker buildx \
                     imagetools inspect <name>:<tag>` prints the digest)"
                        .to_owned(),
                ),
            );
            None
        }
        Err(ImageError::Unpinned(text)) => {
            cx.error(
                Code::UnpinnedImage,
                n,
                p,
                format!("image {} is not pinned by digest", quote(&text)),
                Some("append the digest: `<name>:<tag>@sha256:<64 hex>` (see `docker buildx imagetools inspect`)".to_owned()),
            );
            None
        }
        Err(e @ ImageError::Invalid(..)) => {
            cx.invalid(
                n,
                p,
                e.to_string(),
                Some("write `[registry/]name[:tag]@sha256:<64 lowercase hex>`".to_owned()),
            );
            None
        }
    }
}

/// `platform`: `arm64` or `x86_64`; the other names of the two (`amd64`, `aarch64`) are
/// refused with the spelling to use.
fn platform(cx: &mut Cx<'_>, n: &Node, path: &str) -> Option<Architecture> {
    let p = join(path, "platform");
    let text = cx.text(n, &p, "`platform`")?;
    if let Some(a) = Architecture::ALL.into_iter().find(|a| a.as_str() == text) {
        return Some(a);
    }
    let lower = text.to_ascii_lowercase();
    let word = lower.strip_prefix("linux/").unwrap_or(&lower);
    let help = match word {
        "amd64" | "x86-64" | "x86_64" | "x64" => "write `x86_64` (ECS's name for amd64)".to_owned(),
        "arm64" | "aarch64" | "arm" | "arm64/v8" | "graviton" => "write `arm64`".to_owned(),
        _ => match did_you_mean(&text, PLATFORMS.iter().copied()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("write one of: {}", PLATFORMS.join(", ")),
        },
    };
    cx.invalid(n, &p, format!("{} is not a platform runway runs", quote(&text)), Some(help));
    None
}

/// `registryCredentials`: the name of Infisical secrets (`NAME` for `NAME_USERNAME` and
/// `NAME_PASSWORD`), or the full ARN of a Secrets Manager secret.
fn registry_credentials(cx: &mut Cx<'_>, n: &Node, p: &str) -> Option<RegistryCredentials> {
    let text = cx.string(n, p, "`registryCredentials`")?;
    if text.starts_with("arn:") {
        return match secret_arn_problem(&text) {
            None => Some(RegistryCredentials::SecretArn(text)),
            Some(problem) => {
                cx.invalid(
                    n,
                    p,
                    format!("{} is not a Secrets Manager secret ARN: {problem}", quote(&text)),
                    Some("copy the secret's full ARN, its six-character suffix included: `aws secretsmanager describe-secret --secret-id NAME --query ARN`".to_owned()),
                );
                None
            }
        };
    }
    if is_variable_name(&text) {
        return Some(RegistryCredentials::Infisical(text));
    }
    cx.invalid(
        n,
        p,
        format!("{} is neither a secret name nor a Secrets Manager secret ARN", quote(&text)),
        Some("write `NAME` for the Infisical secrets NAME_USERNAME and NAME_PASSWORD (letters, digits and `_`), or `arn:aws:secretsmanager:<region>:<account>:secret:<name>-<suffix>`".to_owned()),
    );
    None
}

/// What is wrong with a Secrets Manager secret ARN, if anything: it must read
/// `arn:<partition>:secretsmanager:<region>:<12-digit account>:secret:<name>-<6 characters>`
/// (the full ARN: IAM matches the execution role's grant against it).
fn secret_arn_problem(arn: &str) -> Option<&'static str> {
    let parts: Vec<&str> = arn.splitn(7, ':').collect();
    if parts.get(2).is_some_and(|s| *s != "secretsmanager") {
        return Some("it names another service than `secretsmanager`");
    }
    let [_, partition, service, region, account, kind, name] = parts[..] else {
        return Some("it has fewer than seven `:`-separated parts");
    };
    let word = |s: &str| {
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    if !partition.starts_with("aws") || !word(partition) {
        return Some("its partition is not `aws` (or `aws-cn`, `aws-us-gov`)");
    }
    if service != "secretsmanager" || kind != "secret" {
        return Some("it is not `...:secretsmanager:...:secret:...`");
    }
    if !word(region) || !region.contains('-') {
        return Some("its region is missing or malformed");
    }
    if account.len() != 12 || !account.bytes().all(|b| b.is_ascii_digit()) {
        return Some("its account is not 12 digits");
    }
    let name_ok = |s: &str| {
        !s.is_empty()
            && s.bytes().all(|b| {
                b.is_ascii_alphanumeric() || matches!(b, b'/' | b'_' | b'+' | b'=' | b'.' | b'@' | b'-')
            })
    };
    match name.rsplit_once('-') {
        Some((base, suffix))
            if name_ok(base) && suffix.len() == 6 && suffix.bytes().all(|b| b.is_ascii_alphanumeric()) =>
        {
            None
        }
        _ if name_ok(name) => Some("its name lacks the `-` and six characters Secrets Manager appends"),
        _ => Some("its name holds a character Secrets Manager names do not"),
    }
}

/// An `env` value written `${VAR}`: the name, the variable, and where it is written.
type Reference<'n> = (String, String, &'n Node, String);

/// `env`: variable names and their plain values, and the values that reference a variable
/// (`${VAR}`, checked once `uses` is known); each good name is added to `own_names`.
fn env_values<'n>(
    cx: &mut Cx<'_>,
    f: &Fields<'n>,
    path: &str,
    own_names: &mut Vec<(String, String)>,
) -> (SmallMap<String>, Vec<Reference<'n>>) {
    let mut env = SmallMap::new();
    let mut references = Vec::new();
    let Some(n) = f.get("env") else { return (env, references) };
    let ep = join(path, "env");
    for (k_text, k, v) in cx.named_map(n, &ep, "`env`") {
        let p = join(&ep, k_text);
        if !is_variable_name(k_text) {
            cx.invalid(
                k,
                &p,
                format!("{} is not an environment variable name", quote(k_text)),
                Some("use letters, digits and `_`, not starting with a digit".to_owned()),
            );
            continue;
        }
        let Some(val) = cx.free_text(v, &p, "an environment value") else { continue };
        let reference = val.strip_prefix("${").and_then(|r| r.strip_suffix('}'));
        match reference {
            Some(var) if is_variable_name(var) => {
                references.push((k_text.to_owned(), var.to_owned(), v, p.clone()))
            }
            _ if val.contains("${") => {
                // ECS hands a secret over whole: a reference cannot sit inside other text.
                cx.invalid(
                    v,
                    &p,
                    format!("{} mixes text and a `${{...}}` reference", quote(&val)),
                    Some("write the reference alone, e.g. `${MAIN_DB_HOST}`; a value with other text is plain and may not contain `${`".to_owned()),
                );
                continue;
            }
            _ => {
                env.insert(k_text.to_owned(), val);
            }
        }
        own_names.push((k_text.to_owned(), p));
    }
    (env, references)
}

/// Checks each `${VAR}` of `env` against the variables of the resources the workload uses.
fn env_references(
    cx: &mut Cx<'_>,
    name: &str,
    references: Vec<Reference<'_>>,
    used: &[(String, &Node, String)],
    resource_nodes: &BTreeMap<&str, &Node>,
) -> SmallMap<String> {
    // Nothing to check: the used resources' variables are not made (most workloads reference
    // none; making them was 3% of a load, fifth pass).
    if references.is_empty() {
        return SmallMap::new();
    }
    let mut received: Vec<String> = Vec::new();
    for (r, _, _) in used {
        if let Some(spec) = resource_nodes.get(r.as_str()).and_then(|n| resource_spec_quiet(n)) {
            received.extend(variables(r, &spec));
        }
    }
    let mut env_from = SmallMap::new();
    for (key, var, node, p) in references {
        if received.contains(&var) {
            env_from.insert(key, var);
            continue;
        }
        let help = match did_you_mean(&var, received.iter().map(String::as_str)) {
            Some(s) => format!("did you mean `${{{s}}}`?"),
            None if received.is_empty() => "add the resource it comes from to `uses`".to_owned(),
            None => format!("workload `{name}` receives: {}", received.join(", ")),
        };
        cx.error(
            Code::UnknownVariable,
            node,
            &p,
            format!("`${{{var}}}` is not a variable workload `{name}` is bound to"),
            Some(help),
        );
    }
    env_from
}

/// `secrets`: variable names, each once; each good name is added to `own_names`.
fn secret_names(
    cx: &mut Cx<'_>,
    f: &Fields<'_>,
    path: &str,
    own_names: &mut Vec<(String, String)>,
) -> Vec<String> {
    let mut secrets = Vec::new();
    let Some(n) = f.get("secrets") else { return secrets };
    let sp = join(path, "secrets");
    let items = cx.list(n, &sp, "`secrets`").unwrap_or_default();
    // Held through planning: room for the list, not a doubling's (sixth pass).
    secrets.reserve_exact(items.len());
    for (i, item) in items.iter().enumerate() {
        let p = index(&sp, i);
        let Some(s) = cx.string(item, &p, "a secret name") else { continue };
        if !is_variable_name(&s) {
            cx.invalid(
                item,
                &p,
                format!("{} is not a secret name", quote(&s)),
                Some("use letters, digits and `_`, not starting with a digit".to_owned()),
            );
        } else if secrets.contains(&s) {
            cx.error(
                Code::DuplicateName,
                item,
                &p,
                format!("secret {} is listed twice", quote(&s)),
                Some("remove one of the two".to_owned()),
            );
        } else {
            own_names.push((s.clone(), p));
            secrets.push(s);
        }
    }
    secrets
}

/// A used resource's name with its node and path, for the variable check.
type Used<'n> = (String, &'n Node, String);
/// A `uses` entry: its name, the node it is written at, and its mode with the mode's node.
type UseEntry<'n> = (String, &'n Node, Option<(Access, &'n Node)>);

/// `uses`: declared resources, each once, each a name or `{ <name>: read | write }` with a mode
/// its kind takes. Returns the names, the modes written, and each name with its node and path
/// for the variable check.
fn used_resources<'n>(
    cx: &mut Cx<'_>,
    f: &Fields<'n>,
    path: &str,
    resources: &[(&str, &Node, &Node)],
    resource_nodes: &BTreeMap<&str, &Node>,
) -> (Vec<String>, SmallMap<Access>, Vec<Used<'n>>) {
    let mut uses = Vec::new();
    let mut access = SmallMap::new();
    let mut used = Vec::new();
    let Some(n) = f.get("uses") else { return (uses, access, used) };
    let up = join(path, "uses");
    let items = cx.list(n, &up, "`uses`").unwrap_or_default();
    // Held through planning: room for the list, not a doubling's (sixth pass).
    uses.reserve_exact(items.len());
    for (i, item) in items.iter().enumerate() {
        let p = index(&up, i);
        let Some((r, name_node, mode)) = use_entry(cx, item, &p) else { continue };
        if !resource_nodes.contains_key(r.as_str()) {
            unknown_resource(cx, name_node, &p, &r, resources);
        } else if uses.contains(&r) {
            cx.error(
                Code::DuplicateName,
                name_node,
                &p,
                format!("{} is used twice", quote(&r)),
                Some("remove one of the two".to_owned()),
            );
        } else {
            if let Some((mode, mode_node)) = mode {
                let kind = resource_spec_quiet(resource_nodes[r.as_str()]).map(|s| s.kind());
                if kind.is_some_and(|k| !mode_allowed(cx, mode_node, &join(&p, &r), &r, k, mode)) {
                    continue;
                }
                access.insert(r.clone(), mode);
            }
            uses.push(r.clone());
            used.push((r, name_node, p));
        }
    }
    (uses, access, used)
}

/// One entry of `uses`: a name, or a one-key mapping `{ <name>: read | write }`. Returns the
/// name, the node it is written at, and the mode with its node when one is written.
fn use_entry<'n>(cx: &mut Cx<'_>, item: &'n Node, p: &str) -> Option<UseEntry<'n>> {
    if !matches!(item.value, crate::tree::Value::Map(_)) {
        return cx.string(item, p, "a resource name").map(|r| (r, item, None));
    }
    let entries = cx.named_map(item, p, "a `uses` entry");
    let [(name, key, value)] = entries.as_slice() else {
        cx.invalid(
            item,
            p,
            format!("a `uses` entry with a mode names one resource, found {}", entries.len()),
            Some("write one resource per entry: `{ uploads: read }`".to_owned()),
        );
        return None;
    };
    let word = cx.one_of(value, &join(p, name), "access mode", &Access::NAMES)?;
    let mode = Access::from_name(word)?;
    Some(((*name).to_owned(), *key, Some((mode, *value))))
}

/// Is `mode` one that resource `r` of kind `kind` takes? Reports `invalid-access` when not.
fn mode_allowed(cx: &mut Cx<'_>, node: &Node, path: &str, r: &str, kind: Kind, mode: Access) -> bool {
    let modes = Access::of_kind(kind);
    if modes.contains(&mode) {
        return true;
    }
    let help = match modes {
        [] => format!("write `{r}` alone: a {} is read and written with one credential", kind.as_str()),
        _ => format!(
            "write `{r}` alone or `{{ {r}: write }}`: a topic is only published to; what reads it are its subscriptions"
        ),
    };
    cx.error(
        Code::InvalidAccess,
        node,
        path,
        format!("{} {} takes no `{}` mode", kind.as_str(), quote(r), mode.as_str()),
        Some(help),
    );
    false
}

/// `expose` (internal by default); a public workload needs a domain in every environment.
fn expose(
    cx: &mut Cx<'_>,
    f: &Fields<'_>,
    path: &str,
    name: &str,
    environments: &IndexMap<String, Environment>,
) -> Option<Expose> {
    let Some(n) = f.get("expose") else { return Some(Expose::Internal) };
    let expose = cx
        .one_of(n, &join(path, "expose"), "`expose`", EXPOSES)
        .map(|w| if w == "public" { Expose::Public } else { Expose::Internal });
    if expose == Some(Expose::Public) {
        for (env_name, env) in environments {
            if env.domain.is_none() {
                cx.error(
                    Code::MissingDomain,
                    n,
                    &join(path, "expose"),
                    format!("workload `{name}` is public but environment `{env_name}` has no `domain`"),
                    Some(format!(
                        "add `domain:` to `environments.{env_name}` (its host is `{name}.<domain>`)"
                    )),
                );
            }
        }
    }
    expose
}

/// What a workload's port decides: without one (a worker) it is internal, checked by a
/// `command` or declared unchecked (`health: { none: <why> }`); with one, `health.none` is
/// refused (its port is checked).
fn listening(
    cx: &mut Cx<'_>,
    f: &Fields<'_>,
    (path, name): (&str, &str),
    (port, expose): (Option<u16>, Expose),
    declared: Option<&Declared>,
) {
    let health_at = || f.get("health").unwrap_or(f.map);
    match (port, declared) {
        (Some(_), Some(Declared::Unchecked(_))) => cx.error(
            Code::InvalidHealth,
            health_at(),
            &join(path, "health"),
            format!("workload `{name}` has a port, so `health.none` does not apply"),
            Some("remove `health` (its port is checked) or declare `path:` or `command:`".to_owned()),
        ),
        (None, Some(Declared::Check(h))) if matches!(h.check, HealthCheck::Http(_)) => cx.error(
            Code::InvalidHealth,
            health_at(),
            &join(path, "health.path"),
            format!("workload `{name}` has no `port`, so nothing answers an HTTP health check"),
            Some("declare `command: [\"CMD\", ...]` run in the container, or add `port:`".to_owned()),
        ),
        // A `health` written but invalid is reported already.
        (None, None) if f.get("health").is_none() => cx.error(
            Code::InvalidHealth,
            f.map,
            &join(path, "health"),
            format!("workload `{name}` has no `port` and no `health`: nothing would see it hang"),
            Some(
                "add `health: { command: [\"CMD\", \"/bin/check\"] }`, or `health: { none: <why> }` when \
                 its exit is its only failure"
                    .to_owned(),
            ),
        ),
        _ => {}
    }
    if port.is_none() && expose == Expose::Public {
        let at = f.get("expose").unwrap_or(f.map);
        cx.error(
            Code::MissingField,
            at,
            &join(path, "port"),
            format!("workload `{name}` is public but has no `port` for the load balancer to forward to"),
            Some(
                "add `port:` the container port it listens on, or remove `expose: public` for a worker"
                    .to_owned(),
            ),
        );
    }
}

/// Every variable the workload sees must have one source: its own names (`own`, env then
/// secrets) first, then each used resource's variables in order.
fn variable_collisions(
    cx: &mut Cx<'_>,
    name: &str,
    own: Vec<(String, String)>,
    used: &[(String, &Node, String)],
    resource_nodes: &BTreeMap<&str, &Node>,
) {
    // Each name seen so far as `(prefix, suffix)` (a variable is `<PREFIX>_<SUFFIX>`, an own
    // name `(name, "")`) with the path it is written at: compared by their parts, so that no
    // name nor path is built for a workload whose names are all distinct (the common case;
    // sixth pass).
    let prefixes: Vec<String> = used.iter().map(|(r, _, _)| variable_prefix(r)).collect();
    let mut seen: Vec<((&str, &str), &str)> =
        own.iter().map(|(n, p)| ((n.as_str(), ""), p.as_str())).collect();
    for ((r, item, p), prefix) in used.iter().zip(&prefixes) {
        let Some(rnode) = resource_nodes.get(r.as_str()) else { continue };
        let Some(spec) = resource_spec_quiet(rnode) else { continue };
        for suffix in variable_suffixes(&spec) {
            if let Some((_, first)) = seen.iter().find(|(n, _)| same_name(*n, (prefix, suffix))) {
                let v = [prefix.as_str(), "_", suffix].concat();
                cx.error(
                    Code::VariableCollision,
                    item,
                    p,
                    format!("variable `{v}` of resource `{r}` collides with `{first}` in workload `{name}`"),
                    Some(
                        "rename the resource or the workload's own variable so each name has one source"
                            .to_owned(),
                    ),
                );
            } else {
                seen.push(((prefix, suffix), p));
            }
        }
    }
}

/// Are two names written as `(prefix, suffix)` the same, `<prefix>_<suffix>` (or `prefix`
/// alone for an empty suffix)?
fn same_name((ap, a_suffix): (&str, &str), (bp, b_suffix): (&str, &str)) -> bool {
    if a_suffix == b_suffix {
        return ap == bp;
    }
    let sep = |s: &str| if s.is_empty() { "" } else { "_" };
    let (a, b) = ([ap, sep(a_suffix), a_suffix], [bp, sep(b_suffix), b_suffix]);
    let len = |parts: &[&str; 3]| parts.iter().map(|p| p.len()).sum::<usize>();
    len(&a) == len(&b) && a.iter().flat_map(|p| p.bytes()).eq(b.iter().flat_map(|p| p.bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_by_parts_compare_as_written() {
        for (a, b, same) in [
            (("MAIN_DB", "URL"), ("MAIN_DB", "URL"), true),
            (("MAIN_DB", "URL"), ("MAIN", "DB_URL"), true),
            (("MAIN_DB_URL", ""), ("MAIN_DB", "URL"), true),
            (("MAIN_DB", "URL"), ("MAIN_DB_URL", ""), true),
            (("MAIN_DB", "URL"), ("MAIN_DB", "HOST"), false),
            (("MAIN_DB", "URL"), ("MAIN_DX", "URL"), false),
            (("MAIN_DB", "URL"), ("MAIN_DBURL", ""), false),
            (("A", ""), ("A", ""), true),
        ] {
            assert_eq!(same_name(a, b), same, "{a:?} {b:?}");
        }
    }

    #[test]
    fn the_platform_words_are_the_architectures() {
        let names: Vec<&str> = Architecture::ALL.iter().map(|a| a.as_str()).collect();
        assert_eq!(names, PLATFORMS);
    }

    #[test]
    fn secret_arns_of_every_partition_with_their_suffix_only() {
        for ok in [
            "arn:aws:secretsmanager:us-east-1:123456789012:secret:ghcr-pull-Ab12Cd",
            "arn:aws-cn:secretsmanager:cn-north-1:123456789012:secret:team/pull+1=x.y@z-ABCDEF",
            "arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:p-a-000000",
        ] {
            assert_eq!(secret_arn_problem(ok), None, "{ok}");
        }
        for bad in [
            "arn:aws:secretsmanager:us-east-1:123456789012:secret:ghcr-pull",
            "arn:aws:secretsmanager:us-east-1:123456789012:secret:-Ab12Cd",
            "arn:aws:secretsmanager:us-east-1:123456789012:secret:a b-Ab12Cd",
            "arn:aws:secretsmanager:us-east-1:123456789012:parameter:x-Ab12Cd",
            "arn:aws:secretsmanager::123456789012:secret:x-Ab12Cd",
            "arn:gcp:secretsmanager:us-east-1:123456789012:secret:x-Ab12Cd",
            "arn:aws:secretsmanager:us-east-1:1234567890123:secret:x-Ab12Cd",
            "arn:aws:ssm:us-east-1:123456789012:parameter/x",
            "arn:aws",
        ] {
            assert!(secret_arn_problem(bad).is_some(), "{bad}");
        }
    }
}
