//! nodejs/http-parser 2.9.4 (vendored in `barrage-http-parser-sys`) as a request tokeniser.
//!
//! http-parser is event driven: it calls back with pieces of the URL, header names and values as
//! it meets them. Each call here starts a fresh parser on the buffer from the head's first byte
//! (as with httparse, the server hands over the whole head again when more bytes arrive), records
//! the pieces as offsets, and pauses the parser when the head is complete, leaving the body to
//! the common body decoder. Its own rules run too: it refuses methods it does not know, targets
//! outside its URL grammar and a repeated Content-Length, which httparse lets through.

use super::line::{
    has_lone_cr, header_name, header_value, leading_crlfs, request_line, trim_value,
};
use super::{written, Step, Tokens};
use crate::{WireError, MAX_HEADERS};
use barrage_http_parser_sys as hp;
use std::ffi::{c_char, c_int};
use std::mem::MaybeUninit;

/// A token's place in the head: (start, length).
type Span = (usize, usize);

#[derive(Clone, Copy, PartialEq)]
enum Last {
    None,
    Field,
    Value,
}

/// What the callbacks collect while the parser runs.
struct State {
    /// Address of the head's first byte: callbacks get pointers, spans are offsets.
    base: usize,
    url: Option<Span>,
    /// (name, value) per header line; the first `n` are written.
    fields: [MaybeUninit<(Span, Span)>; MAX_HEADERS],
    n: usize,
    cap: usize,
    last: Last,
    done: bool,
    too_many: bool,
    /// A token arrived in pieces that do not touch: a folded header value.
    folded: bool,
}

/// Adds a piece to a token: it must continue where the token ended.
fn extend(span: &mut Span, offset: usize, len: usize) -> bool {
    if span.0 + span.1 != offset {
        return false;
    }
    span.1 += len;
    true
}

/// # Safety
/// `p` is the parser that [`tokens`] runs, whose `data` points at its live `State`.
unsafe fn state<'s>(p: *mut hp::HttpParser) -> &'s mut State {
    // SAFETY: see the function's contract.
    unsafe { &mut *((*p).data as *mut State) }
}

unsafe extern "C" fn on_url(p: *mut hp::HttpParser, at: *const c_char, len: usize) -> c_int {
    // SAFETY: called by http_parser_execute on the parser set up in `tokens`.
    let s = unsafe { state(p) };
    let off = at as usize - s.base;
    let ok = match &mut s.url {
        None => {
            s.url = Some((off, len));
            true
        }
        Some(span) => extend(span, off, len),
    };
    if !ok {
        s.folded = true;
        return 1;
    }
    0
}

unsafe extern "C" fn on_header_field(
    p: *mut hp::HttpParser,
    at: *const c_char,
    len: usize,
) -> c_int {
    // SAFETY: called by http_parser_execute on the parser set up in `tokens`.
    let s = unsafe { state(p) };
    let off = at as usize - s.base;
    if s.last == Last::Field {
        // SAFETY: Last::Field means field n-1 was written.
        let (name, _) = unsafe { s.fields[s.n - 1].assume_init_mut() };
        if !extend(name, off, len) {
            s.folded = true;
            return 1;
        }
        return 0;
    }
    if s.n == s.cap {
        s.too_many = true;
        return 1;
    }
    s.fields[s.n] = MaybeUninit::new(((off, len), (off + len, 0)));
    s.n += 1;
    s.last = Last::Field;
    0
}

unsafe extern "C" fn on_header_value(
    p: *mut hp::HttpParser,
    at: *const c_char,
    len: usize,
) -> c_int {
    // SAFETY: called by http_parser_execute on the parser set up in `tokens`.
    let s = unsafe { state(p) };
    let off = at as usize - s.base;
    if s.n == 0 {
        s.folded = true;
        return 1;
    }
    // SAFETY: n > 0 fields were written.
    let (_, value) = unsafe { s.fields[s.n - 1].assume_init_mut() };
    if s.last == Last::Value {
        if !extend(value, off, len) {
            s.folded = true;
            return 1;
        }
    } else {
        *value = (off, len);
    }
    s.last = Last::Value;
    0
}

unsafe extern "C" fn on_headers_complete(p: *mut hp::HttpParser) -> c_int {
    // SAFETY: called by http_parser_execute on the parser set up in `tokens`.
    let s = unsafe { state(p) };
    s.done = true;
    // The body is the common decoder's: stop here, on the head's last LF.
    // SAFETY: `p` is a live parser inside its own callback, where pausing is allowed.
    unsafe { hp::http_parser_pause(p, 1) };
    0
}

static SETTINGS: hp::HttpParserSettings = hp::HttpParserSettings {
    on_message_begin: None,
    on_url: Some(on_url),
    on_status: None,
    on_header_field: Some(on_header_field),
    on_header_value: Some(on_header_value),
    on_headers_complete: Some(on_headers_complete),
    on_body: None,
    on_message_complete: None,
    on_chunk_header: None,
    on_chunk_complete: None,
};

