//! `kind: topic`: an SNS topic.

use super::context::{Cx, NewItem};
use super::protection::SNS_KMS_KEY;
use super::resources::Res;
use super::{Described, cat, group, usage};
use crate::naming::fit_with_suffix;
use crate::plan::{ItemSpec, SnsTopicSpec};
use crate::pricing::Priceable;
use runway_schema::UsageKey;

/// Lowers a topic resource: the topic and its ARN.
pub(in crate::lower) fn lower(cx: &mut Cx, r: &Res, fifo: bool) -> Described {
    let requests = cx.catalogue.requests(&r.size);
    if requests.is_none() {
        cx.unknown_resource_size(r, "topic");
    }
    let name = fit_with_suffix(&cx.base(&r.name), if fifo { ".fifo" } else { "" }, 256);
    // The AWS managed key: its key policy lets the account's principals use it through SNS, so
    // publishers need no KMS permission of their own.
    let spec = ItemSpec::SnsTopic(Box::new(SnsTopicSpec {
        resource: r.name.clone(),
        fifo,
        monthly_requests: requests,
        kms_master_key: SNS_KMS_KEY.into(),
    }));
    let topic = cat(&[&r.name, "_topic"]);
    let declared = usage::declared(cx, Some(&r.name), UsageKey::Requests);
    let default = requests.map(|n| (usage::millions(n), r.size.as_str()));
    let counted = usage::count(cx, (Some(&r.name), &topic), UsageKey::Requests, declared, default);
    let id = cx.push(NewItem::new(topic, name, Some(&r.name), spec).size(&r.size).priced(Priceable::Topic {
        fifo,
        size: r.size.as_str().into(),
        requests: counted,
    }));
    cx.output(r, &id, "arn", r.var("ARN"));
    Described {
        engine: "sns".into(),
        version: None,
        summary: match usage::shown_requests(counted, requests) {
            // Joined, not formatted (fifth pass).
            Some(n) => [if fifo { "FIFO" } else { "standard" }, ", ", &group(n), " requests/month"].concat(),
            None => (if fifo { "FIFO" } else { "standard" }).to_owned(),
        },
    }
}
