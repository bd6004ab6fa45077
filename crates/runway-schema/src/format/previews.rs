//! The JSON Schema of `previews` (a pull request's preview; docs/previews.md).

use indexmap::IndexMap;
use schemars::JsonSchema;

use super::{Keys, MoneyFile, NAME};
use crate::validate::keys;

/// `previews`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::PREVIEWS))]
pub(super) struct PreviewsFile {
    /// The environment previews share (network, ALB, cluster, key, database instance) and
    /// whose sizes they inherit; never `production`.
    #[schemars(regex(pattern = NAME))]
    from: String,
    /// How long a preview lives from its creation (default `3d`; from 1h to 30d).
    #[schemars(regex(pattern = r"^[0-9]+(m|h|d)$"))]
    expire_after: Option<String>,
    /// Live previews at once (default 5).
    #[schemars(range(min = 1, max = 100))]
    max: Option<u32>,
    /// One cap for every live preview together.
    limits: PreviewLimitsFile,
    /// Workloads previews leave out (`off`) or run (`on`, the default).
    workloads: Option<IndexMap<String, PreviewWorkloadFile>>,
    /// The Infisical environment previews' values live in (default `preview`); none of the
    /// declared environments'.
    infisical_environment: Option<String>,
}

/// `previews.limits`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::PREVIEW_LIMITS))]
struct PreviewLimitsFile {
    /// Monthly cap in US dollars for all live previews together.
    monthly: MoneyFile,
}

/// `previews.workloads.<name>`.
#[derive(JsonSchema)]
#[serde(rename_all = "lowercase")]
enum PreviewWorkloadFile {
    /// Previews run it (the default).
    On,
    /// Previews leave it out.
    Off,
}
