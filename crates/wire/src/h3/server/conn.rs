//! One HTTP/3 connection's server side: its QUIC connection, the client's unidirectional streams
//! (read by the shared [`crate::h3::client::uni`]), our three (control with SETTINGS, and the
//! QPACK streams, which stay empty: our encoder is static-only, our decoder's table is 0), and
//! the request streams, each decoded by [`super::request`] and holding what QUIC has not taken of
//! its response (at most [`super::STREAM_BUFFER`] plus one HEADERS frame).

use super::request::{Part, Request, Step};
use super::{Config, Event, StreamRef, STREAM_BUFFER};
use crate::h3::client::uni::{self, Peer, Uni};
use crate::h3::error::{ErrorCode, H3Error};
use crate::h3::frame::{self, StreamType};
use crate::h3::qpack::{Decoder, Encoder};
use crate::h3::Settings;
use bytes::Bytes;
use quinn_proto::{
    Connection, ConnectionHandle, Dir, Event as QEvent, ReadError, StreamEvent, StreamId,
    WriteError,
};
use std::time::Instant;

/// One request stream.
#[derive(Debug)]
struct Req {
    id: StreamId,
    decode: Request,
    /// Response bytes QUIC has not taken yet.
    out: Vec<u8>,
    /// The response's end was given: FIN once `out` is taken.
    fin: bool,
    /// The FIN (or a reset) went to QUIC.
    sent_end: bool,
    /// The request's end came (or the request was given up).
    recv_end: bool,
    /// The caller asked for no more of the request body for now: QUIC keeps what arrives
    /// (its flow control stops the client) until [`Conn::resume`].
    paused: bool,
}

