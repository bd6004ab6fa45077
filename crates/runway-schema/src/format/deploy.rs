//! The JSON Schema of a workload's release strategy (`deploy.<env>`, docs/runway-reference.md,
//! "Release strategies").

use schemars::JsonSchema;

use super::{DURATION, Keys};
use crate::model::Strategy;
use crate::validate::keys;

/// `deploy.<env>`: ECS's native deployment strategy and its bounds.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::DEPLOY))]
pub(super) struct DeployFile {
    /// `rolling` (default), `canary`, `linear` or `blue-green`.
    strategy: Strategy,
    /// Canary: its share of the traffic, 0.1..100 (default 5); linear: each step's share,
    /// 3..100 (default 10). A multiple of 0.1, a number or `"10%"`.
    percent: Option<DeployPercentFile>,
    /// Canary: how long it bakes before the rest shifts (default 10m); linear: how long each
    /// step bakes (default 6m). Whole minutes up to 24h.
    #[schemars(regex(pattern = DURATION))]
    step: Option<String>,
    /// How long both fleets run once all traffic has shifted (canary, linear, blue-green;
    /// default 10m). Whole minutes up to 24h.
    #[schemars(regex(pattern = DURATION))]
    bake: Option<String>,
}

/// A share of the traffic: a number, or a string ending in `%`.
#[derive(JsonSchema)]
#[serde(untagged)]
enum DeployPercentFile {
    /// `10`, `2.5`.
    Number(#[schemars(range(min = 0.1, max = 100))] f64),
    /// `"10%"`.
    Text(#[schemars(regex(pattern = r"^[0-9]+(\.[0-9])?%$"))] String),
}
