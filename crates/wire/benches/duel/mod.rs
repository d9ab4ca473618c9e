//! The parser duel's shared code: the corpus and one driver per parser (httparse,
//! picohttpparser, http-parser). Used by `benches/parsers.rs` (speed) and
//! `tests/parser_agreement.rs` (that all three read the corpus the same way).
//!
//! Every driver parses a buffer that may hold several requests back to back, frames each body by
//! its Content-Length, and hands the caller the same borrowed view of each request, as a server
//! would: httparse and picohttpparser return the head and leave the body to the caller (the
//! driver finds Content-Length itself); http-parser is event driven and frames the body itself.
//! Copying each parser's header array into the common view costs the same for all three.
#![allow(dead_code)]

pub mod corpus;
pub mod http_parser_ffi;

use http_parser_ffi as hp;
use std::ffi::{c_char, c_int, CStr};
use std::mem::MaybeUninit;

/// More than any request of the corpus carries.
pub const MAX_HEADERS: usize = 64;

pub type Header<'a> = (&'a [u8], &'a [u8]);

/// One parsed request, borrowing from the input buffer.
pub struct Request<'a, 'h> {
    pub method: &'a [u8],
    pub target: &'a [u8],
    /// (major, minor)
    pub version: (u8, u8),
    pub headers: &'h [Header<'a>],
    pub body: &'a [u8],
}

/// The parsers of the duel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Duelist {
    Httparse,
    Picohttpparser,
    HttpParser,
}

impl Duelist {
    pub const ALL: [Duelist; 3] = [
        Duelist::Httparse,
        Duelist::Picohttpparser,
        Duelist::HttpParser,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Duelist::Httparse => "httparse",
            Duelist::Picohttpparser => "picohttpparser",
            Duelist::HttpParser => "http-parser",
        }
    }

    /// Parses every request in `buf`, calling `each` for each; returns how many there were.
    pub fn parse_all<F: FnMut(&Request)>(self, buf: &[u8], each: F) -> Result<usize, String> {
        match self {
            Duelist::Httparse => httparse_all(buf, each),
            Duelist::Picohttpparser => pico_all(buf, each),
            Duelist::HttpParser => http_parser_all(buf, each),
        }
    }
}

/// The body length a head declares (the corpus only uses Content-Length framing).
fn content_length(headers: &[Header]) -> Result<usize, String> {
    for (name, value) in headers {
        if name.eq_ignore_ascii_case(b"content-length") {
            return std::str::from_utf8(value)
                .ok()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| "bad Content-Length".to_string());
        }
    }
    Ok(0)
}

fn httparse_all<F: FnMut(&Request)>(buf: &[u8], mut each: F) -> Result<usize, String> {
    let mut slots = [const { MaybeUninit::<httparse::Header>::uninit() }; MAX_HEADERS];
    let mut view: [Header; MAX_HEADERS] = [(&[], &[]); MAX_HEADERS];
    let (mut pos, mut count) = (0, 0);
    while pos < buf.len() {
        let rest = &buf[pos..];
        let mut req = httparse::Request::new(&mut []);
        let head_len = match req.parse_with_uninit_headers(rest, &mut slots) {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) => return Err(format!("partial request at {pos}")),
            Err(e) => return Err(format!("httparse at {pos}: {e}")),
        };
        let n = req.headers.len();
        for (v, h) in view.iter_mut().zip(req.headers.iter()) {
            *v = (h.name.as_bytes(), h.value);
        }
        let body_len = content_length(&view[..n])?;
        let end = head_len + body_len;
        if end > rest.len() {
            return Err(format!("body cut short at {pos}"));
        }
        each(&Request {
            method: req.method.unwrap_or("").as_bytes(),
            target: req.path.unwrap_or("").as_bytes(),
            version: (1, req.version.unwrap_or(0)),
            headers: &view[..n],
            body: &rest[head_len..end],
        });
        pos += end;
        count += 1;
    }
    Ok(count)
}

