#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: test helpers fail loudly on broken fixtures
#![allow(clippy::disallowed_methods)] // reason: tests read the shipped example from disk
//! The shipped example loads without errors.
use runway_schema::{MemFiles, Options, load};

#[test]
fn example_is_valid() {
    let root = "../../examples/acme-shop";
    let mut files = MemFiles::default();
    for rel in ["services/orders/runway.yaml", "services/billing/runway.yaml", "tools/reporting/runway.yaml"]
    {
        files = files.with(rel, std::fs::read(format!("{root}/{rel}")).unwrap());
    }
    let text = std::fs::read(format!("{root}/runway.yaml")).unwrap();
    let loaded = load("examples/acme-shop/runway.yaml", &text, &files, &Options::default());
    assert!(loaded.diagnostics.is_empty(), "{:#?}", loaded.diagnostics);
    let p = loaded.product.unwrap();
    assert_eq!(p.members.len(), 3);
    assert_eq!(p.root.resources.len(), 5);
    assert_eq!(p.members[0].name, "billing");
}
