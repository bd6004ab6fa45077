#![allow(clippy::unwrap_used)] // reason: test helpers fail loudly
//! The importer against a loopback server serving offer files in the published format
//! (`fixtures/make_offers.py`): every key priced from the one row that should price it, never
//! from the rows beside it that a naive reader would take; and the faults.

use std::path::{Path, PathBuf};

use cost::{Catalogue, PriceEntry, PriceStatus};
use price_import::{Error, Imported, import};
use runway_schema::{Architecture, PostgresEngine};
use test_support::{FileServer, copy_dir, free_port, scratch};

const REGION: &str = "eu-west-1";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn keys() -> Vec<String> {
    Catalogue::builtin().price_keys()
}

async fn run(endpoint: &str, regions: &[&str]) -> Result<Imported, Error> {
    let regions: Vec<String> = regions.iter().map(|r| (*r).to_owned()).collect();
    import(endpoint, &regions, &keys(), &mut |_| {}).await
}

fn entry<'a>(imported: &'a Imported, region: &str, key: &str) -> &'a PriceEntry {
    imported
        .catalogue
        .price_table(region)
        .and_then(|t| t.get(key))
        .unwrap_or_else(|| panic!("no entry {key} in {region}"))
}

/// A copy of the fixtures, edited by `edit`, for a fault.
fn edited_copy(name: &str, edit: impl FnOnce(&Path)) -> test_support::Scratch {
    let dir = scratch(name);
    copy_dir(&fixtures(), &dir);
    edit(&dir);
    dir
}

fn offer_file(root: &Path, offer: &str, version: &str) -> PathBuf {
    root.join(format!("offers/v1.0/aws/{offer}/{version}/{REGION}/index.json"))
}

/// Edits an offer file as JSON.
fn edit_json(path: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut doc);
    std::fs::write(path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
}

/// The SKU of the fixture's product with this usage type and these attributes.
fn sku_of(doc: &serde_json::Value, usagetype: &str, attrs: &[(&str, &str)]) -> String {
    let products = doc["products"].as_object().unwrap();
    let found: Vec<&String> = products
        .iter()
        .filter(|(_, p)| {
            let a = &p["attributes"];
            a["usagetype"] == usagetype && attrs.iter().all(|(k, v)| a[*k] == *v)
        })
        .map(|(sku, _)| sku)
        .collect();
    assert_eq!(found.len(), 1, "{usagetype} {attrs:?}: {found:?}");
    found[0].clone()
}

