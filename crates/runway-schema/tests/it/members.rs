#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: test helpers fail loudly on broken fixtures
//! Loading members: each member file is read and reported once, and a help that lists declared
//! resources stays short however many there are.

use runway_schema::{Code, MemFiles, Options, load};

fn root(resources: usize, members: &str) -> String {
    let mut text = format!(
        "runway: 3\nproduct: shop\nenvironments:\n  dev: {{ region: us-east-1 }}\nmembers: {members}\nresources:\n"
    );
    for i in 0..resources {
        text.push_str(&format!("  q-{i}: {{ kind: queue }}\n"));
    }
    text
}

#[test]
fn a_member_two_globs_match_is_read_and_reported_once() {
    let text = root(1, r#"["services/*", "services/orders", "*/orders"]"#);
    let files = MemFiles::default().with("services/orders/runway.yaml", "runway: 3\nuses: [nope]\n");
    let loaded = load("runway.yaml", text.as_bytes(), &files, &Options::default());
    let unknown: Vec<_> = loaded.diagnostics.iter().filter(|d| d.code == Code::UnknownResource).collect();
    assert_eq!(unknown.len(), 1, "{:#?}", loaded.diagnostics);
    assert_eq!(unknown[0].location.file, "services/orders/runway.yaml");
}

#[test]
fn the_help_of_an_unknown_resource_names_ten_of_many() {
    let text = root(25, r#"["services/*"]"#);
    let files = MemFiles::default().with("services/orders/runway.yaml", "runway: 3\nuses: [zzzzzzzzzzzz]\n");
    let loaded = load("runway.yaml", text.as_bytes(), &files, &Options::default());
    let d = loaded.diagnostics.iter().find(|d| d.code == Code::UnknownResource).expect("reported");
    let help = d.help.as_deref().expect("a help");
    assert_eq!(help, "declared resources: q-0, q-1, q-2, q-3, q-4, q-5, q-6, q-7, q-8, q-9 and 15 more");
}
