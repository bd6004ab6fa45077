//! Breaking for consumers: which consumer loses which variable, and which variables change
//! name, from one plan of an environment to the next.

use std::collections::{BTreeMap, BTreeSet};

use runway_schema::{Kind, Product};

use super::{Breaking, Cause, Rename};
use crate::plan::{Binding, Plan};

/// A plan's bindings and resource kinds, looked up by name (a large plan has thousands of
/// bindings: a scan per lookup would be quadratic).
struct Index<'a> {
    /// (consumer, resource) -> binding.
    bindings: BTreeMap<(&'a str, &'a str), &'a Binding>,
    /// consumer -> its bindings, in plan order.
    by_consumer: BTreeMap<&'a str, Vec<&'a Binding>>,
    /// resource -> kind.
    kinds: BTreeMap<&'a str, Kind>,
}

impl<'a> Index<'a> {
    fn new(plan: &'a Plan) -> Self {
        let mut bindings = BTreeMap::new();
        let mut by_consumer: BTreeMap<&str, Vec<&Binding>> = BTreeMap::new();
        for b in &plan.bindings {
            bindings.insert((b.consumer.as_str(), b.resource.as_str()), b);
            by_consumer.entry(b.consumer.as_str()).or_default().push(b);
        }
        let kinds = plan.resources.iter().map(|r| (r.name.as_str(), r.kind)).collect();
        Self { bindings, by_consumer, kinds }
    }

    fn binds(&self, b: &Binding) -> Option<&'a Binding> {
        self.bindings.get(&(b.consumer.as_str(), b.resource.as_str())).copied()
    }

    /// The consumer's bindings of resources of `kind` that `other` does not have.
    fn only_here(&self, consumer: &str, kind: Option<Kind>, other: &Index<'_>) -> Vec<&'a Binding> {
        let Some(list) = self.by_consumer.get(consumer) else { return Vec::new() };
        list.iter()
            .copied()
            .filter(|b| self.kinds.get(b.resource.as_str()).copied() == kind && other.binds(b).is_none())
            .collect()
    }
}

/// The consumers a product declares: its workloads and its members. A consumer absent from
/// the working version is gone, not broken, and is not reported.
fn consumers(product: &Product) -> BTreeSet<&str> {
    let workloads = product.root.workloads.keys().map(String::as_str);
    workloads.chain(product.members.iter().map(|m| m.name.as_str())).collect()
}

/// Every consumer of `new_product` that loses variables it received in `old`, in `old`'s
/// binding order: a binding gone (its resource removed or renamed, a `uses` entry or a
/// `requires` engine dropped) or fewer variables from a binding kept. When a consumer loses
/// one resource of a kind and gains exactly one other of that kind, the variables with the
/// same suffix are reported as renamed.
pub fn breaking(old: &Plan, new: &Plan, new_product: &Product) -> Vec<Breaking> {
    let present = consumers(new_product);
    let (o, n) = (Index::new(old), Index::new(new));
    let mut out = Vec::new();
    for b in &old.bindings {
        if !present.contains(b.consumer.as_str()) {
            continue;
        }
        match n.binds(b) {
            Some(kept) => {
                let lost: Vec<String> = b
                    .variables
                    .iter()
                    .filter(|v| !kept.variables.contains(v))
                    .map(ToString::to_string)
                    .collect();
                if !lost.is_empty() {
                    out.push(line(b, Cause::VariablesDropped, None, lost, Vec::new()));
                }
            }
            None => out.push(lost_binding(b, &o, &n)),
        }
    }
    out
}

fn line(
    b: &Binding,
    cause: Cause,
    replaced_by: Option<String>,
    lost: Vec<String>,
    renamed: Vec<Rename>,
) -> Breaking {
    Breaking {
        consumer: b.consumer.to_string(),
        consumer_kind: b.consumer_kind,
        resource: b.resource.to_string(),
        cause,
        replaced_by,
        lost,
        renamed,
    }
}

/// A binding of the base that the working version no longer has.
fn lost_binding(b: &Binding, o: &Index<'_>, n: &Index<'_>) -> Breaking {
    let kind = o.kinds.get(b.resource.as_str()).copied();
    let lost_of_kind = o.only_here(&b.consumer, kind, n);
    let gained_of_kind = n.only_here(&b.consumer, kind, o);
    // One for one only: with two queues lost and two gained, which replaces which is a guess.
    let replacement = match (lost_of_kind.as_slice(), gained_of_kind.as_slice()) {
        ([_], [g]) => Some(*g),
        _ => None,
    };
    let cause = if n.kinds.contains_key(b.resource.as_str()) {
        Cause::UseDropped
    } else if replacement.is_some_and(|r| !o.kinds.contains_key(r.resource.as_str())) {
        Cause::ResourceRenamed
    } else {
        Cause::ResourceRemoved
    };
    let (lost, renamed) = pair_variables(b, replacement);
    line(b, cause, replacement.map(|r| r.resource.to_string()), lost, renamed)
}

/// `MAIN_DB` for `main-db` (spec section 6).
fn prefix(resource: &str) -> String {
    let mut p = resource.to_ascii_uppercase().replace('-', "_");
    p.push('_');
    p
}

/// The old binding's variables: renamed when the replacement has one with the same suffix,
/// lost otherwise.
fn pair_variables(old: &Binding, replacement: Option<&Binding>) -> (Vec<String>, Vec<Rename>) {
    let (mut lost, mut renamed) = (Vec::new(), Vec::new());
    let old_prefix = prefix(&old.resource);
    for v in old.variables.iter() {
        let to = replacement.and_then(|r| {
            let suffix = v.strip_prefix(old_prefix.as_str())?;
            let want = [prefix(&r.resource).as_str(), suffix].concat();
            r.variables.iter().find(|x| x.as_str() == want)
        });
        match to {
            Some(to) => renamed.push(Rename { from: v.to_string(), to: to.to_string() }),
            None => lost.push(v.to_string()),
        }
    }
    (lost, renamed)
}
