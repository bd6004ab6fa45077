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
    // Its bootstrap waits for the shared proxy, by dev's name.
    let bootstrap = plan.tasks.iter().find(|t| t.proxy.is_some()).expect("a bootstrap task");
    let dev_proxy = dev.tasks.iter().find(|t| t.proxy.is_some()).unwrap();
    assert_eq!(bootstrap.proxy, dev_proxy.proxy);
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

/// A preview's own database in dev's instance: its logins and groups named apart, dev's admin
/// (its proxy secret by dev's name and shared, its password read from dev's parameter, none
/// generated), and the SQL that makes and drops them (docs/previews.md, "Data").
#[test]
fn a_previews_database_is_its_own_and_its_admin_is_devs() {
    let product = common::shipped_example();
    let catalogue = Catalogue::builtin();
    let dev = runtime_plan::plan(&product, "dev", &catalogue).unwrap();
    let plan = preview_plan(&product, 7, &catalogue).unwrap();
    // The admin's proxy secret is dev's, by dev's name, shared (the preview never writes it).
    let admin_secret = |p: &runtime_plan::Plan| {
        p.items.iter().find(|i| i.kind() == runtime_plan::ItemKind::ProxySecret).unwrap().clone()
    };
    let (ours, theirs) = (admin_secret(&plan), admin_secret(&dev));
    assert_eq!(ours.managed_by, ManagedBy::Shared);
    assert_eq!(format!("{:?}", ours.spec), format!("{:?}", theirs.spec));
    assert!(format!("{:?}", ours.spec).contains("acme-shop/dev/main-db/proxy-admin"), "{:?}", ours.spec);
    let kinds = |p: &runtime_plan::Plan| -> Vec<String> {
        p.secrets.generated.iter().map(|g| format!("{:?}", g.kind)).collect()
    };
    assert!(kinds(&dev).iter().any(|k| k.contains("Admin")), "{:?}", kinds(&dev));
    assert!(!kinds(&plan).iter().any(|k| k.contains("Admin")), "a preview generates an admin password");
    // Its bootstrap: its own database, logins and groups, dev's database to connect to first.
    let boot = &plan.secrets.bootstraps[0];
    assert_eq!(boot.database, "main_db_pr_7");
    assert!(!boot.logins.is_empty());
    assert!(boot.logins.iter().all(|l| l.role.starts_with("app_") && l.role.ends_with("_pr_7")));
    let own = boot.own.as_ref().expect("a preview's database is its own");
    assert_eq!((own.connects_to.as_str(), own.write_group.as_str()), ("main_db", "runway_write_pr_7"));
    let sql = boot.sql();
    assert!(sql.contains("CREATE DATABASE \"main_db_pr_7\""), "{sql}");
    assert!(sql.contains("\\connect \"main_db_pr_7\""), "{sql}");
    assert!(!sql.contains("\"runway_write\""), "a preview's SQL touches dev's group: {sql}");
    let drop = boot.drop_sql().expect("a preview's drop SQL");
    assert!(drop.contains("DROP DATABASE IF EXISTS \"main_db_pr_7\" WITH (FORCE);"), "{drop}");
    assert!(drop.contains("DROP ROLE IF EXISTS \"runway_read_pr_7\";"), "{drop}");
    // Dev's is as before: no own database, nothing to drop.
    let dev_boot = &dev.secrets.bootstraps[0];
    assert!(dev_boot.own.is_none() && dev_boot.drop_sql().is_none());
    assert_eq!(dev_boot.sql(), runtime_plan::plan::bootstrap_sql("main_db", "runway", &dev_boot.logins));
    // Its task reads dev's admin password where dev keeps it, and connects to dev's database.
    let task = plan.tasks.iter().find(|t| t.purpose.word() == "bootstrap").unwrap();
    let spec = &plan.item(&task.task_definition).unwrap().spec;
    let shown = format!("{spec:?}");
    assert!(shown.contains("\"/acme-shop/dev/main-db/MAIN_DB_PASSWORD\""), "{shown}");
    // The same plan gives the same SQL.
    let again = preview_plan(&product, 7, &catalogue).unwrap();
    assert_eq!(again.secrets.bootstraps[0].sql(), sql);
    assert_eq!(again.secrets.bootstraps[0].drop_sql(), Some(drop));
}

