//! What `runway restore` does to a postgres resource, decided before any call: which DB
//! instance is restored, the copy's name and size, whether the asked time is inside the
//! restorable window, and what a drill's copy cost. Pure: the adapter reads the window and
//! restores; the CLI reads the clock.
//!
//! Times are UTC, written `YYYY-MM-DDTHH:MM:SSZ` (what the AWS APIs answer, seconds kept): two
//! of them compare as text.

use compact_str::CompactString;
use cost::{Catalogue, PriceStatus};
use runway_schema::Money;
use rust_decimal::Decimal;
use serde::Serialize;

use crate::plan::{ItemSpec, Plan};

/// RDS bills an instance per second, with a minimum of ten minutes.
pub const MIN_BILLED_SECONDS: u64 = 600;

/// The instance a restore works on and the copy it makes (in the live instance's subnet group
/// and security groups, as RDS tells them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RestoreTarget {
    /// The resource.
    pub resource: CompactString,
    /// The live DB instance.
    pub source: CompactString,
    /// The copy's identifier: `<source>-drill` for a drill, `<source>-restored` otherwise (a
    /// fixed name: a run again finds the copy a stopped run began).
    pub copy: CompactString,
    /// The class the copy gets (the plan's).
    pub instance_class: CompactString,
    /// The catalogue's price key of an hour of the copy.
    pub price_key: CompactString,
}

/// Why a restore cannot start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RestoreError {
    /// No resource of that name.
    #[error("`{resource}` is no resource of {environment}")]
    UnknownResource {
        /// The name asked.
        resource: String,
        /// The environment.
        environment: String,
    },
    /// A resource without the database or cache this restore works on (the CLI picks the
    /// restore of the resource's kind first: `restore_kinds.rs`).
    #[error("`{resource}` holds no RDS instance, Aurora cluster or cache of the kind this restore works on")]
    NotRds {
        /// The name asked.
        resource: String,
    },
    /// The time is not `YYYY-MM-DDTHH:MM:SSZ`.
    #[error("`{0}` is not a UTC time: write it as YYYY-MM-DDTHH:MM:SSZ (e.g. 2026-12-06T09:30:00Z)")]
    BadTime(String),
}

/// The restore target of `resource` in `plan`; `drill` names the copy for a drill.
pub fn restore_target(plan: &Plan, resource: &str, drill: bool) -> Result<RestoreTarget, RestoreError> {
    let r =
        plan.resources.iter().find(|r| r.name == resource).ok_or_else(|| RestoreError::UnknownResource {
            resource: resource.to_owned(),
            environment: plan.environment.to_string(),
        })?;
    let not_rds = || RestoreError::NotRds { resource: resource.to_owned() };
    let (item, spec) = r
        .items
        .iter()
        .filter_map(|id| plan.item(id))
        .find_map(|i| {
            let ItemSpec::RdsInstance(spec) = &i.spec else { return None };
            Some((i, spec))
        })
        .ok_or_else(not_rds)?;
    let suffix = if drill { "drill" } else { "restored" };
    Ok(RestoreTarget {
        resource: r.name.clone(),
        source: item.physical_name.clone(),
        copy: copy_name(&item.physical_name, suffix),
        instance_class: spec.size.instance_class.as_str().into(),
        price_key: format!("rds-instance/{}", spec.size.instance_class).into(),
    })
}

/// The suffix of a kept restore's copy, of a drill's copy and of the live instance once a
/// switch has moved the product off it: `<source>-restored`, `<source>-drill`, `<source>-old`.
pub const SUFFIXES: [&str; 3] = ["restored", "drill", "old"];

/// The names a restore of `source` gives: its copies and its old name after a switch
/// ([`SUFFIXES`], in that order). The deploy role is denied deleting or restoring into them
/// (deploy-policy).
pub fn names_beside(source: &str) -> [CompactString; 3] {
    SUFFIXES.map(|suffix| copy_name(source, suffix))
}

