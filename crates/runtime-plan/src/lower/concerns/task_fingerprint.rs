//! What one-off tasks share: the fingerprint of what a task runs (its command, and its entry
//! point when the runway sets one) that a task's record holds (`plan.tasks[].record.command`),
//! which a runner also folds parameter versions into.

use compact_str::CompactString;
use sha2::{Digest, Sha256};

/// `sha256:<64 hex>` of the command as a JSON list of its words: the same words give the same
/// fingerprint, any change (a word, the order, a split) another.
pub fn fingerprint(command: &[CompactString]) -> CompactString {
    let json = serde_json::to_string(command).unwrap_or_default();
    sha256(json.as_bytes())
}

/// The fingerprints already taken, by the words they were taken of: a [`crate::Planner`]
/// planning several environments of one product fingerprints each database's bootstrap once,
/// not once per environment (its words do not depend on the environment; a sha256 was a tenth
/// of planning under callgrind). Only looked up, never iterated.
#[derive(Default)]
pub(crate) struct Fingerprints(
    indexmap::IndexMap<Vec<CompactString>, CompactString, foldhash::fast::FixedState>,
);

impl Fingerprints {
    /// The [`fingerprint`] of `words`, taken once.
    pub(crate) fn of(&mut self, words: Vec<CompactString>) -> CompactString {
        if let Some(known) = self.0.get(words.as_slice()) {
            return known.clone();
        }
        let taken = fingerprint(&words);
        self.0.insert(words, taken.clone());
        taken
    }
}

/// The fingerprint of what a one-off task runs: its command's [`fingerprint`] without an entry
/// point of the runway (a record written before `entryPoint` existed still matches), else
/// `sha256:` of `{"entryPoint": [...], "command": [...]}`, which no list of words gives.
pub fn run_fingerprint(entry_point: Option<&[CompactString]>, command: &[CompactString]) -> CompactString {
    match entry_point {
        None => fingerprint(command),
        Some(entry_point) => {
            // A struct, not a JSON map: its field order never depends on serde_json's features.
            #[derive(serde::Serialize)]
            #[serde(rename_all = "camelCase")]
            struct Run<'a> {
                entry_point: &'a [CompactString],
                command: &'a [CompactString],
            }
            let json = serde_json::to_string(&Run { entry_point, command }).unwrap_or_default();
            sha256(json.as_bytes())
        }
    }
}

/// `sha256:<64 hex>` of `bytes`.
fn sha256(bytes: &[u8]) -> CompactString {
    let digest = Sha256::digest(bytes);
    // Written into one buffer, then made text once: a push per digit cost about 120
    // instructions (fifth pass).
    const HEAD: &[u8] = b"sha256:";
    let mut out = [0u8; HEAD.len() + 64];
    out[..HEAD.len()].copy_from_slice(HEAD);
    for (pair, byte) in out[HEAD.len()..].chunks_exact_mut(2).zip(digest) {
        pair[0] = HEX[usize::from(byte >> 4)];
        pair[1] = HEX[usize::from(byte & 0x0f)];
    }
    // ASCII throughout.
    CompactString::from_utf8(out).unwrap_or_default()
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

    #[test]
    fn an_entry_point_changes_the_run_fingerprint_and_none_keeps_the_commands() {
        let w = |words: &[&str]| words.iter().map(|w| CompactString::from(*w)).collect::<Vec<_>>();
        let command = w(&["migrate up"]);
        assert_eq!(run_fingerprint(None, &command), fingerprint(&command));
        let with = run_fingerprint(Some(&w(&["/app/run.sh"])), &command);
        assert!(with.starts_with("sha256:") && with.len() == 71, "{with}");
        assert_ne!(with, fingerprint(&command));
        assert_ne!(with, run_fingerprint(Some(&w(&["/app/other.sh"])), &command));
        // The words moved from the command to the entry point run something else.
        assert_ne!(
            run_fingerprint(Some(&w(&["/app/run.sh"])), &w(&["up"])),
            run_fingerprint(Some(&w(&["/app/run.sh", "up"])), &w(&[]))
        );
        assert_ne!(with, fingerprint(&w(&["/app/run.sh", "migrate up"])));
    }
}
