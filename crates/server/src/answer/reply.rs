//! What a protocol does differently in an answer ([`Reply`]), and the few words the answers
//! and the protocols share about it: the one extra header field ([`Extra`]), a ready-made
//! response ([`Fixed`]), a fault or a cut acted out ([`Act`]).

use crate::pattern;
use crate::respond::BodyLen;
use crate::stream::Stream;
use crate::Shared;

/// The one extra header field a response may carry, named as each protocol spells it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Extra<'a> {
    None,
    /// `X-Checksum` of a `/bytes` or drip body.
    Checksum(&'a str),
    /// `Allow` of a 405.
    Allow(&'static str),
    /// `grpc-status` of a trailers-only gRPC answer.
    GrpcStatus(&'a str),
}

/// A response a protocol may have ready-made (HTTP/1.1's pre-rendered keep-alive answers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fixed {
    Hello,
    Json,
}

/// What a protocol does to a request or its connection instead of (or cutting short) an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Act {
    /// `/fault/reset`: the request's stream reset (HTTP/1.1: the connection, RST).
    Reset,
    /// `/fault/close`: the connection closed without an answer.
    Close,
    /// `/fault/garbage`: a response no client parses, then the end of the connection.
    Garbage,
    /// A request body past the limit after the response began: cut the response short.
    TooLarge,
    /// A shutdown: a stalled request given up.
    Cancel,
}

/// What a protocol does differently; `K` names a request (see the module's notes).
pub(crate) trait Reply<K: Copy> {
    /// Bytes of a `/bytes` DATA frame or write when the protocol's flow control allows more.
    const WRITE: usize = 64 * 1024;
    /// A response head (counted in the server's figures); `end`: no body follows.
    fn head(
        &mut self,
        k: K,
        status: u16,
        ct: &'static str,
        len: BodyLen,
        extra: Extra<'_>,
        end: bool,
    );
    /// Body bytes, all of the body with `end`: how many the protocol took now (its flow control).
    fn data(&mut self, k: K, data: &[u8], end: bool) -> usize;
    /// Body bytes the request's stream takes now.
    fn room(&self, k: K) -> usize;
    /// Whether the request's stream can still carry its response.
    fn open(&self, _k: K) -> bool {
        true
    }
    /// Acts out a fault or cuts a request short.
    fn act(&mut self, k: K, act: Act);
    /// A response is complete: what the protocol does then (HTTP/1.1: close unless kept alive).
    fn done(&mut self, _k: K, _status: u16) {}
    /// A ready-made response, when the protocol has one (true: sent whole).
    fn fixed(&mut self, _k: K, _f: Fixed, _is_head: bool) -> bool {
        false
    }
    /// Sends what the flow control allows of a `/bytes` body: true when all of it went (or the
    /// stream is gone).
    fn pattern(&mut self, k: K, s: &mut Stream) -> bool {
        if s.remaining() == 0 && s.sent() == 0 {
            // An empty body of unknown length (`?chunked=1`): its end is all there is to send.
            self.data(k, &[], true);
            return true;
        }
        loop {
            let left = s.remaining();
            if left == 0 {
                return true;
            }
            let room = self.room(k).min(Self::WRITE);
            if room == 0 {
                return false;
            }
            let chunk = pattern::slice_at(s.sent(), room.min(left.min(usize::MAX as u64) as usize));
            let last = chunk.len() as u64 == left;
            let sent = self.data(k, chunk, last);
            s.advance(sent as u64);
            if sent == 0 {
                return false;
            }
        }
    }
    /// Bodies wait until the input read now is all taken in (`room` says 0 meanwhile): the
    /// stream protocols, whose one read may hold a request and its reset.
    fn deferring(&self) -> bool {
        false
    }
    /// The connection's output is backed up: pending bodies wait for the next turn (HTTP/2's
    /// high-water mark).
    fn backed_up(&self) -> bool {
        false
    }
    /// An echo holds bytes its stream did not take (`true`) or caught up: stop or resume
    /// reading the request's body where the protocol can (HTTP/3).
    fn hold(&mut self, _k: K, _held: bool) {}
    /// Ends the response with a trailer section (gRPC's status). Only stream protocols carry
    /// gRPC calls; HTTP/1.1 never gets one.
    fn trailers(&mut self, _k: K, _fields: &[(&str, &[u8])]) {}
    /// The server's state (for the access log).
    fn shared(&self) -> &Shared;
}
