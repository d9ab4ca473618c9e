//! barrage's HTTP codecs, shared by the load engine (client side) and the server: HTTP/1.1 at the
//! root (with the client's connection in [`h1`]), HTTP/2 in [`h2`], HTTP/3 framing, QPACK and a
//! client session over QUIC (quinn-proto's sans-I/O state machine) in [`h3`], and the one
//! interface the engine drives a client connection of any of them through ([`client`]).
//!
//! Nothing here does I/O: every function takes bytes that the caller read and says how many it
//! consumed, so the same code serves a mio loop, a blocking socket or a fuzzer. Header parsing is
//! httparse's (for requests, optionally picohttpparser's or http-parser's: [`Parser`]); framing (Content-Length, chunked, close-delimited) is ours, incremental, and works
//! on any split of the input.

pub mod body;
pub mod chunked;
pub mod client;
pub mod encode;
pub mod error;
pub mod fcgi;
mod fields;
pub mod grpc;
pub mod h1;
pub mod h2;
pub mod h3;
pub mod kept;
pub mod pattern;
pub mod request;
pub mod response;
pub mod server;
mod status;
pub mod ws;

pub use body::{
    connection_has, declared_framing, parse_content_length, BodyDecoder, DeclaredFraming, Framing,
};
pub use chunked::ChunkedDecoder;
pub use encode::RequestSpec;
pub use error::WireError;
pub use request::{
    header_slots, parse_request_head, HeadParser, HeaderSlots, Parser, ParserUnavailable,
    RequestError, RequestHead, UnknownParser,
};
pub use response::{parse_response_head, ResponseHead};
pub use status::reason;

/// The most header lines a message may carry before it is refused (httparse needs a fixed array).
pub const MAX_HEADERS: usize = 100;
