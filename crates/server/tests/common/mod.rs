//! Test helpers: start a server on port 0, speak raw HTTP/1.1 to it over real sockets (TLS
//! ones: `tls_client`).
#![allow(dead_code)]

pub mod tls_client;

use barrage_server::{start, ServerConfig, ServerHandle};
use barrage_wire::{BodyDecoder, Framing};
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

pub fn server() -> ServerHandle {
    server_with(ServerConfig::default())
}

pub fn server_with(cfg: ServerConfig) -> ServerHandle {
    let cfg = ServerConfig {
        threads: if cfg.threads == 0 { 2 } else { cfg.threads },
        ..cfg
    };
    start(cfg).expect("server starts")
}

pub fn connect(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.set_nodelay(true).unwrap();
    s
}

#[derive(Debug, Clone, PartialEq)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Reads HTTP responses from one connection (TCP, or TLS), keeping bytes that belong to the
/// next one.
pub struct Reader<S = TcpStream> {
    pub stream: S,
    buf: Vec<u8>,
}

impl<S: Read + Write> Reader<S> {
    pub fn new(stream: S) -> Self {
        Reader {
            stream,
            buf: Vec::new(),
        }
    }

    pub fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("write");
    }

    fn fill(&mut self) -> std::io::Result<usize> {
        let mut tmp = [0u8; 65536];
        let n = self.stream.read(&mut tmp)?;
        self.buf.extend_from_slice(&tmp[..n]);
        Ok(n)
    }

    /// The next response (skipping 100 Continue), or an error if the connection ended/failed.
    pub fn response(&mut self, head_request: bool) -> Result<Resp, String> {
        loop {
            let mut hs = [httparse::EMPTY_HEADER; 64];
            let mut r = httparse::Response::new(&mut hs);
            match r.parse(&self.buf) {
                Ok(httparse::Status::Complete(n)) => {
                    let status = r.code.unwrap();
                    let headers: Vec<(String, String)> = r
                        .headers
                        .iter()
                        .map(|h| {
                            (
                                h.name.to_string(),
                                String::from_utf8_lossy(h.value).into_owned(),
                            )
                        })
                        .collect();
                    let parsed = barrage_wire::parse_response_head(&self.buf, head_request)
                        .map_err(|e| e.to_string())?
                        .unwrap();
                    self.buf.drain(..n);
                    if status == 100 {
                        continue;
                    }
                    let mut dec = BodyDecoder::new(parsed.framing);
                    let mut body = Vec::new();
                    loop {
                        let used = dec
                            .decode(&self.buf, |b| body.extend_from_slice(b))
                            .map_err(|e| e.to_string())?;
                        self.buf.drain(..used);
                        if dec.is_done() {
                            break;
                        }
                        match self.fill() {
                            Ok(0) if parsed.framing == Framing::Close => break,
                            Ok(0) => return Err("eof in body".into()),
                            Ok(_) => {}
                            Err(e) => return Err(format!("read: {e}")),
                        }
                    }
                    return Ok(Resp {
                        status,
                        headers,
                        body,
                    });
                }
                Ok(httparse::Status::Partial) => match self.fill() {
                    Ok(0) if self.buf.is_empty() => return Err("eof".into()),
                    Ok(0) => return Err("eof in head".into()),
                    Ok(_) => {}
                    Err(e) if e.kind() == ErrorKind::ConnectionReset => return Err("reset".into()),
                    Err(e) => return Err(format!("read: {e}")),
                },
                Err(e) => return Err(format!("bad response: {e}")),
            }
        }
    }

    /// True when the server closed the connection (EOF) before any more bytes.
    pub fn closed(&mut self) -> bool {
        self.buf.is_empty() && matches!(self.fill(), Ok(0) | Err(_))
    }
}

/// One request on a fresh connection.
pub fn get(addr: SocketAddr, target: &str) -> Resp {
    request(
        addr,
        format!("GET {target} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes(),
    )
}

pub fn request(addr: SocketAddr, raw: &[u8]) -> Resp {
    let mut r = Reader::new(connect(addr));
    r.send(raw);
    r.response(raw.starts_with(b"HEAD ")).expect("a response")
}
