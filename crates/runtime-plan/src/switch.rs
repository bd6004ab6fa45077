//! What `runway restore --switch` and `--finish` move, decided before any call, and the next
//! step of each from what the account holds now. Pure: the adapter observes and acts; the CLI
//! loops observe → [`next_switch_step`] → act until [`SwitchStep::Done`].
//!
//! The switch gives the restored copy the live instance's place rather than pointing the product
//! at a new name: the live instance is renamed `<id>-old` (still protected), the copy
//! `<id>-restored` takes `<id>` (so its address, the program's identifier and the proxy
//! target's name are the live one's), and the resource's RDS Proxy target group is moved onto
//! it. The parameters and Infisical variables that name the endpoint name the **proxy**, whose
//! endpoint does not change: they keep their values, and the decision lists them
//! ([`Switch::endpoint_variables`]). The readers (each ECS service whose task definition reads a
//! parameter of the resource) are restarted, so that no connection to the old instance
//! survives; the copy is then tagged [`SWITCHED_TAG`], which `--finish` requires before it
//! deletes the old instance.
//!
//! Every step is found again from the account after a kill: which of `<id>`, `<id>-restored`,
//! `<id>-old` exist, which carries the restore's tag, the proxy's targets, and the tag written
//! last.

use compact_str::CompactString;
use serde::Serialize;

use crate::plan::{ItemSpec, Plan, ServiceRestart};
use crate::restore::{RestoreError, names_beside, restore_target};

/// The tag a restore puts on its copy (its value: the time restored to): the instance under the
/// live name that carries it is the copy.
pub const RESTORE_TAG: &str = "runway-restore";

/// The tag put on the copy once the switch is complete (proxy target registered, readers
/// restarted): `--finish` deletes the old instance only then.
pub const SWITCHED_TAG: &str = "runway-switched";

/// What a switch moves, from the plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Switch {
    /// The resource.
    pub resource: CompactString,
    /// The live identifier, which the copy takes.
    pub source: CompactString,
    /// The copy's identifier before the switch (`<id>-restored`).
    pub copy: CompactString,
    /// The live instance's identifier after the switch (`<id>-old`), kept until `--finish`.
    pub old: CompactString,
    /// The resource's RDS Proxy.
    pub proxy: CompactString,
    /// Its target group (`default`).
    pub target_group: CompactString,
    /// The SSM parameters (and their Infisical places) that name the endpoint: kept, since they
    /// name the proxy.
    pub endpoint_variables: Vec<EndpointVariable>,
    /// The services to restart: exactly those whose task definition reads a parameter of the
    /// resource.
    pub readers: Vec<ServiceRestart>,
    /// The final snapshot `--finish` leaves of the old instance.
    pub final_snapshot: CompactString,
    /// What Pulumi must be told afterwards: the instance's URN on the default stack and the id
    /// to import (`pulumi state delete` then `pulumi import`), as exact steps.
    pub pulumi_urn: CompactString,
}

/// A parameter that names the resource's endpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EndpointVariable {
    /// The SSM parameter.
    pub parameter: CompactString,
    /// Its Infisical place, `<env>:<folder>/<NAME>`, when it has one.
    pub infisical: Option<CompactString>,
}

/// What switch or finish found of one instance.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeenInstance {
    /// `DBInstanceStatus`.
    pub status: String,
    /// Deletion protection on.
    pub protected: bool,
    /// It carries [`RESTORE_TAG`]: a restore's copy.
    pub restored_copy: bool,
    /// It carries [`SWITCHED_TAG`].
    pub switched: bool,
}

impl SeenInstance {
    fn available(&self) -> bool {
        self.status == "available"
    }
}

/// What the account holds now, for the switch's and the finish's next step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SwitchSeen {
    /// The instance under the live identifier.
    pub source: Option<SeenInstance>,
    /// The instance under the copy's identifier.
    pub copy: Option<SeenInstance>,
    /// The instance under the old identifier.
    pub old: Option<SeenInstance>,
    /// The identifiers the proxy's target group targets.
    pub targets: Vec<String>,
}

/// The next thing a switch does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SwitchStep {
    /// An instance is not `available` (restoring, renaming, modifying): look again.
    Wait(CompactString),
    /// Take the live instance out of the proxy's target group.
    DeregisterLive,
    /// Rename the live instance to the old identifier (its protection kept).
    RenameLiveToOld,
    /// Rename the copy to the live identifier.
    RenameCopyToLive,
    /// Turn on the copy's deletion protection (the restore made it without).
    ProtectCopy,
    /// Register the copy, under the live identifier, as the proxy's target.
    RegisterCopy,
    /// Restart [`Switch::readers`], then tag the copy [`SWITCHED_TAG`].
    RestartReaders,
    /// Nothing left: the switch is complete.
    Done,
}

/// The next thing `--finish` does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FinishStep {
    /// The old instance is being deleted: look again.
    Wait,
    /// Turn off the old instance's deletion protection.
    UnprotectOld,
    /// Delete the old instance, leaving [`Switch::final_snapshot`].
    DeleteOld,
    /// The old instance is gone.
    Done,
}

/// Why a switch or a finish does not go on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SwitchRefusal {
    /// No copy to switch to.
    #[error("no copy {copy} to switch to: restore first (`runway restore ... --to TIME`), then --switch")]
    NoCopy {
        /// The copy's identifier.
        copy: CompactString,
    },
    /// An old instance of a switch before is still there.
    #[error("{old} (the instance a switch before moved off) is still there: `--finish` that switch first")]
    OldExists {
        /// The old identifier.
        old: CompactString,
    },
    /// `--finish` before the switch is complete.
    #[error("the switch onto the copy is not complete ({why}): run --switch first; {old} is kept")]
    NotSwitched {
        /// What is missing.
        why: &'static str,
        /// The old identifier.
        old: CompactString,
    },
    /// A state no step of this command leaves.
    #[error("{live} is missing while {copy} or {old} is not: rename them back by hand (docs/operations.md)")]
    Inconsistent {
        /// The live identifier.
        live: CompactString,
        /// The copy.
        copy: CompactString,
        /// The old.
        old: CompactString,
    },
}

