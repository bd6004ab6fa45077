//! Files over 800 lines and functions over 150 (fn items, methods, trait default methods,
//! nested functions, and functions inside macro calls such as `proptest! { ... }`; closures
//! belong to their function).

use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::Visit;

use super::{MAX_FILE_LINES, MAX_FN_LINES, Rule, Violation, line_of, relative, unreadable};

pub(super) fn check(root: &Path, files: &[PathBuf], out: &mut Vec<Violation>) {
    for file in files {
        let parsed = super::parsed(file);
        let parsed = match parsed.as_ref() {
            Ok(parsed) => parsed,
            Err(e) => {
                out.push(unreadable(root, file, e));
                continue;
            }
        };
        let path = relative(root, file);
        let lines = parsed.lines;
        if lines > MAX_FILE_LINES {
            out.push(Violation {
                path: path.clone(),
                line: 0,
                rule: Rule::FileLines,
                name: String::new(),
                message: format!(
                    "{lines} lines, over {MAX_FILE_LINES}: split it into a module folder of \
                     cohesive files (pure moves)"
                ),
            });
        }
        let mut long = LongFns { path: &path, out: &mut *out };
        long.visit_file(&parsed.ast);
    }
}

/// Collects the functions over [`MAX_FN_LINES`].
struct LongFns<'a> {
    path: &'a str,
    out: &'a mut Vec<Violation>,
}

impl LongFns<'_> {
    /// From the `fn` keyword to the body's closing brace.
    fn measure(&mut self, sig: &syn::Signature, body: &syn::Block) {
        let start = line_of(sig.fn_token.span());
        let end = body.brace_token.span.close().end().line;
        self.judge(&sig.ident.to_string(), start, end);
    }

    /// `fn name ... { ... }` in a macro call's tokens (not parsed as Rust: `proptest!` writes
    /// `x in strategy` among the arguments), nested groups included.
    fn tokens(&mut self, tokens: proc_macro2::TokenStream) {
        use proc_macro2::{Delimiter, TokenTree};
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, token) in tokens.iter().enumerate() {
            match token {
                TokenTree::Ident(fn_token) if fn_token == "fn" => {
                    let Some(TokenTree::Ident(name)) = tokens.get(i + 1) else { continue };
                    // The body is the first brace group after the name; a `;` first means none.
                    let body = tokens[i + 2..]
                        .iter()
                        .take_while(|t| !matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))
                        .find_map(|t| match t {
                            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => Some(g),
                            _ => None,
                        });
                    if let Some(body) = body {
                        self.judge(&name.to_string(), line_of(fn_token.span()), body.span_close().end().line);
                    }
                }
                TokenTree::Group(g) => self.tokens(g.stream()),
                _ => {}
            }
        }
    }

    fn judge(&mut self, name: &str, start: usize, end: usize) {
        let lines = end.saturating_sub(start) + 1;
        if lines > MAX_FN_LINES {
            self.out.push(Violation {
                path: self.path.to_owned(),
                line: start,
                rule: Rule::FnLines,
                name: name.to_owned(),
                message: format!(
                    "fn `{name}` is {lines} lines, over {MAX_FN_LINES}: give its steps functions of \
                     their own"
                ),
            });
        }
    }
}

impl<'ast> Visit<'ast> for LongFns<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.measure(&f.sig, &f.block);
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.measure(&f.sig, &f.block);
        syn::visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.measure(&f.sig, body);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A function of `body` lines between its `fn` line and its closing brace.
    fn function(name: &str, body: usize) -> String {
        format!("fn {name}() {{\n{}}}\n", "    let _ = 1;\n".repeat(body))
    }

    #[test]
    fn a_function_over_150_lines_is_named_with_its_line_and_nested_ones_count() {
        let dir = std::env::temp_dir().join(format!("xtask-tidy-sizes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        let file = dir.join("long.rs");
        let text = format!(
            "{}{}impl S {{\n    fn outer() {{\n        {}    }}\n}}\nproptest! {{\n    #[test]\n    {}}}\n",
            function("fits", 148),
            function("too_long", 149),
            function("nested", 149),
            function("in_a_macro", 149).replace("()", "(x in 0..3u8)")
        );
        std::fs::write(&file, text).expect("a scratch file");
        let mut out = Vec::new();
        check(&dir, &[file], &mut out);
        let _ = std::fs::remove_dir_all(&dir);
        let named: Vec<(usize, &str)> = out.iter().map(|v| (v.line, v.name.as_str())).collect();
        // `fits` is 150 lines; `outer` is 153 (it holds `nested`, 151); `in_a_macro` 151.
        assert_eq!(
            named,
            [(151, "too_long"), (303, "outer"), (304, "nested"), (459, "in_a_macro")],
            "{out:?}"
        );
        assert!(out[0].message.contains("151 lines, over 150"), "{}", out[0]);
    }
}
