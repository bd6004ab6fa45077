//! What a `members` glob matches: the one glob engine of every reader.
//!
//! A [`Files`] only lists folders; this module decides which of them a glob matches, so the
//! files on disk, a git revision, the editor's overlay and `MemFiles` all
//! give a glob the meaning docs/runway-reference.md promises: `*`, `?` and `[...]` (`[!...]`
//! negated, `a-z` ranges) match within one folder name, and `**`, a whole segment, spans any
//! number of folders (none included). A symbolic link is matched by its name but never walked
//! through. A glob that does not parse (an unclosed `[`, a `**` beside other characters)
//! matches nothing.

use crate::{Files, MAX_MEMBERS};

/// A folder a [`Files`] lists.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Folder {
    /// Its name (one path segment).
    pub name: String,
    /// It is a symbolic link (to a folder, or to what a reader cannot tell): matched by its
    /// name, never walked through.
    pub link: bool,
}

impl Folder {
    /// A folder that is not a link.
    pub fn plain(name: impl Into<String>) -> Self {
        Self { name: name.into(), link: false }
    }
}

/// One segment of a glob.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    /// `**`: any number of folders.
    AnyDepth,
    /// `..`: the folder above (never above the root's folder).
    Up,
    /// A folder name's pattern.
    Name(Vec<Token>),
}

/// One character's pattern within a segment.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    /// `*`: any run of characters.
    Star,
    /// `?`: any one character.
    One,
    /// `[...]`: one character of the ranges (`!` first: none of them).
    Class { negated: bool, ranges: Vec<(char, char)> },
    /// Itself.
    Char(char),
}

/// A parsed `members` glob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Glob {
    segments: Vec<Segment>,
}

impl Glob {
    /// Parses a glob (relative to the root's folder; `.` segments and a trailing `/` are
    /// ignored); `None` when it does not parse.
    pub fn new(pattern: &str) -> Option<Self> {
        let segments = pattern
            .split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .map(|s| match s {
                "**" => Some(Segment::AnyDepth),
                ".." => Some(Segment::Up),
                _ if s.contains("**") => None,
                _ => tokens(s).map(Segment::Name),
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Self { segments })
    }

    /// Does the glob match `folder` (relative to the root's folder, `/`-separated)? Used where a
    /// folder is known and its siblings are not (the editor asking whether a file is a member).
    pub fn matches(&self, folder: &str) -> bool {
        let names: Vec<&str> = folder.split('/').filter(|s| !s.is_empty() && *s != ".").collect();
        !names.is_empty() && matches_from(&self.segments, &names)
    }
}

/// The folders `pattern` matches among those `files` lists, relative to the root's folder,
/// sorted, each once; it stops past [`MAX_MEMBERS`] (the loader reports that).
pub fn member_folders(files: &dyn Files, pattern: &str) -> Vec<String> {
    let Some(glob) = Glob::new(pattern) else { return Vec::new() };
    let mut out = Vec::new();
    walk(files, "", &glob.segments, &mut out);
    out.sort();
    out.dedup();
    out
}

fn join(rel: &str, name: &str) -> String {
    if rel.is_empty() { name.to_owned() } else { format!("{rel}/{name}") }
}

fn walk(files: &dyn Files, rel: &str, segments: &[Segment], out: &mut Vec<String>) {
    let Some((first, rest)) = segments.split_first() else {
        if !rel.is_empty() {
            out.push(rel.to_owned());
        }
        return;
    };
    if out.len() > MAX_MEMBERS {
        return;
    }
    match first {
        Segment::AnyDepth => {
            walk(files, rel, rest, out);
            for f in files.folders(rel) {
                if !f.link {
                    walk(files, &join(rel, &f.name), segments, out);
                }
            }
        }
        Segment::Up => {
            // Back to the folder above, never above the root's folder (the loader has already
            // refused such a glob; this holds whoever calls).
            let up = match rel.rsplit_once('/') {
                Some((up, _)) => up,
                None if !rel.is_empty() => "",
                None => return,
            };
            walk(files, up, rest, out);
        }
        Segment::Name(tokens) => {
            for f in files.folders(rel) {
                if segment_matches(tokens, &f.name) && (rest.is_empty() || !f.link) {
                    walk(files, &join(rel, &f.name), rest, out);
                }
            }
        }
    }
}

fn matches_from(segments: &[Segment], names: &[&str]) -> bool {
    match segments.split_first() {
        None => names.is_empty(),
        Some((Segment::AnyDepth, rest)) => (0..=names.len()).any(|skip| matches_from(rest, &names[skip..])),
        // A known folder has no `..` in it: a glob climbing back down is matched by the walk only.
        Some((Segment::Up, _)) => false,
        Some((Segment::Name(tokens), rest)) => {
            names.first().is_some_and(|n| segment_matches(tokens, n)) && matches_from(rest, &names[1..])
        }
    }
}

fn tokens(segment: &str) -> Option<Vec<Token>> {
    let mut out = Vec::new();
    let mut chars = segment.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(match c {
            '*' => Token::Star,
            '?' => Token::One,
            '[' => {
                let negated = chars.next_if_eq(&'!').is_some();
                let mut ranges = Vec::new();
                // A `]` first is itself; the class ends at the next one.
                let mut first = true;
                loop {
                    let c = chars.next()?;
                    if c == ']' && !first {
                        break;
                    }
                    first = false;
                    let end = if chars.peek() == Some(&'-') {
                        let mut ahead = chars.clone();
                        ahead.next();
                        match ahead.peek() {
                            Some(&e) if e != ']' => {
                                chars.next();
                                chars.next();
                                e
                            }
                            _ => c,
                        }
                    } else {
                        c
                    };
                    ranges.push((c, end));
                }
                Token::Class { negated, ranges }
            }
            c => Token::Char(c),
        });
    }
    Some(out)
}

