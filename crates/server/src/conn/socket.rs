//! A connection's socket work shared by both protocols: reading more input (one read per
//! readiness edge when it comes up short), writing the output buffer, and the HTTP/2 loop that
//! drives `h2::H2` between them as `Conn::run_inner` drives the HTTP/1.1 answers.

use super::{Conn, End, Mode, Next, HIGH_WATER};
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

    /// The HTTP/2 loop: frames in, answers and bodies out, as the HTTP/1.1 loop above.
    pub(super) fn run_h2(
        &mut self,
        ctx: &mut Ctx<'_>,
        buf: &mut [u8],
        len: &mut usize,
        mut pos: usize,
        out: &mut Vec<u8>,
        drain: bool,
    ) -> Next {
        let mut exhausted = false;
        loop {
            let Mode::H2(h2) = &mut self.mode else {
                unreachable!("in HTTP/2 mode")
            };
            if ctx.draining && !h2.draining() {
                h2.drain(ctx, out);
            }
            let mut progress = false;
            if h2.closing.is_none() {
                let used = h2.feed(ctx, &buf[pos..*len], out);
                pos += used;
                progress |= used > 0;
                h2.pump(ctx, out);
            }
            if let Some(at) = h2.timer_wanted() {
                self.timer_seq += 1;
                ctx.arm_timer(at, self.id, self.timer_seq);
            }
            let had = out.len();
            match self.write_out(ctx, out) {
                Ok(all) => progress |= all && had > 0,
                Err(_) => return Next::End(End::Close),
            }
            let Mode::H2(h2) = &self.mode else {
                unreachable!("in HTTP/2 mode")
            };
            if out.is_empty() {
                if let Some(end) = h2.closing {
                    return Next::End(end);
                }
                if (h2.draining() || self.peer_eof) && h2.idle() && !progress {
                    return Next::End(End::Close);
                }
            }
            match self.read_more(ctx, buf, len, &mut pos, out, drain, &mut exhausted) {
                Ok(read) => progress |= read,
                Err(()) => return Next::End(End::Close),
            }
            if !progress {
                break;
            }
        }
        keep_unread(buf, len, pos)
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
