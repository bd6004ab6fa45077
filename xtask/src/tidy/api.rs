//! The aws-adapter's public API and docs/aws.md change together: a hash of the API's signatures
//! is recorded in the doc (`<!-- api-hash: … -->`), and the doc names every module of the
//! adapter. (rust-analyzer holds its LSP extensions' document the same way.)

use std::path::{Path, PathBuf};

use quote::ToTokens;
use sha2::{Digest, Sha256};

use super::{Rule, Violation, relative};

const SOURCE: &str = "crates/aws-adapter/src";
const DOC: &str = "docs/aws.md";
const MARK: &str = "<!-- api-hash: ";

pub(super) fn check(root: &Path, out: &mut Vec<Violation>) {
    let doc = match std::fs::read_to_string(root.join(DOC)) {
        Ok(doc) => doc,
        Err(e) => return out.push(violation(0, format!("cannot read it: {e}"))),
    };
    match api_hash(root) {
        Ok(actual) => match recorded(&doc) {
            Some((_, hash)) if hash == actual => {}
            Some((line, hash)) => out.push(violation(
                line,
                format!(
                    "the aws-adapter's public API changed (hash {actual}, the doc records {hash}): \
                     say in {DOC} what changed, then run `cargo xtask tidy --bless`"
                ),
            )),
            None => out.push(violation(
                0,
                format!("no `{MARK}… -->` line: run `cargo xtask tidy --bless` to record the API's hash"),
            )),
        },
        Err(e) => out.push(violation(0, e)),
    }
    for module in modules(root) {
        if !doc.contains(&format!("`{module}`")) {
            out.push(violation(
                0,
                format!("does not name the module `{module}` of {SOURCE}: say what it does, in backquotes"),
            ));
        }
    }
}

/// `--bless`: records the current hash in docs/aws.md.
pub(super) fn bless(root: &Path) -> Result<(), String> {
    let hash = api_hash(root)?;
    let path = root.join(DOC);
    let doc = std::fs::read_to_string(&path).map_err(|e| format!("{DOC}: {e}"))?;
    let line = format!("{MARK}{hash} -->");
    let mut lines: Vec<String> = doc.lines().map(str::to_owned).collect();
    match lines.iter().position(|l| l.starts_with(MARK)) {
        Some(i) => lines[i] = line,
        None => lines.splice(1..1, ["".to_owned(), line]).for_each(drop),
    }
    std::fs::write(&path, lines.join("\n") + "\n").map_err(|e| format!("{DOC}: {e}"))?;
    eprintln!("tidy: recorded the aws-adapter's API hash {hash} in {DOC}");
    Ok(())
}

fn violation(line: usize, message: String) -> Violation {
    Violation { path: DOC.to_owned(), line, rule: Rule::AwsApiDocs, name: String::new(), message }
}

/// The recorded hash and its line.
fn recorded(doc: &str) -> Option<(usize, String)> {
    doc.lines().enumerate().find_map(|(i, l)| {
        let rest = l.strip_prefix(MARK)?;
        Some((i + 1, rest.trim_end().trim_end_matches("-->").trim().to_owned()))
    })
}

