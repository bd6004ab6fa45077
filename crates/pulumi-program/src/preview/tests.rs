//! The reader over hand-written previews of a small product: each shape, each error, and the
//! mapping of resources to items (a replaced database warns, a resized one does not).

use runtime_plan::{ItemKind, Plan, PulumiChange};
use runway_schema::{MemFiles, Options};

use super::*;

const RUNWAY: &str = concat!(
    "runway: 3\nproduct: shop\nsecrets: { infisical: { project: p } }\n",
    "environments:\n  dev:\n    region: us-east-1\n",
    "resources:\n  main-db:\n    kind: postgres\n    engine: ENGINE\n    version: \"16\"\n",
    "  uploads:\n    kind: bucket\n",
);

fn plan(engine: &str) -> Plan {
    let text = RUNWAY.replace("ENGINE", engine);
    let loaded =
        runway_schema::load("runway.yaml", text.as_bytes(), &MemFiles::default(), &Options::default());
    let product = loaded.product.unwrap_or_else(|| panic!("invalid: {:?}", loaded.diagnostics));
    runtime_plan::plan(&product, "dev", &cost::Catalogue::builtin()).expect("plan")
}

fn urn(token: &str, name: &str) -> String {
    format!("urn:pulumi:dev::shop::{token}::{name}")
}

fn digest(steps: &[(&str, &str, &str, &[&str])]) -> String {
    let steps: Vec<Value> = steps
        .iter()
        .map(|(op, token, name, reasons)| {
            serde_json::json!({"op": op, "urn": urn(token, name), "replaceReasons": reasons,
                "newState": {"type": token}, "detailedDiff": null})
        })
        .collect();
    serde_json::json!({"steps": steps, "changeSummary": {"same": 3}}).to_string()
}

#[test]
fn a_replaced_database_is_a_loss_named_by_its_resource() {
    let p = plan("rds");
    let text = digest(&[
        ("same", "pulumi:pulumi:Stack", "shop-dev", &[]),
        ("replace", "aws:rds/instance:Instance", "main-db_db", &["dbName"]),
    ]);
    let preview = items_of(&read_preview(&text).unwrap(), Some(&p), &p).unwrap();
    assert_eq!(preview.stack.as_deref(), Some("dev"));
    assert!(preview.others.is_empty(), "{:?}", preview.others);
    let [item] = preview.items.as_slice() else { panic!("{:?}", preview.items) };
    assert_eq!(
        (item.id.as_str(), item.change, item.kind),
        ("main-db_db", PulumiChange::Replaced, ItemKind::RdsInstance)
    );
    assert_eq!(item.name(), "main-db");
    assert_eq!(item.loss.as_deref(), Some("a new instance, the data is not copied"));
    assert_eq!(item.steps[0].reasons, ["dbName"]);
}

#[test]
fn another_type_under_the_same_name_is_a_replacement_of_what_the_base_stored() {
    let (old, new) = (plan("rds"), plan("aurora"));
    let text = digest(&[
        ("create", "aws:rds/cluster:Cluster", "main-db_db", &[]),
        ("delete", "aws:rds/instance:Instance", "main-db_db", &[]),
    ]);
    let preview = items_of(&read_preview(&text).unwrap(), Some(&old), &new).unwrap();
    let item = preview.items.iter().find(|i| i.id == "main-db_db").expect("the database");
    assert_eq!((item.change, item.kind), (PulumiChange::Replaced, ItemKind::AuroraCluster));
    assert_eq!(item.loss.as_deref(), Some("a new cluster, the data is not copied"));
    assert_eq!(preview.losses().count(), 1);
}

