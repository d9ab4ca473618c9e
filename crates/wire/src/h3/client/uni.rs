//! HTTP/3's unidirectional streams (RFC 9114 §6.2) as the peer opens them: its control stream
//! (SETTINGS first, then GOAWAY; from a client also MAX_PUSH_ID), its QPACK encoder stream (the
//! inserts our decoder applies) and decoder stream (read by our static-only encoder); push
//! streams are refused (no MAX_PUSH_ID is sent, and a client may not open one) and reserved or
//! unknown types are read and dropped. Also the bytes of our own three streams: the control
//! stream with our SETTINGS, the empty encoder stream, and the decoder stream's instructions.
//! The client's session and the server's ([`crate::h3::server`]) share it; `from_client` says
//! which side the peer is.
//!
//! Pure but for [`read`], the one loop both sides take a peer's stream's bytes from QUIC with;
//! nothing is buffered beyond one partial frame or instruction.

use crate::h3::error::{ErrorCode, H3Error};
use crate::h3::frame::{self, Event, Frame, FrameDecoder, StreamType};
use crate::h3::qpack::{Decoder, Encoder};
use crate::h3::{varint, Settings, DEFAULT_MAX_FRAME};
use quinn_proto::{Connection, ReadError, StreamId, VarInt};

/// QUIC's varint for an HTTP/3 error code (a stream's STOP_SENDING or RESET_STREAM).
pub(crate) fn code(c: ErrorCode) -> VarInt {
    VarInt::from_u64(c.to_u64()).unwrap_or(VarInt::MAX)
}

/// Reads what QUIC holds of the peer's unidirectional stream `id` into `u`; a control or QPACK
/// stream the peer closes is H3_CLOSED_CRITICAL_STREAM (`peer_name` says whose, for the message),
/// and a stream of an ignored type is stopped. True when QUIC is done with the stream (it ended,
/// was reset or stopped): the caller forgets it. Errors are the connection's.
#[allow(clippy::too_many_arguments)]
pub(crate) fn read(
    conn: &mut Connection,
    id: StreamId,
    u: &mut Uni,
    peer: &mut Peer,
    qpack: &mut Decoder,
    encoder: &mut Encoder,
    closed_critical: &'static str,
) -> Result<bool, H3Error> {
    let mut recv = conn.recv_stream(id);
    let Ok(mut chunks) = recv.read(true) else {
        return Ok(true);
    };
    let mut r = Ok(false);
    loop {
        match chunks.next(usize::MAX) {
            Ok(Some(chunk)) => {
                if let Err(e) = u.feed(&chunk.bytes, peer, qpack, encoder) {
                    r = Err(e);
                    break;
                }
            }
            Ok(None) | Err(ReadError::Reset(_)) => {
                r = if u.critical() {
                    Err(H3Error::new(
                        ErrorCode::ClosedCriticalStream,
                        closed_critical,
                    ))
                } else {
                    Ok(true)
                };
                break;
            }
            Err(ReadError::Blocked) => break,
        }
    }
    let _ = chunks.finalize();
    if u.ignored() {
        let _ = conn.recv_stream(id).stop(code(ErrorCode::NoError));
        return r.map(|_| true);
    }
    r
}

/// What a server's unidirectional stream turned out to be.
#[derive(Debug)]
enum Kind {
    /// Its type has not arrived yet.
    Unread,
    Control(FrameDecoder),
    QpackEncoder,
    QpackDecoder,
    /// A reserved or unknown type: read and dropped (RFC 9114 §6.2.3, §9).
    Ignored,
}

/// One unidirectional stream of the server's.
#[derive(Debug)]
pub(crate) struct Uni {
    kind: Kind,
    carry: Vec<u8>,
    /// The peer is a client (this side serves): GOAWAY carries a push id, MAX_PUSH_ID is
    /// allowed.
    from_client: bool,
}

/// What the server's unidirectional streams told the connection.
#[derive(Debug, Default)]
pub(crate) struct Peer {
    /// The server's SETTINGS (None until its control stream brought them).
    pub settings: Option<Settings>,
    /// The lowest GOAWAY stream id received: streams at or above it were not processed.
    pub goaway: Option<u64>,
    /// Which critical streams were opened (control, QPACK encoder, QPACK decoder).
    opened: [bool; 3],
    /// Inserts arrived: blocked header sections may decode now.
    pub inserted: bool,
}

fn err(code: ErrorCode, what: &'static str) -> H3Error {
    H3Error::new(code, what)
}

impl Uni {
    pub(crate) fn new() -> Uni {
        Uni {
            kind: Kind::Unread,
            carry: Vec::new(),
            from_client: false,
        }
    }

    /// A stream a client opened (this side is the server).
    pub(crate) fn from_client() -> Uni {
        Uni {
            from_client: true,
            ..Uni::new()
        }
    }

    /// Whether the stream is one whose end is the connection's (RFC 9114 §6.2.1, RFC 9204
    /// §4.2): closing it is H3_CLOSED_CRITICAL_STREAM.
    pub(crate) fn critical(&self) -> bool {
        matches!(
            self.kind,
            Kind::Control(_) | Kind::QpackEncoder | Kind::QpackDecoder
        )
    }

    /// Whether the stream's bytes are dropped (the caller may stop it).
    pub(crate) fn ignored(&self) -> bool {
        matches!(self.kind, Kind::Ignored)
    }

