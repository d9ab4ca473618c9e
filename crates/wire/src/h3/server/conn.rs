//! One HTTP/3 connection's server side: its QUIC connection, the client's unidirectional streams
//! (read by the shared [`crate::h3::client::uni`]), our three (control with SETTINGS, and the
//! QPACK streams, which stay empty: our encoder is static-only, our decoder's table is 0), and
//! the request streams, each decoded by [`super::request`] and holding what QUIC has not taken of
//! its response (at most [`super::STREAM_BUFFER`] plus one HEADERS frame; [`send`]).
//!
//! Work per event is O(1) in the streams held: request streams are found by id in a map, and a
//! stream is only looked at when QUIC says something about it (readable, writable, stopped) or
//! the caller addresses it; none is rescanned. A request stream is forgotten as soon as both of
//! its QUIC halves are closed, and never before: its receive half read to its end or reset, or
//! stopped by this side (STOP_SENDING); its send half finished or reset. That is what gives the
//! client its stream credit back (MAX_STREAMS): a request the client cancels (RESET_STREAM and
//! STOP_SENDING, in either order) costs one map entry for as long as the frames take to arrive.

use super::request::{Part, Request, Step};
use super::{Config, Event, StreamRef};
use crate::h3::client::uni::{self, Peer, Uni};
use crate::h3::error::{ErrorCode, H3Error};
use crate::h3::frame::StreamType;
use crate::h3::qpack::{Decoder, Encoder};
use crate::h3::Settings;
use bytes::Bytes;
use quinn_proto::StreamId;
use quinn_proto::{Connection, ConnectionHandle, Dir, Event as QEvent, ReadError, StreamEvent};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::net::IpAddr;
use std::time::Instant;

mod send;

/// One request stream.
#[derive(Debug)]
struct Req {
    id: StreamId,
    decode: Request,
    /// Response bytes QUIC has not taken yet.
    out: Vec<u8>,
    /// The response's end was given: FIN once `out` is taken.
    fin: bool,
    /// Our send half is closed: its FIN or a reset went to QUIC.
    sent_end: bool,
    /// The client's send half is closed for us: read to its FIN or reset, or stopped by this
    /// side (QUIC then releases it when the client's end or reset arrives). No more of the
    /// request is passed on.
    recv_end: bool,
    /// The caller asked for no more of the request body for now: QUIC keeps what arrives
    /// (its flow control stops the client) until resumed.
    paused: bool,
    /// The caller was refused room on this stream: [`Event::Writable`] when some frees.
    want_room: bool,
    /// In the connection's list of streams whose `out` goes to QUIC at the next transmit.
    queued: bool,
}

impl Req {
    fn new(id: StreamId) -> Req {
        Req {
            id,
            decode: Request::new(),
            out: Vec::new(),
            fin: false,
            sent_end: false,
            recv_end: false,
            paused: false,
            want_room: false,
            queued: false,
        }
    }
}

pub(super) struct Conn {
    pub(super) handle: ConnectionHandle,
    pub(super) quic: Connection,
    /// This connection among every one the server ever had (quinn-proto reuses handles):
    /// what the server's queues and timers name it by.
    pub(super) serial: u64,
    /// The client's address, what handshakes are bounded by.
    pub(super) ip: IpAddr,
    /// Counted among the server's handshakes in flight (until QUIC's handshake is over).
    pub(super) handshaking: bool,
    /// When a handshake still under way is given up.
    pub(super) handshake_deadline: Instant,
    /// The earliest instant the server's timer heap holds for this connection.
    pub(super) armed: Option<Instant>,
    /// In the server's queue of connections that may have datagrams to send.
    pub(super) queued: bool,
    /// Request streams looked at since the server last collected it (its work counter).
    pub(super) visits: u64,
    reqs: FxHashMap<u64, Req>,
    /// Request streams whose response bytes go to QUIC at the next transmit (each once).
    unwritten: Vec<u64>,
    uni: Vec<(StreamId, Uni)>,
    peer: Peer,
    own: Vec<StreamId>,
    own_pending: [Vec<u8>; 3],
    qpack: Decoder,
    encoder: Encoder,
    /// A response's field section being encoded (reused: no allocation per response).
    block: Vec<u8>,
    max_field_section: u64,
    lost: bool,
    /// The id after the last request stream accepted (what a GOAWAY names).
    next_bidi: u64,
    /// GOAWAY sent with this id: request streams at or above it are refused.
    goaway: Option<u64>,
}

