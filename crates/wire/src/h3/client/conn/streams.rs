//! HTTP/3's streams over a QUIC connection, from the client's side: the request streams (their
//! bytes written as QUIC takes them, their responses read chunk by chunk into
//! [`super::super::response`]), the pool of streams opened ahead so that `room` is exact, the
//! server's unidirectional streams read into [`super::super::uni`], and ours written. Functions
//! over the connection and the HTTP/3 state, borrowed apart, so that a read can hand each
//! request's end to the caller while QUIC's stream is open.

use super::super::response::{Ended, Response, Step};
use super::super::uni::{self, Peer, Uni};
use super::super::Setup;
use crate::client::{End, Failure, Tag};
use crate::h3::error::{ErrorCode, H3Error};
use crate::h3::frame::StreamType;
use crate::h3::qpack::{Decoder, Encoder};
use crate::kept::Keeper;
use quinn_proto::{Connection, Dir, ReadError, StreamId};
use std::collections::VecDeque;

/// One request stream.
#[derive(Debug)]
pub(super) struct Stream<T> {
    pub(super) id: StreamId,
    pub(super) tag: T,
    pub(super) req: usize,
    /// A request of its own (a script's, given as text), encoded for this stream alone,
    /// instead of `req`.
    pub(super) own: Option<Box<[u8]>>,
    /// Request bytes written so far; the FIN goes after the last.
    pub(super) sent: usize,
    pub(super) response: Response,
}

/// Our three unidirectional streams and what is still to be written on them.
#[derive(Debug, Default)]
pub(super) struct Own {
    pub(super) ids: Vec<StreamId>,
    /// Bytes not yet taken by QUIC, per stream (control, QPACK encoder, QPACK decoder).
    pub(super) pending: [Vec<u8>; 3],
}

/// The HTTP/3 state beside QUIC's, borrowed apart from the connection.
pub(super) struct H3<T> {
    pub(super) streams: Vec<Stream<T>>,
    /// Bidirectional streams opened in QUIC and not used yet: what the server's limit allows,
    /// up to `-m`, so that `room` is exact. Used oldest first (ids go out in order).
    pub(super) pool: VecDeque<StreamId>,
    pub(super) uni: Vec<(StreamId, Uni)>,
    pub(super) peer: Peer,
    pub(super) own: Own,
    pub(super) qpack: Decoder,
    pub(super) encoder: Encoder,
    /// Decoder-stream bytes written by the QPACK decoder, moved to `own.pending[2]`.
    pub(super) acks: Vec<u8>,
    /// Streams to stop and reset after a read (the connection is borrowed during it).
    pub(super) fail: Vec<(StreamId, ErrorCode)>,
    /// Requests refused with H3_REQUEST_REJECTED (counted ones), not yet in the counts.
    pub(super) retried: u64,
    /// Whole responses kept for a script's `response()` hook (when the setup asks).
    pub(super) keep: Option<Keeper>,
}

/// H3_REQUEST_CANCELLED: what a request stream this side gives up on is reset and stopped with.
pub(super) const CANCELLED: ErrorCode = ErrorCode::RequestCancelled;

pub(super) use uni::code;

impl<T> H3<T> {
    pub(super) fn new(setup: &Setup) -> H3<T> {
        H3 {
            streams: Vec::new(),
            pool: VecDeque::new(),
            uni: Vec::new(),
            peer: Peer::default(),
            own: Own::default(),
            qpack: Decoder::new(
                super::super::TABLE_CAPACITY,
                super::super::BLOCKED_STREAMS,
                Some(setup.max_field_section),
            ),
            encoder: Encoder::new(),
            acks: Vec::new(),
            fail: Vec::new(),
            retried: 0,
            keep: setup.keep_responses.then(Keeper::default),
        }
    }

    /// A new stream's response decoder, which keeps the response whole when the setup asks.
    pub(super) fn response(&mut self, head: bool) -> Response {
        let r = Response::new(head);
        match self.keep.as_mut() {
            Some(k) => r.keeping(Box::new(k.fresh())),
            None => r,
        }
    }
}

