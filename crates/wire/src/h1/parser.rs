//! Incremental response parsing for one HTTP/1.1 client connection: heads parsed in place from
//! the caller's buffer (the load engine's read buffer, shared by a worker's connections), bodies
//! streamed through the body decoder and discarded (or compared with the expected body) in
//! constant memory. A partial head is left unconsumed: the caller carries it in front of the
//! next read, so nothing is copied in the common case.

use crate::kept::{Keeper, Kept};
use crate::{parse_response_head, BodyDecoder, WireError};
use std::ops::ControlFlow;

/// Largest response head accepted; a longer one is a parse error (keeps memory bounded).
pub const MAX_HEAD: usize = 64 * 1024;

/// A complete response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Done {
    pub status: u16,
    /// The connection may carry another request.
    pub keep_alive: bool,
    /// The body matched the expected body (always true without one).
    pub body_ok: bool,
}

/// Why parsing stopped for good on this connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseFail {
    Wire(WireError),
    HeadTooLarge,
}

impl std::fmt::Display for ParseFail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseFail::Wire(e) => e.fmt(f),
            ParseFail::HeadTooLarge => write!(f, "response head longer than {MAX_HEAD} bytes"),
        }
    }
}

/// Per-connection parse state.
#[derive(Debug, Default)]
pub struct Parser {
    body: Option<BodyDecoder>,
    status: u16,
    keep_alive: bool,
    body_off: u64,
    body_bad: bool,
    /// The last feed left a partial head unconsumed.
    partial: bool,
    /// Whole responses kept for the caller ([`Parser::keep`]): only for a script's
    /// `response()` hook, since copying heads and bodies costs (boxed: a connection without it
    /// pays one pointer).
    keep: Option<Box<Keeping>>,
}

/// The response being kept, and those kept whole.
#[derive(Debug, Default)]
struct Keeping {
    now: Kept,
    keeper: Keeper,
}

impl Parser {
    /// Keeps every whole response from now on ([`Parser::take_kept`]).
    pub fn keep(&mut self) {
        self.keep = Some(Box::default());
    }

    /// Moves the oldest whole response kept and not yet taken into `into` (false: none), and
    /// keeps `into`'s old buffers for a later response.
    pub fn take_kept(&mut self, into: &mut Kept) -> bool {
        self.keep.as_mut().is_some_and(|k| k.keeper.take(into))
    }

    pub fn reset(&mut self) {
        if let Some(k) = self.keep.as_mut() {
            **k = Keeping::default();
        }
        self.body = None;
        self.body_off = 0;
        self.body_bad = false;
        self.partial = false;
    }

    /// Consumes `buf` (what the last feed left unconsumed followed by newly read bytes),
    /// calling `on_done` for each complete response; returns the bytes used (the rest is a
    /// partial head, at most [`MAX_HEAD`], to feed again in front of more).
    ///
    /// `head` says whether the next response whose head is parsed here answers a HEAD (it has
    /// no body); after each response `on_done` says the same of the one after it
    /// (`Continue(head)`), or stops parsing (`Break`: the connection is closing).
    pub fn feed(
        &mut self,
        buf: &[u8],
        mut head: bool,
        expect: Option<&[u8]>,
        mut on_done: impl FnMut(Done) -> ControlFlow<(), bool>,
    ) -> Result<usize, ParseFail> {
        self.partial = false;
        let mut pos = 0;
        loop {
            if let Some(dec) = self.body.as_mut() {
                let off = &mut self.body_off;
                let bad = &mut self.body_bad;
                let mut kept = self.keep.as_mut().map(|k| &mut k.now);
                let n = dec
                    .decode(&buf[pos..], |data| {
                        if let Some(exp) = expect {
                            check_body(exp, off, bad, data)
                        }
                        if let Some(k) = kept.as_deref_mut() {
                            k.body(data);
                        }
                    })
                    .map_err(ParseFail::Wire)?;
                pos += n;
                if !dec.is_done() {
                    return Ok(pos);
                }
                let done = self.finish(expect);
                match on_done(done) {
                    ControlFlow::Break(()) => return Ok(pos),
                    ControlFlow::Continue(h) => head = h,
                }
                continue;
            }
            if pos == buf.len() {
                return Ok(pos);
            }
            match parse_response_head(&buf[pos..], head).map_err(ParseFail::Wire)? {
                None => {
                    if buf.len() - pos > MAX_HEAD {
                        return Err(ParseFail::HeadTooLarge);
                    }
                    self.partial = true;
                    return Ok(pos);
                }
                Some(h) => {
                    if let Some(k) = self.keep.as_mut().filter(|_| !h.is_interim()) {
                        k.now.head.clear();
                        k.now.head.extend_from_slice(&buf[pos..pos + h.head_len]);
                    }
                    pos += h.head_len;
                    if h.is_interim() {
                        continue;
                    }
                    self.status = h.status;
                    self.keep_alive = h.keep_alive;
                    self.body = Some(BodyDecoder::new(h.framing));
                }
            }
        }
    }

