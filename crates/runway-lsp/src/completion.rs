//! Completion: keys of the mapping the cursor is in, and the values the format allows where it
//! is (resource names in `uses`, kinds, engines, sizes, environment names in size maps).
//!
//! A file being typed is often not valid YAML, so where the cursor is comes from the text:
//! the keys of the less-indented lines above it, and the key (and flow brackets) before it on
//! its own line.

use runway_schema::syntax::{self, Place};

use crate::position::SourceText;

/// Where the cursor is in the format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Context {
    /// Keys from the top down to the mapping or sequence the cursor is in.
    pub path: Vec<String>,
    /// The key whose value the cursor is at; `None` at a key (or a sequence item).
    pub key: Option<String>,
    /// Is the cursor at an item of the sequence `path` ends with?
    pub item: bool,
}

/// What is worth completing, from the root's text and the catalogue.
#[derive(Clone, Debug, Default)]
pub struct Words {
    /// Resource names of the root.
    pub resources: Vec<String>,
    /// Environment names of the root.
    pub environments: Vec<String>,
    /// The catalogue's sizes.
    pub sizes: Vec<String>,
    /// The catalogue's regions.
    pub regions: Vec<String>,
}

/// A word to offer, and whether it is a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The word.
    pub label: String,
    /// A key (inserted with `: `) rather than a value.
    pub is_key: bool,
    /// What it is, shown beside it.
    pub detail: &'static str,
}

/// The indentation and content of a line (a leading `- ` counts as indentation).
fn split_indent(line: &str) -> (usize, &str) {
    let content = line.trim_start_matches(' ');
    (line.len() - content.len(), content)
}

/// The key of a `key:` line whose value is on the next lines, else `None`.
fn opening_key(content: &str) -> Option<&str> {
    let content = content.strip_prefix("- ").unwrap_or(content);
    let content = content.split(" #").next().unwrap_or(content).trim_end();
    let key = content.strip_suffix(':')?;
    (!key.is_empty() && !key.contains(": ")).then(|| key.trim_matches(['"', '\'']))
}

/// The keys of the block mappings the line at `line` is inside, from the top.
fn ancestors(text: &SourceText, line: usize, indent: usize) -> Vec<String> {
    let mut path = Vec::new();
    let mut indent = indent;
    for l in (0..line).rev() {
        if indent == 0 {
            break;
        }
        let Some(range) = text.line_range(l) else { continue };
        let (i, content) = split_indent(&text.as_str()[range]);
        if content.is_empty() || content.starts_with('#') || i >= indent {
            continue;
        }
        let Some(key) = opening_key(content) else {
            // A less-indented line that opens nothing: the cursor is not under a key.
            break;
        };
        path.push(key.to_owned());
        indent = i;
    }
    path.reverse();
    path
}

/// Reads the flow collections open before the cursor on its line (`size: { dev: sm`,
/// `uses: [main-db, ev`): the keys they add to the path, and whether the cursor is at a value.
fn flow(path: &mut Vec<String>, key: &str, after: &str) -> Context {
    // Each open bracket and, for a mapping, the key of the entry being written.
    let mut stack: Vec<(char, Option<String>)> = Vec::new();
    let mut word = String::new();
    let mut quoted: Option<char> = None;
    for c in after.chars() {
        if let Some(q) = quoted {
            if c == q {
                quoted = None;
            }
            word.push(c);
            continue;
        }
        match c {
            '[' | '{' => {
                stack.push((c, None));
                word.clear();
            }
            ']' | '}' => {
                stack.pop();
                word.clear();
            }
            ',' => {
                if let Some(top) = stack.last_mut() {
                    top.1 = None;
                }
                word.clear();
            }
            ':' => {
                if let Some(top) = stack.last_mut() {
                    top.1 = Some(word.trim().trim_matches(['"', '\'']).to_owned());
                }
                word.clear();
            }
            '"' | '\'' => {
                quoted = Some(c);
                word.push(c);
            }
            _ => word.push(c),
        }
    }
    let Some(top) = stack.last().cloned() else {
        return Context { path: path.clone(), key: Some(key.to_owned()), item: false };
    };
    path.push(key.to_owned());
    // Every enclosing flow mapping's current key is a step down.
    for (bracket, k) in &stack[..stack.len() - 1] {
        match (bracket, k) {
            ('{', Some(k)) => path.push(k.clone()),
            ('[', _) => path.push("[]".to_owned()),
            _ => {}
        }
    }
    match top {
        ('[', _) => Context { path: path.clone(), key: None, item: true },
        (_, Some(k)) => Context { path: path.clone(), key: Some(k), item: false },
        (_, None) => Context { path: path.clone(), key: None, item: false },
    }
}

