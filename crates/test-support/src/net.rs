//! A free loopback port and a bare HTTP call, enough to probe and drive the test servers.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

/// A loopback port nothing listens on: bound by the OS, then released for the caller.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("cannot bind a loopback port");
    listener.local_addr().expect("a bound listener has an address").port()
}

/// What a bare HTTP call got back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The body, as text.
    pub body: String,
}

/// One HTTP/1.1 request with `Connection: close` to `127.0.0.1:<port>`, with a JSON `body`
/// (empty for none). `None` when nothing answers or the answer is not HTTP.
pub fn http(port: u16, method: &str, path: &str, body: &str) -> Option<Reply> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    // One write: `write!` on the bare stream would send each piece as its own segment.
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    // `HTTP/1.1 200 OK`
    let status_line = head.lines().next()?;
    let mut parts = status_line.split(' ');
    if !parts.next()?.starts_with("HTTP/1.") {
        return None;
    }
    let status = parts.next()?.parse().ok()?;
    Some(Reply { status, body: body.to_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_is_read_and_nothing_listening_is_none() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            // Read the whole request before answering: closing a socket with unread bytes
            // resets the connection, and the client would see no reply.
            let mut request = Vec::new();
            let mut chunk = [0u8; 1024];
            while !request.ends_with(b"\r\n\r\n{}") {
                let n = stream.read(&mut chunk).unwrap();
                assert!(n > 0, "the client closed before sending its whole request");
                request.extend_from_slice(&chunk[..n]);
            }
            stream.write_all(b"HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok").unwrap();
            String::from_utf8_lossy(&request).into_owned()
        });
        let reply = http(port, "POST", "/x", "{}").unwrap();
        assert_eq!(reply, Reply { status: 201, body: "ok".into() });
        let request = server.join().unwrap();
        assert!(request.starts_with("POST /x HTTP/1.1\r\n") && request.ends_with("\r\n\r\n{}"), "{request}");
        assert_eq!(http(free_port(), "GET", "/", ""), None);
    }
}
