//! The protocol a load speaks, as one value: HTTP/1.1 with its pipelining depth and keep-alive,
//! HTTP/2 with its streams and window, WebSocket with its messages in flight, HTTP/3 with its
//! streams, gRPC, HTTP/1.0 and FastCGI with their keep-alive. Each protocol's
//! options live in its variant, so a combination that means nothing (HTTP/2 pipelined,
//! WebSocket without keep-alive) cannot be held, and code that needs "how many requests in
//! flight" asks [`Protocol::depth`] instead of combining booleans.
//!
//! Documents, study files and the flags still say it as flat options (`pipeline`, `keepalive`,
//! `http2`, `streams`, `h2_window`, `ws`, `ws_max_message`, `echo_check`, `http3`): [`Options`]
//! is that form (declared with every load option, `options.rs`), and
//! [`Protocol::from_options`] its one reading, with the rules that used to be spread over
//! `check` (the CLI reports them in flag words, serde in field words). Written back through
//! [`Options`], a document reads as before.

use super::options::Options;
use super::LoadError;
use serde::{Deserialize, Serialize};

/// The protocol's flat options, each declared once as every load option is (`options.rs` says
/// the form of an entry), here beside the variants they become: `load_options!` calls this with
/// the `Config`'s first fields and the rest, and it hands `$then` every block in order. A new
/// protocol's flag is one entry here and its variant below.
#[macro_export]
#[doc(hidden)]
macro_rules! load_protocol_options {
    ($then:ident [$($pass:tt)*] config { $($head:tt)* } then { $($tail:tt)* }) => {
        $then! { [$($pass)*]
        config { $($head)* }
        protocol {
            /// Requests in flight per connection (HTTP/1.1 pipelining; WebSocket: messages).
            pipeline: usize = 1, Grammar::Int { min: 1, max: 1024 }, Flag::named("D"),
                sweep(12, "pipeline");
            /// Keep-alive: each connection carries request after request; --no-keepalive sends
            /// `Connection: close` and opens a new connection for every request.
            keepalive: bool = true, Grammar::Switch, Flag::negated(), sweep(6, "keepalive");
            /// Speak HTTP/2: h2 chosen by ALPN on https:// (h2 and http/1.1 are offered; the
            /// summary says which the server chose), h2c with prior knowledge on http://.
            http2: bool = false, Grammar::Switch, Flag::switch(), sweep(7, "http2");
            /// HTTP/2 and HTTP/3: concurrent streams per connection, as h2load's -m (-c
            /// connections x -m streams in flight). The server's stream limit caps it (for
            /// HTTP/2 the summary says when it did).
            streams: usize = 1, Grammar::Int { min: 1, max: (1 << 31) - 1 },
                Flag::named("N").short('m'), sweep(13, "streams");
            /// HTTP/2: the receive window announced for each stream and opened for the
            /// connection (e.g. 64KiB, 1GiB) [default: 2^30-1, as h2load and oha, so that flow
            /// control never throttles a benchmark].
            h2_window: u32 = $crate::load::DEFAULT_H2_WINDOW,
                Grammar::Size { min: 65_535, max: (1 << 31) - 1 },
                Flag::named("SIZE").requires("http2"),
                no("a study compares servers at HTTP/2's defaults; the window is a client tuning knob");
            /// Speak WebSocket to a ws:// or wss:// URL: each connection is upgraded once, then
            /// each request is one message (the body, text when it is UTF-8, binary else) and
            /// ends when the server's next message arrives; --pipeline messages in flight. Each
            /// reply must echo its message, byte for byte (else an error of class `body`): for
            /// a server that does not echo, give --expect-body (the reply every message must
            /// get) or --no-echo-check (any reply). The summary's requests are messages.
            // Written only when set, so HTTP documents read as before WebSocket existed.
            #[serde(skip_serializing_if = "is_false")]
            ws: bool = false, Grammar::Switch, Flag::switch(), sweep(8, "ws");
            /// Speak HTTP/3 over QUIC (UDP) to an https:// URL: --streams requests at once on
            /// each connection (capped by the server's limit), certificates verified unless
            /// --insecure, no 0-RTT.
            #[serde(skip_serializing_if = "is_false")]
            http3: bool = false, Grammar::Switch, Flag::switch(), sweep(9, "http3");
            /// Speak gRPC over HTTP/2 (h2c on http://, h2 chosen by ALPN on https://): each
            /// request is one call of --call, its messages from --data or --data-file (JSON),
            /// --streams calls at once per connection, each with --timeout as its deadline
            /// (grpc-timeout). A call ends with its grpc-status: OK is a response (or the code
            /// --expect-status names); another code is an error of class `grpc_status` (every
            /// code counted in the summary, a call past --timeout as DEADLINE_EXCEEDED), a reply
            /// that breaks gRPC one of class `grpc`, `grpc_no_trailers` (a body, then no
            /// trailers) or `grpc_cardinality` (a unary or client-streaming call answered with
            /// no message or more than one).
            #[serde(skip_serializing_if = "is_false")]
            grpc: bool = false, Grammar::Switch, Flag::switch(), sweep(28, "grpc");
            /// Speak HTTP/1.0 (curl's --http1.0, ab's requests): each request says HTTP/1.0 and,
            /// with keep-alive, asks for it by `Connection: keep-alive`, which the server may
            /// refuse by closing after its response (the next request then opens a connection:
            /// not an error); with --no-keepalive it asks for nothing, so every request has a
            /// connection of its own. One request at a time per connection (no pipelining).
            /// Under TLS, ALPN offers http/1.0, then http/1.1.
            // Written only when set, so HTTP/1.1 documents read as before HTTP/1.0 existed.
            #[serde(skip_serializing_if = "is_false")]
            http1_0: bool = false, Grammar::Switch, Flag::switch().long("http1.0"),
                sweep(37, "http1_0");
            /// Speak FastCGI, as a web server speaks to php-fpm or any FastCGI application
            /// (nginx's fastcgi_pass): the URL's host and port are the application's socket, its
            /// path names the script as the application sees it (SCRIPT_FILENAME, e.g.
            /// http://127.0.0.1:9000/var/www/index.php). One request at a time per connection,
            /// kept open (FCGI_KEEP_CONN) unless --no-keepalive. A request whose END_REQUEST
            /// says it was not completed (FCGI_OVERLOADED, ...) or gives an application status
            /// other than 0 is an error of class `rst_stream`; a response cut short (no whole
            /// CGI head) or whose body is not its Content-Length one of class
            /// `protocol`; records or a CGI head that cannot be read fail the connection
            /// (class `parse`).
            // Written only when set, so HTTP documents read as before FastCGI existed.
            #[serde(skip_serializing_if = "is_false")]
            fastcgi: bool = false, Grammar::Switch, Flag::switch(), sweep(38, "fastcgi");
            /// WebSocket: the longest reply accepted, its frames together (e.g. 64KiB, 1MiB); a
            /// longer one is an error of class `message_too_large` and its connection is closed
            /// (1009). Replies are checked as they arrive, so the limit costs no memory
            /// [default: 16MiB].
            // Written for WebSocket only.
            #[serde(skip_serializing_if = "Option::is_none")]
            ws_max_message: Option<u64> = None, Grammar::Size { min: 1, max: u64::MAX },
                Flag::named("SIZE"),
                no("a study compares servers on replies of the sizes it sends; the limit only bounds a hostile reply");
            /// WebSocket: each reply must echo its message; --no-echo-check takes any reply as
            /// the answer to its message (for servers that answer with something else;
            /// --expect-body checks a fixed reply instead).
            // Written for WebSocket only; absent: checked.
            #[serde(skip_serializing_if = "Option::is_none")]
            echo_check: Option<bool> = None, Grammar::Switch,
                Flag::negated().conflicts(&["expect_body"]),
                sweep(27, "echo_check");
        }
        $($tail)*
        }
    };
}

