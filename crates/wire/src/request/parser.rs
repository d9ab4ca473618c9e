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
    /// `barrage-http-parser-sys`; cargo feature `parser-http-parser`. One-shot: each read runs
    /// a fresh parser over the head from its first byte.
    HttpParser,
    /// The same http-parser driven as it was made to be (and as the original's Minefield drove
    /// it): one parser per connection, kept across reads and fed only what each read adds, its
    /// callbacks joining the pieces of a token over reads. Needs a [`HeadParser`] per
    /// connection to keep that state; [`Parser::parse_head`] alone runs it one-shot.
    HttpParserStream,
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
#[error(
    "unknown request parser `{0}` (one of: httparse, picohttpparser, http-parser, http-parser-stream)"
)]
pub struct UnknownParser(pub String);

impl Parser {
    /// Every parser, compiled in or not.
    pub const ALL: [Parser; 4] = [
        Parser::Httparse,
        Parser::Picohttpparser,
        Parser::HttpParser,
        Parser::HttpParserStream,
    ];

    /// The name used by `--parser` and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Parser::Httparse => "httparse",
            Parser::Picohttpparser => "picohttpparser",
            Parser::HttpParser => "http-parser",
            Parser::HttpParserStream => "http-parser-stream",
        }
    }

    /// The cargo feature that compiles it in (`None`: always there).
    pub fn feature(self) -> Option<&'static str> {
        match self {
            Parser::Httparse => None,
            Parser::Picohttpparser => Some("parser-pico"),
            Parser::HttpParser | Parser::HttpParserStream => Some("parser-http-parser"),
        }
    }

    /// Whether this build contains it.
    pub fn is_compiled(self) -> bool {
        match self {
            Parser::Httparse => true,
            Parser::Picohttpparser => cfg!(feature = "parser-pico"),
            Parser::HttpParser | Parser::HttpParserStream => cfg!(feature = "parser-http-parser"),
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
            // Without a connection to keep its state, a fresh stream fed the whole buffer.
            #[cfg(feature = "parser-http-parser")]
            Parser::HttpParserStream => {
                return HeadParser::new(self).parse_head(buf, headers, limit);
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

/// A connection's request-head parser: the stateless parsers as they are, `http-parser-stream`
/// with its parser kept across the connection's reads. A server holds one per connection and
/// calls [`HeadParser::parse_head`] with the unconsumed bytes from the head's first byte on,
/// as it would call [`Parser::parse_head`].
pub struct HeadParser {
    parser: Parser,
    #[cfg(feature = "parser-http-parser")]
    stream: Option<super::http_parser::Stream>,
}

impl HeadParser {
    pub fn new(parser: Parser) -> HeadParser {
        HeadParser {
            parser,
            #[cfg(feature = "parser-http-parser")]
            stream: None,
        }
    }

    /// [`Parser::parse_head`], with the state of a stateful parser kept for the next call.
    #[inline]
    pub fn parse_head<'h, 'b>(
        &mut self,
        buf: &'b [u8],
        headers: &'h mut [MaybeUninit<httparse::Header<'b>>],
        limit: usize,
    ) -> Result<Option<RequestHead<'h, 'b>>, RequestError> {
        match self.parser {
            #[cfg(feature = "parser-http-parser")]
            Parser::HttpParserStream => {
                let stream = self
                    .stream
                    .get_or_insert_with(super::http_parser::Stream::new);
                super::refuse_like_httparse(buf, stream.tokens(buf, headers), limit)
            }
            other => other.parse_head(buf, headers, limit),
        }
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
            "http-parser-stream" | "http_parser_stream" => Ok(Parser::HttpParserStream),
            _ => Err(UnknownParser(s.to_string())),
        }
    }
}
