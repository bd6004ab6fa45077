//! A workload's log group: where its containers' output goes, kept for the plan's retention.

use runtime_plan::PlannedItem;
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Tags};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogGroup<'p> {
    name: &'p str,
    retention_in_days: u32,
    region: &'p str,
    tags: Tags<'p>,
}

/// The log group.
pub(super) fn log_group<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    retention_days: &'p u32,
) -> Result<(), RenderError> {
    let props = LogGroup {
        name: &item.physical_name,
        retention_in_days: *retention_days,
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:cloudwatch/logGroup:LogGroup", props)
}
