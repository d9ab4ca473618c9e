//! http-parser for the duel: the vendored nodejs/http-parser 2.9.4 of `barrage-http-parser-sys`
//! (the same source Debian ships as libhttp-parser2.9, compiled with cc), so the duel needs no
//! system library.

pub use barrage_http_parser_sys::{
    http_errno_name, http_method_str, http_parser_execute, http_parser_init, HttpParser,
    HttpParserSettings, HTTP_REQUEST,
};

/// The library's version as (major, minor, patch); panics unless it is 2.x (the binding's layout).
pub fn check_version() -> (u32, u32, u32) {
    let version = barrage_http_parser_sys::version();
    assert_eq!(
        version.0, 2,
        "http-parser {version:?}: this binding is for 2.x"
    );
    version
}
