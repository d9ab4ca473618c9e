//! A connection's socket work shared by every protocol: reading more input (one read per
//! readiness edge when it comes up short) and writing the output buffer, for the one loop
//! (`drive`).

use super::{Conn, Next, HIGH_WATER};
use crate::worker::Ctx;
use std::io::{self, Read, Write};

impl Conn {
    /// Reads more input unless the peer is gone, the socket is drained, or output is backed up.
    /// Returns whether anything happened (bytes, EOF, an interrupted read).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn read_more(
        &mut self,
        ctx: &mut Ctx<'_>,
        buf: &mut [u8],
        len: &mut usize,
        pos: &mut usize,
        out: &[u8],
        drain: bool,
        exhausted: &mut bool,
    ) -> Result<bool, ()> {
        if *exhausted || self.peer_eof || out.len() >= HIGH_WATER {
            return Ok(false);
        }
        if *pos > 0 {
            buf.copy_within(*pos..*len, 0);
            *len -= *pos;
            *pos = 0;
        }
        let room = buf.len() - *len;
        if room == 0 {
            return Ok(false);
        }
        match self.stream.read(&mut buf[*len..]) {
            Ok(0) => {
                self.peer_eof = true;
                *exhausted = true;
                Ok(true)
            }
            Ok(n) => {
                *len += n;
                // A short read took everything the kernel had; new data raises a new edge, so
                // the WouldBlock read can be skipped (one syscall less per request). Not when
                // the peer closed: no edge follows.
                *exhausted = n < room && !drain;
                self.last_active = ctx.now;
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                *exhausted = true;
                Ok(false)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(true),
            Err(_) => Err(()),
        }
    }

    /// Writes what it can of `out`; true when all of it went.
    pub(super) fn write_out(&mut self, ctx: &mut Ctx<'_>, out: &mut Vec<u8>) -> io::Result<bool> {
        if out.is_empty() {
            // Ciphertext the socket did not take with the last write (the tail of a response
            // whose client reads slowly) leaves on this writable edge: no further write may
            // come to carry it (the client waits for it before it asks again).
            self.stream.send_pending()?;
        }
        let mut written = 0;
        while written < out.len() {
            match self.stream.write(&out[written..]) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => written += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if written > 0 {
            self.last_active = ctx.now;
        }
        if written == out.len() {
            out.clear();
            Ok(true)
        } else {
            out.drain(..written);
            Ok(false)
        }
    }
}

/// The end of a loop turn of every protocol: the input not yet used (`pos..len`) moved to the
/// front of the buffer for the next read, and the connection kept.
pub(super) fn keep_unread(buf: &mut [u8], len: &mut usize, pos: usize) -> Next {
    if pos > 0 {
        buf.copy_within(pos..*len, 0);
        *len -= pos;
    }
    Next::Keep
}
