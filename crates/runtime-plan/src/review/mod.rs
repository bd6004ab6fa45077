//! Pull-request review: for each environment, the estimate before and after, the item changes,
//! and what breaks for consumers (variables they lose, variables whose names change).
//!
//! [`review()`] compares the plans of two versions of a product (the base, and the working
//! version) environment by environment, and decides what it finds: the item rows, what breaks for
//! consumers ([`breaking()`]), the `limits.increase` guardrail ([`IncreaseCheck`]). The
//! `plan-render` crate lays a [`Review`] out as the pull-request comment (markdown) and the
//! terminal view; the JSON is the [`Review`] value ([`crate::to_json`]). Everything here is pure:
//! the CLI reads the two versions.

mod breaking;

use runway_schema::{Money, Product};
use serde::Serialize;

use crate::diff::{FieldChange, ItemChange, ItemRef, diff};
use crate::plan::{ConsumerKind, ItemKind, Plan, PlannedItem, Verdict};

pub use breaking::breaking;

/// One version of a product with the plans of the environments under review.
#[derive(Clone, Copy, Debug)]
pub struct Side<'a> {
    /// The product (its workloads and members say which consumers still exist).
    pub product: &'a Product,
    /// Its plans, one per environment under review that it declares.
    pub plans: &'a [Plan],
}

/// What changes from the base to the working version, per environment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Review {
    /// The product (of the working version).
    pub product: String,
    /// What the base is, as the user named it (a git revision or a file).
    pub base: String,
    /// The working version's environments in its order, then those only the base declares.
    pub environments: Vec<EnvironmentReview>,
}

impl Review {
    /// Environments whose rise is over their `limits.increase`.
    pub fn over_increase(&self) -> impl Iterator<Item = &EnvironmentReview> {
        self.environments.iter().filter(|e| e.increase.as_ref().is_some_and(|i| i.over))
    }

    /// No environment has an item change, a breaking change or a cost change.
    pub fn is_empty(&self) -> bool {
        self.environments.iter().all(EnvironmentReview::is_empty)
    }

    /// Some environment of the working version is refused (over its cap, or unpriced under it).
    pub fn refused(&self) -> bool {
        self.environments.iter().any(|e| e.after.as_ref().is_some_and(|a| a.refused))
    }
}

/// One environment's review.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentReview {
    /// The environment.
    pub name: String,
    /// Its cost in the base; `None` when the base does not declare it (a new environment).
    pub before: Option<SideCost>,
    /// Its cost in the working version; `None` when it is no longer declared.
    pub after: Option<SideCost>,
    /// The change a month: the shown (cent-rounded) estimate after minus the one before, a
    /// missing side counting as zero, so the figures a reader sees add up.
    pub delta: Money,
    /// Added, removed, resized and changed items, in that order, each group in plan order.
    pub items: Vec<ItemRow>,
    /// What breaks for consumers, in the base's binding order (both sides declared only).
    pub breaking: Vec<Breaking>,
    /// The rise `limits.increase` allows and whether this change goes past it (a warning, not a
    /// refusal); `None` when neither side sets one, or the environment is new or removed.
    pub increase: Option<IncreaseCheck>,
    /// What `pulumi preview` said of the environment's stack, when the review was given it
    /// (`runway diff --pulumi-preview`); absent from the JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pulumi: Option<crate::preview::PulumiPreview>,
}

/// An environment's rise against its `limits.increase`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IncreaseCheck {
    /// The limit as written (`$50`, `20%`): the base's, or the working version's when only it
    /// sets one (so a change cannot loosen the limit it is checked against).
    pub limit: String,
    /// The rise it allows a month, in dollars (a percentage taken of the base's estimate).
    pub allowed: Money,
    /// The rise is over it: review warns.
    pub over: bool,
}

impl EnvironmentReview {
    /// Declared on both sides with no item, breaking or cost change.
    pub fn is_empty(&self) -> bool {
        self.before.is_some() == self.after.is_some()
            && self.items.is_empty()
            && self.breaking.is_empty()
            && self.pulumi.as_ref().is_none_or(|p| p.items.is_empty() && p.others.is_empty())
            && self.delta.0.is_zero()
    }
}

