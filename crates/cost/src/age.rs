//! How old the prices are: the oldest `seen` date of a region, and the prices in use that are
//! older than a limit. Today's date is an argument: this crate reads no clock.

use crate::{Catalogue, PriceStatus};

/// Prices seen longer ago than this many days are stale (`runway catalogue` warns).
pub const STALE_AFTER_DAYS: i64 = 180;

/// Days since 1970-01-01 of a date written `YYYY-MM-DD`; `None` for anything else (a month
/// outside 1..=12, a day past the month's end).
pub fn day_number(date: &str) -> Option<i64> {
    let b = date.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = date.get(r)?;
        if !part.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        part.parse().ok()
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if !(1..=12).contains(&m) || d < 1 || d > month_days[usize::try_from(m - 1).ok()?] {
        return None;
    }
    // Count from 1 March of a year starting in March, so the leap day ends the year.
    let (y, m) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y.div_euclid(400);
    let year_of_era = y.rem_euclid(400);
    let day_of_year = (153 * m + 2) / 5 + d - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    Some(era * 146_097 + day_of_era - 719_468)
}

/// The date `YYYY-MM-DD` of a day number (days since 1970-01-01), the inverse of [`day_number`].
pub fn date_of_day(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let d = day_of_year - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = year_of_era + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A price in use whose `seen` date is older than the limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StalePrice {
    /// The region.
    pub region: String,
    /// The price key.
    pub key: String,
    /// When it was seen (`YYYY-MM-DD`).
    pub seen: String,
    /// Days between `seen` and today.
    pub age_days: i64,
}

impl Catalogue {
    /// The oldest `seen` date among a region's prices; `None` when it has no priced entry.
    pub fn oldest_seen(&self, region: &str) -> Option<&str> {
        self.regions
            .get(region)?
            .values()
            .filter_map(|e| match &e.status {
                PriceStatus::Priced { seen, .. } => Some(seen.as_str()),
                PriceStatus::Unpriced { .. } => None,
            })
            .min_by_key(|seen| day_number(seen).unwrap_or(i64::MIN))
    }

    /// The prices of `keys` in `region` seen more than `max_age_days` before `today`
    /// (`YYYY-MM-DD`), oldest first. Keys the region does not price are not listed.
    pub fn stale_prices(
        &self,
        region: &str,
        keys: &[String],
        today: &str,
        max_age_days: i64,
    ) -> Vec<StalePrice> {
        let Some(today) = day_number(today) else { return Vec::new() };
        let Some(table) = self.regions.get(region) else { return Vec::new() };
        let mut stale: Vec<StalePrice> = keys
            .iter()
            .filter_map(|key| match &table.get(key)?.status {
                PriceStatus::Priced { seen, .. } => {
                    let age_days = today - day_number(seen)?;
                    (age_days > max_age_days).then(|| StalePrice {
                        region: region.to_owned(),
                        key: key.clone(),
                        seen: seen.clone(),
                        age_days,
                    })
                }
                PriceStatus::Unpriced { .. } => None,
            })
            .collect();
        stale.sort_by_key(|s| std::cmp::Reverse(s.age_days));
        stale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_numbers_round_trip_and_count_leap_days() {
        assert_eq!(day_number("1970-01-01"), Some(0));
        assert_eq!(day_number("2000-03-01"), Some(11_017));
        assert_eq!(day_number("2024-03-01").zip(day_number("2024-02-28")).map(|(a, b)| a - b), Some(2));
        assert_eq!(day_number("2023-03-01").zip(day_number("2023-02-28")).map(|(a, b)| a - b), Some(1));
        for days in [-700_000, -1, 0, 59, 10_956, 20_000, 20_792, 2_932_896] {
            let date = date_of_day(days);
            assert_eq!(day_number(&date), Some(days), "{date}");
        }
        for bad in
            ["2026-02-29", "2026-13-01", "2026-00-10", "2026-1-01", "20261201", "2026-12-32", "abcd-ef-gh"]
        {
            assert_eq!(day_number(bad), None, "{bad}");
        }
    }
}