use uni::code;

/// The events a connection adds to.
pub(super) type Events = VecDeque<Event>;

impl Conn {
    pub(super) fn new(
        handle: ConnectionHandle,
        quic: Connection,
        cfg: &Config,
        serial: u64,
        ip: IpAddr,
        now: Instant,
    ) -> Conn {
        Conn {
            handle,
            quic,
            serial,
            ip,
            handshaking: true,
            handshake_deadline: now + cfg.handshake_timeout.min(cfg.idle_timeout),
            armed: None,
            queued: false,
            visits: 0,
            reqs: FxHashMap::default(),
            unwritten: Vec::new(),
            uni: Vec::new(),
            peer: Peer::default(),
            own: Vec::new(),
            own_pending: Default::default(),
            qpack: Decoder::new(0, 0, Some(cfg.max_field_section)),
            encoder: Encoder::new(),
            block: Vec::new(),
            max_field_section: cfg.max_field_section,
            lost: false,
            next_bidi: 0,
            goaway: None,
        }
    }

    fn sref(&self, id: StreamId) -> StreamRef {
        StreamRef {
            conn: self.handle.0,
            stream: u64::from(id),
        }
    }

    /// Request streams open now (test figures).
    pub(super) fn streams(&self) -> usize {
        self.reqs.len()
    }

    /// Runs QUIC's connection events after an input.
    pub(super) fn pump(&mut self, now: Instant, events: &mut Events) {
        let mut error: Option<H3Error> = None;
        while let Some(ev) = self.quic.poll() {
            let r = match ev {
                QEvent::Connected => {
                    self.open_own();
                    Ok(())
                }
                QEvent::ConnectionLost { .. } => {
                    self.gone(events);
                    Ok(())
                }
                QEvent::Stream(StreamEvent::Opened { dir: Dir::Bi }) => {
                    let mut r = Ok(());
                    while let Some(id) = self.quic.streams().accept(Dir::Bi) {
                        let n = u64::from(id);
                        if self.goaway.is_some_and(|g| n >= g) {
                            // After GOAWAY: not processed, so the client may send it again
                            // elsewhere (RFC 9114 §5.2).
                            let c = code(ErrorCode::RequestRejected);
                            let _ = self.quic.recv_stream(id).stop(c);
                            let _ = self.quic.send_stream(id).reset(c);
                            continue;
                        }
                        self.next_bidi = self.next_bidi.max(n + 4);
                        self.reqs.insert(n, Req::new(id));
                        r = r.and(self.read(id, events));
                    }
                    r
                }
                QEvent::Stream(StreamEvent::Opened { dir: Dir::Uni }) => {
                    let mut r = Ok(());
                    while let Some(id) = self.quic.streams().accept(Dir::Uni) {
                        self.uni.push((id, Uni::from_client()));
                        r = r.and(self.read(id, events));
                    }
                    r
                }
                QEvent::Stream(StreamEvent::Readable { id }) => self.read(id, events),
                QEvent::Stream(StreamEvent::Writable { id }) => {
                    self.write(u64::from(id), events);
                    Ok(())
                }
                QEvent::Stream(StreamEvent::Stopped { id, .. }) => {
                    self.stopped(id, events);
                    Ok(())
                }
                QEvent::Stream(_)
                | QEvent::HandshakeDataReady
                | QEvent::DatagramReceived
                | QEvent::DatagramsUnblocked => Ok(()),
            };
            if let Err(e) = r {
                error = Some(e);
                break;
            }
        }
        if let Some(e) = error {
            self.close(now, e.code, e.what);
            self.gone(events);
        }
        self.flush();
    }

