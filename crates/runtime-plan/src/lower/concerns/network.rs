//! The network: a security group for the ALB, each workload, each postgres proxy and database
//! and each cache, with rules derived from the graph alone. What a rule does not allow is
//! denied (the groups have no default egress).
//!
//! | group | ingress | egress |
//! |---|---|---|
//! | ALB | the internet on 443 and 80 | each public workload on its port |
//! | a workload | public: the ALB on its port; internal: the environment's workloads group on its port | 443 to the internet (AWS APIs, registries), each used postgres's proxy on 5432, each used cache on 6379 |
//! | the environment's workloads group (on every service, when a workload is internal) | none | each internal workload on its port |
//! | a proxy | each workload that uses its postgres and its bootstrap task, on 5432 | its database on 5432, 443 to the internet (Secrets Manager) |
//! | a postgres bootstrap task | none | its proxy on 5432, 443 to the internet (its image, SSM, logs) |
//! | a database | its proxy on 5432 | none |
//! | a cache | each workload that uses it, on 6379 | none |
//! | the environment's members group of a port | the members' groups (`memberSecurityGroupIds`) on that port | none |
//! | the VPC endpoints (`network.endpoints: true`) | the VPC's CIDR blocks (`vpcCidrBlocks`) on 443 | none |
//!
//! Members run outside the program: a target the members reach (the proxy of a postgres a
//! member uses, a cache a member uses, an internal workload) also gets the members group of its
//! own port, whose one rule admits the members' groups on that port only: targets share it, and
//! none is reached on another's port. It is a group of its own because the members' groups are
//! a list input, which only a group's own rule list can take.
//!
//! The VPC endpoints' private DNS names answer for the whole VPC, so their group admits every
//! address of the VPC on 443, not only this environment's tasks and proxies: another
//! environment, a member or anything else sharing the VPC reaches AWS through them too (and may
//! declare `network.endpoints: existing`). Tasks and proxies reach them through their 443
//! egress.

use compact_str::{CompactString, ToCompactString};
use runway_schema::{Expose, Kind, Workload};

use super::context::{Cx, NewItem};
use super::resources::Resources;
use super::{CACHE_PORT, POSTGRES_PORT, cat};
use crate::plan::{ItemKind, ItemSpec, Peer, SecurityRule};

/// HTTPS: the ALB's listener, and what tasks and proxies reach AWS APIs and registries on.
pub(crate) const HTTPS_PORT: u16 = 443;
/// HTTP: the ALB's redirect to HTTPS.
pub(crate) const HTTP_PORT: u16 = 80;

/// The logical id of the ALB's group.
const ALB_GROUP: &str = "env_alb-sg";
/// The logical id of the environment's workloads group.
const WORKLOADS_GROUP: &str = "env_workloads-sg";
/// The logical id of the VPC endpoints' group.
const ENDPOINTS_GROUP: &str = "env_endpoints-sg";

fn workload_group(w: &str) -> CompactString {
    cat(&[w, "_sg"])
}

fn proxy_group(r: &str) -> CompactString {
    cat(&[r, "_proxy-sg"])
}

fn bootstrap_group(r: &str) -> CompactString {
    cat(&[r, "_bootstrap-sg"])
}

fn db_group(r: &str) -> CompactString {
    cat(&[r, "_db-sg"])
}

fn cache_group(r: &str) -> CompactString {
    cat(&[r, "_cache-sg"])
}

fn rule(peer: Peer, port: u16) -> SecurityRule {
    SecurityRule { peer, port }
}

fn group_peer(id: CompactString) -> Peer {
    Peer::Group { item: id }
}

/// Declares a group; returns its id.
fn group(
    cx: &mut Cx,
    (id, name, owner): (CompactString, CompactString, Option<&str>),
    guards: CompactString,
    ingress: Vec<SecurityRule>,
    egress: Vec<SecurityRule>,
) -> CompactString {
    let name = cx.named(ItemKind::SecurityGroup, name);
    cx.push(NewItem::new(
        id,
        name,
        owner,
        ItemSpec::SecurityGroup { guards, ingress: ingress.into(), egress: egress.into() },
    ))
}