/// Where the cursor at `offset` is.
pub fn context(text: &SourceText, offset: usize) -> Context {
    let position = text.position(offset);
    let line = position.line as usize;
    let start = text.line_range(line).map_or(offset, |r| r.start);
    let before = &text.as_str()[start..offset.max(start)];
    let (indent, content) = split_indent(before);
    let mut path = ancestors(text, line, indent);
    if let Some(rest) = content.strip_prefix("- ").or_else(|| (content == "-").then_some("")) {
        // An item of the sequence the parent key opens, unless it is `- key: ...`.
        match rest.split_once(':') {
            None => return Context { path, key: None, item: true },
            Some((k, after)) => return flow(&mut path, k.trim(), after),
        }
    }
    match content.split_once(':') {
        Some((k, after)) if !k.contains(['[', '{', '"', '\'']) => flow(&mut path, k.trim(), after),
        _ => Context { path, key: None, item: false },
    }
}

/// The word being typed at the end of `before` (the text of the cursor's line before it): its
/// length in bytes, and whether what is inserted there needs a space first (the word is empty
/// and follows `:` or `-`, where YAML needs one: `kind:postgres` is a single scalar, and a
/// `-` without a space is no sequence item). A `-` is part of the word only after a word
/// character (`main-`), so the item's own dash is never replaced.
pub fn word_before(before: &str) -> (usize, bool) {
    let mut start = before.len();
    for (i, c) in before.char_indices().rev() {
        let inner = c == '-' && before[..i].chars().next_back().is_some_and(is_word_char);
        if is_word_char(c) || inner {
            start = i;
        } else {
            break;
        }
    }
    let word = before.len() - start;
    let space = word == 0 && before.ends_with([':', '-']);
    (word, space)
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn values(words: &[String], detail: &'static str) -> Vec<Candidate> {
    words.iter().map(|w| Candidate { label: w.clone(), is_key: false, detail }).collect()
}

fn fixed(words: &[&str], detail: &'static str) -> Vec<Candidate> {
    words.iter().map(|w| Candidate { label: (*w).to_owned(), is_key: false, detail }).collect()
}

fn keys(place: Place) -> Vec<Candidate> {
    syntax::fields(place)
        .into_iter()
        .map(|k| Candidate { label: k.to_owned(), is_key: true, detail: "key" })
        .collect()
}

/// The candidates at a context. `kind` is the kind of the resource the cursor is in, when
/// it is in one and its kind is written.
pub fn candidates(cx: &Context, root_file: bool, words: &Words, kind: Option<&str>) -> Vec<Candidate> {
    let p: Vec<&str> = cx.path.iter().map(String::as_str).collect();
    let kind = kind.and_then(|k| syntax::kinds().iter().find(|x| **x == k).copied());
    if !root_file {
        return match (p.as_slice(), cx.key.as_deref(), cx.item) {
            (["uses"], None, true) => values(&words.resources, "resource"),
            (["requires"], None, true) => fixed(syntax::engines(), "engine"),
            ([], Some("runtime"), _) => fixed(syntax::RUNTIMES, "runtime"),
            ([], None, false) => keys(Place::Member),
            _ => Vec::new(),
        };
    }
    if let Some(key) = cx.key.as_deref() {
        return match (p.as_slice(), key) {
            (["resources", _], "kind") => fixed(syntax::kinds(), "kind"),
            (["resources", _], "engine") => fixed(syntax::POSTGRES_ENGINES, "postgres engine"),
            (["resources" | "workloads", _, "size"], _) => values(&words.sizes, "size"),
            (["environments", _, "shared"], _) => values(&words.sizes, "size"),
            (["environments", _], "region") => values(&words.regions, "region"),
            (["environments", _], "applyChanges") => fixed(syntax::APPLY_CHANGES, "applyChanges"),
            (["environments", _, "network"], "endpoints") => fixed(syntax::ENDPOINTS, "endpoints"),
            (["workloads", _], "expose") => fixed(syntax::EXPOSES, "expose"),
            (["workloads", _], "platform") => fixed(syntax::PLATFORMS, "platform"),
            // `uses: [{ uploads: | }]`: the access mode.
            (["workloads", _, "uses", "[]"], _) => fixed(&runway_schema::Access::NAMES, "access mode"),
            (["workloads", _, "reason"], "ground") => fixed(syntax::grounds(), "ground"),
            (["previews"], "from") => values(&words.environments, "environment"),
            (["previews", "workloads"], _) => fixed(syntax::PREVIEW_WORKLOAD, "previews run it"),
            _ => Vec::new(),
        };
    }
    if cx.item {
        return match p.as_slice() {
            ["workloads", _, "uses"] => values(&words.resources, "resource"),
            _ => Vec::new(),
        };
    }
    match p.as_slice() {
        [] => keys(Place::Root),
        ["secrets"] => keys(Place::Secrets),
        ["secrets", "infisical"] => keys(Place::Infisical),
        ["secrets", "ssm"] => keys(Place::Ssm),
        ["environments", _] => keys(Place::Environment),
        ["environments", _, "limits"] => keys(Place::Limits),
        ["environments", _, "logs"] => keys(Place::Logs),
        ["environments", _, "network"] => keys(Place::Network),
        ["environments", _, "bootstrap"] => keys(Place::Bootstrap),
        ["environments", _, "usage"] => keys(Place::Usage),
        ["environments", _, "usage", "for", _] => keys(Place::UsageFor),
        ["environments", _, "alarms"] => keys(Place::Alarms),
        ["environments", _, "alarms", "for", _] => keys(Place::AlarmsFor),
        ["environments", _, "alerts"] => keys(Place::Alerts),
        ["environments", _, "shared"] => keys(Place::Shared),
        ["resources", _] => keys(Place::Resource(kind)),
        ["resources", _, "deadLetter"] => keys(Place::DeadLetter),
        ["resources", _, "versioning"] => keys(Place::Versioning),
        ["resources", _, "restore"] => keys(Place::Restore),
        ["resources" | "workloads", _, "size"] | ["workloads", _, "scale" | "deploy"] => {
            values(&words.environments, "environment")
                .into_iter()
                .map(|c| Candidate { is_key: true, ..c })
                .collect()
        }
        ["workloads", _] => keys(Place::Workload),
        ["workloads", _, "health"] => keys(Place::Health),
        ["workloads", _, "scale", _] => keys(Place::Scale),
        ["workloads", _, "deploy", _] => keys(Place::Deploy),
        ["workloads", _, "scale", _, "on"] => keys(Place::ScaleOn),
        ["workloads", _, "scale", _, "active"] => keys(Place::Active),
        ["workloads", _, "schedules", _] => keys(Place::Schedule),
        ["workloads", _, "reason"] => keys(Place::Reason),
        ["workloads", _, "migrate"] => keys(Place::Migrate),
        ["previews"] => keys(Place::Previews),
        ["previews", "limits"] => keys(Place::PreviewLimits),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The context at the `|` of `marked`.
    fn cx(marked: &str) -> Context {
        let offset = marked.find('|').unwrap();
        let text = marked.replacen('|', "", 1);
        context(&SourceText::new(text), offset)
    }

    fn strings(path: &[&str]) -> Vec<String> {
        path.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn block_keys_and_values() {
        let doc = "runway: 3\nresources:\n  main-db:\n    kind: |\n";
        assert_eq!(
            cx(doc),
            Context { path: strings(&["resources", "main-db"]), key: Some("kind".into()), item: false }
        );
        let doc = "resources:\n  main-db:\n    kind: postgres\n    |\n";
        assert_eq!(cx(doc), Context { path: strings(&["resources", "main-db"]), key: None, item: false });
        let doc = "workloads:\n  api:\n    uses:\n      - |\n";
        assert_eq!(cx(doc), Context { path: strings(&["workloads", "api", "uses"]), key: None, item: true });
        assert_eq!(cx("|"), Context { path: vec![], key: None, item: false });
    }

    #[test]
    fn flow_collections_on_the_line() {
        let doc = "resources:\n  main-db:\n    size: { staging: me|";
        assert_eq!(
            cx(doc),
            Context {
                path: strings(&["resources", "main-db", "size"]),
                key: Some("staging".into()),
                item: false
            }
        );
        let doc = "resources:\n  main-db:\n    size: { staging: medium, |";
        assert_eq!(
            cx(doc),
            Context { path: strings(&["resources", "main-db", "size"]), key: None, item: false }
        );
        let doc = "workloads:\n  api:\n    uses: [main-db, |]";
        assert_eq!(cx(doc), Context { path: strings(&["workloads", "api", "uses"]), key: None, item: true });
        let doc = "workloads:\n  api:\n    scale: { dev: { m|";
        assert_eq!(
            cx(doc),
            Context { path: strings(&["workloads", "api", "scale", "dev"]), key: None, item: false }
        );
        assert_eq!(cx("uses: [ev|"), Context { path: strings(&["uses"]), key: None, item: true });
        let doc = "workloads:\n  api:\n    uses: [main-db, { uploads: r|";
        let at = cx(doc);
        assert_eq!(
            at,
            Context {
                path: strings(&["workloads", "api", "uses", "[]"]),
                key: Some("uploads".into()),
                item: false
            }
        );
        let words: Vec<String> =
            candidates(&at, true, &Words::default(), None).into_iter().map(|c| c.label).collect();
        assert_eq!(words, ["read", "write"]);
    }

    #[test]
    fn multibyte_text_before_the_cursor() {
        let doc = "# ünï — 𝄞\nresources:\n  jobs: { kind: q|";
        assert_eq!(
            cx(doc),
            Context { path: strings(&["resources", "jobs"]), key: Some("kind".into()), item: false }
        );
    }

    #[test]
    fn the_word_before_the_cursor_keeps_an_items_dash_and_asks_for_a_space() {
        assert_eq!(word_before("    kind:"), (0, true));
        assert_eq!(word_before("    kind: "), (0, false));
        assert_eq!(word_before("    kind: post"), (4, false));
        assert_eq!(word_before("      -"), (0, true));
        assert_eq!(word_before("      - "), (0, false));
        assert_eq!(word_before("      - main-"), (5, false));
        assert_eq!(word_before("      - main-d"), (6, false));
        assert_eq!(word_before("-"), (0, true));
        assert_eq!(word_before("    uses: [main-db,"), (0, false));
        assert_eq!(word_before("  é-ü"), (5, false));
        assert_eq!(word_before(""), (0, false));
    }

    #[test]
    fn candidates_follow_the_context() {
        let words = Words {
            resources: vec!["main-db".into()],
            environments: vec!["dev".into()],
            sizes: vec!["small".into()],
            regions: vec![],
        };
        let labels = |c: Vec<Candidate>| c.into_iter().map(|c| c.label).collect::<Vec<_>>();
        let kind = Context { path: strings(&["resources", "x"]), key: Some("kind".into()), item: false };
        assert!(labels(candidates(&kind, true, &words, None)).contains(&"postgres".to_owned()));
        let uses = Context { path: strings(&["uses"]), key: None, item: true };
        assert_eq!(labels(candidates(&uses, false, &words, None)), ["main-db"]);
        let size_keys = Context { path: strings(&["workloads", "w", "size"]), key: None, item: false };
        assert_eq!(labels(candidates(&size_keys, true, &words, None)), ["dev"]);
        let queue = Context { path: strings(&["resources", "q"]), key: None, item: false };
        assert!(labels(candidates(&queue, true, &words, Some("queue"))).contains(&"deadLetter".to_owned()));
        let versioning = Context { path: strings(&["resources", "b", "versioning"]), key: None, item: false };
        assert_eq!(labels(candidates(&versioning, true, &words, Some("bucket"))), ["keepDays"]);
        let restore = Context { path: strings(&["resources", "d", "restore"]), key: None, item: false };
        assert_eq!(labels(candidates(&restore, true, &words, Some("postgres"))), ["check"]);
        let apply = Context {
            path: strings(&["environments", "production"]),
            key: Some("applyChanges".into()),
            item: false,
        };
        assert_eq!(labels(candidates(&apply, true, &words, None)), ["immediately", "maintenance-window"]);
        let endpoints = Context {
            path: strings(&["environments", "dev", "network"]),
            key: Some("endpoints".into()),
            item: false,
        };
        assert_eq!(labels(candidates(&endpoints, true, &words, None)), ["true", "existing", "false"]);
        let bootstrap =
            Context { path: strings(&["environments", "dev", "bootstrap"]), key: None, item: false };
        assert_eq!(labels(candidates(&bootstrap, true, &words, None)), ["image"]);
        let platform =
            Context { path: strings(&["workloads", "w"]), key: Some("platform".into()), item: false };
        assert_eq!(labels(candidates(&platform, true, &words, None)), ["arm64", "x86_64"]);
        let workload = Context { path: strings(&["workloads", "w"]), key: None, item: false };
        let keys = labels(candidates(&workload, true, &words, None));
        assert!(keys.contains(&"registryCredentials".to_owned()) && keys.contains(&"platform".to_owned()));
        assert!(keys.contains(&"entryPoint".to_owned()), "{keys:?}");
        // A migrate takes its own entry point beside its command (issue 39).
        let migrate = Context { path: strings(&["workloads", "w", "migrate"]), key: None, item: false };
        assert_eq!(labels(candidates(&migrate, true, &words, None)), ["entryPoint", "command"]);
    }

    /// `alarms` completes its alarms' names (the schema's vocabulary) and `for`; one owner's
    /// alarms under `for`, and `alerts` its `https`.
    #[test]
    fn alarms_and_alerts_complete_the_alarm_vocabulary() {
        let labels = |path: &[&str]| {
            let at = Context { path: strings(path), key: None, item: false };
            candidates(&at, true, &Words::default(), None).into_iter().map(|c| c.label).collect::<Vec<_>>()
        };
        let alarms = labels(&["environments", "production", "alarms"]);
        assert_eq!(alarms.first().map(String::as_str), Some("enabled"));
        assert_eq!(alarms.last().map(String::as_str), Some("for"));
        for name in runway_schema::AlarmName::NAMES {
            assert!(alarms.iter().any(|a| a == name), "{name}");
        }
        let own = labels(&["environments", "production", "alarms", "for", "metabase"]);
        assert_eq!(own, runway_schema::AlarmName::NAMES);
        assert_eq!(labels(&["environments", "production", "alerts"]), ["https"]);
    }
}
