//! What `cargo metadata` says of the workspace: its crates and their targets (for the module
//! circles), their descriptions, and the core crates' normal dependency tree.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::{Rule, Violation, relative};

/// The pure core: no I/O (ARCHITECTURE.md, "Invariants").
pub(crate) const CORE_CRATES: [&str; 5] =
    ["runway-schema", "cost", "runtime-plan", "plan-render", "pulumi-program"];

/// Crates that do I/O: none may be a normal dependency of a core crate, however deep.
const IO_CRATES: [&str; 4] = ["tokio", "reqwest", "hyper", "mio"];
/// Prefixes of I/O crates (the AWS SDK and its runtime).
const IO_PREFIXES: [&str; 2] = ["aws-", "aws_"];

fn is_io_crate(name: &str) -> bool {
    IO_CRATES.contains(&name) || IO_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// A workspace crate.
pub(crate) struct Package {
    pub(crate) name: String,
    manifest: PathBuf,
    description: Option<String>,
    /// Each target's kind (`lib`, `bin`, `test`, ...), name and root file.
    pub(crate) targets: Vec<Target>,
}

/// One target of a crate: a crate root of its own.
pub(crate) struct Target {
    pub(crate) kind: String,
    pub(crate) name: String,
    pub(crate) root: PathBuf,
}

pub(crate) struct Metadata {
    pub(crate) members: Vec<Package>,
    /// Package id → its name.
    names: BTreeMap<String, String>,
    /// Package id → the ids of its normal (not dev, not build) dependencies.
    normal_deps: BTreeMap<String, Vec<String>>,
}

impl Metadata {
    /// Runs `cargo metadata` (all features: a feature of a core crate counts too).
    pub(crate) fn read(root: &Path) -> Result<Metadata, String> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.args(["metadata", "--format-version", "1", "--all-features"]).current_dir(root);
        crate::clean_env(&mut cmd);
        let out = cmd.output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).into_owned());
        }
        let json: Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
        Ok(Metadata::from_json(&json))
    }

    fn from_json(json: &Value) -> Metadata {
        let str_of = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        let array = |v: &Value, key: &str| v.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
        let workspace: BTreeSet<String> =
            array(json, "workspace_members").iter().filter_map(|v| v.as_str().map(str::to_owned)).collect();
        let mut names = BTreeMap::new();
        let mut members = Vec::new();
        for pkg in array(json, "packages") {
            let (Some(id), Some(name)) = (str_of(&pkg, "id"), str_of(&pkg, "name")) else { continue };
            names.insert(id.clone(), name.clone());
            if !workspace.contains(&id) {
                continue;
            }
            let targets = array(&pkg, "targets")
                .iter()
                .filter_map(|t| {
                    let kind = t.get("kind")?.as_array()?.first()?.as_str()?.to_owned();
                    Some(Target {
                        kind,
                        name: str_of(t, "name")?,
                        root: PathBuf::from(str_of(t, "src_path")?),
                    })
                })
                .collect();
            members.push(Package {
                name,
                manifest: PathBuf::from(str_of(&pkg, "manifest_path").unwrap_or_default()),
                description: str_of(&pkg, "description").filter(|d| !d.trim().is_empty()),
                targets,
            });
        }
        let mut normal_deps = BTreeMap::new();
        let nodes = json.get("resolve").map(|r| array(r, "nodes")).unwrap_or_default();
        for node in nodes {
            let Some(id) = str_of(&node, "id") else { continue };
            let deps = array(&node, "deps")
                .iter()
                .filter(|d| {
                    // `kind: null` is a normal dependency; "dev" and "build" are not.
                    array(d, "dep_kinds").iter().any(|k| k.get("kind").is_none_or(Value::is_null))
                })
                .filter_map(|d| str_of(d, "pkg"))
                .collect();
            normal_deps.insert(id, deps);
        }
        members.sort_by(|a, b| a.name.cmp(&b.name));
        Metadata { members, names, normal_deps }
    }

    /// An I/O crate reached from a core crate through normal dependencies only.
    pub(crate) fn check_io_dependencies(&self, out: &mut Vec<Violation>) {
        for core in CORE_CRATES {
            let Some(start) = self.names.iter().find(|(id, n)| *n == core && self.is_member(id)) else {
                continue;
            };
            // Breadth first, remembering who brought each crate in, to name the chain.
            let mut via: BTreeMap<&str, &str> = BTreeMap::new();
            let mut queue = std::collections::VecDeque::from([start.0.as_str()]);
            let mut seen = BTreeSet::from([start.0.as_str()]);
            while let Some(id) = queue.pop_front() {
                for dep in self.normal_deps.get(id).into_iter().flatten() {
                    if seen.insert(dep.as_str()) {
                        via.insert(dep, id);
                        queue.push_back(dep);
                    }
                }
            }
            for id in &seen {
                let name = self.name(id);
                if !is_io_crate(name) {
                    continue;
                }
                let mut chain = vec![name];
                let mut at = *id;
                while let Some(parent) = via.get(at) {
                    chain.push(self.name(parent));
                    at = parent;
                }
                chain.reverse();
                out.push(Violation {
                    path: format!("crates/{core}/Cargo.toml"),
                    line: 0,
                    rule: Rule::IoDependency,
                    name: name.to_owned(),
                    message: format!(
                        "the I/O crate `{name}` is in the core crate's normal dependency tree ({}): \
                         the core does no I/O; move what needs it to an adapter or make it a \
                         dev-dependency",
                        chain.join(" → ")
                    ),
                });
            }
        }
    }

    /// A workspace crate without a `description`.
    pub(crate) fn check_descriptions(&self, root: &Path, out: &mut Vec<Violation>) {
        for pkg in self.members.iter().filter(|p| p.description.is_none()) {
            out.push(Violation {
                path: relative(root, &pkg.manifest),
                line: 0,
                rule: Rule::Description,
                name: String::new(),
                message: format!(
                    "crate `{}` has no `description`: say in one sentence what it is for",
                    pkg.name
                ),
            });
        }
    }

    /// The workspace crates `name` depends on directly as normal dependencies.
    pub(crate) fn workspace_deps_of(&self, name: &str) -> Vec<&str> {
        let Some((id, _)) = self.names.iter().find(|(id, n)| *n == name && self.is_member(id)) else {
            return Vec::new();
        };
        let mut deps: Vec<&str> = self
            .normal_deps
            .get(id)
            .into_iter()
            .flatten()
            .filter(|dep| self.is_member(dep))
            .map(|dep| self.name(dep))
            .collect();
        deps.sort_unstable();
        deps
    }

    fn name<'a>(&'a self, id: &'a str) -> &'a str {
        self.names.get(id).map_or(id, String::as_str)
    }

    fn is_member(&self, id: &str) -> bool {
        self.members.iter().any(|p| self.names.get(id) == Some(&p.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dep(pkg: &str, kind: Option<&str>) -> Value {
        serde_json::json!({ "pkg": pkg, "dep_kinds": [{ "kind": kind, "target": null }] })
    }

    /// Only normal edges count, however deep; the chain names who brought the crate in.
    #[test]
    fn an_io_crate_reached_through_normal_dependencies_is_named_with_its_chain() {
        let json = serde_json::json!({
            "workspace_members": ["cost-id"],
            "packages": [
                { "id": "cost-id", "name": "cost", "description": "d", "manifest_path": "/w/crates/cost/Cargo.toml", "targets": [] },
                { "id": "foo-id", "name": "foo" },
                { "id": "tokio-id", "name": "tokio" },
                { "id": "hyper-id", "name": "hyper" },
                { "id": "aws-id", "name": "aws-smithy-runtime" },
            ],
            "resolve": { "nodes": [
                { "id": "cost-id", "deps": [dep("foo-id", None), dep("hyper-id", Some("dev")), dep("aws-id", Some("build"))] },
                { "id": "foo-id", "deps": [dep("tokio-id", None)] },
                { "id": "hyper-id", "deps": [] },
                { "id": "tokio-id", "deps": [] },
            ]},
        });
        let meta = Metadata::from_json(&json);
        let mut out = Vec::new();
        meta.check_io_dependencies(&mut out);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].path, "crates/cost/Cargo.toml");
        assert!(
            out[0].message.contains("`tokio`") && out[0].message.contains("(cost → foo → tokio)"),
            "{}",
            out[0]
        );
    }
}
