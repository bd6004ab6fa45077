//! ARCHITECTURE.md's boundaries that a dependency or a call can break: which workspace crates
//! each crate may depend on, who reads environment variables, who opens files, who reads the
//! terminal, which of the schema crate's names `cost` may know, and that `plan-render` calls no
//! function of `runtime-plan` (it reads what a plan holds; deciding is `runtime-plan`'s).

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

/// The crates whose own code may read the terminal (stdin, or ask whether a stream is one): the
/// CLI, the language server (its stdio transport), the tests' helpers and xtask.
const TERMINAL_READERS: &[&str] = &["runway-cli", "runway-lsp", "test-support", "xtask"];

/// What `cost` may name of `runway-schema`: money, diagnostics and their places, the two
/// engine-like words its prices depend on, and the helpers that read its own file. Never the
/// runway file's model (`Product`, `Resource`, `Workload`, ...): sizes and prices only.
const COST_SCHEMA_NAMES: &[&str] = &[
    "Money",
    "Diagnostic",
    "Code",
    "Location",
    "Unread",
    "summary",
    "paths",
    "CatalogueSetting",
    "PostgresEngine",
    "Architecture",
];

pub(super) fn check(root: &Path, meta: &Metadata, out: &mut Vec<Violation>) {
    let deciding_modules = module_names(&root.join("crates/runtime-plan/src"));
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
        let name = pkg.name.as_str();
        let judge = Judge {
            env: !ENV_READERS.contains(&name),
            files: !FILE_READERS.contains(&name),
            terminal: !TERMINAL_READERS.contains(&name),
            schema_names: (name == "cost").then_some(COST_SCHEMA_NAMES),
            deciding_modules: (name == "plan-render").then(|| deciding_modules.clone()),
        };
        for target in pkg.targets.iter().filter(|t| matches!(t.kind.as_str(), "lib" | "bin")) {
            let Some(src) = target.root.parent() else { continue };
            io_uses(root, src, &judge, out);
        }
    }
}

/// The crates whose own code may open files: the CLI, the language server, `runway-files` (the
/// runway and catalogue files for both), the tests' helpers, xtask, the benchmarks and the
/// embedding example (an embedder's xtask writes its programs).
const FILE_READERS: &[&str] =
    &["runway-cli", "runway-lsp", "runway-files", "test-support", "xtask", "runway-bench", "embed-example"];

/// What one crate's code may not do.
struct Judge {
    env: bool,
    files: bool,
    terminal: bool,
    /// The only `runway_schema` names the crate may use, when it is limited.
    schema_names: Option<&'static [&'static str]>,
    /// For a crate that presents and decides nothing (`plan-render`): `runtime-plan`'s module
    /// names, so that a path into it ending in anything else lowercase is a function's.
    deciding_modules: Option<Vec<String>>,
}

/// The names of the modules under a crate's `src` (its files' and folders' stems).
fn module_names(src: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path.clone());
            }
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                names.push(stem.to_owned());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// Uses of `std::fs`, of `env::var*`, of stdin or `IsTerminal`, and of names of `runway_schema`
/// outside a crate's vocabulary, in a crate's own source, its `#[cfg(test)]` items aside (tests
/// read fixtures; they have test-support for `RUNWAY_PYTHON`).
fn io_uses(root: &Path, dir: &Path, judge: &Judge, out: &mut Vec<Violation>) {
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
            let mut visitor = IoUses { judge, hits: Vec::new() };
            visitor.visit_file(&source.ast);
            for (line, what) in visitor.hits {
                let message = match what {
                    Io::Terminal => {
                        "reads the terminal: only the CLI (and the language server's stdio) does \
                         (ARCHITECTURE.md, \"Boundaries\"); take the input as an argument"
                    }
                    Io::DecidingCall => {
                        "calls a function of `runtime-plan`: `plan-render` presents what a plan, diff, \
                         review or report holds and decides nothing (ARCHITECTURE.md, \"Boundaries\"); \
                         let `runtime-plan` put the decision in the value it returns"
                    }
                    Io::SchemaName => {
                        "names a part of the runway file's model: `cost` knows sizes and prices only \
                         (ARCHITECTURE.md, \"Boundaries\"); pass plain data, or add the name to \
                         COST_SCHEMA_NAMES in xtask/src/tidy/boundaries.rs with a reason"
                    }
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
    Terminal,
    SchemaName,
    DecidingCall,
}

/// Finds the I/O a crate's code does by name (a path or a `use`).
struct IoUses<'j> {
    judge: &'j Judge,
    hits: Vec<(usize, Io)>,
}

impl IoUses<'_> {
    fn judge(&mut self, segments: &[String], line: usize) {
        let pair = |a: &str, b: &[&str]| segments.windows(2).any(|w| w[0] == a && b.contains(&w[1].as_str()));
        let j = self.judge;
        if j.env && pair("env", &["var", "var_os", "vars", "vars_os"]) {
            self.hits.push((line, Io::Env));
        }
        if j.files && (pair("std", &["fs"]) || segments.first().is_some_and(|s| s == "fs")) {
            self.hits.push((line, Io::Fs));
        }
        if j.terminal && (pair("io", &["stdin"]) || segments.iter().any(|s| s == "IsTerminal")) {
            self.hits.push((line, Io::Terminal));
        }
        if let Some(allowed) = j.schema_names
            && let [first, name, ..] = segments
            && first == "runway_schema"
            && !allowed.contains(&name.as_str())
        {
            self.hits.push((line, Io::SchemaName));
        }
        if let Some(modules) = &j.deciding_modules
            && segments.first().is_some_and(|s| s == "runtime_plan")
            && let [.., before, last] = segments
            && is_function(before, last, modules)
        {
            self.hits.push((line, Io::DecidingCall));
        }
    }
}

