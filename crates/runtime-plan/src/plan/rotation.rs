//! What `runway rotate` and `runway ssm publish` need of a plan, decided here so that the
//! adapters only carry it out: the steps of one generated credential's rotation, and which ECS
//! services read given SSM parameters (a task reads its `secrets` only when it starts, so a
//! service whose parameter changed is restarted with a new deployment).

use std::sync::Arc;

use compact_str::CompactString;
use serde::Serialize;

use super::{
    ConsumerKind, CredentialKind, GeneratedSecret, InfisicalFolder, InfisicalPlace, ItemSpec, Plan,
    TaskPurpose,
};
use crate::plan::ConnectionSource;

/// The Infisical folder (in the environment's Infisical environment) where `runway rotate`
/// keeps a new value until the rotation is complete, under the credential's own name: out of
/// the resources' folders, so that no sync of a resource folder copies it anywhere.
pub const PENDING_FOLDER: &str = "/runway/pending";

/// The database or cache whose credential a rotation changes, with AWS's names for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase", tag = "kind")]
pub enum RotationTarget {
    /// An RDS PostgreSQL instance behind RDS Proxy: `ModifyDBInstance` `MasterUserPassword`.
    RdsInstance {
        /// The DB instance identifier.
        identifier: CompactString,
        /// The proxy's Secrets Manager secret (`{"username", "password"}`).
        proxy_secret: CompactString,
        /// The admin user written with the password into the proxy's secret.
        username: CompactString,
    },
    /// An Aurora PostgreSQL cluster behind RDS Proxy: `ModifyDBCluster` `MasterUserPassword`.
    AuroraCluster {
        /// The DB cluster identifier.
        identifier: CompactString,
        /// The proxy's Secrets Manager secret (`{"username", "password"}`).
        proxy_secret: CompactString,
        /// The admin user written with the password into the proxy's secret.
        username: CompactString,
    },
    /// An ElastiCache (Valkey) replication group: `ModifyReplicationGroup` `AuthToken`, first
    /// with the `ROTATE` strategy (old and new tokens both valid), then, once the consumers
    /// have restarted, with `SET` (only the new one).
    CacheReplicationGroup {
        /// The replication group id.
        replication_group_id: CompactString,
    },
    /// A consumer's own login on a postgres resource: the database takes its password from the
    /// resource's bootstrap task, which reads it from the login's SSM parameter; the proxy
    /// authenticates it with its own secret.
    Login {
        /// The consumer.
        consumer: CompactString,
        /// The one-off task that sets the password in the database (`bootstrap-<resource>`).
        bootstrap: CompactString,
        /// The login's Secrets Manager secret (`{"username", "password"}`).
        proxy_secret: CompactString,
        /// Its role, written with the password into its secret.
        username: CompactString,
    },
}

/// An SSM parameter a rotation writes again, and where its value is read in Infisical (with
/// references expanded): the credential's own parameter, and every parameter of a connection
/// variable composed from it (`MAIN_DB_URL`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RotatedParameter {
    /// The parameter name.
    pub name: CompactString,
    /// The variable (`MAIN_DB_URL`).
    pub variable: CompactString,
    /// Where its value is read.
    pub infisical: InfisicalPlace,
}

/// An ECS service to restart (a new deployment of the same task definition) because its task
/// definition reads a changed parameter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceRestart {
    /// The workload.
    pub workload: CompactString,
    /// The cluster's name.
    pub cluster: CompactString,
    /// The service's name.
    pub service: CompactString,
    /// The task definition family.
    pub family: CompactString,
    /// The parameters it reads among those that changed, in the task definition's order.
    pub parameters: Vec<CompactString>,
}

/// The steps of one credential's rotation (`runway rotate --env ENV RESOURCE`), in order:
/// keep a new value at [`Rotation::pending`], set it on [`Rotation::target`] (and wait), the
/// proxy's secret (postgres), the credential's Infisical place, [`Rotation::parameters`],
/// restart [`Rotation::restarts`], complete the target (a cache's `SET`), clear the pending
/// value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rotation {
    /// The resource.
    pub resource: CompactString,
    /// The credential rotated.
    pub credential: GeneratedSecret,
    /// Where the new value waits until the rotation is complete ([`PENDING_FOLDER`]).
    pub pending: InfisicalPlace,
    /// What holds the credential in AWS.
    pub target: RotationTarget,
    /// The SSM parameters written again, the credential's first.
    pub parameters: Vec<RotatedParameter>,
    /// The services reading any of them.
    pub restarts: Vec<ServiceRestart>,
    /// The members that use the resource: they read the credential from Infisical (or its
    /// sync) and run outside the plan, so runway cannot restart them; people do. A cache's
    /// `SET` waits for them (the old token would be refused).
    pub members: Vec<CompactString>,
}