fn pico_all<F: FnMut(&Request)>(buf: &[u8], mut each: F) -> Result<usize, String> {
    use picohttpparser_sys::{phr_header, phr_parse_request};
    let empty = phr_header {
        name: std::ptr::null(),
        name_len: 0,
        value: std::ptr::null(),
        value_len: 0,
    };
    let mut raw = [empty; MAX_HEADERS];
    let mut view: [Header; MAX_HEADERS] = [(&[], &[]); MAX_HEADERS];
    let (mut pos, mut count) = (0, 0);
    while pos < buf.len() {
        let rest = &buf[pos..];
        let mut method: *const c_char = std::ptr::null();
        let mut path: *const c_char = std::ptr::null();
        let (mut method_len, mut path_len, mut minor, mut num) =
            (0usize, 0usize, 0 as c_int, MAX_HEADERS);
        // SAFETY: every pointer refers to a live local or into `rest`, which outlives the call;
        // `num` is the capacity of `raw`.
        let ret = unsafe {
            phr_parse_request(
                rest.as_ptr().cast(),
                rest.len(),
                &mut method,
                &mut method_len,
                &mut path,
                &mut path_len,
                &mut minor,
                raw.as_mut_ptr(),
                &mut num,
                0,
            )
        };
        if ret < 0 {
            return Err(format!("picohttpparser at {pos}: {ret}"));
        }
        let head_len = ret as usize;
        // picohttpparser returns pointers into `rest`: turn them back into sub-slices.
        let at = |p: *const c_char, len: usize| -> &[u8] {
            let off = p as usize - rest.as_ptr() as usize;
            &rest[off..off + len]
        };
        for (v, h) in view.iter_mut().zip(raw[..num].iter()) {
            *v = (at(h.name, h.name_len), at(h.value, h.value_len));
        }
        let body_len = content_length(&view[..num])?;
        let end = head_len + body_len;
        if end > rest.len() {
            return Err(format!("body cut short at {pos}"));
        }
        each(&Request {
            method: at(method, method_len),
            target: at(path, path_len),
            version: (1, minor as u8),
            headers: &view[..num],
            body: &rest[head_len..end],
        });
        pos += end;
        count += 1;
    }
    Ok(count)
}

/// Offsets into the buffer, collected by http-parser's callbacks.
#[derive(Clone, Copy, Default)]
struct Span {
    start: usize,
    len: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum Last {
    None,
    Field,
    Value,
}

struct HpState<'a, F> {
    buf: &'a [u8],
    url: Span,
    body: Span,
    fields: [(Span, Span); MAX_HEADERS],
    n: usize,
    last: Last,
    view: [Header<'a>; MAX_HEADERS],
    count: usize,
    error: Option<String>,
    each: F,
}

impl<F> HpState<'_, F> {
    fn offset(&self, at: *const c_char) -> usize {
        at as usize - self.buf.as_ptr() as usize
    }
}

/// Appends `len` bytes at `at` to a span: a callback may deliver a token in pieces.
fn extend(span: &mut Span, offset: usize, len: usize) {
    if span.len == 0 {
        span.start = offset;
    }
    span.len = offset + len - span.start;
}

