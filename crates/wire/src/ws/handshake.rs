//! The opening handshake (RFC 6455 §4) over HTTP/1.1, both roles: a server checks an upgrade
//! request ([`server_accept`]) and answers 101 ([`write_accept`]); a client writes its request
//! ([`write_request`]) and checks the answer ([`check_response`]). `Sec-WebSocket-Accept` is the
//! base64 of the SHA-1 of the key and the GUID; SHA-1 is ring's (already in the build through
//! rustls), kept for this legacy use only.

use crate::body::connection_has;
use crate::request::RequestHead;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use thiserror::Error;

/// The GUID every accept key is made with (§1.3).
pub const GUID: &[u8] = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// The only protocol version (`Sec-WebSocket-Version`).
pub const VERSION: &str = "13";

/// A `Sec-WebSocket-Key`: 16 bytes in base64.
pub type Key = [u8; 24];

/// A `Sec-WebSocket-Accept`: 20 bytes (a SHA-1) in base64.
pub type Accept = [u8; 28];

/// Why an opening handshake failed. On the server side, [`HandshakeError::status`] is the
/// answer.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HandshakeError {
    #[error("a WebSocket upgrade must be a GET")]
    NotGet,
    #[error("a WebSocket upgrade needs HTTP/1.1")]
    NotHttp11,
    #[error("no `Upgrade: websocket`")]
    NoUpgrade,
    #[error("no `Connection: Upgrade`")]
    NoConnectionUpgrade,
    #[error("Sec-WebSocket-Version is not 13")]
    BadVersion,
    #[error("Sec-WebSocket-Key is missing or not 16 bytes in base64")]
    BadKey,
    #[error("a WebSocket upgrade has no body")]
    Body,
    /// Client side: the server answered something other than 101.
    #[error("the server answered {0}, not 101")]
    Status(u16),
    #[error("Sec-WebSocket-Accept is missing or does not match the key")]
    BadAccept,
    #[error("the server chose an extension or subprotocol that was not offered")]
    NotOffered,
    #[error("malformed response head")]
    Malformed,
}

impl HandshakeError {
    /// The status a server answers with: 426 (with `Upgrade: websocket` and
    /// `Sec-WebSocket-Version: 13`) for a request without the upgrade or with a version it does
    /// not speak, 405 for another method, 400 for the rest.
    pub fn status(&self) -> u16 {
        match self {
            HandshakeError::BadVersion | HandshakeError::NoUpgrade => 426,
            HandshakeError::NotGet => 405,
            _ => 400,
        }
    }
}

/// The accept key for `key` (as sent, base64).
pub fn accept_key(key: &[u8]) -> Accept {
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY);
    ctx.update(key);
    ctx.update(GUID);
    let digest = ctx.finish();
    let mut out = [0u8; 28];
    let n = STANDARD
        .encode_slice(digest.as_ref(), &mut out)
        .expect("20 bytes are 28 in base64");
    debug_assert_eq!(n, 28);
    out
}

/// A client's key for a 16-byte nonce (random per connection).
pub fn client_key(nonce: [u8; 16]) -> Key {
    let mut out = [0u8; 24];
    STANDARD
        .encode_slice(nonce, &mut out)
        .expect("16 bytes are 24 in base64");
    out
}