/// The cost of one side of an environment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SideCost {
    /// The estimate (workloads at `scale.min`).
    pub monthly: Money,
    /// The estimate at `scale.max`.
    pub ceiling: Money,
    /// The cap, when there is one.
    pub cap: Option<Money>,
    /// Within, over or uncapped.
    pub verdict: Verdict,
    /// The plan may not be applied (over the cap, or unpriced under it).
    pub refused: bool,
}

/// How an item changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ItemChangeKind {
    /// Only in the working version.
    Added,
    /// Only in the base.
    Removed,
    /// In both, with another `size`.
    Resized,
    /// In both, with other properties.
    Changed,
}

impl ItemChangeKind {
    /// As shown (`added`, `removed`, `resized`, `changed`).
    pub fn as_str(self) -> &'static str {
        match self {
            ItemChangeKind::Added => "added",
            ItemChangeKind::Removed => "removed",
            ItemChangeKind::Resized => "resized",
            ItemChangeKind::Changed => "changed",
        }
    }
}

/// One item that changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemRow {
    /// Added, removed, resized or changed.
    pub change: ItemChangeKind,
    /// Logical id.
    pub id: String,
    /// Type.
    pub kind: ItemKind,
    /// Physical name (the working version's, unless removed).
    pub physical_name: String,
    /// The resource or workload it belongs to.
    pub owner: Option<String>,
    /// Its estimate in the base; `None` when absent there or unpriced.
    pub monthly_before: Option<Money>,
    /// Its estimate in the working version; `None` when absent there or unpriced.
    pub monthly_after: Option<Money>,
    /// The properties that differ (resized and changed items), in property order.
    pub fields: Vec<FieldChange>,
}

/// Why a consumer loses variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// The resource is gone from the plan.
    ResourceRemoved,
    /// The resource is gone and a new resource of the same kind took its place for this
    /// consumer.
    ResourceRenamed,
    /// The resource is still planned, but this consumer no longer uses it (a `uses` entry or
    /// a `requires` engine dropped).
    UseDropped,
    /// The consumer still uses the resource but gets fewer variables from it (a dead-letter
    /// queue removed, a kind changed).
    VariablesDropped,
}

impl Cause {
    /// As shown (`resource removed`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Cause::ResourceRemoved => "resource removed",
            Cause::ResourceRenamed => "resource renamed",
            Cause::UseDropped => "no longer used",
            Cause::VariablesDropped => "variables dropped",
        }
    }
}

/// A variable a consumer now gets under another name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rename {
    /// The name it had.
    pub from: String,
    /// The name it has.
    pub to: String,
}

/// One consumer's loss of one resource's variables.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Breaking {
    /// The workload or member.
    pub consumer: String,
    /// Workload, Encore member or other member.
    pub consumer_kind: ConsumerKind,
    /// The resource whose variables it received.
    pub resource: String,
    /// Why it loses them.
    pub cause: Cause,
    /// The resource of the same kind it now gets in its place, when there is exactly one.
    pub replaced_by: Option<String>,
    /// Variables it no longer receives under any name.
    pub lost: Vec<String>,
    /// Variables it now receives under another name (from `replaced_by`).
    pub renamed: Vec<Rename>,
}

/// Reviews two versions of a product: every environment either side's plans cover, the
/// working version's first (its order), then the base's others. `old` is `None` when the base
/// has no runway at all (every environment is new).
pub fn review(base: &str, old: Option<Side<'_>>, new: Side<'_>) -> Review {
    let mut names: Vec<&str> = new.plans.iter().map(|p| p.environment.as_str()).collect();
    for p in old.map(|s| s.plans).unwrap_or_default() {
        if !names.contains(&p.environment.as_str()) {
            names.push(p.environment.as_str());
        }
    }
    let find =
        |plans: &'_ [Plan], env: &str| -> Option<usize> { plans.iter().position(|p| p.environment == env) };
    let environments = names
        .into_iter()
        .map(|env| {
            let before = old.and_then(|s| find(s.plans, env).map(|i| &s.plans[i]));
            let after = find(new.plans, env).map(|i| &new.plans[i]);
            let mut r = review_environment(env, before, after, new.product);
            let limit = |p: &Product| p.root.environments.get(env).and_then(|e| e.increase_limit);
            let limit = old.and_then(|s| limit(s.product)).or_else(|| limit(new.product));
            r.increase = limit.and_then(|l| increase_check(&r, l));
            r
        })
        .collect();
    Review { product: new.product.root.product.clone(), base: base.to_owned(), environments }
}