unsafe fn state<'p, 'a, F>(p: *mut hp::HttpParser) -> &'p mut HpState<'a, F> {
    // SAFETY (caller): `data` points at the HpState that http_parser_all lent to this parser.
    unsafe { &mut *((*p).data as *mut HpState<'a, F>) }
}

unsafe extern "C" fn on_message_begin<F>(p: *mut hp::HttpParser) -> c_int {
    let s = unsafe { state::<F>(p) };
    s.url = Span::default();
    s.body = Span::default();
    s.n = 0;
    s.last = Last::None;
    0
}

unsafe extern "C" fn on_url<F>(p: *mut hp::HttpParser, at: *const c_char, len: usize) -> c_int {
    let s = unsafe { state::<F>(p) };
    let off = s.offset(at);
    extend(&mut s.url, off, len);
    0
}

unsafe extern "C" fn on_header_field<F>(
    p: *mut hp::HttpParser,
    at: *const c_char,
    len: usize,
) -> c_int {
    let s = unsafe { state::<F>(p) };
    let off = s.offset(at);
    if s.last != Last::Field {
        if s.n == MAX_HEADERS {
            s.error = Some("too many headers".into());
            return 1;
        }
        s.fields[s.n] = Default::default();
        s.n += 1;
    }
    s.last = Last::Field;
    extend(&mut s.fields[s.n - 1].0, off, len);
    0
}

unsafe extern "C" fn on_header_value<F>(
    p: *mut hp::HttpParser,
    at: *const c_char,
    len: usize,
) -> c_int {
    let s = unsafe { state::<F>(p) };
    let off = s.offset(at);
    s.last = Last::Value;
    extend(&mut s.fields[s.n - 1].1, off, len);
    0
}

unsafe extern "C" fn on_body<F>(p: *mut hp::HttpParser, at: *const c_char, len: usize) -> c_int {
    let s = unsafe { state::<F>(p) };
    let off = s.offset(at);
    extend(&mut s.body, off, len);
    0
}

unsafe extern "C" fn on_message_complete<F: FnMut(&Request)>(p: *mut hp::HttpParser) -> c_int {
    let s: &mut HpState<'_, F> = unsafe { state(p) };
    let buf = s.buf;
    let slice = |sp: Span| &buf[sp.start..sp.start + sp.len];
    for i in 0..s.n {
        let (name, value) = s.fields[i];
        s.view[i] = (slice(name), slice(value));
    }
    // SAFETY: http_method_str returns a static NUL-terminated string for any method value.
    let method = unsafe { CStr::from_ptr(hp::http_method_str((*p).method())) }.to_bytes();
    let (major, minor) = unsafe { ((*p).http_major as u8, (*p).http_minor as u8) };
    (s.each)(&Request {
        method,
        target: slice(s.url),
        version: (major, minor),
        headers: &s.view[..s.n],
        body: slice(s.body),
    });
    s.count += 1;
    0
}

fn http_parser_all<F: FnMut(&Request)>(buf: &[u8], each: F) -> Result<usize, String> {
    let settings = hp::HttpParserSettings {
        on_message_begin: Some(on_message_begin::<F>),
        on_url: Some(on_url::<F>),
        on_header_field: Some(on_header_field::<F>),
        on_header_value: Some(on_header_value::<F>),
        on_body: Some(on_body::<F>),
        on_message_complete: Some(on_message_complete::<F>),
        ..Default::default()
    };
    let mut state = HpState {
        buf,
        url: Span::default(),
        body: Span::default(),
        fields: [Default::default(); MAX_HEADERS],
        n: 0,
        last: Last::None,
        view: [(&[], &[]); MAX_HEADERS],
        count: 0,
        error: None,
        each,
    };
    let mut parser = hp::HttpParser::zeroed();
    // SAFETY: `parser` and `state` live across the call; the callbacks only touch `state` through
    // `data` and read `buf`, which outlives it.
    let parsed = unsafe {
        hp::http_parser_init(&mut parser, hp::HTTP_REQUEST);
        parser.data = (&mut state as *mut HpState<F>).cast();
        hp::http_parser_execute(&mut parser, &settings, buf.as_ptr().cast(), buf.len())
    };
    if let Some(e) = state.error {
        return Err(e);
    }
    if parser.errno() != 0 || parsed != buf.len() {
        // SAFETY: a static NUL-terminated string for any errno value.
        let name = unsafe { CStr::from_ptr(hp::http_errno_name(parser.errno())) };
        return Err(format!(
            "http-parser stopped at {parsed}: {}",
            name.to_string_lossy()
        ));
    }
    Ok(state.count)
}
