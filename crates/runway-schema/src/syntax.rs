//! A read-only view of a runway file as written: every key and value with its byte span, and
//! the words the format allows where. For editors and other tools that point at text (the
//! language server, `runway lsp`); validation itself reads the same tree through `validate`.
//!
//! ```
//! use runway_schema::syntax;
//! let text = "resources:\n  main-db: { kind: postgres }\n";
//! let tree = syntax::parse("runway.yaml", text).unwrap();
//! let (key, value) = tree.root().get_entry("resources").unwrap().1.entries().next().unwrap();
//! assert_eq!(key.as_str(), Some("main-db"));
//! assert_eq!(&text[key.span()], "main-db");
//! assert_eq!(value.get("kind").and_then(|k| k.as_str()), Some("postgres"));
//! ```

use std::ops::Range;

use crate::diagnostic::Diagnostic;
use crate::model::Kind;
use crate::tree::{Node, Value};
use crate::validate;

/// A parsed file: its spanned tree, under the same bounds as the loader.
#[derive(Clone, Debug)]
pub struct Tree {
    root: Node,
}

/// Parses one file's text as the loader does, or gives the one diagnostic that stops reading
/// it (`yaml-syntax`, located in `file`).
pub fn parse(file: &str, text: &str) -> Result<Tree, Diagnostic> {
    crate::parse::parse(file, text.as_bytes()).map(|root| Tree { root })
}

impl Tree {
    /// The document's top node (a mapping in any file worth reading).
    pub fn root(&self) -> SyntaxNode<'_> {
        SyntaxNode(&self.root)
    }
}

/// One key or value of a [`Tree`].
#[derive(Clone, Copy, Debug)]
pub struct SyntaxNode<'t>(&'t Node);

impl<'t> SyntaxNode<'t> {
    /// The byte range of the node in the text. A scalar's range covers it as written (quotes
    /// included); a collection's may be as short as its first character.
    pub fn span(self) -> Range<usize> {
        let start = self.0.offset as usize;
        start..start + self.0.len as usize
    }

    /// 1-based line and column (in characters) where the node starts.
    pub fn line_column(self) -> (u32, u32) {
        (self.0.line, self.0.column)
    }

    /// The string, when the node is a string.
    pub fn as_str(self) -> Option<&'t str> {
        match &self.0.value {
            Value::Str(s) => Some(s.as_str()),
            _ => None,
        }
    }

    /// Any scalar as text (numbers and booleans as read); `None` for null and collections.
    pub fn text(self) -> Option<String> {
        self.0.scalar_text()
    }

    /// Is it a scalar (a string, number, boolean or null)?
    pub fn is_scalar(self) -> bool {
        !matches!(self.0.value, Value::Map(_) | Value::Seq(_))
    }

    /// Is it a mapping?
    pub fn is_map(self) -> bool {
        matches!(self.0.value, Value::Map(_))
    }

    /// Is it null (`~`, `null`, or nothing written)?
    pub fn is_null(self) -> bool {
        self.0.value == Value::Null
    }

    /// A mapping's entries in file order, repeated keys included; empty for anything else.
    pub fn entries(self) -> impl Iterator<Item = (SyntaxNode<'t>, SyntaxNode<'t>)> {
        let entries: &'t [(Node, Node)] = match &self.0.value {
            Value::Map(m) => m,
            _ => &[],
        };
        entries.iter().map(|(k, v)| (SyntaxNode(k), SyntaxNode(v)))
    }

    /// A sequence's items in order; empty for anything else.
    pub fn items(self) -> impl Iterator<Item = SyntaxNode<'t>> {
        let items: &'t [Node] = match &self.0.value {
            Value::Seq(s) => s,
            _ => &[],
        };
        items.iter().map(SyntaxNode)
    }

    /// The first entry of a mapping whose key is the string `key`: key and value.
    pub fn get_entry(self, key: &str) -> Option<(SyntaxNode<'t>, SyntaxNode<'t>)> {
        self.entries().find(|(k, _)| k.as_str() == Some(key))
    }

    /// The value of the first entry whose key is the string `key`.
    pub fn get(self, key: &str) -> Option<SyntaxNode<'t>> {
        self.get_entry(key).map(|(_, v)| v)
    }

    /// The byte offset just past the node and everything under it.
    pub fn end(self) -> usize {
        let own = self.span().end;
        let children = match &self.0.value {
            Value::Map(m) => m.iter().map(|(k, v)| SyntaxNode(k).end().max(SyntaxNode(v).end())).max(),
            Value::Seq(s) => s.iter().map(|n| SyntaxNode(n).end()).max(),
            _ => None,
        };
        children.map_or(own, |c| c.max(own))
    }
}