    /// The peer closed: completes a close-delimited response; `Err` if a response was cut off.
    pub fn eof(&mut self, expect: Option<&[u8]>) -> Result<Option<Done>, ParseFail> {
        if self.partial {
            return Err(ParseFail::Wire(WireError::Head(
                "connection closed mid-head",
            )));
        }
        match self.body.as_mut() {
            None => Ok(None),
            Some(dec) => {
                dec.finish_on_eof().map_err(ParseFail::Wire)?;
                Ok(Some(self.finish(expect)))
            }
        }
    }

    fn finish(&mut self, expect: Option<&[u8]>) -> Done {
        let body_ok = match expect {
            Some(exp) => !self.body_bad && self.body_off == exp.len() as u64,
            None => true,
        };
        self.body = None;
        self.body_off = 0;
        self.body_bad = false;
        if let Some(k) = self.keep.as_mut() {
            let next = k.keeper.fresh();
            let mut whole = std::mem::replace(&mut k.now, next);
            whole.status = self.status;
            k.keeper.done(whole);
        }
        Done {
            status: self.status,
            keep_alive: self.keep_alive,
            body_ok,
        }
    }
}

fn check_body(exp: &[u8], off: &mut u64, bad: &mut bool, data: &[u8]) {
    let start = *off;
    *off += data.len() as u64;
    if *bad {
        return;
    }
    let end = *off;
    if end > exp.len() as u64 || exp[start as usize..end as usize] != *data {
        *bad = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(wire: &[u8], cuts: &[usize], expect: Option<&[u8]>) -> Result<Vec<Done>, ParseFail> {
        run_heads(wire, cuts, expect, &[])
    }

    /// Parses `wire` cut at `cuts`; `heads[k]`: the k-th request was a HEAD.
    fn run_heads(
        wire: &[u8],
        cuts: &[usize],
        expect: Option<&[u8]>,
        heads: &[bool],
    ) -> Result<Vec<Done>, ParseFail> {
        let mut p = Parser::default();
        let mut out = Vec::new();
        let mut points: Vec<usize> = cuts.to_vec();
        points.push(wire.len());
        points.sort_unstable();
        let mut pos = 0;
        let mut carry = Vec::new();
        let is_head = |k: usize| heads.get(k).copied().unwrap_or(false);
        for c in points {
            let c = c.max(pos);
            carry.extend_from_slice(&wire[pos..c]);
            pos = c;
            let used = p.feed(&carry, is_head(out.len()), expect, |d| {
                out.push(d);
                ControlFlow::Continue(is_head(out.len()))
            })?;
            carry.drain(..used);
        }
        if let Some(d) = p.eof(expect)? {
            out.push(d);
        }
        Ok(out)
    }

    const WIRE: &[u8] =
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok\
HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n1\r\no\r\n1\r\nk\r\n0\r\n\r\n\
HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nok";

    #[test]
    fn every_split_agrees() {
        let whole = run(WIRE, &[], Some(b"ok")).unwrap();
        assert_eq!(whole.len(), 3);
        assert_eq!(
            whole
                .iter()
                .map(|d| (d.status, d.keep_alive, d.body_ok))
                .collect::<Vec<_>>(),
            vec![(200, true, true), (404, true, true), (200, false, true)]
        );
        for a in 0..WIRE.len() {
            assert_eq!(run(WIRE, &[a], Some(b"ok")).unwrap(), whole, "cut {a}");
        }
    }

    #[test]
    fn head_responses_have_no_body_at_every_split() {
        // A HEAD's response says the length of the body a GET would get, and sends none.
        let wire = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n\
HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok\
HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n";
        let heads = [true, false, true];
        let whole = run_heads(wire, &[], None, &heads).unwrap();
        let got: Vec<u16> = whole.iter().map(|d| d.status).collect();
        assert_eq!(got, vec![200, 200, 204]);
        for a in 0..wire.len() {
            assert_eq!(
                run_heads(wire, &[a], None, &heads).unwrap(),
                whole,
                "cut {a}"
            );
        }
        // Read as answers to GETs, the first response swallows the second's head as its body.
        assert_ne!(run_heads(wire, &[], None, &[]).ok(), Some(whole));
    }

    #[test]
    fn body_mismatch() {
        let d = run(WIRE, &[], Some(b"ox")).unwrap();
        assert!(d.iter().all(|d| !d.body_ok));
        let d = run(WIRE, &[], Some(b"o")).unwrap();
        assert!(d.iter().all(|d| !d.body_ok));
        let d = run(WIRE, &[], Some(b"okk")).unwrap();
        assert!(d.iter().all(|d| !d.body_ok));
    }

    #[test]
    fn failures() {
        assert!(matches!(
            run(b"nonsense\r\n\r\n", &[], None),
            Err(ParseFail::Wire(_))
        ));
        assert!(matches!(
            run(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", &[], None),
            Err(ParseFail::Wire(WireError::IncompleteBody))
        ));
        assert!(run(b"HTTP/1.1 200 OK\r\nContent-", &[], None).is_err());
        let mut big = b"HTTP/1.1 200 OK\r\nX: ".to_vec();
        big.resize(MAX_HEAD + 10, b'a');
        assert_eq!(run(&big, &[], None), Err(ParseFail::HeadTooLarge));
    }
}
