//! `runway lsp`: the language server for editors, over stdin and stdout.

use crate::planning::catalogue;
use crate::prelude::*;

/// The language server for editors, over stdin and stdout: check's diagnostics as you type,
/// cost on hover, completion, go to definition, references and fixes (docs/editor.md).
#[derive(clap::Args)]
pub(crate) struct Args {
    /// A catalogue file that replaces or extends the built-in one.
    #[arg(long)]
    catalogue: Option<PathBuf>,
}

impl CommandArgs for Args {}

/// Serves the language server over stdio until the editor says `exit`. Exit 0 after
/// `shutdown`, 1 without it or when the editor closed stdout (the protocol's codes), 2 when the
/// protocol was not followed.
pub(crate) fn run(args: Args, out: Out) -> Result<(), Exit> {
    let catalogue_file = args.catalogue.as_deref();
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