#[tokio::test(flavor = "current_thread")]
async fn every_key_is_priced_from_the_row_that_prices_it() {
    let server = FileServer::start(&fixtures());
    let imported = run(&server.url(), &[REGION]).await.unwrap();
    // (key, price, offer, version, usage type) as the fixture writes the right row; the rows
    // beside it differ in price, so a wrong pick fails here.
    let expected = [
        (
            "rds-instance/db.t4g.micro",
            "0.017",
            "AmazonRDS",
            "20261101000000",
            "EU-InstanceUsage:db.t4g.micro",
        ),
        (
            "rds-instance/db.t4g.medium",
            "0.068",
            "AmazonRDS",
            "20261101000000",
            "EU-InstanceUsage:db.t4g.medium",
        ),
        (
            "rds-instance/db.m7g.large",
            "0.178",
            "AmazonRDS",
            "20261101000000",
            "EU-InstanceUsage:db.m7g.large",
        ),
        ("rds-storage-gp3", "0.127", "AmazonRDS", "20261101000000", "EU-RDS:GP3-Storage"),
        ("rds-proxy", "0.0165", "AmazonRDS", "20261101000000", "EU-RDS:ProxyUsage"),
        (
            "aurora-instance/db.t4g.medium",
            "0.08",
            "AmazonRDS",
            "20261101000000",
            "EU-InstanceUsage:db.t4g.medium",
        ),
        (
            "aurora-instance/db.r7g.large",
            "0.306",
            "AmazonRDS",
            "20261101000000",
            "EU-InstanceUsage:db.r7g.large",
        ),
        (
            "aurora-instance/db.r7g.xlarge",
            "0.612",
            "AmazonRDS",
            "20261101000000",
            "EU-InstanceUsage:db.r7g.xl",
        ),
        ("aurora-storage", "0.11", "AmazonRDS", "20261101000000", "EU-Aurora:StorageUsage"),
        (
            "cache-node/cache.t4g.micro",
            "0.0136",
            "AmazonElastiCache",
            "20261102000000",
            "EU-NodeUsage:cache.t4g.micro",
        ),
        (
            "cache-node/cache.t4g.medium",
            "0.0544",
            "AmazonElastiCache",
            "20261102000000",
            "EU-NodeUsage:cache.t4g.medium",
        ),
        (
            "cache-node/cache.m7g.large",
            "0.1408",
            "AmazonElastiCache",
            "20261102000000",
            "EU-NodeUsage:cache.m7g.large",
        ),
        ("sqs-standard", "0.4", "AWSQueueService", "20261105000000", "EU-Requests-Tier1"),
        ("sqs-fifo", "0.5", "AWSQueueService", "20261105000000", "EU-Requests-FIFO-Tier1"),
        ("sns-standard", "0.5", "AmazonSNS", "20261106000000", "EU-Requests-Tier1"),
        ("s3-standard", "0.023", "AmazonS3", "20261107000000", "EU-TimedStorage-ByteHrs"),
        ("fargate-arm-vcpu", "0.03238", "AmazonECS", "20261103000000", "EU-Fargate-ARM-vCPU-Hours:perCPU"),
        ("fargate-arm-gb", "0.00356", "AmazonECS", "20261103000000", "EU-Fargate-ARM-GB-Hours"),
        ("fargate-x86-vcpu", "0.04048", "AmazonECS", "20261103000000", "EU-Fargate-vCPU-Hours:perCPU"),
        ("fargate-x86-gb", "0.004445", "AmazonECS", "20261103000000", "EU-Fargate-GB-Hours"),
        ("alb-hour", "0.0252", "AWSELB", "20261104000000", "EU-LoadBalancerUsage"),
        ("alb-lcu", "0.008", "AWSELB", "20261104000000", "EU-LCUUsage"),
        ("route53-zone", "0.5", "AmazonRoute53", "20261109000000", "HostedZone"),
        ("secret", "0.4", "AWSSecretsManager", "20261108000000", "EU-AWSSecretsManager-Secrets"),
        // The symmetric key's month and requests (the free tier and asymmetric requests beside).
        ("kms-key", "1", "awskms", "20261108120000", "EU-KMS-Keys"),
        ("kms-requests", "3", "awskms", "20261108120000", "EU-KMS-Requests"),
        // The fixed network charges and the rates of what is billed by use.
        ("vpc-endpoint-hour", "0.011", "AmazonVPC", "20261110000000", "EU-VpcEndpoint-Hours"),
        ("public-ipv4-hour", "0.005", "AmazonVPC", "20261110000000", "EU-PublicIPv4:InUseAddress"),
        ("vpc-endpoint-gb", "0.01", "AmazonVPC", "20261110000000", "EU-VpcEndpoint-Bytes"),
        ("nat-gateway-hour", "0.048", "AmazonEC2", "20261113000000", "EU-NatGateway-Hours"),
        ("nat-gateway-gb", "0.048", "AmazonEC2", "20261113000000", "EU-NatGateway-Bytes"),
        ("internet-out-gb", "0.09", "AWSDataTransfer", "20261112000000", "EU-DataTransfer-Out-Bytes"),
        ("alarm", "0.1", "AmazonCloudWatch", "20261111000000", "EU-CW:AlarmMonitorUsage"),
        ("logs-ingestion", "0.57", "AmazonCloudWatch", "20261111000000", "EU-DataProcessing-Bytes"),
        ("logs-storage", "0.03", "AmazonCloudWatch", "20261111000000", "EU-TimedStorage-ByteHrs"),
        ("aurora-io", "0.22", "AmazonRDS", "20261101000000", "EU-Aurora:StorageIOUsage"),
        ("s3-requests", "5", "AmazonS3", "20261107000000", "EU-Requests-Tier1"),
    ];
    for (key, price, offer, version, usage) in expected {
        let url = format!("{}/offers/v1.0/aws/{offer}/{version}/{REGION}/index.json", server.url());
        match &entry(&imported, REGION, key).status {
            PriceStatus::Priced { price: got, source, seen } => {
                assert_eq!(got.0.normalize().to_string(), price, "{key}");
                assert!(source.starts_with(&url), "{key}: {source}");
                assert!(source.contains(&format!("offer {offer} version {version}")), "{key}: {source}");
                assert!(source.contains(&format!("usage type {usage},")), "{key}: {source}");
                assert_eq!(
                    seen,
                    &format!("{}-{}-{}", &version[..4], &version[4..6], &version[6..8]),
                    "{key}"
                );
            }
            other => panic!("{key} should be priced: {other:?}"),
        }
    }
    // The SKU named is the right row's.
    let rds: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(offer_file(&fixtures(), "AmazonRDS", "20261101000000")).unwrap(),
    )
    .unwrap();
    let sku = sku_of(&rds, "EU-InstanceUsage:db.r7g.xl", &[("databaseEngine", "Aurora PostgreSQL")]);
    let PriceStatus::Priced { source, .. } =
        &entry(&imported, REGION, "aurora-instance/db.r7g.xlarge").status
    else {
        panic!("priced above")
    };
    assert!(source.contains(&format!("SKU {sku},")), "{source}");
    // FIFO topics: unpriced with the reason, not read.
    assert!(
        matches!(&entry(&imported, REGION, "sns-fifo").status, PriceStatus::Unpriced { unpriced } if unpriced.contains("not read"))
    );
    // Every key the catalogue's sizes need is written, in their order.
    let table = imported.catalogue.price_table(REGION).unwrap();
    assert_eq!(table.keys().cloned().collect::<Vec<_>>(), keys());
    // Every offer is read once (AmazonVPC for the endpoint hour of `network.endpoints`).
    assert_eq!(imported.offers.len(), price_import::OFFERS.len());
}

