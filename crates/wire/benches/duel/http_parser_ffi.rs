//! A hand-written binding to the parts of Debian's libhttp-parser (nodejs/http-parser 2.9,
//! `/usr/include/http_parser.h`, package `libhttp-parser-dev`) that the duel uses.
//!
//! `struct http_parser` starts and ends with C bitfields; they are declared here as the `u32`
//! words GCC packs them into on little-endian targets (first field in the lowest bits), and
//! [`check_version`] refuses any major version other than 2, whose layout this is.

use std::ffi::{c_char, c_int, c_ulong, c_void};

/// `enum http_parser_type`: HTTP_REQUEST.
pub const HTTP_REQUEST: c_int = 0;

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
    pub fn zeroed() -> HttpParser {
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

    /// `enum http_errno` (0 = HPE_OK).
    pub fn errno(&self) -> c_int {
        ((self.status_method_errno >> 24) & 0x7f) as c_int
    }
}

pub type HttpCb = unsafe extern "C" fn(*mut HttpParser) -> c_int;
pub type HttpDataCb = unsafe extern "C" fn(*mut HttpParser, *const c_char, usize) -> c_int;

#[repr(C)]
#[derive(Default)]
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

#[link(name = "http_parser")]
extern "C" {
    pub fn http_parser_version() -> c_ulong;
    pub fn http_parser_init(parser: *mut HttpParser, kind: c_int);
    pub fn http_parser_execute(
        parser: *mut HttpParser,
        settings: *const HttpParserSettings,
        data: *const c_char,
        len: usize,
    ) -> usize;
    pub fn http_method_str(method: c_int) -> *const c_char;
    pub fn http_errno_name(err: c_int) -> *const c_char;
}

/// The library's version as (major, minor, patch); panics unless it is 2.x (the layout above).
pub fn check_version() -> (u32, u32, u32) {
    // SAFETY: a plain function without arguments.
    let v = unsafe { http_parser_version() } as u32;
    let version = ((v >> 16) & 255, (v >> 8) & 255, v & 255);
    assert_eq!(
        version.0, 2,
        "http-parser {version:?}: this binding is for 2.x"
    );
    version
}