pub(super) struct Conn {
    pub(super) handle: ConnectionHandle,
    pub(super) quic: Connection,
    reqs: Vec<Req>,
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

impl Conn {
    pub(super) fn new(handle: ConnectionHandle, quic: Connection, cfg: &Config) -> Conn {
        Conn {
            handle,
            quic,
            reqs: Vec::new(),
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

    /// Runs QUIC's connection events after an input.
    pub(super) fn pump(&mut self, now: Instant, events: &mut std::collections::VecDeque<Event>) {
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
                        self.reqs.push(Req {
                            id,
                            decode: Request::new(),
                            out: Vec::new(),
                            fin: false,
                            sent_end: false,
                            recv_end: false,
                            paused: false,
                        });
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
                    self.write(id);
                    Ok(())
                }
                QEvent::Stream(StreamEvent::Stopped { id, .. }) => {
                    // The client reads no more of the response: it is cut short.
                    if let Some(r) = self.reqs.iter_mut().find(|r| r.id == id) {
                        let _ = self.quic.send_stream(id).reset(code(ErrorCode::NoError));
                        r.sent_end = true;
                        r.recv_end = true;
                        r.out = Vec::new();
                        events.push_back(Event::Gone {
                            id: StreamRef {
                                conn: self.handle.0,
                                stream: u64::from(id),
                            },
                        });
                    }
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
    fn read(
        &mut self,
        id: StreamId,
        events: &mut std::collections::VecDeque<Event>,
    ) -> Result<(), H3Error> {
        if id.dir() == Dir::Uni {
            return self.read_uni(id);
        }
        let sref = self.sref(id);
        let Some(at) = self.reqs.iter().position(|r| r.id == id) else {
            return Ok(());
        };
        let req = &mut self.reqs[at];
        if req.recv_end {
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
        // Events after the parts, and a reset of our side, once QUIC's stream is free again.
        let mut late = None;
        let mut reset_send = None;
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
                        req.recv_end = true;
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
                    if !req.sent_end {
                        // The client gave up on the request: its answer is not wanted.
                        req.sent_end = true;
                        req.out = Vec::new();
                        reset_send = Some(ErrorCode::RequestCancelled);
                        if req.decode.has_head() {
                            late = Some(Event::Gone { id: sref });
                        }
                    }
                    break;
                }
            }
        }
        let _ = chunks.finalize();
        if let Some(ev) = late {
            events.push_back(ev);
        }
        if let Some(c) = fail {
            let had_head = req.decode.has_head();
            req.recv_end = true;
            req.sent_end = true;
            req.out = Vec::new();
            let _ = self.quic.recv_stream(id).stop(code(c));
            reset_send = Some(c);
            events.push_back(if had_head {
                Event::Gone { id: sref }
            } else {
                Event::End {
                    id: sref,
                    whole: false,
                }
            });
        }
        if let Some(c) = reset_send {
            let _ = self.quic.send_stream(id).reset(code(c));
        }
        self.reap();
        result
    }

    /// Reads a client's unidirectional stream.
    fn read_uni(&mut self, id: StreamId) -> Result<(), H3Error> {
        let Some((_, u)) = self.uni.iter_mut().find(|(i, _)| *i == id) else {
            return Ok(());
        };
        uni::read(
            &mut self.quic,
            id,
            u,
            &mut self.peer,
            &mut self.qpack,
            &mut self.encoder,
            "the client closed a control or QPACK stream",
        )
    }

    pub(super) fn respond(
        &mut self,
        stream: u64,
        status: u16,
        headers: &[(&str, &[u8])],
        end: bool,
    ) -> bool {
        let Some(r) = self.reqs.iter_mut().find(|r| u64::from(r.id) == stream) else {
            return false;
        };
        if r.sent_end || r.fin {
            return false;
        }
        let mut s = [0u8; 3];
        let st = status.clamp(100, 999);
        s[0] = b'0' + (st / 100) as u8;
        s[1] = b'0' + (st / 10 % 10) as u8;
        s[2] = b'0' + (st % 10) as u8;
        let fields = std::iter::once((&b":status"[..], &s[..]))
            .chain(headers.iter().map(|(n, v)| (n.as_bytes(), *v)));
        self.block.clear();
        self.encoder.encode(fields, &mut self.block);
        frame::write_headers(&self.block, &mut r.out);
        r.fin = end;
        let id = r.id;
        self.write(id);
        true
    }

    /// Sends GOAWAY on our control stream (once): requests already accepted are answered,
    /// later ones refused.
    pub(super) fn goaway(&mut self) {
        if self.goaway.is_some() || self.own.is_empty() {
            return;
        }
        self.goaway = Some(self.next_bidi);
        frame::write_goaway(self.next_bidi, &mut self.own_pending[0]);
        self.flush();
    }

    /// Stops or resumes reading stream `stream`'s request body; resuming reads what QUIC kept.
    pub(super) fn pause(
        &mut self,
        stream: u64,
        paused: bool,
        events: &mut std::collections::VecDeque<Event>,
    ) {
        let Some(r) = self.reqs.iter_mut().find(|r| u64::from(r.id) == stream) else {
            return;
        };
        let was = std::mem::replace(&mut r.paused, paused);
        if was && !paused {
            let id = r.id;
            if let Err(e) = self.read(id, events) {
                self.close(Instant::now(), e.code, e.what);
                self.gone(events);
            }
        }
    }

    /// Bytes sent as they are, ending the stream (the garbage fault).
    pub(super) fn raw(&mut self, stream: u64, bytes: &[u8]) {
        let Some(r) = self.reqs.iter_mut().find(|r| u64::from(r.id) == stream) else {
            return;
        };
        if r.sent_end || r.fin {
            return;
        }
        r.out.extend_from_slice(bytes);
        r.fin = true;
        let id = r.id;
        self.write(id);
    }

    pub(super) fn room(&self, stream: u64) -> usize {
        self.reqs
            .iter()
            .find(|r| u64::from(r.id) == stream)
            .filter(|r| !r.sent_end && !r.fin)
            .map_or(0, |r| STREAM_BUFFER.saturating_sub(r.out.len()))
    }

    pub(super) fn send_data(&mut self, stream: u64, data: &[u8], end: bool) -> usize {
        let room = self.room(stream);
        let Some(r) = self.reqs.iter_mut().find(|r| u64::from(r.id) == stream) else {
            return 0;
        };
        let n = data.len().min(room);
        if n > 0 {
            frame::write_data(&data[..n], &mut r.out);
        }
        if end && n == data.len() && !r.sent_end {
            r.fin = true;
        }
        let id = r.id;
        self.write(id);
        n
    }

    pub(super) fn reset(&mut self, stream: u64, c: ErrorCode) {
        let Some(r) = self.reqs.iter_mut().find(|r| u64::from(r.id) == stream) else {
            return;
        };
        if !r.sent_end {
            let _ = self.quic.send_stream(r.id).reset(code(c));
        }
        if !r.recv_end {
            let _ = self.quic.recv_stream(r.id).stop(code(c));
        }
        r.sent_end = true;
        r.recv_end = true;
        r.out = Vec::new();
        self.reap();
    }

    pub(super) fn close(&mut self, now: Instant, c: ErrorCode, why: &'static str) {
        self.quic
            .close(now, code(c), Bytes::from_static(why.as_bytes()));
    }

    /// Every request stream is gone with the connection.
    pub(super) fn gone(&mut self, events: &mut std::collections::VecDeque<Event>) {
        if std::mem::replace(&mut self.lost, true) {
            return;
        }
        let conn = self.handle.0;
        for r in self.reqs.drain(..) {
            if !r.sent_end {
                events.push_back(Event::Gone {
                    id: StreamRef {
                        conn,
                        stream: u64::from(r.id),
                    },
                });
            }
        }
    }

    /// Writes what QUIC takes of stream `id`'s pending response bytes, and its FIN after them.
    fn write(&mut self, id: StreamId) {
        let Some(r) = self.reqs.iter_mut().find(|r| r.id == id) else {
            return;
        };
        if r.sent_end {
            return;
        }
        let mut send = self.quic.send_stream(id);
        if !r.out.is_empty() {
            match send.write(&r.out) {
                Ok(n) => {
                    r.out.drain(..n);
                }
                // The client's flow control or the congestion window: a Writable event
                // comes when it may go on.
                Err(WriteError::Blocked) => {}
                Err(_) => {
                    // Stopped or closed: the response is not wanted any more.
                    r.out = Vec::new();
                    r.sent_end = true;
                }
            }
        }
        if r.out.is_empty() && r.fin && !r.sent_end {
            let _ = send.finish();
            r.sent_end = true;
        }
        self.reap();
    }

    /// Writes our unidirectional streams' pending bytes and every response's.
    pub(super) fn flush(&mut self) {
        for (i, id) in self.own.iter().enumerate() {
            let p = &mut self.own_pending[i];
            if p.is_empty() {
                continue;
            }
            if let Ok(n) = self.quic.send_stream(*id).write(p) {
                p.drain(..n);
            }
        }
        let ids: Vec<StreamId> = self
            .reqs
            .iter()
            .filter(|r| !r.out.is_empty() || (r.fin && !r.sent_end))
            .map(|r| r.id)
            .collect();
        for id in ids {
            self.write(id);
        }
    }

    /// Forgets request streams done both ways.
    fn reap(&mut self) {
        self.reqs.retain(|r| !(r.sent_end && r.recv_end));
    }
}