/// The protocol of a load with the options that are its alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Options", into = "Options")]
pub enum Protocol {
    /// HTTP/1.1: `pipeline` requests in flight per connection (1: none); without `keepalive`
    /// every request has a connection of its own.
    Http1 { pipeline: usize, keepalive: bool },
    /// HTTP/2 (h2 by ALPN on https://, h2c with prior knowledge on http://): `streams`
    /// concurrent streams per connection (h2load's `-m`, capped by the server), `window` the
    /// receive window announced for each stream and opened for the connection.
    Http2 { streams: usize, window: u32 },
    /// WebSocket (`ws://`, `wss://`): each connection upgraded once, then each request is one
    /// message and its reply, `pipeline` messages in flight per connection. A reply longer
    /// than `max_message` bytes (its frames together) is an error; with `echo`, each reply must
    /// be its own message (unless an expected body is given).
    Ws {
        pipeline: usize,
        max_message: u64,
        echo: bool,
    },
    /// HTTP/3 over QUIC (`https://` only): `streams` requests at once per connection, capped by
    /// the server's limit.
    Http3 { streams: usize },
    /// gRPC over HTTP/2: `streams` calls at once per connection, `window` as HTTP/2's.
    Grpc { streams: usize, window: u32 },
    /// HTTP/1.0: one request at a time per connection; with `keepalive` each asks the server to
    /// keep the connection (`Connection: keep-alive`), which it may refuse.
    Http10 { keepalive: bool },
    /// FastCGI: one request at a time per connection; with `keepalive` the application is
    /// asked to keep the connection (`FCGI_KEEP_CONN`).
    Fastcgi { keepalive: bool },
}

