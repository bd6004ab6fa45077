//! A user's catalogue file laid over the built-in one, and malformed files.

use cost::{Catalogue, Item, Priced};
use runway_schema::{Code, PostgresEngine};

/// The default architecture's tasks.
const ARM: runway_schema::Architecture = runway_schema::Architecture::Arm64;

const USER: &str = r#"
sizes:
  workload:
    xlarge: { cpu: 4096, memoryMib: 8192 }
regions:
  us-east-1:
    s3-standard:
      unit: GB-month
      price: "0.021"
      source: "negotiated rate, contract 2026-11"
      seen: "2026-11-30"
"#;

fn every_item() -> Vec<Item<'static>> {
    let mut items = vec![Item::Alb { zones: 2 }, Item::PrivateZone, Item::Secret];
    for name in ["small", "medium", "large"] {
        for engine in [PostgresEngine::Rds, PostgresEngine::Aurora] {
            items.push(Item::Postgres { engine, size: name, storage_gb: None, io: None });
            items.push(Item::RdsProxy { engine, size: name });
        }
        items.push(Item::Cache { size: name });
        items.push(Item::Queue { fifo: false, size: name, requests: None });
        items.push(Item::Queue { fifo: true, size: name, requests: None });
        items.push(Item::Topic { fifo: false, size: name, requests: None });
        items.push(Item::Bucket { size: name, storage_gb: None, requests: None });
        items.push(Item::Tasks { size: name, tasks: 2, architecture: ARM });
    }
    items
}

#[test]
fn a_user_file_adds_a_size_and_overrides_a_price_and_nothing_else() {
    let base = Catalogue::builtin();
    let user = Catalogue::parse("my-catalogue.yaml", USER).expect("user file parses");
    let merged = base.extended_with(&user);

    assert_eq!(merged.size_names(), ["small", "medium", "large", "xlarge"]);
    assert_eq!(merged.regions(), base.regions());

    // The new size is priced: 2 tasks x 4 vCPU x 730 = 5840 vCPU-h x 0.03238 = 189.0992;
    // 2 x 8 GB x 730 = 11680 GB-h x 0.00356 = 41.5808; total 230.68.
    let xl = merged.price("us-east-1", &Item::Tasks { size: "xlarge", tasks: 2, architecture: ARM });
    assert_eq!(xl.monthly().map(|m| m.0.normalize().to_string()), Some("230.68".to_owned()));
    assert!(matches!(
        base.price("us-east-1", &Item::Tasks { size: "xlarge", tasks: 2, architecture: ARM }),
        Priced::Unpriced { .. }
    ));

    // The override: large bucket 1024 GB x 0.021 = 21.504 instead of 1024 x 0.023 = 23.552.
    let bucket = merged.price("us-east-1", &Item::Bucket { size: "large", storage_gb: None, requests: None });
    assert_eq!(bucket.monthly().map(|m| m.0.normalize().to_string()), Some("21.504".to_owned()));
    let Priced::Lines { lines, .. } = &bucket else { panic!("priced") };
    assert_eq!(&*lines[0].source, "negotiated rate, contract 2026-11 (seen 2026-11-30)");

    // Every other figure, in every region, is unchanged.
    for region in base.regions() {
        for item in every_item() {
            let changed_here = region == "us-east-1" && matches!(item, Item::Bucket { .. });
            if !changed_here {
                assert_eq!(merged.price(&region, &item), base.price(&region, &item), "{region} {item:?}");
            }
        }
    }
}

#[test]
fn a_user_file_can_add_a_region() {
    let user = Catalogue::parse(
        "r.yaml",
        "regions:\n  ap-south-2:\n    secret: { unit: secret-month, price: \"0.40\", source: \"https://aws.amazon.com/secrets-manager/pricing/\", seen: \"2026-12-01\" }\n",
    )
    .expect("parses");
    let merged = Catalogue::builtin().extended_with(&user);
    assert_eq!(merged.regions(), ["us-east-1", "eu-central-1", "eu-west-1", "ap-south-2"]);
    assert_eq!(
        merged.price("ap-south-2", &Item::Secret).monthly().map(|m| m.to_string()),
        Some("0.40".to_owned())
    );
    // A key the new region lacks is unpriced, never $0.
    assert!(merged.price("ap-south-2", &Item::Alb { zones: 2 }).monthly().is_none());
}

fn one_error(text: &str) -> runway_schema::Diagnostic {
    let errs = Catalogue::parse("bad.yaml", text).expect_err("must fail");
    assert_eq!(errs.len(), 1, "{errs:#?}");
    errs.into_iter().next().expect("one")
}

#[test]
fn an_unknown_field_points_at_its_line_and_column() {
    let d = one_error("sizes:\n  workload:\n    xlarge: { cpu: 4096, memory: 8192 }\n");
    assert_eq!(d.code, Code::UnknownField, "{d:?}");
    assert_eq!(d.location.file, "bad.yaml");
    assert_eq!((d.location.line, d.location.column), (3, 26), "{d:?}");
}

#[test]
fn a_bad_price_points_at_the_price() {
    let text = "regions:\n  us-east-1:\n    secret:\n      unit: secret-month\n      price: \"0,40\"\n      source: x\n      seen: \"2026-12-01\"\n";
    let d = one_error(text);
    assert_eq!(d.code, Code::InvalidValue, "{d:?}");
    assert_eq!((d.location.line, d.location.column), (5, 14), "{d:?}");
    assert!(d.message.contains("0,40"), "{}", d.message);
    assert_eq!(d.path, "regions.us-east-1.secret.price");
}

