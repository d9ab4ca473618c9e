//! HTTP/3's server endpoint as a [`ServerSession`]: its queued events handed out one at a time
//! (each borrowed from the endpoint until the next), its answers, its error codes for the
//! interface's reasons. Datagrams go in through [`Server::handle`] and out through
//! [`Server::poll_transmit`]: `next` takes no input of its own.

use super::{Event as H3Event, Server, StreamRef};
use crate::h3::ErrorCode;
use crate::server::{Chunk, Event, Fields, Head, Next, ServerSession, Stop};
use std::time::Instant;

impl ServerSession for Server {
    type Id = StreamRef;
    const VERSION: &'static str = "HTTP/3";
    /// A quarter of a stream's buffer: the writes `barrage serve` made before this interface.
    const CHUNK: usize = 16 * 1024;

    fn next<'s, 'b>(&'s mut self, _input: &'b [u8], _out: &mut Vec<u8>) -> Next<'s, 'b, StreamRef> {
        // A body's bytes move out (no copy); a head stays here, borrowed, until the next call.
        self.current = None;
        let ev = match self.events.pop_front() {
            Some(H3Event::Body { id, data }) => {
                return Ok((
                    0,
                    Some(Event::Body {
                        id,
                        data: Chunk::Owned(data),
                        end: false,
                    }),
                ))
            }
            ev => ev,
        };
        self.current = ev;
        let ev = self.current.as_ref().map(|ev| match ev {
            H3Event::Request { id, head } => Event::Request {
                id: *id,
                head: Head {
                    method: &head.method,
                    path: &head.path,
                    authority: &head.authority,
                    content_length: head.content_length,
                    end: false,
                    fields: Fields::List(&head.headers),
                },
            },
            H3Event::Body { id, .. } => Event::Gone { id: *id }, // moved out above
            H3Event::End { id, whole: true } => Event::Body {
                id: *id,
                data: Chunk::Borrowed(&[]),
                end: true,
            },
            // Malformed: the stream is reset already, nothing to answer.
            H3Event::End { id, whole: false } | H3Event::Gone { id } => Event::Gone { id: *id },
            H3Event::TooLarge { id } => Event::TooLarge { id: *id },
            H3Event::Writable { id } => Event::Writable { id: *id },
        });
        Ok((0, ev))
    }

    fn respond(
        &mut self,
        _out: &mut Vec<u8>,
        id: StreamRef,
        status: u16,
        fields: &[(&str, &[u8])],
        end: bool,
    ) {
        Server::respond(self, id, status, fields, end);
    }

    fn send_data(&mut self, _out: &mut Vec<u8>, id: StreamRef, data: &[u8], end: bool) -> usize {
        Server::send_data(self, id, data, end)
    }

    fn send_trailers(&mut self, _out: &mut Vec<u8>, id: StreamRef, fields: &[(&str, &[u8])]) {
        Server::send_trailers(self, id, fields);
    }

    fn room(&self, id: StreamRef) -> usize {
        Server::room(self, id)
    }

    fn is_open(&self, id: StreamRef) -> bool {
        Server::room(self, id) > 0
    }

    fn stop(&mut self, _out: &mut Vec<u8>, id: StreamRef, why: Stop) {
        let code = match why {
            Stop::Internal => ErrorCode::Internal,
            Stop::Cancel => ErrorCode::RequestCancelled,
            Stop::TooLarge => ErrorCode::ExcessiveLoad,
        };
        self.reset(id, code);
    }

    fn hold(&mut self, now: Instant, id: StreamRef, held: bool) {
        self.pause(now, id, held);
    }

    fn close(&mut self, _out: &mut Vec<u8>, id: StreamRef, now: Instant) {
        self.close_conn(id, now);
    }

    fn garbage(&mut self, _out: &mut Vec<u8>, id: StreamRef) {
        Server::garbage(self, id);
    }
}
