//! Mapping a request's method and target to what the server does with it. Pure and table-tested.

/// A fault the server can act out instead of answering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Close with a TCP RST (SO_LINGER 0).
    Reset,
    /// Close (FIN) without answering.
    Close,
    /// Keep the connection open and never answer.
    Stall,
    /// A valid response whose body trickles out one byte every `every_ms`.
    Drip { bytes: u64, every_ms: u64 },
    /// A malformed response, then close.
    Garbage,
}

/// The faults `--fault-rate` picks from (drip is an endpoint only: it answers correctly, slowly).
pub(crate) const RANDOM_FAULTS: [Fault; 4] =
    [Fault::Reset, Fault::Close, Fault::Stall, Fault::Garbage];

/// Fault number `r` of `--fault-rate`'s picks.
pub(crate) fn random_fault(r: u64) -> Fault {
    RANDOM_FAULTS[(r % RANDOM_FAULTS.len() as u64) as usize]
}

/// What `/ws/echo` does after the upgrade (its query: `delay`, `fault`, `code`, `after`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct WsEcho {
    /// Each echo goes out this long after its message came.
    pub delay_ms: u64,
    /// A message-level fault instead of the echo of message `after + 1`.
    pub fault: Option<WsFault>,
    pub after: u64,
}

/// A WebSocket fault, acted out on a message instead of its echo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WsFault {
    /// A Close frame with this code (the close handshake, then the connection ends).
    Close(u16),
    /// The connection closed (FIN) without a Close frame.
    Drop,
    /// The connection reset (RST).
    Reset,
    /// Nothing more: no echo, no pong, no reading.
    Stall,
}

