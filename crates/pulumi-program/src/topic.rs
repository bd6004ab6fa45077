//! A topic resource: the SNS topic.

use runtime_plan::{ItemSpec, PlannedItem};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Tags, wrong_spec};

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
pub(super) fn topic<'p>(cx: &mut Context<'p>, item: &'p PlannedItem) -> Result<(), RenderError> {
    let ItemSpec::SnsTopic { fifo, kms_master_key, .. } = &item.spec else {
        return Err(wrong_spec(item));
    };
    let props = Topic {
        name: &item.physical_name,
        fifo_topic: fifo.then_some(true),
        kms_master_key_id: kms_master_key,
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:sns/topic:Topic", props)
}