#[tokio::test(flavor = "current_thread")]
async fn the_written_file_reads_back_and_prices_every_size() {
    let server = FileServer::start(&fixtures());
    let imported = run(&server.url(), &[REGION]).await.unwrap();
    let text = imported.catalogue.to_yaml();
    let read = Catalogue::parse("prices.yaml", &text).unwrap();
    assert_eq!(read, imported.catalogue);
    let cat = Catalogue::builtin().extended_with(&read);
    // Every size, with every usage declared: the region is priced whole.
    let one = rust_decimal::Decimal::ONE;
    for size in ["small", "medium", "large"] {
        for item in [
            cost::Item::Postgres { engine: PostgresEngine::Rds, size, storage_gb: None, io: None },
            cost::Item::Postgres { engine: PostgresEngine::Aurora, size, storage_gb: None, io: Some(one) },
            cost::Item::Cache { size },
            cost::Item::Tasks { size, tasks: 2, architecture: Architecture::Arm64 },
            cost::Item::Tasks { size, tasks: 2, architecture: Architecture::X86_64 },
            cost::Item::Bucket { size, storage_gb: None, requests: Some(one) },
            cost::Item::Alb { zones: 2 },
            cost::Item::LogGroup { ingested_gb: Some(one), retention_days: 30 },
            cost::Item::Vpc {
                nat: 2,
                endpoints: true,
                nat_gb: Some(one),
                endpoint_gb: Some(one),
                internet_gb: Some(one),
            },
            cost::Item::Alarm,
        ] {
            assert!(cat.price(REGION, &item).monthly().is_some(), "{item:?}: {:?}", cat.price(REGION, &item));
        }
    }
}

