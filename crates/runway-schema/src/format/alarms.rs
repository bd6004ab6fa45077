//! The JSON Schema of an environment's `alarms`: each alarm's threshold in its unit or `off`,
//! and one resource's or workload's own (`for`).

use indexmap::IndexMap;
use schemars::JsonSchema;

use super::Keys;
use crate::validate::keys;

/// `environments.<env>.alarms`: `enabled`, each alarm's threshold in its unit or `off`, and
/// one resource's or workload's own (`for`).
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = Keys(keys::ALARMS))]
pub(super) struct AlarmsFile {
    /// Declare the alarms, the alerts topic and the deployment-failure rule (default: `true`
    /// in `production`, `false` elsewhere).
    enabled: Option<bool>,
    #[serde(flatten)]
    thresholds: AlarmThresholdsFile,
    /// One resource's or workload's thresholds, over the environment's.
    #[serde(rename = "for")]
    for_: Option<IndexMap<String, AlarmsForFile>>,
}

/// `environments.<env>.alarms.for.<name>`: the alarms of one resource or workload.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = Keys(keys::ALARMS_FOR))]
struct AlarmsForFile {
    #[serde(flatten)]
    thresholds: AlarmThresholdsFile,
}

/// Each alarm's threshold in its unit, or `off`.
#[derive(JsonSchema)]
struct AlarmThresholdsFile {
    /// The ALB's own 5xx responses a minute, 3 minutes running (default 10).
    #[serde(rename = "alb-5xx")]
    alb_5xx: Option<AlarmFile<0, 1_000_000>>,
    /// A public workload's 5xx responses a minute, 3 minutes running or longer than its
    /// `health.grace` (default 10); rolls a release back.
    #[serde(rename = "target-5xx")]
    target_5xx: Option<AlarmFile<0, 1_000_000>>,
    /// A public workload's unhealthy targets, 3 minutes running or longer than its
    /// `health.grace` (default 0: any); pages, does not roll back.
    #[serde(rename = "unhealthy-targets")]
    unhealthy_targets: Option<AlarmFile<0, 1_000>>,
    /// A public workload's p95 response time in ms, 5 minutes running (default 2000).
    #[serde(rename = "target-latency")]
    target_latency: Option<AlarmFile<1, 600_000>>,
    /// Fewer healthy targets than this for 5 minutes or longer than `health.grace` (default:
    /// the workload's `scale.min`).
    #[serde(rename = "running-tasks")]
    running_tasks: Option<AlarmFile<1, 1_000>>,
    /// A database's CPU in percent, 15 minutes running (default 80).
    #[serde(rename = "db-cpu")]
    db_cpu: Option<AlarmFile<1, 100>>,
    /// An RDS instance's free storage in percent of its storage (default 10).
    #[serde(rename = "db-free-storage")]
    db_free_storage: Option<AlarmFile<1, 99>>,
    /// A database's freeable memory in MiB, 15 minutes running (default 256).
    #[serde(rename = "db-freeable-memory")]
    db_freeable_memory: Option<AlarmFile<1, 1_048_576>>,
    /// A database's connections in percent of its instance class's `max_connections`, 15
    /// minutes running (default 80).
    #[serde(rename = "db-connections")]
    db_connections: Option<AlarmFile<1, 100>>,
    /// An Aurora cluster's replica lag in ms, 5 minutes running (default 2000).
    #[serde(rename = "db-replica-lag")]
    db_replica_lag: Option<AlarmFile<1, 3_600_000>>,
    /// An RDS Proxy's connection borrow latency in ms, 15 minutes running (default 100).
    #[serde(rename = "proxy-borrow-latency")]
    proxy_borrow_latency: Option<AlarmFile<1, 60_000>>,
    /// A cache node's engine CPU in percent, 15 minutes running (default 80).
    #[serde(rename = "cache-cpu")]
    cache_cpu: Option<AlarmFile<1, 100>>,
    /// A cache node's memory use in percent, 15 minutes running (default 80).
    #[serde(rename = "cache-memory")]
    cache_memory: Option<AlarmFile<1, 100>>,
    /// A cache node's evictions in 5 minutes (default 0: any).
    #[serde(rename = "cache-evictions")]
    cache_evictions: Option<AlarmFile<0, 1_000_000_000>>,
    /// A queue's oldest message in seconds (default 900).
    #[serde(rename = "queue-age")]
    queue_age: Option<AlarmFile<1, 1_209_600>>,
    /// Messages in a dead-letter queue (default 0: any).
    #[serde(rename = "dead-letters")]
    dead_letters: Option<AlarmFile<0, 1_000_000_000>>,
    /// A service's CPU in percent of its tasks', 15 minutes running (default 80).
    #[serde(rename = "service-cpu")]
    service_cpu: Option<AlarmFile<1, 100>>,
    /// A service's memory in percent of its tasks', 15 minutes running (default 80).
    #[serde(rename = "service-memory")]
    service_memory: Option<AlarmFile<1, 100>>,
}

/// One alarm: a threshold in its unit, or `off` (`false`) to declare none.
#[derive(JsonSchema)]
#[serde(untagged)]
enum AlarmFile<const MIN: u64, const MAX: u64> {
    /// The threshold.
    Threshold(#[schemars(range(min = MIN, max = MAX))] u64),
    /// `off`: no such alarm.
    Off(AlarmOff),
    /// `false`: no such alarm.
    Disabled(#[schemars(extend("const" = false))] bool),
}

/// The word `off`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase")]
enum AlarmOff {
    /// No such alarm.
    Off,
}
