//! The root runway: its settings, the environments, resources and workloads it declares, and
//! the paths it names (`members`, `catalogue`), which stay inside its folder.

use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;

use crate::diagnostic::Code;
use crate::model::*;
use crate::read::{Cx, index, join, quote};
use crate::tree::{Node, Value};
use crate::values::is_valid_product;

use super::environments::{UsageFor, check_usage_for, environment};
use super::members::first_by_name;
use super::previews::{Declared, previews};
use super::resources::resource;
use super::secrets::secrets;
use super::workloads::workload;
use super::{Known, keys, name_ok, version};

/// The validated root, before members are known.
#[derive(Default)]
pub(crate) struct RootParts<'n> {
    pub runway: Option<Runway>,
    /// The resources' value nodes by name, the first of a repeated name: the members' uses
    /// look them up too (built once, not again by the loader: sixth pass).
    pub resources_by_name: BTreeMap<&'n str, &'n Node>,
    pub members_node: Option<Node>,
    pub shared_nodes: Vec<(String, Engine, Node)>,
    /// `previews`, when written (its proxies' room is checked once the members are loaded).
    pub previews_node: Option<Node>,
    pub env_names: Vec<String>,
}

pub(crate) fn root<'n>(cx: &mut Cx<'_>, node: &'n Node, known: &Known<'_>) -> RootParts<'n> {
    let mut parts = RootParts::default();
    if node.value == Value::Null {
        cx.invalid(
            node,
            "",
            "the file is empty".to_owned(),
            Some("a root runway starts with `runway: 3` and `product: <name>`".to_owned()),
        );
        return parts;
    }
    let Some(f) = cx.fields(node, "", "the root runway", keys::ROOT) else { return parts };
    let errors_before = cx.diags.iter().filter(|d| d.is_error()).count();
    version(cx, &f, "the root runway");

    let product = cx
        .require(&f, "", "the root runway", "product", "add `product: <name>`")
        .and_then(|p| product_name(cx, p));

    let members = match f.get("members") {
        Some(m) => {
            parts.members_node = Some(m.clone());
            member_globs(cx, m)
        }
        None => Vec::new(),
    };

    let catalogue = f.get("catalogue").and_then(|c| catalogue_path(cx, c));

    // Environments first: every per-environment map is checked against them.
    let mut environments = IndexMap::new();
    let mut usage_for: Vec<UsageFor> = Vec::new();
    let env_node = cx.require(
        &f,
        "",
        "the root runway",
        "environments",
        "declare at least one environment, e.g. `environments: { dev: { region: eu-central-1 } }`",
    );
    if let Some(env_node) = env_node {
        let entries = cx.named_map(env_node, "environments", "`environments`");
        if entries.is_empty() && matches!(env_node.value, Value::Map(_) | Value::Null) {
            cx.invalid(
                env_node,
                "environments",
                "no environment is declared".to_owned(),
                Some("declare at least one, e.g. `dev: { region: eu-central-1 }`".to_owned()),
            );
        }
        for (name, k, v) in entries {
            let path = join("environments", name);
            parts.env_names.push(name.to_owned());
            let ok_name = name_ok(cx, k, &path, name, "environment", false);
            if let Some(env) =
                environment(cx, name, k, v, &path, known, (&mut parts.shared_nodes, &mut usage_for))
                && ok_name
            {
                environments.insert(name.to_owned(), env);
            }
        }
    }
    let envs = parts.env_names.clone();

    let secrets = f
        .get("secrets")
        .and_then(|s| secrets(cx, s, &envs))
        .unwrap_or(Secrets { infisical: None, ssm: Ssm::default() });

    // Names are unique across resources and workloads.
    let res_entries =
        f.get("resources").map(|n| cx.named_map(n, "resources", "`resources`")).unwrap_or_default();
    let wl_entries =
        f.get("workloads").map(|n| cx.named_map(n, "workloads", "`workloads`")).unwrap_or_default();
    // By name (the first of a repeated one): also the set of resource names (one sorted
    // collection, not two: fifth pass).
    let resource_nodes = first_by_name(&res_entries);

    let mut resources = IndexMap::with_capacity(res_entries.len()); // exact: no doubling's slack
    for (name, k, v) in &res_entries {
        let path = join("resources", name);
        let ok = name_ok(cx, k, &path, name, "resource", true);
        if let Some(r) = resource(cx, v, &path, &envs, known)
            && ok
        {
            resources.insert((*name).to_owned(), r);
        }
    }

    let mut workloads = IndexMap::with_capacity(wl_entries.len());
    for (name, k, v) in &wl_entries {
        let path = join("workloads", name);
        let mut ok = name_ok(cx, k, &path, name, "workload", true);
        if resource_nodes.contains_key(name) {
            cx.error(
                Code::DuplicateName,
                k,
                &path,
                format!("{} is both a resource and a workload", quote(name)),
                Some("a name is unique across resources and workloads: rename one of them".to_owned()),
            );
            ok = false;
        }
        if let Some(w) =
            workload(cx, name, v, &path, &envs, &environments, &res_entries, &resource_nodes, known)
            && ok
        {
            workloads.insert((*name).to_owned(), w);
        }
    }

    // `usage.for` names resources and workloads: checked now that they are known. A name whose
    // own declaration had errors is not checked again.
    let declared: BTreeSet<&str> = res_entries.iter().chain(&wl_entries).map(|(n, _, _)| *n).collect();
    let failed: BTreeSet<&str> =
        declared.into_iter().filter(|n| !resources.contains_key(*n) && !workloads.contains_key(*n)).collect();
    check_usage_for(cx, &usage_for, (&resources, &workloads), &failed);

    // `previews` names an environment and workloads: checked once both are known.
    let workload_names: Vec<&str> = wl_entries.iter().map(|(n, _, _)| *n).collect();
    let declared = Declared { envs: &envs, workloads: &workload_names, secrets: &secrets };
    let previews = f.get("previews").and_then(|p| previews(cx, p, &declared));
    parts.previews_node = f.get("previews").map(|n| (*n).clone());

    let errors_after = cx.diags.iter().filter(|d| d.is_error()).count();
    if errors_after == errors_before
        && let Some(product) = product
    {
        if secrets.infisical.is_none() {
            missing_infisical(cx, (&resources, &res_entries), (&workloads, &wl_entries));
        }
        parts.runway = Some(Runway {
            file: cx.file.to_owned(),
            product,
            members,
            catalogue,
            secrets,
            environments,
            resources,
            workloads,
            previews,
        });
    }
    parts.resources_by_name = resource_nodes;
    parts
}

