//! A loopback AWS endpoint of canned JSON answers, for what moto cannot do: fields it leaves out
//! (a deployment's `FAILED` rollout state, a container's exit code), answers that change from
//! one call to the next, or refusals (an expired session). It records every request (its
//! operation, head and body), so a test can show what was asked and how.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The answers to one kind of request: the requests whose `X-Amz-Target` ends in
/// `.<operation>`, or, without that header, whose form body says `Action=<operation>` (the
/// query protocol of RDS, whose answers are XML), any for `*`; and whose body contains
/// `body_contains` (when set).
#[derive(Debug, Clone)]
pub struct Route {
    /// The operation, e.g. `DescribeServices`, or `*` for any.
    pub operation: String,
    /// A text the request body must contain, e.g. `"acme-shop-dev-metabase"`.
    pub body_contains: Option<String>,
    /// `(status line, JSON body)` in order: each matching request takes the next, the last
    /// repeats.
    pub answers: Vec<(String, String)>,
}

impl Route {
    /// Every request for `operation` gets `200 OK` with `body`.
    pub fn ok(operation: &str, body: &str) -> Route {
        Route::ok_each(operation, &[body])
    }

    /// The requests for `operation` get `200 OK` with each of `bodies` in turn, the last
    /// repeating.
    pub fn ok_each(operation: &str, bodies: &[&str]) -> Route {
        Route {
            operation: operation.to_owned(),
            body_contains: None,
            answers: bodies.iter().map(|b| ("200 OK".to_owned(), (*b).to_owned())).collect(),
        }
    }

    /// Every request, whatever its operation, gets `status` (a status line such as
    /// `403 Forbidden`) with `body`.
    pub fn always(status: &str, body: &str) -> Route {
        Route {
            operation: "*".to_owned(),
            body_contains: None,
            answers: vec![(status.to_owned(), body.to_owned())],
        }
    }

    /// Only requests whose body contains `text` take this route.
    #[must_use]
    pub fn when_body_has(mut self, text: &str) -> Route {
        self.body_contains = Some(text.to_owned());
        self
    }
}

/// A request the server got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwsCall {
    /// Its operation (`DescribeServices`), from `X-Amz-Target` or the form's `Action`; empty
    /// when it names none.
    pub operation: String,
    /// Its request line and headers, as sent.
    pub head: String,
    /// Its body.
    pub body: String,
}

impl AwsCall {
    /// The value of its header `name` (any case), if it has one.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head
            .lines()
            .find_map(|l| l.split_once(':').filter(|(k, _)| k.trim().eq_ignore_ascii_case(name)))
            .map(|(_, v)| v.trim())
    }
}

/// What the server keeps between requests: the routes, how far each has gone, the requests.
#[derive(Debug)]
struct State {
    routes: Vec<(Route, usize)>,
    calls: Vec<AwsCall>,
    /// Where a request no route matches goes (moto's port), when in front of one.
    upstream: Option<u16>,
}