/// The preview's logins on dev's proxy: its secrets, by name, which `up` registers with that
/// proxy and `down` takes off (by their prefix); dev's proxy role reads every preview's, and
/// production's does not (docs/previews.md, "The shared proxy's logins").
#[test]
fn a_previews_logins_go_on_devs_proxy_and_devs_proxy_role_reads_them() {
    let product = common::shipped_example();
    let catalogue = Catalogue::builtin();
    let dev = runtime_plan::plan(&product, "dev", &catalogue).unwrap();
    let plan = preview_plan(&product, 7, &catalogue).unwrap();
    let shared = runtime_plan::shared_proxy_logins(&plan);
    assert_eq!(shared.len(), 1, "{shared:?}");
    assert_eq!(shared[0].resource, "main-db");
    assert_eq!(Some(&shared[0].proxy), dev.item("main-db_proxy").map(|i| &i.physical_name));
    assert_eq!(shared[0].prefix, "acme-shop/pr-7/main-db/proxy-");
    // One per consumer of main-db the preview keeps, each its own (not dev's).
    let logins: Vec<&str> = plan.secrets.bootstraps[0].logins.iter().map(|l| l.role.as_str()).collect();
    assert_eq!(shared[0].secrets.len(), logins.len(), "{logins:?}");
    assert!(shared[0].secrets.iter().all(|s| s.starts_with("acme-shop/pr-7/main-db/proxy-")), "{shared:?}");
    // A declared environment's plan registers nothing: its program lists its logins.
    assert!(runtime_plan::shared_proxy_logins(&dev).is_empty());
    let pattern = |p: &runtime_plan::Plan| match &p.item("main-db_proxy-role").unwrap().spec {
        runtime_plan::ItemSpec::ProxyRole { previews, .. } => previews.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(pattern(&dev).as_deref(), Some("acme-shop/pr-*/main-db/proxy-*"));
    let production = runtime_plan::plan(&product, "production", &catalogue).unwrap();
    assert_eq!(pattern(&production), None);
}

#[test]
fn a_product_without_previews_or_pr_zero_is_refused() {
    let mut product = common::shipped_example();
    let catalogue = Catalogue::builtin();
    assert!(matches!(preview_plan(&product, 0, &catalogue), Err(PreviewError::InvalidNumber(0))));
    product.root.previews = None;
    assert!(matches!(preview_plan(&product, 7, &catalogue), Err(PreviewError::NotDeclared)));
}

mod pool {
    use std::collections::BTreeSet;

    use runtime_plan::preview_pool::{LivePreview, PoolRefusal, SweepReason, admit, pr_of, sweep};
    use runway_schema::Money;

    use crate::common;

    const DAY: u64 = 86_400;
    const NOW: u64 = 1_800_000_000;

    fn live(name: &str, days_old: u64, monthly: &str) -> LivePreview {
        LivePreview {
            name: name.into(),
            created_at: Some(NOW - days_old * DAY),
            monthly: Some(Money::parse(monthly).unwrap()),
            stack: true,
        }
    }

    fn preview(pr: u64) -> runtime_plan::plan::Preview {
        let product = common::shipped_example();
        let plan = runtime_plan::preview_plan(&product, pr, &cost::Catalogue::builtin()).unwrap();
        plan.preview.unwrap()
    }

    fn m(text: &str) -> Money {
        Money::parse(text).unwrap()
    }

    /// The example's pool: $120 for 5 at most. Three at $30 leave room for a fourth at $30;
    /// one at $31 is refused naming the three, oldest first, with their ages.
    #[test]
    fn the_sum_of_the_live_previews_and_this_one_is_held_to_the_cap() {
        let p = preview(4);
        let three = [live("pr-2", 1, "30"), live("pr-1", 2, "30"), live("pr-3", 0, "30")];
        let ok = admit(&p, m("30"), &three, NOW, false).unwrap();
        assert_eq!((ok.others, ok.count, ok.created_at), (m("90"), 4, NOW));
        let refused = admit(&p, m("30.01"), &three, NOW, false).unwrap_err();
        let PoolRefusal::OverCap { total, cap, ref holders, .. } = refused else { panic!("{refused:?}") };
        assert_eq!((total, cap), (m("120.01"), m("120")));
        let named: Vec<(&str, Option<u64>)> =
            holders.iter().map(|h| (h.name.as_str(), h.age_seconds)).collect();
        assert_eq!(named, [("pr-1", Some(2 * DAY)), ("pr-2", Some(DAY)), ("pr-3", Some(0))]);
        assert!(refused.to_string().contains("over the pool's cap of $120.00"), "{refused}");
    }

    /// `max` is a count: a sixth preview at no cost is refused with five live; the same
    /// preview going up again is not a new one, keeps its creation time unless extended.
    #[test]
    fn max_counts_previews_and_a_preview_going_up_again_is_counted_once() {
        let five: Vec<LivePreview> = (1..=5).map(|n| live(&format!("pr-{n}"), n, "1")).collect();
        let refused = admit(&preview(6), Money::ZERO, &five, NOW, false).unwrap_err();
        assert!(matches!(refused, PoolRefusal::OverMax { count: 6, max: 5, .. }), "{refused:?}");
        assert_eq!(refused.holders().len(), 5);
        let again = admit(&preview(3), m("2"), &five, NOW, false).unwrap();
        assert_eq!((again.count, again.others, again.created_at), (5, m("4"), NOW - 3 * DAY));
        let extended = admit(&preview(3), m("2"), &five, NOW, true).unwrap();
        assert_eq!(extended.created_at, NOW);
    }

    /// The clock past `expireAfter` (3 days) removes exactly the expired; a closed pull
    /// request's and a leftover go too; a name that is no `pr-<n>`, or a declared
    /// environment's, never.
    #[test]
    fn sweep_removes_the_expired_the_closed_and_the_leftovers_only() {
        let mut leftover = live("pr-9", 0, "5");
        leftover.stack = false;
        leftover.created_at = None;
        let previews = [
            live("pr-1", 4, "10"),
            live("pr-2", 1, "10"),
            live("pr-3", 3, "10"),
            live("pr-4", 0, "10"),
            leftover,
            live("dev", 9, "10"),
            live("pr-07", 9, "10"),
        ];
        let open: BTreeSet<u64> = [1, 2, 3, 9].into();
        let gone = sweep(&previews, &open, NOW, 3 * DAY, &["dev"]);
        let gone: Vec<(&str, SweepReason)> = gone.iter().map(|r| (r.name.as_str(), r.reason)).collect();
        assert_eq!(
            gone,
            [
                ("pr-1", SweepReason::Expired),
                ("pr-3", SweepReason::Expired),
                ("pr-4", SweepReason::Closed),
                ("pr-9", SweepReason::Leftover)
            ]
        );
        assert!(sweep(&previews[..2], &[1, 2].into(), NOW - 2 * DAY, 3 * DAY, &[]).is_empty());
        assert!(sweep(&[live("pr-5", 9, "1")], &BTreeSet::new(), NOW, DAY, &["pr-5"]).is_empty());
        assert_eq!((pr_of("pr-12"), pr_of("pr-0"), pr_of("pr-"), pr_of("dev")), (Some(12), None, None, None));
    }
}
