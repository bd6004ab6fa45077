//! What `pulumi preview` says about one environment's stack, per runway item: created,
//! updated, replaced or deleted, and what a replacement or deletion of an item with stored data
//! loses. Plain data: `pulumi-program` reads Pulumi's JSON and maps each resource back to the
//! item that emitted it (it knows the program's resource names); the review shows it
//! (docs/review.md, "What Pulumi would do").

use serde::Serialize;

use crate::plan::{ItemKind, StoredData};

/// What Pulumi would do to the items of one environment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PulumiPreview {
    /// The stack the preview is of (from its resources' URNs), when it names one.
    pub stack: Option<String>,
    /// Items with a change: those with stored data replaced or deleted first, then the others
    /// replaced, deleted, created and updated; each group in plan order.
    pub items: Vec<ItemPreview>,
    /// Changed resources that are no item of either plan (a resource an older runway declared,
    /// or one added by hand), as Pulumi named them.
    pub others: Vec<ResourceStep>,
}

impl PulumiPreview {
    /// The items whose replacement or deletion loses stored data.
    pub fn losses(&self) -> impl Iterator<Item = &ItemPreview> {
        self.items.iter().filter(|i| i.loss.is_some())
    }
}

/// What Pulumi would do to one item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PulumiChange {
    /// A resource of it is replaced (a new one in its place), or its main resource is deleted
    /// and created again under another type.
    Replaced,
    /// Its main resource is deleted.
    Deleted,
    /// Its main resource is created.
    Created,
    /// Updated in place (or only a companion resource changes).
    Updated,
}

impl PulumiChange {
    /// As shown (`replaced`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            PulumiChange::Replaced => "replaced",
            PulumiChange::Deleted => "deleted",
            PulumiChange::Created => "created",
            PulumiChange::Updated => "updated",
        }
    }
}

/// One item Pulumi would change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemPreview {
    /// Its logical id (the name of its main resource).
    pub id: String,
    /// Its kind (the working version's, or the base's when it is deleted).
    pub kind: ItemKind,
    /// The resource or workload it belongs to.
    pub owner: Option<String>,
    /// What happens to it.
    pub change: PulumiChange,
    /// What its kind stores ([`ItemKind::stored_data`]); for an item replaced by one of another
    /// kind, the kind it was.
    pub stored: Option<StoredData>,
    /// What is lost: set when an item with stored data is replaced or deleted.
    pub loss: Option<String>,
    /// Its resources' steps, in the preview's order.
    pub steps: Vec<ResourceStep>,
}

impl ItemPreview {
    /// The name a warning gives it: its owner (`main-db`), or its id.
    pub fn name(&self) -> &str {
        self.owner.as_deref().unwrap_or(&self.id)
    }

    /// What a change loses of what an item stores: a replacement's or a deletion's words;
    /// nothing for a creation, an update, or an item that stores nothing.
    pub fn loss_of(change: PulumiChange, stored: Option<StoredData>) -> Option<String> {
        let stored = stored?;
        match change {
            PulumiChange::Replaced => Some(stored.replaced.to_owned()),
            PulumiChange::Deleted => Some(stored.deleted.to_owned()),
            PulumiChange::Created | PulumiChange::Updated => None,
        }
    }
}

/// One step of the preview: a resource and Pulumi's operation on it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceStep {
    /// Pulumi's operation as written (`create`, `update`, `replace`, `delete`, ...).
    pub op: String,
    /// The resource's name in the program.
    pub name: String,
    /// Its type token (`aws:rds/instance:Instance`).
    pub token: String,
    /// The properties that force a replacement (`replaceReasons`), else those that differ
    /// (`diffReasons`).
    pub reasons: Vec<String>,
}
