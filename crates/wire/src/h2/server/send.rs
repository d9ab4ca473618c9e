//! The server's sending side: response heads (HPACK-coded with the static table, nothing
//! added to the client's dynamic table) and bodies under the client's flow-control windows, a
//! stream's end (and a stop for a body still arriving), resets and GOAWAY.

use super::super::frame::{self, ErrorCode};
use super::super::hpack;
use super::Server;

impl Server {
    /// How many body bytes `stream` may send now.
    pub fn send_room(&self, stream: u32) -> usize {
        self.streams
            .iter()
            .find(|s| s.id == stream && s.send_open)
            .map_or(0, |s| s.window.min(self.window).max(0) as usize)
    }

    /// Whether `stream` is still open for sending (not reset, not ended).
    pub fn can_send(&self, stream: u32) -> bool {
        self.streams.iter().any(|s| s.id == stream && s.send_open)
    }

    /// Appends a response head: `:status` and `headers` (names lowercase), END_STREAM when
    /// there is no body.
    pub fn respond(
        &mut self,
        out: &mut Vec<u8>,
        stream: u32,
        status: u16,
        headers: &[(&str, &[u8])],
        end_stream: bool,
    ) {
        if !self.can_send(stream) {
            return;
        }
        let mut block = std::mem::take(&mut self.hpack_buf);
        block.clear();
        encode_status(&mut block, status);
        encode_fields(&mut block, headers);
        frame::write_headers(
            out,
            stream,
            &block,
            end_stream,
            self.session.peer.max_frame_size,
        );
        self.hpack_buf = block;
        if end_stream {
            self.sent_end(out, stream);
        }
    }

    /// Ends `stream` with a trailer section (a HEADERS frame with END_STREAM; no `:status`).
    pub fn send_trailers(&mut self, out: &mut Vec<u8>, stream: u32, fields: &[(&str, &[u8])]) {
        if !self.can_send(stream) {
            return;
        }
        let mut block = std::mem::take(&mut self.hpack_buf);
        block.clear();
        encode_fields(&mut block, fields);
        frame::write_headers(out, stream, &block, true, self.session.peer.max_frame_size);
        self.hpack_buf = block;
        self.sent_end(out, stream);
    }

    /// Appends as much of `data` as the windows allow, in DATA frames no larger than the client
    /// allows; END_STREAM on the last when `end_stream` and all of it went. Returns the bytes
    /// taken (the caller keeps the rest for when a window opens).
    pub fn send_data(
        &mut self,
        out: &mut Vec<u8>,
        stream: u32,
        data: &[u8],
        end_stream: bool,
    ) -> usize {
        let max_frame = self.session.peer.max_frame_size as usize;
        let Some(i) = self
            .streams
            .iter()
            .position(|s| s.id == stream && s.send_open)
        else {
            return 0;
        };
        let mut sent = 0;
        loop {
            let s = &mut self.streams[i];
            let room = s.window.min(self.window).max(0) as usize;
            let n = (data.len() - sent).min(room).min(max_frame);
            let last = sent + n == data.len();
            if n == 0 && !(last && end_stream) {
                break;
            }
            frame::write_data_header(out, stream, n, last && end_stream);
            out.extend_from_slice(&data[sent..sent + n]);
            s.window -= n as i64;
            self.window -= n as i64;
            sent += n;
            if last {
                if end_stream {
                    self.sent_end(out, stream);
                }
                break;
            }
        }
        sent
    }

    /// Our half of `stream` ended; a client still sending a body is told to stop (§8.1).
    fn sent_end(&mut self, out: &mut Vec<u8>, stream: u32) {
        let Some(i) = self.streams.iter().position(|s| s.id == stream) else {
            return;
        };
        if self.streams[i].recv_open {
            frame::write_rst_stream(out, stream, ErrorCode::NoError);
            self.session.forget(stream);
            // The client's DATA already in flight for it is then ignored (§5.1), not a
            // connection error that would take every other stream with it.
            self.remember_reset(stream);
        }
        self.streams.swap_remove(i);
    }

    /// Resets a stream from this side (a fault, or a body we will not read); the caller drops
    /// its own state for it.
    pub fn cancel(&mut self, out: &mut Vec<u8>, stream: u32, code: ErrorCode) {
        let _ = self.reset(out, stream, code);
    }

    /// Appends a GOAWAY naming the last stream this side will handle; new streams are ignored
    /// from now on.
    pub fn goaway(&mut self, out: &mut Vec<u8>, code: ErrorCode, debug: &[u8]) {
        if !self.going_away || code != ErrorCode::NoError {
            frame::write_goaway(out, self.last_id, code, debug);
        }
        self.going_away = true;
    }
}

/// Appends `:status`: indexed when the static table has it (200, 204, 206, 304, 400, 404, 500).
fn encode_status(out: &mut Vec<u8>, status: u16) {
    let mut digits = [0u8; 3];
    let s = status.clamp(100, 999);
    digits[0] = b'0' + (s / 100) as u8;
    digits[1] = b'0' + (s / 10 % 10) as u8;
    digits[2] = b'0' + (s % 10) as u8;
    match hpack::static_index(b":status", &digits) {
        Some((i, true)) => hpack::encode_indexed(out, i),
        _ => hpack::encode_literal(out, 8, b"", &digits, hpack::Indexing::Without),
    }
}

/// Appends `headers` to a header block: indexed or name-indexed from the static table where it
/// has them, literal otherwise, nothing added to the client's dynamic table.
fn encode_fields(block: &mut Vec<u8>, headers: &[(&str, &[u8])]) {
    for (name, value) in headers {
        match hpack::static_index(name.as_bytes(), value) {
            Some((i, true)) => hpack::encode_indexed(block, i),
            Some((i, false)) => {
                hpack::encode_literal(block, i, b"", value, hpack::Indexing::Without)
            }
            None => {
                hpack::encode_literal(block, 0, name.as_bytes(), value, hpack::Indexing::Without)
            }
        }
    }
}
