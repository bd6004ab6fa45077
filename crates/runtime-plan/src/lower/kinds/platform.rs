//! The environment's platform, each part made only when something needs it: the ECS cluster
//! (any workload, or a postgres resource, whose bootstrap task runs in it; each workload has
//! its own roles, see `identity.rs`), the workloads' security
//! group (internal workloads) and the members' groups (one per port the members reach
//! something on; see `network.rs`), the Cloud Map namespace (internal workloads), the ALB with
//! its HTTPS listener and its HTTP listener that redirects to HTTPS (public workloads; in
//! production with its log bucket, see `access_logs.rs`), and the subnet groups of databases
//! and caches.

use compact_str::CompactString;
use indexmap::IndexMap;
use runway_schema::{Code, Diagnostic, Expose, Kind, Workload};

use super::context::{Cx, Named, NewItem};
use super::network::{self, HTTP_PORT, HTTPS_PORT};
use super::resources::Resources;
use super::{access_logs, cat, endpoints};
use crate::plan::{AlbListenerSpec, AlbSpec, ItemKind, ItemSpec, ListenerAction};
use crate::pricing::Priceable;

/// The platform items of an environment; `None` where nothing needs one.
#[derive(Default)]
pub(in crate::lower) struct Platform {
    pub(in crate::lower) cluster: Option<Named>,
    /// The namespace; its name is its DNS name (`<env>.<product>.internal`).
    pub(in crate::lower) namespace: Option<Named>,
    /// The ALB (its logical id), when public workloads have a domain.
    pub(in crate::lower) alb: Option<CompactString>,
    /// The ALB's HTTPS listener, when public workloads have a domain.
    pub(in crate::lower) listener: Option<Named>,
    pub(in crate::lower) db_subnets: Option<CompactString>,
    pub(in crate::lower) cache_subnets: Option<CompactString>,
}

/// Lays down the platform the workloads and resources need.
pub(in crate::lower) fn lower(
    cx: &mut Cx,
    workloads: &IndexMap<String, Workload>,
    resources: &Resources,
) -> Platform {
    let env_base = cat(&[cx.product, "-", cx.env_name]);
    let has = |expose: Expose| workloads.values().any(|w| w.expose == expose);
    let has_kind = |kind: Kind| resources.iter().any(|r| r.spec.kind() == kind);
    let mut platform = Platform::default();
    if !workloads.is_empty() || has_kind(Kind::Postgres) {
        platform.cluster = Some(cluster(cx, &env_base, workloads));
    }
    // A worker (no port) is discovered by nothing: the namespace serves listening ones.
    if workloads.values().any(|w| w.expose == Expose::Internal && w.port.is_some()) {
        platform.namespace = Some(namespace(cx));
        network::workloads(cx, &env_base);
    }
    network::members(cx, &env_base);
    endpoints::lower(cx, workloads, resources);
    super::vpc::lower(cx, !workloads.is_empty());
    if has(Expose::Public)
        && let Some((alb, listener)) = alb(cx, &env_base, workloads)
    {
        (platform.alb, platform.listener) = (Some(alb), Some(listener));
    }
    if has_kind(Kind::Postgres) {
        let name = cat(&[&env_base, "-db-subnets"]);
        platform.db_subnets = Some(subnet_group(cx, "env_db-subnets", name, ItemSpec::DbSubnetGroup {}));
    }
    if has_kind(Kind::Cache) {
        let name = cat(&[&env_base, "-cache-subnets"]);
        platform.cache_subnets =
            Some(subnet_group(cx, "env_cache-subnets", name, ItemSpec::CacheSubnetGroup {}));
    }
    platform
}

fn cluster(cx: &mut Cx, env_base: &CompactString, workloads: &IndexMap<String, Workload>) -> Named {
    let name = cx.named(ItemKind::EcsCluster, env_base.clone());
    // A backlog per task needs the running tasks' count, which Container Insights publishes.
    let container_insights =
        workloads.values().any(|w| w.scaling_in(cx.env_name).on.is_some_and(|on| !on.queue.is_empty()));
    let spec = ItemSpec::EcsCluster { container_insights };
    let id = cx.push(NewItem::new("env_ecs-cluster".into(), name.clone(), None, spec));
    Named { id, name }
}

