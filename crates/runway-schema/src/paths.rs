//! Paths a runway file names (`catalogue:`, `members` globs) and the files runway reads as
//! runway files: what may be opened at all, and what may be quoted back.
//!
//! A runway file can come from a pull request, read by a CI job that holds secrets: a path it
//! names must not reach a file outside the root's folder, and a file that is not a runway file
//! must not be echoed into a log. The lexical half of the first rule lives here (pure); the
//! symbolic-link half belongs to whoever opens files (`Files::read`).

/// Why `path` (written in a runway file, relative to the root's folder) leaves that folder, or
/// `None` when it stays inside. Lexical: an absolute path, a drive or UNC prefix, or a `..`
/// that climbs above the folder. `\` counts as a separator, as Windows reads it.
pub fn outside_root(path: &str) -> Option<&'static str> {
    let p = path.trim();
    if p.starts_with('/') || p.starts_with('\\') {
        return Some("it is an absolute path");
    }
    let bytes = p.as_bytes();
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Some("it names a drive");
    }
    if p.starts_with('~') {
        return Some("it starts with `~`, which runway does not expand");
    }
    let mut depth: usize = 0;
    for part in p.split(['/', '\\']) {
        match part {
            // `**` may match no folder at all, so it never counts as one.
            "" | "." | "**" => {}
            ".." => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return Some("its `..` climbs above the root's folder"),
            },
            _ => depth += 1,
        }
    }
    None
}

/// Characters that are never text in a file runway reads (YAML's own rule: C0 controls but tab,
/// line feed and carriage return; DEL; C1 controls but NEL).
pub(crate) fn is_forbidden(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{85}')) || c == '\u{7f}'
}

/// Could this byte start a control character? Every one is a byte below 0x20, DEL, or starts
/// with 0xC2 (the C1 controls): a byte scan rules out almost every text without decoding it.
pub(crate) fn may_start_control(b: u8) -> bool {
    b < 0x20 || b == 0x7f || b == 0xc2
}

/// Does `text` hold nothing but blank lines and comments?
pub fn only_comments(text: &str) -> bool {
    text.lines().all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
}

/// The first forbidden character of `text` with its 1-based line and column.
pub fn first_control(text: &str) -> Option<(char, u32, u32)> {
    let start = first_suspect(text.as_bytes())?;
    let (offset, c) =
        text[start..].char_indices().map(|(i, c)| (start + i, c)).find(|(_, c)| is_forbidden(*c))?;
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before[before.rfind('\n').map_or(0, |i| i + 1)..].chars().count() + 1;
    Some((c, to_u32(line), to_u32(column)))
}

/// The first byte that may start a forbidden character (see [`may_start_control`]; tab, line
/// feed and carriage return are text). Every file read is scanned whole before it is parsed, so
/// the scan goes eight bytes at a time: a word with no byte below 0x20, no DEL and no 0xC2 is
/// passed in a few instructions, and only a word that has one (most often a line feed) is
/// looked at byte by byte (sixth pass).
fn first_suspect(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let suspect = |b: &u8| may_start_control(*b) && !matches!(b, b'\t' | b'\n' | b'\r');
    // Non-zero exactly when some byte of `w` is below `n` (n <= 0x80), or is zero.
    let below = |w: u64, n: u64| w.wrapping_sub(n * ONES) & !w & HIGHS;
    let mut words = bytes.chunks_exact(8);
    for (i, chunk) in words.by_ref().enumerate() {
        let Ok(word) = <[u8; 8]>::try_from(chunk) else { break };
        let w = u64::from_le_bytes(word);
        if below(w, 0x20) | below(w ^ (0x7f * ONES), 1) | below(w ^ (0xc2 * ONES), 1) != 0
            && let Some(j) = chunk.iter().position(suspect)
        {
            return Some(i * 8 + j);
        }
    }
    let rest = words.remainder();
    rest.iter().position(suspect).map(|j| bytes.len() - rest.len() + j)
}