/// Why a plan has no rotation for a resource.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RotationError {
    /// The resource has no generated credential in this environment.
    #[error(
        "`{resource}` has no generated credential in this environment (these do: {})",
        if known.is_empty() { "none".to_owned() } else { known.join(", ") }
    )]
    NoCredential {
        /// The resource asked for.
        resource: CompactString,
        /// The resources that have one.
        known: Vec<CompactString>,
    },
    /// The plan declares no database or cache item for the resource (a plan of a member, or an
    /// inconsistent plan).
    #[error("the plan declares no database or cache for `{resource}`")]
    NoTarget {
        /// The resource asked for.
        resource: CompactString,
    },
    /// The consumer has no login of its own on the resource (not a postgres resource, or the
    /// consumer does not use it).
    #[error(
        "`{consumer}` has no login of its own on `{resource}` (these do: {})",
        if known.is_empty() { "none".to_owned() } else { known.join(", ") }
    )]
    NoLogin {
        /// The resource asked for.
        resource: CompactString,
        /// The consumer asked for.
        consumer: CompactString,
        /// The consumers that have one.
        known: Vec<CompactString>,
    },
}

impl Plan {
    /// The rotation of `resource`'s generated credential (a postgres resource's: its admin's).
    pub fn rotation(&self, resource: &str) -> Result<Rotation, RotationError> {
        let rotatable = || self.secrets.generated.iter().filter(|g| g.consumer.is_none());
        let Some(credential) = rotatable().find(|g| g.resource == resource) else {
            return Err(RotationError::NoCredential {
                resource: resource.into(),
                known: rotatable().map(|g| g.resource.clone()).collect(),
            });
        };
        self.rotation_of(credential, PENDING_FOLDER.into())
    }

    /// The rotation of `consumer`'s own login password on postgres resource `resource`; its
    /// pending value waits in `/runway/pending/<consumer>`.
    pub fn login_rotation(&self, resource: &str, consumer: &str) -> Result<Rotation, RotationError> {
        let logins =
            || self.secrets.generated.iter().filter(move |g| g.resource == resource && g.consumer.is_some());
        let Some(credential) = logins().find(|g| g.consumer.as_deref() == Some(consumer)) else {
            return Err(RotationError::NoLogin {
                resource: resource.into(),
                consumer: consumer.into(),
                known: logins().filter_map(|g| g.consumer.clone()).collect(),
            });
        };
        let pending = compact_str::format_compact!("{PENDING_FOLDER}/{consumer}");
        self.rotation_of(credential, pending)
    }

    /// The rotation of one generated credential, its new value kept in `pending_folder`.
    fn rotation_of(
        &self,
        credential: &GeneratedSecret,
        pending_folder: CompactString,
    ) -> Result<Rotation, RotationError> {
        let resource = credential.resource.as_str();
        let target = self
            .rotation_target(credential)
            .ok_or_else(|| RotationError::NoTarget { resource: resource.into() })?;
        let parameters = self.rotated_parameters(credential);
        let names: Vec<&str> = parameters.iter().map(|p| p.name.as_str()).collect();
        let restarts = self.services_reading(&names);
        let mut members: Vec<CompactString> = Vec::new();
        for b in &self.bindings {
            let member = match b.consumer_kind {
                ConsumerKind::Workload => false,
                ConsumerKind::EncoreMember | ConsumerKind::OtherMember => true,
            };
            // A postgres consumer logs in with its own role: the admin's password is the
            // bootstrap's alone, a login's its consumer's.
            let reads = match credential.kind {
                CredentialKind::PostgresAdminPassword => false,
                CredentialKind::PostgresLoginPassword => credential.consumer.as_ref() == Some(&b.consumer),
                CredentialKind::CacheAuthToken => true,
            };
            if member && reads && b.resource == credential.resource && !members.contains(&b.consumer) {
                members.push(b.consumer.clone());
            }
        }
        let pending = InfisicalPlace {
            at: InfisicalFolder::shared(Arc::clone(&credential.infisical.environment), pending_folder),
            name: credential.infisical.name.clone(),
        };
        Ok(Rotation {
            resource: credential.resource.clone(),
            credential: credential.clone(),
            pending,
            target,
            parameters,
            restarts,
            members,
        })
    }

