//! ARCHITECTURE.md's boundaries that a dependency or a call can break: which workspace crates
//! each crate may depend on, who reads environment variables and who opens files.

use std::path::Path;

use quote::ToTokens;
use syn::visit::Visit;

use super::circles::use_leaves;
use super::metadata::Metadata;
use super::{Rule, Violation, line_of, relative};

/// Each crate's allowed workspace dependencies (normal ones; dev-dependencies are free). A
/// crate not listed (the CLI, benchmarks, xtask, the embedding example) may use any.
const LAYERS: &[(&str, &[&str], &str)] = &[
    ("runway-schema", &[], "it knows the file format and nothing of AWS or prices"),
    ("cost", &["runway-schema"], "it knows sizes and prices, not plans"),
    ("runtime-plan", &["runway-schema", "cost"], "it decides from the product and the catalogue"),
    (
        "plan-render",
        &["runtime-plan", "runway-schema"],
        "it presents what a plan decided, and decides nothing",
    ),
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
    for pkg in &meta.members {
        let env = !ENV_READERS.contains(&pkg.name.as_str());
        let files = !FILE_READERS.contains(&pkg.name.as_str());
        if !env && !files {
            continue;
        }
        for target in pkg.targets.iter().filter(|t| matches!(t.kind.as_str(), "lib" | "bin")) {
            let Some(src) = target.root.parent() else { continue };
            io_uses(root, src, env, files, out);
        }
    }
}

/// The crates whose own code may open files: the CLI, the language server, `runway-files` (the
/// runway and catalogue files for both), the tests' helpers, xtask, the benchmarks and the
/// embedding example (an embedder's xtask writes its programs).
const FILE_READERS: &[&str] =
    &["runway-cli", "runway-lsp", "runway-files", "test-support", "xtask", "runway-bench", "embed-example"];

/// Uses of `std::fs` and of `env::var*` in a crate's own source, its `#[cfg(test)]` items aside
/// (tests read fixtures; they have test-support for `RUNWAY_PYTHON`).
fn io_uses(root: &Path, dir: &Path, env: bool, files: bool, out: &mut Vec<Violation>) {
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
            let source = super::parsed(&path);
            let Ok(source) = source.as_ref() else {
                continue; // the size rules report a file that does not parse
            };
            let mut visitor = IoUses { env, files, hits: Vec::new() };
            visitor.visit_file(&source.ast);
            for (line, what) in visitor.hits {
                let message = match what {
                    Io::Env => {
                        "reads an environment variable: only the CLI does (and the Infisical client it calls; \
                                ARCHITECTURE.md, \"Boundaries\"); take the value as an argument"
                    }
                    Io::Fs => {
                        "uses `std::fs`: only the CLI, the language server and runway-files open files \
                               (ARCHITECTURE.md, \"Boundaries\"); take the text as an argument or return it"
                    }
                };
                out.push(Violation {
                    path: relative(root, &path),
                    line,
                    rule: Rule::Boundary,
                    name: String::new(),
                    message: message.to_owned(),
                });
            }
        }
    }
}

enum Io {
    Env,
    Fs,
}

/// Finds the I/O a crate's code does by name (a path or a `use`).
struct IoUses {
    env: bool,
    files: bool,
    hits: Vec<(usize, Io)>,
}

impl IoUses {
    fn judge(&mut self, segments: &[String], line: usize) {
        let pair = |a: &str, b: &[&str]| segments.windows(2).any(|w| w[0] == a && b.contains(&w[1].as_str()));
        if self.env && pair("env", &["var", "var_os", "vars", "vars_os"]) {
            self.hits.push((line, Io::Env));
        }
        if self.files && (pair("std", &["fs"]) || segments.first().is_some_and(|s| s == "fs")) {
            self.hits.push((line, Io::Fs));
        }
    }
}

/// `#[cfg(test)]` (or `#[cfg(any(test, ...))]`) on an item.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("cfg") && a.to_token_stream().to_string().contains("test"))
}

impl<'ast> Visit<'ast> for IoUses {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Mod(i) => &i.attrs,
            syn::Item::Fn(i) => &i.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(i) => &i.attrs,
            _ => &[],
        };
        if !is_test(attrs) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut leaves = Vec::new();
        use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
        for leaf in leaves {
            let line = line_of(u.use_token.span);
            self.judge(&leaf.segments, line);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if let Some(first) = path.segments.first() {
            let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.judge(&segments, line_of(first.ident.span()));
        }
        syn::visit::visit_path(self, path);
    }
}
