//! Validated newtypes: money, durations, image references, names.

use std::fmt;
use std::str::FromStr;

use rust_decimal::{Decimal, RoundingStrategy};
use serde::{Serialize, Serializer};

/// An amount of US dollars, exact (a decimal, never a float).
///
/// Sums stay exact; [`Money::cents`] rounds half away from zero only for display and for the
/// cap comparison, as the spec asks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Money(pub Decimal);

/// Why a money value was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an amount of US dollars (write a decimal such as `150` or `35.88`)")]
pub struct MoneyError(pub String);

impl Money {
    /// Zero dollars.
    pub const ZERO: Money = Money(Decimal::ZERO);

    /// Parses a non-negative decimal such as `150` or `0.0128`.
    pub fn parse(text: &str) -> Result<Money, MoneyError> {
        let t = text.trim();
        let ok = !t.is_empty()
            && t.chars().all(|c| c.is_ascii_digit() || c == '.')
            && t.chars().filter(|c| *c == '.').count() <= 1
            && !t.starts_with('.')
            && !t.ends_with('.');
        if !ok {
            return Err(MoneyError(text.to_owned()));
        }
        Decimal::from_str(t).map(Money).map_err(|_| MoneyError(text.to_owned()))
    }

    /// Rounded to cents, half away from zero.
    pub fn cents(self) -> Money {
        Money(self.0.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero))
    }

    /// Exact product with a decimal quantity.
    pub fn times(self, quantity: Decimal) -> Money {
        Money(self.0 * quantity)
    }
}

impl std::ops::Add for Money {
    type Output = Money;
    fn add(self, rhs: Money) -> Money {
        Money(self.0 + rhs.0)
    }
}

impl std::ops::Sub for Money {
    type Output = Money;
    fn sub(self, rhs: Money) -> Money {
        Money(self.0 - rhs.0)
    }
}

impl std::iter::Sum for Money {
    fn sum<I: Iterator<Item = Money>>(iter: I) -> Money {
        iter.fold(Money::ZERO, |a, b| a + b)
    }
}

/// Shows dollars to the cent (`35.88`); use `{:?}` or `.0` for the exact figure.
impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.2}", self.cents().0)
    }
}

/// Serialized as a decimal string rounded to cents (`"35.88"`), the plan's JSON shape.
impl Serialize for Money {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A duration written with a unit (`ms`, `s`, `m`, `h`), held in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration {
    millis: u64,
}

/// Why a duration was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a duration (write a whole number and a unit: `500ms`, `30s`, `5m`, `1h`)")]
pub struct DurationError(pub String);

impl Duration {
    /// A duration of `millis` milliseconds.
    pub const fn from_millis(millis: u64) -> Self {
        Self { millis }
    }

    /// Milliseconds.
    pub const fn as_millis(self) -> u64 {
        self.millis
    }

    /// Whole seconds, rounded down.
    pub const fn as_secs(self) -> u64 {
        self.millis / 1000
    }

