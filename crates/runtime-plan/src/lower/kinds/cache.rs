//! `kind: cache`: a Valkey replication group with TLS and an AUTH token, which the secrets
//! adapter generates and the group reads from SSM.

use compact_str::{CompactString, ToCompactString};
use cost::CacheSize;

use super::context::{Cx, NewItem};
use super::platform::Platform;
use super::resources::Res;
use super::{CACHE_PORT, Described, cat};
use super::{network, protection};
use crate::plan::{CacheReplicationGroupSpec, CredentialKind, ItemKind, ItemSpec};
use crate::pricing::Priceable;

/// Lowers a cache resource: its replication group, AUTH token and connection variables.
pub(in crate::lower) fn lower(cx: &mut Cx, r: &Res, version: &str, platform: &Platform) -> Described {
    let sizing = cx.catalogue.cache(&r.size);
    if sizing.is_none() {
        cx.unknown_resource_size(r, "cache");
    }
    let sizing = sizing.unwrap_or(CacheSize { node_type: String::new(), nodes: 0 });
    let token_param = cx.secrets.ssm_name(&r.name, &r.var("PASSWORD"));
    let name = cx.named(ItemKind::CacheReplicationGroup, cx.base(&r.name));
    let subnet_group = platform.cache_subnets.clone().unwrap_or_default();
    let spec = ItemSpec::CacheReplicationGroup(Box::new(CacheReplicationGroupSpec {
        resource: r.name.clone(),
        engine: "valkey".into(),
        engine_version: version.into(),
        automatic_failover: sizing.nodes > 1,
        transit_encryption: true,
        at_rest_encryption: true,
        snapshot_retention_days: protection::cache_snapshot_days(cx.env_name),
        auth_token_parameter: CompactString::from(&*token_param),
        subnet_group: subnet_group.clone(),
        size: sizing.clone(),
        security_groups: network::cache_groups(cx, r.index, &r.name),
        apply_immediately: protection::apply_immediately(cx.env_name, cx.env.apply_changes),
    }));
    let depends_on = [vec![subnet_group], network::cache_groups(cx, r.index, &r.name)].concat();
    let id = cx.push(
        NewItem::new(cat(&[&r.name, "_cache"]), name, Some(&r.name), spec)
            .size(&r.size)
            .depends_on(depends_on)
            .priced(Priceable::Cache { size: r.size.as_str().into() }),
    );
    network::declare_cache(cx, (r.index, &r.name, &cx.base(&r.name)));
    if let Some(password) = r.var_index("PASSWORD") {
        cx.secrets.resource_parameter(r, password, &token_param, &id);
    }
    cx.secrets.generated(r, CredentialKind::CacheAuthToken, None);
    // Joined, not formatted (fifth pass).
    let (password, host, port) = (r.var("PASSWORD"), r.var("HOST"), r.var("PORT"));
    let url = cat(&["rediss://:${", &password, "}@${", &host, "}:${", &port, "}"]);
    cx.secrets.template(r, r.var("URL"), url);
    cx.output(r, &id, "primaryEndpointAddress", r.var("HOST"));
    cx.secrets.literal(r, r.var("PORT"), CACHE_PORT.to_compact_string());
    Described {
        engine: "valkey".into(),
        version: Some(version.into()),
        summary: if sizing.nodes == 0 {
            "unknown size".into()
        } else {
            // Joined, not formatted (sixth pass).
            [
                &compact_str::ToCompactString::to_compact_string(&sizing.nodes),
                " x ",
                sizing.node_type.as_str(),
            ]
            .concat()
        },
    }
}
