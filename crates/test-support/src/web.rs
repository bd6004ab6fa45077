//! A loopback HTTP server of canned answers by method and path, for what speaks plain HTTP
//! rather than an AWS protocol: an OCI registry (manifests, blobs, a token service and its
//! challenge, throttling). It records every request, so a test can show that only reads were
//! sent.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// One answer: status line (`200 OK`), headers, body. `{url}` in a header value or the body
/// becomes the server's own `http://127.0.0.1:<port>`.
#[derive(Debug, Clone)]
pub struct Answer {
    /// `200 OK`, `404 Not Found`, ...
    pub status: String,
    /// `(name, value)` pairs.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
}

impl Answer {
    /// An answer with a status line, headers and a body.
    pub fn new(status: &str, headers: &[(&str, &str)], body: impl Into<Vec<u8>>) -> Answer {
        Answer {
            status: status.to_owned(),
            headers: headers.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
            body: body.into(),
        }
    }
}

/// The answers to the requests of one method and path (the path without its query), taken
/// only when the request has the header `when` (if set); each in turn, the last repeating.
#[derive(Debug, Clone)]
pub struct WebRoute {
    /// `GET`, `HEAD`, ...
    pub method: String,
    /// `/v2/a/b/manifests/sha256:...`.
    pub path: String,
    /// A header (name, value) the request must carry for this route, e.g. an `Authorization`.
    pub when: Option<(String, String)>,
    /// The answers in order.
    pub answers: Vec<Answer>,
}

impl WebRoute {
    /// `method path` answered with `answers` in turn.
    pub fn new(method: &str, path: &str, answers: Vec<Answer>) -> WebRoute {
        WebRoute { method: method.to_owned(), path: path.to_owned(), when: None, answers }
    }

    /// Only requests carrying `name: value` take this route.
    #[must_use]
    pub fn when(mut self, name: &str, value: &str) -> WebRoute {
        self.when = Some((name.to_owned(), value.to_owned()));
        self
    }
}

/// A request the server got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    /// Its method.
    pub method: String,
    /// Its path and query.
    pub target: String,
    /// Its headers, names lowercased.
    pub headers: Vec<(String, String)>,
}

#[derive(Debug)]
struct State {
    routes: Vec<(WebRoute, usize)>,
    seen: Vec<Seen>,
}

/// The server: a free loopback port answering from its [`WebRoute`]s, first match first; a
/// request no route matches gets `404` with an OCI `MANIFEST_UNKNOWN` error. Each answer closes
/// its connection; stopped on drop.
#[derive(Debug)]
pub struct CannedWeb {
    port: u16,
    stop: Arc<AtomicBool>,
    state: Arc<Mutex<State>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl CannedWeb {
    /// Starts answering from `routes`.
    pub fn start(routes: Vec<WebRoute>) -> CannedWeb {
        let listener = TcpListener::bind("127.0.0.1:0").expect("cannot bind a loopback port");
        let port = listener.local_addr().expect("a bound listener has an address").port();
        let stop = Arc::new(AtomicBool::new(false));
        let state = Arc::new(Mutex::new(State {
            routes: routes.into_iter().map(|r| (r, 0)).collect(),
            seen: Vec::new(),
        }));
        let (stopped, shared) = (stop.clone(), state.clone());
        let url = format!("http://127.0.0.1:{port}");
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(mut stream) = stream else { continue };
                let Some(seen) = read_head(&mut stream) else { continue };
                let answer = answer(&shared, seen);
                let mut reply = format!("HTTP/1.1 {}\r\n", answer.status);
                for (name, value) in &answer.headers {
                    reply.push_str(&format!("{name}: {}\r\n", value.replace("{url}", &url)));
                }
                let body = if answer.body.windows(5).any(|w| w == b"{url}") {
                    String::from_utf8_lossy(&answer.body).replace("{url}", &url).into_bytes()
                } else {
                    answer.body
                };
                reply.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n", body.len()));
                let _ = stream.write_all(reply.as_bytes());
                let _ = stream.write_all(&body);
                let _ = stream.flush();
            }
        });
        CannedWeb { port, stop, state, thread: Some(thread) }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request so far, in order.
    pub fn seen(&self) -> Vec<Seen> {
        self.state.lock().map(|s| s.seen.clone()).unwrap_or_default()
    }
}

fn answer(state: &Mutex<State>, seen: Seen) -> Answer {
    let path = seen.target.split('?').next().unwrap_or_default().to_owned();
    let Ok(mut state) = state.lock() else {
        return Answer::new("500 Internal Server Error", &[], "");
    };
    let has = |(name, value): &(String, String)| {
        seen.headers.iter().any(|(k, v)| k.eq_ignore_ascii_case(name) && v == value)
    };
    let mut chosen = None;
    for (route, taken) in &mut state.routes {
        if route.method == seen.method
            && route.path == path
            && route.when.as_ref().is_none_or(has)
            && !route.answers.is_empty()
        {
            let at = (*taken).min(route.answers.len() - 1);
            *taken += 1;
            chosen = Some(route.answers[at].clone());
            break;
        }
    }
    state.seen.push(seen);
    chosen.unwrap_or_else(|| {
        let body = r#"{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}"#;
        Answer::new("404 Not Found", &[("Content-Type", "application/json")], body)
    })
}

/// Reads a request's head (these servers take no request bodies).
fn read_head(stream: &mut TcpStream) -> Option<Seen> {
    let mut request = Vec::new();
    let mut chunk = [0u8; 4096];
    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => request.extend_from_slice(&chunk[..n]),
        }
    }
    let text = String::from_utf8_lossy(&request).into_owned();
    let mut lines = text.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, target) = (first.next()?.to_owned(), first.next()?.to_owned());
    let headers = lines
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Some(Seen { method, target, headers })
}

impl Drop for CannedWeb {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