    /// Parses `30s`, `500ms`, `5m`, `1h`.
    pub fn parse(text: &str) -> Result<Duration, DurationError> {
        let err = || DurationError(text.to_owned());
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        let (num, unit) = text.split_at(digits);
        if num.is_empty() || num.len() > 12 {
            return Err(err());
        }
        let n: u64 = num.parse().map_err(|_| err())?;
        let factor = match unit {
            "ms" => 1,
            "s" => 1_000,
            "m" => 60_000,
            "h" => 3_600_000,
            _ => return Err(err()),
        };
        Ok(Duration { millis: n * factor })
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.millis;
        if m.is_multiple_of(3_600_000) && m > 0 {
            write!(f, "{}h", m / 3_600_000)
        } else if m.is_multiple_of(60_000) && m > 0 {
            write!(f, "{}m", m / 60_000)
        } else if m.is_multiple_of(1000) {
            write!(f, "{}s", m / 1000)
        } else {
            write!(f, "{m}ms")
        }
    }
}

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A container image pinned by digest: `[registry/]name[:tag]@sha256:<64 hex>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ImageRef(String);

/// What `runway init` writes where it knows no image: a word no registry serves, refused by
/// `check` as `unpinned-image` with a message of its own.
pub const IMAGE_PLACEHOLDER: &str = "REPLACE-ME";

/// Why an image reference was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImageError {
    /// No `@sha256:` digest.
    #[error("image `{0}` is not pinned by digest")]
    Unpinned(String),
    /// Malformed name, tag or digest.
    #[error("image `{0}` is not a valid reference: {1}")]
    Invalid(String, &'static str),
}

impl ImageRef {
    /// Parses and checks an image reference.
    pub fn parse(text: &str) -> Result<ImageRef, ImageError> {
        Self::check(text).map(|()| ImageRef(text.to_owned()))
    }

    /// [`ImageRef::parse`] of a text already owned: no second copy (sixth pass).
    pub(crate) fn parse_owned(text: String) -> Result<ImageRef, ImageError> {
        Self::check(&text).map(|()| ImageRef(text))
    }

    /// Why `text` is not a pinned image reference, if it is not.
    fn check(text: &str) -> Result<(), ImageError> {
        let Some((name_tag, digest)) = text.split_once('@') else {
            return Err(ImageError::Unpinned(text.to_owned()));
        };
        let Some(hex) = digest.strip_prefix("sha256:") else {
            return Err(ImageError::Invalid(text.to_owned(), "the digest must start with `sha256:`"));
        };
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            return Err(ImageError::Invalid(text.to_owned(), "the digest must be 64 lowercase hex digits"));
        }
        // A tag follows the last `:` that comes after the last `/` (a registry may have a port).
        let last_slash = name_tag.rfind('/').map_or(0, |i| i + 1);
        let (name, tag) = match name_tag[last_slash..].find(':') {
            Some(i) => (&name_tag[..last_slash + i], Some(&name_tag[last_slash + i + 1..])),
            None => (name_tag, None),
        };
        let name_ok = !name.is_empty()
            && name.split('/').all(|part| {
                !part.is_empty()
                    && part
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b':'))
            });
        if !name_ok {
            return Err(ImageError::Invalid(text.to_owned(), "the repository name is malformed"));
        }
        if let Some(tag) = tag {
            let tag_ok = !tag.is_empty()
                && tag.len() <= 128
                && tag.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
            if !tag_ok {
                return Err(ImageError::Invalid(text.to_owned(), "the tag is malformed"));
            }
        }
        Ok(())
    }

    /// The reference as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Is `name` a valid resource, workload, member or environment name
/// (`^[a-z][a-z0-9-]{0,38}[a-z0-9]$`)?
pub fn is_valid_name(name: &str) -> bool {
    let b = name.as_bytes();
    (2..=40).contains(&b.len())
        && b[0].is_ascii_lowercase()
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[b.len() - 1] != b'-'
}

/// Is `name` a valid product name (`^[a-z][a-z0-9-]{1,30}[a-z0-9]$`)?
pub fn is_valid_product(name: &str) -> bool {
    let b = name.as_bytes();
    (3..=32).contains(&b.len())
        && b[0].is_ascii_lowercase()
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[b.len() - 1] != b'-'
}

/// The variable prefix of a resource: upper-cased, `-` turned to `_` (`main-db` -> `MAIN_DB`).
pub fn variable_prefix(resource: &str) -> String {
    resource.to_ascii_uppercase().replace('-', "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_rounds_half_away_from_zero_only_for_display() {
        let m = Money::parse("0.125").unwrap();
        assert_eq!(m.to_string(), "0.13");
        assert_eq!(m.0.to_string(), "0.125");
        assert!(Money::parse("1e3").is_err());
        assert!(Money::parse("-1").is_err());
        assert!(Money::parse("").is_err());
    }

    #[test]
    fn durations_need_a_unit() {
        assert_eq!(Duration::parse("30s").unwrap().as_millis(), 30_000);
        assert_eq!(Duration::parse("500ms").unwrap().as_millis(), 500);
        assert_eq!(Duration::parse("12h").unwrap().to_string(), "12h");
        assert!(Duration::parse("30").is_err());
        assert!(Duration::parse("s").is_err());
        assert!(Duration::parse("1.5s").is_err());
    }

    #[test]
    fn images_must_be_pinned() {
        let d = "a".repeat(64);
        assert!(ImageRef::parse(&format!("metabase/metabase:v0.50.3@sha256:{d}")).is_ok());
        assert!(ImageRef::parse(&format!("registry:5000/team/app@sha256:{d}")).is_ok());
        assert!(matches!(ImageRef::parse("nginx:1.27"), Err(ImageError::Unpinned(_))));
        assert!(ImageRef::parse("nginx@sha256:abc").is_err());
        assert!(ImageRef::parse(&format!("nginx:@sha256:{d}")).is_err());
    }

    #[test]
    fn names() {
        assert!(is_valid_name("main-db"));
        assert!(!is_valid_name("a"));
        assert!(!is_valid_name("Main"));
        assert!(!is_valid_name("db-"));
        assert!(is_valid_product("acme-shop"));
        assert!(!is_valid_product("ab"));
        assert_eq!(variable_prefix("main-db"), "MAIN_DB");
    }
}
