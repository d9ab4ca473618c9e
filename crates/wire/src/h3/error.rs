//! HTTP/3's error codes (RFC 9114 §8.1) and QPACK's (RFC 9204 §6) in one enum, as they share one
//! space on the wire (CONNECTION_CLOSE and RESET_STREAM carry either), and [`H3Error`], what the
//! frame layer reports.

use thiserror::Error;

/// An application error code of HTTP/3 or QPACK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    NoError,
    GeneralProtocol,
    Internal,
    StreamCreation,
    ClosedCriticalStream,
    FrameUnexpected,
    Frame,
    ExcessiveLoad,
    Id,
    Settings,
    MissingSettings,
    RequestRejected,
    RequestCancelled,
    RequestIncomplete,
    Message,
    Connect,
    VersionFallback,
    QpackDecompressionFailed,
    QpackEncoderStream,
    QpackDecoderStream,
    /// A code this version does not know (reserved grease codes among them).
    Other(u64),
}

/// (code, value, name), the one table both directions read.
const CODES: [(ErrorCode, u64, &str); 20] = [
    (ErrorCode::NoError, 0x0100, "H3_NO_ERROR"),
    (
        ErrorCode::GeneralProtocol,
        0x0101,
        "H3_GENERAL_PROTOCOL_ERROR",
    ),
    (ErrorCode::Internal, 0x0102, "H3_INTERNAL_ERROR"),
    (
        ErrorCode::StreamCreation,
        0x0103,
        "H3_STREAM_CREATION_ERROR",
    ),
    (
        ErrorCode::ClosedCriticalStream,
        0x0104,
        "H3_CLOSED_CRITICAL_STREAM",
    ),
    (ErrorCode::FrameUnexpected, 0x0105, "H3_FRAME_UNEXPECTED"),
    (ErrorCode::Frame, 0x0106, "H3_FRAME_ERROR"),
    (ErrorCode::ExcessiveLoad, 0x0107, "H3_EXCESSIVE_LOAD"),
    (ErrorCode::Id, 0x0108, "H3_ID_ERROR"),
    (ErrorCode::Settings, 0x0109, "H3_SETTINGS_ERROR"),
    (ErrorCode::MissingSettings, 0x010a, "H3_MISSING_SETTINGS"),
    (ErrorCode::RequestRejected, 0x010b, "H3_REQUEST_REJECTED"),
    (ErrorCode::RequestCancelled, 0x010c, "H3_REQUEST_CANCELLED"),
    (
        ErrorCode::RequestIncomplete,
        0x010d,
        "H3_REQUEST_INCOMPLETE",
    ),
    (ErrorCode::Message, 0x010e, "H3_MESSAGE_ERROR"),
    (ErrorCode::Connect, 0x010f, "H3_CONNECT_ERROR"),
    (ErrorCode::VersionFallback, 0x0110, "H3_VERSION_FALLBACK"),
    (
        ErrorCode::QpackDecompressionFailed,
        0x0200,
        "QPACK_DECOMPRESSION_FAILED",
    ),
    (
        ErrorCode::QpackEncoderStream,
        0x0201,
        "QPACK_ENCODER_STREAM_ERROR",
    ),
    (
        ErrorCode::QpackDecoderStream,
        0x0202,
        "QPACK_DECODER_STREAM_ERROR",
    ),
];

impl ErrorCode {
    pub fn from_u64(c: u64) -> ErrorCode {
        CODES
            .iter()
            .find(|(_, v, _)| *v == c)
            .map_or(ErrorCode::Other(c), |(k, _, _)| *k)
    }

    pub fn to_u64(self) -> u64 {
        match self {
            ErrorCode::Other(c) => c,
            k => {
                CODES
                    .iter()
                    .find(|(c, _, _)| *c == k)
                    .expect("every code is in CODES")
                    .1
            }
        }
    }

    /// The name the RFCs give it ("H3_FRAME_ERROR"), for counts by class.
    pub fn name(self) -> &'static str {
        CODES
            .iter()
            .find(|(c, _, _)| *c == self)
            .map_or("UNKNOWN_ERROR", |(_, _, n)| n)
    }

    /// Reserved codes of the form 0x1f * N + 0x21 (RFC 9114 §8.1), sent to exercise a peer's
    /// handling of unknown codes; they mean nothing.
    pub fn is_grease(c: u64) -> bool {
        c >= 0x21 && (c - 0x21).is_multiple_of(0x1f)
    }
}

/// A frame or stream that breaks RFC 9114: a connection error with this code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("{}: {what}", code.name())]
pub struct H3Error {
    pub code: ErrorCode,
    pub what: &'static str,
}

impl H3Error {
    pub(crate) fn new(code: ErrorCode, what: &'static str) -> H3Error {
        H3Error { code, what }
    }
}
