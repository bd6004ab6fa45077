//! Diagnostics: every problem found in a runway, with where it is and how to fix it.

use std::fmt;

use serde::Serialize;

/// Where something is written: file, 1-based line and column, and the byte range in the file
/// (for source snippets).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Location {
    /// The file, as given to the loader.
    pub file: String,
    /// 1-based line; 0 when unknown (an empty file, say).
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub column: u32,
    /// Byte offset in the file.
    #[serde(skip)]
    pub offset: usize,
    /// Byte length of the offending text.
    #[serde(skip)]
    pub len: usize,
}

/// Severity of a diagnostic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The runway is invalid; nothing is planned.
    Error,
    /// Worth fixing; the runway is still valid.
    Warning,
}

macro_rules! codes {
    ($($(#[$doc:meta])* $variant:ident = $text:literal,)*) => {
        /// Stable diagnostic codes (spec section 8).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Code { $($(#[$doc])* $variant,)* }

        impl Code {
            /// Every code, in the order of the spec.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The kebab-case code.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $text,)* }
            }
        }
    };
}

codes! {
    /// The text is not valid YAML, not UTF-8, or past a size bound.
    YamlSyntax = "yaml-syntax",
    /// A key the format does not have.
    UnknownField = "unknown-field",
    /// A required key is absent.
    MissingField = "missing-field",
    /// A value of the wrong type or out of range.
    InvalidValue = "invalid-value",
    /// A key written twice in one mapping.
    DuplicateKey = "duplicate-key",
    /// `runway:` is not 3.
    UnsupportedVersion = "unsupported-version",
    /// A name that does not match its pattern.
    InvalidName = "invalid-name",
    /// A name used twice (resource and workload, or two members).
    DuplicateName = "duplicate-name",
    /// A name beginning `shared-`.
    ReservedName = "reserved-name",
    /// A key that is not a declared environment.
    UnknownEnvironment = "unknown-environment",
    /// A size the catalogue does not have.
    UnknownSize = "unknown-size",
    /// A resource kind that does not exist.
    UnknownKind = "unknown-kind",
    /// `kafka` or `opensearch`: deferred kinds.
    ReservedKind = "reserved-kind",
    /// `uses` names no declared resource.
    UnknownResource = "unknown-resource",
    /// A `uses` mode the resource's kind does not take (`read` on a topic, any on a cache).
    InvalidAccess = "invalid-access",
    /// An image without a digest.
    UnpinnedImage = "unpinned-image",
    /// A workload without `reason`.
    MissingReason = "missing-reason",
    /// A `reason` given as a plain string (warning).
    ReasonWithoutGround = "reason-without-ground",
    /// A health check that is both or neither HTTP and command.
    InvalidHealth = "invalid-health",
    /// `scale` with `min < 1` or `min > max`.
    InvalidScale = "invalid-scale",
    /// A release strategy (`deploy.<env>`) outside ECS's bounds, or a setting its strategy
    /// does not take.
    InvalidDeploy = "invalid-deploy",
    /// Two variables of one consumer share a name.
    VariableCollision = "variable-collision",
    /// An `env` value references `${VAR}` the workload is not bound to.
    UnknownVariable = "unknown-variable",
    /// An Encore member uses a postgres resource.
    EncorePostgres = "encore-postgres",
    /// A public workload in an environment without `domain`.
    MissingDomain = "missing-domain",
    /// A member folder without `runway.yaml`.
    MemberMissing = "member-missing",
    /// A `shared` size for an engine no member requires (warning).
    UnusedShared = "unused-shared",
    /// A planned item the catalogue cannot price.
    Unpriced = "unpriced",
    /// The estimate is over the environment's cap.
    CapExceeded = "cap-exceeded",
    /// An environment without a cap (warning).
    Uncapped = "uncapped",
    /// The root's `catalogue:` file is missing, unreadable or invalid.
    CatalogueFile = "catalogue-file",
    /// A path a runway file names (`catalogue:`, a `members` glob, or a symbolic link on the
    /// way) leaves the root runway's folder.
    OutsideRoot = "outside-root",
    /// A `members` glob matches more folders than the bound.
    TooManyMembers = "too-many-members",
    /// A postgres resource's bootstrap task has no route to its image from the private
    /// subnets (no NAT, and not an image the VPC endpoints reach) (warning, from planning).
    UnreachableImage = "unreachable-image",
    /// A root runway that needs secrets in Infisical (a postgres, a cache, workload `secrets`,
    /// `registryCredentials` from Infisical) without `secrets.infisical` (warning).
    MissingInfisical = "missing-infisical",
    /// `previews.workloads` names no declared workload.
    UnknownWorkload = "unknown-workload",
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One problem, with where it is and how to fix it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Diagnostic {
    /// Stable code.
    pub code: Code,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, naming the offending value (never more than that value).
    pub message: String,
    /// File, line and column of the offending key or value.
    #[serde(flatten)]
    pub location: Location,
    /// Key path such as `workloads.metabase.uses[0]`.
    pub path: String,
    /// The likely fix, when there is one.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error.
    pub fn error(
        code: Code,
        location: Location,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        // A file's name comes from the disk (a member folder's name, say) and is printed too.
        let location = Location { file: crate::paths::printable(location.file), ..location };
        Self {
            code,
            severity: Severity::Error,
            message: crate::paths::printable(message.into()),
            location,
            path: crate::paths::printable(path.into()),
            help: None,
        }
    }

    /// A warning.
    pub fn warning(
        code: Code,
        location: Location,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self { severity: Severity::Warning, ..Self::error(code, location, path, message) }
    }

    /// With help text.
    #[must_use]
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(crate::paths::printable(help.into()));
        self
    }

    /// Is this an error?
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The closest candidate to `word`, when one is close enough to be a likely typo.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// How many errors and warnings: `1 error, 2 warnings`.
pub fn summary(diags: &[Diagnostic]) -> String {
    let errors = diags.iter().filter(|d| d.severity == Severity::Error).count();
    let warnings = diags.len() - errors;
    let plural = |n: usize, w: &str| if n == 1 { format!("{n} {w}") } else { format!("{n} {w}s") };
    format!("{}, {}", plural(errors, "error"), plural(warnings, "warning"))
}

/// The byte offsets where the lines of `text` start, the first 0. A line ends at `\n`, `\r\n`
/// or a lone `\r`, as YAML counts lines, so a diagnostic's line is the line an editor shows.
pub fn line_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut starts = vec![0];
    for (i, b) in bytes.iter().enumerate() {
        let ends_line = match b {
            b'\n' => true,
            b'\r' => bytes.get(i + 1) != Some(&b'\n'),
            _ => false,
        };
        if ends_line {
            starts.push(i + 1);
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_at_lf_crlf_or_a_lone_cr() {
        assert_eq!(line_starts(""), [0]);
        assert_eq!(line_starts("a\nb\r\nc\rd"), [0, 2, 5, 7]);
        assert_eq!(line_starts("é\n"), [0, 3]);
    }
}
