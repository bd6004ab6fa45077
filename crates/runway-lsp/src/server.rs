//! The server: documents, analyses by root, and the protocol's messages in and out.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cost::Catalogue;
use lsp_server::{Connection, ErrorCode, Message, Notification, ProtocolError, Request, Response};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionProviderCapability,
    CompletionItem, CompletionItemKind, CompletionOptions, CompletionResponse, CompletionTextEdit,
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DidSaveTextDocumentParams, GotoDefinitionResponse, Hover, HoverContents, HoverProviderCapability,
    Location, MarkupContent, MarkupKind, OneOf, Position, PublishDiagnosticsParams, ReferenceParams,
    ServerCapabilities, TextDocumentPositionParams, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions, TextEdit, Url, WorkspaceEdit,
};
use runway_files::FsFiles;
use runway_schema::{Diagnostic, Unread, syntax};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::analysis::{Analysis, Published, is_member, root_of};
use crate::completion::{self, Words};
use crate::cursor::{self, Target};
use crate::documents::Documents;
use crate::navigate::{self, Place};
use crate::position::SourceText;
use crate::{actions, diagnostics, hover};

/// What the server answers (`initialize`'s capabilities).
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::FULL),
            save: Some(TextDocumentSyncSaveOptions::Supported(true)),
            ..Default::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some([":", " ", "[", ",", "-", "{"].map(String::from).to_vec()),
            ..Default::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        ..Default::default()
    }
}

/// Why the server stopped serving before the client said `exit`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The handshake or the shutdown did not follow the protocol.
    #[error("the editor did not follow the protocol: {0}")]
    Protocol(#[from] ProtocolError),
    /// The connection to the editor closed while a message was being sent.
    #[error("the connection to the editor closed")]
    Disconnected,
    /// Reading stdin or writing stdout failed.
    #[error("stdio: {0}")]
    Io(#[from] std::io::Error),
}

/// How the editor ended the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// `shutdown`, then `exit`: the protocol asks the server to exit with code 0.
    Shutdown,
    /// `exit` without `shutdown`, or the input closed: the protocol asks for exit code 1.
    WithoutShutdown,
}

/// Serves the protocol over stdin and stdout until the client says `exit` or closes stdin.
pub fn run_stdio(catalogue: Option<Catalogue>) -> Result<Ended, ServeError> {
    let (connection, io_threads) = crate::transport::stdio();
    let ended = serve(&connection, catalogue)?;
    drop(connection);
    io_threads.join()?;
    Ok(ended)
}