fn token_matches(t: &Token, c: char) -> bool {
    match t {
        Token::Star => true,
        Token::One => true,
        Token::Class { negated, ranges } => ranges.iter().any(|(a, b)| (*a..=*b).contains(&c)) != *negated,
        Token::Char(x) => *x == c,
    }
}

/// One segment, without recursion: a pattern of many `*` (the root file's text chooses it)
/// must neither overflow the stack nor backtrack exponentially. On a mismatch only the last
/// `*` is retried, one character further: O(pattern x name) at worst.
fn segment_matches(p: &[Token], name: &str) -> bool {
    let x: Vec<char> = name.chars().collect();
    let (mut pi, mut xi) = (0, 0);
    // (pattern index after the last `*`, name index that `*` has consumed up to)
    let mut star: Option<(usize, usize)> = None;
    while xi < x.len() {
        match p.get(pi) {
            Some(Token::Star) => {
                pi += 1;
                star = Some((pi, xi));
            }
            Some(t) if token_matches(t, x[xi]) => (pi, xi) = (pi + 1, xi + 1),
            _ => match star {
                Some((sp, sx)) => {
                    star = Some((sp, sx + 1));
                    (pi, xi) = (sp, sx + 1);
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|t| *t == Token::Star)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, folder: &str) -> bool {
        Glob::new(pattern).is_some_and(|g| g.matches(folder))
    }

    #[test]
    fn a_glob_of_many_stars_neither_overflows_nor_backtracks_forever() {
        let one_star_runs = "*a".repeat(40);
        assert!(!matches(&format!("{one_star_runs}b"), &"a".repeat(60)));
        let tokens = vec![Token::Star; 200_000];
        assert!(segment_matches(&tokens, "m"));
        let mut tail = tokens.clone();
        tail.push(Token::Char('x'));
        assert!(!segment_matches(&tail, "m"));
    }

    #[test]
    fn a_glob_keeps_its_meaning() {
        for (p, x, want) in [
            ("services/*", "services/orders", true),
            ("services/*", "services", false),
            ("services/*", "services/orders/x", false),
            ("services/*/", "services/orders", true),
            ("./services/*", "services/orders", true),
            ("s*/o?ders", "services/orders", true),
            ("*", ".hidden", true),
            ("?", "ab", false),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyy", false),
            ("*x", "abx", true),
            ("*.yaml", "a.yaml.bak", false),
            ("services/[ab]*", "services/api", true),
            ("services/[ab]*", "services/cart", false),
            ("services/[!ab]*", "services/cart", true),
            ("services/[a-c]?", "services/b1", true),
            ("services/[a-c]?", "services/d1", false),
            ("x/[]a]", "x/]", true),
            ("x/[a-]", "x/-", true),
            ("**/runway-*", "runway-a", true),
            ("**/runway-*", "deep/down/runway-a", true),
            ("services/**", "services/a/b", true),
            ("services/**", "services", true),
            ("a/**/b", "a/b", true),
            ("a/**/b", "a/x/y/b", true),
            ("a/**/b", "a/x/y/c", false),
            // What does not parse matches nothing, as the glob crate the CLI used refused it.
            ("a**", "a", false),
            ("[ab", "a", false),
        ] {
            assert_eq!(matches(p, x), want, "{p} ~ {x}");
        }
    }
}
