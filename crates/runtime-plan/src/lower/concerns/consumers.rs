//! Consumers (workloads, then members) and their bindings: who uses which resource, under which
//! variable names, delivered how.

use std::sync::Arc;

use compact_str::CompactString;
use indexmap::IndexMap;
use runway_schema::{Access, Engine, Kind, Product, Runtime};

use super::resources::{Resources, shared_name};
use super::secret_layout::Layout;
use crate::plan::{Binding, ConsumerKind, Delivery};

/// A consumer and the resources it binds, in order.
pub(in crate::lower) struct Consumer {
    name: CompactString,
    kind: ConsumerKind,
    /// (resource, implicit): implicit uses come from a member's `requires`.
    uses: Vec<(CompactString, bool)>,
    /// The mode of each of `uses`, by position (a member's are all `write`).
    access: Vec<Access>,
    /// The position among the resources of each of `uses`, by position: each name looked up
    /// once, here, not again by every pass over the uses (sixth pass).
    at: Vec<usize>,
}

/// The consumers of a product: workloads, then members (their `uses`, then the `shared-<engine>`
/// resources they require and do not already use). Only resources that exist are kept (the
/// loader reports unknown ones).
pub(in crate::lower) fn consumers(product: &Product, resources: &Resources) -> Vec<Consumer> {
    let workloads = product.root.workloads.iter().map(|(name, w)| Consumer {
        name: name.as_str().into(),
        kind: ConsumerKind::Workload,
        uses: w.uses.iter().map(|u| (u.as_str().into(), false)).collect(),
        access: w.uses.iter().map(|u| w.access_to(u)).collect(),
        at: Vec::new(),
    });
    let members = product.members.iter().map(|m| {
        let mut uses: Vec<(CompactString, bool)> =
            m.uses.iter().map(|u| (u.as_str().into(), false)).collect();
        for engine in Engine::ALL.into_iter().filter(|e| m.requires.contains(e)) {
            let name = shared_name(engine);
            if !uses.iter().any(|(u, _)| *u == name) {
                uses.push((name, true));
            }
        }
        let kind = match m.runtime {
            Runtime::Encore => ConsumerKind::EncoreMember,
            Runtime::Other => ConsumerKind::OtherMember,
        };
        let access = vec![Access::Write; uses.len()];
        Consumer { name: m.name.as_str().into(), kind, uses, access, at: Vec::new() }
    });
    let mut consumers: Vec<Consumer> = workloads.chain(members).collect();
    for c in &mut consumers {
        c.at = c.uses.iter().filter_map(|(u, _)| resources.position(u)).collect();
        // Most consumers keep all of their uses; the others drop the unknown ones.
        if c.at.len() != c.uses.len() {
            let mut kept = c.uses.iter().map(|(u, _)| resources.position(u).is_some());
            c.access.retain(|_| kept.next().unwrap_or(false));
            c.uses.retain(|(u, _)| resources.position(u).is_some());
        }
    }
    consumers
}

/// Each postgres resource's logins, by resource position: every consumer's own role and the
/// mode it is granted, in consumer order (empty for other kinds).
pub(in crate::lower) fn logins_of(resources: &Resources, consumers: &[Consumer]) -> Vec<Vec<Login>> {
    let mut of: Vec<Vec<Login>> = vec![Vec::new(); resources.len()];
    for (index, c) in consumers.iter().enumerate() {
        for (&at, access) in c.at.iter().zip(&c.access) {
            let r = resources.at(at);
            if r.spec.kind() == Kind::Postgres && of[r.index].last().is_none_or(|l| l.consumer != c.name) {
                of[r.index].push(Login {
                    index,
                    consumer: c.name.clone(),
                    role: login_role(&c.name),
                    access: *access,
                });
            }
        }
    }
    of
}

/// A consumer's own login role on a postgres resource it uses.
#[derive(Clone, Debug)]
pub(in crate::lower) struct Login {
    /// The consumer's position among the consumers (workloads first).
    pub(in crate::lower) index: usize,
    /// The consumer (workload or member).
    pub(in crate::lower) consumer: CompactString,
    /// Its role: `app_<consumer>`, `-` written `_` (see [`login_role`]).
    pub(in crate::lower) role: CompactString,
    /// What it is granted.
    pub(in crate::lower) access: Access,
}

