//! `runway lsp`: the language server for editors, over stdin and stdout.

use std::path::Path;

use crate::output::{Exit, Out};
use crate::planning::catalogue;

/// Serves the language server over stdio until the editor says `exit`. Exit 0 after
/// `shutdown`, 1 without it or when the editor closed stdout (the protocol's codes), 2 when the
/// protocol was not followed.
pub(crate) fn run(catalogue_file: Option<&Path>, out: Out) -> Result<(), Exit> {
    // Without `--catalogue`, the server reads each root's `catalogue:` setting itself.
    let cat = catalogue_file.map(|f| catalogue(Some(f), out)).transpose()?;
    match runway_lsp::run_stdio(cat) {
        Ok(runway_lsp::Ended::Shutdown) => Ok(()),
        Ok(runway_lsp::Ended::WithoutShutdown) => {
            errln!("runway lsp: the editor ended the session without `shutdown`");
            Err(Exit(1))
        }
        // The editor closed its end of stdout: it is gone, as if it had ended the session
        // without `shutdown` (nobody is left to read a message about it).
        Err(runway_lsp::ServeError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(Exit(1)),
        Err(runway_lsp::ServeError::Disconnected) => Err(Exit(1)),
        Err(e) => Err(out.usage(format!("the language server stopped: {e}"))),
    }
}
