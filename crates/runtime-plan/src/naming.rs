//! Physical names: `<product>-<env>-<name>`, cut to the AWS limit of each item kind with a
//! stable 6-hex-digit hash suffix.
//!
//! The hash is 32-bit FNV-1a of the full (uncut) name, masked to 24 bits: stable across runs,
//! platforms and Rust versions (never std's `DefaultHasher`).

use compact_str::{CompactString, format_compact};

use crate::plan::ItemKind;

/// 32-bit FNV-1a of `bytes`.
pub fn fnv1a32(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for b in bytes {
        hash ^= u32::from(*b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// The 6-hex-digit suffix of a name: the low 24 bits of its FNV-1a hash.
pub fn hash6(name: &str) -> String {
    format!("{:06x}", fnv1a32(name.as_bytes()) & 0x00ff_ffff)
}

/// The AWS length limit of an item kind's name, including any `.fifo` suffix; `None` for
/// items AWS names itself (their physical name is a qualified address, not an AWS name).
pub fn limit(kind: ItemKind) -> Option<usize> {
    kind.name_limit()
}

/// `name` cut to `limit` characters: unchanged when it fits; otherwise its head (trailing
/// hyphens trimmed) followed by `-` and the hash of the whole name.
pub fn fit(name: &str, limit: usize) -> CompactString {
    if name.len() <= limit {
        return name.into();
    }
    let keep = limit.saturating_sub(7);
    let head: CompactString = name.chars().take(keep).collect();
    format_compact!("{}-{}", head.trim_end_matches('-'), hash6(name))
}

/// `name` + `suffix` (such as `.fifo`) within `limit`: the name is cut to leave room for it.
pub fn fit_with_suffix(name: &str, suffix: &str, limit: usize) -> CompactString {
    let mut out = fit(name, limit.saturating_sub(suffix.len()));
    out.push_str(suffix);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_reference_vectors() {
        // Reference values of 32-bit FNV-1a.
        assert_eq!(fnv1a32(b""), 0x811c_9dc5);
        assert_eq!(fnv1a32(b"a"), 0xe40c_292c);
        assert_eq!(fnv1a32(b"foobar"), 0xbf9c_f968);
    }

    #[test]
    fn short_names_are_kept_and_long_ones_cut_with_a_hash() {
        assert_eq!(fit("acme-dev-web", 32), "acme-dev-web");
        let long = "acme-shop-production-metabase-public";
        let cut = fit(long, 32);
        assert_eq!(cut.len(), 32);
        assert!(cut.starts_with("acme-shop-production-mes") || cut.starts_with("acme-shop-production-met"));
        assert_eq!(&cut[26..], hash6(long));
        assert_ne!(fit("acme-shop-production-metabase-a", 20), fit("acme-shop-production-metabase-b", 20));
    }

    #[test]
    fn cut_never_leaves_a_double_hyphen_before_the_hash() {
        let cut = fit("abcdefghijklmnopqrstuvwx-yz-0123456789", 32);
        assert!(!cut.contains("--"), "{cut}");
        assert!(cut.len() <= 32);
    }

    #[test]
    fn suffix_fits_inside_the_limit() {
        let n = fit_with_suffix(&"q".repeat(100), ".fifo", 80);
        assert_eq!(n.len(), 80);
        assert!(n.ends_with(".fifo"));
    }
}
