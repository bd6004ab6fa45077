//! What `runway restore` does to an Aurora postgres resource, decided before any call: the
//! cluster restored and the copy it makes (a restored cluster has no instances: the copy gets
//! one writer of the plan's class), what a drill's copy cost, and the next step of a switch or
//! a finish from what the account holds. Pure: the adapter observes and acts; the CLI loops.
//!
//! Names: the copy is `<cluster>-restored` (or `-drill`) with its writer `<instance-1>-restored`
//! (or `-drill`), the live cluster's first instance's name with the suffix. A switch renames the
//! live cluster `<cluster>-old` and each of its instances `<instance>-old`, then the copy
//! `<cluster>` and its writer `<instance-1>`: afterwards the names are the plan's, so the proxy
//! target, the cluster endpoint and the program's identifiers are the live ones. The cluster's
//! steps are the instance switch's ([`crate::switch::next_switch_step`]), with the instance
//! renames put in where they belong.

use compact_str::CompactString;
use cost::Catalogue;
use runway_schema::Money;
use serde::Serialize;

use crate::plan::{ItemSpec, Plan};
use crate::restore::{RestoreError, billed_cost, names_beside};
use crate::switch::{
    FinishStep, Switch, SwitchRefusal, SwitchSeen, SwitchStep, next_finish_step, next_switch_step,
};

/// The cluster a restore works on and the copy it makes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterTarget {
    /// The resource.
    pub resource: CompactString,
    /// The live DB cluster.
    pub source: CompactString,
    /// The copy's cluster identifier: `<source>-drill` or `<source>-restored`.
    pub copy: CompactString,
    /// The copy's one writer instance: the live first instance's name with the same suffix.
    pub writer: CompactString,
    /// The live cluster's instances, as the plan names them (first the writer).
    pub members: Vec<CompactString>,
    /// The writer's class (the plan's).
    pub instance_class: CompactString,
    /// The catalogue's price key of an hour of the writer.
    pub price_key: CompactString,
}

/// The Aurora restore target of `resource` in `plan`; `drill` names the copy for a drill.
pub fn cluster_target(plan: &Plan, resource: &str, drill: bool) -> Result<ClusterTarget, RestoreError> {
    let r =
        plan.resources.iter().find(|r| r.name == resource).ok_or_else(|| RestoreError::UnknownResource {
            resource: resource.to_owned(),
            environment: plan.environment.to_string(),
        })?;
    let items: Vec<_> = r.items.iter().filter_map(|id| plan.item(id)).collect();
    let (cluster, spec) = items
        .iter()
        .find_map(|i| {
            let ItemSpec::AuroraCluster(spec) = &i.spec else { return None };
            Some((i, spec))
        })
        .ok_or_else(|| RestoreError::NotRds { resource: resource.to_owned() })?;
    let mut members: Vec<(u32, CompactString)> = items
        .iter()
        .filter_map(|i| {
            let ItemSpec::AuroraInstance { index, .. } = &i.spec else { return None };
            Some((*index, i.physical_name.clone()))
        })
        .collect();
    members.sort();
    let members: Vec<CompactString> = members.into_iter().map(|(_, n)| n).collect();
    let first = members.first().cloned().unwrap_or_else(|| format!("{}-1", cluster.physical_name).into());
    let [restored, drilled, _] = names_beside(&cluster.physical_name);
    let [w_restored, w_drilled, _] = names_beside(&first);
    let (copy, writer) = if drill { (drilled, w_drilled) } else { (restored, w_restored) };
    Ok(ClusterTarget {
        resource: r.name.clone(),
        source: cluster.physical_name.clone(),
        copy,
        writer,
        members,
        instance_class: spec.size.instance_class.as_str().into(),
        price_key: format!("aurora-instance/{}", spec.size.instance_class).into(),
    })
}

/// What a drill's copy that lived `seconds` cost: its writer's hourly price, billed per second
/// with a ten-minute minimum (Aurora bills instances as RDS does); the copy's storage is not
/// counted (it shares pages with the live cluster until written). `None` when the catalogue has
/// no price for the class.
pub fn cluster_copy_cost(
    plan: &Plan,
    catalogue: &Catalogue,
    target: &ClusterTarget,
    seconds: u64,
) -> Option<Money> {
    billed_cost(plan, catalogue, &target.price_key, seconds)
}

/// What a cluster switch moves: the instance switch's decision over the clusters' names, and
/// the instances renamed with them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterSwitch {
    /// The clusters' names, the proxy, the endpoint variables, the readers; its
    /// `final_snapshot` is the old cluster's final snapshot and its `pulumi_urn` the cluster's.
    pub switch: Switch,
    /// The copy's writer before the switch (`<instance-1>-restored`).
    pub copy_writer: CompactString,
    /// The live cluster's instances as the plan names them, each with its name once renamed
    /// off (`<instance>-old`).
    pub members: Vec<(CompactString, CompactString)>,
    /// The instances' URNs, with their item ids, for Pulumi's steps.
    pub member_urns: Vec<(CompactString, CompactString)>,
}

