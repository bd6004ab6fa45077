//! What one-off tasks share: the fingerprint of a command that a task's record holds
//! (`plan.tasks[].record.command`), which a runner also folds parameter versions into.

use compact_str::CompactString;
use sha2::{Digest, Sha256};

/// `sha256:<64 hex>` of the command as a JSON list of its words: the same words give the same
/// fingerprint, any change (a word, the order, a split) another.
pub fn fingerprint(command: &[CompactString]) -> CompactString {
    let json = serde_json::to_string(command).unwrap_or_default();
    let digest = Sha256::digest(json.as_bytes());
    let mut out = CompactString::from("sha256:");
    for byte in digest {
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    out
}

const HEX: &[u8; 16] = b"0123456789abcdef";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_follows_every_word_and_split() {
        let f =
            |words: &[&str]| fingerprint(&words.iter().map(|w| CompactString::from(*w)).collect::<Vec<_>>());
        let one = f(&["./manage", "migrate"]);
        assert!(one.starts_with("sha256:") && one.len() == 71, "{one}");
        assert_eq!(one, f(&["./manage", "migrate"]));
        assert_ne!(one, f(&["./manage migrate"]));
        assert_ne!(one, f(&["migrate", "./manage"]));
        // sha256 of `["a"]`, as `printf '["a"]' | sha256sum` gives it.
        assert_eq!(f(&["a"]), "sha256:0eb5b8d6f81bc677da8a08567cc4fa9a06a57e9ec8da85ed73a7f62727996002");
    }
}
