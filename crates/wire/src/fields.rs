//! What HTTP/2 and HTTP/3 share above their header compression: a request's field list
//! (pseudo-headers, then headers without the connection-specific ones, then `content-length`),
//! a request given as HTTP/1.1 text (a script's) taken apart for them, and the two response
//! values every client reads (`content-length`, `:status`). HPACK and QPACK then encode the list
//! each in their own way.

/// Fields HTTP/2 and HTTP/3 forbid (RFC 9113 §8.2.2, RFC 9114 §4.2) or express otherwise
/// (`host` is `:authority`).
fn connection_specific(name: &str) -> bool {
    matches!(
        name,
        "connection" | "keep-alive" | "proxy-connection" | "transfer-encoding" | "upgrade" | "host"
    )
}

/// `method scheme://authority path` with `headers` (names lower-cased; the connection-specific
/// ones HTTP/1.1 uses left out) and, for a non-empty `body`, a `content-length` unless given.
pub(crate) fn request_fields(
    method: &str,
    scheme: &str,
    authority: &str,
    path: &str,
    headers: &[(String, String)],
    body: &[u8],
) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut fields: Vec<(Vec<u8>, Vec<u8>)> = vec![
        (b":method".to_vec(), method.as_bytes().to_vec()),
        (b":scheme".to_vec(), scheme.as_bytes().to_vec()),
        (b":authority".to_vec(), authority.as_bytes().to_vec()),
        (b":path".to_vec(), path.as_bytes().to_vec()),
    ];
    let mut has_length = false;
    for (n, v) in headers {
        let n = n.to_ascii_lowercase();
        if connection_specific(&n) {
            continue;
        }
        has_length |= n == "content-length";
        fields.push((n.into_bytes(), v.as_bytes().to_vec()));
    }
    if !body.is_empty() && !has_length {
        fields.push((
            b"content-length".to_vec(),
            body.len().to_string().into_bytes(),
        ));
    }
    fields
}

/// One HTTP/1.1 request's text (a script's `request()`), taken apart for HTTP/2 or HTTP/3: the
/// parts `new` encodes (method, scheme, authority, path, headers, body) to `scheme://authority`
/// (its Host header, if any, names the authority; content-length is the body's and left for
/// `new` to write). None when the text is not one whole request (the engine checked it before).
pub(crate) fn request_of_text<R>(
    text: &[u8],
    scheme: &str,
    authority: &str,
    new: impl FnOnce(&str, &str, &str, &str, &[(String, String)], &[u8]) -> R,
) -> Option<R> {
    let mut slots = crate::header_slots();
    let head = crate::parse_request_head(text, &mut slots, text.len()).ok()??;
    let len = match head.framing {
        crate::Framing::Length(n) => usize::try_from(n).ok()?,
        crate::Framing::Empty => 0,
        _ => return None,
    };
    let body = text.get(head.head_len..head.head_len.checked_add(len)?)?;
    let mut host = authority;
    let mut headers = Vec::with_capacity(head.headers.len());
    for h in head.headers {
        let value = std::str::from_utf8(h.value).ok()?;
        if h.name.eq_ignore_ascii_case("host") {
            host = value;
        } else if !h.name.eq_ignore_ascii_case("content-length") {
            headers.push((h.name.to_string(), value.to_string()));
        }
    }
    Some(new(head.method, scheme, host, head.target, &headers, body))
}

/// The last request text taken apart and encoded, so that a script's `request()` that returns
/// the same text again is not parsed and encoded again (wrk's rule for a repeated request):
/// one entry per connection, so its memory is one request's.
#[derive(Debug)]
pub(crate) struct LastText<R> {
    text: Vec<u8>,
    encoded: Option<R>,
}

impl<R> Default for LastText<R> {
    fn default() -> Self {
        LastText {
            text: Vec::new(),
            encoded: None,
        }
    }
}

impl<R: Clone> LastText<R> {
    /// `text` encoded by `make`, or a copy of the last encoding when `text` is the last text.
    pub(crate) fn get(&mut self, text: &[u8], make: impl FnOnce(&[u8]) -> Option<R>) -> Option<R> {
        if let Some(r) = self.encoded.as_ref().filter(|_| self.text == text) {
            return Some(r.clone());
        }
        let r = make(text)?;
        self.text.clear();
        self.text.extend_from_slice(text);
        self.encoded = Some(r.clone());
        Some(r)
    }
}

/// A `content-length` value: one decimal number (RFC 9110 §8.6), else None.
pub(crate) fn parse_length(v: &[u8]) -> Option<u64> {
    if v.is_empty() || v.len() > 19 || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(v.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0')))
}

/// A `:status` value: three digits, else 0 (which a stream's end reports as malformed).
pub(crate) fn parse_status(v: &[u8]) -> u16 {
    match v {
        [a, b, c] if v.iter().all(u8::is_ascii_digit) && *a != b'0' => {
            u16::from(a - b'0') * 100 + u16::from(b - b'0') * 10 + u16::from(c - b'0')
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text that repeats the last one is a copy of its encoding, not encoded again; a text
    /// that cannot be taken apart leaves the last one in place.
    #[test]
    fn a_repeated_text_is_encoded_once() {
        let mut last = LastText::default();
        let mut made = 0;
        for t in [&b"a"[..], b"a", b"b", b"b", b"a"] {
            let r = last.get(t, |t| {
                made += 1;
                Some(t.to_vec())
            });
            assert_eq!(r.as_deref(), Some(t));
        }
        assert_eq!(made, 3);
        assert_eq!(last.get(b"bad", |_| None), None);
        assert_eq!(last.get(b"a", |_| unreachable!()), Some(b"a".to_vec()));
    }

    #[test]
    fn fields_in_order_without_connection_headers() {
        let h = |n: &str, v: &str| (n.to_string(), v.to_string());
        let f = request_fields(
            "POST",
            "https",
            "a:1",
            "/p",
            &[h("Host", "x"), h("X-A", "1"), h("Connection", "close")],
            b"abc",
        );
        let got: Vec<(&[u8], &[u8])> = f.iter().map(|(n, v)| (&n[..], &v[..])).collect();
        let want: Vec<(&[u8], &[u8])> = vec![
            (b":method", b"POST"),
            (b":scheme", b"https"),
            (b":authority", b"a:1"),
            (b":path", b"/p"),
            (b"x-a", b"1"),
            (b"content-length", b"3"),
        ];
        assert_eq!(got, want);
        let given = request_fields(
            "POST",
            "http",
            "a",
            "/",
            &[h("Content-Length", "3")],
            b"abc",
        );
        assert_eq!(
            given.iter().filter(|(n, _)| n == b"content-length").count(),
            1
        );
    }

    #[test]
    fn lengths_and_statuses() {
        assert_eq!(parse_length(b"0"), Some(0));
        assert_eq!(parse_length(b"1234"), Some(1234));
        for bad in [&b""[..], b"-1", b"1 2", b"12345678901234567890"] {
            assert_eq!(parse_length(bad), None, "{bad:?}");
        }
        assert_eq!(parse_status(b"200"), 200);
        for bad in [&b"20"[..], b"099", b"2000", b"2x0"] {
            assert_eq!(parse_status(bad), 0, "{bad:?}");
        }
    }
}
