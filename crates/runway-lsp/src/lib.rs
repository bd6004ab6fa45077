//! The runway file in the editor: a language server for root and member runway files.
//!
//! [`run_stdio`] serves the Language Server Protocol over stdin and stdout (`runway lsp`);
//! [`Server`] is the same server without a transport, for tests and benchmarks. What it
//! answers:
//!
//! - diagnostics on open and on every change, `runway check`'s (found by the same
//!   [`runtime_plan::check`], cap refusals included; docs/editor.md says where the messages
//!   differ), from the editor's text of every open file;
//! - hover on a resource or workload name (what each environment declares and costs a month,
//!   and the environment's total against its cap) and on a size;
//! - completion of keys, kinds, engines, sizes, environment names and the resource names of
//!   `uses`;
//! - go to definition from a `uses` entry to its resource, and references from a resource to
//!   its consumers;
//! - code actions for diagnostics with a fix (a "did you mean" name, a `reason` skeleton).
//!
//! The modules: `position` (byte offsets and UTF-16 positions), `documents` (open documents
//! over the disk, read through `runway-files`), `analysis` (`check` and every plan of a root),
//! `cursor` (what is under the cursor, over `runway_schema::syntax`), `hover`, `completion`
//! (from the text, which may not parse), `navigate` (definition, references), `actions` (fixes
//! from diagnostics' help), `diagnostics`; the protocol loop in `server` (lsp-server,
//! synchronous) over its own stdio framing in `transport` (garbage bytes and lone surrogates
//! are read as U+FFFD, not the end of the server).
//!
//! What it does not do: it never writes a file (edits go to the editor), runs no command and
//! makes no network call. Bad input never panics it: every file goes through the schema's
//! bounded reader, and a request that panicked anyway is answered with an error while the
//! server goes on. docs/editor.md sets up Neovim, VS Code and Helix.
//!
//! ```
//! use lsp_server::{Notification, Request, RequestId};
//! use serde_json::json;
//!
//! let mut server = runway_lsp::Server::new(None);
//! let uri = "file:///tmp/runway-lsp-doc/runway.yaml";
//! let text = "runway: 3\nproduct: shop\nenvironments:\n  dev: { region: us-east-1 }\n\
//!             resources:\n  jobs: { kind: queue }\n";
//! let published = server.notify(Notification::new(
//!     "textDocument/didOpen".into(),
//!     json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
//! ));
//! assert_eq!(published.len(), 1);
//! let hover = server.request(Request::new(
//!     RequestId::from(1),
//!     "textDocument/hover".into(),
//!     json!({"textDocument": {"uri": uri}, "position": {"line": 5, "character": 3}}),
//! ));
//! let markdown = hover.result.unwrap()["contents"]["value"].as_str().unwrap().to_owned();
//! assert!(markdown.contains("**jobs** · queue"), "{markdown}");
//! ```

pub mod actions;
pub mod analysis;
pub mod completion;
pub mod cursor;
pub mod diagnostics;
pub mod documents;
pub mod hover;
pub mod navigate;
pub mod position;
mod server;
mod transport;

pub use server::{Ended, ServeError, Server, capabilities, run_stdio, serve};
