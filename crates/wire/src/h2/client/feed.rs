//! What the server sends, stream by stream: [`Client::feed`] turns the session's frame events
//! into each stream's response (status, fields, body checked against its length and the
//! expected body, kept for a script), a gRPC call's messages and status, resets, GOAWAY's
//! unprocessed streams and flow-control credit, and reports every stream's [`End`].

use super::{Client, End, Request, Stream, Table, DEFAULT_TABLE};
use crate::fields::{parse_length, parse_status};
use crate::h2::frame::{self, ErrorCode, H2Error};
use crate::h2::session::Event;
use crate::h2::MAX_WINDOW;
use crate::kept::Keeper;

impl<T: Copy> Client<T> {
    /// Feeds bytes read from the socket: replies go to `out`, each ended stream to `on`.
    /// `expect_body` is compared with every response body. Returns the bytes used; the rest is
    /// an incomplete frame to feed again with more. An error is the connection's end (the
    /// caller may write a GOAWAY with its code and closes).
    pub fn feed(
        &mut self,
        buf: &[u8],
        reqs: &[Request],
        expect_body: Option<&[u8]>,
        on: &mut dyn FnMut(End<T>),
    ) -> Result<usize, H2Error> {
        let Client {
            session,
            out,
            streams,
            window,
            goaway,
            forget,
            keep,
            ..
        } = self;
        let mut credit = false;
        let mut overflow = None;
        let used = session.feed(buf, out, &mut |ev| {
            // After a connection error nothing counts: the connection is over (and a split
            // input ends the same streams as a whole one).
            if overflow.is_some() {
                return;
            }
            match ev {
                Event::Header {
                    stream,
                    name,
                    value,
                } => {
                    if let Some(s) = streams.iter_mut().find(|s| s.id == stream) {
                        if let Some(g) = s.grpc.as_mut() {
                            g.header(name, value);
                        }
                        if let Some(k) = s.kept.as_mut().filter(|_| s.status >= 200) {
                            if !name.starts_with(b":") {
                                k.head.extend_from_slice(name);
                                k.head.extend_from_slice(b": ");
                                k.head.extend_from_slice(value);
                                k.head.extend_from_slice(b"\r\n");
                            }
                        }
                        if name == b":status" {
                            s.status = parse_status(value);
                            s.no_content |= matches!(s.status, 204 | 304);
                        } else if name == b"content-length" && s.status >= 200 {
                            match parse_length(value) {
                                Some(n) if s.content_length.is_none_or(|c| c == n) => {
                                    s.content_length = Some(n)
                                }
                                _ => s.bad_length = true,
                            }
                        }
                    }
                }
                Event::HeadersEnd {
                    stream,
                    end_stream,
                    too_large,
                } => {
                    let Some(at) = streams.iter().position(|s| s.id == stream) else {
                        return;
                    };
                    if too_large {
                        let s = streams.remove(at);
                        if !end_stream {
                            forget.push((s.id, Some(ErrorCode::Cancel)));
                        }
                        return on(End::HeaderTooLarge { tag: s.tag });
                    }
                    let s = &mut streams[at];
                    if let Some(g) = s.grpc.as_mut() {
                        if let Some(o) = g.headers_end(end_stream) {
                            on(grpc_end(streams, at, &o, end_stream, forget));
                        }
                        return;
                    }
                    match s.status {
                        // An interim (1xx) response: the final one follows.
                        100..=199 if !end_stream => s.status = 0,
                        200..=999 if s.bad_length => {
                            on(malformed(streams, at, ErrorCode::Protocol, forget))
                        }
                        200..=999 if end_stream => on(end(streams, at, expect_body, forget, keep)),
                        200..=999 => {}
                        _ => on(malformed(streams, at, ErrorCode::Protocol, forget)),
                    }
                }
                Event::Data {
                    stream,
                    data,
                    end_stream,
                } => {
                    let Some(at) = streams.iter().position(|s| s.id == stream) else {
                        // A stream we cancelled: its late DATA still counted on the connection.
                        if !end_stream {
                            forget.push((stream, None));
                        }
                        return;
                    };
                    let s = &mut streams[at];
                    if let Some(g) = s.grpc.as_mut() {
                        // Reply messages are counted by the reader and each reported as it
                        // completes; their bytes go no further.
                        let tag = s.tag;
                        let mut each = |_: &[u8]| on(End::GrpcMessage { tag });
                        if let Some(o) = g.data(data, end_stream, &mut each) {
                            on(grpc_end(streams, at, &o, end_stream, forget));
                        }
                        return;
                    }
                    if s.status < 200 {
                        return on(malformed(streams, at, ErrorCode::Protocol, forget));
                    }
                    if let Some(b) = expect_body {
                        let end = s.body_at + data.len();
                        s.body_ok &= b.get(s.body_at..end) == Some(data);
                    }
                    s.body_at += data.len();
                    if let Some(k) = s.kept.as_mut() {
                        k.body(data);
                    }
                    let over = s.content_length.is_some_and(|c| s.body_at as u64 > c);
                    if over {
                        on(malformed(streams, at, ErrorCode::Protocol, forget));
                    } else if end_stream {
                        on(end(streams, at, expect_body, forget, keep));
                    }
                }
                Event::Reset { stream, code } => {
                    if let Some(at) = streams.iter().position(|s| s.id == stream) {
                        let s = streams.remove(at);
                        // REFUSED_STREAM guarantees the request was not processed (RFC 9113
                        // §8.7): streams opened before the server's SETTINGS arrived, above its
                        // limit, end so and go out again.
                        if code == ErrorCode::RefusedStream {
                            on(End::Unprocessed { tag: s.tag });
                        } else {
                            on(End::Reset { tag: s.tag, code });
                        }
                    }
                }
                Event::StreamError { stream, code } => {
                    if let Some(at) = streams.iter().position(|s| s.id == stream) {
                        let s = streams.remove(at);
                        on(End::Malformed { tag: s.tag, code });
                    }
                }
                Event::GoAway { last_stream, .. } => {
                    *goaway = Some(goaway.map_or(last_stream, |g| g.min(last_stream)));
                    streams.retain(|s| {
                        let keep = s.id <= last_stream;
                        if !keep {
                            on(End::Unprocessed { tag: s.tag });
                        }
                        keep
                    });
                }
                Event::PeerSettings { window_delta } => {
                    for s in streams.iter_mut() {
                        s.window += window_delta;
                    }
                    credit = true;
                }
                Event::WindowUpdate {
                    stream: 0,
                    increment,
                } => {
                    *window += i64::from(increment);
                    if *window > i64::from(MAX_WINDOW) {
                        overflow = Some(H2Error {
                            code: ErrorCode::FlowControl,
                            stream: None,
                            what: "connection send window above 2^31-1",
                        });
                    }
                    credit = true;
                }
                Event::WindowUpdate { stream, increment } => {
                    if let Some(at) = streams.iter().position(|s| s.id == stream) {
                        let s = &mut streams[at];
                        s.window += i64::from(increment);
                        if s.window > i64::from(MAX_WINDOW) {
                            on(malformed(streams, at, ErrorCode::FlowControl, forget));
                        }
                        credit = true;
                    }
                }
                Event::SettingsAcked | Event::PingAck => {}
            }
        });
        for (stream, reset) in self.forget.drain(..) {
            if let Some(code) = reset {
                frame::write_rst_stream(&mut self.out, stream, code);
            }
            self.session.forget(stream);
        }
        // The overflow came before anything the session failed on after it (its frame was
        // whole and earlier), so it is the error, whether the input came whole or split.
        if let Some(e) = overflow {
            return Err(e);
        }
        let used = used?;
        let peer_table = self.session.peer.header_table_size as usize;
        if peer_table < DEFAULT_TABLE && matches!(self.table, Table::Fresh | Table::Indexed) {
            self.table = Table::Shrink(peer_table as u32);
        }
        // Only the open streams are looked at (at most `-m`), not every request of the run: a
        // stream whose body went out whole writes nothing.
        if credit {
            self.send_bodies(reqs);
        }
        Ok(used)
    }
}

