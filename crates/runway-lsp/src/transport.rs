//! The stdio transport: `Content-Length` framed JSON-RPC messages on stdin and stdout.
//!
//! lsp-server's own stdio transport stops the server at the first message it cannot read
//! (a body that is not UTF-8, an unpaired UTF-16 surrogate escape such as `"\ud800"`, which
//! `serde_json` refuses). An editor can send either for a document holding garbage, so this
//! reader decodes bodies lossily (an invalid byte becomes U+FFFD), reads a lone surrogate
//! escape as U+FFFD too, and skips (with a line on stderr) a message that still does not read.
//! Only the end of stdin, an I/O error or `exit` ends it.

use std::io::{self, BufRead, Read};
use std::thread::{self, JoinHandle};

use lsp_server::{Connection, Message};

/// The largest message body read: four times the largest file the schema's reader takes
/// ([`runway_schema::MAX_FILE_BYTES`]), room for such a document JSON-escaped. A larger
/// `Content-Length` is skipped (read and dropped, never held), with a line on stderr.
pub(crate) const MAX_MESSAGE_BYTES: usize = 4 * runway_schema::MAX_FILE_BYTES;

/// The threads that carry messages between stdio and a [`Connection`].
pub(crate) struct StdioThreads {
    reader: JoinHandle<io::Result<()>>,
    writer: JoinHandle<io::Result<()>>,
}

impl StdioThreads {
    /// Waits for both threads; the first I/O error either met, if any.
    pub(crate) fn join(self) -> io::Result<()> {
        let reader =
            self.reader.join().unwrap_or_else(|_| Err(io::Error::other("the stdin reader panicked")));
        let writer =
            self.writer.join().unwrap_or_else(|_| Err(io::Error::other("the stdout writer panicked")));
        reader.and(writer)
    }
}

/// The server's end of a connection over stdin and stdout, and the threads that carry it.
pub(crate) fn stdio() -> (Connection, StdioThreads) {
    let (transport, server) = Connection::memory();
    let Connection { sender, receiver } = transport;
    let reader = thread::spawn(move || {
        let stdin = io::stdin();
        let mut input = stdin.lock();
        while let Some(message) = read(&mut input)? {
            let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
            if sender.send(message).is_err() || exit {
                break;
            }
        }
        Ok(())
    });
    let writer = thread::spawn(move || {
        let stdout = io::stdout();
        let mut output = stdout.lock();
        receiver.into_iter().try_for_each(|message| message.write(&mut output))
    });
    (server, StdioThreads { reader, writer })
}

