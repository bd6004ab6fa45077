//! The edits the server returns (completion, code actions) applied to the text and read back:
//! the result is YAML with the intended value.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use lsp_server::{Notification, Request, RequestId};
use lsp_types::{Position, Range};
use runway_lsp::Server;
use runway_lsp::position::SourceText;
use runway_schema::syntax;
use serde_json::{Value, json};

const DIR: &str = "/nonexistent-runway-lsp-server-test/shop";

fn uri(file: &str) -> String {
    format!("file://{DIR}/{file}")
}

fn open(server: &mut Server, file: &str, text: &str) -> Vec<Notification> {
    server.notify(Notification::new(
        "textDocument/didOpen".into(),
        json!({"textDocument": {"uri": uri(file), "languageId": "yaml", "version": 1, "text": text}}),
    ))
}

fn request(server: &mut Server, method: &str, params: Value) -> Value {
    let response = server.request(Request::new(RequestId::from(1), method.into(), params));
    assert!(response.error.is_none(), "{method}: {:?}", response.error);
    response.result.unwrap_or(Value::Null)
}

/// The position just after the first `needle` (ASCII text).
fn after(text: &str, needle: &str) -> Position {
    let end = text.find(needle).expect("needle") + needle.len();
    SourceText::new(text.to_owned()).position(end)
}

fn range_of(v: &Value) -> Range {
    serde_json::from_value(v.clone()).expect("a range")
}

/// `text` with an LSP edit (`range`, `newText`) applied.
fn apply(text: &str, edit: &Value) -> String {
    let bytes = SourceText::new(text.to_owned()).byte_range(range_of(&edit["range"]));
    let mut out = text.to_owned();
    out.replace_range(bytes, edit["newText"].as_str().expect("newText"));
    out
}

/// The completion item labelled `label` at the end of `needle`, applied to the text.
fn complete(text: &str, needle: &str, label: &str) -> String {
    let mut server = Server::new(None);
    open(&mut server, "runway.yaml", text);
    let items = request(
        &mut server,
        "textDocument/completion",
        json!({"textDocument": {"uri": uri("runway.yaml")}, "position": after(text, needle)}),
    );
    let items = items.as_array().expect("items");
    let item = items.iter().find(|i| i["label"] == label).unwrap_or_else(|| panic!("{label} in {items:?}"));
    apply(text, &item["textEdit"])
}

const ROOT: &str = "runway: 3\nproduct: shop\nenvironments:\n  dev: { region: us-east-1 }\n";

#[test]
fn completing_right_after_a_colon_or_a_dash_gives_yaml_with_the_value() {
    let text = format!("{ROOT}resources:\n  main-db:\n    kind:\n");
    let done = complete(&text, "kind:", "postgres");
    let tree = syntax::parse("", &done).expect(&done);
    let kind = tree.root().get("resources").and_then(|r| r.get("main-db")?.get("kind")?.text());
    assert_eq!(kind.as_deref(), Some("postgres"), "{done}");

    let text = format!(
        "{ROOT}resources:\n  main-db: {{ kind: postgres }}\nworkloads:\n  api:\n    uses:\n      -\n"
    );
    let done = complete(&text, "      -", "main-db");
    let tree = syntax::parse("", &done).expect(&done);
    let uses: Vec<String> = tree
        .root()
        .get("workloads")
        .and_then(|w| w.get("api")?.get("uses"))
        .map(|u| u.items().filter_map(|i| i.text()).collect())
        .unwrap_or_default();
    assert_eq!(uses, ["main-db"], "{done}");

    // A name with a dash half typed is replaced whole, and its item's dash is kept.
    let text = format!(
        "{ROOT}resources:\n  main-db: {{ kind: postgres }}\nworkloads:\n  api:\n    uses:\n      - main-\n"
    );
    let done = complete(&text, "- main-", "main-db");
    assert!(done.contains("\n      - main-db\n"), "{done}");
}
