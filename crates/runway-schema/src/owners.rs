//! What `usage.for.<name>` and `alarms.for.<name>` may name: the kinds of owner a usage amount
//! or an alarm's threshold is set for.

use std::fmt;

/// The kind of an owner of usage amounts or alarm thresholds: a workload, or a resource of a
/// kind (postgres by its engine: Aurora stores and bills by use what RDS does not). A resource's
/// is `ResourceSpec::owner_kind`, an implicit one's `Engine::owner_kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OwnerKind {
    /// A workload.
    Workload,
    /// A postgres resource on RDS.
    PostgresRds,
    /// A postgres resource on Aurora.
    PostgresAurora,
    /// A queue (declared or `shared-queue`).
    Queue,
    /// A topic.
    Topic,
    /// A cache.
    Cache,
    /// A bucket.
    Bucket,
}

impl OwnerKind {
    /// As the diagnostics name it (`workload`, `postgres aurora`).
    pub const fn as_str(self) -> &'static str {
        match self {
            OwnerKind::Workload => "workload",
            OwnerKind::PostgresRds => "postgres rds",
            OwnerKind::PostgresAurora => "postgres aurora",
            OwnerKind::Queue => "queue",
            OwnerKind::Topic => "topic",
            OwnerKind::Cache => "cache",
            OwnerKind::Bucket => "bucket",
        }
    }

    /// The kinds joined for a diagnostic's help (`bucket, postgres aurora`).
    pub fn join(kinds: &[OwnerKind]) -> String {
        kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", ")
    }
}

impl fmt::Display for OwnerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
