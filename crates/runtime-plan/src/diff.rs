//! Plan diff: what changes between two plans of the same environment.

use runway_schema::Money;
use serde::Serialize;
use serde_json::Value;

use crate::plan::{ItemKind, Plan, PlannedItem};

/// An item present in one plan only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemRef {
    /// Logical id.
    pub id: String,
    /// Type.
    pub kind: ItemKind,
    /// Physical name.
    pub physical_name: String,
    /// Owner.
    pub owner: Option<String>,
    /// Its estimate.
    pub monthly: Option<Money>,
}

/// One changed property.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldChange {
    /// Dotted path of the property (`size`, `spec.instanceClass`, `spec.desiredCount`).
    pub field: String,
    /// Value before, as JSON text; `None` when absent.
    pub before: Option<String>,
    /// Value after, as JSON text; `None` when absent.
    pub after: Option<String>,
}

/// An item in both plans whose properties differ.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemChange {
    /// Logical id.
    pub id: String,
    /// Type.
    pub kind: ItemKind,
    /// Physical name after.
    pub physical_name: String,
    /// What changed, in property order.
    pub changes: Vec<FieldChange>,
}

/// Cost before, after, and the difference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CostDelta {
    /// Estimate before.
    pub before: Money,
    /// Estimate after.
    pub after: Money,
    /// after - before (may be negative).
    pub delta: Money,
    /// Ceiling before.
    pub ceiling_before: Money,
    /// Ceiling after.
    pub ceiling_after: Money,
}

/// What changes from one plan to another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanDiff {
    /// The product.
    pub product: String,
    /// The environment.
    pub environment: String,
    /// Items only in the new plan, in its order.
    pub added: Vec<ItemRef>,
    /// Items only in the old plan, in its order.
    pub removed: Vec<ItemRef>,
    /// Items in both that differ, in the new plan's order.
    pub changed: Vec<ItemChange>,
    /// The cost delta.
    pub cost: CostDelta,
}

impl PlanDiff {
    /// Nothing changes.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }
}

fn item_ref(i: &PlannedItem) -> ItemRef {
    ItemRef {
        id: i.id.to_string(),
        kind: i.kind(),
        physical_name: i.physical_name.to_string(),
        owner: i.owner.as_ref().map(ToString::to_string),
        monthly: i.monthly,
    }
}

/// Flattens a JSON value into `path -> JSON text` pairs, in document order.
fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                let p = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                flatten(&p, v, out);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) | Value::Array(_) => {
            out.push((prefix.to_owned(), v.to_string()));
        }
    }
}

fn fields(i: &PlannedItem) -> Vec<(String, String)> {
    let mut out = Vec::new();
    // A plan item always serializes: its maps have string keys.
    let v = serde_json::to_value(i).unwrap_or(Value::Null);
    flatten("", &v, &mut out);
    out.retain(|(k, _)| k != "id" && k != "dependsOn");
    out
}

/// Compares two plans of the same environment (matching items by logical id).
pub fn diff(old: &Plan, new: &Plan) -> PlanDiff {
    let added = new.items.iter().filter(|i| old.item(&i.id).is_none()).map(item_ref).collect();
    let removed = old.items.iter().filter(|i| new.item(&i.id).is_none()).map(item_ref).collect();
    let mut changed = Vec::new();
    for n in &new.items {
        let Some(o) = old.item(&n.id) else { continue };
        let (fo, fnew) = (fields(o), fields(n));
        let mut changes = Vec::new();
        for (k, v) in &fnew {
            let before = fo.iter().find(|(ko, _)| ko == k).map(|(_, v)| v.clone());
            if before.as_ref() != Some(v) {
                changes.push(FieldChange { field: k.clone(), before, after: Some(v.clone()) });
            }
        }
        for (k, v) in &fo {
            if !fnew.iter().any(|(kn, _)| kn == k) {
                changes.push(FieldChange { field: k.clone(), before: Some(v.clone()), after: None });
            }
        }
        if !changes.is_empty() {
            changed.push(ItemChange {
                id: n.id.to_string(),
                kind: n.kind(),
                physical_name: n.physical_name.to_string(),
                changes,
            });
        }
    }
    PlanDiff {
        product: new.product.to_string(),
        environment: new.environment.to_string(),
        added,
        removed,
        changed,
        cost: CostDelta {
            before: old.cost.monthly,
            after: new.cost.monthly,
            delta: new.cost.monthly - old.cost.monthly,
            ceiling_before: old.cost.ceiling,
            ceiling_after: new.cost.ceiling,
        },
    }
}
