//! Whole responses kept for a wrk script's `response(status, headers, body)` hook, by any
//! client session that takes scripts: the head as header lines after a first line (HTTP/1.1's
//! head as received; HTTP/2's fields written as `name: value` lines), the decoded body bounded
//! by [`MAX_KEPT_BODY`]; the caller takes them in order, handing back its old buffers, so that
//! a warm connection keeps responses without allocating.

use std::collections::VecDeque;

/// The most of a body kept for a script's `response()` hook: the rest of a longer one is read
/// and dropped (memory stays bounded whatever the server sends).
pub const MAX_KEPT_BODY: usize = 16 << 20;

/// A whole response kept for a script's `response()` hook: its status, its head (a first line,
/// then `name: value` lines; HTTP/1.1's as received) and its body (decoded: chunked framing
/// removed; at most [`MAX_KEPT_BODY`] bytes of it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Kept {
    pub status: u16,
    pub head: Vec<u8>,
    pub body: Vec<u8>,
}

impl Kept {
    /// Adds a piece of the body, as far as [`MAX_KEPT_BODY`] allows.
    pub fn body(&mut self, data: &[u8]) {
        let room = MAX_KEPT_BODY.saturating_sub(self.body.len());
        self.body.extend_from_slice(&data[..data.len().min(room)]);
    }
}

/// The responses kept whole and not yet taken, and buffers handed back for the next ones.
#[derive(Debug, Default)]
pub struct Keeper {
    done: VecDeque<Kept>,
    spare: Vec<Kept>,
}

impl Keeper {
    /// Empty buffers for the next response (reused when the caller handed some back).
    pub fn fresh(&mut self) -> Kept {
        self.spare.pop().unwrap_or_default()
    }

    /// A response is whole.
    pub fn done(&mut self, k: Kept) {
        self.done.push_back(k);
    }

    /// Moves the oldest whole response into `into` (false: none) and keeps `into`'s old
    /// buffers for a later one.
    pub fn take(&mut self, into: &mut Kept) -> bool {
        let Some(whole) = self.done.pop_front() else {
            return false;
        };
        let mut old = std::mem::replace(into, whole);
        old.head.clear();
        old.body.clear();
        if self.spare.len() < 4 {
            self.spare.push(old);
        }
        true
    }

    /// Forgets the responses not taken (the connection starts afresh).
    pub fn clear(&mut self) {
        self.done.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taken_in_order_and_buffers_reused() {
        let mut k = Keeper::default();
        for s in [200, 404] {
            let mut r = k.fresh();
            r.status = s;
            r.body(b"abc");
            k.done(r);
        }
        let mut into = Kept::default();
        assert!(k.take(&mut into));
        assert_eq!((into.status, &into.body[..]), (200, &b"abc"[..]));
        assert!(k.take(&mut into));
        assert_eq!(into.status, 404);
        assert!(!k.take(&mut into));
        // The first response's buffers came back, emptied, with their capacity.
        let again = k.fresh();
        assert!(again.body.is_empty() && again.body.capacity() >= 3);
    }

    #[test]
    fn a_body_is_kept_up_to_the_bound() {
        let mut r = Kept::default();
        r.body(&vec![1; MAX_KEPT_BODY - 2]);
        r.body(b"abcd");
        assert_eq!(r.body.len(), MAX_KEPT_BODY);
        assert_eq!(&r.body[MAX_KEPT_BODY - 2..], b"ab");
    }
}
