//! A queue resource: the SQS queue, and its dead-letter queue when it has one.

use runtime_plan::{CompactString, PlannedItem};
use serde::Serialize;

use super::RenderError;
use super::context::{Context, Tags};
use super::expr::{ToJson, to_json};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Queue<'p> {
    name: &'p str,
    /// Only for a FIFO queue.
    fifo_queue: Option<bool>,
    visibility_timeout_seconds: u64,
    redrive_policy: Option<ToJson<RedrivePolicy>>,
    sqs_managed_sse_enabled: bool,
    region: &'p str,
    tags: Tags<'p>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RedrivePolicy {
    dead_letter_target_arn: String,
    max_receive_count: u32,
}

/// The queue; after `maxReceives` receives a message moves to the dead-letter queue.
pub(super) fn queue<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    fifo: &'p bool,
    visibility_timeout_seconds: &'p u64,
    dead_letter_queue: &'p Option<CompactString>,
    max_receives: &'p Option<u32>,
    managed_sse: &'p bool,
) -> Result<(), RenderError> {
    let redrive_policy = match dead_letter_queue {
        Some(dlq) => {
            let receives =
                max_receives.ok_or_else(|| cx.missing("`maxReceives` with its dead-letter queue"))?;
            Some(to_json(RedrivePolicy {
                dead_letter_target_arn: cx.reference(dlq, "arn")?,
                max_receive_count: receives,
            }))
        }
        None => None,
    };
    let props = Queue {
        name: &item.physical_name,
        fifo_queue: fifo.then_some(true),
        visibility_timeout_seconds: *visibility_timeout_seconds,
        redrive_policy,
        sqs_managed_sse_enabled: *managed_sse,
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:sqs/queue:Queue", props)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DeadLetterQueue<'p> {
    name: &'p str,
    /// Only for a FIFO queue (as its queue).
    fifo_queue: Option<bool>,
    message_retention_seconds: u64,
    sqs_managed_sse_enabled: bool,
    region: &'p str,
    tags: Tags<'p>,
}

/// The dead-letter queue, keeping its messages for the plan's retention.
pub(super) fn dead_letter_queue<'p>(
    cx: &mut Context<'p>,
    item: &'p PlannedItem,
    fifo: &'p bool,
    retention_seconds: &'p u64,
    managed_sse: &'p bool,
) -> Result<(), RenderError> {
    let props = DeadLetterQueue {
        name: &item.physical_name,
        fifo_queue: fifo.then_some(true),
        message_retention_seconds: *retention_seconds,
        sqs_managed_sse_enabled: *managed_sse,
        region: cx.region(),
        tags: cx.tags(item),
    };
    cx.declare(item, "aws:sqs/queue:Queue", props)
}
