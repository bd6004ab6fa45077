//! The JSON Schema of a workload's scaling beyond `min` and `max` (`on`, `active`) and of its
//! `schedules`.

use indexmap::IndexMap;
use schemars::JsonSchema;

use super::{DURATION, Keys};
use crate::validate::keys;

/// `scale.<env>.on`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::SCALE_ON))]
pub(super) struct ScaleOnFile {
    /// Average CPU, `60%`.
    cpu: Option<PercentFile>,
    /// Average memory, `70%`.
    memory: Option<PercentFile>,
    /// Requests per task a minute through the load balancer (public workloads).
    #[schemars(range(min = 1, max = 1000000))]
    requests: Option<u32>,
    /// Messages visible per running task, by queue it uses: `{ jobs: 100 }`.
    queue: Option<IndexMap<String, u32>>,
}

/// A percentage: `60%` or `60`.
#[derive(JsonSchema)]
#[serde(untagged)]
enum PercentFile {
    /// `60`.
    Number(#[schemars(range(min = 1, max = 100))] u32),
    /// `"60%"`.
    Text(#[schemars(regex(pattern = r"^[0-9]{1,3}%$"))] String),
}

/// `scale.<env>.active`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::ACTIVE))]
pub(super) struct ActiveFile {
    /// `Mon-Fri`, `Sat,Sun` (default every day).
    days: Option<String>,
    /// `07:00-20:00`.
    #[schemars(regex(pattern = r"^[0-9]{2}:[0-9]{2}-[0-9]{2}:[0-9]{2}$"))]
    hours: String,
    /// IANA timezone (default `UTC`).
    timezone: Option<String>,
}

/// `schedules.<name>`.
#[derive(JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(transform = Keys(keys::SCHEDULE))]
pub(super) struct ScheduleFile {
    /// Five fields: minute hour day-of-month month day-of-week (`0 3 * * *`).
    cron: String,
    /// IANA timezone the cron is read in (default `UTC`).
    timezone: Option<String>,
    /// The container's command, word by word.
    #[schemars(length(min = 1), inner(length(min = 1)))]
    command: Vec<String>,
    /// The longest a run may take, 1m..24h.
    #[schemars(regex(pattern = DURATION))]
    timeout: String,
}
