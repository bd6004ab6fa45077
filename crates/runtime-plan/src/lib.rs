//! Lowers a validated runway into a per-environment plan: resources, platform, bindings,
//! secrets layout, cost.

pub mod plan;

pub use plan::*;
