//! What the environment uses a month of what AWS bills by use: the amounts its `usage`
//! declares (for one resource or workload, else for the environment), and the ones the sizes
//! assume (queue and topic requests, bucket and Aurora storage). Each amount the plan counts is
//! one assumption of its cost (`cost.usage`), with where it comes from; what nobody declared
//! and no size assumes stays a rate ("billed by use, not in the estimate").

use compact_str::CompactString;
use runway_schema::UsageKey;
use rust_decimal::Decimal;

use super::context::Cx;
use crate::plan::{UsageAssumption, UsageSource};

/// The amount of `key` the environment declares for `owner` (a resource or workload; `None`
/// for the environment's own keys), and where the file writes it.
pub(in crate::lower) fn declared(
    cx: &Cx,
    owner: Option<&str>,
    key: UsageKey,
) -> Option<(Decimal, CompactString)> {
    let (amount, at) = cx.env.usage.amount(owner, key)?;
    // Joined, not formatted (fifth pass).
    Some((amount, super::cat(&["environments.", cx.env_name, ".", &at])))
}

/// Records the amount of `key` the plan counts for `item` (of `owner`): the declared one, else
/// the default of the item's size, when it has one. Returns the declared amount, which the
/// item is priced with (a default is the size's own, which the catalogue reads).
pub(in crate::lower) fn count(
    cx: &mut Cx,
    (owner, item): (Option<&str>, &str),
    key: UsageKey,
    declared: Option<(Decimal, CompactString)>,
    default: Option<(Decimal, &str)>,
) -> Option<Decimal> {
    let (amount, source, from) = match (&declared, default) {
        (Some((amount, at)), _) => (*amount, UsageSource::Declared, at.clone()),
        (None, Some((amount, size))) => (amount, UsageSource::Default, super::cat(&["size ", size])),
        (None, None) => return None,
    };
    record(cx, (owner, item), key, (amount, source, from));
    declared.map(|(amount, _)| amount)
}

/// Records and returns the amount of `key` the plan counts for `item` (of `owner`): the
/// declared one, else runway's own default (`default`: the amount, and what the plan says it
/// comes from), for what no size assumes (a workload's releases a month).
pub(in crate::lower) fn count_or(
    cx: &mut Cx,
    (owner, item): (Option<&str>, &str),
    key: UsageKey,
    declared: Option<(Decimal, CompactString)>,
    default: (Decimal, &str),
) -> Decimal {
    let (amount, source, from) = match declared {
        Some((amount, at)) => (amount, UsageSource::Declared, at),
        None => (default.0, UsageSource::Default, CompactString::from(default.1)),
    };
    record(cx, (owner, item), key, (amount, source, from));
    amount
}

/// Adds one assumption to the plan's `cost.usage`.
fn record(
    cx: &mut Cx,
    (owner, item): (Option<&str>, &str),
    key: UsageKey,
    (amount, source, from): (Decimal, UsageSource, CompactString),
) {
    cx.usage.push(UsageAssumption {
        owner: owner.map(CompactString::from),
        item: item.into(),
        usage: key,
        amount: amount.normalize(),
        unit: key.unit(),
        source,
        from,
    });
}

/// Million requests a month, from requests.
pub(in crate::lower) fn millions(requests: u64) -> Decimal {
    Decimal::from(requests) / Decimal::from(1_000_000u32)
}

/// The requests a month a resource's summary shows: the declared amount (in millions), else the
/// size's.
pub(in crate::lower) fn shown_requests(declared_millions: Option<Decimal>, size: Option<u64>) -> Option<u64> {
    use rust_decimal::prelude::ToPrimitive;
    match declared_millions {
        Some(m) => (m * Decimal::from(1_000_000u32)).round().to_u64(),
        None => size,
    }
}
