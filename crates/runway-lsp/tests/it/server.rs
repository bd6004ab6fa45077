//! The server in process, through its JSON messages: members found from their root, the
//! editor's text over the disk's, and no panic whatever the text.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};

use std::sync::Arc;

use cost::Catalogue;
use lsp_server::{Notification, Request, RequestId, Response};
use runway_lsp::Server;
use runway_lsp::analysis::Analysis;
use runway_lsp::documents::Documents;
use runway_lsp::{diagnostics, navigate};
use runway_schema::Code;
use serde_json::{Value, json};

/// A scratch folder, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("runway-lsp-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.0.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn open(server: &mut Server, path: &Path, text: &str) -> Vec<Notification> {
    server.notify(Notification::new(
        "textDocument/didOpen".to_owned(),
        json!({"textDocument": {"uri": uri(path), "languageId": "yaml", "version": 1, "text": text}}),
    ))
}

fn request(server: &mut Server, method: &str, path: &Path, line: usize, character: usize) -> Response {
    server.request(Request::new(
        RequestId::from(7),
        method.to_owned(),
        json!({"textDocument": {"uri": uri(path)}, "position": {"line": line, "character": character},
               "context": {"includeDeclaration": true}}),
    ))
}

/// The codes published for `path` among `published`.
fn codes(published: &[Notification], path: &Path) -> Vec<String> {
    let p = published.iter().rev().find(|n| n.params["uri"] == uri(path)).expect("published for the file");
    p.params["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .collect()
}

const ROOT: &str = "runway: 3\nproduct: shop\nmembers: [\"svc/*\"]\nenvironments:\n  dev: { region: us-east-1 }\n\
                    resources:\n  jobs: { kind: queue }\n";

#[test]
fn a_member_is_checked_with_its_root_from_the_editors_text() {
    let dir = Scratch::new("member");
    let root = dir.write("runway.yaml", ROOT);
    let member = dir.write("svc/orders/runway.yaml", "runway: 3\nruntime: other\nuses: [jobs]\n");
    let mut server = Server::new(None);
    // The member opened first, with an unsaved typo: its root is found on disk.
    let published = open(&mut server, &member, "runway: 3\nruntime: other\nuses: [jbos]\n");
    assert_eq!(codes(&published, &member), ["unknown-resource"]);
    assert_eq!(codes(&published, &root), Vec::<String>::new());
    // The root's unsaved text renames the resource: now the member's use resolves.
    let published = open(&mut server, &root, &ROOT.replace("jobs:", "jbos:"));
    assert_eq!(codes(&published, &member), Vec::<String>::new());
    // Definition from the member to the root's unsaved text.
    let def = request(&mut server, "textDocument/definition", &member, 2, 8);
    assert_eq!(def.result.as_ref().unwrap()["uri"], uri(&root));
    assert_eq!(def.result.as_ref().unwrap()["range"]["start"], json!({"line": 6, "character": 2}));
    let refs = request(&mut server, "textDocument/references", &root, 6, 3);
    let refs = refs.result.unwrap();
    let found: Vec<&Value> = refs.as_array().unwrap().iter().map(|l| &l["uri"]).collect();
    assert_eq!(found, [&json!(uri(&root)), &json!(uri(&member))]);
}

#[test]
fn a_member_no_root_lists_is_said_to_be_unchecked() {
    let dir = Scratch::new("unrooted");
    let root = dir.write("runway.yaml", ROOT);
    let member = dir.write("tools/cli/runway.yaml", "runway: 3\nuses: [jobs]\n");
    let mut server = Server::new(None);
    let published = open(&mut server, &member, "runway: 3\nuses: [jobs]\n");
    assert_eq!(codes(&published, &member), ["no-root"]);
    let warning = &published[0].params["diagnostics"][0];
    assert_eq!(warning["severity"], 2, "a warning: {warning}");
    assert!(warning["message"].as_str().unwrap().contains("`members`"), "{warning}");

    // The root lists it now: checked with the root, and the warning gone.
    let listed = ROOT.replace("[\"svc/*\"]", "[\"svc/*\", \"tools/*\"]");
    let published = open(&mut server, &root, &listed);
    assert_eq!(codes(&published, &member), Vec::<String>::new());

    // A member closed while no root lists it: its warning is cleared.
    let lone = dir.write("lone/runway.yaml", "member: lone\n");
    assert_eq!(codes(&open(&mut server, &lone, "member: lone\n"), &lone), ["no-root"]);
    let closed = server.notify(Notification::new(
        "textDocument/didClose".to_owned(),
        json!({"textDocument": {"uri": uri(&lone)}}),
    ));
    assert_eq!(codes(&closed, &lone), Vec::<String>::new());
}

#[test]
fn a_yaml_file_that_is_not_a_runway_gets_nothing() {
    let dir = Scratch::new("stray");
    let stray = dir.write("deep/other.yaml", "a: 1\n");
    let mut server = Server::new(None);
    assert!(open(&mut server, &stray, "a: [1\n").is_empty());
    let hover = request(&mut server, "textDocument/hover", &stray, 0, 0);
    assert_eq!(hover.result, Some(Value::Null));
    let unknown = server.request(Request::new(RequestId::from(1), "workspace/symbol".to_owned(), json!({})));
    assert!(unknown.error.is_some());
    let bad_params =
        server.request(Request::new(RequestId::from(2), "textDocument/hover".to_owned(), json!(3)));
    assert!(bad_params.error.is_some());
}

/// Every prefix of the example (as the file looks while it is typed), with requests on every
/// line: no panic, and every request answered.
#[test]
fn every_prefix_of_the_example_is_answered() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/acme-shop/runway.yaml");
    let text = std::fs::read_to_string(example).unwrap();
    let dir = Scratch::new("prefixes");
    let root = dir.write("runway.yaml", &text);
    let mut server = Server::new(None);
    open(&mut server, &root, &text);
    let cuts: Vec<usize> = (0..text.len()).step_by(23).filter(|i| text.is_char_boundary(*i)).collect();
    for (version, cut) in cuts.into_iter().enumerate() {
        let prefix = &text[..cut];
        server.notify(Notification::new(
            "textDocument/didChange".to_owned(),
            json!({"textDocument": {"uri": uri(&root), "version": version + 2}, "contentChanges": [{"text": prefix}]}),
        ));
        let line = prefix.matches('\n').count();
        for method in ["textDocument/hover", "textDocument/completion", "textDocument/definition"] {
            for (l, c) in [(line, 0), (line, 40), (line.saturating_sub(1), 5)] {
                let response = request(&mut server, method, &root, l, c);
                assert!(response.error.is_none(), "{method} at {l}:{c} of a {cut}-byte prefix: {response:?}");
            }
        }
    }
}