/// The id of the environment's members group of a port.
fn members_group(port: u16) -> CompactString {
    cat(&["env_members-", &port.to_compact_string(), "-sg"])
}

/// The environment's members groups, one per port the members reach something on.
pub(in crate::lower) fn members(cx: &mut Cx, env_base: &str) {
    let ports: Vec<u16> = cx.network.member_ports.iter().copied().collect();
    for port in ports {
        let port_text = port.to_compact_string();
        let name = cat(&[env_base, "-members-", &port_text, "-sg"]);
        let guards = cat(&["members on ", &port_text]);
        let ingress = vec![rule(Peer::Members, port)];
        group(cx, (members_group(port), name, None), guards, ingress, Vec::new());
    }
}

/// The ALB's group: the internet on 443 and 80 in, each public workload on its port out.
pub(in crate::lower) fn alb(cx: &mut Cx, env_base: &str) -> CompactString {
    let ingress = vec![rule(Peer::Internet, HTTPS_PORT), rule(Peer::Internet, HTTP_PORT)];
    let egress =
        cx.network.public.iter().map(|(w, port)| rule(group_peer(workload_group(w)), *port)).collect();
    let name = cat(&[env_base, "-alb-sg"]);
    let id = group(cx, (ALB_GROUP.into(), name, None), "ALB".into(), ingress, egress);
    cx.network.alb = Some(id.clone());
    id
}

/// The environment's workloads group, when a workload is internal: on every service, it lets
/// the tasks reach the internal workloads.
pub(in crate::lower) fn workloads(cx: &mut Cx, env_base: &str) {
    if cx.network.internal.is_empty() {
        return;
    }
    let egress =
        cx.network.internal.iter().map(|(w, port)| rule(group_peer(workload_group(w)), *port)).collect();
    let name = cat(&[env_base, "-workloads-sg"]);
    let id = group(cx, (WORKLOADS_GROUP.into(), name, None), "workloads".into(), Vec::new(), egress);
    cx.network.workloads = Some(id);
}

/// The VPC endpoints' group, admitting every address of the VPC on 443; returns its id.
pub(in crate::lower) fn endpoints(cx: &mut Cx, env_base: &str) -> CompactString {
    let ingress = vec![rule(Peer::Vpc, HTTPS_PORT)];
    let id = (ENDPOINTS_GROUP.into(), cat(&[env_base, "-endpoints-sg"]), None);
    group(cx, id, "AWS endpoints".into(), ingress, Vec::new())
}

/// A workload's groups: its own, the environment's workloads group when there is one, and the
/// members group of its port when it is internal and the product has members.
pub(in crate::lower) fn workload(
    cx: &mut Cx,
    resources: &Resources,
    (name, base, spec): (&str, &str, &Workload),
) -> Vec<CompactString> {
    let from = match spec.expose {
        Expose::Public => cx.network.alb.clone(),
        Expose::Internal => cx.network.workloads.clone(),
    };
    // A worker listens on no port: no ingress at all. Both lists are made with room for what
    // they hold (the plan holds them; a collect or a push past one made room for four).
    let ingress = match (from, spec.port) {
        (Some(g), Some(port)) => vec![rule(group_peer(g), port)],
        _ => Vec::new(),
    };
    let mut egress = Vec::with_capacity(1 + spec.uses.len());
    egress.push(rule(Peer::Internet, HTTPS_PORT));
    for r in spec.uses.iter().filter_map(|u| resources.get(u)) {
        match r.spec.kind() {
            Kind::Postgres => egress.push(rule(group_peer(proxy_group(&r.name)), POSTGRES_PORT)),
            Kind::Cache => egress.push(rule(group_peer(cache_group(&r.name)), CACHE_PORT)),
            Kind::Queue | Kind::Topic | Kind::Bucket => {}
        }
    }
    let id = (workload_group(name), cat(&[base, "-sg"]), Some(name));
    let mut groups = vec![group(cx, id, "tasks".into(), ingress, egress)];
    groups.extend(cx.network.workloads.clone());
    if let (Expose::Internal, true, Some(port)) = (spec.expose, cx.network.members, spec.port) {
        groups.push(members_group(port));
    }
    groups
}

