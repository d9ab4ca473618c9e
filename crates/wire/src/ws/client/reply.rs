//! A reply checked as it streams: each piece compared with the bytes the reply must equal (its
//! message, for an echo, or the expected body) at the reply's offset so far, then forgotten.
//! Constant memory whatever the reply's size, and the same verdict however it is cut.

/// One reply's check so far: how far it has matched, or that it has not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Reply {
    /// Bytes of the reply matched so far (never past the wanted bytes' end).
    at: usize,
    differs: bool,
}

impl Reply {
    /// The reply's next piece, against `want` (None: any reply will do).
    #[inline]
    pub fn piece(&mut self, want: Option<&[u8]>, data: &[u8]) {
        let Some(want) = want.filter(|_| !self.differs) else {
            return;
        };
        // `at` stays within `want`, so `end` cannot overflow.
        let end = self.at + data.len();
        if want.get(self.at..end) == Some(data) {
            self.at = end;
        } else {
            self.differs = true;
        }
    }

    /// The reply ended: whether it was `want`, whole. Starts afresh for the next.
    #[inline]
    pub fn end(&mut self, want: Option<&[u8]>) -> bool {
        let ok = want.is_none_or(|w| !self.differs && self.at == w.len());
        *self = Reply::default();
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `reply` fed in pieces cut at every pair of points: the same verdict as comparing it whole.
    #[test]
    fn any_cut_gives_the_whole_verdict() {
        let want = b"hello, echo";
        let cases: [(&[u8], bool); 7] = [
            (b"hello, echo", true),
            (b"hello, ech", false),
            (b"hello, echo!", false),
            (b"", false),
            (b"Hello, echo", false),
            (b"hello, ecHo", false),
            (b"hello, echohello, echo", false),
        ];
        for (reply, ok) in cases {
            for a in 0..=reply.len() {
                for b in a..=reply.len() {
                    let mut r = Reply::default();
                    for piece in [&reply[..a], &reply[a..b], &reply[b..]] {
                        r.piece(Some(want), piece);
                    }
                    assert_eq!(r.end(Some(want)), ok, "{reply:?} cut at {a} and {b}");
                    assert_eq!(r, Reply::default(), "fresh for the next reply");
                }
            }
        }
    }

    #[test]
    fn nothing_wanted_takes_anything_and_an_empty_reply_matches_an_empty_want() {
        let mut r = Reply::default();
        r.piece(None, b"whatever");
        assert!(r.end(None));
        r.piece(Some(b""), b"");
        assert!(r.end(Some(b"")));
        r.piece(Some(b""), b"x");
        assert!(!r.end(Some(b"")));
    }
}
