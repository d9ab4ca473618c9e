//! WebSocket (RFC 6455), sans I/O like the HTTP codecs: every function takes the bytes the
//! caller has and says how many it used, so a stream split at any byte boundary decodes the same.
//!
//! - [`frame`]: the frame header (FIN, opcode, the 7/16/64-bit length, the mask), its checks,
//!   writers that append frames to a caller's buffer, and [`frame::apply_mask`], which masks or
//!   unmasks in place a word at a time.
//! - [`utf8`]: UTF-8 validation of a text message that arrives in pieces, failing at the first
//!   byte that cannot begin or continue a character.
//! - [`session`]: one connection's message layer for either role: fragmentation with control
//!   frames interleaved, text checked as it arrives, pings answered, the close handshake, and
//!   the limits of one frame and one message. It decodes from the caller's buffer (unmasking it
//!   in place), encodes into the caller's `Vec`, and hands messages out borrowed: a message in
//!   one frame that arrived whole is never copied, and a fragmented or partly read one is
//!   assembled in a buffer the session reuses, so steady state does not allocate.
//! - [`client`]: the load's client connection behind the engine's session interface: the
//!   upgrade, then one message per request, replies matched in order.
//! - [`handshake`]: the HTTP/1.1 opening handshake of both roles (`Sec-WebSocket-Key` and
//!   `-Accept`: SHA-1 by ring, base64).

pub mod client;
pub mod frame;
pub mod handshake;
pub mod session;
pub mod utf8;

pub use frame::{Header, Opcode};
pub use handshake::HandshakeError;
pub use session::{Event, Limits, Role, Session};

use thiserror::Error;

/// Close codes of RFC 6455 §7.4.1 this codec sends.
pub mod code {
    pub const NORMAL: u16 = 1000;
    pub const GOING_AWAY: u16 = 1001;
    pub const PROTOCOL_ERROR: u16 = 1002;
    pub const UNSUPPORTED_DATA: u16 = 1003;
    pub const INVALID_PAYLOAD: u16 = 1007;
    pub const POLICY_VIOLATION: u16 = 1008;
    pub const MESSAGE_TOO_BIG: u16 = 1009;
    pub const INTERNAL_ERROR: u16 = 1011;
}

/// Whether `code` may appear in a Close frame on the wire (RFC 6455 §7.4, and the IANA
/// registry's 1012-1014). 1005, 1006 and 1015 are reserved for an API to report "no code",
/// "closed abnormally" and "TLS failed" and must never be sent.
pub fn valid_close_code(code: u16) -> bool {
    matches!(code, 1000..=1003 | 1007..=1014 | 3000..=4999)
}

/// Why a peer's frames were refused. [`WsError::close_code`] is the code to close with.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WsError {
    #[error("reserved bits set without an extension that defines them")]
    ReservedBits,
    #[error("reserved opcode {0:#x}")]
    ReservedOpcode(u8),
    #[error("64-bit payload length with the most significant bit set")]
    LengthTopBit,
    #[error("control frame with a payload of {0} bytes (at most 125)")]
    ControlTooLong(u64),
    #[error("fragmented control frame")]
    ControlFragmented,
    #[error("unmasked frame from a client")]
    Unmasked,
    #[error("masked frame from a server")]
    Masked,
    #[error("continuation frame without a message in progress")]
    UnexpectedContinuation,
    #[error("new data frame while a fragmented message is in progress")]
    ExpectedContinuation,
    #[error("text that is not valid UTF-8")]
    InvalidUtf8,
    #[error("close reason that is not valid UTF-8")]
    InvalidCloseReason,
    #[error("close frame with a one-byte payload")]
    CloseTooShort,
    #[error("close code {0} is not allowed on the wire")]
    InvalidCloseCode(u16),
    #[error("frame of {len} bytes over the limit of {limit}")]
    FrameTooLarge { len: u64, limit: u64 },
    #[error("message over the limit of {limit} bytes")]
    MessageTooLarge { limit: u64 },
}

impl WsError {
    /// The close code that fails the connection for this error (RFC 6455 §7.4.1): 1007 for
    /// text or a close reason that is not UTF-8, 1009 for what is over a limit, 1002 else.
    pub fn close_code(&self) -> u16 {
        match self {
            WsError::InvalidUtf8 | WsError::InvalidCloseReason => code::INVALID_PAYLOAD,
            WsError::FrameTooLarge { .. } | WsError::MessageTooLarge { .. } => {
                code::MESSAGE_TOO_BIG
            }
            _ => code::PROTOCOL_ERROR,
        }
    }
}