/// Serves the protocol over a connection: the handshake, then every message until `exit` or
/// the end of the input.
pub fn serve(connection: &Connection, catalogue: Option<Catalogue>) -> Result<Ended, ServeError> {
    let (id, _params) = connection.initialize_start()?;
    let init = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": { "name": "runway", "version": env!("CARGO_PKG_VERSION") },
    });
    connection.initialize_finish(id, init)?;
    let mut server = Server::new(catalogue);
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                // Answers `shutdown` and waits for `exit`.
                if connection.handle_shutdown(&request)? {
                    return Ok(Ended::Shutdown);
                }
                send(connection, Message::Response(server.request(request)))?;
            }
            Message::Notification(n) if n.method == "exit" => return Ok(Ended::WithoutShutdown),
            Message::Notification(n) => {
                for out in server.notify(n) {
                    send(connection, Message::Notification(out))?;
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(Ended::WithoutShutdown)
}

/// Sends a message to the editor.
fn send(connection: &Connection, message: Message) -> Result<(), ServeError> {
    connection.sender.send(message).map_err(|_| ServeError::Disconnected)
}

/// The server without a transport: notifications in, the diagnostics to publish out;
/// requests in, responses out.
pub struct Server {
    docs: Documents,
    /// The `--catalogue` one, or the built-in one.
    catalogue: Arc<Catalogue>,
    /// A catalogue was given: roots' `catalogue:` settings are not read.
    fixed: bool,
    analyses: BTreeMap<PathBuf, Analysis>,
    /// Completion words of each root, kept from the last text that parsed: a file being typed
    /// is often not YAML for a moment.
    words: BTreeMap<PathBuf, (Vec<String>, Vec<String>)>,
    published: Published,
}

/// The catalogue a root is priced with, as `check` chooses it.
struct Chosen {
    /// The file the root's `catalogue:` setting names, and its text when it could be read.
    file: Option<(PathBuf, Option<SourceText>)>,
    /// The catalogue; `Err` holds the `catalogue-file` diagnostics of a file that cannot be
    /// used.
    catalogue: Result<Arc<Catalogue>, Vec<Diagnostic>>,
}

/// A document and a place in it.
struct At {
    path: PathBuf,
    text: SourceText,
    offset: usize,
}

impl Server {
    /// A server with no document open. It prices with `catalogue` when one is given (as
    /// `--catalogue` does); otherwise with the built-in catalogue, laid under the file a
    /// root names with `catalogue:` (read from the editor first, then the disk).
    pub fn new(catalogue: Option<Catalogue>) -> Self {
        Self {
            docs: Documents::default(),
            fixed: catalogue.is_some(),
            catalogue: Arc::new(catalogue.unwrap_or_else(Catalogue::builtin)),
            analyses: BTreeMap::new(),
            words: BTreeMap::new(),
            published: Published::default(),
        }
    }

    /// Handles a notification; returns the notifications to send (`publishDiagnostics`).
    pub fn notify(&mut self, n: Notification) -> Vec<Notification> {
        let method = n.method.clone();
        catch_unwind(AssertUnwindSafe(|| self.notify_inner(n))).unwrap_or_else(|_| {
            crate::transport::log(format_args!("runway lsp: handling `{method}` failed; the server goes on"));
            Vec::new()
        })
    }

    fn notify_inner(&mut self, n: Notification) -> Vec<Notification> {
        let path = match n.method.as_str() {
            "textDocument/didOpen" => params::<DidOpenTextDocumentParams>(n.params).and_then(|p| {
                let path = file_path(&p.text_document.uri)?;
                self.docs.set(path.clone(), p.text_document.text);
                Some(path)
            }),
            "textDocument/didChange" => params::<DidChangeTextDocumentParams>(n.params).and_then(|p| {
                let path = file_path(&p.text_document.uri)?;
                let mut text = self.docs.get(&path).map(|t| t.as_str().to_owned()).unwrap_or_default();
                for change in p.content_changes {
                    match change.range {
                        Some(range) => {
                            let bytes = SourceText::new(text.clone()).byte_range(range);
                            text.replace_range(bytes, &change.text);
                        }
                        None => text = change.text,
                    }
                }
                self.docs.set(path.clone(), text);
                Some(path)
            }),
            "textDocument/didSave" => params::<DidSaveTextDocumentParams>(n.params).and_then(|p| {
                let path = file_path(&p.text_document.uri)?;
                if let Some(text) = p.text {
                    self.docs.set(path.clone(), text);
                }
                Some(path)
            }),
            "textDocument/didClose" => params::<DidCloseTextDocumentParams>(n.params).and_then(|p| {
                let path = file_path(&p.text_document.uri)?;
                self.docs.close(&path);
                Some(path)
            }),
            _ => None,
        };
        path.map(|p| self.refresh(&p)).unwrap_or_default()
    }

    /// Re-analyses the root a file belongs to and gives its diagnostics to publish.
    fn refresh(&mut self, path: &Path) -> Vec<Notification> {
        let Some(root) = self.root_of(path) else { return self.unrooted(path) };
        self.analyse(&root);
        let analysis = &self.analyses[&root];
        let mut out = Vec::new();
        let mut now = BTreeSet::new();
        let empty = SourceText::new(String::new());
        for (file, diags) in &analysis.diagnostics {
            // The text the diagnostics were found in, not a later read of the disk.
            let text = analysis.text(file).unwrap_or(&empty);
            let list: Vec<lsp_types::Diagnostic> =
                diags.iter().map(|d| diagnostics::to_lsp(d, text)).collect();
            if let Some(n) = publish(file, list) {
                out.push(n);
                now.insert(file.clone());
            }
        }
        for gone in self.published.replace(&root, now) {
            out.extend(publish(&gone, Vec::new()));
        }
        out
    }

    /// A file without a root: a warning while it is open if it is a member runway (no root
    /// lists it), nothing otherwise; a warning published before is cleared when that changes.
    fn unrooted(&mut self, path: &Path) -> Vec<Notification> {
        let warning =
            self.docs.get(path).filter(|text| is_member(path, text.as_str())).map(diagnostics::unrooted);
        let now: BTreeSet<PathBuf> = warning.iter().map(|_| path.to_path_buf()).collect();
        let mut out: Vec<Notification> = warning.and_then(|w| publish(path, vec![w])).into_iter().collect();
        // Keyed by the file itself: a later root's analysis publishes it under the root instead.
        for gone in self.published.replace(path, now) {
            out.extend(publish(&gone, Vec::new()));
        }
        out
    }

    /// The root a file belongs to ([`root_of`]); a file once checked as a root stays one
    /// whatever its text becomes (emptied, say), so that its diagnostics follow.
    fn root_of(&self, path: &Path) -> Option<PathBuf> {
        root_of(path, &self.docs)
            .or_else(|| self.analyses.contains_key(path).then(|| path.to_path_buf()))
            // A root's `catalogue:` file: editing it re-prices the root.
            .or_else(|| {
                self.analyses
                    .values()
                    .find(|a| a.catalogue_file.as_deref() == Some(path))
                    .map(|a| a.root.clone())
            })
    }

    /// Checks and plans a root now, keeping the result (and its completion words when the
    /// root's text parses).
    fn analyse(&mut self, root: &Path) {
        let root_text = self.docs.text(root).unwrap_or_else(|| SourceText::new(String::new()));
        let chosen = self.catalogue_of(root, &root_text);
        let mut analysis = match chosen.catalogue {
            Ok(catalogue) => Analysis::new(root, root_text, &self.docs, catalogue),
            Err(diagnostics) => Analysis::refused(root, root_text, self.catalogue.clone(), diagnostics),
        };
        if let Some((file, text)) = chosen.file {
            if let Some(text) = text {
                analysis.texts.insert(file.clone(), text);
            }
            analysis.catalogue_file = Some(file);
        }
        if let Ok(tree) = syntax::parse("", analysis.root_text.as_str()) {
            let keys = |key: &str| -> Vec<String> {
                tree.root()
                    .get(key)
                    .into_iter()
                    .flat_map(|m| m.entries())
                    .filter_map(|(k, _)| k.text())
                    .collect()
            };
            self.words.insert(root.to_path_buf(), (keys("resources"), keys("environments")));
        }
        self.analyses.insert(root.to_path_buf(), analysis);
    }

    /// The catalogue a root (whose text is `root_text`) is priced with, as `check` chooses it,
    /// and the `catalogue:` file it names with the text read from it.
    fn catalogue_of(&self, root: &Path, root_text: &SourceText) -> Chosen {
        let base = Chosen { file: None, catalogue: Ok(self.catalogue.clone()) };
        if self.fixed {
            return base;
        }
        let name = root.to_string_lossy().replace('\\', "/");
        let Some(setting) = runway_schema::catalogue_setting(&name, root_text.as_str().as_bytes()) else {
            return base;
        };
        let folder = root.parent().unwrap_or_else(|| Path::new(""));
        let path = folder.join(&setting.path);
        let disk = FsFiles::new(folder);
        // The editor's text first, but only for a path the disk keeps inside the root's folder.
        let file = match (disk.resolve(&setting.path), self.docs.get(&path)) {
            (Err(outside @ Unread::Outside(_)), _) => Err(outside),
            (_, Some(doc)) => Ok(doc.clone()),
            // Without a byte order mark, as an editor shows the file.
            (_, None) => disk.catalogue_text(&setting.path).map(|t| {
                SourceText::new(t.strip_prefix('\u{feff}').map_or_else(|| t.clone(), str::to_owned))
            }),
        };
        let read = file.as_ref().map(SourceText::as_str).map_err(Clone::clone);
        let catalogue = self.catalogue.with_setting(&setting, &path.to_string_lossy(), read).map(Arc::new);
        let file = file.ok();
        Chosen { file: Some((path, file)), catalogue }
    }

    /// Answers a request; a request that fails (or panics) is answered with an error.
    pub fn request(&mut self, r: Request) -> Response {
        let id = r.id.clone();
        let method = r.method.clone();
        match catch_unwind(AssertUnwindSafe(|| self.request_inner(r))) {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(_) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                format!("runway lsp: handling `{method}` failed; the server goes on"),
            ),
        }
    }

    fn request_inner(&mut self, r: Request) -> Result<Value, (ErrorCode, String)> {
        fn parsed<P: DeserializeOwned>(v: Value) -> Result<P, (ErrorCode, String)> {
            serde_json::from_value(v).map_err(|e| (ErrorCode::InvalidParams, e.to_string()))
        }
        // Hover, completion and definition need only the document and the position: their
        // other fields (a completion's `context`, progress tokens) are not read, so a client
        // that sends them in another shape is still answered.
        let result = match r.method.as_str() {
            "textDocument/hover" => {
                let at: TextDocumentPositionParams = parsed(r.params)?;
                json(self.hover(&at.text_document.uri, at.position))
            }
            "textDocument/completion" => {
                let at: TextDocumentPositionParams = parsed(r.params)?;
                json(self.completion(&at.text_document.uri, at.position).map(CompletionResponse::Array))
            }
            "textDocument/definition" => {
                let at: TextDocumentPositionParams = parsed(r.params)?;
                json(self.definition(&at.text_document.uri, at.position).map(GotoDefinitionResponse::Scalar))
            }
            "textDocument/references" => {
                let p: ReferenceParams = parsed(r.params)?;
                let at = &p.text_document_position;
                json(self.references(&at.text_document.uri, at.position, p.context.include_declaration))
            }
            "textDocument/codeAction" => {
                let p: CodeActionParams = parsed(r.params)?;
                json(self.code_actions(&p.text_document.uri, p.range))
            }
            other => {
                return Err((ErrorCode::MethodNotFound, format!("runway lsp does not answer `{other}`")));
            }
        };
        Ok(result)
    }

    /// The document at `uri` (the editor's text, else the disk's) and the offset of `position`.
    fn at(&self, uri: &Url, position: Position) -> Option<At> {
        let path = file_path(uri)?;
        let text = self.docs.text(&path)?;
        let offset = text.offset(position);
        Some(At { path, text, offset })
    }

    /// The analysis of the root a file belongs to, made when there is none yet.
    fn analysis(&mut self, path: &Path) -> Option<&Analysis> {
        let root = self.root_of(path)?;
        if !self.analyses.contains_key(&root) {
            self.analyse(&root);
        }
        self.analyses.get(&root)
    }

    /// What is under the cursor, and the analysis of its root.
    fn target(&mut self, uri: &Url, position: Position) -> Option<(At, Target, std::ops::Range<usize>)> {
        let at = self.at(uri, position)?;
        let tree = syntax::parse("", at.text.as_str()).ok()?;
        let hit = cursor::at(&tree, at.offset)?;
        let root_file = self.analysis(&at.path).is_some_and(|a| a.root == at.path);
        let target = cursor::target(&hit, root_file)?;
        let span = hit.node.span();
        Some((at, target, span))
    }

    fn hover(&mut self, uri: &Url, position: Position) -> Option<Hover> {
        let (at, target, span) = self.target(uri, position)?;
        let markdown = hover::hover(self.analysis(&at.path)?, &target)?;
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: markdown }),
            range: Some(at.text.range(span)),
        })
    }

    fn completion(&mut self, uri: &Url, position: Position) -> Option<Vec<CompletionItem>> {
        let at = self.at(uri, position)?;
        let analysis = self.analysis(&at.path)?;
        let root = analysis.root.clone();
        let root_file = root == at.path;
        let cx = completion::context(&at.text, at.offset);
        let kind = match cx.path.as_slice() {
            [top, name, ..] if top == "resources" => syntax::parse("", analysis.root_text.as_str())
                .ok()
                .and_then(|t| t.root().get("resources")?.get(name)?.get("kind")?.text()),
            _ => None,
        };
        let (sizes, regions) = (analysis.catalogue.size_names(), analysis.catalogue.regions());
        let (resources, environments) = self.words.get(&root).cloned().unwrap_or_default();
        let words = Words { resources, environments, sizes, regions };
        // The word being typed is replaced; right after `:` or `-` a space comes first.
        let line_start = at.text.offset(Position::new(position.line, 0));
        let before = at.text.as_str().get(line_start..at.offset).unwrap_or_default();
        let (word, space) = completion::word_before(before);
        let range = at.text.range(at.offset - word..at.offset);
        let items = completion::candidates(&cx, root_file, &words, kind.as_deref())
            .into_iter()
            .map(|c| {
                let new_text = if c.is_key { format!("{}: ", c.label) } else { c.label.clone() };
                let new_text = if space { format!(" {new_text}") } else { new_text };
                CompletionItem {
                    kind: Some(if c.is_key {
                        CompletionItemKind::PROPERTY
                    } else {
                        CompletionItemKind::VALUE
                    }),
                    detail: Some(c.detail.to_owned()),
                    text_edit: Some(CompletionTextEdit::Edit(TextEdit { range, new_text })),
                    label: c.label,
                    ..Default::default()
                }
            })
            .collect();
        Some(items)
    }

    fn definition(&mut self, uri: &Url, position: Position) -> Option<Location> {
        let (at, target, _) = self.target(uri, position)?;
        let Target::Use(name) = target else { return None };
        location(&navigate::definition(self.analysis(&at.path)?, &name)?)
    }

    fn references(&mut self, uri: &Url, position: Position, declaration: bool) -> Option<Vec<Location>> {
        let (at, target, _) = self.target(uri, position)?;
        let (Target::Resource(name) | Target::Use(name)) = target else { return None };
        let analysis = self.analyses.get(&self.root_of(&at.path)?)?;
        Some(navigate::references(analysis, &name, declaration).iter().filter_map(location).collect())
    }

    fn code_actions(&mut self, uri: &Url, range: lsp_types::Range) -> Option<Vec<CodeActionOrCommand>> {
        let path = file_path(uri)?;
        let analysis = self.analysis(&path)?;
        // The text the diagnostics were found in (an open document's is the editor's).
        let text = analysis.text(&path)?.clone();
        let diags = analysis.diagnostics.get(&path)?;
        let fixes = actions::fixes(diags, &text, text.byte_range(range));
        let actions = fixes
            .into_iter()
            .map(|fix| {
                let edits = fix
                    .edits
                    .iter()
                    .map(|(bytes, new_text)| TextEdit {
                        range: text.range(bytes.clone()),
                        new_text: new_text.clone(),
                    })
                    .collect();
                CodeActionOrCommand::CodeAction(CodeAction {
                    title: fix.title,
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![diagnostics::to_lsp(&fix.diagnostic, &text)]),
                    edit: Some(WorkspaceEdit {
                        changes: Some(HashMap::from([(uri.clone(), edits)])),
                        ..Default::default()
                    }),
                    is_preferred: Some(true),
                    ..Default::default()
                })
            })
            .collect();
        Some(actions)
    }
}

/// A request's or notification's params, or `None` when they do not read.
fn params<P: DeserializeOwned>(v: Value) -> Option<P> {
    serde_json::from_value(v).ok()
}

/// A result as JSON (`null` for `None`).
fn json<T: Serialize>(value: Option<T>) -> Value {
    value.and_then(|v| serde_json::to_value(v).ok()).unwrap_or(Value::Null)
}

/// The file of a `file:` URI.
fn file_path(uri: &Url) -> Option<PathBuf> {
    if uri.scheme() != "file" {
        return None;
    }
    uri.to_file_path().ok()
}

/// A place as the protocol's location.
fn location(place: &Place) -> Option<Location> {
    let uri = Url::from_file_path(&place.file).ok()?;
    Some(Location { uri, range: place.text.range(place.bytes.clone()) })
}

/// A `publishDiagnostics` notification for a file.
fn publish(file: &Path, diagnostics: Vec<lsp_types::Diagnostic>) -> Option<Notification> {
    let uri = Url::from_file_path(file).ok()?;
    let params = PublishDiagnosticsParams { uri, diagnostics, version: None };
    Some(Notification::new("textDocument/publishDiagnostics".to_owned(), params))
}
