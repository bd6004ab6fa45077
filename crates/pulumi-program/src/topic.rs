//! A topic resource: the SNS topic.

use runtime_plan::{CompactString, PlannedItem};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Tags};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Topic<'p> {
    name: &'p str,
    /// Only for a FIFO topic.
    fifo_topic: Option<bool>,
    kms_master_key_id: &'p str,
    region: &'p str,
    tags: Tags<'p>,
}

/// The topic, encrypted at rest with the planned KMS key.
pub(super) fn topic<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    fifo: &'p bool,
    kms_master_key: &'p CompactString,
) -> Result<(), RenderError> {
    let props = Topic {
        name: &item.physical_name,
        fifo_topic: fifo.then_some(true),
        kms_master_key_id: kms_master_key,
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:sns/topic:Topic", props)
}