/// A postgres resource's database groups (declared by [`declare_postgres`]).
pub(in crate::lower) fn database_groups(r: &str) -> Vec<CompactString> {
    vec![db_group(r)]
}

/// A postgres resource's proxy groups (its own declared by [`declare_postgres`]): its own,
/// and the members group of 5432 when a member uses it.
pub(in crate::lower) fn proxy_groups(cx: &Cx, index: usize, r: &str) -> Vec<CompactString> {
    let mut groups = vec![proxy_group(r)];
    if cx.network.member_uses[index] {
        groups.push(members_group(POSTGRES_PORT));
    }
    groups
}

/// A cache's groups (its own declared by [`declare_cache`]): its own, and the members group
/// of 6379 when a member uses it.
pub(in crate::lower) fn cache_groups(cx: &Cx, index: usize, r: &str) -> Vec<CompactString> {
    let mut groups = vec![cache_group(r)];
    if cx.network.member_uses[index] {
        groups.push(members_group(CACHE_PORT));
    }
    groups
}

/// Declares a postgres resource's groups, after its items (its database stays its main item):
/// the database's (its proxy on 5432) and the proxy's (the workloads that use it in, its
/// database and Secrets Manager out).
pub(in crate::lower) fn declare_postgres(cx: &mut Cx, (index, r, base): (usize, &str, &str)) {
    let ingress = vec![rule(group_peer(proxy_group(r)), POSTGRES_PORT)];
    let id = (db_group(r), cat(&[base, "-db-sg"]), Some(r));
    group(cx, id, "database".into(), ingress, Vec::new());
    let users = &cx.network.users[index];
    let mut ingress: Vec<SecurityRule> = Vec::with_capacity(users.len() + 1);
    ingress.extend(users.iter().map(|w| rule(group_peer(workload_group(w)), POSTGRES_PORT)));
    ingress.push(rule(group_peer(bootstrap_group(r)), POSTGRES_PORT));
    let egress = vec![rule(group_peer(db_group(r)), POSTGRES_PORT), rule(Peer::Internet, HTTPS_PORT)];
    let id = (proxy_group(r), cat(&[base, "-proxy-sg"]), Some(r));
    group(cx, id, "proxy".into(), ingress, egress);
}

/// Declares the group of a postgres resource's bootstrap task (`base` is
/// `<product>-<env>-<resource>-bootstrap`): nothing in; its proxy and 443 out. Returns its id.
pub(in crate::lower) fn declare_bootstrap(cx: &mut Cx, r: &str, base: &str) -> CompactString {
    let egress = vec![rule(group_peer(proxy_group(r)), POSTGRES_PORT), rule(Peer::Internet, HTTPS_PORT)];
    let id = (bootstrap_group(r), cat(&[base, "-sg"]), Some(r));
    group(cx, id, "bootstrap task".into(), Vec::new(), egress)
}

/// Declares a cache's group, after its replication group: the workloads that use it in.
pub(in crate::lower) fn declare_cache(cx: &mut Cx, (index, r, base): (usize, &str, &str)) {
    let ingress =
        cx.network.users[index].iter().map(|w| rule(group_peer(workload_group(w)), CACHE_PORT)).collect();
    let id = (cache_group(r), cat(&[base, "-sg"]), Some(r));
    group(cx, id, "cache".into(), ingress, Vec::new());
}
