//! The WebSocket codec's client role against an independent server: Python's `websockets`
//! (PyPI; scripts/test installs it in its tools venv) runs `ws_peers/echo_server.py` on port
//! 0, and a blocking `TcpStream` here speaks to it with nothing but `barrage_wire::ws`: the
//! opening handshake, masked messages of every length form, fragmented messages, the server's
//! pings answered (it waits for the pongs), our pings, and the close handshake begun by either
//! side.

use barrage_testkit::Proc;
use barrage_wire::ws::handshake::{check_response, client_key, write_request};
use barrage_wire::ws::{Event, Limits, Opcode, Session};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// The Python that has websockets (barrage_testkit::python_required).
fn python() -> PathBuf {
    barrage_testkit::python_required("websockets.sync.server", "websockets")
}

fn start_server() -> (Proc, u16) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ws_peers/echo_server.py");
    let mut child = Command::new(python())
        .arg(script)
        .stdout(Stdio::piped())
        .spawn()
        .expect("python starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().parse().expect("the server prints its port");
    (Proc(child), port)
}

/// One client connection: the socket, the session, and what was read and not yet used.
struct Client {
    sock: TcpStream,
    sess: Session,
    buf: Vec<u8>,
    out: Vec<u8>,
}

/// What the client saw, owned.
#[derive(Debug, PartialEq)]
enum Got {
    Message(bool, Vec<u8>),
    Ping(Vec<u8>),
    Pong(Vec<u8>),
    Close(Option<u16>, String),
    Eof,
}

impl Client {
    fn connect(port: u16, nonce: [u8; 16]) -> Client {
        let mut sock = TcpStream::connect(("127.0.0.1", port)).unwrap();
        sock.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let key = client_key(nonce);
        let mut req = Vec::new();
        write_request(&mut req, &format!("127.0.0.1:{port}"), "/", &key, &[]);
        sock.write_all(&req).unwrap();
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        let used = loop {
            if let Some(n) = check_response(&buf, &key, b"").expect("a valid 101") {
                break n;
            }
            let n = sock.read(&mut chunk).unwrap();
            assert!(n > 0, "closed during the handshake");
            buf.extend_from_slice(&chunk[..n]);
        };
        buf.drain(..used);
        Client {
            sock,
            sess: Session::client(
                Limits::default(),
                u64::from_le_bytes(nonce[..8].try_into().unwrap()),
            ),
            buf,
            out: Vec::new(),
        }
    }

    fn flush(&mut self) {
        self.sock.write_all(&self.out).unwrap();
        self.out.clear();
    }

    fn send(&mut self, text: bool, payload: &[u8]) {
        self.sess.send(&mut self.out, text, payload);
        self.flush();
    }

    /// The next event (answers the session wrote are sent at once).
    fn next(&mut self) -> Got {
        loop {
            let (n, got) = match self.sess.next(&mut self.buf, &mut self.out) {
                Ok((n, ev)) => (
                    n,
                    ev.map(|ev| match ev {
                        Event::Message { text, data } => Got::Message(text, data.to_vec()),
                        Event::Ping(p) => Got::Ping(p.to_vec()),
                        Event::Pong(p) => Got::Pong(p.to_vec()),
                        Event::Close { code, reason } => Got::Close(code, reason.to_string()),
                        Event::Part { .. } => unreachable!("an assembling session"),
                    }),
                ),
                Err(e) => panic!("the server's frames are valid: {e}"),
            };
            self.buf.drain(..n);
            if !self.out.is_empty() {
                self.flush();
            }
            if let Some(g) = got {
                return g;
            }
            let mut chunk = [0u8; 65536];
            let n = self.sock.read(&mut chunk).unwrap();
            if n == 0 {
                return Got::Eof;
            }
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    /// The next message, answering any ping on the way.
    fn message(&mut self) -> (bool, Vec<u8>) {
        loop {
            match self.next() {
                Got::Message(t, d) => return (t, d),
                Got::Ping(_) => {}
                other => panic!("expected a message, got {other:?}"),
            }
        }
    }
}

#[test]
fn codec_client_meets_python_websockets_server() {
    let (_server, port) = start_server();
    let mut c = Client::connect(port, *b"0123456789abcdef");
    for size in [0usize, 1, 125, 126, 65535, 65536, 1 << 20] {
        let text = "y".repeat(size);
        c.send(true, text.as_bytes());
        assert_eq!(c.message(), (true, text.into_bytes()), "text of {size}");
        let bin: Vec<u8> = (0..size).map(|i| (i * 7 % 256) as u8).collect();
        c.send(false, &bin);
        assert_eq!(c.message(), (false, bin), "binary of {size}");
    }
    let uni = "κόσμε ✓ 😀".repeat(500);
    c.send(true, uni.as_bytes());
    assert_eq!(c.message(), (true, uni.clone().into_bytes()));

    // A fragmented message with a ping of ours between the fragments.
    let mut out = Vec::new();
    c.sess
        .send_frame(&mut out, false, Opcode::Text, "κό".as_bytes());
    c.sess.send_frame(&mut out, true, Opcode::Ping, b"between");
    c.sess
        .send_frame(&mut out, false, Opcode::Continuation, "σ".as_bytes());
    c.sess
        .send_frame(&mut out, true, Opcode::Continuation, "με".as_bytes());
    c.sock.write_all(&out).unwrap();
    assert_eq!(c.next(), Got::Pong(b"between".to_vec()));
    assert_eq!(c.message(), (true, "κόσμε".as_bytes().to_vec()));

    // The server's own pings: answered by the session, or it would close with 4003.
    c.send(true, b"ping me");
    assert_eq!(c.next(), Got::Ping(b"one".to_vec()));
    assert_eq!(c.next(), Got::Ping(b"two".to_vec()));
    assert_eq!(c.next(), Got::Message(true, b"ping me".to_vec()));

    // The server closes: the session answers with the same code, then the server ends TCP.
    c.send(true, b"close please");
    assert_eq!(c.next(), Got::Close(Some(4002), "as asked".into()));
    assert!(c.sess.sent_close() && c.sess.received_close());
    assert_eq!(c.next(), Got::Eof);

    // The client closes: the server answers with our code and ends TCP.
    let mut c = Client::connect(port, *b"fedcba9876543210");
    c.send(false, b"last");
    assert_eq!(c.message(), (false, b"last".to_vec()));
    let mut out = Vec::new();
    c.sess.close(&mut out, 1000, "done");
    c.sock.write_all(&out).unwrap();
    match c.next() {
        Got::Close(code, _) => assert_eq!(code, Some(1000)),
        other => panic!("expected the close's answer, got {other:?}"),
    }
    assert_eq!(c.next(), Got::Eof);
}