/// One environment: cost on each side, item rows, and (declared on both sides) what breaks.
pub fn review_environment(
    env: &str,
    old: Option<&Plan>,
    new: Option<&Plan>,
    new_product: &Product,
) -> EnvironmentReview {
    let before = old.map(side_cost);
    let after = new.map(side_cost);
    let shown = |c: &Option<SideCost>| c.as_ref().map_or(Money::ZERO, |c| c.monthly.cents());
    let delta = shown(&after) - shown(&before);
    let breaking = match (old, new) {
        (Some(o), Some(n)) => breaking(o, n, new_product),
        _ => Vec::new(),
    };
    EnvironmentReview {
        name: env.to_owned(),
        before,
        after,
        delta,
        items: item_rows(old, new),
        breaking,
        increase: None,
        pulumi: None,
    }
}

/// The environment's rise against `limit`, when it is declared on both sides.
fn increase_check(r: &EnvironmentReview, limit: runway_schema::Increase) -> Option<IncreaseCheck> {
    let (before, _) = (r.before.as_ref()?, r.after.as_ref()?);
    let allowed = limit.allowed(before.monthly.cents()).cents();
    Some(IncreaseCheck { limit: limit.text(), allowed, over: r.delta.0 > allowed.0 })
}

fn side_cost(p: &Plan) -> SideCost {
    SideCost {
        monthly: p.cost.monthly,
        ceiling: p.cost.ceiling,
        cap: p.cost.cap,
        verdict: p.cost.verdict,
        refused: p.cost.refused,
    }
}

fn row(change: ItemChangeKind, i: &PlannedItem, before: Option<Money>, after: Option<Money>) -> ItemRow {
    ItemRow {
        change,
        id: i.id.to_string(),
        kind: i.kind(),
        physical_name: i.physical_name.to_string(),
        owner: i.owner.as_ref().map(ToString::to_string),
        monthly_before: before,
        monthly_after: after,
        fields: Vec::new(),
    }
}

/// Added, removed, resized, changed: each group in plan order (the base's for removed items).
fn item_rows(old: Option<&Plan>, new: Option<&Plan>) -> Vec<ItemRow> {
    let (o, n) = match (old, new) {
        (Some(o), Some(n)) => (o, n),
        (None, Some(n)) => {
            return n.items.iter().map(|i| row(ItemChangeKind::Added, i, None, i.monthly)).collect();
        }
        (Some(o), None) => {
            return o.items.iter().map(|i| row(ItemChangeKind::Removed, i, i.monthly, None)).collect();
        }
        (None, None) => return Vec::new(),
    };
    let d = diff(o, n);
    let mut rows: Vec<ItemRow> = Vec::new();
    let from_ref =
        |change: ItemChangeKind, r: &ItemRef, before: Option<Money>, after: Option<Money>| ItemRow {
            change,
            id: r.id.clone(),
            kind: r.kind,
            physical_name: r.physical_name.clone(),
            owner: r.owner.clone(),
            monthly_before: before,
            monthly_after: after,
            fields: Vec::new(),
        };
    rows.extend(d.added.iter().map(|a| from_ref(ItemChangeKind::Added, a, None, a.monthly)));
    rows.extend(d.removed.iter().map(|r| from_ref(ItemChangeKind::Removed, r, r.monthly, None)));
    let resized = |c: &&ItemChange| c.changes.iter().any(|f| f.field == "size");
    let (sized, other): (Vec<_>, Vec<_>) = d.changed.iter().partition(resized);
    let (olds, news) = (o.items_by_id(), n.items_by_id());
    for (kind, changes) in [(ItemChangeKind::Resized, sized), (ItemChangeKind::Changed, other)] {
        for c in changes {
            let (Some(before), Some(after)) = (olds.get(c.id.as_str()), news.get(c.id.as_str())) else {
                continue;
            };
            let mut r = row(kind, after, before.monthly, after.monthly);
            r.fields.clone_from(&c.changes);
            rows.push(r);
        }
    }
    rows
}
