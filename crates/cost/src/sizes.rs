//! What each size of a kind declares: a postgres size, a cache size, a workload's task.

use serde::Serialize;

/// What a postgres size declares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PostgresSize {
    /// Instance class (`db.t4g.micro`).
    pub instance_class: String,
    /// Instances (1 for RDS; Aurora writer + readers).
    pub instances: u32,
    /// Allocated gp3 storage in GB (RDS) or the storage the estimate assumes (Aurora).
    pub storage_gb: u32,
    /// RDS: the ceiling in GB storage autoscaling may grow the allocated storage to
    /// (`maxStorageGb`, at least 10% above `storage_gb`); `None`: the storage stays as
    /// allocated. Always `None` for Aurora, whose storage grows by itself. The estimate counts
    /// the allocated storage only: what autoscaling adds is billed as it grows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_storage_gb: Option<u32>,
    /// Multi-AZ (RDS): a standby in a second zone doubles instance-hours and storage.
    pub multi_az: bool,
    /// vCPUs of one instance (RDS Proxy is priced per vCPU of its target).
    pub vcpu: u32,
    /// The instance class's default `max_connections` (PostgreSQL's, from RDS's default
    /// parameter group: `LEAST({DBInstanceClassMemory/9531392}, 5000)`); the `db-connections`
    /// alarm's threshold is a share of it. `None` when the catalogue does not say
    /// (docs/catalogue.md, "Sizes").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_connections: Option<u32>,
}

/// What a cache (Valkey) size declares.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheSize {
    /// Node type (`cache.t4g.micro`).
    pub node_type: String,
    /// Nodes in the replication group.
    pub nodes: u32,
}

/// What a workload size declares (one Fargate task, of either architecture).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSize {
    /// CPU units (1024 = 1 vCPU), as ECS takes them.
    pub cpu: u32,
    /// Memory in MiB, as ECS takes it.
    pub memory_mib: u32,
}
