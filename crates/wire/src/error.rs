//! The ways a message can be malformed. Each is a variant so callers count them by kind.

use thiserror::Error;

/// A malformed or unacceptable HTTP/1.1 message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WireError {
    #[error("malformed message head: {0}")]
    Head(&'static str),
    #[error("message head has more than {max} header lines")]
    TooManyHeaders { max: usize },
    #[error("invalid Content-Length")]
    BadContentLength,
    #[error("several Content-Length headers that disagree")]
    ConflictingContentLength,
    #[error("both Transfer-Encoding and Content-Length")]
    LengthAndTransferEncoding,
    #[error("unsupported Transfer-Encoding (only a final `chunked` is understood)")]
    UnsupportedTransferEncoding,
    #[error("invalid chunk size line")]
    BadChunkSize,
    #[error("chunk size does not fit in 64 bits")]
    ChunkSizeOverflow,
    #[error("chunk data not followed by CRLF")]
    BadChunkTerminator,
    #[error("chunk extension or trailer section too long")]
    ChunkMetadataTooLong,
    #[error("connection closed before the body was complete")]
    IncompleteBody,
}

impl From<httparse::Error> for WireError {
    fn from(e: httparse::Error) -> Self {
        use httparse::Error as E;
        WireError::Head(match e {
            E::HeaderName => "invalid header name",
            E::HeaderValue => "invalid header value",
            E::NewLine => "invalid line ending",
            E::Status => "invalid status",
            E::Token => "invalid token",
            E::TooManyHeaders => {
                return WireError::TooManyHeaders {
                    max: crate::MAX_HEADERS,
                }
            }
            E::Version => "invalid HTTP version",
        })
    }
}
