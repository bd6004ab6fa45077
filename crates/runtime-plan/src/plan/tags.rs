//! The tags of a plan's AWS items: one rule for every item of an environment, held in the plan
//! ([`Plan::tags`]) and applied by the emitter to every resource whose type takes tags. The
//! adapters tag what they write the same way (`product`, `environment`, `resource`).

use compact_str::CompactString;
use serde::Serialize;

use super::{Plan, PlannedItem};

/// The tag naming the product (what the budget and the bill select on).
pub const PRODUCT_TAG: &str = "product";
/// The tag naming the environment (what the budget and the bill select on).
pub const ENVIRONMENT_TAG: &str = "environment";
/// The tag naming the item's runway resource or workload, `environment` for the environment's
/// shared items: what the bill is read back by, per resource.
pub const RESOURCE_TAG: &str = "resource";
/// The tag holding the item's logical id in the plan.
pub const ITEM_TAG: &str = "runway-item";

/// One tag every AWS item of the plan carries, and where its value comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TagRule {
    /// The tag key (`product`).
    pub key: CompactString,
    /// Where its value comes from.
    #[serde(flatten)]
    pub value: TagValue,
}

/// Where a tag's value comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "from")]
pub enum TagValue {
    /// The same text on every item (the product, the environment).
    Text {
        /// The value.
        value: CompactString,
    },
    /// The item's owner: its resource or workload, `environment` for the environment's items
    /// ([`PlannedItem::owner_name`]).
    Owner,
    /// The item's logical id.
    Id,
}

/// The tag rules of an environment's plan, in the order the tags are written: `product`,
/// `environment`, `resource`, `runway-item`.
pub fn tag_rules(product: &str, environment: &str) -> Vec<TagRule> {
    let text =
        |key: &str, value: &str| TagRule { key: key.into(), value: TagValue::Text { value: value.into() } };
    vec![
        text(PRODUCT_TAG, product),
        text(ENVIRONMENT_TAG, environment),
        TagRule { key: RESOURCE_TAG.into(), value: TagValue::Owner },
        TagRule { key: ITEM_TAG.into(), value: TagValue::Id },
    ]
}

impl Plan {
    /// The tags of one of the plan's items, `(key, value)` in the order of [`Plan::tags`].
    pub fn tags_of<'p>(&'p self, item: &'p PlannedItem) -> Vec<(&'p str, &'p str)> {
        self.tags_with(item.owner_name(), &item.id)
    }

    /// The tags of a resource of the program that is no item of the plan (an SSM parameter the
    /// program writes), owned by `owner` under the logical id `id`.
    pub fn tags_with<'a>(&'a self, owner: &'a str, id: &'a str) -> Vec<(&'a str, &'a str)> {
        self.tags
            .iter()
            .map(|rule| {
                let value = match &rule.value {
                    TagValue::Text { value } => value.as_str(),
                    TagValue::Owner => owner,
                    TagValue::Id => id,
                };
                (rule.key.as_str(), value)
            })
            .collect()
    }
}