/// A declaration as the file holds it: its name, its key and its value.
type Entry<'n> = (&'n str, &'n Node, &'n Node);

/// Warns (`missing-infisical`) at the first thing of the root that needs a secret in Infisical
/// when there is no `secrets.infisical`: `check` and `plan` pass without it, but the deploy's
/// `secrets prepare` stops (exit 2), so say it where the need is written.
fn missing_infisical(
    cx: &mut Cx<'_>,
    (resources, res_entries): (&IndexMap<String, Resource>, &[Entry<'_>]),
    (workloads, wl_entries): (&IndexMap<String, Workload>, &[Entry<'_>]),
) {
    let resource_need = res_entries.iter().find_map(|(name, k, _)| {
        let why = match resources.get(*name)?.kind() {
            Kind::Postgres => {
                "a postgres resource, whose generated passwords `secrets prepare` writes to Infisical"
            }
            Kind::Cache => "a cache, whose AUTH token `secrets prepare` writes to Infisical",
            Kind::Queue | Kind::Topic | Kind::Bucket => return None,
        };
        Some((join("resources", name), *k, format!("`{name}` is {why}")))
    });
    let workload_need = || {
        wl_entries.iter().find_map(|(name, k, _)| {
            let w = workloads.get(*name)?;
            let why = if !w.secrets.is_empty() {
                "reads `secrets:` from Infisical"
            } else if matches!(w.registry_credentials, Some(RegistryCredentials::Infisical(_))) {
                "pulls its image with `registryCredentials` that `secrets prepare` copies from Infisical"
            } else {
                return None;
            };
            Some((join("workloads", name), *k, format!("workload `{name}` {why}")))
        })
    };
    let Some((path, node, what)) = resource_need.or_else(workload_need) else { return };
    cx.warning(
        Code::MissingInfisical,
        node,
        &path,
        format!(
            "{what}, but the runway has no `secrets.infisical` block: `check` and `plan` pass, and the \
             deploy's `runway secrets prepare` will stop (exit 2)"
        ),
        Some(
            "add `secrets: { infisical: { project: <Infisical project id> } }` to the root runway \
             (docs/secrets.md)"
                .to_owned(),
        ),
    );
}

/// `product`: a valid product name.
fn product_name(cx: &mut Cx<'_>, p: &Node) -> Option<String> {
    let name = cx.string(p, "product", "`product`")?;
    if is_valid_product(&name) {
        return Some(name);
    }
    cx.error(
        Code::InvalidName,
        p,
        "product",
        format!("product name {} is not valid", quote(&name)),
        Some("use 3 to 32 characters: lowercase letters, digits and `-`, starting with a letter and not ending with `-`".to_owned()),
    );
    None
}

/// `catalogue: prices.yaml`: a non-empty path (the CLI reads the file, relative to the root).
fn catalogue_path(cx: &mut Cx<'_>, node: &Node) -> Option<String> {
    let path = cx.string(node, "catalogue", "`catalogue`")?;
    if path.trim().is_empty() {
        cx.invalid(
            node,
            "catalogue",
            "`catalogue` is empty".to_owned(),
            Some("name a catalogue file relative to this file, e.g. `catalogue: prices.yaml`, or remove the key".to_owned()),
        );
        return None;
    }
    inside_root(
        cx,
        node,
        "catalogue",
        &path,
        "a catalogue path is relative to this file's folder and stays inside it, e.g. `prices.yaml`",
    )
    .then_some(path)
}

/// Is `path` inside the root's folder? Reports `outside-root` at `node` when it is not.
fn inside_root(cx: &mut Cx<'_>, node: &Node, at: &str, path: &str, help: &str) -> bool {
    let Some(why) = crate::paths::outside_root(path) else { return true };
    cx.error(
        Code::OutsideRoot,
        node,
        at,
        format!("{} leaves the root runway's folder: {why}; nothing there is read", quote(path)),
        Some(help.to_owned()),
    );
    false
}

/// The `members` globs, each a string that stays inside the root's folder.
fn member_globs(cx: &mut Cx<'_>, m: &Node) -> Vec<String> {
    let mut members = Vec::new();
    if let Some(items) = cx.list(m, "members", "`members`") {
        for (i, item) in items.iter().enumerate() {
            let path = index("members", i);
            const HELP: &str =
                "a members glob is relative to this file's folder and stays inside it, e.g. `services/*`";
            if let Some(g) = cx.string(item, &path, "a members glob")
                && inside_root(cx, item, &path, &g, HELP)
            {
                members.push(g);
            }
        }
    }
    members
}
