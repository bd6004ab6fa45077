//! A loopback HTTP proxy in front of moto or the Infisical contract server that records every
//! request and, with a seeded random source, injects faults into a given fraction of them:
//! either the request is forwarded and its answer dropped (a lost answer: the write happened,
//! the client does not know), or the connection is closed before anything is forwarded (the
//! client cannot tell the two apart). Each request gets its own connection upstream, and each
//! answer is relayed with `Connection: close`, so one fault hits one request.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the proxy did with one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Forwarded, and the answer relayed.
    Relayed,
    /// Forwarded, and the answer dropped: the client's connection closed instead.
    AnswerLost,
    /// Not forwarded: the client's connection closed once the request was read.
    FailedBefore,
}

/// One request seen by the proxy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    /// `POST`, `GET`, ...
    pub method: String,
    /// The path, query included.
    pub path: String,
    /// The AWS operation: `X-Amz-Target`'s after its `.` (`CreateKey`), or a query protocol's
    /// `Action=` (`GetCallerIdentity`); `None` for other requests (Infisical's).
    pub operation: Option<String>,
    /// What was done with it.
    pub fate: Fate,
}

/// The fault rate and the seed of the proxy's random source.
#[derive(Debug, Clone, Copy)]
pub struct Faults {
    /// The fraction of requests hit by a fault, 0 to 1; half of the hits lose the answer, half
    /// fail before forwarding.
    pub rate: f64,
    /// The seed: the same seed and the same requests in the same order give the same faults.
    pub seed: u64,
}

impl Faults {
    /// No fault: the proxy only records.
    pub const NONE: Faults = Faults { rate: 0.0, seed: 0 };
}

/// The proxy, on a free loopback port, stopped on drop.
#[derive(Debug)]
pub struct FaultProxy {
    /// The port it listens on, at `127.0.0.1`.
    pub port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    faults: Arc<Mutex<(Faults, u64)>>,
    stop: Arc<AtomicBool>,
}

impl FaultProxy {
    /// Starts a proxy forwarding to `127.0.0.1:<upstream>`.
    pub fn start(upstream: u16, faults: Faults) -> FaultProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("cannot bind a loopback port");
        let port = listener.local_addr().expect("a bound listener has an address").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let state = Arc::new(Mutex::new((faults, faults.seed)));
        let stop = Arc::new(AtomicBool::new(false));
        let (seen2, state2, stop2) = (seen.clone(), state.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (seen, state) = (seen2.clone(), state2.clone());
                std::thread::spawn(move || serve(stream, upstream, &seen, &state));
            }
        });
        FaultProxy { port, seen, faults: state, stop }
    }

    /// Its URL, `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request so far, in the order they arrived.
    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Changes the fault rate from now on (the random source goes on).
    pub fn set_rate(&self, rate: f64) {
        self.faults.lock().unwrap_or_else(std::sync::PoisonError::into_inner).0.rate = rate;
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accepting thread so it sees `stop`.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// splitmix64: a small, seeded, well-mixed random source.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn fate_of(state: &Mutex<(Faults, u64)>) -> Fate {
    let mut guard = state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let (faults, rng) = &mut *guard;
    let draw = (next(rng) >> 11) as f64 / (1u64 << 53) as f64;
    if draw >= faults.rate {
        return Fate::Relayed;
    }
    if next(rng) & 1 == 0 { Fate::AnswerLost } else { Fate::FailedBefore }
}

/// One request of a client connection (the client is told to close after it).
fn serve(mut client: TcpStream, upstream: u16, seen: &Mutex<Vec<Seen>>, state: &Mutex<(Faults, u64)>) {
    let _ = client.set_read_timeout(Some(Duration::from_secs(30)));
    let Some((head, body)) = read_request(&mut client) else { return };
    let request_line = head.lines().next().unwrap_or_default().to_owned();
    let mut parts = request_line.split(' ');
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let operation = operation(&head, &body);
    let fate = fate_of(state);
    seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(Seen {
        method,
        path,
        operation,
        fate,
    });
    if fate == Fate::FailedBefore {
        let _ = client.shutdown(Shutdown::Both);
        return;
    }
    let Some(answer) = forward(upstream, &head, &body) else {
        let _ = client.shutdown(Shutdown::Both);
        return;
    };
    if fate == Fate::AnswerLost {
        let _ = client.shutdown(Shutdown::Both);
        return;
    }
    let _ = client.write_all(&answer);
    let _ = client.shutdown(Shutdown::Both);
}