/// The HTTP/2 window when none is given: as h2load and oha, large enough that flow control
/// never throttles a benchmark.
pub const DEFAULT_H2_WINDOW: u32 = (1 << 30) - 1;

/// The longest WebSocket reply accepted when no limit is given: 16 MiB, as `barrage serve`'s
/// messages and many servers' defaults. Replies are checked as they stream, so the limit costs
/// no memory; it bounds how long a reply may go on.
pub const DEFAULT_WS_MAX_MESSAGE: u64 = 16 << 20;

impl Default for Protocol {
    fn default() -> Self {
        Protocol::Http1 {
            pipeline: 1,
            keepalive: true,
        }
    }
}

impl Protocol {
    /// The protocol the options describe, or the first rule they break.
    pub fn from_options(o: Options) -> Result<Protocol, LoadError> {
        use LoadError::*;
        let fail = |bad: bool, e: LoadError| if bad { Err(e) } else { Ok(()) };
        fail(o.pipeline == 0 || o.pipeline > 1024, Pipeline)?;
        fail(o.streams == 0 || o.streams > (1 << 31) - 1, Streams)?;
        if !o.ws {
            fail(o.ws_max_message.is_some(), WsOnly("ws_max_message"))?;
            fail(o.echo_check.is_some(), WsOnly("echo_check"))?;
        }
        // FastCGI and HTTP/1.0 take no other protocol's option: the first one given is named.
        let alone = |name: &'static str| -> Result<(), LoadError> {
            let other = [
                (o.fastcgi, "fastcgi"),
                (o.http1_0, "http1_0"),
                (o.http2, "http2"),
                (o.http3, "http3"),
                (o.ws, "ws"),
                (o.grpc, "grpc"),
                (o.pipeline > 1, "pipeline"),
                (o.streams > 1, "streams"),
            ];
            for (bad, with) in other.into_iter().filter(|(_, with)| *with != name) {
                fail(bad, Conflict(name, with))?;
            }
            Ok(())
        };
        if o.fastcgi {
            alone("fastcgi")?;
            return Ok(Protocol::Fastcgi {
                keepalive: o.keepalive,
            });
        }
        if o.http1_0 {
            alone("http1_0")?;
            return Ok(Protocol::Http10 {
                keepalive: o.keepalive,
            });
        }
        if o.http3 {
            fail(o.http2, Http3With("http2"))?;
            fail(o.ws, Http3With("ws"))?;
            fail(o.pipeline > 1, Http3With("pipeline"))?;
            fail(!o.keepalive, Http3With("keepalive"))?;
            return Ok(Protocol::Http3 { streams: o.streams });
        }
        if o.grpc {
            fail(o.http3, GrpcWith("http3"))?;
            fail(o.ws, GrpcWith("ws"))?;
            fail(o.pipeline > 1, GrpcWith("pipeline"))?;
            fail(!o.keepalive, GrpcWith("keepalive"))?;
            fail(!(65_535..=(1 << 31) - 1).contains(&o.h2_window), Window)?;
            return Ok(Protocol::Grpc {
                streams: o.streams,
                window: o.h2_window,
            });
        }
        if o.ws {
            fail(o.http2, WsWith("http2"))?;
            fail(!o.keepalive, WsWith("keepalive"))?;
            fail(o.streams > 1, StreamsWithoutHttp2)?;
            let max_message = o.ws_max_message.unwrap_or(DEFAULT_WS_MAX_MESSAGE);
            fail(max_message == 0, WsMaxMessage)?;
            return Ok(Protocol::Ws {
                pipeline: o.pipeline,
                max_message,
                echo: o.echo_check.unwrap_or(true),
            });
        }
        if o.http2 {
            fail(o.pipeline > 1, PipelineWithHttp2)?;
            fail(!o.keepalive, Http2WithoutKeepalive)?;
            fail(!(65_535..=(1 << 31) - 1).contains(&o.h2_window), Window)?;
            return Ok(Protocol::Http2 {
                streams: o.streams,
                window: o.h2_window,
            });
        }
        fail(o.streams > 1, StreamsWithoutHttp2)?;
        fail(o.pipeline > 1 && !o.keepalive, PipelineWithoutKeepalive)?;
        Ok(Protocol::Http1 {
            pipeline: o.pipeline,
            keepalive: o.keepalive,
        })
    }

    /// Requests opened at once on a connection: the pipelining depth, HTTP/2's streams, the
    /// WebSocket messages in flight.
    pub fn depth(&self) -> usize {
        match *self {
            Protocol::Http1 { pipeline, .. } | Protocol::Ws { pipeline, .. } => pipeline,
            Protocol::Http2 { streams, .. }
            | Protocol::Http3 { streams }
            | Protocol::Grpc { streams, .. } => streams,
            Protocol::Http10 { .. } | Protocol::Fastcgi { .. } => 1,
        }
    }

    /// Whether a connection asks to carry more than one request (false only for HTTP/1.1 and
    /// HTTP/1.0 without keep-alive).
    pub fn keepalive(&self) -> bool {
        match *self {
            Protocol::Http1 { keepalive, .. }
            | Protocol::Http10 { keepalive }
            | Protocol::Fastcgi { keepalive } => keepalive,
            Protocol::Http2 { .. }
            | Protocol::Ws { .. }
            | Protocol::Http3 { .. }
            | Protocol::Grpc { .. } => true,
        }
    }

    /// A WebSocket load with `pipeline` messages in flight and the defaults: replies up to
    /// [`DEFAULT_WS_MAX_MESSAGE`], echoes checked.
    pub fn ws(pipeline: usize) -> Protocol {
        Protocol::Ws {
            pipeline,
            max_message: DEFAULT_WS_MAX_MESSAGE,
            echo: true,
        }
    }

    /// Whether it is WebSocket (whose URL is `ws://` or `wss://`).
    pub fn is_ws(&self) -> bool {
        matches!(self, Protocol::Ws { .. })
    }

    /// Whether it runs over UDP datagrams (HTTP/3's QUIC) rather than a TCP stream.
    pub fn is_datagram(&self) -> bool {
        matches!(self, Protocol::Http3 { .. })
    }

    /// A short name: `http1`, `h2`, `ws`, `h3`, `grpc`, `http1.0`, `fastcgi` (a study's `{protocol}`
    /// placeholder).
    pub fn name(&self) -> &'static str {
        match self {
            Protocol::Http1 { .. } => "http1",
            Protocol::Http2 { .. } => "h2",
            Protocol::Ws { .. } => "ws",
            Protocol::Http3 { .. } => "h3",
            Protocol::Grpc { .. } => "grpc",
            Protocol::Http10 { .. } => "http1.0",
            Protocol::Fastcgi { .. } => "fastcgi",
        }
    }

    /// Requests (HTTP/1.1) or messages (WebSocket) in flight per connection; 1 for HTTP/2 and
    /// HTTP/3.
    pub fn pipeline(&self) -> usize {
        match *self {
            Protocol::Http1 { pipeline, .. } | Protocol::Ws { pipeline, .. } => pipeline,
            _ => 1,
        }
    }

    /// HTTP/2's, HTTP/3's or gRPC's streams per connection (1 for the other protocols).
    pub fn streams(&self) -> usize {
        match *self {
            Protocol::Http2 { streams, .. }
            | Protocol::Http3 { streams }
            | Protocol::Grpc { streams, .. } => streams,
            _ => 1,
        }
    }

    /// What a TLS connection offers by ALPN, in order of preference. HTTP/3's QUIC handshake
    /// offers `h3` itself.
    pub fn alpn(&self) -> &'static [&'static [u8]] {
        match self {
            Protocol::Http2 { .. } | Protocol::Grpc { .. } => &[b"h2", b"http/1.1"],
            Protocol::Http3 { .. } => &[b"h3"],
            Protocol::Http1 { .. } | Protocol::Ws { .. } => &[b"http/1.1"],
            // A server that has no http/1.0 to choose (rustls refuses a handshake without a
            // protocol in common) takes HTTP/1.0's requests on http/1.1, as HTTP/1.1 asks.
            Protocol::Http10 { .. } => &[b"http/1.0", b"http/1.1"],
            // FastCGI has no ALPN name: none is offered.
            Protocol::Fastcgi { .. } => &[],
        }
    }

    /// The protocol as people name it ("HTTP/1.1", "WebSocket", "gRPC"): what help says.
    pub fn word(&self) -> &'static str {
        match self {
            Protocol::Http1 { .. } => "HTTP/1.1",
            Protocol::Http10 { .. } => "HTTP/1.0",
            Protocol::Http2 { .. } => "HTTP/2",
            Protocol::Http3 { .. } => "HTTP/3",
            Protocol::Ws { .. } => "WebSocket",
            Protocol::Grpc { .. } => "gRPC",
            Protocol::Fastcgi { .. } => "FastCGI",
        }
    }

    /// The protocol after this one in the order help lists them: an exhaustive match, so a new
    /// variant does not compile until it takes its place in [`Protocol::every`].
    fn next(&self) -> Option<Protocol> {
        match self {
            Protocol::Http1 { .. } => Some(Protocol::Http10 { keepalive: true }),
            Protocol::Http10 { .. } => Some(Protocol::Http2 {
                streams: 1,
                window: DEFAULT_H2_WINDOW,
            }),
            Protocol::Http2 { .. } => Some(Protocol::Http3 { streams: 1 }),
            Protocol::Http3 { .. } => Some(Protocol::Ws {
                pipeline: 1,
                max_message: u64::MAX,
                echo: true,
            }),
            Protocol::Ws { .. } => Some(Protocol::Grpc {
                streams: 1,
                window: DEFAULT_H2_WINDOW,
            }),
            Protocol::Grpc { .. } => Some(Protocol::Fastcgi { keepalive: true }),
            Protocol::Fastcgi { .. } => None,
        }
    }

    /// Every protocol barrage load speaks, each once, in the order help lists them.
    pub fn every() -> Vec<Protocol> {
        let mut out = vec![Protocol::Http1 {
            pipeline: 1,
            keepalive: true,
        }];
        while let Some(p) = out.last().and_then(Protocol::next) {
            out.push(p);
        }
        out
    }

    /// Their words as a list for a sentence: "HTTP/1.1, HTTP/1.0, ..., gRPC or FastCGI".
    pub fn every_word() -> String {
        let words: Vec<&str> = Protocol::every().iter().map(Protocol::word).collect();
        match words.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => words.concat(),
        }
    }

    /// What a live display's title says of it after the URL and the connections (empty for
    /// HTTP/1.1 one at a time): ` http2 m=10`, ` ws pipeline=4`, ` http1.0`. Said here, beside
    /// the variant, so a new protocol names itself without the CLI changing.
    pub fn title(&self) -> String {
        match *self {
            Protocol::Http1 { pipeline, .. } if pipeline > 1 => format!(" pipeline={pipeline}"),
            Protocol::Http1 { .. } => String::new(),
            Protocol::Http2 { streams, .. } => format!(" http2 m={streams}"),
            Protocol::Http3 { streams } => format!(" http3 m={streams}"),
            // The title starts with "gRPC".
            Protocol::Grpc { streams, .. } => format!(" m={streams}"),
            Protocol::Ws { pipeline, .. } if pipeline > 1 => format!(" ws pipeline={pipeline}"),
            Protocol::Ws { .. } => " ws".to_string(),
            Protocol::Http10 { .. } => " http1.0".to_string(),
            Protocol::Fastcgi { .. } => " fastcgi".to_string(),
        }
    }

    /// What a summary's connections line says of it that no section of figures says (empty
    /// when a section does): `, pipeline 4`, `, HTTP/1.0`.
    pub fn summary(&self) -> String {
        match *self {
            Protocol::Http1 { pipeline, .. } | Protocol::Ws { pipeline, .. } if pipeline > 1 => {
                format!(", pipeline {pipeline}")
            }
            Protocol::Http10 { .. } => ", HTTP/1.0".to_string(),
            Protocol::Fastcgi { .. } => ", FastCGI".to_string(),
            Protocol::Http1 { .. }
            | Protocol::Ws { .. }
            | Protocol::Http2 { .. }
            | Protocol::Http3 { .. }
            | Protocol::Grpc { .. } => String::new(),
        }
    }

    /// Whether it runs over HTTP/2 (HTTP/2 itself, or gRPC).
    pub fn is_http2(&self) -> bool {
        matches!(self, Protocol::Http2 { .. } | Protocol::Grpc { .. })
    }
}