    /// The client sent STOP_SENDING: it reads no more of the response, which is cut short
    /// (RESET_STREAM), and nothing more of its request is read (STOP_SENDING back, unless its
    /// end came): RFC 9114 §4.1.1's cancellation, whichever of its two frames came first.
    fn stopped(&mut self, id: StreamId, events: &mut Events) {
        self.visits += 1;
        let s = u64::from(id);
        // Whatever we still send on it stops (a response whose FIN went out but is not
        // acknowledged too; QUIC refuses the reset of a stream it forgot, harmlessly).
        let _ = self
            .quic
            .send_stream(id)
            .reset(code(ErrorCode::RequestCancelled));
        let Some(r) = self.reqs.get_mut(&s) else {
            return;
        };
        let had_head = r.decode.has_head();
        let was_done = r.sent_end;
        r.out = Vec::new();
        r.sent_end = true;
        if !r.recv_end {
            let _ = self
                .quic
                .recv_stream(id)
                .stop(code(ErrorCode::RequestCancelled));
            r.recv_end = true;
        }
        if had_head && !was_done {
            events.push_back(Event::Gone { id: self.sref(id) });
        }
        self.release(s);
    }

    /// Opens our control and QPACK streams once the handshake is done.
    fn open_own(&mut self) {
        let settings = Settings {
            qpack_max_table_capacity: 0,
            max_field_section_size: Some(self.max_field_section),
            qpack_blocked_streams: 0,
        };
        let preambles = [
            uni::control_preamble_with(&settings),
            uni::stream_preamble(StreamType::QpackEncoder),
            uni::stream_preamble(StreamType::QpackDecoder),
        ];
        for (i, p) in preambles.into_iter().enumerate() {
            let Some(id) = self.quic.streams().open(Dir::Uni) else {
                break;
            };
            self.own.push(id);
            self.own_pending[i] = p;
        }
    }

