//! Criterion benchmarks of the language server on the shipped example (`examples/acme-shop`):
//! one bench per request kind, each through [`runway_lsp::Server`] as a client's JSON message
//! (the stdio transport aside). The target is 50 ms per request; docs/benchmarks.md has the
//! figures.
#![allow(missing_docs)] // reason: `criterion_group!` generates an undocumented function

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use lsp_server::{Notification, Request, RequestId};
use runway_lsp::Server;
use serde_json::{Value, json};

fn example(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/acme-shop").join(rel)
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.canonicalize().expect("the example exists").display())
}

/// The 0-based line and UTF-16 column of the first `needle` in `text`, plus `skip` columns.
fn position(text: &str, needle: &str, skip: usize) -> Value {
    let offset = text.find(needle).expect("the needle is in the example");
    let line = text[..offset].matches('\n').count();
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let character = text[start..offset].encode_utf16().count() + skip;
    json!({"line": line, "character": character})
}

fn request(method: &str, params: Value) -> Request {
    Request::new(RequestId::from(1), method.to_owned(), params)
}

fn benches(c: &mut Criterion) {
    let root = example("runway.yaml");
    let member = example("tools/reporting/runway.yaml");
    let (root_uri, member_uri) = (uri(&root), uri(&member));
    let text = std::fs::read_to_string(&root).expect("the example reads");
    let member_text = std::fs::read_to_string(&member).expect("the member reads");
    let mut server = Server::new(None);
    let open = |uri: &str, text: &str| {
        Notification::new(
            "textDocument/didOpen".to_owned(),
            json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
        )
    };
    server.notify(open(&root_uri, &text));
    server.notify(open(&member_uri, &member_text));
    let at = |uri: &str, needle: &str, skip: usize| json!({"textDocument": {"uri": uri}, "position": position(&text, needle, skip)});
    let cases: Vec<(&str, &str, Value)> = vec![
        ("hover_resource", "textDocument/hover", at(&root_uri, "  main-db:", 3)),
        ("hover_workload", "textDocument/hover", at(&root_uri, "  metabase:", 3)),
        ("hover_size", "textDocument/hover", at(&root_uri, "production: large }", 13)),
        ("completion_uses", "textDocument/completion", at(&root_uri, "uses: [jobs, uploads]", 7)),
        ("completion_keys", "textDocument/completion", at(&root_uri, "    engine: rds", 4)),
        ("definition", "textDocument/definition", at(&root_uri, "uses: [jobs, uploads]", 8)),
        ("references", "textDocument/references", {
            let mut p = at(&root_uri, "  main-db:", 3);
            p["context"] = json!({"includeDeclaration": true});
            p
        }),
    ];
    let mut group = c.benchmark_group("lsp");
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    // A change of the root: the whole check (load, validate, plan every environment) and the
    // diagnostics of every file of the product.
    let mut version = 1;
    group.bench_function("did_change", |b| {
        b.iter(|| {
            version += 1;
            let change = Notification::new(
                "textDocument/didChange".to_owned(),
                json!({"textDocument": {"uri": root_uri, "version": version}, "contentChanges": [{"text": text}]}),
            );
            black_box(server.notify(change))
        });
    });
    for (name, method, params) in cases {
        let response = server.request(request(method, params.clone()));
        assert!(
            response.error.is_none() && response.result.as_ref().is_some_and(|r| !r.is_null()),
            "{name} answers: {response:?}"
        );
        group.bench_function(name, |b| b.iter(|| black_box(server.request(request(method, params.clone())))));
    }
    // A fix: the member's unsaved text names a resource that does not exist.
    let bad = member_text.replace("main-db", "main-bd");
    server.notify(open(&member_uri, &bad));
    let offset = bad.find("main-bd").expect("the typo is there");
    let line = bad[..offset].matches('\n').count();
    let character = offset - bad[..offset].rfind('\n').map_or(0, |i| i + 1);
    let params = json!({"textDocument": {"uri": member_uri}, "range": {"start": {"line": line, "character": character},
        "end": {"line": line, "character": character + 7}}, "context": {"diagnostics": []}});
    let response = server.request(request("textDocument/codeAction", params.clone()));
    assert!(
        response.result.as_ref().and_then(Value::as_array).is_some_and(|a| !a.is_empty()),
        "code_action answers a fix: {response:?}"
    );
    group.bench_function("code_action", |b| {
        b.iter(|| black_box(server.request(request("textDocument/codeAction", params.clone()))))
    });
    group.finish();
}

criterion_group!(lsp, benches);
criterion_main!(lsp);
