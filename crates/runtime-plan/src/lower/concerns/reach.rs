//! Who reaches what in one environment, from the graph: which workloads and members use each
//! resource, which workloads are internal or public, the ports members reach, and the
//! environment-wide groups once declared. Built before lowering and kept in the lowering
//! context; the security groups' rules (`network.rs`) read it.

use std::collections::BTreeSet;

use compact_str::CompactString;
use indexmap::IndexMap;
use runway_schema::{Expose, Kind, Workload};

use super::resources::Resources;
use super::{CACHE_PORT, POSTGRES_PORT};
use crate::plan::{Binding, ConsumerKind};

/// Who reaches what, from the graph: read by every group's lowering (the default: nobody
/// reaches anything, what is left once the groups are lowered).
#[derive(Default)]
pub(in crate::lower) struct Network {
    /// The workloads that use each resource, by resource position.
    pub(in crate::lower) users: Vec<Vec<CompactString>>,
    /// Does a member use the resource, by resource position.
    pub(in crate::lower) member_uses: Vec<bool>,
    /// Internal and public workloads with their ports, in file order.
    pub(in crate::lower) internal: Vec<(CompactString, u16)>,
    pub(in crate::lower) public: Vec<(CompactString, u16)>,
    /// Does the product have members.
    pub(in crate::lower) members: bool,
    /// The ports the members reach something on, in order.
    pub(in crate::lower) member_ports: BTreeSet<u16>,
    /// The ALB's group, once declared (public workloads with a domain).
    pub(in crate::lower) alb: Option<CompactString>,
    /// The environment's workloads group, once declared (internal workloads).
    pub(in crate::lower) workloads: Option<CompactString>,
}

impl Network {
    /// The graph's reach: workloads and members from the bindings, exposure from the workloads.
    pub(in crate::lower) fn new(
        bindings: &[Binding],
        resources: &Resources,
        workloads: &IndexMap<String, Workload>,
        members: bool,
    ) -> Self {
        let mut users = vec![Vec::new(); resources.len()];
        let mut member_uses = vec![false; resources.len()];
        for b in bindings {
            let Some(i) = resources.position(&b.resource) else { continue };
            match b.consumer_kind {
                ConsumerKind::Workload => users[i].push(b.consumer.clone()),
                ConsumerKind::EncoreMember | ConsumerKind::OtherMember => member_uses[i] = true,
            }
        }
        let with = |expose: Expose| {
            workloads
                .iter()
                .filter(|(_, w)| w.expose == expose)
                // A worker listens on no port: nothing reaches it.
                .filter_map(|(n, w)| Some((CompactString::from(n.as_str()), w.port?)))
                .collect()
        };
        let internal: Vec<(CompactString, u16)> = with(Expose::Internal);
        let mut member_ports: BTreeSet<u16> = BTreeSet::new();
        if members {
            member_ports.extend(internal.iter().map(|(_, port)| *port));
        }
        for r in resources.iter().filter(|r| member_uses[r.index]) {
            match r.spec.kind() {
                Kind::Postgres => member_ports.insert(POSTGRES_PORT),
                Kind::Cache => member_ports.insert(CACHE_PORT),
                Kind::Queue | Kind::Topic | Kind::Bucket => false,
            };
        }
        Network {
            users,
            member_uses,
            member_ports,
            internal,
            public: with(Expose::Public),
            members,
            alb: None,
            workloads: None,
        }
    }

    /// Does a workload use a resource of this kind?
    pub(in crate::lower) fn workloads_use(&self, resources: &Resources, kind: Kind) -> bool {
        resources.iter().any(|r| r.spec.kind() == kind && !self.users[r.index].is_empty())
    }
}