#[test]
fn a_price_without_a_source_is_refused() {
    let d = one_error("regions:\n  us-east-1:\n    secret: { unit: secret-month, price: \"0.40\" }\n");
    assert_eq!(d.code, Code::MissingField);
    assert_eq!(d.location.line, 3);
}

#[test]
fn a_wrong_type_and_broken_yaml_are_located() {
    let d = one_error("sizes:\n  bucket:\n    small: { storageGb: ten }\n");
    assert_eq!(d.code, Code::InvalidValue, "{d:?}");
    assert_eq!(d.location.line, 3, "{d:?}");
    let d = one_error("sizes:\n  bucket: [\n");
    assert_eq!(d.code, Code::YamlSyntax, "{d:?}");
    assert!(d.location.line >= 2, "{d:?}");
}

#[test]
fn a_duplicate_key_is_located() {
    let d = one_error("sizes:\n  bucket:\n    small: { storageGb: 10 }\n    small: { storageGb: 20 }\n");
    assert_eq!(d.code, Code::DuplicateKey, "{d:?}");
    assert_eq!(d.location.line, 4, "{d:?}");
}

#[test]
fn an_empty_user_file_changes_nothing() {
    let empty =
        Catalogue::parse("empty.yaml", "# nothing yet\n").expect("an empty file is a valid, empty catalogue");
    assert!(empty.size_names().is_empty() && empty.regions().is_empty());
    assert_eq!(Catalogue::builtin().extended_with(&empty), Catalogue::builtin());
}

#[test]
fn zero_sizes_are_refused_and_every_problem_is_reported() {
    let text = "sizes:\n  cache:\n    tiny: { nodeType: cache.t4g.micro, nodes: 0 }\nregions:\n  us-east-1:\n    secret: { unit: secret-month, price: \"abc\", source: s, seen: \"2026-12-01\" }\n";
    let errs = Catalogue::parse("bad.yaml", text).expect_err("must fail");
    assert_eq!(errs.len(), 2, "{errs:#?}");
    assert_eq!(
        (errs[0].code, errs[0].location.line, errs[0].path.as_str()),
        (Code::InvalidValue, 6, "regions.us-east-1.secret.price")
    );
    assert_eq!(
        (errs[1].code, errs[1].location.line, errs[1].path.as_str()),
        (Code::InvalidValue, 3, "sizes.cache.tiny.nodes")
    );
}

#[test]
fn a_storage_ceiling_is_refused_on_aurora_and_below_ten_percent_above_the_storage() {
    let size = |engine: &str, max: u32| {
        format!(
            "sizes:\n  postgres:\n    {engine}:\n      big: {{ instanceClass: db.r7g.large, instances: 1, storageGb: 100, maxStorageGb: {max}, vcpu: 2 }}\n"
        )
    };
    let d = one_error(&size("aurora", 500));
    assert_eq!(
        (d.code, d.location.line, d.path.as_str()),
        (Code::InvalidValue, 4, "sizes.postgres.aurora.big.maxStorageGb")
    );
    assert!(d.message.contains("Aurora storage grows by itself"), "{}", d.message);
    let d = one_error(&size("rds", 109));
    assert_eq!((d.code, d.path.as_str()), (Code::InvalidValue, "sizes.postgres.rds.big.maxStorageGb"));
    assert!(d.message.contains("at least 10% above"), "{}", d.message);
    let d = one_error(&size("rds", 65_537));
    assert!(d.message.contains("65536"), "{}", d.message);
    // 10% above is the least RDS takes.
    let ok = Catalogue::parse("ok.yaml", &size("rds", 110)).expect("110 is 10% above 100");
    let big = ok.postgres(PostgresEngine::Rds, "big").expect("the size");
    assert_eq!((big.storage_gb, big.max_storage_gb), (100, Some(110)));
}

#[test]
fn the_estimate_counts_the_allocated_storage_and_says_how_far_it_grows() {
    let cat = Catalogue::builtin();
    // Every built-in RDS size grows (5x), every Aurora size by itself (no ceiling).
    for name in ["small", "medium", "large"] {
        let rds = cat.postgres(PostgresEngine::Rds, name).expect("rds size");
        assert_eq!(rds.max_storage_gb, Some(rds.storage_gb * 5), "{name}");
        assert_eq!(cat.postgres(PostgresEngine::Aurora, name).expect("aurora size").max_storage_gb, None);
    }
    let Priced::Lines { lines, .. } = cat.price(
        "us-east-1",
        &Item::Postgres { engine: PostgresEngine::Rds, size: "small", storage_gb: None, io: None },
    ) else {
        panic!("priced")
    };
    let storage = lines.iter().find(|l| &*l.key == "rds-storage-gp3").expect("a storage line");
    assert_eq!(storage.quantity.normalize().to_string(), "20", "{storage:?}");
    assert!(storage.what.contains("grows to 100 GB as used"), "{}", storage.what);
    // The file written back keeps the ceiling.
    let again = Catalogue::parse("again.yaml", &cat.to_yaml()).expect("the written file parses");
    assert_eq!(again, cat);
}