/// The head (request line and headers, without the blank line) and the body of one request.
fn read_request(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut data = Vec::new();
    let mut chunk = [0u8; 8192];
    let end = loop {
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        data.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&data[..end]).into_owned();
    let length = header(&head, "content-length").and_then(|v| v.parse::<usize>().ok()).unwrap_or(0);
    let mut body = data[end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some((head, body))
}

fn header<'h>(head: &'h str, name: &str) -> Option<&'h str> {
    head.lines().skip(1).find_map(|line| {
        let (k, v) = line.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

fn operation(head: &str, body: &[u8]) -> Option<String> {
    if let Some(target) = header(head, "x-amz-target") {
        return Some(target.rsplit('.').next().unwrap_or(target).to_owned());
    }
    let text = String::from_utf8_lossy(body);
    text.split('&').find_map(|pair| pair.strip_prefix("Action=")).map(str::to_owned)
}

/// Sends the request upstream on a connection of its own and reads the whole answer, relayed
/// with `Connection: close`.
pub(crate) fn forward(upstream: u16, head: &str, body: &[u8]) -> Option<Vec<u8>> {
    let mut up = TcpStream::connect(("127.0.0.1", upstream)).ok()?;
    up.set_read_timeout(Some(Duration::from_secs(60))).ok()?;
    let mut request = close_connection(head).into_bytes();
    request.extend_from_slice(body);
    up.write_all(&request).ok()?;
    let mut answer = Vec::new();
    up.read_to_end(&mut answer).ok()?;
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n")?;
    let answer_head = String::from_utf8_lossy(&answer[..end]).into_owned();
    let mut relayed = close_connection(&answer_head).into_bytes();
    relayed.extend_from_slice(&answer[end + 4..]);
    Some(relayed)
}

/// `head` with its `Connection` header replaced by `Connection: close`, and the blank line.
fn close_connection(head: &str) -> String {
    let mut out = String::new();
    for (i, line) in head.split("\r\n").enumerate() {
        if i > 0 && line.split_once(':').is_some_and(|(k, _)| k.trim().eq_ignore_ascii_case("connection")) {
            continue;
        }
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_faults_at_about_the_rate() {
        let fates = |seed| {
            let state = Mutex::new((Faults { rate: 0.37, seed }, seed));
            (0..1000).map(|_| fate_of(&state)).collect::<Vec<_>>()
        };
        let (a, b) = (fates(7), fates(7));
        assert_eq!(a, b);
        let hit = a.iter().filter(|f| **f != Fate::Relayed).count();
        assert!((320..420).contains(&hit), "{hit} faults of 1000 at 37%");
        assert!(a.contains(&Fate::AnswerLost) && a.contains(&Fate::FailedBefore));
        assert_ne!(a, fates(8));
    }

    #[test]
    fn a_request_is_relayed_recorded_and_its_answer_lost_at_rate_one() {
        let upstream = TcpListener::bind("127.0.0.1:0").unwrap();
        let up_port = upstream.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in upstream.incoming() {
                let mut stream = stream.unwrap();
                let _ = read_request(&mut stream);
                stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok").unwrap();
            }
        });
        let proxy = FaultProxy::start(up_port, Faults::NONE);
        let target = "POST / HTTP/1.1\r\nX-Amz-Target: TrentService.CreateKey\r\nContent-Length: 2\r\n\r\n{}";
        let call = |request: &str| {
            let mut s = TcpStream::connect(("127.0.0.1", proxy.port)).unwrap();
            s.write_all(request.as_bytes()).unwrap();
            let mut answer = String::new();
            let _ = s.read_to_string(&mut answer);
            answer
        };
        let answer = call(target);
        assert!(answer.starts_with("HTTP/1.1 200 OK\r\n") && answer.ends_with("\r\n\r\nok"), "{answer}");
        assert!(answer.contains("Connection: close"), "{answer}");
        proxy.set_rate(1.0);
        assert_eq!(call("POST / HTTP/1.1\r\nContent-Length: 25\r\n\r\nAction=GetCallerIdentity&"), "");
        let seen = proxy.requests();
        assert_eq!(seen[0].operation.as_deref(), Some("CreateKey"));
        assert_eq!(seen[0].fate, Fate::Relayed);
        assert_eq!(seen[1].operation.as_deref(), Some("GetCallerIdentity"));
        assert_ne!(seen[1].fate, Fate::Relayed);
    }
}