/// `<source>-<suffix>` within RDS's 63 characters (the source shortened, never the suffix).
fn copy_name(source: &str, suffix: &str) -> CompactString {
    let room = 63 - suffix.len() - 1;
    let head: String = source.chars().take(room).collect();
    format!("{}-{suffix}", head.trim_end_matches('-')).into()
}

/// Checks that `time` is written `YYYY-MM-DDTHH:MM:SSZ`.
pub fn parse_time(time: &str) -> Result<CompactString, RestoreError> {
    let b = time.as_bytes();
    let digits = |r: std::ops::Range<usize>| b.get(r).is_some_and(|s| s.iter().all(u8::is_ascii_digit));
    let shaped = b.len() == 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && b[19] == b'Z';
    if !shaped {
        return Err(RestoreError::BadTime(time.to_owned()));
    }
    Ok(time.into())
}

/// Where a time falls against the restorable window `[earliest, latest]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum InWindow {
    /// Inside: the restore can start.
    Inside,
    /// Before the earliest restorable time (older than the backups kept).
    TooEarly,
    /// After the latest restorable time (RDS has not yet archived up to it).
    TooLate,
}

/// Where `time` falls against `[earliest, latest]` (all `YYYY-MM-DDTHH:MM:SSZ`).
pub fn in_window(time: &str, earliest: &str, latest: &str) -> InWindow {
    if time < earliest {
        InWindow::TooEarly
    } else if time > latest {
        InWindow::TooLate
    } else {
        InWindow::Inside
    }
}

/// What a copy that lived `seconds` cost: its class's hourly price, billed per second with
/// RDS's ten-minute minimum; `None` when the catalogue has no price for the class.
pub fn copy_cost(plan: &Plan, catalogue: &Catalogue, target: &RestoreTarget, seconds: u64) -> Option<Money> {
    billed_cost(plan, catalogue, &target.price_key, seconds)
}

/// What `seconds` of the catalogue's hourly `price_key` cost, billed per second with a
/// ten-minute minimum (RDS and Aurora instances alike); `None` when it has no price.
pub(crate) fn billed_cost(
    plan: &Plan,
    catalogue: &Catalogue,
    price_key: &str,
    seconds: u64,
) -> Option<Money> {
    let price = match catalogue.price_table(&plan.region)?.get(price_key).map(|e| &e.status) {
        Some(PriceStatus::Priced { price, .. }) => *price,
        Some(PriceStatus::Unpriced { .. }) | None => return None,
    };
    let billed = Decimal::from(seconds.max(MIN_BILLED_SECONDS));
    Some(price.times(billed / Decimal::from(3_600)))
}

#[cfg(test)]
mod tests {
    use super::{InWindow, copy_name, in_window, parse_time};

    #[test]
    fn times_are_utc_seconds_and_compare_against_the_window() {
        assert!(parse_time("2026-12-06T09:30:00Z").is_ok());
        for bad in ["2026-12-06 09:30:00", "2026-12-06T09:30Z", "yesterday", "2026-12-06T09:30:00+01:00"] {
            assert!(parse_time(bad).is_err(), "{bad}");
        }
        let (e, l) = ("2026-12-01T03:00:00Z", "2026-12-06T09:25:00Z");
        assert_eq!(in_window("2026-12-06T09:00:00Z", e, l), InWindow::Inside);
        assert_eq!(in_window("2026-11-30T23:59:59Z", e, l), InWindow::TooEarly);
        assert_eq!(in_window("2026-12-06T09:30:00Z", e, l), InWindow::TooLate);
    }

    #[test]
    fn the_copy_name_keeps_its_suffix_within_63_characters() {
        assert_eq!(copy_name("acme-shop-dev-main-db", "drill"), "acme-shop-dev-main-db-drill");
        let long = "a".repeat(63);
        let name = copy_name(&long, "restored");
        assert_eq!(name.len(), 63);
        assert!(name.ends_with("-restored"));
    }
}