/// A mapping of the format, for [`fields`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Place {
    /// The root runway file's top level.
    Root,
    /// A member runway file's top level.
    Member,
    /// `secrets`.
    Secrets,
    /// `secrets.infisical`.
    Infisical,
    /// `secrets.ssm`.
    Ssm,
    /// `environments.<env>`.
    Environment,
    /// `environments.<env>.limits`.
    Limits,
    /// `environments.<env>.logs`.
    Logs,
    /// `environments.<env>.network`.
    Network,
    /// `environments.<env>.bootstrap`.
    Bootstrap,
    /// `environments.<env>.usage`.
    Usage,
    /// `environments.<env>.usage.for.<name>`.
    UsageFor,
    /// `environments.<env>.alarms`.
    Alarms,
    /// `environments.<env>.alarms.for.<name>`.
    AlarmsFor,
    /// `environments.<env>.alerts`.
    Alerts,
    /// `environments.<env>.shared`.
    Shared,
    /// `resources.<name>` of a kind (`postgres`, ...), or of any kind for `None` or an unknown
    /// kind.
    Resource(Option<&'static str>),
    /// `resources.<name>.deadLetter`.
    DeadLetter,
    /// `resources.<name>.versioning` (a bucket's, written as a mapping).
    Versioning,
    /// `resources.<name>.restore` (a postgres resource's).
    Restore,
    /// `workloads.<name>`.
    Workload,
    /// `workloads.<name>.health`.
    Health,
    /// `workloads.<name>.scale.<env>`.
    Scale,
    /// `workloads.<name>.deploy.<env>`.
    Deploy,
    /// `workloads.<name>.scale.<env>.on`.
    ScaleOn,
    /// `workloads.<name>.scale.<env>.active`.
    Active,
    /// `workloads.<name>.schedules.<schedule>`.
    Schedule,
    /// `workloads.<name>.reason`.
    Reason,
    /// `workloads.<name>.migrate`.
    Migrate,
    /// `previews`.
    Previews,
    /// `previews.limits`.
    PreviewLimits,
}

/// The keys a mapping of the format has, in the order the reference lists them. Editors
/// complete them; the loader refuses any other (`unknown-field`).
pub fn fields(place: Place) -> Vec<&'static str> {
    use validate::keys;
    let list: &[&[&'static str]] = match place {
        Place::Root => &[keys::ROOT],
        Place::Member => &[keys::MEMBER],
        Place::Secrets => &[keys::SECRETS],
        Place::Infisical => &[keys::INFISICAL],
        Place::Ssm => &[keys::SSM],
        Place::Environment => &[keys::ENVIRONMENT],
        Place::Limits => &[keys::LIMITS],
        Place::Logs => &[keys::LOGS],
        Place::Network => &[keys::NETWORK],
        Place::Bootstrap => &[keys::BOOTSTRAP],
        Place::Usage => &[keys::USAGE],
        Place::UsageFor => &[keys::USAGE_FOR],
        Place::Alarms => &[keys::ALARMS],
        Place::AlarmsFor => &[keys::ALARMS_FOR],
        Place::Alerts => &[keys::ALERTS],
        Place::Shared => &[keys::SHARED],
        Place::Resource(name) => {
            // One kind's keys, or every kind's while `kind:` is unknown.
            let one;
            let kinds: &[Kind] = match name.and_then(Kind::from_name) {
                Some(kind) => {
                    one = [kind];
                    &one
                }
                None => Kind::ALL,
            };
            let mut out: Vec<&'static str> = Vec::new();
            for key in kinds.iter().flat_map(|k| validate::kind_keys(*k).1) {
                if !out.contains(key) {
                    out.push(key);
                }
            }
            return out;
        }
        Place::DeadLetter => &[keys::DEAD_LETTER],
        Place::Versioning => &[keys::VERSIONING],
        Place::Restore => &[keys::RESTORE],
        Place::Workload => &[keys::WORKLOAD],
        Place::Health => &[keys::HEALTH],
        Place::Scale => &[keys::SCALE],
        Place::Deploy => &[keys::DEPLOY],
        Place::ScaleOn => &[keys::SCALE_ON],
        Place::Active => &[keys::ACTIVE],
        Place::Schedule => &[keys::SCHEDULE],
        Place::Reason => &[keys::REASON],
        Place::Migrate => &[keys::MIGRATE],
        Place::Previews => &[keys::PREVIEWS],
        Place::PreviewLimits => &[keys::PREVIEW_LIMITS],
    };
    let mut out: Vec<&'static str> = Vec::new();
    for key in list.iter().flat_map(|l| l.iter()) {
        if !out.contains(key) {
            out.push(key);
        }
    }
    out
}

