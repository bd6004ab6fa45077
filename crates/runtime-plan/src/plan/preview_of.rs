//! What a plan says when it is a pull request's preview (decided by `preview_plan`).

use compact_str::CompactString;
use runway_schema::Money;
use serde::Serialize;

use super::ItemKind;

/// What makes a plan a preview's: which pull request, what it shares and how it is held.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preview {
    /// The pull request's number.
    pub pr: u64,
    /// The preview's name, also its environment in the plan and its Pulumi stack: `pr-<n>`.
    pub name: CompactString,
    /// The environment it shares (`dev`).
    pub from: CompactString,
    /// The domain its public workloads are reached under (`pr-7.dev.acme.example`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<CompactString>,
    /// The items it shares with `from`, in plan order, by that environment's names.
    pub shares: Vec<SharedItem>,
    /// Its own databases in the shared instances: `(resource, database)`.
    pub databases: Vec<(CompactString, CompactString)>,
    /// The Infisical environment its values live in (never a declared environment's).
    pub infisical_environment: CompactString,
    /// Its folder there (each resource's folder is under it).
    pub infisical_folder: CompactString,
    /// Its SSM prefix (`/acme-shop/dev/previews/pr-7`).
    pub ssm_prefix: CompactString,
    /// Seconds from its creation until it expires (`previews.expireAfter`).
    pub expire_after_seconds: u64,
    /// Live previews at once (`previews.max`).
    pub max: u32,
    /// The one cap for every live preview together (`previews.limits.monthly`).
    pub pool_cap: Money,
    /// Workloads previews leave out (`previews.workloads: { name: off }`).
    pub left_out: Vec<CompactString>,
}

/// An item a preview shares: its logical id, kind and the `from` environment's name of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedItem {
    /// Logical id (the same in both plans).
    pub id: CompactString,
    /// Its kind.
    pub kind: ItemKind,
    /// The physical name in the `from` environment.
    pub physical_name: CompactString,
    /// The resource it belongs to, `None` for the environment's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<CompactString>,
}
