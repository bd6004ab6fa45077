//! `environments.<env>.alarms`: which CloudWatch alarms an environment declares and their
//! thresholds. The file format knows the alarms' names, the unit each threshold is written in
//! and the values it may take; what each alarm watches and its default threshold are the
//! planner's (`runtime-plan`, `lower/concerns/alerting.rs`; docs/planning.md, "Alarms").

use std::collections::BTreeMap;

use serde::Serialize;

use crate::owners::OwnerKind;

/// Declares [`AlarmName`] from one list: each alarm's name as written, the unit its threshold
/// is written in, and the values a threshold may take.
macro_rules! alarm_names {
    ($($(#[$doc:meta])* $variant:ident = $name:literal, $unit:literal, $min:literal..=$max:literal;)*) => {
        /// An alarm of the planner, by the name `alarms:` overrides it with.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        pub enum AlarmName { $($(#[$doc])* #[serde(rename = $name)] $variant,)* }

        impl AlarmName {
            /// Every alarm, in the order the reference lists them.
            pub const ALL: &'static [AlarmName] = &[$(AlarmName::$variant,)*];
            /// Every alarm's name, as written in files.
            pub const NAMES: &'static [&'static str] = &[$($name,)*];

            /// As written in files.
            pub fn as_str(self) -> &'static str {
                match self { $(AlarmName::$variant => $name,)* }
            }

            /// The unit its threshold is written in (`percent`, `ms`).
            pub fn unit(self) -> &'static str {
                match self { $(AlarmName::$variant => $unit,)* }
            }

            /// The thresholds it accepts, in [`AlarmName::unit`].
            pub fn range(self) -> std::ops::RangeInclusive<u64> {
                match self { $(AlarmName::$variant => $min..=$max,)* }
            }
        }
    };
}

alarm_names! {
    /// The ALB's own 5xx responses (`HTTPCode_ELB_5XX_Count`), a minute.
    AlbErrors = "alb-5xx", "responses a minute", 0..=1_000_000;
    /// A public workload's 5xx responses (`HTTPCode_Target_5XX_Count`), a minute.
    TargetErrors = "target-5xx", "responses a minute", 0..=1_000_000;
    /// A public workload's unhealthy targets (`UnHealthyHostCount`).
    UnhealthyTargets = "unhealthy-targets", "targets", 0..=1_000;
    /// A public workload's p95 response time (`TargetResponseTime`).
    TargetLatency = "target-latency", "ms", 1..=600_000;
    /// A public workload's healthy targets below its running minimum (`HealthyHostCount`).
    RunningTasks = "running-tasks", "tasks", 1..=1_000;
    /// A database's CPU (`CPUUtilization`).
    DbCpu = "db-cpu", "percent", 1..=100;
    /// An RDS instance's free storage, in percent of its storage (`FreeStorageSpace`).
    DbFreeStorage = "db-free-storage", "percent", 1..=99;
    /// A database's freeable memory (`FreeableMemory`).
    DbFreeableMemory = "db-freeable-memory", "MiB", 1..=1_048_576;
    /// A database's connections (`DatabaseConnections`), in percent of its instance class's
    /// `max_connections` (the catalogue's `maxConnections` of its size).
    DbConnections = "db-connections", "percent of max_connections", 1..=100;
    /// An Aurora cluster's replica lag (`AuroraReplicaLag`), with more than one instance.
    DbReplicaLag = "db-replica-lag", "ms", 1..=3_600_000;
    /// An RDS Proxy's connection borrow latency (`DatabaseConnectionsBorrowLatency`).
    ProxyBorrowLatency = "proxy-borrow-latency", "ms", 1..=60_000;
    /// A cache node's engine CPU (`EngineCPUUtilization`).
    CacheCpu = "cache-cpu", "percent", 1..=100;
    /// A cache node's memory use (`DatabaseMemoryUsagePercentage`).
    CacheMemory = "cache-memory", "percent", 1..=100;
    /// A cache node's evictions (`Evictions`), in five minutes.
    CacheEvictions = "cache-evictions", "keys in 5 minutes", 0..=1_000_000_000;
    /// A queue's oldest message (`ApproximateAgeOfOldestMessage`).
    QueueAge = "queue-age", "seconds", 1..=1_209_600;
    /// Messages in a dead-letter queue (`ApproximateNumberOfMessagesVisible`).
    DeadLetters = "dead-letters", "messages", 0..=1_000_000_000;
    /// A service's CPU, in percent of its tasks' (`AWS/ECS` `CPUUtilization`).
    ServiceCpu = "service-cpu", "percent", 1..=100;
    /// A service's memory, in percent of its tasks' (`AWS/ECS` `MemoryUtilization`).
    ServiceMemory = "service-memory", "percent", 1..=100;
}

