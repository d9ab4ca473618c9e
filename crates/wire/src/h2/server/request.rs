//! A request's header block as the server checks it (RFC 9113 §8.2, §8.3): each decoded field
//! is validated and kept in one reusable buffer ([`Fields`]) while [`Block`] tracks what the
//! block has shown so far (pseudo-header fields, content-length); a complete, valid block is
//! handed out as a [`Request`] borrowing that buffer.

use super::super::hpack;
use super::ErrorCode;

/// A request whose header block is complete and valid.
#[derive(Debug)]
pub struct Request<'a> {
    pub stream: u32,
    pub method: &'a str,
    /// `:path`, query included.
    pub path: &'a str,
    pub authority: &'a str,
    /// The request has no body (END_STREAM on its HEADERS).
    pub end_stream: bool,
    pub content_length: Option<u64>,
    pub(super) fields: &'a Fields,
}

impl<'a> Request<'a> {
    /// The regular header fields in order (pseudo-header fields left out).
    pub fn headers(&self) -> impl Iterator<Item = (&'a str, &'a [u8])> + 'a {
        FieldsRef(self.fields).iter()
    }

    /// The regular header fields, to iterate as often as needed.
    pub fn fields(&self) -> FieldsRef<'a> {
        FieldsRef(self.fields)
    }
}

/// A request's decoded header block, borrowed from the session.
#[derive(Debug, Clone, Copy)]
pub struct FieldsRef<'a>(&'a Fields);

impl<'a> FieldsRef<'a> {
    /// The regular header fields in order (pseudo-header fields left out).
    pub fn iter(self) -> impl Iterator<Item = (&'a str, &'a [u8])> + 'a {
        let f = self.0;
        f.idx
            .iter()
            .map(move |&(n0, n1, v1)| {
                let name = std::str::from_utf8(&f.bytes[n0 as usize..n1 as usize]).unwrap_or("");
                (name, &f.bytes[n1 as usize..v1 as usize])
            })
            .filter(|(n, _)| !n.starts_with(':'))
    }
}

/// The header fields of the block being decoded: names and values back to back in `bytes`,
/// `idx` holding (name start, name end = value start, value end) per field.
#[derive(Debug, Default)]
pub(super) struct Fields {
    pub(super) bytes: Vec<u8>,
    pub(super) idx: Vec<(u32, u32, u32)>,
}

/// The checks of the header block being decoded (§8.3.1).
#[derive(Debug, Default)]
pub(super) struct Block {
    pub(super) stream: u32,
    pub(super) end_stream: bool,
    /// A trailer block (the stream's request head came before).
    pub(super) trailers: bool,
    /// Decode it to keep HPACK in step, then reset the stream with this code (no request).
    pub(super) discard: Option<ErrorCode>,
    /// Ignore it altogether (a new stream after our GOAWAY).
    pub(super) ignore: bool,
    pub(super) malformed: bool,
    pub(super) regular_seen: bool,
    pub(super) method: Option<(u32, u32)>,
    pub(super) path: Option<(u32, u32)>,
    pub(super) scheme: bool,
    pub(super) authority: Option<(u32, u32)>,
    pub(super) content_length: Option<u64>,
    pub(super) size: u64,
}

/// Header fields that belong to one HTTP/1.1 connection and may not appear in HTTP/2 (§8.2.2).
fn connection_specific(name: &[u8]) -> bool {
    matches!(
        name,
        b"connection" | b"keep-alive" | b"proxy-connection" | b"transfer-encoding" | b"upgrade"
    )
}

/// Checks one decoded field of the block in progress and keeps it (§8.2, §8.3.1).
pub(super) fn check_field(
    block: &mut Block,
    fields: &mut Fields,
    name: &[u8],
    value: &[u8],
    limit: u32,
) {
    if block.ignore || block.discard.is_some() {
        return;
    }
    block.size += hpack::entry_size(name, value) as u64;
    if block.size > u64::from(limit) {
        // Too large: stop keeping fields (the stream is answered 431), but go on checking.
        return;
    }
    // §8.2.1: no controls, spaces, uppercase, DEL, non-ASCII or colons in a name (but the
    // first of a pseudo-header's); no NUL, CR or LF in a value.
    let bad = name.is_empty()
        || name.iter().enumerate().any(|(i, &c)| {
            c <= b' ' || c >= 0x7f || c.is_ascii_uppercase() || (c == b':' && i > 0)
        })
        || value.iter().any(|&c| c == 0 || c == b'\r' || c == b'\n');
    if bad {
        block.malformed = true;
        return;
    }
    let start = fields.bytes.len() as u32;
    fields.bytes.extend_from_slice(name);
    let mid = fields.bytes.len() as u32;
    fields.bytes.extend_from_slice(value);
    let end = fields.bytes.len() as u32;
    fields.idx.push((start, mid, end));
    if name[0] == b':' {
        if block.regular_seen || block.trailers {
            block.malformed = true;
            return;
        }
        let slot = match name {
            b":method" => &mut block.method,
            b":path" => &mut block.path,
            b":authority" => &mut block.authority,
            b":scheme" => {
                if block.scheme {
                    block.malformed = true;
                }
                block.scheme = true;
                return;
            }
            _ => {
                block.malformed = true;
                return;
            }
        };
        // The request sees these as text: a method is a token (RFC 9110 §9.1), and the path
        // and authority must be UTF-8 (else they would be passed on as "").
        let ok = match name {
            b":method" => !value.is_empty() && value.iter().all(|&c| is_tchar(c)),
            _ => std::str::from_utf8(value).is_ok(),
        };
        if slot.is_some() || !ok {
            block.malformed = true;
        }
        *slot = Some((mid, end));
        return;
    }
    block.regular_seen = true;
    if connection_specific(name) || (name == b"te" && value != b"trailers") {
        block.malformed = true;
    } else if name == b"content-length" {
        let n = std::str::from_utf8(value)
            .ok()
            .filter(|v| !v.is_empty() && v.bytes().all(|c| c.is_ascii_digit()))
            .and_then(|v| v.parse::<u64>().ok());
        match (n, block.content_length) {
            (Some(n), None) => block.content_length = Some(n),
            (Some(n), Some(m)) if n == m => {}
            _ => block.malformed = true,
        }
    }
}

/// A token character (RFC 9110 §5.6.2).
fn is_tchar(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn malformed(fields: &[(&[u8], &[u8])]) -> bool {
        let mut block = Block::default();
        let mut kept = Fields::default();
        for (n, v) in fields {
            check_field(&mut block, &mut kept, n, v, 16 * 1024);
        }
        block.malformed
    }

    /// Found by the `h2_server` fuzz target: a `:method` that is not UTF-8 was handed on as "".
    #[test]
    fn pseudo_headers_the_request_reads_as_text_must_be_text() {
        let ok: &[(&[u8], &[u8])] = &[(b":method", b"GET"), (b":path", b"/caf\xc3\xa9")];
        assert!(!malformed(ok));
        for bad in [
            (&b":method"[..], &b"PO\xa9T"[..]),
            (b":method", b""),
            (b":method", b"GET /"),
            (b":path", b"/\xff"),
            (b":authority", b"h\xc3"),
        ] {
            assert!(malformed(&[bad]), "{bad:?}");
        }
    }

    #[test]
    fn field_names_are_lowercase_tokens() {
        assert!(!malformed(&[(b"x-a", b"1")]));
        for name in [
            &b"X-A"[..],
            b"x a",
            b"x\x01",
            b"x\xc3\xa9",
            b"x:y",
            b"x\x7f",
        ] {
            assert!(malformed(&[(name, b"1")]), "{name:?}");
        }
    }
}
