//! One module per kind of resource (or family of items the environment's platform holds): what
//! each plans, in the order `plan()` calls them. What several kinds share is in
//! [`concerns`](super::concerns).

// The lowering's shared names (its context, the plan's types, the sibling modules).
use super::*;

pub(super) mod access_logs;
pub(super) mod bucket;
pub(super) mod budget;
pub(super) mod cache;
pub(super) mod endpoints;
pub(super) mod key;
pub(super) mod platform;
pub(super) mod postgres;
pub(super) mod postgres_bootstrap;
pub(super) mod queue;
pub(super) mod topic;
pub(super) mod vpc;
pub(super) mod workload;