/// A root priced with the file its `catalogue:` setting names, as `check` does: missing, it is
/// a `catalogue-file` error at the setting; its unsaved text prices the root; editing it
/// re-checks the root.
#[test]
fn a_roots_catalogue_setting_prices_it_from_the_editors_text() {
    let dir = Scratch::new("catalogue-setting");
    let text = "runway: 3\nproduct: shop\ncatalogue: prices.yaml\nenvironments:\n  dev:\n    region: eu-central-1\n\
                \x20   limits: { monthly: 50 }\nresources:\n  jobs: { kind: queue }\n";
    let root = dir.write("runway.yaml", text);
    let prices = dir.0.join("prices.yaml");
    let mut server = Server::new(None);
    let published = open(&mut server, &root, text);
    assert_eq!(codes(&published, &root), ["catalogue-file"]);
    // In the operating system's words, as `check` says it.
    let message = published.iter().rev().find(|n| n.params["uri"] == uri(&root)).unwrap().params["diagnostics"][0]
        ["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("No such file or directory"), "{message}");

    // Opened unsaved in the editor, the file prices eu-central-1's queue requests.
    let priced = "regions:\n  eu-central-1:\n    sqs-standard: { unit: million requests, price: \"0.40\", \
                  source: \"https://aws.amazon.com/sqs/pricing/\", seen: \"2026-12-01\" }\n";
    let published = open(&mut server, &prices, priced);
    assert_eq!(codes(&published, &root), Vec::<String>::new());

    // An invalid price: the setting and the file's line are reported.
    let published = open(&mut server, &prices, &priced.replace("\"0.40\"", "\"cheap\""));
    assert_eq!(codes(&published, &root), ["catalogue-file"]);
    assert_eq!(codes(&published, &prices), ["invalid-value"]);

    // Without the setting the built-in catalogue leaves the queue unpriced under the cap.
    let published = open(&mut server, &root, &text.replace("catalogue: prices.yaml\n", ""));
    assert_eq!(codes(&published, &root), ["unpriced"]);
    assert_eq!(codes(&published, &prices), Vec::<String>::new(), "the file's diagnostics are cleared");
}

/// Diagnostics, fixes and references are read against the text the check read: a member that
/// changes on disk afterwards (multi-byte text where the typo was) does not move them.
#[test]
fn the_text_a_check_read_is_kept_with_its_diagnostics() {
    let dir = Scratch::new("analysed-text");
    let root = dir.write("runway.yaml", ROOT);
    let member = dir.write("svc/orders/runway.yaml", "runway: 3\nruntime: other\nuses: [jbos, jobs]\n");
    let docs = Documents::default();
    let root_text = docs.text(&root).unwrap();
    let analysis = Analysis::new(&root, root_text, &docs, Arc::new(Catalogue::builtin()));
    std::fs::write(
        &member,
        "runway: 3\nruntime: other\n# \u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\nuses: [jobs]\n",
    )
    .unwrap();
    let text = analysis.text(&member).expect("the member's text as checked");
    let d = &analysis.diagnostics[&member][0];
    assert_eq!(d.code, Code::UnknownResource);
    assert_eq!(&text.as_str()[diagnostics::bytes(d, text)], "jbos");
    let refs = navigate::references(&analysis, "jobs", false);
    let place = refs.iter().find(|p| p.file == member).expect("the member's use");
    assert_eq!(&place.text.as_str()[place.bytes.clone()], "jobs");
    assert_eq!(place.text.as_str(), "runway: 3\nruntime: other\nuses: [jbos, jobs]\n");
}

/// A member saved with a byte order mark is read as an editor shows it: the mark dropped, so
/// a diagnostic on its first line is where the editor has the word.
#[test]
fn a_byte_order_mark_on_disk_does_not_shift_the_first_line() {
    let dir = Scratch::new("bom");
    let root = dir.write("runway.yaml", ROOT);
    dir.write("svc/orders/runway.yaml", "\u{feff}uses: [jbos]\nruntime: other\nrunway: 3\n");
    let member = dir.0.join("svc/orders/runway.yaml");
    let mut server = Server::new(None);
    let published = open(&mut server, &root, ROOT);
    assert_eq!(codes(&published, &member), ["unknown-resource"]);
    let p = published.iter().find(|n| n.params["uri"] == uri(&member)).unwrap();
    let range = &p.params["diagnostics"][0]["range"];
    assert_eq!(range["start"], json!({"line": 0, "character": 7}));
    assert_eq!(range["end"], json!({"line": 0, "character": 11}));
}
