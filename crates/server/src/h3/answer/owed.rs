//! What an unfinished HTTP/3 stream still owes, and the work on it, O(1) per event in the
//! streams held: a body, echo or `/bytes` run the stream's buffer held back goes on when the
//! session says room freed on that stream ([`Event::Writable`](barrage_wire::h3::server::Event),
//! once per refusal), and sleeps and drips wait in a timer heap, so that no event or datagram
//! rescans the streams.
//!
//! The heap's entries are (when, stream); one that no longer matches its stream's `Owed` (the
//! stream was answered, reset or moved on) is skipped when it comes up, and when such entries
//! outnumber the streams owed the heap is rebuilt from the live ones.

use super::Answers;
use crate::pattern;
use crate::route::Route;
use barrage_wire::h3::server::{Server, StreamRef};
use std::cmp::Reverse;
use std::time::{Duration, Instant};

/// Bytes of one `/bytes` DATA frame.
const BYTES_WRITE: usize = 16 * 1024;

#[derive(Debug)]
pub(super) enum Owed {
    /// The request's body is being read; the route is answered at its end.
    Reading {
        route: Route,
        is_head: bool,
        /// `/echo`'s body so far (up to `echo_limit`), or `/ping`'s first bytes.
        body: Vec<u8>,
        seen: u64,
    },
    /// Body bytes the stream's buffer held back.
    Body {
        data: Vec<u8>,
        at: usize,
    },
    /// `/echo`: the head is out; body bytes are sent back as they come (`held`: what the
    /// stream's buffer did not take yet), the end once the request's came.
    Echo {
        held: Vec<u8>,
        ended: bool,
        seen: u64,
    },
    /// The `/bytes` pattern from `offset`, `left` bytes to go.
    Bytes {
        offset: u64,
        left: u64,
    },
    Sleep {
        at: Instant,
        ms: u64,
    },
    Drip {
        at: Instant,
        every: Duration,
        offset: u64,
        left: u64,
    },
    /// Nothing, until the client resets the stream or leaves.
    Stall,
}

impl Owed {
    /// When a sleep or drip is due.
    fn due(&self) -> Option<Instant> {
        match self {
            Owed::Sleep { at, .. } | Owed::Drip { at, .. } => Some(*at),
            _ => None,
        }
    }
}

impl Answers {
    /// Owes `o` on stream `id`, and arms the timer of a sleep or drip.
    pub(super) fn owe(&mut self, id: StreamRef, o: Owed) {
        if let Some(at) = o.due() {
            self.timers.push(Reverse((at, id)));
            if self.timers.len() > 2 * self.owed.len() + 64 {
                self.timers = self
                    .owed
                    .iter()
                    .filter_map(|(k, o)| o.due().map(|t| Reverse((t, *k))))
                    .collect();
                // `o` is not in `owed` yet.
                self.timers.push(Reverse((at, id)));
            }
        }
        self.owed.insert(id, o);
    }

    /// The earliest sleep or drip deadline.
    pub(in crate::h3) fn next_timer(&mut self) -> Option<Instant> {
        while let Some(&Reverse((t, id))) = self.timers.peek() {
            if self.owed.get(&id).and_then(Owed::due) == Some(t) {
                return Some(t);
            }
            self.timers.pop();
        }
        None
    }

    /// Room freed on stream `id`: sends what its buffer takes of the body owed; an echo that
    /// caught up reads on (which may bring more events, answered by the caller's loop).
    pub(super) fn resume(&mut self, server: &mut Server, id: StreamRef, now: Instant) {
        let Some(o) = self.owed.get_mut(&id) else {
            return;
        };
        let keep = match o {
            Owed::Echo { held, ended, .. } => {
                if held.is_empty() {
                    return;
                }
                let sent = server.send_data(id, held, *ended);
                held.drain(..sent);
                if held.is_empty() && !*ended {
                    server.pause(now, id, false);
                }
                // Ended and all sent (with the FIN): done.
                !(held.is_empty() && *ended)
            }
            Owed::Body { data, at } => {
                *at += server.send_data(id, &data[*at..], true);
                *at < data.len()
            }
            Owed::Bytes { offset, left } => {
                bytes(server, id, offset, left);
                *left > 0
            }
            _ => true,
        };
        if !keep {
            self.owed.remove(&id);
        }
    }

    /// Answers the sleeps and drips that are due.
    pub(in crate::h3) fn fire(&mut self, server: &mut Server, now: Instant) {
        while let Some(&Reverse((t, id))) = self.timers.peek() {
            if t > now {
                break;
            }
            self.timers.pop();
            if self.owed.get(&id).and_then(Owed::due) != Some(t) {
                continue;
            }
            match self.owed.remove(&id) {
                Some(Owed::Sleep { ms, .. }) => {
                    let msg = format!("slept {ms} ms\n");
                    self.full(server, id, 200, "text/plain", msg.as_bytes(), false);
                }
                Some(Owed::Drip {
                    every,
                    mut offset,
                    mut left,
                    ..
                }) => {
                    let b = [pattern::byte_at(offset)];
                    if server.send_data(id, &b, left == 1) == 1 {
                        offset += 1;
                        left -= 1;
                    }
                    if left > 0 && server.room(id) > 0 {
                        let at = now + every;
                        let drip = Owed::Drip {
                            at,
                            every,
                            offset,
                            left,
                        };
                        self.owe(id, drip);
                    }
                }
                _ => {}
            }
        }
    }
}

/// Sends the `/bytes` pattern on `id` from `offset` until its buffer is full or `left` is 0.
pub(super) fn bytes(server: &mut Server, id: StreamRef, offset: &mut u64, left: &mut u64) {
    loop {
        let room = server.room(id);
        if room == 0 || *left == 0 {
            break;
        }
        let max = room.min(BYTES_WRITE).min(*left as usize);
        let chunk = pattern::slice_at(*offset, max);
        let last = chunk.len() as u64 == *left;
        let sent = server.send_data(id, chunk, last);
        *offset += sent as u64;
        *left -= sent as u64;
        if sent == 0 {
            break;
        }
    }
}
