//! `previews`: a running copy of the product per pull request, sharing the `from` environment's
//! costly platform and held, all together, under one pooled cap (docs/previews.md).

use indexmap::IndexMap;
use serde::Serialize;

use crate::values::{Duration, Money};

/// The default `expireAfter`: three days from a preview's creation.
pub const DEFAULT_EXPIRE_AFTER: Duration = Duration::from_millis(3 * 24 * 3_600_000);
/// The default `max`: live previews at once.
pub const DEFAULT_MAX_PREVIEWS: u32 = 5;
/// The default `infisicalEnvironment`: the Infisical environment previews' values live in.
pub const DEFAULT_PREVIEW_INFISICAL: &str = "preview";

/// `previews` with its defaults applied.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Previews {
    /// The declared environment a preview shares its network, ALB, cluster, key and database
    /// instance with, and whose sizes it inherits.
    pub from: String,
    /// How long a preview lives from its creation (`expireAfter`, default `3d`).
    pub expire_after: Duration,
    /// Live previews at once (`max`, default 5).
    pub max: u32,
    /// One monthly cap, in US dollars, for every live preview together (`limits.monthly`).
    pub monthly: Money,
    /// Workloads, by name, and whether previews run them (`workloads: { pdf-render: off }`);
    /// a workload not named runs.
    pub workloads: IndexMap<String, bool>,
    /// The Infisical environment (slug) previews' values live in, one folder per preview
    /// (`infisicalEnvironment`, default `preview`); never a declared environment's.
    pub infisical_environment: String,
}

impl Previews {
    /// Does a preview run this workload?
    pub fn runs(&self, workload: &str) -> bool {
        self.workloads.get(workload).copied().unwrap_or(true)
    }
}