/// The endpoint a request goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    Hello,
    Ping,
    Echo,
    /// `/sink`: the request body read and dropped, its size answered.
    Sink,
    Sleep {
        ms: u64,
    },
    Bytes {
        n: u64,
        chunked: bool,
        chunk: usize,
    },
    Status(u16),
    Json,
    /// The request headers, already rendered as JSON (the head is gone by the time we answer).
    Headers(Vec<u8>),
    Fault(Fault),
    /// `/ws/echo`: a WebSocket upgrade, then every message echoed.
    WsEcho(WsEcho),
    /// A gRPC call (`content-type: application/grpc` over a stream protocol), by method, with
    /// the fault its metadata asked for (or its head's deadline or encoding made) and the
    /// encoding of its request messages (`grpc-encoding`).
    Grpc(
        crate::grpc::Method,
        Option<crate::grpc::fault::CallFault>,
        barrage_wire::grpc::Encoding,
    ),
    NotFound,
    MethodNotAllowed(&'static str),
    /// A bad parameter in an otherwise well-formed request (400, connection kept).
    BadParam(&'static str),
}

/// Longest `/sleep` accepted (one hour).
pub(crate) const MAX_SLEEP_MS: u64 = 3_600_000;
/// Default write size of `/bytes` (and chunk size with `?chunked=1`).
pub(crate) const DEFAULT_WRITE: usize = 256 * 1024;
pub(crate) const DEFAULT_CHUNK: usize = 64 * 1024;
/// Largest `?chunk=`.
pub(crate) const MAX_CHUNK: usize = 16 << 20;

/// Routes a request. `headers_json` renders the request headers for `/headers` (called only then).
pub(crate) fn route(
    method: &str,
    path: &str,
    query: Option<&str>,
    headers_json: impl FnOnce() -> Vec<u8>,
) -> Route {
    let get = method == "GET" || method == "HEAD";
    let only_get = |r: Route| {
        if get {
            r
        } else {
            Route::MethodNotAllowed("GET, HEAD")
        }
    };
    match path {
        "/" if get => Route::Hello,
        "/" if method == "POST" => Route::Ping,
        "/" => Route::MethodNotAllowed("GET, HEAD, POST"),
        "/ping" if method == "POST" => Route::Ping,
        "/ping" => Route::MethodNotAllowed("POST"),
        "/echo" => Route::Echo,
        "/sink" if method == "POST" || method == "PUT" => Route::Sink,
        "/sink" => Route::MethodNotAllowed("POST, PUT"),
        "/json" => only_get(Route::Json),
        "/headers" => only_get(Route::Headers(headers_json())),
        "/fault/reset" => Route::Fault(Fault::Reset),
        "/fault/close" => Route::Fault(Fault::Close),
        "/fault/stall" => Route::Fault(Fault::Stall),
        "/fault/garbage" => Route::Fault(Fault::Garbage),
        "/fault/drip" => only_get(drip(query)),
        "/ws/echo" if method == "GET" => ws_echo(query),
        "/ws/echo" => Route::MethodNotAllowed("GET"),
        _ => {
            if let Some(ms) = path.strip_prefix("/sleep/") {
                only_get(match ms.parse::<u64>() {
                    Ok(ms) if ms <= MAX_SLEEP_MS => Route::Sleep { ms },
                    _ => Route::BadParam("sleep takes milliseconds, 0 to 3600000"),
                })
            } else if let Some(n) = path.strip_prefix("/bytes/") {
                only_get(bytes(n, query))
            } else if let Some(code) = path.strip_prefix("/status/") {
                only_get(match code.parse::<u16>() {
                    Ok(c) if (200..=599).contains(&c) => Route::Status(c),
                    _ => Route::BadParam("status takes a code from 200 to 599"),
                })
            } else {
                Route::NotFound
            }
        }
    }
}

fn bytes(n: &str, query: Option<&str>) -> Route {
    let Some(n) = parse_size(n) else {
        return Route::BadParam("bytes takes a size: 1000, 64KiB, 1GiB, 5MB");
    };
    let mut chunked = false;
    let mut chunk = None;
    for (k, v) in params(query) {
        match k {
            "chunked" => chunked = matches!(v, "1" | "true" | "yes" | ""),
            "chunk" => match parse_size(v) {
                Some(c) if c > 0 && c <= MAX_CHUNK as u64 => chunk = Some(c as usize),
                _ => return Route::BadParam("chunk takes a size from 1 to 16MiB"),
            },
            _ => {}
        }
    }
    let chunk = chunk.unwrap_or(if chunked {
        DEFAULT_CHUNK
    } else {
        DEFAULT_WRITE
    });
    Route::Bytes { n, chunked, chunk }
}

fn drip(query: Option<&str>) -> Route {
    let mut bytes = 10;
    let mut every_ms = 100;
    for (k, v) in params(query) {
        let parsed = match k {
            "bytes" => parse_size(v).map(|b| bytes = b),
            "every" => v
                .parse::<u64>()
                .ok()
                .filter(|&ms| (1..=MAX_SLEEP_MS).contains(&ms))
                .map(|ms| every_ms = ms),
            _ => Some(()),
        };
        if parsed.is_none() {
            return Route::BadParam("drip takes bytes=SIZE&every=MS");
        }
    }
    Route::Fault(Fault::Drip { bytes, every_ms })
}

const WS_ECHO_PARAMS: &str = "ws/echo takes delay=MS, fault=close|drop|reset|stall, \
     code=CODE (a close code allowed on the wire), after=N (messages echoed first)";

fn ws_echo(query: Option<&str>) -> Route {
    let mut e = WsEcho::default();
    let mut fault = None;
    let mut code = barrage_wire::ws::code::INTERNAL_ERROR;
    for (k, v) in params(query) {
        let ok = match k {
            "delay" => v
                .parse::<u64>()
                .ok()
                .filter(|&ms| ms <= MAX_SLEEP_MS)
                .map(|ms| e.delay_ms = ms),
            "after" => v.parse::<u64>().ok().map(|n| e.after = n),
            "code" => v
                .parse::<u16>()
                .ok()
                .filter(|&c| barrage_wire::ws::valid_close_code(c))
                .map(|c| code = c),
            "fault" => match v {
                "close" | "drop" | "reset" | "stall" => {
                    fault = Some(v);
                    Some(())
                }
                _ => None,
            },
            _ => Some(()),
        };
        if ok.is_none() {
            return Route::BadParam(WS_ECHO_PARAMS);
        }
    }
    e.fault = fault.map(|f| match f {
        "close" => WsFault::Close(code),
        "drop" => WsFault::Drop,
        "reset" => WsFault::Reset,
        _ => WsFault::Stall,
    });
    Route::WsEcho(e)
}

/// `k=v` pairs of a query string (no percent-decoding: our parameters never need it).
fn params(query: Option<&str>) -> impl Iterator<Item = (&str, &str)> {
    query
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
}

/// A byte count in the one size grammar (`barrage_model::units::parse_size`); `None` for
/// anything else.
pub fn parse_size(s: &str) -> Option<u64> {
    barrage_model::units::parse_size(s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(method: &str, target: &str) -> Route {
        let (path, query) = match target.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (target, None),
        };
        route(method, path, query, || b"{}".to_vec())
    }

    #[test]
    fn table() {
        let cases: Vec<(&str, &str, Route)> = vec![
            ("GET", "/", Route::Hello),
            ("HEAD", "/", Route::Hello),
            ("POST", "/", Route::Ping),
            ("DELETE", "/", Route::MethodNotAllowed("GET, HEAD, POST")),
            ("POST", "/ping", Route::Ping),
            ("GET", "/ping", Route::MethodNotAllowed("POST")),
            ("PUT", "/echo", Route::Echo),
            ("POST", "/sink", Route::Sink),
            ("PUT", "/sink", Route::Sink),
            ("GET", "/sink", Route::MethodNotAllowed("POST, PUT")),
            ("GET", "/json", Route::Json),
            ("GET", "/headers", Route::Headers(b"{}".to_vec())),
            ("GET", "/sleep/250", Route::Sleep { ms: 250 }),
            (
                "GET",
                "/sleep/x",
                Route::BadParam("sleep takes milliseconds, 0 to 3600000"),
            ),
            (
                "GET",
                "/sleep/3600001",
                Route::BadParam("sleep takes milliseconds, 0 to 3600000"),
            ),
            (
                "GET",
                "/bytes/1GiB",
                Route::Bytes {
                    n: 1 << 30,
                    chunked: false,
                    chunk: DEFAULT_WRITE,
                },
            ),
            (
                "GET",
                "/bytes/10?chunked=1",
                Route::Bytes {
                    n: 10,
                    chunked: true,
                    chunk: DEFAULT_CHUNK,
                },
            ),
            (
                "GET",
                "/bytes/64KiB?chunked=1&chunk=1KiB",
                Route::Bytes {
                    n: 65536,
                    chunked: true,
                    chunk: 1024,
                },
            ),
            (
                "GET",
                "/bytes/5?chunk=0",
                Route::BadParam("chunk takes a size from 1 to 16MiB"),
            ),
            (
                "GET",
                "/bytes/5XB",
                Route::BadParam("bytes takes a size: 1000, 64KiB, 1GiB, 5MB"),
            ),
            ("GET", "/status/503", Route::Status(503)),
            (
                "GET",
                "/status/99",
                Route::BadParam("status takes a code from 200 to 599"),
            ),
            ("GET", "/fault/reset", Route::Fault(Fault::Reset)),
            ("POST", "/fault/close", Route::Fault(Fault::Close)),
            ("GET", "/fault/stall", Route::Fault(Fault::Stall)),
            ("GET", "/fault/garbage", Route::Fault(Fault::Garbage)),
            (
                "GET",
                "/fault/drip",
                Route::Fault(Fault::Drip {
                    bytes: 10,
                    every_ms: 100,
                }),
            ),
            (
                "GET",
                "/fault/drip?bytes=3&every=5",
                Route::Fault(Fault::Drip {
                    bytes: 3,
                    every_ms: 5,
                }),
            ),
            (
                "GET",
                "/fault/drip?every=x",
                Route::BadParam("drip takes bytes=SIZE&every=MS"),
            ),
            // A zero interval would drip the whole body in one loop turn.
            (
                "GET",
                "/fault/drip?every=0",
                Route::BadParam("drip takes bytes=SIZE&every=MS"),
            ),
            ("GET", "/ws/echo", Route::WsEcho(WsEcho::default())),
            (
                "GET",
                "/ws/echo?delay=20",
                Route::WsEcho(WsEcho {
                    delay_ms: 20,
                    ..WsEcho::default()
                }),
            ),
            (
                "GET",
                "/ws/echo?fault=close",
                Route::WsEcho(WsEcho {
                    fault: Some(WsFault::Close(1011)),
                    ..WsEcho::default()
                }),
            ),
            (
                "GET",
                "/ws/echo?fault=close&code=4000&after=3",
                Route::WsEcho(WsEcho {
                    fault: Some(WsFault::Close(4000)),
                    after: 3,
                    ..WsEcho::default()
                }),
            ),
            (
                "GET",
                "/ws/echo?fault=drop&after=1",
                Route::WsEcho(WsEcho {
                    fault: Some(WsFault::Drop),
                    after: 1,
                    ..WsEcho::default()
                }),
            ),
            (
                "GET",
                "/ws/echo?fault=reset",
                Route::WsEcho(WsEcho {
                    fault: Some(WsFault::Reset),
                    ..WsEcho::default()
                }),
            ),
            (
                "GET",
                "/ws/echo?fault=stall",
                Route::WsEcho(WsEcho {
                    fault: Some(WsFault::Stall),
                    ..WsEcho::default()
                }),
            ),
            (
                "GET",
                "/ws/echo?fault=boom",
                Route::BadParam(WS_ECHO_PARAMS),
            ),
            // 1005 is reserved for "no code" and never sent.
            (
                "GET",
                "/ws/echo?fault=close&code=1005",
                Route::BadParam(WS_ECHO_PARAMS),
            ),
            ("GET", "/ws/echo?delay=x", Route::BadParam(WS_ECHO_PARAMS)),
            (
                "GET",
                "/ws/echo?delay=3600001",
                Route::BadParam(WS_ECHO_PARAMS),
            ),
            ("POST", "/ws/echo", Route::MethodNotAllowed("GET")),
            ("HEAD", "/ws/echo", Route::MethodNotAllowed("GET")),
            ("GET", "/nope", Route::NotFound),
            ("GET", "/bytes", Route::NotFound),
        ];
        for (m, t, want) in cases {
            assert_eq!(r(m, t), want, "{m} {t}");
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("0"), Some(0));
        assert_eq!(parse_size("64KiB"), Some(65_536));
        assert_eq!(parse_size("64kib"), Some(65_536));
        assert_eq!(parse_size("5MB"), Some(5_000_000));
        assert_eq!(parse_size("1GiB"), Some(1 << 30));
        assert_eq!(parse_size("2TiB"), Some(2 << 40));
        assert_eq!(parse_size("12b"), Some(12));
        assert_eq!(parse_size(""), None);
        assert_eq!(parse_size("KiB"), None);
        assert_eq!(parse_size("1 KiB"), None);
        assert_eq!(parse_size("-1"), None);
        assert_eq!(parse_size("99999999999TiB"), None);
        assert_eq!(parse_size("184467440737095516150"), None);
    }
}