/// Whether a path into `runtime-plan` ending `before::last` names a function: `last` is
/// lowercase and either follows a type (an associated function) or is no module's name.
fn is_function(before: &str, last: &str, modules: &[String]) -> bool {
    let lower = last.starts_with(|c: char| c.is_ascii_lowercase());
    let after_type = before.starts_with(|c: char| c.is_ascii_uppercase());
    lower && last != "self" && (after_type || !modules.iter().any(|m| m == last))
}

/// `#[cfg(test)]` (or `#[cfg(any(test, ...))]`) on an item.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("cfg") && a.to_token_stream().to_string().contains("test"))
}

impl<'ast> Visit<'ast> for IoUses<'_> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines `IoUses` flags in `source`, for a crate judged as `judge`.
    fn flagged(judge: &Judge, source: &str) -> Vec<usize> {
        let ast = syn::parse_file(source).expect("valid Rust");
        let mut visitor = IoUses { judge, hits: Vec::new() };
        visitor.visit_file(&ast);
        visitor.hits.into_iter().map(|(line, _)| line).collect()
    }

    #[test]
    fn the_terminal_and_the_files_model_are_found_outside_their_crates() {
        let cost = Judge {
            env: true,
            files: true,
            terminal: true,
            schema_names: Some(COST_SCHEMA_NAMES),
            deciding_modules: None,
        };
        let source = "use runway_schema::{Money, PostgresEngine};\n\
                      use runway_schema::Product;\n\
                      fn a(w: &runway_schema::Workload) {}\n\
                      fn b() -> bool { std::io::stdin().lines().count() > 0 }\n\
                      fn c() { let _ = runway_schema::paths::only_comments(\"\"); }\n\
                      #[cfg(test)]\n\
                      mod tests { use runway_schema::Product; }\n";
        assert_eq!(flagged(&cost, source), [2, 3, 4]);
        let cli =
            Judge { env: false, files: false, terminal: false, schema_names: None, deciding_modules: None };
        assert!(flagged(&cli, source).is_empty());
    }

    #[test]
    fn a_renderer_calling_a_deciding_function_is_found() {
        let modules = vec!["plan".to_owned(), "review".to_owned()];
        let render = Judge {
            env: true,
            files: true,
            terminal: true,
            schema_names: None,
            deciding_modules: Some(modules),
        };
        let source = "use runtime_plan::plan::{ItemSpec, Plan};\n\
                      use runtime_plan::review;\n\
                      use runtime_plan::fingerprint;\n\
                      fn a(p: &Plan) -> usize { runtime_plan::plan::summarize(p) }\n\
                      fn b(p: &Plan) { let _ = runtime_plan::Plan::graph(p); }\n\
                      fn c(r: &review::Review) -> usize { runtime_plan::MAX_ITEMS }\n";
        assert_eq!(flagged(&render, source), [3, 4, 5]);
        let cli =
            Judge { env: false, files: false, terminal: false, schema_names: None, deciding_modules: None };
        assert!(flagged(&cli, source).is_empty());
    }
}
