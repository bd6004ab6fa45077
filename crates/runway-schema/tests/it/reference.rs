#![allow(clippy::disallowed_methods, clippy::unwrap_used)] // reason: the test reads the committed reference
//! docs/runway-reference.md names every field of the format and every diagnostic code.

use serde_json::Value;

fn fields(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                out.extend(props.keys().cloned());
            }
            for v in map.values() {
                fields(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| fields(v, out)),
        _ => {}
    }
}

#[test]
fn reference_names_every_field_and_code() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/runway-reference.md"))
        .unwrap();
    let mut names = Vec::new();
    for schema in [runway_schema::format::root_schema(), runway_schema::format::member_schema()] {
        fields(&serde_json::from_str(&schema).unwrap(), &mut names);
    }
    names.sort();
    names.dedup();
    assert!(names.len() > 30, "{names:?}");
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !doc.contains(&format!("`{n}`")) && !doc.contains(&format!(".{n}`")))
        .collect();
    assert!(missing.is_empty(), "fields missing from docs/runway-reference.md: {missing:?}");
    for code in runway_schema::Code::ALL {
        assert!(
            doc.contains(&format!("| `{code}` |")),
            "code `{code}` missing from docs/runway-reference.md"
        );
    }
}

/// A new kind is documented and exercised: docs/runway-reference.md lists it where `kind` is
/// described, and the `every-kind` fixture (which every reading test and the fuzz seeds read)
/// declares one.
#[test]
fn every_kind_is_in_the_reference_and_the_every_kind_fixture() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let doc = std::fs::read_to_string(format!("{root}/docs/runway-reference.md")).unwrap();
    let kind_line = doc.lines().find(|l| l.starts_with("Common: `kind`")).unwrap();
    let fixture = std::fs::read_to_string(format!("{root}/tests/fixtures/valid/every-kind.yaml")).unwrap();
    for name in runway_schema::Kind::NAMES {
        assert!(kind_line.contains(&format!("`{name}`")), "`{name}` missing from the reference's kind line");
        assert!(fixture.contains(&format!("kind: {name}")), "no `kind: {name}` in every-kind.yaml");
    }
}