impl AlarmName {
    /// The alarm written `name`, if it is one.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|a| a.as_str() == name)
    }

    /// The kinds of owner `alarms.for.<name>` may set it for, as `usage.for` names them
    /// (`workload`, `postgres rds`, `cache`, ...); empty for the environment's own (the ALB's).
    pub fn owners(self) -> &'static [OwnerKind] {
        use OwnerKind::*;
        const DB: &[OwnerKind] = &[PostgresRds, PostgresAurora];
        match self {
            AlarmName::AlbErrors => &[],
            AlarmName::TargetErrors
            | AlarmName::UnhealthyTargets
            | AlarmName::TargetLatency
            | AlarmName::RunningTasks
            | AlarmName::ServiceCpu
            | AlarmName::ServiceMemory => &[Workload],
            AlarmName::DbCpu
            | AlarmName::DbFreeableMemory
            | AlarmName::DbConnections
            | AlarmName::ProxyBorrowLatency => DB,
            AlarmName::DbFreeStorage => &[PostgresRds],
            AlarmName::DbReplicaLag => &[PostgresAurora],
            AlarmName::CacheCpu | AlarmName::CacheMemory | AlarmName::CacheEvictions => &[Cache],
            AlarmName::QueueAge | AlarmName::DeadLetters => &[Queue],
        }
    }
}

/// One alarm's setting in `alarms:`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum AlarmSetting {
    /// `off` (or `false`): the alarm is not declared.
    Off,
    /// A threshold in the alarm's unit ([`AlarmName::unit`]).
    Threshold(u64),
}

/// `environments.<env>.alarms` as written, and where they go (`environments.<env>.alerts`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Alarms {
    /// `enabled` as written; `None` for the planner's default (on in `production`, off
    /// elsewhere).
    pub enabled: Option<bool>,
    /// Each alarm's setting as written, by name.
    pub settings: BTreeMap<AlarmName, AlarmSetting>,
    /// `alarms.for.<name>`: one resource's or workload's own settings, over
    /// [`Alarms::settings`].
    pub overrides: BTreeMap<String, BTreeMap<AlarmName, AlarmSetting>>,
    /// `alerts.https`: the names of the Infisical secrets holding the HTTPS endpoints (a
    /// pager's integration URL) the alerts topic also notifies, in the order written.
    pub https: Vec<String>,
}

impl Alarms {
    /// The setting of `alarm` for `owner` (`None`: the environment's): the owner's own, else
    /// the environment's, else `None` (the planner's default).
    pub fn setting(&self, owner: Option<&str>, alarm: AlarmName) -> Option<AlarmSetting> {
        owner
            .and_then(|o| self.overrides.get(o))
            .and_then(|s| s.get(&alarm))
            .or_else(|| self.settings.get(&alarm))
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::AlarmName;

    #[test]
    fn alarm_names_are_unique_and_read_back() {
        for (a, name) in AlarmName::ALL.iter().zip(AlarmName::NAMES) {
            assert_eq!(a.as_str(), *name);
            assert_eq!(AlarmName::from_name(name), Some(*a));
            assert!(!a.range().is_empty());
        }
        let mut names = AlarmName::NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), AlarmName::ALL.len());
        assert_eq!(AlarmName::from_name("enabled"), None);
    }
}
