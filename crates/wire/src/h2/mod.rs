//! HTTP/2 (RFC 9113) framing, shared by the load engine and the server like the HTTP/1.1 codec:
//! no I/O, every parser takes the bytes the caller has and says how many it used, so a frame
//! split at any byte boundary parses the same once it is whole.
//!
//! - [`frame`]: the frame header, each frame type's payload checks (the connection and stream
//!   errors RFC 9113 §6 demands, with their error codes), and writers that append frames to a
//!   buffer without allocating beyond it.
//! - [`settings`]: SETTINGS parameters and their validation.
//! - [`session`]: the connection-level state client and server share (SETTINGS exchange, PING,
//!   header blocks, receive flow control), fed bytes, answering into a buffer.
//!
//! - [`hpack`]: header block coding (RFC 7541).
//! - [`server`]: the server half as `barrage serve` drives it (stream states, request checks,
//!   responses under flow control).
//! - [`client`]: the client half of a connection as the load engine drives it (streams up to a
//!   limit, one request encoded once, request bodies under flow control, each stream's end).

pub mod client;
pub mod frame;
pub mod hpack;
pub mod server;
pub mod session;
pub mod settings;

pub use frame::{parse_frame, ErrorCode, Frame, H2Error, Kind};
pub use settings::Settings;

/// The client connection preface (RFC 9113 §3.4); a server tells h2c with prior knowledge from
/// HTTP/1.1 by it.
pub const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// A frame header's length in bytes.
pub const FRAME_HEADER_LEN: usize = 9;

/// The largest flow-control window (2^31-1).
pub const MAX_WINDOW: u32 = (1 << 31) - 1;

/// The initial window and frame size every peer starts with (RFC 9113 §6.5.2).
pub const DEFAULT_WINDOW: u32 = 65_535;
pub const DEFAULT_MAX_FRAME_SIZE: u32 = 16_384;
