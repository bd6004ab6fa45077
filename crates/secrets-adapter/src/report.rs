//! What a run did, per location. Never holds a value.

use std::fmt;

/// What happened (or, in a dry run, would happen) at one location.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Action {
    /// A folder or secret was created (for a credential: generated and written).
    Created,
    /// A credential already existed and was kept (its value was not read).
    Exists,
    /// A credential was regenerated because its resource was asked to rotate.
    Rotated,
    /// A variable's value differed and was written.
    Updated,
    /// A variable already had the value.
    Unchanged,
    /// Dry run: would be created.
    WouldCreate,
    /// Dry run: would be regenerated (rotation asked).
    WouldRotate,
    /// Dry run: would be written (the value differs).
    WouldUpdate,
}

impl Action {
    /// The word used in text output (`created`, `would-create`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Created => "created",
            Action::Exists => "exists",
            Action::Rotated => "rotated",
            Action::Updated => "updated",
            Action::Unchanged => "unchanged",
            Action::WouldCreate => "would-create",
            Action::WouldRotate => "would-rotate",
            Action::WouldUpdate => "would-update",
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// One line of a report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Entry {
    /// `<env>:<folder>` for a folder, `<env>:<folder>/<NAME>` for a secret.
    pub location: String,
    /// What happened there.
    pub action: Action,
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:<8} {}", self.action, self.location)
    }
}

/// What a `prepare` or `publish` run did, in the order it was done. Serializes as
/// `{"entries": [{"location", "action"}]}` for `--format json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    /// The entries, in order.
    pub entries: Vec<Entry>,
}

impl Report {
    /// Appends an entry.
    pub fn push(&mut self, location: impl Into<String>, action: Action) {
        self.entries.push(Entry { location: location.into(), action });
    }

    /// How many entries have this action.
    pub fn count(&self, action: Action) -> usize {
        self.entries.iter().filter(|e| e.action == action).count()
    }

    /// The action recorded for a location, if any.
    pub fn action_at(&self, location: &str) -> Option<Action> {
        self.entries.iter().find(|e| e.location == location).map(|e| e.action)
    }
}

impl fmt::Display for Report {
    /// One line per entry: `created  dev:/runtime/main-db/MAIN_DB_PASSWORD`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for entry in &self.entries {
            writeln!(f, "{entry}")?;
        }
        Ok(())
    }
}

/// `<env>:<folder>` (a folder's display form).
pub fn folder_location(environment: &str, folder: &str) -> String {
    format!("{environment}:{folder}")
}

/// `<env>:<folder>/<NAME>` (a secret's display form).
pub fn secret_location(environment: &str, folder: &str, name: &str) -> String {
    if folder.ends_with('/') {
        format!("{environment}:{folder}{name}")
    } else {
        format!("{environment}:{folder}/{name}")
    }
}
