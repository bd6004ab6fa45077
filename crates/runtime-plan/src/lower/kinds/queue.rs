//! `kind: queue`: an SQS queue and, with `deadLetter`, its dead-letter queue.

use std::fmt::Write as _;

use compact_str::{CompactString, ToCompactString};
use runway_schema::{DeadLetter, Duration, UsageKey};

use super::context::{Cx, NewItem};
use super::resources::Res;
use super::{DLQ_RETENTION_SECONDS, Described, cat, group, usage};
use crate::naming::fit_with_suffix;
use crate::plan::{ItemSpec, SqsQueueSpec};
use crate::pricing::Priceable;

/// Lowers a queue resource: the queue, its dead-letter queue, and their URLs and ARN.
pub(in crate::lower) fn lower(
    cx: &mut Cx,
    r: &Res,
    fifo: bool,
    visibility_timeout: Duration,
    dead_letter: Option<DeadLetter>,
) -> Described {
    let requests = cx.catalogue.requests(&r.size);
    if requests.is_none() {
        cx.unknown_resource_size(r, "queue");
    }
    let sfx = if fifo { ".fifo" } else { "" };
    let base = cx.base(&r.name);
    let queue = cat(&[&r.name, "_queue"]);
    let declared = usage::declared(cx, Some(&r.name), UsageKey::Requests);
    let default = requests.map(|n| (usage::millions(n), r.size.as_str()));
    let counted = usage::count(cx, (Some(&r.name), &queue), UsageKey::Requests, declared, default);
    let dlq: Option<CompactString> = dead_letter.map(|_| cat(&[&r.name, "_dlq"]));
    let spec = ItemSpec::SqsQueue(Box::new(SqsQueueSpec {
        resource: r.name.clone(),
        fifo,
        visibility_timeout_seconds: visibility_timeout.as_secs(),
        dead_letter_queue: dlq.clone(),
        max_receives: dead_letter.map(|d| d.max_receives),
        monthly_requests: requests,
        // SSE-SQS: keys SQS owns; no key policy, no KMS charge, no KMS permission for consumers.
        managed_sse: true,
    }));
    cx.add(
        NewItem::new(queue.clone(), fit_with_suffix(&base, sfx, 80), Some(&r.name), spec)
            .size(&r.size)
            .depends_on(dlq.iter().cloned().collect())
            .priced(Priceable::Queue { fifo, size: r.size.as_str().into(), requests: counted }),
    );
    if let Some(id) = &dlq {
        let name = fit_with_suffix(&cat(&[&base, "-dlq"]), sfx, 80);
        let spec = ItemSpec::SqsDeadLetterQueue {
            resource: r.name.clone(),
            fifo,
            retention_seconds: DLQ_RETENTION_SECONDS,
            managed_sse: true,
        };
        cx.add(NewItem::new(id.clone(), name, Some(&r.name), spec));
    }
    cx.output(r, &queue, "url", r.var("URL"));
    cx.output(r, &queue, "arn", r.var("ARN"));
    if let Some(id) = &dlq {
        cx.output(r, id, "url", r.var("DLQ_URL"));
    }
    Described {
        engine: "sqs".into(),
        version: None,
        summary: {
            // Written into one text, not formatted piece by piece (fifth pass).
            let mut s = String::with_capacity(64);
            s.push_str(if fifo { "FIFO" } else { "standard" });
            if let Some(n) = usage::shown_requests(counted, requests) {
                s.push_str(", ");
                s.push_str(&group(n));
                s.push_str(" requests/month");
            }
            // Writing to a String cannot fail.
            let _ = write!(s, ", visibility {visibility_timeout}");
            if let Some(d) = dead_letter {
                s.push_str(", dead-letter after ");
                s.push_str(&d.max_receives.to_compact_string());
            }
            s
        },
    }
}
