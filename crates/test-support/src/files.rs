//! A loopback HTTP server that serves the files of a folder, for tests of HTTP readers.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Serves `GET /<path>` from a folder on `127.0.0.1`: 200 with the file's bytes, 404 when
/// there is no such file (or the path leaves the folder). One thread per connection, each
/// answer closes its connection. Stopped on drop.
pub struct FileServer {
    port: u16,
    stop: Arc<AtomicBool>,
    requests: Arc<AtomicUsize>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl FileServer {
    /// Starts serving `root` on a free loopback port.
    pub fn start(root: &Path) -> FileServer {
        FileServer::start_failing(root, 0)
    }

    /// Starts serving `root`, but answers the first `failures` requests `503 Service
    /// Unavailable`: a server that recovers, for tests of retries.
    pub fn start_failing(root: &Path, failures: usize) -> FileServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("cannot bind a loopback port");
        let port = listener.local_addr().expect("a bound listener has an address").port();
        let stop = Arc::new(AtomicBool::new(false));
        let requests = Arc::new(AtomicUsize::new(0));
        let root = root.to_path_buf();
        let (stop_flag, count) = (stop.clone(), requests.clone());
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stop_flag.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let failing = count.fetch_add(1, Ordering::SeqCst) < failures;
                let root = root.clone();
                std::thread::spawn(move || serve(stream, &root, failing));
            }
        });
        FileServer { port, stop, requests, thread: Some(thread) }
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Connections accepted so far.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

impl Drop for FileServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The file a request path names under `root`; `None` when it leaves the folder.
fn file_of(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split('?').next()?.trim_start_matches('/');
    if path.split('/').any(|part| part == ".." || part.is_empty()) {
        return None;
    }
    Some(root.join(path))
}

fn serve(stream: TcpStream, root: &Path, failing: bool) {
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    // Read the headers through the blank line; a GET has no body.
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {}
        }
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let body = match (method, file_of(root, target)) {
        ("GET", Some(file)) => std::fs::read(file).ok(),
        _ => None,
    };
    let mut out = stream;
    if failing {
        let _ = out.write_all(
            b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbusy",
        );
        let _ = out.flush();
        return;
    }
    let _ = match body {
        Some(bytes) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                bytes.len()
            );
            out.write_all(head.as_bytes()).and_then(|()| out.write_all(&bytes))
        }
        None => out.write_all(
            b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found",
        ),
    };
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{http, scratch};

    #[test]
    fn serves_files_and_404s_the_rest() {
        let dir = scratch("test-support-file-server");
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        std::fs::write(dir.join("a/b/f.json"), "{\"x\": 1}").unwrap();
        let server = FileServer::start(dir.path());
        let port: u16 = server.url().rsplit(':').next().unwrap().parse().unwrap();
        let ok = http(port, "GET", "/a/b/f.json", "").unwrap();
        assert_eq!((ok.status, ok.body.as_str()), (200, "{\"x\": 1}"));
        assert_eq!(http(port, "GET", "/a/missing.json", "").unwrap().status, 404);
        assert_eq!(http(port, "GET", "/a/../a/b/f.json", "").unwrap().status, 404);
        assert!(server.requests() >= 3);
    }
}
