//! The choice of request tokeniser: one enum, dispatched once per head where httparse used to be
//! called. httparse is always there; the C parsers of the parser experiment are compiled in by
//! cargo features (`parser-pico`, `parser-http-parser`), and naming one that is not gives an
//! error that says which feature to build with.

use super::{finish, httparse_tokens, RequestError, RequestHead};
use std::fmt;
use std::mem::MaybeUninit;
use std::str::FromStr;
use thiserror::Error;

/// Which parser splits a request head into tokens. Whatever the choice, the result is the same
/// [`RequestHead`] (the framing, keep-alive and smuggling rules are common code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Parser {
    /// httparse (Rust, SIMD): the default, always compiled in.
    #[default]
    Httparse,
    /// picohttpparser (C, h2o's; stateless, zero-copy), from the `picohttpparser-sys` crate;
    /// cargo feature `parser-pico`.
    Picohttpparser,
    /// nodejs/http-parser 2.9.4 (C, event driven; nginx's parser's descendant), vendored in
    /// `barrage-http-parser-sys`; cargo feature `parser-http-parser`.
    HttpParser,
}

/// A parser that this build does not contain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error(
    "request parser {parser} is not compiled into this build: rebuild with the cargo feature `{feature}`"
)]
pub struct ParserUnavailable {
    pub parser: Parser,
    pub feature: &'static str,
}

/// A parser name that is none of [`Parser::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown request parser `{0}` (one of: httparse, picohttpparser, http-parser)")]
pub struct UnknownParser(pub String);

impl Parser {
    /// Every parser, compiled in or not.
    pub const ALL: [Parser; 3] = [Parser::Httparse, Parser::Picohttpparser, Parser::HttpParser];

    /// The name used by `--parser` and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Parser::Httparse => "httparse",
            Parser::Picohttpparser => "picohttpparser",
            Parser::HttpParser => "http-parser",
        }
    }

    /// The cargo feature that compiles it in (`None`: always there).
    pub fn feature(self) -> Option<&'static str> {
        match self {
            Parser::Httparse => None,
            Parser::Picohttpparser => Some("parser-pico"),
            Parser::HttpParser => Some("parser-http-parser"),
        }
    }

    /// Whether this build contains it.
    pub fn is_compiled(self) -> bool {
        match self {
            Parser::Httparse => true,
            Parser::Picohttpparser => cfg!(feature = "parser-pico"),
            Parser::HttpParser => cfg!(feature = "parser-http-parser"),
        }
    }

    /// The parsers this build contains, in [`Parser::ALL`] order.
    pub fn compiled() -> impl Iterator<Item = Parser> {
        Parser::ALL.into_iter().filter(|p| p.is_compiled())
    }

    /// `Ok` when this build contains it, else the error naming the feature to build with.
    pub fn ensure_compiled(self) -> Result<(), ParserUnavailable> {
        match self.feature() {
            Some(feature) if !self.is_compiled() => Err(ParserUnavailable {
                parser: self,
                feature,
            }),
            _ => Ok(()),
        }
    }

    /// Parses a request head from the start of `buf`, like [`super::parse_request_head`] but with
    /// this parser. `Ok(None)` means more bytes are needed (and the head is still within `limit`
    /// bytes); `headers` is scratch space for the header lines ([`super::header_slots`]). No
    /// allocation: the C parsers' own arrays live on the stack.
    #[inline]
    pub fn parse_head<'h, 'b>(
        self,
        buf: &'b [u8],
        headers: &'h mut [MaybeUninit<httparse::Header<'b>>],
        limit: usize,
    ) -> Result<Option<RequestHead<'h, 'b>>, RequestError> {
        let step = match self {
            Parser::Httparse => httparse_tokens(buf, headers),
            #[cfg(feature = "parser-pico")]
            Parser::Picohttpparser => {
                return super::refuse_like_httparse(buf, super::pico::tokens(buf, headers), limit)
            }
            #[cfg(feature = "parser-http-parser")]
            Parser::HttpParser => {
                return super::refuse_like_httparse(
                    buf,
                    super::http_parser::tokens(buf, headers),
                    limit,
                )
            }
            #[allow(unreachable_patterns)]
            other => {
                return Err(ParserUnavailable {
                    parser: other,
                    feature: other.feature().unwrap_or_default(),
                }
                .into())
            }
        };
        finish(buf, step, limit)
    }
}

impl fmt::Display for Parser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Parser {
    type Err = UnknownParser;

    /// The names of [`Parser::name`], case-insensitive, and the short forms `pico`,
    /// `http_parser` and `httpparser`.
    fn from_str(s: &str) -> Result<Parser, UnknownParser> {
        match s.to_ascii_lowercase().as_str() {
            "httparse" => Ok(Parser::Httparse),
            "picohttpparser" | "pico" => Ok(Parser::Picohttpparser),
            "http-parser" | "http_parser" | "httpparser" => Ok(Parser::HttpParser),
            _ => Err(UnknownParser(s.to_string())),
        }
    }
}
