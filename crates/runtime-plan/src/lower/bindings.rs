//! Consumers (workloads, then members) and their bindings: who uses which resource, under which
//! variable names, delivered how.

use std::sync::Arc;

use compact_str::CompactString;
use indexmap::IndexMap;
use runway_schema::{Engine, Product, Runtime};

use super::resources::{Resources, shared_name};
use super::secrets::Layout;
use crate::plan::{Binding, ConsumerKind, Delivery};

/// A consumer and the resources it binds, in order.
pub(super) struct Consumer {
    name: CompactString,
    kind: ConsumerKind,
    /// (resource, implicit): implicit uses come from a member's `requires`.
    uses: Vec<(CompactString, bool)>,
}

/// The consumers of a product: workloads, then members (their `uses`, then the `shared-<engine>`
/// resources they require and do not already use). Only resources that exist are kept (the
/// loader reports unknown ones).
pub(super) fn consumers(product: &Product, resources: &Resources) -> Vec<Consumer> {
    let workloads = product.root.workloads.iter().map(|(name, w)| Consumer {
        name: name.as_str().into(),
        kind: ConsumerKind::Workload,
        uses: w.uses.iter().map(|u| (u.as_str().into(), false)).collect(),
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
        Consumer { name: m.name.as_str().into(), kind, uses }
    });
    let mut consumers: Vec<Consumer> = workloads.chain(members).collect();
    for c in &mut consumers {
        c.uses.retain(|(u, _)| resources.position(u).is_some());
    }
    consumers
}

/// Each resource's consumers, in consumer order, each once, by resource position.
pub(super) fn consumers_of(resources: &Resources, consumers: &[Consumer]) -> Vec<Vec<CompactString>> {
    let mut of: Vec<Vec<CompactString>> = vec![Vec::new(); resources.len()];
    for c in consumers {
        for (u, _) in &c.uses {
            if let Some(i) = resources.position(u)
                && of[i].last() != Some(&c.name)
            {
                of[i].push(c.name.clone());
            }
        }
    }
    of
}

/// The bindings: consumers in order, each consumer's resources in the order it uses them.
pub(super) fn bind(consumers: &[Consumer], resources: &Resources, secrets: &Layout) -> Vec<Binding> {
    let mut bindings = Vec::with_capacity(consumers.iter().map(|c| c.uses.len()).sum());
    // Per resource, made on its first binding and shared by the rest: its SSM parameter names
    // (workloads only) and its Infisical folder's display form.
    let mut params_of: Vec<Option<Arc<[CompactString]>>> = vec![None; resources.len()];
    let mut display_of: Vec<Option<CompactString>> = vec![None; resources.len()];
    // Members get no SSM parameters: one empty list shared by all of them.
    let no_params: Arc<[CompactString]> = Arc::from(Vec::new());
    for c in consumers {
        for (u, implicit) in &c.uses {
            let Some(r) = resources.get(u) else { continue };
            let ssm = match c.kind {
                ConsumerKind::Workload => params_of[r.index]
                    .get_or_insert_with(|| r.vars.iter().map(|v| secrets.ssm_name(&r.name, v)).collect())
                    .clone(),
                ConsumerKind::EncoreMember | ConsumerKind::OtherMember => no_params.clone(),
            };
            bindings.push(Binding {
                consumer: c.name.clone(),
                resource: r.name.clone(),
                variables: r.vars.clone(),
                infisical: display_of[r.index].get_or_insert_with(|| secrets.folder_display(r)).clone(),
                ssm,
                consumer_kind: c.kind,
                delivery: match c.kind {
                    ConsumerKind::Workload => Delivery::Ssm,
                    ConsumerKind::EncoreMember => Delivery::EncoreSync,
                    ConsumerKind::OtherMember => Delivery::Infisical,
                },
                implicit: *implicit,
            });
        }
    }
    bindings
}

/// Bindings by consumer name, in binding order, grouped once.
pub(super) fn by_consumer(bindings: &[Binding]) -> IndexMap<&str, Vec<&Binding>> {
    let mut of: IndexMap<&str, Vec<&Binding>> = IndexMap::new();
    for b in bindings {
        of.entry(b.consumer.as_str()).or_default().push(b);
    }
    of
}
