//! nodejs/http-parser 2.9.4 (vendored in `barrage-http-parser-sys`) as a request tokeniser.
//!
//! http-parser is event driven: it calls back with pieces of the URL, header names and values as
//! it meets them. Each call here starts a fresh parser on the buffer from the head's first byte
//! (as with httparse, the server hands over the whole head again when more bytes arrive), records
//! the pieces as offsets, and pauses the parser when the head is complete, leaving the body to
//! the common body decoder. Its own rules run too: it refuses methods it does not know, targets
//! outside its URL grammar and a repeated Content-Length, which httparse lets through.
//!
//! [`Stream`] drives it as it was made to be driven, and as Minefield (the original's server)
//! drove it: one parser per connection, kept across reads and fed only the bytes each read
//! adds, its callbacks joining the pieces of a token that arrive in different reads. The
//! state it keeps between reads (the parser, the spans found so far, how much was fed) is the
//! cost the original's author suspected mattered more than the parsing. Unlike Minefield it does
//! not copy the pieces out: the server keeps a head's bytes until the head is whole, so spans
//! into them suffice. Both forms give the same tokens ([`Stream::tokens`] is tested on every
//! split of a request against the one-shot [`tokens`]).

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
    let errno = parser.errno();
    conclude(errno, &s, head, skip, parsed, slots)
}

/// The tokens of `head` (the bytes after `skip` leading empty lines) once http-parser stopped
/// with `errno` after `parsed` bytes of it: the common end of [`tokens`] and [`Stream::tokens`].
fn conclude<'h, 'b>(
    errno: c_int,
    s: &State,
    head: &'b [u8],
    skip: usize,
    parsed: usize,
    slots: &'h mut [MaybeUninit<httparse::Header<'b>>],
) -> Result<Step<'h, 'b>, WireError> {
    if s.too_many {
        return Err(WireError::TooManyHeaders { max: MAX_HEADERS });
    }
    if s.folded {
        // httparse refuses a continuation line's leading space as a header name.
        return Err(WireError::Head("invalid header name"));
    }
    let fields = &s.fields[..s.n];
    match errno {
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

/// http-parser kept across the reads of one connection (see the module doc): fed only the bytes
/// a read adds to the head in progress, from the state the previous read left.
pub(super) struct Stream {
    parser: hp::HttpParser,
    /// Boxed: a connection keeps it between reads, and the parser's `data` points at it.
    state: Box<State>,
    /// Leading empty lines of the head in progress, and its bytes fed so far.
    skip: usize,
    fed: usize,
    /// A head is in progress (its parser initialised, `skip` fixed).
    live: bool,
}

// SAFETY: the parser's `data` is the only pointer a Stream holds that is not Send. It is set to
// the stream's own boxed state right before each `http_parser_execute` and dereferenced only by
// the callbacks of that call, on the calling thread: moving the Stream between calls moves the
// box with it, and nothing else ever reads the pointer.
unsafe impl Send for Stream {}

impl Stream {
    pub(super) fn new() -> Stream {
        Stream {
            parser: hp::HttpParser::zeroed(),
            state: Box::new(State {
                base: 0,
                url: None,
                fields: [const { MaybeUninit::uninit() }; MAX_HEADERS],
                n: 0,
                cap: MAX_HEADERS,
                last: Last::None,
                done: false,
                too_many: false,
                folded: false,
            }),
            skip: 0,
            fed: 0,
            live: false,
        }
    }

    /// The head at the start of `buf`, which starts where the previous call's `buf` started
    /// (the head's bytes stay in the caller's buffer until the head is whole) and holds them
    /// and what has arrived since: only the new bytes are fed. After a complete head or an
    /// error, the next call starts the next head.
    pub(super) fn tokens<'h, 'b>(
        &mut self,
        buf: &'b [u8],
        slots: &'h mut [MaybeUninit<httparse::Header<'b>>],
    ) -> Result<Step<'h, 'b>, WireError> {
        if self.live && buf.len() < self.skip + self.fed {
            // Not the head that was in progress: start afresh.
            self.live = false;
        }
        if !self.live {
            let skip = leading_crlfs(buf);
            let head = &buf[skip..];
            // Nothing yet, or a CR that may still become one more empty line.
            if head.is_empty() || head == b"\r" {
                return Ok(Step::Partial);
            }
            self.skip = skip;
            self.fed = 0;
            let s = &mut *self.state;
            s.url = None;
            s.n = 0;
            s.cap = slots.len().min(MAX_HEADERS);
            s.last = Last::None;
            s.done = false;
            s.too_many = false;
            s.folded = false;
            // SAFETY: `parser` is plain data owned by self; init only writes it.
            unsafe { hp::http_parser_init(&mut self.parser, hp::HTTP_REQUEST) };
            self.live = true;
        }
        let head = &buf[self.skip..];
        let new = &head[self.fed..];
        if new.is_empty() {
            // A zero-length execute would mean end of input to http-parser.
            return Ok(Step::Partial);
        }
        // Spans are offsets from the head's first byte, wherever the buffer is now.
        self.state.base = head.as_ptr() as usize;
        self.parser.data = (&mut *self.state as *mut State).cast();
        // SAFETY: `parser` and the boxed state live across the call; the callbacks reach the
        // state only through `data`, and the pointers they get point into `new`, within `head`,
        // whose first byte is `base`.
        let parsed = unsafe {
            hp::http_parser_execute(&mut self.parser, &SETTINGS, new.as_ptr().cast(), new.len())
        };
        let errno = self.parser.errno();
        if errno == hp::HPE_OK && !self.state.done && !self.state.too_many && !self.state.folded {
            self.fed += parsed;
            return Ok(Step::Partial);
        }
        // Complete or refused: the next call starts the next head.
        self.live = false;
        conclude(
            errno,
            &self.state,
            head,
            self.skip,
            self.fed + parsed,
            slots,
        )
    }
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
