//! What cuts across the kinds: the lowering's context ([`context`]), who consumes what ([`consumers`]), the secrets' layout, identity,
//! the network, data protection, reach, usage, the alarms over the planned items ([`alerting`]),
//! the fingerprint of a one-off task, and whether a bootstrap image can be pulled.

// The lowering's shared names (its context, the plan's types, the sibling modules).
use super::*;

pub(super) mod alerting;
pub(super) mod consumers;
pub(super) mod context;
pub(super) mod identity;
pub(super) mod image_route;
pub(super) mod network;
pub(super) mod protection;
pub(super) mod reach;
pub(super) mod resources;
pub(super) mod secret_layout;
pub(super) mod task_fingerprint;
pub(super) mod usage;