/// Splits the head at the start of `buf` with http-parser.
pub(super) fn tokens<'h, 'b>(
    buf: &'b [u8],
    slots: &'h mut [MaybeUninit<httparse::Header<'b>>],
) -> Result<Step<'h, 'b>, WireError> {
    let skip = leading_crlfs(buf);
    let head = &buf[skip..];
    if head.is_empty() {
        // A zero-length execute would mean end of input to http-parser.
        return Ok(Step::Partial);
    }
    let mut s = State {
        base: head.as_ptr() as usize,
        url: None,
        fields: [const { MaybeUninit::uninit() }; MAX_HEADERS],
        n: 0,
        cap: slots.len().min(MAX_HEADERS),
        last: Last::None,
        done: false,
        too_many: false,
        folded: false,
    };
    let mut parser = hp::HttpParser::zeroed();
    // SAFETY: `parser` and `s` live across the call; the callbacks reach `s` only through
    // `data`, and the pointers they get point into `head`, which outlives it.
    let parsed = unsafe {
        hp::http_parser_init(&mut parser, hp::HTTP_REQUEST);
        parser.data = (&mut s as *mut State).cast();
        hp::http_parser_execute(&mut parser, &SETTINGS, head.as_ptr().cast(), head.len())
    };
    if s.too_many {
        return Err(WireError::TooManyHeaders { max: MAX_HEADERS });
    }
    if s.folded {
        // httparse refuses a continuation line's leading space as a header name.
        return Err(WireError::Head("invalid header name"));
    }
    let fields = &s.fields[..s.n];
    match parser.errno() {
        hp::HPE_PAUSED if s.done => {}
        hp::HPE_OK => return Ok(Step::Partial),
        err => return Err(error(err, head, fields)),
    }
    // `execute` stopped on the head's last byte without counting it.
    let head_len = parsed + 1;
    if has_lone_cr(&head[..head_len.min(head.len())]) {
        return Err(WireError::Head("invalid line ending"));
    }
    // A line starting with a blank (obsolete folding), which httparse refuses as a header name:
    // a folded value is caught by its pieces (`folded`), but a blank continuation of an empty
    // value gives no callback at all.
    let blank_line = head[..head_len.min(head.len())]
        .windows(2)
        .any(|w| w[0] == b'\n' && (w[1] == b' ' || w[1] == b'\t'));
    if blank_line {
        return Err(WireError::Head("invalid header name"));
    }
    let url = s.url.ok_or(WireError::Head("missing target"))?;
    if url.0 == 0 {
        return Err(WireError::Head("invalid request line"));
    }
    // The method is what precedes the target's space (http-parser knows it as an enum).
    let (method, target, version_minor) = request_line(head, url.0 - 1, url)?;
    let text = |(start, len): Span| head.get(start..start + len).unwrap_or_default();
    for (slot, f) in slots.iter_mut().zip(fields) {
        // SAFETY: the callbacks wrote the first `n` fields.
        let (name, value) = unsafe { f.assume_init() };
        // A value on its name's line: only the colon and blanks between them. A value that
        // follows an empty one on a continuation line (obsolete folding) arrives in one piece.
        let gap = head.get(name.0 + name.1..value.0).unwrap_or_default();
        let same_line =
            matches!(gap, [b':', blanks @ ..] if blanks.iter().all(|&b| b == b' ' || b == b'\t'));
        if value.1 > 0 && !same_line {
            return Err(WireError::Head("invalid header name"));
        }
        *slot = MaybeUninit::new(httparse::Header {
            name: header_name(text(name))?,
            value: header_value(trim_value(text(value)))?,
        });
    }
    Ok(Step::Complete(Tokens {
        method,
        target,
        version_minor,
        // SAFETY: the loop wrote the first `n` slots (n <= cap <= slots.len()).
        headers: unsafe { written(slots, s.n) },
        head_len: skip + head_len,
    }))
}

/// http-parser's own refusals, as the error httparse's path gives for the same shape where there
/// is one (its Content-Length rules), else its error name.
fn error(err: c_int, head: &[u8], fields: &[MaybeUninit<(Span, Span)>]) -> WireError {
    match hp::errno_name(err) {
        "HPE_INVALID_CONTENT_LENGTH" => WireError::BadContentLength,
        "HPE_UNEXPECTED_CONTENT_LENGTH" => {
            let has_te = fields.iter().any(|f| {
                // SAFETY: `fields` holds the written fields only.
                let ((start, len), _) = unsafe { f.assume_init() };
                head.get(start..start + len)
                    .is_some_and(|n| n.eq_ignore_ascii_case(b"transfer-encoding"))
            });
            if has_te {
                WireError::LengthAndTransferEncoding
            } else {
                WireError::ConflictingContentLength
            }
        }
        name => WireError::Head(name),
    }
}