/// An AWS JSON endpoint (`application/x-amz-json-1.1`) on a free loopback port answering from
/// its [`Route`]s, first match first; a request no route matches gets `400` with
/// `UnknownOperationException`, or in front of an upstream ([`CannedAws::in_front_of`]) that
/// upstream's answer. One connection at a time, each answer closes its connection.
/// Stopped on drop.
#[derive(Debug)]
pub struct CannedAws {
    port: u16,
    stop: Arc<AtomicBool>,
    state: Arc<Mutex<State>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl CannedAws {
    /// Starts answering from `routes`.
    pub fn start(routes: Vec<Route>) -> CannedAws {
        CannedAws::serve(routes, None)
    }

    /// Starts answering from `routes` in front of the AWS endpoint at `upstream`
    /// (`http://127.0.0.1:<port>`, moto's): a request no route matches is forwarded there and
    /// its answer relayed, so a test gives canned answers only for what moto cannot. Every
    /// request is recorded, forwarded or not.
    pub fn in_front_of(upstream: &str, routes: Vec<Route>) -> CannedAws {
        let port = upstream.rsplit(':').next().and_then(|p| p.trim_end_matches('/').parse().ok());
        CannedAws::serve(routes, Some(port.expect("an upstream URL ends in its port")))
    }

    fn serve(routes: Vec<Route>, upstream: Option<u16>) -> CannedAws {
        let listener = TcpListener::bind("127.0.0.1:0").expect("cannot bind a loopback port");
        let port = listener.local_addr().expect("a bound listener has an address").port();
        let stop = Arc::new(AtomicBool::new(false));
        let state = Arc::new(Mutex::new(State {
            routes: routes.into_iter().map(|r| (r, 0)).collect(),
            calls: Vec::new(),
            upstream,
        }));
        let (stopped, shared) = (stop.clone(), state.clone());
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(mut stream) = stream else { continue };
                // The whole request is read before answering: closing a socket with unread
                // bytes resets the connection, which the SDK would report as unreachable.
                let call = read_request(&mut stream);
                let (status, answer) = match answer(&shared, call) {
                    Answered::Canned(status, answer) => (status, answer),
                    Answered::Forward(upstream, call) => {
                        let relayed = crate::faults::forward(upstream, &call.head, call.body.as_bytes());
                        let _ = stream.write_all(&relayed.unwrap_or_default());
                        let _ = stream.flush();
                        continue;
                    }
                };
                let reply = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: application/x-amz-json-1.1\r\n\
                     x-amzn-RequestId: canned\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                    answer.len()
                );
                let _ = stream.write_all(reply.as_bytes());
                let _ = stream.flush();
            }
        });
        CannedAws { port, stop, state, thread: Some(thread) }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The operations asked so far, in order (`DescribeServices`, ...).
    pub fn asked(&self) -> Vec<String> {
        self.calls().into_iter().map(|c| c.operation).collect()
    }

    /// The requests so far, in order.
    pub fn calls(&self) -> Vec<AwsCall> {
        self.state.lock().map(|s| s.calls.clone()).unwrap_or_default()
    }
}

/// What to do with one request.
enum Answered {
    /// Answer with this status line and body.
    Canned(String, String),
    /// Forward it to this loopback port.
    Forward(u16, AwsCall),
}

/// The answer of the first route matching `call`'s operation and body; without one, the
/// upstream's (when in front of one). `call` recorded.
fn answer(state: &Mutex<State>, call: AwsCall) -> Answered {
    let Ok(mut state) = state.lock() else {
        return Answered::Canned("500 Internal Server Error".to_owned(), "{}".to_owned());
    };
    let (operation, body) = (call.operation.clone(), call.body.clone());
    state.calls.push(call.clone());
    for (route, taken) in &mut state.routes {
        let operation_matches = route.operation == "*" || route.operation == operation;
        let body_matches = route.body_contains.as_deref().is_none_or(|t| body.contains(t));
        if operation_matches && body_matches && !route.answers.is_empty() {
            let at = (*taken).min(route.answers.len() - 1);
            *taken += 1;
            let (status, answer) = route.answers[at].clone();
            return Answered::Canned(status, answer);
        }
    }
    if let Some(upstream) = state.upstream {
        return Answered::Forward(upstream, call);
    }
    let unknown =
        format!(r#"{{"__type":"UnknownOperationException","message":"no canned answer for {operation}"}}"#);
    Answered::Canned("400 Bad Request".to_owned(), unknown)
}

/// Reads one HTTP request: its head, then `Content-Length` bytes of body. Its operation is the
/// last part of its `X-Amz-Target` header, or its form's `Action` (the query protocol).
fn read_request(stream: &mut TcpStream) -> AwsCall {
    let mut request = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let text = String::from_utf8_lossy(&request).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let header = |name: &str| {
                head.lines()
                    .find_map(|l| l.split_once(':').filter(|(k, _)| k.trim().eq_ignore_ascii_case(name)))
                    .map(|(_, v)| v.trim().to_owned())
            };
            let length = header("content-length").and_then(|v| v.parse::<usize>().ok()).unwrap_or(0);
            if body.len() >= length {
                let action = || {
                    let action = body.split('&').find_map(|kv| kv.strip_prefix("Action="));
                    action.map(|a| format!("Query.{a}")).unwrap_or_default()
                };
                let target = header("x-amz-target").unwrap_or_else(action);
                let operation = target.rsplit('.').next().unwrap_or_default().to_owned();
                return AwsCall { operation, head: head.to_owned(), body: body.to_owned() };
            }
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => {
                let head = String::from_utf8_lossy(&request).into_owned();
                return AwsCall { operation: String::new(), head, body: String::new() };
            }
            Ok(n) => request.extend_from_slice(&chunk[..n]),
        }
    }
}

