//! Credential generation from the OS cryptographic random source, and each engine's rules.
//!
//! Alphabets are deliberately narrower than what the engines accept: the values are embedded in
//! connection URLs through Infisical secret references (`postgres://app:${MAIN_DB_PASSWORD}@…`),
//! which Infisical expands without percent-encoding, and `$`, `{` would themselves start a
//! reference. So only URL-unreserved characters are used (RFC 3986: `A-Z a-z 0-9 - . _ ~`),
//! and for Valkey the subset ElastiCache allows (alphanumerics and `-`).

use secrecy::SecretString;
use zeroize::Zeroizing;

use crate::error::{Error, RandomFailure};

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// Which engine a generated credential is for; decides its alphabet and length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum CredentialRule {
    /// RDS / Aurora PostgreSQL master password: 8 to 128 printable ASCII characters, without
    /// `/`, `'`, `"`, `@` or space. Generated: 40 characters of `A-Za-z0-9-._~` (≈ 246 bits).
    PostgresPassword,
    /// ElastiCache Valkey AUTH token: 16 to 128 printable ASCII characters; the only
    /// non-alphanumerics allowed are `! & # $ ^ < > -`. Generated: 64 characters of
    /// `A-Za-z0-9-` (≈ 382 bits).
    ValkeyAuthToken,
}

/// Why a value breaks an engine's rule (never contains the value).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RuleViolation {
    /// Too short or too long.
    #[error("length {len} outside {min}..={max}")]
    Length {
        /// Actual length.
        len: usize,
        /// Minimum accepted.
        min: usize,
        /// Maximum accepted.
        max: usize,
    },
    /// A character the engine refuses, at this index (the character itself is not shown).
    #[error("character at index {index} is not accepted by the engine")]
    Character {
        /// Zero-based index of the first offending character.
        index: usize,
    },
}

impl CredentialRule {
    /// Length of a generated value.
    pub fn length(self) -> usize {
        match self {
            CredentialRule::PostgresPassword => 40,
            CredentialRule::ValkeyAuthToken => 64,
        }
    }

    /// Characters a generated value is drawn from (uniformly).
    pub fn alphabet(self) -> Vec<u8> {
        let mut alphabet = ALNUM.to_vec();
        match self {
            CredentialRule::PostgresPassword => alphabet.extend_from_slice(b"-._~"),
            CredentialRule::ValkeyAuthToken => alphabet.push(b'-'),
        }
        alphabet
    }

    /// Checks a value against the engine's own rule (wider than the generation alphabet).
    pub fn check(self, value: &str) -> Result<(), RuleViolation> {
        let (min, max) = match self {
            CredentialRule::PostgresPassword => (8, 128),
            CredentialRule::ValkeyAuthToken => (16, 128),
        };
        let len = value.chars().count();
        if !(min..=max).contains(&len) {
            return Err(RuleViolation::Length { len, min, max });
        }
        let accepted = |c: char| match self {
            CredentialRule::PostgresPassword => c.is_ascii_graphic() && !matches!(c, '/' | '\'' | '"' | '@'),
            CredentialRule::ValkeyAuthToken => {
                c.is_ascii_alphanumeric() || matches!(c, '!' | '&' | '#' | '$' | '^' | '<' | '>' | '-')
            }
        };
        match value.chars().position(|c| !accepted(c)) {
            Some(index) => Err(RuleViolation::Character { index }),
            None => Ok(()),
        }
    }

    /// Generates a fresh value from the OS cryptographic random source (`getrandom`), uniform
    /// over [`CredentialRule::alphabet`] by rejection sampling. Intermediate buffers are zeroized.
    pub fn generate(self) -> Result<SecretString, Error> {
        let alphabet = self.alphabet();
        let len = self.length();
        // Largest multiple of the alphabet size that fits in a byte: bytes at or above it are
        // rejected so that every character is equally likely.
        let limit = 256 - (256 % alphabet.len());
        let mut out = Zeroizing::new(String::with_capacity(len));
        let mut pool = Zeroizing::new([0u8; 64]);
        while out.len() < len {
            getrandom::fill(&mut pool[..]).map_err(|e| Error::Random { source: RandomFailure(e) })?;
            for &byte in pool.iter() {
                if out.len() == len {
                    break;
                }
                if usize::from(byte) < limit {
                    out.push(char::from(alphabet[usize::from(byte) % alphabet.len()]));
                }
            }
        }
        Ok(SecretString::from(out.as_str()))
    }
}