/// Opens our control and QPACK streams once the handshake is done (QUIC allows no stream
/// before it knows the server's limits).
pub(super) fn open_own<T>(conn: &mut Connection, h3: &mut H3<T>, setup: &Setup) {
    let preambles = [
        uni::control_preamble(setup.max_field_section),
        uni::stream_preamble(StreamType::QpackEncoder),
        uni::stream_preamble(StreamType::QpackDecoder),
    ];
    for (i, p) in preambles.into_iter().enumerate() {
        let Some(id) = conn.streams().open(Dir::Uni) else {
            // A server that allows fewer than three: HTTP/3 needs them (RFC 9114 §6.2).
            break;
        };
        h3.own.ids.push(id);
        h3.own.pending[i] = p;
    }
}

/// Writes what QUIC takes of our unidirectional streams' pending bytes (the decoder stream's
/// acknowledgments first moved there).
pub(super) fn flush_own(conn: &mut Connection, own: &mut Own, acks: &mut Vec<u8>) {
    own.pending[2].append(acks);
    for (i, id) in own.ids.iter().enumerate() {
        let p = &mut own.pending[i];
        if p.is_empty() {
            continue;
        }
        if let Ok(n) = conn.send_stream(*id).write(p) {
            p.drain(..n);
        }
    }
}

/// Opens bidirectional streams into the pool, up to `-m` with the open ones, as far as the
/// server's limit allows.
pub(super) fn fill_pool<T>(conn: &mut Connection, h3: &mut H3<T>, max: usize) {
    while h3.pool.len() + h3.streams.len() < max {
        match conn.streams().open(Dir::Bi) {
            Some(id) => h3.pool.push_back(id),
            None => break,
        }
    }
}

/// Writes what QUIC takes of request stream `id`'s bytes, and its FIN after the last.
pub(super) fn write_request<T>(conn: &mut Connection, h3: &mut H3<T>, setup: &Setup, id: StreamId) {
    let Some(s) = h3.streams.iter_mut().find(|s| s.id == id) else {
        // One of ours (its pending bytes go out in flush_own).
        return;
    };
    write_stream(conn, s, setup);
}

pub(super) fn write_stream<T>(conn: &mut Connection, s: &mut Stream<T>, setup: &Setup) {
    let bytes = match &s.own {
        Some(own) => own,
        None => setup.requests[s.req].bytes(),
    };
    if s.sent >= bytes.len() {
        return;
    }
    let mut send = conn.send_stream(s.id);
    if let Ok(n) = send.write(&bytes[s.sent..]) {
        s.sent += n;
        if s.sent == bytes.len() {
            let _ = send.finish();
        }
    }
}

