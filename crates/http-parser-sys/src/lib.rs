//! nodejs/http-parser 2.9.4 — the C parser Node.js used until v12 and the one the original
//! parser experiment started from — vendored (`vendor/`, MIT, Debian's patched 2.9.4) and
//! compiled with `cc`, so nothing but a C compiler is needed. This is a minimal binding to the
//! parts barrage uses: the parser struct, the callbacks, `execute`, `pause` and the names of
//! methods and errors. No crate on crates.io binds a maintained http-parser (`http-muncher`,
//! the only binding of the C source, vendors 2.7.1 and was last released in 2018).
//!
//! `struct http_parser` starts and ends with C bitfields; they are declared here as the `u32`
//! words GCC and Clang pack them into on little-endian targets (first field in the lowest bits).
//! A compiled probe (`src/layout.c`) lets the tests check this view against the C compiler's.

use std::ffi::{c_char, c_int, c_ulong, c_void};

/// `enum http_parser_type`: HTTP_REQUEST.
pub const HTTP_REQUEST: c_int = 0;

/// `enum http_errno`: HPE_OK.
pub const HPE_OK: c_int = 0;

/// `enum http_errno`: HPE_PAUSED, what `execute` reports after [`http_parser_pause`].
pub const HPE_PAUSED: c_int = 31;

/// `struct http_parser`.
#[repr(C)]
pub struct HttpParser {
    /// type:2 flags:8 state:7 header_state:7 index:5 uses_transfer_encoding:1
    /// allow_chunked_length:1 lenient_http_headers:1
    private: u32,
    nread: u32,
    content_length: u64,
    pub http_major: u16,
    pub http_minor: u16,
    /// status_code:16 method:8 http_errno:7 upgrade:1
    status_method_errno: u32,
    pub data: *mut c_void,
}

impl HttpParser {
    /// An all-zero parser, to be set up by [`http_parser_init`].
    pub const fn zeroed() -> HttpParser {
        HttpParser {
            private: 0,
            nread: 0,
            content_length: 0,
            http_major: 0,
            http_minor: 0,
            status_method_errno: 0,
            data: std::ptr::null_mut(),
        }
    }

    /// `enum http_method` of the request being parsed.
    pub fn method(&self) -> c_int {
        ((self.status_method_errno >> 16) & 0xff) as c_int
    }

    /// `enum http_errno` ([`HPE_OK`] = 0).
    pub fn errno(&self) -> c_int {
        ((self.status_method_errno >> 24) & 0x7f) as c_int
    }
}

/// A notification callback (`http_cb`); non-zero stops the parser.
pub type HttpCb = unsafe extern "C" fn(*mut HttpParser) -> c_int;
/// A data callback (`http_data_cb`): a piece of a token, pointing into the executed buffer.
pub type HttpDataCb = unsafe extern "C" fn(*mut HttpParser, *const c_char, usize) -> c_int;

/// `struct http_parser_settings`.
#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct HttpParserSettings {
    pub on_message_begin: Option<HttpCb>,
    pub on_url: Option<HttpDataCb>,
    pub on_status: Option<HttpDataCb>,
    pub on_header_field: Option<HttpDataCb>,
    pub on_header_value: Option<HttpDataCb>,
    pub on_headers_complete: Option<HttpCb>,
    pub on_body: Option<HttpDataCb>,
    pub on_message_complete: Option<HttpCb>,
    pub on_chunk_header: Option<HttpCb>,
    pub on_chunk_complete: Option<HttpCb>,
}

extern "C" {
    pub fn http_parser_version() -> c_ulong;
    pub fn http_parser_init(parser: *mut HttpParser, kind: c_int);
    pub fn http_parser_execute(
        parser: *mut HttpParser,
        settings: *const HttpParserSettings,
        data: *const c_char,
        len: usize,
    ) -> usize;
    /// Pauses (1) or unpauses (0); called from a callback, `execute` returns at once.
    pub fn http_parser_pause(parser: *mut HttpParser, paused: c_int);
    pub fn http_method_str(method: c_int) -> *const c_char;
    pub fn http_errno_name(err: c_int) -> *const c_char;
}

// The layout probe of src/layout.c, for the tests.
#[cfg(test)]
extern "C" {
    fn barrage_http_parser_size() -> usize;
    fn barrage_http_parser_data_offset() -> usize;
    fn barrage_http_parser_set_fields(parser: *mut HttpParser, method: u32, err: u32);
}

/// The library's version as (major, minor, patch).
pub fn version() -> (u32, u32, u32) {
    // SAFETY: a plain function without arguments.
    let v = unsafe { http_parser_version() } as u32;
    ((v >> 16) & 255, (v >> 8) & 255, v & 255)
}

/// The name of an `enum http_errno` value ("INVALID_METHOD", ...).
pub fn errno_name(err: c_int) -> &'static str {
    // SAFETY: http_errno_name returns a static NUL-terminated ASCII string for any value.
    unsafe { std::ffi::CStr::from_ptr(http_errno_name(err)) }
        .to_str()
        .unwrap_or("?")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vendored_version_is_2_9_4() {
        assert_eq!(version(), (2, 9, 4));
    }

    #[test]
    fn the_struct_layout_matches_the_c_compilers() {
        // SAFETY: plain functions without arguments.
        let (size, data) = unsafe {
            (
                barrage_http_parser_size(),
                barrage_http_parser_data_offset(),
            )
        };
        assert_eq!(size, std::mem::size_of::<HttpParser>());
        assert_eq!(data, std::mem::offset_of!(HttpParser, data));
        let mut p = HttpParser::zeroed();
        // SAFETY: `p` is a live, correctly sized parser.
        unsafe { barrage_http_parser_set_fields(&mut p, 3, HPE_PAUSED as u32) };
        assert_eq!((p.method(), p.errno()), (3, HPE_PAUSED));
        assert_eq!(errno_name(HPE_PAUSED), "HPE_PAUSED");
        assert_eq!(errno_name(HPE_OK), "HPE_OK");
    }

    /// Method 3 is POST in `HTTP_METHOD_MAP`.
    #[test]
    fn method_names() {
        // SAFETY: a static string for any method value.
        let name = unsafe { std::ffi::CStr::from_ptr(http_method_str(3)) };
        assert_eq!(name.to_str(), Ok("POST"));
    }
}