/// The resource kinds (`kind:`).
pub fn kinds() -> &'static [&'static str] {
    Kind::NAMES
}

/// The engines a legacy member can `require`, and the keys of `shared`.
pub fn engines() -> &'static [&'static str] {
    validate::ENGINES
}

/// The grounds of a workload's `reason`.
pub fn grounds() -> &'static [&'static str] {
    validate::GROUNDS
}

/// What `previews.workloads.<name>` takes.
pub const PREVIEW_WORKLOAD: &[&str] = validate::keys::PREVIEW_WORKLOAD;
/// The postgres engines (`engine:`).
pub const POSTGRES_ENGINES: &[&str] = validate::POSTGRES_ENGINES;
/// The ways a workload is reached (`expose:`).
pub const EXPOSES: &[&str] = validate::EXPOSES;
/// When database and cache changes take effect (`applyChanges:`).
pub const APPLY_CHANGES: &[&str] = crate::model::ApplyChanges::NAMES;
/// Who provides the VPC endpoints (`network.endpoints:`).
pub const ENDPOINTS: &[&str] = &["true", "existing", "false"];
/// The CPU architectures of a workload (`platform:`).
pub const PLATFORMS: &[&str] = validate::PLATFORMS;
/// A member's runtimes (`runtime:`).
pub const RUNTIMES: &[&str] = validate::RUNTIMES;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_at_the_text_multibyte_included() {
        let text = "# é — ü\nresources:\n  ünï-db: { kind: \"postgres\" }\nworkloads: {}\n";
        let tree = parse("f", text).unwrap();
        let res = tree.root().get("resources").unwrap();
        let (k, v) = res.entries().next().unwrap();
        assert_eq!(&text[k.span()], "ünï-db");
        assert_eq!(k.line_column(), (3, 3));
        let kind = v.get("kind").unwrap();
        assert_eq!(&text[kind.span()], "\"postgres\"");
        assert_eq!(kind.as_str(), Some("postgres"));
        assert_eq!(v.end(), kind.span().end);
        assert!(tree.root().get("workloads").is_some_and(SyntaxNode::is_map));
    }

    #[test]
    fn fields_follow_the_kind() {
        assert!(fields(Place::Resource(Some("queue"))).contains(&"deadLetter"));
        assert!(!fields(Place::Resource(Some("topic"))).contains(&"deadLetter"));
        let any = fields(Place::Resource(None));
        assert!(any.contains(&"engine") && any.contains(&"versioning"));
        assert_eq!(any.iter().filter(|k| **k == "kind").count(), 1);
        assert!(fields(Place::Workload).contains(&"reason"));
        // An environment's usage: its keys and `for`; one owner's, the keys that apply to owners.
        assert!(fields(Place::Environment).contains(&"usage"));
        assert_eq!(fields(Place::Usage).last(), Some(&"for"));
        assert!(fields(Place::UsageFor).contains(&"logs") && !fields(Place::UsageFor).contains(&"natGb"));
        assert!(fields(Place::Network).contains(&"nat"));
        assert_eq!(fields(Place::Bootstrap), ["image"]);
    }

    #[test]
    fn bad_text_is_a_diagnostic() {
        let e = parse("f", "a: [\n").unwrap_err();
        assert_eq!(e.code, crate::Code::YamlSyntax);
    }
}
