//! The previews' pool (docs/previews.md, "Costs: the pool is the cap"): what `runway preview
//! up` decides before any write, what `list` shows and what `sweep` removes. Pure: the live
//! previews (found by their tags by the command), the clock and the open pull requests are
//! passed in.

use std::collections::BTreeSet;

use compact_str::CompactString;
use runway_schema::Money;
use serde::Serialize;

use crate::plan::Preview;

/// One preview found in the account by its `runway-preview` tag.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LivePreview {
    /// Its name, the tag's value (`pr-7`).
    pub name: CompactString,
    /// When its first `up` began, in seconds since the Unix epoch (its record's tag); `None`
    /// when the record is gone (an interrupted `down`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<u64>,
    /// Its monthly estimate when it went up (its record's tag); `None` without a record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub monthly: Option<Money>,
    /// Whether a Pulumi stack holds it; a preview no stack holds is a leftover.
    pub stack: bool,
}

impl LivePreview {
    /// The pull request number its name gives (`pr-7` → 7).
    pub fn pr(&self) -> Option<u64> {
        pr_of(&self.name)
    }

    /// Seconds since it was created at `now`.
    pub fn age(&self, now: u64) -> Option<u64> {
        self.created_at.map(|c| now.saturating_sub(c))
    }

    /// When it expires, `expire_after` seconds after its creation.
    pub fn expires_at(&self, expire_after: u64) -> Option<u64> {
        self.created_at.map(|c| c.saturating_add(expire_after))
    }
}

/// `pr-<n>` → `n` (from 1), else `None`.
pub fn pr_of(name: &str) -> Option<u64> {
    let n = name.strip_prefix("pr-")?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) || n.starts_with('0') {
        return None;
    }
    n.parse().ok()
}

/// A preview holding part of the pool, as a refusal names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Holder {
    /// `pr-7`.
    pub name: CompactString,
    /// Seconds since its creation, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age_seconds: Option<u64>,
    /// Its monthly estimate, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub monthly: Option<Money>,
}

/// The pool with one more preview: what it would hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Admitted {
    /// The other live previews' total (a preview without a record counts as zero).
    pub others: Money,
    /// This preview's estimate.
    pub adds: Money,
    /// The cap (`previews.limits.monthly`).
    pub cap: Money,
    /// Live previews with this one.
    pub count: usize,
    /// When this preview was first created (kept from its record on a later `up`).
    pub created_at: u64,
}

/// Why `preview up` refuses before any write (exit 3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(tag = "reason", rename_all = "camelCase")]
#[non_exhaustive]
pub enum PoolRefusal {
    /// The sum would pass `previews.limits.monthly`.
    #[error(
        "{name} would add ${adds} a month to the previews' ${others}: ${total} is over the pool's cap of ${cap}"
    )]
    #[serde(rename_all = "camelCase")]
    OverCap {
        /// The preview refused.
        name: CompactString,
        /// Its estimate.
        adds: Money,
        /// The live previews' total.
        others: Money,
        /// Both.
        total: Money,
        /// `previews.limits.monthly`.
        cap: Money,
        /// The live previews, oldest first.
        holders: Vec<Holder>,
    },
    /// The count would pass `previews.max`.
    #[error("{name} would be live preview number {count}: over `previews.max` ({max})")]
    #[serde(rename_all = "camelCase")]
    OverMax {
        /// The preview refused.
        name: CompactString,
        /// Live previews with it.
        count: usize,
        /// `previews.max`.
        max: u32,
        /// The live previews, oldest first.
        holders: Vec<Holder>,
    },
}

impl PoolRefusal {
    /// The previews holding the pool, oldest first.
    pub fn holders(&self) -> &[Holder] {
        match self {
            PoolRefusal::OverCap { holders, .. } | PoolRefusal::OverMax { holders, .. } => holders,
        }
    }
}

/// The live previews other than `name`, oldest first (unknown ages last), as holders.
fn holders(live: &[LivePreview], name: &str, now: u64) -> Vec<Holder> {
    let mut others: Vec<&LivePreview> = live.iter().filter(|p| p.name != name).collect();
    others.sort_by_key(|p| (p.created_at.is_none(), p.created_at, p.name.clone()));
    others
        .into_iter()
        .map(|p| Holder { name: p.name.clone(), age_seconds: p.age(now), monthly: p.monthly })
        .collect()
}

/// Whether `preview`'s plan (its estimate `adds`) may go up beside the `live` previews at
/// `now`: refused when the count would pass `max` (checked first: a count is never
/// uncertain) or the sum pass the cap. A preview already live is counted once, with its new
/// estimate, and keeps its creation time unless `extend`.
pub fn admit(
    preview: &Preview,
    adds: Money,
    live: &[LivePreview],
    now: u64,
    extend: bool,
) -> Result<Admitted, PoolRefusal> {
    let name = preview.name.clone();
    let own = live.iter().find(|p| p.name == name);
    let others: Vec<&LivePreview> = live.iter().filter(|p| p.name != name).collect();
    let count = others.len() + 1;
    if count > preview.max as usize {
        return Err(PoolRefusal::OverMax {
            name,
            count,
            max: preview.max,
            holders: holders(live, &preview.name, now),
        });
    }
    let others_total: Money = others.iter().filter_map(|p| p.monthly).sum();
    let total = others_total + adds;
    if total.cents() > preview.pool_cap.cents() {
        return Err(PoolRefusal::OverCap {
            name,
            adds,
            others: others_total,
            total,
            cap: preview.pool_cap,
            holders: holders(live, &preview.name, now),
        });
    }
    let created_at = own.and_then(|p| p.created_at).filter(|_| !extend).unwrap_or(now);
    Ok(Admitted { others: others_total, adds, cap: preview.pool_cap, count, created_at })
}

/// Why `sweep` removes a preview.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SweepReason {
    /// Past its `expireAfter`.
    Expired,
    /// Its pull request is not among the open ones.
    Closed,
    /// No stack holds it (an interrupted `down`).
    Leftover,
}

/// A preview `sweep` removes, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Removal {
    /// `pr-7`.
    pub name: CompactString,
    /// Its pull request.
    pub pr: u64,
    /// Why.
    pub reason: SweepReason,
}

/// What `sweep` removes at `now`: the previews past `expire_after` seconds, those whose
/// pull request is not in `open`, and the leftovers. Only names of the `pr-<n>` form are ever
/// chosen, and never one of the `declared` environments.
pub fn sweep(
    live: &[LivePreview],
    open: &BTreeSet<u64>,
    now: u64,
    expire_after: u64,
    declared: &[&str],
) -> Vec<Removal> {
    let mut out = Vec::new();
    for p in live {
        let Some(pr) = p.pr() else { continue };
        if declared.contains(&p.name.as_str()) {
            continue;
        }
        let reason = if p.expires_at(expire_after).is_some_and(|at| at <= now) {
            SweepReason::Expired
        } else if !open.contains(&pr) {
            SweepReason::Closed
        } else if !p.stack {
            SweepReason::Leftover
        } else {
            continue;
        };
        out.push(Removal { name: p.name.clone(), pr, reason });
    }
    out.sort_by_key(|r| r.pr);
    out
}

/// The pool's total: every live preview's estimate (unknown ones as zero).
pub fn pool_total(live: &[LivePreview]) -> Money {
    live.iter().filter_map(|p| p.monthly).sum()
}