fn namespace(cx: &mut Cx) -> Named {
    let dns = cat(&[cx.env_name, ".", cx.product, ".internal"]);
    let spec = ItemSpec::CloudMapNamespace { name: dns.clone() };
    let id =
        cx.push(NewItem::new("env_namespace".into(), dns.clone(), None, spec).priced(Priceable::PrivateZone));
    Named { id, name: dns }
}

/// The TLS policy of the HTTPS listener: TLS 1.3, and TLS 1.2 with forward-secret ciphers only.
pub(crate) const TLS_POLICY: &str = "ELBSecurityPolicy-TLS13-1-2-2021-06";

/// The ALB, its HTTPS listener and its HTTP listener (a permanent redirect to HTTPS); returns
/// the ALB's id and the HTTPS listener. Without a domain, none, and an error naming the public
/// workloads.
fn alb(
    cx: &mut Cx,
    env_base: &str,
    workloads: &IndexMap<String, Workload>,
) -> Option<(CompactString, Named)> {
    let Some(domain) = &cx.env.domain else {
        let public: Vec<&str> =
            workloads.iter().filter(|(_, w)| w.expose == Expose::Public).map(|(n, _)| n.as_str()).collect();
        let e = cx.env_name;
        cx.diagnostics.push(
            Diagnostic::error(
                Code::MissingDomain,
                cx.env.at.clone(),
                format!("environments.{e}.domain"),
                format!("environment `{e}` has public workloads ({}) but no `domain`", public.join(", ")),
            )
            .with_help(format!("set `environments.{e}.domain`")),
        );
        return None;
    };
    let security_group = network::alb(cx, env_base);
    let protected = access_logs::production_alb(cx.env_name);
    let log_bucket = protected.then(|| access_logs::log_bucket(cx, env_base));
    let alb_name = cx.named(ItemKind::Alb, cat(&[env_base, "-alb"]));
    let spec = ItemSpec::Alb(Box::new(AlbSpec {
        domain: domain.as_str().into(),
        security_groups: vec![security_group],
        drop_invalid_header_fields: true,
        deletion_protection: protected,
        access_logs: log_bucket.clone(),
    }));
    let zones = cx.env.network.zones;
    let alb = cx.push(
        NewItem::new("env_alb".into(), alb_name.clone(), None, spec)
            .depends_on(log_bucket.into_iter().collect())
            .priced(Priceable::Alb { zones }),
    );
    let name = cat(&[&alb_name, "/https-443"]);
    let spec = ItemSpec::AlbListener(Box::new(AlbListenerSpec {
        alb: alb.clone(),
        port: HTTPS_PORT,
        protocol: "HTTPS".into(),
        ssl_policy: Some(TLS_POLICY.into()),
        default_action: ListenerAction::NotFound,
    }));
    let id = cx.push(
        NewItem::new("env_alb-listener".into(), name.clone(), None, spec).depends_on(vec![alb.clone()]),
    );
    let spec = ItemSpec::AlbListener(Box::new(AlbListenerSpec {
        alb: alb.clone(),
        port: HTTP_PORT,
        protocol: "HTTP".into(),
        ssl_policy: None,
        default_action: ListenerAction::RedirectToHttps { port: HTTPS_PORT, status_code: "HTTP_301".into() },
    }));
    let http_name = cat(&[&alb_name, "/http-80"]);
    cx.add(NewItem::new("env_alb-http-listener".into(), http_name, None, spec).depends_on(vec![alb.clone()]));
    Some((alb, Named { id, name }))
}

/// A subnet group of the environment's databases or caches.
fn subnet_group(cx: &mut Cx, id: &str, full_name: CompactString, spec: ItemSpec) -> CompactString {
    let name = cx.named(spec.kind(), full_name);
    cx.push(NewItem::new(id.into(), name, None, spec))
}