#[test]
fn an_update_and_a_companion_change_warn_of_nothing() {
    let p = plan("rds");
    let bucket = p.items.iter().find(|i| i.kind() == ItemKind::S3Bucket).expect("bucket").id.to_string();
    let companion = program_resources(&p)
        .unwrap()
        .into_iter()
        .find(|r| r.name.starts_with(&format!("{bucket}--")))
        .unwrap();
    let text = digest(&[
        ("update", "aws:rds/instance:Instance", "main-db_db", &[]),
        ("replace", companion.token, &companion.name, &["policy"]),
        ("create", "aws:s3/bucket:Bucket", "stray", &[]),
    ]);
    let preview = items_of(&read_preview(&text).unwrap(), Some(&p), &p).unwrap();
    assert_eq!(preview.losses().count(), 0, "{:?}", preview.items);
    assert!(preview.items.iter().all(|i| i.change == PulumiChange::Updated), "{:?}", preview.items);
    assert_eq!(preview.items.len(), 2);
    assert_eq!(preview.others.len(), 1);
    assert_eq!(preview.others[0].name, "stray");
}

#[test]
fn streamed_engine_events_read_as_the_document_does() {
    let p = plan("rds");
    let events = [
        serde_json::json!({"sequence": 0, "timestamp": 1, "preludeEvent": {"config": {}}}),
        serde_json::json!({"sequence": 1, "timestamp": 1, "resourcePreEvent": {"metadata": {
            "op": "create-replacement", "urn": urn("aws:rds/instance:Instance", "main-db_db"),
            "type": "aws:rds/instance:Instance", "keys": ["storageEncrypted"], "diffs": ["storageEncrypted"]}}}),
        serde_json::json!({"sequence": 2, "timestamp": 1, "summaryEvent": {"resourceChanges": {"replace": 1}}}),
    ];
    let text: String = events.iter().map(|e| format!("{e}\n")).collect();
    let preview = items_of(&read_preview(&text).unwrap(), None, &p).unwrap();
    assert_eq!(preview.items[0].change, PulumiChange::Replaced);
    assert_eq!(preview.items[0].steps[0].reasons, ["storageEncrypted"]);
}

#[test]
fn what_is_not_a_preview_of_this_program_is_refused_with_why() {
    let p = plan("rds");
    let err = |text: &str| read_preview(text).and_then(|v| items_of(&v, None, &p)).unwrap_err();
    assert!(matches!(err("not json"), PreviewError::NotJson { .. }));
    assert!(matches!(err("[1, 2]"), PreviewError::NotPreview { .. }));
    assert!(matches!(err(r#"{"resources": []}"#), PreviewError::NotPreview { .. }));
    assert!(matches!(err(r#"{"steps": {}}"#), PreviewError::NotPreview { .. }));
    assert!(matches!(err(r#"{"steps": [{"op": "create"}]}"#), PreviewError::NotPreview { .. }));
    let bad = err(r#"{"steps": [{"op": "create", "urn": "arn:aws:s3:::x\u001b[2J"}]}"#);
    assert!(matches!(&bad, PreviewError::BadUrn { index: 0, .. }), "{bad:?}");
    assert!(!bad.to_string().contains('\u{1b}'), "{bad}");
    let other =
        err(&digest(&[("create", "aws:s3/bucket:Bucket", "x", &[])]).replace("::shop::", "::other::"));
    assert_eq!(
        other.to_string(),
        "the preview is of Pulumi project `other`, not `shop` (this product's program)"
    );
    let failed = err(r#"{"steps": [], "diagnostics": [{"message": "boom", "severity": "error"}]}"#);
    assert!(matches!(failed, PreviewError::Failed { .. }));
    // Nothing to do: no steps at all.
    assert!(
        items_of(&read_preview(r#"{"changeSummary": {"same": 40}}"#).unwrap(), None, &p)
            .unwrap()
            .items
            .is_empty()
    );
}

#[test]
fn every_resource_of_the_program_is_named_with_its_item() {
    for engine in ["rds", "aurora"] {
        let p = plan(engine);
        let resources = program_resources(&p).unwrap();
        assert_eq!(resources.len(), crate::expected_resources(&p), "{engine}");
        for r in &resources {
            // Only the SSM parameters the program writes are no item's.
            assert_eq!(r.item.is_none(), r.token == "aws:ssm/parameter:Parameter", "{r:?}");
            let item = r.item.as_deref().unwrap_or_default();
            assert!(r.item.is_none() || r.name == item || r.name.starts_with(&format!("{item}--")), "{r:?}");
        }
    }
}