/// Does `text` declare itself a file of a format whose top-level keys include one of `keys`,
/// written at the start of a line (bare or quoted, then `:`)? A file runway did not write and
/// that does not declare itself (an environment dump, a key file, `.git/config`) is refused
/// without quoting any of it; a file that only holds comments and blank lines declares nothing
/// and quotes nothing either.
pub fn declares(text: &str, keys: &[&str]) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines().any(|line| {
        keys.iter().any(|key| {
            let rest = line
                .strip_prefix(key)
                .or_else(|| line.strip_prefix('"').and_then(|l| l.strip_prefix(key)?.strip_prefix('"')))
                .or_else(|| line.strip_prefix('\'').and_then(|l| l.strip_prefix(key)?.strip_prefix('\'')));
            rest.is_some_and(|r| r.trim_start_matches([' ', '\t']).starts_with(':'))
        })
    })
}

/// `text` with every control character written as an escape (`\u{1b}`): diagnostics quote
/// values, and a value may hold a YAML escape that a terminal or CI log would act on.
pub fn printable(text: String) -> String {
    if !text.chars().any(char::is_control) {
        return text;
    }
    text.chars()
        .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
        .collect()
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_leave_the_root_are_named_and_others_pass() {
        for inside in
            ["prices.yaml", "./a/b.yaml", "a/../b.yaml", "services/*", "a/./../b/**", "x..y/z", ".hidden"]
        {
            assert_eq!(outside_root(inside), None, "{inside}");
        }
        for outside in [
            "**/../*",
            "/proc/self/environ",
            "../../etc/passwd",
            "a/../../b",
            "..",
            "\\\\server\\share",
            "C:/x",
            "c:x",
            "..\\x",
            "~/prices.yaml",
            " /etc/hostname",
        ] {
            assert!(outside_root(outside).is_some(), "{outside}");
        }
    }

    #[test]
    fn only_a_file_that_says_what_it_is_declares_it() {
        assert!(declares("# c\nrunway: 3\n", &["runway"]));
        assert!(declares("\u{feff}runway : 3", &["runway"]));
        assert!(declares("\"runway\": 3", &["runway"]));
        assert!(declares("sizes:\n", &["regions", "sizes"]));
        for not in [
            "",
            "# only a comment\n",
            "runways: 3",
            "  runway: 3",
            "RUNWAY=3",
            "[runway: 3]",
            "HOME=/root\0runway=1",
        ] {
            assert!(!declares(not, &["runway"]), "{not:?}");
        }
    }

    #[test]
    fn control_characters_are_found_and_escaped() {
        assert_eq!(first_control("a: 1\nb: \u{1b}[31m"), Some(('\u{1b}', 2, 4)));
        assert_eq!(first_control("A=1\0B=2"), Some(('\0', 1, 4)));
        assert_eq!(first_control("tab\there\r\nnel\u{85}"), None);
        assert_eq!(printable("x\u{1b}[2Jy\0".to_owned()), "x\\u{1b}[2Jy\\u{0}");
        assert_eq!(printable("plain `x` é".to_owned()), "plain `x` é");
    }

    /// The word-at-a-time scan finds the byte the plain scan finds, wherever it is: every
    /// byte value, at every place of a word and of the tail, behind text with line feeds.
    #[test]
    fn the_word_scan_finds_what_the_byte_scan_finds() {
        let plain = |bytes: &[u8]| {
            bytes.iter().position(|b| super::may_start_control(*b) && !matches!(b, b'\t' | b'\n' | b'\r'))
        };
        let base = b"key: value\n  other: \"quoted\"\r\n\tx\n".repeat(3);
        for len in [0, 1, 7, 8, 9, 15, 16, 17, base.len()] {
            let text = &base[..len];
            assert_eq!(super::first_suspect(text), plain(text), "{len}");
            for at in 0..len {
                for b in 0..=255u8 {
                    let mut t = text.to_vec();
                    t[at] = b;
                    assert_eq!(super::first_suspect(&t), plain(&t), "byte {b:#x} at {at} of {len}");
                }
            }
        }
    }
}