impl Drop for CannedAws {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{CannedAws, Route};
    use std::io::{Read, Write};

    fn call(server: &CannedAws, target: &str, body: &str) -> String {
        let port: u16 = server.url().rsplit(':').next().unwrap().parse().unwrap();
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let request = format!(
            "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: {target}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        reply
    }

    #[test]
    fn routes_match_by_operation_and_body_and_step_through_their_answers() {
        let server = CannedAws::start(vec![
            Route::ok("Describe", r#"{"a":1}"#).when_body_has("\"one\""),
            Route::ok_each("Describe", &[r#"{"n":1}"#, r#"{"n":2}"#]),
        ]);
        assert!(call(&server, "X.Describe", r#"{"name":"one"}"#).ends_with(r#"{"a":1}"#));
        assert!(call(&server, "X.Describe", "{}").ends_with(r#"{"n":1}"#));
        assert!(call(&server, "X.Describe", "{}").ends_with(r#"{"n":2}"#));
        assert!(call(&server, "X.Describe", "{}").ends_with(r#"{"n":2}"#));
        let unknown = call(&server, "X.Other", "{}");
        assert!(unknown.starts_with("HTTP/1.1 400") && unknown.contains("UnknownOperationException"));
        assert_eq!(server.asked(), ["Describe", "Describe", "Describe", "Describe", "Other"]);
        let first = &server.calls()[0];
        assert_eq!(
            (first.header("x-amz-target"), first.body.as_str()),
            (Some("X.Describe"), r#"{"name":"one"}"#)
        );
        assert!(first.head.starts_with("POST / HTTP/1.1\r\n"), "{}", first.head);
        // The query protocol names its operation in the form body.
        let server = CannedAws::start(vec![Route::ok("DescribeDBProxyTargets", "<Xml/>")]);
        let port: u16 = server.url().rsplit(':').next().unwrap().parse().unwrap();
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let body = "Action=DescribeDBProxyTargets&Version=2014-10-31&DBProxyName=p";
        let request = format!("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}", body.len());
        stream.write_all(request.as_bytes()).unwrap();
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        assert!(reply.ends_with("<Xml/>"), "{reply}");
        assert_eq!(server.asked(), ["DescribeDBProxyTargets"]);
    }

    #[test]
    fn in_front_of_an_upstream_what_no_route_matches_is_forwarded_and_every_call_recorded() {
        let upstream = CannedAws::start(vec![Route::ok("Other", r#"{"from":"upstream"}"#)]);
        let front =
            CannedAws::in_front_of(&upstream.url(), vec![Route::ok("Describe", r#"{"from":"front"}"#)]);
        assert!(call(&front, "X.Describe", "{}").ends_with(r#"{"from":"front"}"#));
        let forwarded = call(&front, "X.Other", r#"{"n":1}"#);
        assert!(
            forwarded.starts_with("HTTP/1.1 200") && forwarded.ends_with(r#"{"from":"upstream"}"#),
            "{forwarded}"
        );
        // The upstream's own refusal is relayed as it is.
        assert!(call(&front, "X.Unknown", "{}").contains("UnknownOperationException"));
        assert_eq!(front.asked(), ["Describe", "Other", "Unknown"]);
        assert_eq!(upstream.asked(), ["Other", "Unknown"]);
        assert_eq!(upstream.calls()[0].body, r#"{"n":1}"#);
    }

    #[test]
    fn an_always_route_answers_every_operation_with_its_status() {
        let server = CannedAws::start(vec![Route::always("403 Forbidden", r#"{"__type":"ExpiredToken"}"#)]);
        let reply = call(&server, "X.One", "{}");
        assert!(
            reply.starts_with("HTTP/1.1 403 Forbidden") && reply.ends_with(r#"{"__type":"ExpiredToken"}"#),
            "{reply}"
        );
        assert!(call(&server, "Y.Two", "{}").starts_with("HTTP/1.1 403"));
        assert_eq!(server.asked(), ["One", "Two"]);
    }
}
