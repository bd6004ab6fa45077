//! The stack outputs a deploy-job command is given (`--outputs FILE`, saved from `pulumi stack
//! output --json --show-secrets`): connection details, and where each one-off task runs.

use std::path::Path;

use secrets_adapter::StackOutputs;

use crate::output::chain;

/// The stack outputs of `path`.
pub(crate) fn read(path: &Path) -> Result<StackOutputs, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    StackOutputs::parse(&text).map_err(|e| format!("{}: {}", path.display(), chain(&e)))
}