/// Reads what stream `id` has: a request stream's response, or a server's unidirectional
/// stream. An error is the connection's.
pub(super) fn read<T: Tag, F: FnMut(End<T>)>(
    conn: &mut Connection,
    h3: &mut H3<T>,
    id: StreamId,
    expect: Option<&[u8]>,
    answered: &mut u64,
    on: &mut F,
) -> Result<(), H3Error> {
    if id.dir() == Dir::Uni {
        return read_uni(conn, h3, id);
    }
    let Some(at) = h3.streams.iter().position(|s| s.id == id) else {
        return Ok(());
    };
    let H3 {
        streams,
        qpack,
        acks,
        fail,
        retried,
        keep,
        ..
    } = h3;
    let s = &mut streams[at];
    let sid = u64::from(id);
    let mut recv = conn.recv_stream(id);
    let Ok(mut chunks) = recv.read(true) else {
        return Ok(());
    };
    let mut result = Ok(None);
    while !s.response.is_blocked() {
        match chunks.next(usize::MAX) {
            Ok(Some(chunk)) => match s.response.feed(sid, &chunk.bytes, qpack, acks, expect) {
                Ok(Step::More | Step::Blocked) => {}
                Ok(Step::Malformed(c)) => {
                    result = Ok(Some(Outcome::Failed(Failure::Malformed(c.name()))));
                    fail.push((id, c));
                    break;
                }
                Ok(Step::TooLarge) => {
                    result = Ok(Some(Outcome::Failed(too_large())));
                    fail.push((id, ErrorCode::ExcessiveLoad));
                    break;
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            },
            Ok(None) => {
                result = s.response.end(expect).map(|e| Some(Outcome::Ended(e)));
                break;
            }
            Err(ReadError::Blocked) => break,
            Err(ReadError::Reset(c)) => {
                let c = ErrorCode::from_u64(c.into_inner());
                // H3_REQUEST_REJECTED: the server did not process it (RFC 9114 §4.1.1), so it
                // may go out again.
                result = Ok(Some(if c == ErrorCode::RequestRejected {
                    Outcome::Unprocessed
                } else {
                    Outcome::Failed(Failure::Reset(c.name()))
                }));
                break;
            }
        }
    }
    let _ = chunks.finalize();
    let Some(outcome) = result? else {
        return Ok(());
    };
    let mut s = streams.remove(at);
    if s.response.is_blocked() {
        qpack.cancel_stream(sid, acks);
    }
    if let (Outcome::Ended(Ended::Response { status, .. }), Some(keeper)) = (&outcome, keep) {
        if let Some(mut k) = s.response.take_kept() {
            k.status = *status;
            keeper.done(*k);
        }
    }
    let tag = s.tag;
    let unprocessed = matches!(outcome, Outcome::Unprocessed);
    *answered += u64::from(!unprocessed);
    *retried += u64::from(unprocessed && tag.counted());
    on(match outcome {
        Outcome::Ended(Ended::Response { status, body_ok }) => End::Response {
            tag,
            status,
            body_ok,
        },
        Outcome::Ended(Ended::Malformed(c)) => End::Failed {
            tag,
            failure: Failure::Malformed(c.name()),
        },
        Outcome::Failed(failure) => End::Failed { tag, failure },
        Outcome::Unprocessed => End::Unprocessed { tag },
    });
    Ok(())
}

/// How a request stream's read ended it.
enum Outcome {
    Ended(Ended),
    Failed(Failure),
    Unprocessed,
}

/// A response header section above the limit announced.
pub(super) fn too_large() -> Failure {
    Failure::HeaderTooLarge {
        limit_kib: (super::super::MAX_FIELD_SECTION / 1024) as u32,
    }
}

/// Reads a server's unidirectional stream.
pub(super) fn read_uni<T>(
    conn: &mut Connection,
    h3: &mut H3<T>,
    id: StreamId,
) -> Result<(), H3Error> {
    let H3 {
        uni,
        peer,
        qpack,
        encoder,
        ..
    } = h3;
    let Some((_, u)) = uni.iter_mut().find(|(i, _)| *i == id) else {
        return Ok(());
    };
    uni::read(
        conn,
        id,
        u,
        peer,
        qpack,
        encoder,
        "the server closed a control or QPACK stream",
    )
    .map(|_| ())
}

/// After the reads of an input: streams that failed are stopped and reset, sections blocked on
/// inserts that arrived are decoded again, and the inserts acknowledged.
pub(super) fn after_reads<T: Tag, F: FnMut(End<T>)>(
    conn: &mut Connection,
    h3: &mut H3<T>,
    expect: Option<&[u8]>,
    answered: &mut u64,
    on: &mut F,
) -> Result<(), H3Error> {
    while std::mem::take(&mut h3.peer.inserted) {
        let blocked: Vec<StreamId> = h3
            .streams
            .iter()
            .filter(|s| s.response.is_blocked())
            .map(|s| s.id)
            .collect();
        for id in blocked {
            let Some(at) = h3.streams.iter().position(|s| s.id == id) else {
                continue;
            };
            let H3 {
                streams,
                qpack,
                acks,
                ..
            } = h3;
            let s = &mut streams[at];
            match s.response.resume(u64::from(id), qpack, acks, expect)? {
                Step::More => read(conn, h3, id, expect, answered, on)?,
                Step::Blocked => {}
                Step::Malformed(c) => {
                    let s = streams.remove(at);
                    h3.fail.push((id, c));
                    *answered += 1;
                    on(End::Failed {
                        tag: s.tag,
                        failure: Failure::Malformed(c.name()),
                    });
                }
                Step::TooLarge => {
                    let s = streams.remove(at);
                    h3.fail.push((id, ErrorCode::ExcessiveLoad));
                    *answered += 1;
                    on(End::Failed {
                        tag: s.tag,
                        failure: too_large(),
                    });
                }
            }
        }
    }
    h3.qpack.ack_inserts(&mut h3.acks);
    for (id, c) in h3.fail.drain(..) {
        let _ = conn.recv_stream(id).stop(code(c));
        let _ = conn.send_stream(id).reset(code(c));
    }
    Ok(())
}
