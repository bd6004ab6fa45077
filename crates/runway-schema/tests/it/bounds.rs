#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: test helpers fail loudly on broken fixtures
//! Bad input is refused with a diagnostic: never a panic, a hang or an unbounded allocation.

use runway_schema::{Code, load_str};

fn only_code(text: &str) -> Code {
    let loaded = load_str("big.yaml", text);
    assert!(loaded.product.is_none());
    assert_eq!(loaded.diagnostics.len(), 1, "{:#?}", loaded.diagnostics);
    loaded.diagnostics[0].code
}

#[test]
fn twenty_megabytes_are_refused() {
    let mut text =
        String::from("runway: 3\nproduct: shop\nenvironments:\n  dev: { region: us-east-1 }\nworkloads:\n");
    while text.len() < 20 * 1024 * 1024 {
        text.push_str(
            "  # padding padding padding padding padding padding padding padding padding padding\n",
        );
    }
    assert_eq!(only_code(&text), Code::YamlSyntax);
}

#[test]
fn hundred_thousand_levels_of_flow_nesting_are_refused() {
    let text = format!("runway: 3\nbad: {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(only_code(&text), Code::YamlSyntax);
}

#[test]
fn hundred_thousand_levels_of_block_nesting_are_refused() {
    // Each level is a one-key mapping one space deeper: 100,000 lines.
    let mut text = String::from("runway: 3\n");
    for depth in 0..100_000 {
        text.push_str(&" ".repeat(depth % 2_000));
        text.push_str("a:\n");
        if depth % 2_000 == 1_999 {
            break;
        }
    }
    let loaded = load_str("deep.yaml", &text);
    assert!(loaded.product.is_none());
    assert!(loaded.diagnostics.iter().any(|d| d.code == Code::YamlSyntax), "{:#?}", loaded.diagnostics);
}

#[test]
fn errors_never_echo_the_rest_of_the_file() {
    let canary = "CANARY-7f3a9c-not-for-output";
    let text = format!("runway: 3\nproduct: shop\nnote: {canary}\nenvironments: [a, b\n");
    let loaded = load_str("f.yaml", &text);
    for d in &loaded.diagnostics {
        let shown = format!("{d} {d:?} {}", d.help.clone().unwrap_or_default());
        assert!(!shown.contains(canary), "{shown}");
    }
    assert!(!loaded.diagnostics.is_empty());
}

#[test]
fn long_values_are_cut_in_messages() {
    let long = "x".repeat(10_000);
    let text = format!(
        "runway: 3\nproduct: shop\nenvironments:\n  dev: {{ region: us-east-1 }}\nresources:\n  db: {{ kind: {long} }}\n"
    );
    let loaded = load_str("f.yaml", &text);
    let d = loaded.diagnostics.iter().find(|d| d.code == Code::UnknownKind).expect("unknown-kind");
    assert!(d.message.len() < 200, "{}", d.message);
}
