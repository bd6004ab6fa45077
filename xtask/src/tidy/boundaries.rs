//! ARCHITECTURE.md's boundaries that a dependency or a call can break: which workspace crates
//! each crate may depend on, and who reads environment variables.

use std::path::Path;

use super::metadata::Metadata;
use super::{Rule, Violation, relative};

/// Each crate's allowed workspace dependencies (normal ones; dev-dependencies are free). A
/// crate not listed (the CLI, benchmarks, xtask, the embedding example) may use any.
const LAYERS: &[(&str, &[&str], &str)] = &[
    ("runway-schema", &[], "it knows the file format and nothing of AWS or prices"),
    ("cost", &["runway-schema"], "it knows sizes and prices, not plans"),
    ("runtime-plan", &["runway-schema", "cost"], "it decides from the product and the catalogue"),
    (
        "pulumi-program",
        &["runtime-plan", "runway-schema"],
        "an adapter takes a plan and never re-reads runway files",
    ),
    (
        "aws-adapter",
        &[],
        "the aws-adapter carries out decisions it is handed as plain data; it decides nothing",
    ),
    ("secrets-adapter", &[], "an adapter takes plain data derived from a plan"),
    ("price-import", &["cost"], "it returns `cost` data and decides nothing about plans"),
    ("runway-files", &["runway-schema", "cost"], "it reads files for the CLI and the editor"),
    (
        "runway-lsp",
        &["runway-schema", "runway-files", "cost", "runtime-plan"],
        "the editor shows check, cost and plan",
    ),
    ("synthetic", &[], "it writes YAML text only"),
    ("test-support", &[], "the tests' helpers stand apart from what they test"),
];

/// The crates whose own code may read environment variables: the CLI, the Infisical client's
/// `Client::from_env_or` (called by the CLI only), the tests' helpers and xtask. (The AWS SDK
/// inside aws-adapter reads `AWS_*` through its default chain, not through this code.)
const ENV_READERS: &[&str] = &["runway-cli", "secrets-adapter", "test-support", "xtask"];

pub(super) fn check(root: &Path, meta: &Metadata, out: &mut Vec<Violation>) {
    for (krate, allowed, why) in LAYERS {
        for dep in meta.workspace_deps_of(krate) {
            if !allowed.contains(&dep) {
                out.push(Violation {
                    path: format!("crates/{krate}/Cargo.toml"),
                    line: 0,
                    rule: Rule::Boundary,
                    name: dep.to_owned(),
                    message: format!(
                        "`{krate}` depends on `{dep}`, outside its boundary ({why}; ARCHITECTURE.md, \
                         \"Boundaries\"): pass what it needs in as plain data, or change the \
                         boundary there and in xtask/src/tidy/boundaries.rs"
                    ),
                });
            }
        }
    }
    for pkg in meta.members.iter().filter(|p| !ENV_READERS.contains(&p.name.as_str())) {
        for target in pkg.targets.iter().filter(|t| matches!(t.kind.as_str(), "lib" | "bin")) {
            let Some(src) = target.root.parent() else { continue };
            env_reads(root, src, out);
        }
    }
}

/// `env::var`, `var_os`, `vars` and `vars_os` in a crate's own source (tests of that source
/// included: they have test-support for `RUNWAY_PYTHON`).
fn env_reads(root: &Path, dir: &Path, out: &mut Vec<Violation>) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            for (i, line) in text.lines().enumerate() {
                if line.contains("env::var") && !line.trim_start().starts_with("//") {
                    out.push(Violation {
                        path: relative(root, &path),
                        line: i + 1,
                        rule: Rule::Boundary,
                        name: "env".to_owned(),
                        message: "reads an environment variable: only the CLI does (ARCHITECTURE.md, \
                                  \"Boundaries\"); take the value as an argument"
                            .to_owned(),
                    });
                }
            }
        }
    }
}
