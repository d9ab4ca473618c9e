//! What a connection sends on its request streams: response heads, body bytes up to each
//! stream's [`STREAM_BUFFER`], resets, and the writes into QUIC.
//!
//! A stream's bytes wait in the stream until the connection's next transmit, and go to QUIC
//! then ([`Conn::write_queued`]); what QUIC does not take waits on until QUIC says it may go
//! on (its Writable event, which quinn-proto gives once a write was refused, [`Conn::write`]
//! writes until it is), so no stream is ever looked at for nothing. So a stream gives QUIC at
//! most [`STREAM_BUFFER`] between two transmits, whatever the client's flow control allows: a
//! request the client resets once the server has begun its answer costs that much at most
//! (before: as much as the client's stream window, 1 MiB of copies for each `/bytes/1MiB`
//! reset at once, more than it cost the client). When a caller was refused room
//! ([`Conn::send_data`] took less than offered, or filled the stream) and some frees, the
//! stream is named once in [`Event::Writable`].

use super::{code, Conn, Events};
use crate::h3::error::ErrorCode;
use crate::h3::frame;
use crate::h3::server::{Event, StreamRef, STREAM_BUFFER};
use quinn_proto::WriteError;

impl Conn {
    pub(in crate::h3::server) fn respond(
        &mut self,
        stream: u64,
        status: u16,
        headers: &[(&str, &[u8])],
        end: bool,
    ) -> bool {
        self.section(stream, Some(status), headers, end)
    }

    /// A trailer section, ending the stream.
    pub(in crate::h3::server) fn trailers(
        &mut self,
        stream: u64,
        headers: &[(&str, &[u8])],
    ) -> bool {
        self.section(stream, None, headers, true)
    }

    /// A HEADERS frame: `:status` first when given (a head), none in a trailer section.
    fn section(
        &mut self,
        stream: u64,
        status: Option<u16>,
        headers: &[(&str, &[u8])],
        end: bool,
    ) -> bool {
        self.visits += 1;
        let Some(r) = self.reqs.get_mut(&stream) else {
            return false;
        };
        if r.sent_end || r.fin {
            return false;
        }
        let mut s = [0u8; 3];
        let st = status.unwrap_or(0).clamp(100, 999);
        s[0] = b'0' + (st / 100) as u8;
        s[1] = b'0' + (st / 10 % 10) as u8;
        s[2] = b'0' + (st % 10) as u8;
        let head = status.map(|_| (&b":status"[..], &s[..]));
        let fields = head
            .into_iter()
            .chain(headers.iter().map(|(n, v)| (n.as_bytes(), *v)));
        self.block.clear();
        self.encoder.encode(fields, &mut self.block);
        frame::write_headers(&self.block, &mut r.out);
        r.fin = end;
        self.queue_write(stream);
        true
    }

    /// Bytes sent as they are, ending the stream (the garbage fault).
    pub(in crate::h3::server) fn raw(&mut self, stream: u64, bytes: &[u8]) {
        self.visits += 1;
        let Some(r) = self.reqs.get_mut(&stream) else {
            return;
        };
        if r.sent_end || r.fin {
            return;
        }
        r.out.extend_from_slice(bytes);
        r.fin = true;
        self.queue_write(stream);
    }

    pub(in crate::h3::server) fn room(&self, stream: u64) -> usize {
        self.reqs
            .get(&stream)
            .filter(|r| !r.sent_end && !r.fin)
            .map_or(0, |r| STREAM_BUFFER.saturating_sub(r.out.len()))
    }

    pub(in crate::h3::server) fn send_data(
        &mut self,
        stream: u64,
        data: &[u8],
        end: bool,
    ) -> usize {
        self.visits += 1;
        let room = self.room(stream);
        let Some(r) = self.reqs.get_mut(&stream) else {
            return 0;
        };
        let n = data.len().min(room);
        if n > 0 {
            frame::write_data(&data[..n], &mut r.out);
        }
        if end && n == data.len() && !r.sent_end {
            r.fin = true;
        }
        // Refused, or full now: the caller hears when room frees.
        if n < data.len() || r.out.len() >= STREAM_BUFFER {
            r.want_room = !r.sent_end && !r.fin;
        }
        self.queue_write(stream);
        n
    }

    /// Stream `stream`'s bytes go to QUIC at the next transmit.
    fn queue_write(&mut self, stream: u64) {
        if let Some(r) = self.reqs.get_mut(&stream) {
            if !r.queued && !r.sent_end {
                r.queued = true;
                self.unwritten.push(stream);
            }
        }
    }

    /// Before a transmit: the streams' bytes given since the last one go to QUIC.
    pub(in crate::h3::server) fn write_queued(&mut self, events: &mut Events) {
        for stream in std::mem::take(&mut self.unwritten) {
            if let Some(r) = self.reqs.get_mut(&stream) {
                r.queued = false;
            }
            self.write(stream, events);
        }
    }

    /// Resets stream `stream` with `c` both ways (RESET_STREAM, and STOP_SENDING unless its
    /// request's end came).
    pub(in crate::h3::server) fn reset(&mut self, stream: u64, c: ErrorCode) {
        self.visits += 1;
        let Some(r) = self.reqs.get_mut(&stream) else {
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
        self.release(stream);
    }

    /// Writes what QUIC takes of stream `stream`'s pending response bytes, and its FIN after
    /// them: until all went or QUIC refused (then its Writable event calls again).
    pub(super) fn write(&mut self, stream: u64, events: &mut Events) {
        let conn = self.handle.0;
        let Some(r) = self.reqs.get_mut(&stream) else {
            return;
        };
        if r.sent_end {
            return;
        }
        let mut send = self.quic.send_stream(r.id);
        let mut took = 0;
        while took < r.out.len() {
            match send.write(&r.out[took..]) {
                Ok(0) => break,
                Ok(n) => took += n,
                // The client's flow control or our send window: a Writable event comes when
                // it may go on.
                Err(WriteError::Blocked) => break,
                Err(_) => {
                    // Stopped or closed: the response is not wanted any more.
                    r.out = Vec::new();
                    r.sent_end = true;
                    took = 0;
                    break;
                }
            }
        }
        if took > 0 {
            r.out.drain(..took);
        }
        if r.out.is_empty() && r.fin && !r.sent_end {
            let _ = send.finish();
            r.sent_end = true;
        }
        if took > 0 && r.want_room && !r.sent_end {
            r.want_room = false;
            events.push_back(Event::Writable {
                id: StreamRef { conn, stream },
            });
        }
        self.release(stream);
    }

    /// Writes our unidirectional streams' pending bytes (SETTINGS, GOAWAY).
    pub(in crate::h3::server) fn flush(&mut self) {
        for (i, id) in self.own.iter().enumerate() {
            let p = &mut self.own_pending[i];
            if p.is_empty() {
                continue;
            }
            if let Ok(n) = self.quic.send_stream(*id).write(p) {
                p.drain(..n);
            }
        }
    }
}