/// The interface endpoint hour is read from AmazonVPC (only the offers of the keys asked for
/// are fetched), never from its per-GB row or the `VpcEndpoint-Service-Hours` row.
#[tokio::test(flavor = "current_thread")]
async fn the_endpoint_hour_is_read_when_asked_for() {
    let server = FileServer::start(&fixtures());
    let keys = vec!["vpc-endpoint-hour".to_owned(), "budget".to_owned()];
    let imported = import(&server.url(), &[REGION.to_owned()], &keys, &mut |_| {}).await.unwrap();
    let table = imported.catalogue.price_table(REGION).unwrap();
    // A key no rule reads is left out: the catalogue's own entry stays.
    assert_eq!(table.keys().collect::<Vec<_>>(), ["vpc-endpoint-hour"]);
    match &table["vpc-endpoint-hour"].status {
        PriceStatus::Priced { price, source, .. } => {
            assert_eq!(price.0.normalize().to_string(), "0.011");
            assert!(source.contains("EU-VpcEndpoint-Hours"), "{source}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(imported.offers.len(), 1, "only the offers asked for are read");
}

#[tokio::test(flavor = "current_thread")]
async fn a_region_the_index_does_not_list_is_unpriced_naming_the_offer() {
    let server = FileServer::start(&fixtures());
    let imported = run(&server.url(), &["us-east-1"]).await.unwrap();
    match &entry(&imported, "us-east-1", "rds-instance/db.t4g.micro").status {
        PriceStatus::Unpriced { unpriced } => {
            assert!(
                unpriced.contains("offer AmazonRDS") && unpriced.contains("lists no file for us-east-1"),
                "{unpriced}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test(flavor = "current_thread")]
async fn an_unknown_region_is_refused_before_any_request() {
    let server = FileServer::start(&fixtures());
    let err = run(&server.url(), &[REGION, "eu-wset-1"]).await.unwrap_err();
    assert!(err.is_usage(), "{err}");
    assert!(err.to_string().contains("`eu-wset-1`") && err.to_string().contains("eu-west-1"), "{err}");
    assert_eq!(server.requests(), 0);
}

#[tokio::test(flavor = "current_thread")]
async fn an_endpoint_without_its_scheme_is_a_usage_error() {
    let server = FileServer::start(&fixtures());
    let bare = server.url().replace("http://", "");
    let err = run(&bare, &[REGION]).await.unwrap_err();
    assert!(matches!(&err, Error::BadEndpoint { endpoint } if *endpoint == bare), "{err}");
    assert!(err.is_usage());
    assert_eq!(server.requests(), 0);
}

#[tokio::test(flavor = "current_thread")]
async fn an_endpoint_that_is_down_is_unreachable() {
    let err = run(&format!("http://127.0.0.1:{}", free_port()), &[REGION]).await.unwrap_err();
    assert!(matches!(err, Error::Unreachable { .. }), "{err}");
    assert!(err.to_string().contains("region_index.json"), "{err}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_server_that_fails_twice_then_answers_is_retried() {
    let server = FileServer::start_failing(&fixtures(), 2);
    let imported = run(&server.url(), &[REGION]).await.unwrap();
    assert!(matches!(entry(&imported, REGION, "alb-hour").status, PriceStatus::Priced { .. }));
}

#[tokio::test(flavor = "current_thread")]
async fn a_server_that_keeps_failing_is_an_error_after_three_attempts() {
    let server = FileServer::start_failing(&fixtures(), usize::MAX);
    let err = run(&server.url(), &[REGION]).await.unwrap_err();
    assert!(
        matches!(&err, Error::Status { status: 503, url } if url.ends_with("region_index.json")),
        "{err}"
    );
    assert_eq!(server.requests(), 3);
}

#[tokio::test(flavor = "current_thread")]
async fn a_missing_offer_file_is_a_404() {
    let dir = edited_copy("price-import-404", |root| {
        std::fs::remove_file(offer_file(root, "AmazonECS", "20261103000000")).unwrap();
    });
    let server = FileServer::start(&dir);
    let err = run(&server.url(), &[REGION]).await.unwrap_err();
    assert!(matches!(&err, Error::Status { status: 404, url } if url.contains("AmazonECS")), "{err}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_truncated_offer_file_is_malformed_with_its_line() {
    let dir = edited_copy("price-import-truncated", |root| {
        let path = offer_file(root, "AmazonRDS", "20261101000000");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, &text[..text.len() * 2 / 3]).unwrap();
    });
    let server = FileServer::start(&dir);
    let err = run(&server.url(), &[REGION]).await.unwrap_err();
    match &err {
        Error::Malformed { url, message } => {
            assert!(url.ends_with("AmazonRDS/20261101000000/eu-west-1/index.json"), "{url}");
            assert!(message.contains("EOF") && message.contains("line"), "{message}");
        }
        other => panic!("{other}"),
    }
}

#[tokio::test(flavor = "current_thread")]
async fn an_offer_without_a_needed_row_leaves_that_key_unpriced() {
    let dir = edited_copy("price-import-no-row", |root| {
        edit_json(&offer_file(root, "AmazonElastiCache", "20261102000000"), |doc| {
            let sku = sku_of(doc, "EU-NodeUsage:cache.t4g.medium", &[("cacheEngine", "Valkey")]);
            doc["products"].as_object_mut().unwrap().remove(&sku);
        });
    });
    let server = FileServer::start(&dir);
    let imported = run(&server.url(), &[REGION]).await.unwrap();
    match &entry(&imported, REGION, "cache-node/cache.t4g.medium").status {
        PriceStatus::Unpriced { unpriced } => {
            assert!(unpriced.contains("offer AmazonElastiCache version 20261102000000"), "{unpriced}");
            assert!(unpriced.contains("Valkey cache.t4g.medium"), "{unpriced}");
        }
        other => panic!("the Redis row must not price Valkey: {other:?}"),
    }
    // The other nodes are still priced.
    assert!(matches!(
        entry(&imported, REGION, "cache-node/cache.t4g.micro").status,
        PriceStatus::Priced { .. }
    ));
}

#[tokio::test(flavor = "current_thread")]
async fn rows_that_disagree_are_not_chosen_between() {
    let dir = edited_copy("price-import-disagree", |root| {
        edit_json(&offer_file(root, "AmazonECS", "20261103000000"), |doc| {
            let sku = sku_of(doc, "EU-Fargate-ARM-GB-Hours", &[]);
            let mut copy = doc["products"][&sku].clone();
            copy["sku"] = "ZZZZDUPLICATE".into();
            doc["products"]["ZZZZDUPLICATE"] = copy;
            let mut terms = doc["terms"]["OnDemand"][&sku].clone();
            let text = serde_json::to_string(&terms)
                .unwrap()
                .replace(&sku, "ZZZZDUPLICATE")
                .replace("0.0035600000", "0.0040000000");
            terms = serde_json::from_str(&text).unwrap();
            doc["terms"]["OnDemand"]["ZZZZDUPLICATE"] = terms;
        });
    });
    let server = FileServer::start(&dir);
    let imported = run(&server.url(), &[REGION]).await.unwrap();
    match &entry(&imported, REGION, "fargate-arm-gb").status {
        PriceStatus::Unpriced { unpriced } => {
            assert!(unpriced.contains("disagree") && unpriced.contains("ZZZZDUPLICATE"), "{unpriced}")
        }
        other => panic!("{other:?}"),
    }
}

/// Route 53's hosted zone is a global price: read when the offer's index lists a single
/// global file instead of one per region, and whatever `regionCode` its row carries.
#[tokio::test(flavor = "current_thread")]
async fn a_global_price_is_read_from_the_file_the_index_lists() {
    let dir = edited_copy("price-import-global", |root| {
        let offer = root.join("offers/v1.0/aws/AmazonRoute53");
        let index = offer.join("current/region_index.json");
        let text = std::fs::read_to_string(&index).unwrap();
        std::fs::write(&index, text.replace("\"eu-west-1\" :", "\"global\" :")).unwrap();
        edit_json(&offer_file(root, "AmazonRoute53", "20261109000000"), |doc| {
            for product in doc["products"].as_object_mut().unwrap().values_mut() {
                product["attributes"]["regionCode"] = serde_json::json!("global");
            }
        });
    });
    let server = FileServer::start(&dir);
    let keys = vec!["route53-zone".to_owned()];
    let imported = import(&server.url(), &[REGION.to_owned()], &keys, &mut |_| {}).await.unwrap();
    match &entry(&imported, REGION, "route53-zone").status {
        PriceStatus::Priced { price, .. } => assert_eq!(price.0.normalize().to_string(), "0.5"),
        other => panic!("{other:?}"),
    }
}