impl<T> Stream<T> {
    /// The stream's whole response: its status, and whether its body was the expected one.
    fn response(self, expect_body: Option<&[u8]>) -> End<T> {
        let whole = expect_body.is_none_or(|b| self.body_at == b.len());
        End::Response {
            tag: self.tag,
            status: self.status,
            body_ok: self.body_ok && whole,
        }
    }
}

/// Stream `at` ended (END_STREAM): its response, or malformed when its DATA fell short of its
/// `content-length` (a response that has content by definition must match it).
fn end<T>(
    streams: &mut Vec<Stream<T>>,
    at: usize,
    expect_body: Option<&[u8]>,
    forget: &mut Vec<(u32, Option<ErrorCode>)>,
    keep: &mut Option<Box<Keeper>>,
) -> End<T> {
    let s = &streams[at];
    if !s.no_content && s.content_length.is_some_and(|c| s.body_at as u64 != c) {
        let s = streams.remove(at);
        // The stream is closed on both sides: nothing to reset.
        forget.push((s.id, None));
        return End::Malformed {
            tag: s.tag,
            code: ErrorCode::Protocol,
        };
    }
    let mut s = streams.remove(at);
    if let (Some(mut k), Some(keeper)) = (s.kept.take(), keep.as_mut()) {
        k.status = s.status;
        keeper.done(*k);
    }
    s.response(expect_body)
}

/// Ends gRPC call `at` with `o`; a stream still open (a broken reply) is reset with CANCEL once
/// the feed is over.
fn grpc_end<T>(
    streams: &mut Vec<Stream<T>>,
    at: usize,
    o: &crate::grpc::Outcome,
    end_stream: bool,
    forget: &mut Vec<(u32, Option<ErrorCode>)>,
) -> End<T> {
    let s = streams.remove(at);
    if !end_stream {
        forget.push((s.id, Some(ErrorCode::Cancel)));
    }
    End::Grpc {
        tag: s.tag,
        ended: o.into(),
    }
}

/// Ends stream `at` as malformed; it is reset with `code` once the feed is over.
fn malformed<T>(
    streams: &mut Vec<Stream<T>>,
    at: usize,
    code: ErrorCode,
    forget: &mut Vec<(u32, Option<ErrorCode>)>,
) -> End<T> {
    let s = streams.remove(at);
    forget.push((s.id, Some(code)));
    End::Malformed { tag: s.tag, code }
}