/// The login role of consumer `consumer`: `app_` and its name with `-` written `_`, at most
/// 44 bytes (names are at most 40). The prefix keeps it apart from the roles Postgres and RDS
/// reserve (`pg_*`, `rds*`, `public`), from the admin (`runway`) and from the two group roles
/// (`runway_read`, `runway_write`); names hold no `_`, so two consumers never share a role.
pub(in crate::lower) fn login_role(consumer: &str) -> CompactString {
    let mut role = CompactString::with_capacity(consumer.len() + 4);
    role.push_str("app_");
    // Pieces between dashes, not characters one by one (a reservation check per character
    // was most of its cost, sixth pass).
    let mut pieces = consumer.split('-');
    role.push_str(pieces.next().unwrap_or_default());
    for piece in pieces {
        role.push('_');
        role.push_str(piece);
    }
    role
}

/// Each resource's consumers, in consumer order, each once, by resource position.
pub(in crate::lower) fn consumers_of(
    resources: &Resources,
    consumers: &[Consumer],
) -> Vec<Vec<CompactString>> {
    let mut of: Vec<Vec<CompactString>> = vec![Vec::new(); resources.len()];
    for c in consumers {
        for &i in &c.at {
            if of[i].last() != Some(&c.name) {
                of[i].push(c.name.clone());
            }
        }
    }
    of
}

/// The bindings: consumers in order, each consumer's resources in the order it uses them.
pub(in crate::lower) fn bind(
    consumers: &[Consumer],
    resources: &Resources,
    secrets: &Layout,
) -> Vec<Binding> {
    let mut bindings = Vec::with_capacity(consumers.iter().map(|c| c.uses.len()).sum());
    // Per resource, made on its first binding and shared by the rest: its SSM parameter names
    // (workloads only) and its Infisical folder's display form.
    let mut params_of: Vec<Option<Arc<[Arc<str>]>>> = vec![None; resources.len()];
    let mut display_of: Vec<Option<CompactString>> = vec![None; resources.len()];
    // Members get no SSM parameters: one empty list shared by all of them.
    let no_params: Arc<[Arc<str>]> = Arc::from(Vec::new());
    for c in consumers {
        for (((_, implicit), access), &at) in c.uses.iter().zip(&c.access).zip(&c.at) {
            let r = resources.at(at);
            // A postgres consumer's variables are its own: its login's folder and parameters.
            let login = (r.spec.kind() == Kind::Postgres).then(|| c.name.clone());
            let ssm = match (c.kind, &login) {
                (ConsumerKind::Workload, Some(consumer)) => {
                    r.vars.iter().map(|v| secrets.login_ssm_name(&r.name, consumer, v)).collect()
                }
                (ConsumerKind::Workload, None) => params_of[r.index]
                    .get_or_insert_with(|| r.vars.iter().map(|v| secrets.ssm_name(&r.name, v)).collect())
                    .clone(),
                (ConsumerKind::EncoreMember | ConsumerKind::OtherMember, _) => no_params.clone(),
            };
            let infisical = match &login {
                Some(consumer) => secrets.login_folder_display(r, consumer),
                None => display_of[r.index].get_or_insert_with(|| secrets.folder_display(r)).clone(),
            };
            bindings.push(Binding {
                consumer: c.name.clone(),
                resource: r.name.clone(),
                variables: r.vars.clone(),
                infisical,
                ssm,
                consumer_kind: c.kind,
                delivery: match c.kind {
                    ConsumerKind::Workload => Delivery::Ssm,
                    ConsumerKind::EncoreMember => Delivery::EncoreSync,
                    ConsumerKind::OtherMember => Delivery::Infisical,
                },
                implicit: *implicit,
                access: *access,
                login: login.map(|c| login_role(&c)),
            });
        }
    }
    bindings
}

/// Bindings by consumer name, in binding order, grouped once.
pub(in crate::lower) fn by_consumer(
    bindings: &[Binding],
) -> IndexMap<&str, Vec<&Binding>, foldhash::fast::FixedState> {
    // foldhash with a fixed seed (looked up per workload; SipHash was most of a lookup).
    let mut of: IndexMap<&str, Vec<&Binding>, foldhash::fast::FixedState> = IndexMap::default();
    for b in bindings {
        of.entry(b.consumer.as_str()).or_default().push(b);
    }
    of
}
