//! gRPC server reflection, for a `--grpc` load given neither `--proto` nor `--protoset`: before
//! the load, one call of `ServerReflectionInfo` on a connection of its own (HTTP/2 over the
//! load's transport: h2c, or TLS with ALPN h2), asking for the file that declares `--call`'s
//! service; the files answered (the server sends the ones it imports too) become the schema.
//! `grpc.reflection.v1` first; a server that does not serve it (UNIMPLEMENTED) is asked in
//! `v1alpha`, as grpcurl does. The exchange is written with wire's own pieces: the HTTP/2
//! session for frames, SETTINGS and HPACK, gRPC's response reader for the answer.

use barrage_proto::reflection::{Answer, Reflection, Request, Version};
use barrage_proto::Schema;
use barrage_wire::grpc::{encode_message, Code, Outcome, Response};
use barrage_wire::h2::session::{Event, Session};
use barrage_wire::h2::{frame, hpack, Settings, PREFACE};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// The largest reflection answer read.
const MAX_ANSWER: u32 = 16 << 20;

/// Where and how to ask.
pub(crate) struct Peer<'a> {
    pub addr: SocketAddr,
    /// The URL's host and port, for `:authority` (and TLS's server name).
    pub authority: &'a str,
    pub host: &'a str,
    pub tls: bool,
    pub insecure: bool,
    pub timeout: Duration,
}

/// The schema of `service` as the server reflects it.
pub(crate) fn schema(peer: &Peer<'_>, service: &str) -> Result<Schema, String> {
    let why = |e: String| format!("server reflection at {}: {e}", peer.authority);
    let mut files = None;
    for version in [Version::V1, Version::V1Alpha] {
        match ask(peer, version, service).map_err(why)? {
            Asked::Files(f) => {
                files = Some(f);
                break;
            }
            Asked::Unimplemented => continue,
        }
    }
    let files = files.ok_or_else(|| {
        why(
            "the server serves no reflection (UNIMPLEMENTED in v1 and v1alpha): give --proto \
             or --protoset"
                .into(),
        )
    })?;
    Schema::from_file_descriptors(&files).map_err(|e| why(e.to_string()))
}

enum Asked {
    Files(Vec<Vec<u8>>),
    Unimplemented,
}

/// A blocking byte stream: TCP or TLS over it.
trait Conn: Read + Write {}
impl<T: Read + Write> Conn for T {}

fn connect(peer: &Peer<'_>) -> Result<Box<dyn Conn>, String> {
    let tcp = TcpStream::connect_timeout(&peer.addr, peer.timeout)
        .map_err(|e| format!("cannot connect: {e}"))?;
    tcp.set_read_timeout(Some(peer.timeout))
        .map_err(|e| e.to_string())?;
    tcp.set_nodelay(true).map_err(|e| e.to_string())?;
    if !peer.tls {
        return Ok(Box::new(tcp));
    }
    let config = crate::tls::client_config(peer.insecure, &[b"h2"]);
    let name = crate::tls::server_name(peer.host)
        .map_err(|()| format!("invalid TLS server name {:?}", peer.host))?;
    let conn = rustls::ClientConnection::new(config, name).map_err(|e| e.to_string())?;
    Ok(Box::new(rustls::StreamOwned::new(conn, tcp)))
}

/// One `ServerReflectionInfo` call in `version` asking for the file of `service`.
fn ask(peer: &Peer<'_>, version: Version, service: &str) -> Result<Asked, String> {
    let proto = Reflection::new(version);
    let mut conn = connect(peer)?;
    let mut session = Session::new(Settings::default(), 1 << 20);
    let mut out = PREFACE.to_vec();
    session.start(&mut out);

    // The call's head and its one request message, the stream half-closed after it.
    let mut block = Vec::new();
    hpack::encode_indexed(&mut block, 3); // :method POST
    hpack::encode_indexed(&mut block, if peer.tls { 7 } else { 6 }); // :scheme
    let path = version.path();
    let never = hpack::Indexing::Without;
    hpack::encode_literal(&mut block, 4, b"", path.as_bytes(), never);
    hpack::encode_literal(&mut block, 1, b"", peer.authority.as_bytes(), never);
    hpack::encode_literal(&mut block, 31, b"", b"application/grpc", never);
    hpack::encode_literal(&mut block, 0, b"te", b"trailers", never);
    frame::write_headers(&mut out, 1, &block, false, 16_384);
    let mut msg = Vec::new();
    let request = proto.request(&Request::FileContainingSymbol(service.to_owned()));
    encode_message(&request, false, &mut msg).map_err(|e| e.to_string())?;
    frame::write_data_header(&mut out, 1, msg.len(), true);
    out.extend_from_slice(&msg);
    conn.write_all(&out).map_err(|e| format!("write: {e}"))?;
    conn.flush().map_err(|e| format!("write: {e}"))?;

    // The reflection method is a bidirectional stream: any number of replies.
    let mut response = Response::new(MAX_ANSWER, false);
    let mut answers: Vec<Vec<u8>> = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut have = 0;
    let deadline = Instant::now() + peer.timeout;
    let outcome = loop {
        if Instant::now() > deadline {
            return Err(format!("no answer within {:?}", peer.timeout));
        }
        if have == buf.len() {
            // A frame larger than the buffer: it grows with it (bounded by the frame size the
            // session allows).
            buf.resize(buf.len() * 2, 0);
        }
        let n = conn
            .read(&mut buf[have..])
            .map_err(|e| format!("read: {e}"))?;
        if n == 0 {
            return Err("the connection closed before the answer".into());
        }
        have += n;
        out.clear();
        let mut done = None;
        let used = session
            .feed(&buf[..have], &mut out, &mut |ev| {
                if done.is_some() {
                    return;
                }
                done = match ev {
                    Event::Header {
                        stream: 1,
                        name,
                        value,
                    } => {
                        response.header(name, value);
                        None
                    }
                    Event::HeadersEnd {
                        stream: 1,
                        end_stream,
                        ..
                    } => response.headers_end(end_stream).map(Ok),
                    Event::Data {
                        stream: 1,
                        data,
                        end_stream,
                    } => response
                        .data(data, end_stream, &mut |m| answers.push(m.to_vec()))
                        .map(Ok),
                    Event::Reset { stream: 1, code } => {
                        Some(Err(format!("the server reset the call ({})", code.name())))
                    }
                    _ => None,
                };
            })
            .map_err(|e| format!("HTTP/2: {} ({})", e.what, e.code.name()))?;
        buf.copy_within(used..have, 0);
        have -= used;
        if !out.is_empty() {
            conn.write_all(&out).map_err(|e| format!("write: {e}"))?;
        }
        if let Some(o) = done {
            break o?;
        }
    };
    match outcome {
        Outcome::Status { code: Code::Ok, .. } => {}
        Outcome::Status {
            code: Code::Unimplemented,
            ..
        } => return Ok(Asked::Unimplemented),
        Outcome::Status { code, message, .. } => return Err(format!("{} {message}", code.name())),
        Outcome::Broken(e) => return Err(e.to_string()),
    }
    let mut files = Vec::new();
    for a in &answers {
        match proto.read_answer(a).map_err(|e| e.to_string())? {
            Answer::Files(f) => files.extend(f),
            Answer::Error { code, message } => {
                return Err(format!("{service}: error {code}: {message}"))
            }
            Answer::Services(_) => {}
        }
    }
    if files.is_empty() {
        return Err(format!("no file declares {service}"));
    }
    Ok(Asked::Files(files))
}