impl From<Protocol> for Options {
    fn from(p: Protocol) -> Options {
        // The declared defaults (`options.rs`), HTTP/1.1's.
        let base = Options::default();
        match p {
            Protocol::Http1 {
                pipeline,
                keepalive,
            } => Options {
                pipeline,
                keepalive,
                ..base
            },
            Protocol::Http2 { streams, window } => Options {
                http2: true,
                streams,
                h2_window: window,
                ..base
            },
            Protocol::Ws {
                pipeline,
                max_message,
                echo,
            } => Options {
                pipeline,
                ws: true,
                ws_max_message: Some(max_message),
                echo_check: Some(echo),
                ..base
            },
            Protocol::Http3 { streams } => Options {
                streams,
                http3: true,
                ..base
            },
            Protocol::Grpc { streams, window } => Options {
                grpc: true,
                streams,
                h2_window: window,
                ..base
            },
            Protocol::Http10 { keepalive } => Options {
                http1_0: true,
                keepalive,
                ..base
            },
            Protocol::Fastcgi { keepalive } => Options {
                fastcgi: true,
                keepalive,
                ..base
            },
        }
    }
}

impl TryFrom<Options> for Protocol {
    type Error = LoadError;

    fn try_from(o: Options) -> Result<Protocol, LoadError> {
        Protocol::from_options(o)
    }
}

#[cfg(test)]
mod every_tests {
    use super::Protocol;

    /// The chain reaches each protocol once, and help's sentence is made of their words.
    #[test]
    fn every_protocol_once_in_help_order() {
        let every = Protocol::every();
        let mut names: Vec<&str> = every.iter().map(Protocol::name).collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "a protocol twice in the chain");
        assert_eq!(
            Protocol::every_word(),
            "HTTP/1.1, HTTP/1.0, HTTP/2, HTTP/3, WebSocket, gRPC or FastCGI"
        );
    }
}