    /// Takes the stream's next bytes. Errors are the connection's.
    pub(crate) fn feed(
        &mut self,
        data: &[u8],
        peer: &mut Peer,
        qpack: &mut Decoder,
        encoder: &mut Encoder,
    ) -> Result<(), H3Error> {
        if matches!(self.kind, Kind::Ignored) {
            return Ok(());
        }
        let mut input = std::mem::take(&mut self.carry);
        input.extend_from_slice(data);
        let mut at = 0;
        if matches!(self.kind, Kind::Unread) {
            let Some((ty, n)) = StreamType::decode(&input) else {
                self.carry = input;
                return Ok(());
            };
            at = n;
            let slot = match ty {
                StreamType::Control => Some(0),
                StreamType::QpackEncoder => Some(1),
                StreamType::QpackDecoder => Some(2),
                StreamType::Push => {
                    return Err(err(ErrorCode::Id, "push stream though no push was allowed"))
                }
                StreamType::Unknown(_) => None,
            };
            if let Some(i) = slot {
                if std::mem::replace(&mut peer.opened[i], true) {
                    return Err(err(
                        ErrorCode::StreamCreation,
                        "a second control or QPACK stream",
                    ));
                }
            }
            self.kind = match ty {
                StreamType::Control => Kind::Control(FrameDecoder::new(DEFAULT_MAX_FRAME)),
                StreamType::QpackEncoder => Kind::QpackEncoder,
                StreamType::QpackDecoder => Kind::QpackDecoder,
                _ => Kind::Ignored,
            };
        }
        let rest = &input[at..];
        let used = match &mut self.kind {
            Kind::Unread | Kind::Ignored => rest.len(),
            Kind::Control(frames) => control(frames, rest, peer, self.from_client)?,
            Kind::QpackEncoder => {
                let before = qpack.table().insert_count();
                let used = qpack
                    .feed_encoder_stream(rest)
                    .map_err(|e| err(e.code(), "QPACK encoder stream broken"))?;
                peer.inserted |= qpack.table().insert_count() > before;
                // A partial instruction is at most one entry the table can hold.
                if rest.len() - used > (qpack.table().max_capacity() as usize) + 64 {
                    return Err(err(
                        ErrorCode::QpackEncoderStream,
                        "an encoder instruction larger than the table",
                    ));
                }
                used
            }
            Kind::QpackDecoder => {
                let used = encoder
                    .feed_decoder_stream(rest)
                    .map_err(|e| err(e.code(), "QPACK decoder stream broken"))?;
                if rest.len() - used > 16 {
                    return Err(err(
                        ErrorCode::QpackDecoderStream,
                        "a decoder instruction too long",
                    ));
                }
                used
            }
        };
        input.drain(..at + used);
        self.carry = input;
        Ok(())
    }
}

/// The server's control stream's frames: the bytes used.
fn control(
    frames: &mut FrameDecoder,
    buf: &[u8],
    peer: &mut Peer,
    from_client: bool,
) -> Result<usize, H3Error> {
    let mut at = 0;
    loop {
        let (used, ev) = frames.next(&buf[at..])?;
        at += used;
        let Some(ev) = ev else { return Ok(at) };
        let first = peer.settings.is_none();
        match ev {
            Event::Frame(Frame::Settings(s)) if first => peer.settings = Some(s),
            _ if first => {
                return Err(err(
                    ErrorCode::MissingSettings,
                    "control stream does not begin with SETTINGS",
                ))
            }
            // A client's GOAWAY names a push id (none are used here) and MAX_PUSH_ID allows
            // pushes this server never makes: both are read and dropped.
            Event::Frame(Frame::GoAway(_) | Frame::MaxPushId(_)) if from_client => {}
            Event::Frame(Frame::GoAway(id)) => {
                // Client-initiated bidirectional ids only, and never increasing (§5.2).
                if id % 4 != 0 || peer.goaway.is_some_and(|g| id > g) {
                    return Err(err(ErrorCode::Id, "GOAWAY with a wrong or larger id"));
                }
                peer.goaway = Some(id);
            }
            Event::Frame(Frame::CancelPush(_)) => {
                return Err(err(ErrorCode::Id, "CANCEL_PUSH though no push was allowed"))
            }
            Event::Frame(_) | Event::Data { .. } | Event::DataChunk(_) => {
                return Err(err(
                    ErrorCode::FrameUnexpected,
                    "a frame the control stream may not carry",
                ))
            }
        }
    }
}

/// The opening bytes of our control stream: its type and our SETTINGS.
pub(crate) fn control_preamble(max_field_section: u64) -> Vec<u8> {
    control_preamble_with(&Settings {
        qpack_max_table_capacity: super::TABLE_CAPACITY,
        max_field_section_size: Some(max_field_section.min(varint::MAX)),
        qpack_blocked_streams: super::BLOCKED_STREAMS,
    })
}

/// The opening bytes of a control stream announcing `s`.
pub(crate) fn control_preamble_with(s: &Settings) -> Vec<u8> {
    let mut out = Vec::new();
    StreamType::Control.write(&mut out);
    frame::write_settings(s, &mut out);
    out
}

/// The opening byte of a QPACK stream of ours.
pub(crate) fn stream_preamble(ty: StreamType) -> Vec<u8> {
    let mut out = Vec::new();
    ty.write(&mut out);
    out
}