/// What a cluster switch of `resource` moves.
pub fn cluster_switch_of(plan: &Plan, resource: &str) -> Result<ClusterSwitch, RestoreError> {
    let target = cluster_target(plan, resource, false)?;
    let mut switch = crate::switch::switch_of_named(plan, resource, &target.source)?;
    let urn = |ty: &str, id: &str| -> CompactString {
        format!("urn:pulumi:{}::{}::{ty}::{id}", plan.environment, plan.product).into()
    };
    let items: Vec<_> = plan
        .resources
        .iter()
        .find(|r| r.name == resource)
        .map(|r| r.items.iter().filter_map(|id| plan.item(id)).collect())
        .unwrap_or_default();
    if let Some(cluster) = items.iter().find(|i| matches!(i.spec, ItemSpec::AuroraCluster(_))) {
        switch.pulumi_urn = urn("aws:rds/cluster:Cluster", &cluster.id);
    }
    let member_urns = items
        .iter()
        .filter(|i| matches!(i.spec, ItemSpec::AuroraInstance { .. }))
        .map(|i| (urn("aws:rds/clusterInstance:ClusterInstance", &i.id), i.physical_name.clone()))
        .collect();
    let members = target.members.iter().map(|m| (m.clone(), names_beside(m)[2].clone())).collect();
    Ok(ClusterSwitch { switch, copy_writer: target.writer, members, member_urns })
}

/// What the account holds of a cluster switch's names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterSeen {
    /// The three clusters (under `source`, `copy`, `old`) and the proxy's targets.
    pub clusters: SwitchSeen,
    /// The DB instances that exist among the switch's instance names, each with its status.
    pub instances: Vec<(CompactString, String)>,
}

impl ClusterSeen {
    fn status(&self, name: &str) -> Option<&str> {
        self.instances.iter().find(|(n, _)| n == name).map(|(_, s)| s.as_str())
    }
}

/// The next thing a cluster switch does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClusterStep {
    /// A step of the instance switch, on the clusters.
    Cluster(SwitchStep),
    /// Rename a DB instance (`from`, `to`): the old cluster's instances off the plan's names,
    /// then the copy's writer onto the first.
    RenameInstance(CompactString, CompactString),
}

/// The cluster switch's next step from what the account holds: the old cluster's instances are
/// renamed off the plan's names before the copy takes the live name, and the copy's writer
/// takes the first instance's name before anything else happens under the live name.
pub fn next_cluster_switch_step(s: &ClusterSwitch, seen: &ClusterSeen) -> Result<ClusterStep, SwitchRefusal> {
    let step = next_switch_step(&s.switch, &seen.clusters)?;
    let wait = |name: &CompactString| Ok(ClusterStep::Cluster(SwitchStep::Wait(name.clone())));
    match step {
        SwitchStep::RenameCopyToLive => {
            // The live name is free: every instance under a plan's name is the old cluster's.
            for (name, old) in &s.members {
                match seen.status(name) {
                    Some("available") => return Ok(ClusterStep::RenameInstance(name.clone(), old.clone())),
                    Some(_) => return wait(name),
                    None => {}
                }
            }
            Ok(ClusterStep::Cluster(SwitchStep::RenameCopyToLive))
        }
        SwitchStep::ProtectCopy
        | SwitchStep::RegisterCopy
        | SwitchStep::RestartReaders
        | SwitchStep::Done => match (seen.status(&s.copy_writer), s.members.first()) {
            (Some("available"), Some((first, _))) if seen.status(first).is_none() => {
                Ok(ClusterStep::RenameInstance(s.copy_writer.clone(), first.clone()))
            }
            (Some(_), _) => wait(&s.copy_writer),
            (None, _) => Ok(ClusterStep::Cluster(step)),
        },
        SwitchStep::Wait(_) | SwitchStep::DeregisterLive | SwitchStep::RenameLiveToOld => {
            Ok(ClusterStep::Cluster(step))
        }
    }
}

/// The next thing `--finish` does to a cluster.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClusterFinishStep {
    /// A step of the instance finish, on the old cluster.
    Cluster(FinishStep),
    /// Delete one of the old cluster's instances (no snapshot of its own: the cluster's final
    /// snapshot holds the data); a cluster with instances cannot be deleted.
    DeleteInstance(CompactString),
}

/// `--finish`'s next step for a cluster: refused as the instance finish is; the old cluster's
/// instances are deleted (and waited for) before the cluster.
pub fn next_cluster_finish_step(
    s: &ClusterSwitch,
    seen: &ClusterSeen,
) -> Result<ClusterFinishStep, SwitchRefusal> {
    let step = next_finish_step(&s.switch, &seen.clusters)?;
    if step != FinishStep::DeleteOld {
        return Ok(ClusterFinishStep::Cluster(step));
    }
    for (_, old) in &s.members {
        match seen.status(old) {
            Some("deleting") => return Ok(ClusterFinishStep::Cluster(FinishStep::Wait)),
            Some(_) => return Ok(ClusterFinishStep::DeleteInstance(old.clone())),
            None => {}
        }
    }
    Ok(ClusterFinishStep::Cluster(FinishStep::DeleteOld))
}

/// Every instance name a cluster switch looks at: the plan's, their `-old` names, the copy's
/// writer.
pub fn instance_names(s: &ClusterSwitch) -> Vec<CompactString> {
    let mut names: Vec<CompactString> =
        s.members.iter().flat_map(|(name, old)| [name.clone(), old.clone()]).collect();
    names.push(s.copy_writer.clone());
    names
}
