#![allow(clippy::unwrap_used, clippy::expect_used)] // reason: a test fails loudly
//! A pull request's preview of the shipped example (`previews: { from: dev, ... }`): what it
//! shares with dev, what it adds and is priced for, its names, database, secrets' places and
//! tags (docs/previews.md).

use crate::common;

use cost::Catalogue;
use runtime_plan::{ManagedBy, PreviewError, preview_plan};

#[test]
fn a_preview_shares_devs_platform_and_is_priced_for_what_it_adds() {
    let product = common::shipped_example();
    let catalogue = Catalogue::builtin();
    let dev = runtime_plan::plan(&product, "dev", &catalogue).unwrap();
    let plan = preview_plan(&product, 7, &catalogue).unwrap();
    let preview = plan.preview.as_ref().expect("a preview's plan says it is one");
    assert_eq!(plan.environment, "pr-7");
    assert_eq!(preview.from, "dev");
    // Shared: dev's cluster and ALB, by dev's names, looked up; not charged.
    for id in ["env_ecs-cluster", "env_alb"] {
        let item = plan.item(id).unwrap_or_else(|| panic!("{id}"));
        assert_eq!(item.managed_by, ManagedBy::Shared, "{id}");
        assert_eq!(item.physical_name, dev.item(id).unwrap().physical_name, "{id}");
        assert_eq!(item.monthly, Some(runway_schema::Money::ZERO), "{id}");
        assert!(preview.shares.iter().any(|s| s.id == id), "{id}");
    }
    // The database instance is shared; the preview's consumers get a database of their own.
    assert!(preview.shares.iter().any(|s| s.kind == runtime_plan::ItemKind::RdsInstance));
    assert_eq!(preview.databases, vec![("main-db".into(), "main_db_pr_7".into())]);
    let database = plan.secrets.connection.iter().find(|c| c.infisical.name == "MAIN_DB_DATABASE").unwrap();
    assert!(format!("{database:?}").contains("main_db_pr_7"), "{database:?}");
    // Its own: metabase's service, named for the preview; pdf-render left out.
    assert!(plan.workloads.iter().any(|w| w.name == "metabase"));
    assert!(!plan.workloads.iter().any(|w| w.name == "pdf-render"));
    assert_eq!(preview.left_out, vec!["pdf-render"]);
    assert!(plan.items.iter().any(|i| i.managed_by == ManagedBy::Pulumi && i.physical_name.contains("pr-7")));
    // Priced for what it adds: less than dev, more than nothing, under the pool's cap.
    assert!(plan.cost.monthly.0 > rust_decimal::Decimal::ZERO);
    assert!(plan.cost.monthly.0 < dev.cost.monthly.0, "{} vs {}", plan.cost.monthly, dev.cost.monthly);
    assert_eq!(plan.cost.cap.map(|c| c.cents().to_string()), Some("120.00".to_owned()));
    assert!(plan.cost.lines.iter().all(|l| plan.item(&l.item).unwrap().managed_by != ManagedBy::Shared));
    // Secrets: the previews' Infisical environment, never production's; its own SSM prefix.
    assert_eq!(preview.infisical_environment, "preview");
    assert!(
        plan.secrets.ssm_prefix.starts_with("/acme-shop/dev/previews/pr-7"),
        "{}",
        plan.secrets.ssm_prefix
    );
    let text = format!("{:?}", plan.secrets);
    assert!(!text.contains("environment: \"prod\""), "a preview's value lands in prod");
    // Tags: a preview of the product, with its number.
    let item = plan.items.iter().find(|i| i.managed_by == ManagedBy::Pulumi).unwrap();
    let tags = plan.tags_of(item);
    assert!(tags.contains(&("runway-preview", "pr-7")), "{tags:?}");
    assert!(tags.contains(&("product", "acme-shop")), "{tags:?}");
    // The text says what it shares and adds.
    let shown = plan_render::render_plan_text(&plan);
    assert!(shown.contains("preview pr-7 of pull request #7, from dev"), "{shown}");
    assert!(shown.contains("main_db_pr_7"), "{shown}");
}

#[test]
fn a_product_without_previews_or_pr_zero_is_refused() {
    let mut product = common::shipped_example();
    let catalogue = Catalogue::builtin();
    assert!(matches!(preview_plan(&product, 0, &catalogue), Err(PreviewError::InvalidNumber(0))));
    product.root.previews = None;
    assert!(matches!(preview_plan(&product, 7, &catalogue), Err(PreviewError::NotDeclared)));
}
