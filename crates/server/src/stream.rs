//! Streaming a `/bytes` body from the shared pattern buffer, never buffering it (HTTP/1.1 writes
//! it here; HTTP/2 and HTTP/3 take it in slices under their flow control, `answer::Reply`).
//!
//! Each write is one `writev` of the pending framing bytes (chunk size lines) and up to `write`
//! bytes of pattern taken as slices of one static buffer, so a 1 GiB body costs no memory and no
//! copies in user space beyond the kernel's.

use crate::pattern;
use std::io::{self, IoSlice, Write};

/// Largest number of pattern slices in one write.
const MAX_SLICES: usize = 16;

/// The state of one streamed body.
#[derive(Debug)]
pub(crate) struct Stream {
    /// Pattern offset of the next data byte.
    offset: u64,
    /// Data bytes not yet assigned to a chunk.
    left: u64,
    /// Data bytes left in the current chunk (the whole rest of the body when not chunked).
    chunk_left: u64,
    chunk: usize,
    chunked: bool,
    started: bool,
    last_sent: bool,
    /// Framing bytes waiting to be written before more data.
    frame: [u8; 32],
    frame_pos: usize,
    frame_len: usize,
}

impl Stream {
    /// A body of `n` pattern bytes, written `chunk` bytes at a time (and, if `chunked`, framed as
    /// chunks of that size).
    pub(crate) fn new(n: u64, chunk: usize, chunked: bool) -> Self {
        Stream {
            offset: 0,
            left: n,
            chunk_left: 0,
            chunk: chunk.max(1),
            chunked,
            started: false,
            last_sent: false,
            frame: [0; 32],
            frame_pos: 0,
            frame_len: 0,
        }
    }

    /// Writes the body without chunk framing (to an HTTP/1.0 request, whose body then ends with
    /// the connection); only before its first byte.
    pub(crate) fn unchunk(&mut self) {
        if self.offset == 0 && self.frame_len == 0 {
            self.chunked = false;
        }
    }

    /// Body bytes written so far.
    pub(crate) fn sent(&self) -> u64 {
        self.offset
    }

    /// Body bytes not written yet.
    pub(crate) fn remaining(&self) -> u64 {
        self.left + self.chunk_left
    }

    /// `n` more body bytes went out by another way than [`Stream::pump`] (a protocol with
    /// frames of its own, unchunked: HTTP/2, HTTP/3).
    pub(crate) fn advance(&mut self, n: u64) {
        self.offset += n;
        let from_chunk = n.min(self.chunk_left);
        self.chunk_left -= from_chunk;
        self.left -= n - from_chunk;
    }

    /// Writes until done (`Ok(true)`) or the socket is full (`Ok(false)`).
    pub(crate) fn pump<W: Write>(&mut self, w: &mut W) -> io::Result<bool> {
        loop {
            if self.frame_pos == self.frame_len && self.chunk_left == 0 && !self.next_chunk() {
                return Ok(true);
            }
            let mut slices: [IoSlice<'_>; MAX_SLICES + 1] = [IoSlice::new(&[]); MAX_SLICES + 1];
            let mut count = 0;
            if self.frame_pos < self.frame_len {
                slices[0] = IoSlice::new(&self.frame[self.frame_pos..self.frame_len]);
                count = 1;
            }
            let mut want = self.chunk_left.min(self.chunk as u64) as usize;
            let mut off = self.offset;
            while want > 0 && count <= MAX_SLICES {
                let s = pattern::slice_at(off, want);
                slices[count] = IoSlice::new(s);
                count += 1;
                want -= s.len();
                off += s.len() as u64;
            }
            let n = match w.write_vectored(&slices[..count]) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            let framing = (self.frame_len - self.frame_pos).min(n);
            self.frame_pos += framing;
            let data = (n - framing) as u64;
            self.offset += data;
            self.chunk_left -= data;
        }
    }

    /// Sets up the next chunk's framing; false when the body is complete.
    fn next_chunk(&mut self) -> bool {
        self.frame_pos = 0;
        self.frame_len = 0;
        if !self.chunked {
            if self.left == 0 {
                return false;
            }
            self.chunk_left = self.left;
            self.left = 0;
            return true;
        }
        if self.last_sent {
            return false;
        }
        let mut f = std::io::Cursor::new(&mut self.frame[..]);
        if self.started {
            let _ = f.write_all(b"\r\n");
        }
        if self.left == 0 {
            let _ = f.write_all(b"0\r\n\r\n");
            self.last_sent = true;
        } else {
            let n = self.left.min(self.chunk as u64);
            let _ = write!(f, "{n:x}\r\n");
            self.chunk_left = n;
            self.left -= n;
        }
        self.started = true;
        self.frame_len = f.position() as usize;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrage_wire::ChunkedDecoder;

    /// A writer that accepts at most `max` bytes per call and refuses every third call.
    struct Choppy {
        got: Vec<u8>,
        max: usize,
        calls: usize,
    }

    impl Write for Choppy {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.write_vectored(&[IoSlice::new(buf)])
        }
        fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
            self.calls += 1;
            if self.calls.is_multiple_of(3) {
                return Err(io::ErrorKind::WouldBlock.into());
            }
            let mut n = 0;
            for b in bufs {
                let take = b.len().min(self.max - n);
                self.got.extend_from_slice(&b[..take]);
                n += take;
                if n == self.max {
                    break;
                }
            }
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn run(n: u64, chunk: usize, chunked: bool, max: usize) -> Vec<u8> {
        let mut s = Stream::new(n, chunk, chunked);
        let mut w = Choppy {
            got: Vec::new(),
            max,
            calls: 0,
        };
        while !s.pump(&mut w).unwrap() {}
        w.got
    }

    fn expected(n: u64) -> Vec<u8> {
        let mut v = vec![0; n as usize];
        pattern::fill(0, &mut v);
        v
    }

    #[test]
    fn plain_bodies() {
        for (n, chunk, max) in [
            (0, 10, 7),
            (1, 10, 7),
            (1000, 7, 100),
            (3 << 20, 1 << 20, 300_000),
            (600_000, 600_000, usize::MAX),
        ] {
            assert_eq!(
                run(n, chunk, false, max),
                expected(n),
                "n={n} chunk={chunk}"
            );
        }
    }

    #[test]
    fn chunked_bodies() {
        for (n, chunk, max) in [
            (0, 10, 3),
            (5, 10, 3),
            (1000, 7, 100),
            (1 << 20, 65_536, 50_000),
        ] {
            let wire = run(n, chunk, true, max);
            let mut d = ChunkedDecoder::new();
            let mut body = Vec::new();
            let used = d.decode(&wire, |b| body.extend_from_slice(b)).unwrap();
            assert!(d.is_done());
            assert_eq!(used, wire.len());
            assert_eq!(body, expected(n), "n={n} chunk={chunk}");
        }
        assert_eq!(
            run(3, 2, true, 1000),
            b"2\r\n\x00\x01\r\n1\r\n\x02\r\n0\r\n\r\n"
        );
    }
}
