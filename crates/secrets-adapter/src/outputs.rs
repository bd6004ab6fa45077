//! `pulumi stack output --json` → values, each held in a [`SecretString`].

use secrecy::SecretString;
use std::fmt;

use crate::error::Error;

/// Stack outputs by name, in the order Pulumi printed them. `Debug` shows names only.
#[derive(Default)]
pub struct StackOutputs {
    values: Vec<(String, SecretString)>,
}

impl fmt::Debug for StackOutputs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StackOutputs")
            .field("names", &self.names().collect::<Vec<_>>())
            .field("values", &"[REDACTED]")
            .finish()
    }
}

impl StackOutputs {
    /// Parses `pulumi stack output --json [--show-secrets]`: a JSON object of output name to
    /// value. Strings are taken as they are; numbers and booleans in their JSON text; arrays and
    /// objects as compact JSON; `null` outputs are skipped. An output still masked as
    /// `"[secret]"` is refused ([`Error::MaskedOutput`]). Parse errors never quote the input.
    ///
    /// Best effort on memory: the parsed strings are moved into `SecretString`s (zeroized on
    /// drop); serde_json's transient buffers are not zeroized.
    pub fn parse(json: &str) -> Result<StackOutputs, Error> {
        let value: serde_json::Value =
            serde_json::from_str(json).map_err(|e| Error::Outputs(describe(&e)))?;
        let serde_json::Value::Object(map) = value else {
            return Err(Error::Outputs("the top level is not an object".into()));
        };
        let mut values = Vec::with_capacity(map.len());
        for (name, value) in map {
            let text = match value {
                serde_json::Value::Null => continue,
                serde_json::Value::String(s) => {
                    if s == "[secret]" {
                        return Err(Error::MaskedOutput { name });
                    }
                    s
                }
                other => other.to_string(),
            };
            values.push((name, SecretString::from(text)));
        }
        Ok(StackOutputs { values })
    }

    /// The value of an output.
    pub fn get(&self, name: &str) -> Option<&SecretString> {
        self.values.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Output names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.iter().map(|(n, _)| n.as_str())
    }

    /// Number of outputs.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no outputs.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// A serde_json error described by category and position only: syntax errors never echo
/// input, but "invalid type" errors can, so those are reduced to their position.
fn describe(e: &serde_json::Error) -> String {
    format!("{:?} error at line {} column {}", e.classify(), e.line(), e.column())
}
