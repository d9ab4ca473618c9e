//! HTTP/2's server as a [`ServerSession`]: its frames' happenings as the interface's events, its
//! sending side as the interface's answers, its error codes for the interface's reasons.

use super::super::frame::{self, ErrorCode};
use super::{Event as H2Event, Server};
use crate::server::{
    Broken, Chunk, Event, Fields, Head, Next, ServerSession, Shut, Stop, StreamServer,
};
use std::time::Instant;

impl ServerSession for Server {
    type Id = u32;
    const VERSION: &'static str = "HTTP/2";
    const CHUNK: usize = 64 * 1024;

    fn next<'s, 'b>(&'s mut self, input: &'b [u8], out: &mut Vec<u8>) -> Next<'s, 'b, u32> {
        let (used, found) = match self.advance(input, out) {
            Ok(x) => x,
            Err(e) => {
                self.goaway(out, e.code, e.what.as_bytes());
                return Err(Broken {
                    code: e.code.name(),
                    what: e.what,
                });
            }
        };
        let ev = found.map(|f| self.event(input, f));
        let ev = ev.map(|ev| match ev {
            H2Event::Request(req) => Event::Request {
                id: req.stream,
                head: Head {
                    method: req.method,
                    path: req.path,
                    authority: req.authority,
                    content_length: req.content_length,
                    end: req.end_stream,
                    fields: Fields::H2(req.fields()),
                },
            },
            H2Event::TooLarge { stream, .. } => Event::TooLarge { id: stream },
            H2Event::Data {
                stream,
                data,
                end_stream,
            } => Event::Body {
                id: stream,
                data: Chunk::Borrowed(data),
                end: end_stream,
            },
            H2Event::Reset { stream } => Event::Gone { id: stream },
        });
        Ok((used, ev))
    }

    fn respond(
        &mut self,
        out: &mut Vec<u8>,
        id: u32,
        status: u16,
        fields: &[(&str, &[u8])],
        end: bool,
    ) {
        Server::respond(self, out, id, status, fields, end);
    }

    fn send_data(&mut self, out: &mut Vec<u8>, id: u32, data: &[u8], end: bool) -> usize {
        Server::send_data(self, out, id, data, end)
    }

    fn send_trailers(&mut self, out: &mut Vec<u8>, id: u32, fields: &[(&str, &[u8])]) {
        Server::send_trailers(self, out, id, fields);
    }

    fn room(&self, id: u32) -> usize {
        self.send_room(id)
    }

    fn is_open(&self, id: u32) -> bool {
        self.can_send(id)
    }

    fn stop(&mut self, out: &mut Vec<u8>, id: u32, why: Stop) {
        let code = match why {
            Stop::Internal => ErrorCode::Internal,
            Stop::Cancel | Stop::TooLarge => ErrorCode::Cancel,
        };
        self.cancel(out, id, code);
    }

    /// HTTP/2's receive windows are the connection's to open: a held body is not read further
    /// by the caller, and the windows it does not reopen hold the client back.
    fn hold(&mut self, _now: Instant, _id: u32, _held: bool) {}

    fn close(&mut self, _out: &mut Vec<u8>, _id: u32, _now: Instant) {
        self.ended = true;
    }

    fn garbage(&mut self, out: &mut Vec<u8>, id: u32) {
        // A HEADERS frame whose block starts with index 0, which no HPACK decoder accepts
        // (RFC 7541 §6.1): a malformed frame, a connection error for the client.
        frame::write_header(out, 1, frame::Kind::Headers, 0x5, id);
        out.push(0x80);
        self.ended = true;
    }
}

impl StreamServer for Server {
    fn start(&mut self, out: &mut Vec<u8>) {
        Server::start(self, out);
    }

    fn begin_read(&mut self) {
        self.session.commit_credit();
    }

    fn ended(&self) -> bool {
        Server::ended(self)
    }

    fn hold_limit(&self) -> usize {
        self.config().conn_window as usize
    }

    fn shut(&mut self, out: &mut Vec<u8>, how: Shut<'_>) {
        match how {
            Shut::Drain => self.goaway(out, ErrorCode::NoError, b""),
            Shut::Overload(why) => self.goaway(out, ErrorCode::EnhanceYourCalm, why),
        }
    }
}