    /// Reads stream `id`: a request, or one of the client's unidirectional streams. An error
    /// is the connection's.
    fn read(&mut self, id: StreamId, events: &mut Events) -> Result<(), H3Error> {
        if id.dir() == Dir::Uni {
            return self.read_uni(id);
        }
        self.visits += 1;
        let sref = self.sref(id);
        let Some(req) = self.reqs.get_mut(&sref.stream) else {
            // A stream this side is done with: whatever QUIC still holds of it goes (a stop of
            // a stream QUIC already forgot does nothing).
            let _ = self.quic.recv_stream(id).stop(code(ErrorCode::NoError));
            return Ok(());
        };
        if req.recv_end {
            return Ok(());
        }
        if req.paused {
            // Nothing is read while paused, but a reset must not wait for the caller: QUIC
            // releases the stream once its reset is seen.
            if let Ok(Some(_)) = self.quic.recv_stream(id).received_reset() {
                req.recv_end = true;
                self.cancelled(sref, events);
            }
            return Ok(());
        }
        let qpack = &mut self.qpack;
        let mut recv = self.quic.recv_stream(id);
        let Ok(mut chunks) = recv.read(true) else {
            return Ok(());
        };
        let mut result = Ok(());
        let mut on = |p: Part<'_>| match p {
            Part::Head(head) => events.push_back(Event::Request { id: sref, head }),
            Part::Data(d) => events.push_back(Event::Body {
                id: sref,
                data: d.to_vec(),
            }),
        };
        let mut fail = None;
        let mut too_large = false;
        // Events after the parts, once QUIC's stream is free again.
        let mut late = None;
        let mut reset = false;
        loop {
            if req.paused {
                break;
            }
            match chunks.next(usize::MAX) {
                Ok(Some(chunk)) => match req.decode.feed(sref.stream, &chunk.bytes, qpack, &mut on)
                {
                    Ok(Step::More) => {}
                    Ok(Step::Malformed(c)) => {
                        fail = Some(c);
                        break;
                    }
                    Ok(Step::TooLarge) => {
                        too_large = true;
                        late = Some(Event::TooLarge { id: sref });
                        break;
                    }
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                },
                Ok(None) => {
                    req.recv_end = true;
                    match req.decode.end() {
                        Ok(true) => {
                            late = Some(Event::End {
                                id: sref,
                                whole: true,
                            })
                        }
                        Ok(false) => fail = Some(ErrorCode::Message),
                        Err(e) => result = Err(e),
                    }
                    break;
                }
                Err(ReadError::Blocked) => break,
                Err(ReadError::Reset(_)) => {
                    req.recv_end = true;
                    reset = true;
                    break;
                }
            }
        }
        let _ = chunks.finalize();
        if let Some(ev) = late {
            events.push_back(ev);
        }
        if reset {
            self.cancelled(sref, events);
        } else if too_large {
            // The rest of the request is not wanted (the 431 answers it).
            self.stop_reading(id, ErrorCode::NoError);
        } else if let Some(c) = fail {
            self.malformed(sref, c, events);
        }
        self.release(sref.stream);
        result
    }

    /// No more of the request is read: QUIC is told (STOP_SENDING), and releases the stream's
    /// receive half once the client's end or reset arrives.
    fn stop_reading(&mut self, id: StreamId, c: ErrorCode) {
        if let Some(r) = self.reqs.get_mut(&u64::from(id)) {
            if !r.recv_end {
                let _ = self.quic.recv_stream(id).stop(code(c));
                r.recv_end = true;
            }
        }
    }

    /// The client reset its request: its answer is not wanted.
    fn cancelled(&mut self, sref: StreamRef, events: &mut Events) {
        let Some(r) = self.reqs.get_mut(&sref.stream) else {
            return;
        };
        if !r.sent_end {
            r.sent_end = true;
            r.out = Vec::new();
            let c = code(ErrorCode::RequestCancelled);
            let _ = self.quic.send_stream(r.id).reset(c);
            if r.decode.has_head() {
                events.push_back(Event::Gone { id: sref });
            }
        }
    }

    /// The request broke HTTP/3's message rules: the stream is reset both ways with `c`, and
    /// the connection goes on.
    fn malformed(&mut self, sref: StreamRef, c: ErrorCode, events: &mut Events) {
        let Some(r) = self.reqs.get_mut(&sref.stream) else {
            return;
        };
        let had_head = r.decode.has_head();
        let id = r.id;
        r.out = Vec::new();
        if !r.sent_end {
            r.sent_end = true;
            let _ = self.quic.send_stream(id).reset(code(c));
        }
        self.stop_reading(id, c);
        events.push_back(if had_head {
            Event::Gone { id: sref }
        } else {
            Event::End {
                id: sref,
                whole: false,
            }
        });
    }

    /// Reads a client's unidirectional stream; forgets it once QUIC is done with it.
    fn read_uni(&mut self, id: StreamId) -> Result<(), H3Error> {
        let Some(at) = self.uni.iter().position(|(i, _)| *i == id) else {
            return Ok(());
        };
        let done = uni::read(
            &mut self.quic,
            id,
            &mut self.uni[at].1,
            &mut self.peer,
            &mut self.qpack,
            &mut self.encoder,
            "the client closed a control or QPACK stream",
        )?;
        if done {
            // Ignored or ended streams: a client that opens and closes them (QUIC gives the
            // credit back) holds nothing here.
            self.uni.swap_remove(at);
        }
        Ok(())
    }

    /// Sends GOAWAY on our control stream (once): requests already accepted are answered,
    /// later ones refused.
    pub(super) fn goaway(&mut self) {
        if self.goaway.is_some() || self.own.is_empty() {
            return;
        }
        self.goaway = Some(self.next_bidi);
        crate::h3::frame::write_goaway(self.next_bidi, &mut self.own_pending[0]);
        self.flush();
    }

    /// Stops or resumes reading stream `stream`'s request body; resuming reads what QUIC kept.
    pub(super) fn pause(&mut self, now: Instant, stream: u64, paused: bool, events: &mut Events) {
        self.visits += 1;
        let Some(r) = self.reqs.get_mut(&stream) else {
            return;
        };
        let was = std::mem::replace(&mut r.paused, paused);
        if was && !paused {
            let id = r.id;
            if let Err(e) = self.read(id, events) {
                self.close(now, e.code, e.what);
                self.gone(events);
            }
        }
    }

    pub(super) fn close(&mut self, now: Instant, c: ErrorCode, why: &'static str) {
        self.quic
            .close(now, code(c), Bytes::from_static(why.as_bytes()));
    }

    /// Every request stream is gone with the connection.
    pub(super) fn gone(&mut self, events: &mut Events) {
        if std::mem::replace(&mut self.lost, true) {
            return;
        }
        let conn = self.handle.0;
        for (stream, r) in self.reqs.drain() {
            if !r.sent_end {
                events.push_back(Event::Gone {
                    id: StreamRef { conn, stream },
                });
            }
        }
    }

    /// Forgets request stream `stream` if both its halves are closed.
    fn release(&mut self, stream: u64) {
        if self
            .reqs
            .get(&stream)
            .is_some_and(|r| r.sent_end && r.recv_end)
        {
            self.reqs.remove(&stream);
        }
    }
}