/// A line on stderr for the person reading the editor's log; a closed stderr loses it rather
/// than panicking the server.
pub(crate) fn log(line: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// The next message that reads; `None` at the end of the input.
pub(crate) fn read(input: &mut impl BufRead) -> io::Result<Option<Message>> {
    loop {
        match frame(input)? {
            None => return Ok(None),
            Some(Frame::TooLarge(length)) => log(format_args!(
                "runway lsp: skipped a message of {length} bytes (a message has at most {MAX_MESSAGE_BYTES})"
            )),
            Some(Frame::Body(body)) => match parse(&body) {
                Ok(message) => return Ok(Some(message)),
                Err(e) => log(format_args!("runway lsp: skipped a message that is not JSON-RPC: {e}")),
            },
        }
    }
}

/// A framed message.
enum Frame {
    /// Its body, decoded lossily.
    Body(String),
    /// A body longer than [`MAX_MESSAGE_BYTES`], skipped: its length.
    TooLarge(usize),
}

/// One framed message; `None` at the end of the input.
fn frame(input: &mut impl BufRead) -> io::Result<Option<Frame>> {
    let mut length = None;
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(None);
        }
        let header = String::from_utf8_lossy(&line);
        let header = header.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            if length.is_some() {
                break;
            }
            // Blank lines before a header are tolerated.
            continue;
        }
        if let Some((skipped, value)) = content_length(header) {
            if skipped > 0 {
                log(format_args!(
                    "runway lsp: skipped {skipped} bytes that were not part of a framed message"
                ));
            }
            length = value.trim().parse::<usize>().ok();
        }
    }
    let length = length.unwrap_or_default();
    if length > MAX_MESSAGE_BYTES {
        // Drained without being held: the next message starts after it.
        let want = u64::try_from(length).unwrap_or(u64::MAX);
        let skipped = io::copy(&mut input.by_ref().take(want), &mut io::sink())?;
        if skipped < want {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        return Ok(Some(Frame::TooLarge(length)));
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    Ok(Some(Frame::Body(String::from_utf8_lossy(&body).into_owned())))
}

/// The value of a `Content-Length` header on `line`, and how many bytes come before the header.
/// A client that sent a body without the header leaves that body in front of the next message's
/// header on one line: found there, the header frames the next message and the stream is back
/// in step, instead of every later message being read as headers.
fn content_length(line: &str) -> Option<(usize, &str)> {
    const NAME: &str = "content-length:";
    // ASCII lowercasing keeps every byte offset, so `at` indexes `line` too.
    let at = line.to_ascii_lowercase().rfind(NAME)?;
    let skipped = line[..at].trim_start().len();
    Some((skipped, &line[at + NAME.len()..]))
}

/// A body as a message; a lone surrogate escape reads as U+FFFD.
fn parse(body: &str) -> serde_json::Result<Message> {
    serde_json::from_str(body).or_else(|e| {
        let repaired = replace_lone_surrogates(body);
        if repaired == body { Err(e) } else { serde_json::from_str(&repaired) }
    })
}

/// `body` with every `\uXXXX` escape of an unpaired UTF-16 surrogate turned into `\ufffd`.
/// Backslashes occur only in JSON strings, so every escape is seen from its backslash.
fn replace_lone_surrogates(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let unit = |s: &str| {
            s.strip_prefix("\\u").and_then(|h| h.get(..4)).and_then(|h| u16::from_str_radix(h, 16).ok())
        };
        match unit(rest) {
            Some(0xD800..=0xDBFF) if unit(&rest[6..]).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low)) => {
                out.push_str(&rest[..12]);
                rest = &rest[12..];
            }
            Some(0xD800..=0xDFFF) => {
                out.push_str("\\ufffd");
                rest = &rest[6..];
            }
            _ => {
                // Any other escape: the backslash and the character it escapes.
                let len = rest[1..].chars().next().map_or(1, |c| 1 + c.len_utf8());
                out.push_str(&rest[..len]);
                rest = &rest[len..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(body: &[u8]) -> Vec<u8> {
        let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        out.extend_from_slice(body);
        out
    }

    fn text_of(message: Option<Message>) -> String {
        let Some(Message::Notification(n)) = message else { panic!("a notification: {message:?}") };
        n.params["text"].as_str().unwrap_or_default().to_owned()
    }

    #[test]
    fn garbage_bytes_and_lone_surrogates_read_as_replacement_characters() {
        let mut input = Vec::new();
        input.extend(framed(b"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"text\":\"a\xff\xfeb\"}}"));
        input.extend(framed(
            br#"{"jsonrpc":"2.0","method":"m","params":{"text":"x\ud800y\\ud800\ud834\udd1e"}}"#,
        ));
        input.extend(framed(b"not json"));
        input.extend(framed(br#"{"jsonrpc":"2.0","method":"exit"}"#));
        let mut reader = io::Cursor::new(input);
        assert_eq!(text_of(read(&mut reader).unwrap()), "a\u{fffd}\u{fffd}b");
        // The escaped backslash before `ud800` is text; the pair is 𝄞.
        assert_eq!(text_of(read(&mut reader).unwrap()), "x\u{fffd}y\\ud800\u{1d11e}");
        // The body that is not JSON is skipped.
        let Some(Message::Notification(exit)) = read(&mut reader).unwrap() else { panic!("exit") };
        assert_eq!(exit.method, "exit");
        assert!(read(&mut reader).unwrap().is_none());
    }

    #[test]
    fn a_message_too_large_is_skipped_without_being_allocated() {
        let mut input = format!("Content-Length: {}\r\n\r\n", usize::MAX).into_bytes();
        // The end of the input comes long before the length: an error, not an allocation.
        input.extend(framed(br#"{"jsonrpc":"2.0","method":"exit"}"#));
        let err = read(&mut io::Cursor::new(input)).expect_err("the input ends inside the body");
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);

        // One byte over the cap, all there: skipped, and the next message reads.
        let mut input = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE_BYTES + 1).into_bytes();
        input.resize(input.len() + MAX_MESSAGE_BYTES + 1, b' ');
        input.extend(framed(br#"{"jsonrpc":"2.0","method":"exit"}"#));
        let mut reader = io::Cursor::new(input);
        let Some(Message::Notification(exit)) = read(&mut reader).unwrap() else { panic!("exit") };
        assert_eq!(exit.method, "exit");
        assert!(read(&mut reader).unwrap().is_none());
    }

    #[test]
    fn a_body_sent_without_content_length_costs_only_that_message() {
        let mut input = b"Content-Type: application/vscode-jsonrpc\r\n\r\n".to_vec();
        input.extend(br#"{"jsonrpc":"2.0","method":"lost","params":{}}"#);
        input.extend(framed(br#"{"jsonrpc":"2.0","method":"m","params":{"text":"next"}}"#));
        input.extend(framed(br#"{"jsonrpc":"2.0","method":"exit"}"#));
        let mut reader = io::Cursor::new(input);
        assert_eq!(text_of(read(&mut reader).unwrap()), "next");
        let Some(Message::Notification(exit)) = read(&mut reader).unwrap() else { panic!("exit") };
        assert_eq!(exit.method, "exit");
        assert!(read(&mut reader).unwrap().is_none());
        assert_eq!(content_length("content-LENGTH: 12"), Some((0, " 12")));
        assert_eq!(content_length("{}Content-Length: 3"), Some((2, " 3")));
        assert_eq!(content_length("Content-Type: x"), None);
    }

    #[test]
    fn a_surrogate_escape_at_the_very_end_is_replaced_without_reading_past_it() {
        assert_eq!(replace_lone_surrogates(r#""\udbff""#), r#""\ufffd""#);
        assert_eq!(replace_lone_surrogates(r#""\ud800\u0041""#), r#""\ufffd\u0041""#);
        assert_eq!(replace_lone_surrogates(r#""\""#), r#""\""#);
        assert_eq!(replace_lone_surrogates("\\"), "\\");
    }
}