/// Whether any of the header fields `name` lists `token` (comma-separated, any case).
fn lists(headers: &[httparse::Header<'_>], name: &str, token: &[u8]) -> bool {
    headers
        .iter()
        .any(|h| h.name.eq_ignore_ascii_case(name) && connection_has(h.value, token))
}

/// Server side: whether `head` is a valid upgrade request; its accept key if so. Subprotocols
/// and extensions offered are ignored (none is chosen), as §4.2.2 allows.
pub fn server_accept(head: &RequestHead<'_, '_>) -> Result<Accept, HandshakeError> {
    if head.method != "GET" {
        return Err(HandshakeError::NotGet);
    }
    if head.version_minor < 1 {
        return Err(HandshakeError::NotHttp11);
    }
    if !lists(head.headers, "upgrade", b"websocket") {
        return Err(HandshakeError::NoUpgrade);
    }
    if !lists(head.headers, "connection", b"upgrade") {
        return Err(HandshakeError::NoConnectionUpgrade);
    }
    if head.header("sec-websocket-version").map(trim) != Some(VERSION.as_bytes()) {
        return Err(HandshakeError::BadVersion);
    }
    let key = head
        .header("sec-websocket-key")
        .map(trim)
        .ok_or(HandshakeError::BadKey)?;
    let mut nonce = [0u8; 18];
    match STANDARD.decode_slice(key, &mut nonce) {
        Ok(16) if key.len() == 24 => {}
        _ => return Err(HandshakeError::BadKey),
    }
    if head.framing != crate::Framing::Empty {
        return Err(HandshakeError::Body);
    }
    Ok(accept_key(key))
}

fn trim(v: &[u8]) -> &[u8] {
    let start = v
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(v.len());
    let end = v
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &v[start..end]
}

/// Server side: appends the 101 answer (with `extra` header lines, each ending in CRLF).
pub fn write_accept(out: &mut Vec<u8>, accept: &Accept, extra: &[u8]) {
    out.extend_from_slice(
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ",
    );
    out.extend_from_slice(accept);
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(extra);
    out.extend_from_slice(b"\r\n");
}

/// Client side: appends the upgrade request for `path` on `host` (as the Host field has it),
/// with the caller's `headers` after the handshake's own (a `Host` among them replaces `host`).
/// The caller keeps the handshake's own fields out of `headers` (the load's config refuses
/// them) and checks each line as the wire allows it.
pub fn write_request(
    out: &mut Vec<u8>,
    host: &str,
    path: &str,
    key: &Key,
    headers: &[(String, String)],
) {
    let own_host = headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host"));
    for part in ["GET ", path, " HTTP/1.1\r\n"] {
        out.extend_from_slice(part.as_bytes());
    }
    if !own_host {
        for part in ["Host: ", host, "\r\n"] {
            out.extend_from_slice(part.as_bytes());
        }
    }
    out.extend_from_slice(
        b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ",
    );
    out.extend_from_slice(key);
    out.extend_from_slice(b"\r\n");
    for (name, value) in headers {
        for part in [name, ": ", value, "\r\n"] {
            out.extend_from_slice(part.as_bytes());
        }
    }
    out.extend_from_slice(b"\r\n");
}

/// Client side: checks the server's answer at the front of `buf` against the `key` sent and
/// the subprotocols offered (the `Sec-WebSocket-Protocol` values sent, comma-separated; empty
/// for none): the server may choose one of those, and nothing else (§4.1).
/// `Ok(None)`: more bytes needed; `Ok(Some(n))`: upgraded, frames start at `n`.
pub fn check_response(
    buf: &[u8],
    key: &Key,
    offered: &[u8],
) -> Result<Option<usize>, HandshakeError> {
    let mut headers = [httparse::EMPTY_HEADER; crate::MAX_HEADERS];
    let mut resp = httparse::Response::new(&mut headers);
    let n = match resp.parse(buf) {
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) => return Ok(None),
        Err(_) => return Err(HandshakeError::Malformed),
    };
    let status = resp.code.ok_or(HandshakeError::Malformed)?;
    if status != 101 {
        return Err(HandshakeError::Status(status));
    }
    if !lists(resp.headers, "upgrade", b"websocket") {
        return Err(HandshakeError::NoUpgrade);
    }
    if !lists(resp.headers, "connection", b"upgrade") {
        return Err(HandshakeError::NoConnectionUpgrade);
    }
    let find = |name: &str| {
        resp.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| trim(h.value))
    };
    if find("sec-websocket-accept") != Some(&accept_key(key)[..]) {
        return Err(HandshakeError::BadAccept);
    }
    if find("sec-websocket-extensions").is_some() {
        return Err(HandshakeError::NotOffered);
    }
    if let Some(chosen) = find("sec-websocket-protocol") {
        if !offered.split(|&b| b == b',').any(|p| trim(p) == chosen) || chosen.is_empty() {
            return Err(HandshakeError::NotOffered);
        }
    }
    Ok(Some(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{header_slots, parse_request_head};

    #[test]
    fn rfc_example_key() {
        // RFC 6455 §1.3.
        assert_eq!(
            &accept_key(b"dGhlIHNhbXBsZSBub25jZQ=="),
            b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
        assert_eq!(
            &client_key(*b"the sample nonce"),
            b"dGhlIHNhbXBsZSBub25jZQ=="
        );
    }

    fn server(req: &str) -> Result<Accept, HandshakeError> {
        let mut slots = header_slots();
        let head = parse_request_head(req.as_bytes(), &mut slots, 8192)
            .unwrap()
            .expect("a whole head");
        server_accept(&head)
    }

    #[test]
    fn server_requests() {
        let ok = "GET /ws/echo HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
        let want: Accept = *b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";
        let cases: Vec<(String, Result<Accept, HandshakeError>)> = vec![
            (ok.into(), Ok(want)),
            // Tokens in any case, among others, over several fields.
            (
                ok.replace("Upgrade: websocket", "upgrade: WebSocket")
                    .replace(
                        "Connection: Upgrade",
                        "Connection: keep-alive\r\nConnection: x, UPGRADE",
                    ),
                Ok(want),
            ),
            (ok.replace("GET", "POST"), Err(HandshakeError::NotGet)),
            (
                ok.replace("HTTP/1.1", "HTTP/1.0"),
                Err(HandshakeError::NotHttp11),
            ),
            (
                ok.replace("Upgrade: websocket\r\n", ""),
                Err(HandshakeError::NoUpgrade),
            ),
            (
                ok.replace("websocket", "h2c"),
                Err(HandshakeError::NoUpgrade),
            ),
            (
                ok.replace("Connection: Upgrade", "Connection: keep-alive"),
                Err(HandshakeError::NoConnectionUpgrade),
            ),
            (
                ok.replace("Version: 13", "Version: 8"),
                Err(HandshakeError::BadVersion),
            ),
            (
                ok.replace("Sec-WebSocket-Version: 13\r\n", ""),
                Err(HandshakeError::BadVersion),
            ),
            (
                ok.replace("dGhlIHNhbXBsZSBub25jZQ==", "dGhlIHNhbXBsZQ=="),
                Err(HandshakeError::BadKey),
            ),
            (
                ok.replace("dGhlIHNhbXBsZSBub25jZQ==", "!!!!!!!!!!!!!!!!!!!!!!=="),
                Err(HandshakeError::BadKey),
            ),
            (
                ok.replace("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n", ""),
                Err(HandshakeError::BadKey),
            ),
            (
                ok.replace("\r\n\r\n", "\r\nContent-Length: 3\r\n\r\n"),
                Err(HandshakeError::Body),
            ),
        ];
        for (req, want) in cases {
            assert_eq!(server(&req), want, "{req}");
        }
        assert_eq!(HandshakeError::BadVersion.status(), 426);
        assert_eq!(HandshakeError::BadKey.status(), 400);
    }

    #[test]
    fn client_meets_server() {
        let key = client_key(*b"0123456789abcdef");
        let mut req = Vec::new();
        write_request(&mut req, "example.com:80", "/ws/echo", &key, &[]);
        let accept = server(std::str::from_utf8(&req).unwrap()).unwrap();
        let mut resp = Vec::new();
        write_accept(&mut resp, &accept, b"Server: barrage\r\n");
        let mut with_frame = resp.clone();
        with_frame.extend_from_slice(b"\x81\x00");
        for cut in 0..resp.len() {
            assert_eq!(
                check_response(&resp[..cut], &key, b""),
                Ok(None),
                "cut at {cut}"
            );
        }
        assert_eq!(check_response(&with_frame, &key, b""), Ok(Some(resp.len())));
        let other = client_key(*b"fedcba9876543210");
        assert_eq!(
            check_response(&resp, &other, b""),
            Err(HandshakeError::BadAccept)
        );
        let text = String::from_utf8(resp).unwrap();
        let cases = [
            (
                text.replace("101 Switching Protocols", "200 OK"),
                HandshakeError::Status(200),
            ),
            (
                text.replace("Upgrade: websocket\r\n", ""),
                HandshakeError::NoUpgrade,
            ),
            (
                text.replace("Connection: Upgrade", "Connection: close"),
                HandshakeError::NoConnectionUpgrade,
            ),
            (
                text.replace(
                    "Server:",
                    "Sec-WebSocket-Extensions: permessage-deflate\r\nServer:",
                ),
                HandshakeError::NotOffered,
            ),
            (
                "HTTP/1.1 1x1 No\r\n\r\n".to_string(),
                HandshakeError::Malformed,
            ),
        ];
        for (resp, want) in cases {
            assert_eq!(
                check_response(resp.as_bytes(), &key, b""),
                Err(want),
                "{resp}"
            );
        }
    }

    /// The caller's headers go on the upgrade after the handshake's own; its Host replaces the
    /// URL's; a server may choose a subprotocol that was offered, and no other.
    #[test]
    fn client_headers_and_subprotocols() {
        let key = client_key(*b"0123456789abcdef");
        let headers = [
            ("Authorization".to_string(), "Bearer t0k".to_string()),
            (
                "Sec-WebSocket-Protocol".to_string(),
                "chat.v2, chat".to_string(),
            ),
        ];
        let mut req = Vec::new();
        write_request(&mut req, "example.com:80", "/ws", &key, &headers);
        let text = std::str::from_utf8(&req).unwrap();
        assert!(text.ends_with(
            "Sec-WebSocket-Key: MDEyMzQ1Njc4OWFiY2RlZg==\r\nAuthorization: Bearer t0k\r\nSec-WebSocket-Protocol: chat.v2, chat\r\n\r\n"
        ), "{text}");
        let mut slots = header_slots();
        let head = parse_request_head(&req, &mut slots, 8192).unwrap().unwrap();
        assert_eq!(head.header("host"), Some(&b"example.com:80"[..]));
        assert_eq!(head.header("authorization"), Some(&b"Bearer t0k"[..]));
        let accept = server_accept(&head).unwrap();
        let with_host = [("host".to_string(), "other:81".to_string())];
        let mut req = Vec::new();
        write_request(&mut req, "example.com:80", "/ws", &key, &with_host);
        let head = parse_request_head(&req, &mut slots, 8192).unwrap().unwrap();
        assert_eq!(
            head.header("host"),
            Some(&b"other:81"[..]),
            "one Host, the caller's"
        );
        let offered = b"chat.v2, chat";
        let cases: [(&[u8], &[u8], bool); 6] = [
            (b"", b"", true),
            (b"chat", offered, true),
            (b" chat.v2 ", offered, true),
            (b"chat", b"", false),
            (b"chat.v3", offered, false),
            (b"", offered, false),
        ];
        for (chosen, offered, ok) in cases {
            let mut resp = Vec::new();
            let extra = if chosen.is_empty() && ok {
                Vec::new()
            } else {
                [b"Sec-WebSocket-Protocol: ", chosen, b"\r\n"].concat()
            };
            write_accept(&mut resp, &accept, &extra);
            let got = check_response(&resp, &key, offered);
            let want = if ok {
                Ok(Some(resp.len()))
            } else {
                Err(HandshakeError::NotOffered)
            };
            assert_eq!(got, want, "{:?} of {:?}", chosen, offered);
        }
    }
}