/// The adapter's source files, sorted.
fn files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![root.join(SOURCE)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Each module file's name (`ssm.rs`), the crate root and `mod.rs` files aside.
fn modules(root: &Path) -> Vec<String> {
    files(root)
        .iter()
        .filter_map(|f| f.file_name()?.to_str().map(str::to_owned))
        .filter(|name| name != "lib.rs" && name != "mod.rs")
        .collect()
}

/// The first 16 hex digits of the SHA-256 of the sorted signatures.
fn api_hash(root: &Path) -> Result<String, String> {
    let mut signatures = Vec::new();
    for file in files(root) {
        let source = super::parsed(&file);
        let source = source.as_ref().as_ref().map_err(|e| format!("{}: {e}", file.display()))?;
        let module = relative(&root.join(SOURCE), &file);
        collect(&module, &source.ast.items, &mut signatures);
    }
    signatures.sort();
    let digest = Sha256::digest(signatures.join("\n").as_bytes());
    Ok(digest.iter().take(8).map(|b| format!("{b:02x}")).collect())
}

/// The public items' signatures: bodies and doc comments left out, so only a change a caller
/// sees changes the hash.
fn collect(module: &str, items: &[syn::Item], out: &mut Vec<String>) {
    for item in items {
        if is_test(item) {
            continue;
        }
        let mut push = |tokens: String| out.push(format!("{module}: {tokens}"));
        match item {
            syn::Item::Fn(f) if public(&f.vis) => push(signature(&f.sig)),
            syn::Item::Impl(imp) => {
                let header = format!("impl {} {}", generics(&imp.generics), imp.self_ty.to_token_stream());
                match &imp.trait_ {
                    Some((_, trait_, _)) => push(format!("{header} : {}", trait_.to_token_stream())),
                    None => {
                        for f in imp.items.iter().filter_map(|i| match i {
                            syn::ImplItem::Fn(f) if public(&f.vis) => Some(f),
                            _ => None,
                        }) {
                            push(format!("{header} {{ {} }}", signature(&f.sig)));
                        }
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    collect(&format!("{module}::{}", m.ident), inner, out);
                }
            }
            syn::Item::Const(_)
            | syn::Item::Enum(_)
            | syn::Item::Static(_)
            | syn::Item::Struct(_)
            | syn::Item::Trait(_)
            | syn::Item::Type(_)
            | syn::Item::Union(_)
            | syn::Item::Use(_)
                if item_public(item) =>
            {
                push(without_docs(item))
            }
            _ => {}
        }
    }
}

fn public(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

fn item_public(item: &syn::Item) -> bool {
    match item {
        syn::Item::Const(i) => public(&i.vis),
        syn::Item::Enum(i) => public(&i.vis),
        syn::Item::Static(i) => public(&i.vis),
        syn::Item::Struct(i) => public(&i.vis),
        syn::Item::Trait(i) => public(&i.vis),
        syn::Item::Type(i) => public(&i.vis),
        syn::Item::Union(i) => public(&i.vis),
        syn::Item::Use(i) => public(&i.vis),
        _ => false,
    }
}

fn is_test(item: &syn::Item) -> bool {
    let attrs: &[syn::Attribute] = match item {
        syn::Item::Mod(m) => &m.attrs,
        syn::Item::Fn(f) => &f.attrs,
        syn::Item::Impl(i) => &i.attrs,
        _ => return false,
    };
    attrs.iter().any(|a| a.path().is_ident("cfg") && a.to_token_stream().to_string().contains("test"))
}

fn signature(sig: &syn::Signature) -> String {
    sig.to_token_stream().to_string()
}

fn generics(g: &syn::Generics) -> String {
    g.to_token_stream().to_string()
}

/// The item printed with its doc comments (and those of its fields and methods) removed, and
/// a trait's default bodies.
fn without_docs(item: &syn::Item) -> String {
    let mut item = item.clone();
    strip_docs(&mut item);
    item.to_token_stream().to_string()
}

fn strip_docs(item: &mut syn::Item) {
    let not_doc = |a: &syn::Attribute| !a.path().is_ident("doc");
    match item {
        syn::Item::Struct(s) => {
            s.attrs.retain(not_doc);
            s.fields.iter_mut().for_each(|f| f.attrs.retain(not_doc));
        }
        syn::Item::Enum(e) => {
            e.attrs.retain(not_doc);
            for v in &mut e.variants {
                v.attrs.retain(not_doc);
                v.fields.iter_mut().for_each(|f| f.attrs.retain(not_doc));
            }
        }
        syn::Item::Trait(t) => {
            t.attrs.retain(not_doc);
            for i in &mut t.items {
                if let syn::TraitItem::Fn(f) = i {
                    f.attrs.retain(not_doc);
                    f.default = None;
                }
            }
        }
        syn::Item::Const(i) => i.attrs.retain(not_doc),
        syn::Item::Static(i) => i.attrs.retain(not_doc),
        syn::Item::Type(i) => i.attrs.retain(not_doc),
        syn::Item::Union(i) => i.attrs.retain(not_doc),
        syn::Item::Use(i) => i.attrs.retain(not_doc),
        _ => {}
    }
}
