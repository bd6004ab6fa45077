//! What `runway preflight` expects of the shipped example's account and registries: the
//! images with their platforms, the public hosts, the route out, the quotas at the ceiling.
#![allow(clippy::unwrap_used)] // reason: tests

use cost::Catalogue;
use runtime_plan::plan;
use runtime_plan::preflight::{Platform, Quota, expectations};
use rust_decimal::Decimal;

use crate::common;

#[test]
fn the_example_expects_its_images_hosts_route_and_quotas() {
    let product = common::shipped_example();
    let p = plan(&product, "dev", &Catalogue::builtin()).unwrap();
    let e = expectations(&p);
    let images: Vec<(String, &str, Platform, bool)> = e
        .images
        .iter()
        .map(|i| {
            (i.used_by.join(","), i.image.split(':').next().unwrap(), i.platform, i.credentials.is_some())
        })
        .collect();
    assert_eq!(
        images,
        [
            (
                "main-db-bootstrap".to_owned(),
                "public.ecr.aws/docker/library/postgres",
                Platform::Amd64,
                false
            ),
            // The migrate task pulls the same image for the same platform: one check.
            ("metabase".to_owned(), "metabase/metabase", Platform::Amd64, false),
            ("pdf-render".to_owned(), "ghcr.io/acme/pdf-render", Platform::Arm64, true),
            ("jobs-worker".to_owned(), "ghcr.io/acme/jobs-worker", Platform::Arm64, true),
        ]
    );
    assert_eq!(e.public_hosts, ["metabase.dev.acme.example"]);
    assert_eq!(e.domain.as_deref(), Some("dev.acme.example"));
    assert!(e.route_out.as_deref().unwrap().contains("pull images from outside ECR"));
    assert!(e.existing_endpoints.is_empty(), "the example declares no `existing` endpoints");
    assert_eq!(e.key_alias.as_deref(), Some("alias/runway/acme-shop/dev"));
    assert!(e.ecs_services);
    let quotas: Vec<(Quota, Decimal)> = e.quotas.iter().map(|q| (q.quota, q.needed)).collect();
    // Metabase (1024 CPU units, sized to boot) and pdf-render (256), each at max 1, the
    // jobs worker (256) at max 2, plus the largest one-off task (Metabase's migrate, 1024):
    // 2.75 vCPU.
    assert_eq!(
        quotas,
        [
            (Quota::FargateVcpu, Decimal::new(275, 2)),
            (Quota::ElasticIps, Decimal::ONE),
            (Quota::RdsInstances, Decimal::ONE),
            (Quota::CacheNodes, Decimal::TWO),
        ]
    );
}

#[test]
fn production_scales_the_fargate_ceiling_with_max_tasks() {
    let product = common::shipped_example();
    let p = plan(&product, "production", &Catalogue::builtin()).unwrap();
    let e = expectations(&p);
    let cpu: u32 = p.workloads.iter().map(|w| w.max * w.task.cpu).sum();
    let fargate = e.quotas.iter().find(|q| q.quota == Quota::FargateVcpu).unwrap();
    assert!(fargate.needed > Decimal::from(cpu) / Decimal::from(1024u32), "{fargate:?}");
}