/// What a switch of `resource` moves.
pub fn switch_of(plan: &Plan, resource: &str) -> Result<Switch, RestoreError> {
    let target = restore_target(plan, resource, false)?;
    switch_of_named(plan, &target.resource, &target.source)
}

/// What a switch of `resource`'s database `source` (an instance or a cluster) moves; the URN is
/// the RDS instance's (`restore_cluster.rs` puts the cluster's).
pub(crate) fn switch_of_named(plan: &Plan, resource: &str, source: &str) -> Result<Switch, RestoreError> {
    let [copy, _, old] = names_beside(source);
    let r = plan.resources.iter().find(|r| r.name == resource);
    let items = r.map(|r| r.items.as_slice()).unwrap_or_default();
    let of_resource = || items.iter().filter_map(|id| plan.item(id));
    let proxy = of_resource().find_map(|i| {
        let ItemSpec::RdsProxy(_) = &i.spec else { return None };
        Some(i.physical_name.clone())
    });
    let db_item = of_resource().find_map(|i| {
        let ItemSpec::RdsInstance(_) = &i.spec else { return None };
        Some(i.id.clone())
    });
    let owned: Vec<&crate::plan::SsmParameter> =
        plan.secrets.ssm_parameters.iter().filter(|p| p.owner == resource).collect();
    let endpoint_variables = owned
        .iter()
        .filter(|p| p.variable.ends_with("_HOST") || p.variable.ends_with("_URL"))
        .map(|p| EndpointVariable {
            parameter: CompactString::from(&*p.name),
            infisical: p
                .infisical
                .as_ref()
                .map(|i| format!("{}:{}/{}", i.environment, i.folder, i.name).into()),
        })
        .collect();
    let names: Vec<&str> = owned.iter().map(|p| &*p.name).collect();
    Ok(Switch {
        resource: resource.into(),
        final_snapshot: format!("{old}-final").into(),
        pulumi_urn: format!(
            "urn:pulumi:{}::{}::aws:rds/instance:Instance::{}",
            plan.environment,
            plan.product,
            db_item.unwrap_or_default()
        )
        .into(),
        source: source.into(),
        copy,
        old,
        proxy: proxy.unwrap_or_default(),
        target_group: "default".into(),
        endpoint_variables,
        readers: plan.services_reading(&names),
    })
}

/// The switch's next step from what the account holds.
pub fn next_switch_step(s: &Switch, seen: &SwitchSeen) -> Result<SwitchStep, SwitchRefusal> {
    let registered = |id: &str| seen.targets.iter().any(|t| t == id);
    let wait = |id: &CompactString| Ok(SwitchStep::Wait(id.clone()));
    match (&seen.source, &seen.copy, &seen.old) {
        // Done: the copy under the live name, tagged once the readers were restarted.
        (Some(live), None, _) if live.restored_copy && live.switched => Ok(SwitchStep::Done),
        (Some(live), None, Some(_)) if live.restored_copy => {
            if !live.available() {
                wait(&s.source)
            } else if !live.protected {
                Ok(SwitchStep::ProtectCopy)
            } else if !registered(&s.source) {
                Ok(SwitchStep::RegisterCopy)
            } else {
                Ok(SwitchStep::RestartReaders)
            }
        }
        (None, Some(copy), Some(old)) => {
            if !old.available() {
                wait(&s.old)
            } else if !copy.available() {
                wait(&s.copy)
            } else {
                Ok(SwitchStep::RenameCopyToLive)
            }
        }
        (Some(_), Some(_), Some(_)) => Err(SwitchRefusal::OldExists { old: s.old.clone() }),
        (Some(live), Some(copy), None) => {
            if !copy.available() {
                wait(&s.copy)
            } else if registered(&s.source) {
                Ok(SwitchStep::DeregisterLive)
            } else if !live.available() {
                wait(&s.source)
            } else {
                Ok(SwitchStep::RenameLiveToOld)
            }
        }
        (Some(_), None, _) => Err(SwitchRefusal::NoCopy { copy: s.copy.clone() }),
        (None, _, _) => Err(SwitchRefusal::Inconsistent {
            live: s.source.clone(),
            copy: s.copy.clone(),
            old: s.old.clone(),
        }),
    }
}

/// `--finish`'s next step: only once the copy holds the live name, is the proxy's target and
/// carries [`SWITCHED_TAG`] is the old instance unprotected and deleted.
pub fn next_finish_step(s: &Switch, seen: &SwitchSeen) -> Result<FinishStep, SwitchRefusal> {
    let not = |why| Err(SwitchRefusal::NotSwitched { why, old: s.old.clone() });
    let Some(live) = &seen.source else { return not("no instance under the live name") };
    if !live.restored_copy {
        return not("the instance under the live name is not a restore's copy");
    }
    if !live.switched {
        return not("the readers were not restarted yet");
    }
    if !seen.targets.iter().any(|t| t == s.source.as_str()) {
        return not("the copy is not the proxy's target");
    }
    match &seen.old {
        None => Ok(FinishStep::Done),
        Some(old) if old.status == "deleting" => Ok(FinishStep::Wait),
        Some(old) if old.protected => Ok(FinishStep::UnprotectOld),
        Some(old) if old.available() => Ok(FinishStep::DeleteOld),
        Some(_) => Ok(FinishStep::Wait),
    }
}
