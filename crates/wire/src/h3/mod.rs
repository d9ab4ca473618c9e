//! HTTP/3 (RFC 9114) framing and QPACK (RFC 9204), sans I/O like the HTTP/2 codec: every
//! function takes the bytes the caller has and says how many it used, so a stream's bytes split
//! at any boundary decode the same. There is no QUIC here: the caller owns the transport and
//! hands each QUIC stream's bytes to the decoder of that stream.
//!
//! - [`varint`]: QUIC's variable-length integers (RFC 9000 §16), which every HTTP/3 field uses.
//! - [`frame`]: frame types, a streaming [`frame::FrameDecoder`] for one stream (DATA payloads
//!   pass through in chunks, never buffered; other frames are bounded by a size limit), the
//!   writers, and the unidirectional stream types.
//! - [`settings`]: the SETTINGS parameters HTTP/3 and QPACK define, and their checks.
//! - [`qpack`]: field compression: the static table, a static-only encoder (what barrage sends),
//!   and a decoder with the dynamic table, its encoder-stream instructions and the decoder-stream
//!   answers, bounded against QPACK bombs.
//! - [`client`]: the client half of a connection over QUIC (quinn-proto, sans I/O), behind the
//!   engine's client-session interface.
//! - [`server`]: the server half over QUIC (quinn-proto's endpoint, sans I/O): requests out as
//!   events, responses in, bounded per stream.
//! - [`error`]: the error codes of RFC 9114 §8.1 and RFC 9204 §6, and [`H3Error`].

pub mod client;
pub mod error;
pub mod frame;
pub mod qpack;
pub mod server;
pub mod settings;
pub mod varint;

pub use error::{ErrorCode, H3Error};
pub use frame::{Event, Frame, FrameDecoder, StreamType};
pub use settings::Settings;

/// The largest non-DATA frame a [`FrameDecoder`] takes by default: a HEADERS frame holds one
/// encoded field section, and 64 KiB is above what real peers send while it keeps what a stream
/// buffers bounded.
pub const DEFAULT_MAX_FRAME: u64 = 64 * 1024;