    /// The item holding the credential: the postgres instance or cluster (with its proxy's
    /// secret), or the cache's replication group.
    fn rotation_target(&self, credential: &GeneratedSecret) -> Option<RotationTarget> {
        let (proxy_secret, username) =
            (credential.secrets_manager.clone(), credential.secrets_manager_username.clone());
        let ours = |resource: &str| resource == credential.resource;
        match credential.kind {
            CredentialKind::PostgresAdminPassword => {
                let (proxy_secret, username) = (proxy_secret?, username?);
                // The instance (RDS) or the cluster (Aurora) of the resource.
                let (identifier, rds) = self.items.iter().find_map(|item| {
                    if let ItemSpec::RdsInstance(spec) = &item.spec
                        && ours(&spec.resource)
                    {
                        return Some((item.physical_name.clone(), true));
                    }
                    let ItemSpec::AuroraCluster(spec) = &item.spec else { return None };
                    ours(&spec.resource).then(|| (item.physical_name.clone(), false))
                })?;
                Some(match rds {
                    true => RotationTarget::RdsInstance { identifier, proxy_secret, username },
                    false => RotationTarget::AuroraCluster { identifier, proxy_secret, username },
                })
            }
            // Set in the database by the resource's bootstrap task.
            CredentialKind::PostgresLoginPassword => {
                let purpose = TaskPurpose::DatabaseBootstrap { resource: credential.resource.clone() };
                let bootstrap = self.tasks.iter().find(|t| t.purpose == purpose)?;
                Some(RotationTarget::Login {
                    consumer: credential.consumer.clone()?,
                    bootstrap: bootstrap.name.clone(),
                    proxy_secret: proxy_secret?,
                    username: username?,
                })
            }
            CredentialKind::CacheAuthToken => self.items.iter().find_map(|item| {
                let ItemSpec::CacheReplicationGroup(spec) = &item.spec else { return None };
                ours(&spec.resource).then(|| RotationTarget::CacheReplicationGroup {
                    replication_group_id: item.physical_name.clone(),
                })
            }),
        }
    }

    /// The credential's SSM parameter and those of the connection variables composed from it,
    /// each that some item references (the plan declares no other).
    fn rotated_parameters(&self, credential: &GeneratedSecret) -> Vec<RotatedParameter> {
        let reference = format!("${{{}}}", credential.variable);
        let mut places = vec![credential.infisical.clone()];
        for variable in &self.secrets.connection {
            if let ConnectionSource::Template { template } = &variable.source
                && variable.resource == credential.resource
                && variable.consumer == credential.consumer
                && template.contains(&reference)
            {
                places.push(variable.infisical.clone());
            }
        }
        places
            .into_iter()
            .filter_map(|place| {
                let parameter = self.secrets.ssm_parameters.iter().find(|p| {
                    p.owner == credential.resource
                        && p.consumer == credential.consumer
                        && p.variable == place.name
                })?;
                Some(RotatedParameter {
                    name: CompactString::from(&*parameter.name),
                    variable: parameter.variable.clone(),
                    infisical: place,
                })
            })
            .collect()
    }

    /// The ECS services whose task definitions read any of `parameters` (SSM names), in item
    /// order, each with the parameters it reads among them. None for a parameter only a
    /// non-task item reads (a cache's AUTH token).
    pub fn services_reading(&self, parameters: &[&str]) -> Vec<ServiceRestart> {
        let mut restarts = Vec::new();
        for item in &self.items {
            let ItemSpec::EcsService(service) = &item.spec else { continue };
            let Some(task) = self.item(&service.task_definition) else { continue };
            let ItemSpec::TaskDefinition(task_spec) = &task.spec else { continue };
            let Some(cluster) = self.item(&service.cluster) else { continue };
            let mut read: Vec<CompactString> = Vec::new();
            for secret in &task_spec.secrets {
                if parameters.contains(&&*secret.parameter) && !read.iter().any(|r| *r == *secret.parameter) {
                    read.push(CompactString::from(&*secret.parameter));
                }
            }
            if read.is_empty() {
                continue;
            }
            restarts.push(ServiceRestart {
                workload: service.workload.clone(),
                cluster: cluster.physical_name.clone(),
                service: item.physical_name.clone(),
                family: task.physical_name.clone(),
                parameters: read,
            });
        }
        restarts
    }
}
