//! One WebSocket connection's message layer, for either role, sans I/O.
//!
//! [`Session::next`] decodes from the caller's buffer, unmasking in place, and returns how many
//! bytes it used and at most one [`Event`]: a whole message (text already checked as UTF-8), a
//! ping (already answered), a pong, or the peer's close (already answered). A message that came
//! in one frame and arrived whole is handed out as a slice of the caller's buffer; any other is
//! assembled in a buffer the session keeps and reuses, so a partly read frame never stays in the
//! caller's buffer (what is left unused is at most a frame header, 14 bytes) and steady state
//! does not allocate. Control frames between fragments are answered at once; a control frame
//! read in pieces waits in a 125-byte array.
//!
//! What a peer can make a session hold is one message, bounded by [`Limits::max_message`]:
//! the frame header that would pass it is refused before its payload is read, and so is a frame
//! over [`Limits::max_frame`] (both close with 1009). Everything the session writes (pongs, the
//! close reply, messages) goes to the caller's `out`, masked when the role is the client's.
//!
//! A streaming session ([`Session::streaming`]) assembles nothing: it hands each message out
//! in the pieces it arrived in ([`Event::Part`], slices of the caller's buffer, text checked as
//! they come), so what it holds is the same whatever the message's size, and the limits only
//! say how long a message may be (the load's client checks replies this way, as they stream).

use super::frame::{self, apply_mask, Header, Opcode, MAX_CONTROL_PAYLOAD};
use super::utf8::Utf8;
use super::{valid_close_code, WsError};

#[cfg(test)]
mod tests;

/// Which end of the connection this session is: a client masks every frame it sends and
/// refuses masked frames; a server refuses unmasked ones (RFC 6455 §5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Client,
    Server,
}

/// What one peer may make a session hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest payload of one frame.
    pub max_frame: u64,
    /// The largest message, all its fragments together.
    pub max_message: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_frame: 16 << 20,
            max_message: 16 << 20,
        }
    }
}

/// What a peer's frames amounted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event<'a> {
    /// A whole message; `text` ones are valid UTF-8.
    Message {
        text: bool,
        data: &'a [u8],
    },
    /// A ping; its pong is written already (unless this side has sent its close).
    Ping(&'a [u8]),
    Pong(&'a [u8]),
    /// The peer's close, with its code (None when it sent none) and reason; this side's close
    /// is written already (the same code, as is usual) unless it had sent one. Nothing after
    /// it is read.
    Close {
        code: Option<u16>,
        reason: &'a str,
    },
    /// A streaming session's piece of a message, in order ([`Session::streaming`]; an
    /// assembling session never returns one): `first` on the message's first piece, `fin` on
    /// its last (its text then checked whole). Every data frame gives at least one piece, an
    /// empty one when it has no payload, so a message's start and end are always seen.
    Part {
        text: bool,
        data: &'a [u8],
        first: bool,
        fin: bool,
    },
}

#[derive(Debug, Clone, Copy)]
enum Read {
    Header,
    Payload { h: Header, done: u64 },
}

/// The data message in progress.
#[derive(Debug, Clone, Copy)]
struct Msg {
    text: bool,
    len: u64,
    /// Streaming: a piece of it has been handed out.
    begun: bool,
}

/// Where the event `next` returns lies (decided before any borrow is taken).
enum Ready {
    Whole {
        start: usize,
        end: usize,
        text: bool,
    },
    Assembled {
        text: bool,
    },
    /// Streaming: a piece of the frame in progress.
    Part {
        start: usize,
        end: usize,
        text: bool,
        first: bool,
        fin: bool,
    },
    Control(Opcode),
}

/// One connection's WebSocket state (see the module's documentation).
#[derive(Debug, Clone)]
pub struct Session {
    role: Role,
    limits: Limits,
    read: Read,
    msg: Option<Msg>,
    /// A message in several frames or reads, assembled; cleared when the next one starts.
    /// Never used when streaming.
    asm: Vec<u8>,
    stream: bool,
    utf8: Utf8,
    ctrl: [u8; MAX_CONTROL_PAYLOAD],
    ctrl_len: usize,
    sent_close: bool,
    received_close: bool,
    /// The client's masking keys: xorshift64* from the caller's seed.
    rng: u64,
}

impl Session {
    /// A server's session.
    pub fn server(limits: Limits) -> Session {
        Session::new(Role::Server, limits, 0)
    }

    /// A client's session; `seed` starts its masking keys (give each connection its own, from
    /// a random source: RFC 6455 §10.3 wants keys a script in the client cannot predict).
    pub fn client(limits: Limits, seed: u64) -> Session {
        Session::new(Role::Client, limits, seed)
    }

    fn new(role: Role, limits: Limits, seed: u64) -> Session {
        Session {
            role,
            limits,
            read: Read::Header,
            msg: None,
            asm: Vec::new(),
            stream: false,
            utf8: Utf8::default(),
            ctrl: [0; MAX_CONTROL_PAYLOAD],
            ctrl_len: 0,
            sent_close: false,
            received_close: false,
            rng: seed | 1,
        }
    }

    /// This session hands messages out in pieces as they arrive ([`Event::Part`]) instead of
    /// assembling them.
    pub fn streaming(mut self) -> Session {
        self.stream = true;
        self
    }

    pub fn role(&self) -> Role {
        self.role
    }

    /// This side has sent its close (no data may follow it).
    pub fn sent_close(&self) -> bool {
        self.sent_close
    }

    /// The peer's close has come.
    pub fn received_close(&self) -> bool {
        self.received_close
    }

    /// A message has begun and not ended (fragments, or a frame read in part).
    pub fn in_message(&self) -> bool {
        self.msg.is_some()
    }

    /// Gives back the assembly buffer's memory beyond `keep` bytes when no message uses it
    /// (after a large message, so an idle connection does not keep its size).
    pub fn trim(&mut self, keep: usize) {
        if self.msg.is_none() && self.asm.capacity() > keep {
            self.asm = Vec::new();
        }
    }

    /// Decodes from the front of `buf` (unmasking it in place): the bytes used and the next
    /// event, if one is complete. Call again with the rest until it returns no event. An error
    /// fails the connection: [`Session::fail`] writes its close.
    pub fn next<'a>(
        &'a mut self,
        buf: &'a mut [u8],
        out: &mut Vec<u8>,
    ) -> Result<(usize, Option<Event<'a>>), WsError> {
        let mut pos = 0;
        let ready = loop {
            if self.received_close {
                // Nothing after the close is data (RFC 6455 §5.5.1).
                return Ok((buf.len(), None));
            }
            match self.read {
                Read::Header => {
                    let Some((h, n)) = frame::parse_header(&buf[pos..])? else {
                        return Ok((pos, None));
                    };
                    self.admit(&h)?;
                    pos += n;
                    let avail = (buf.len() - pos) as u64;
                    if h.fin && self.msg.is_none() && !h.opcode.is_control() && avail >= h.len {
                        // A whole message in one frame, all here: handed out in place.
                        let (start, end) = (pos, pos + h.len as usize);
                        if let Some(k) = h.mask {
                            apply_mask(&mut buf[start..end], k, 0);
                        }
                        let text = h.opcode == Opcode::Text;
                        if text && std::str::from_utf8(&buf[start..end]).is_err() {
                            return Err(WsError::InvalidUtf8);
                        }
                        pos = end;
                        break Ready::Whole { start, end, text };
                    }
                    if h.opcode.is_control() {
                        self.ctrl_len = 0;
                    } else if h.opcode != Opcode::Continuation {
                        self.asm.clear();
                        self.msg = Some(Msg {
                            text: h.opcode == Opcode::Text,
                            len: 0,
                            begun: false,
                        });
                    }
                    if let Some(m) = self.msg.as_mut().filter(|_| !h.opcode.is_control()) {
                        m.len += h.len;
                    }
                    self.read = Read::Payload { h, done: 0 };
                }
                Read::Payload { h, done } => {
                    let left = h.len - done;
                    let take = left.min((buf.len() - pos) as u64) as usize;
                    if take == 0 && left > 0 {
                        return Ok((pos, None));
                    }
                    let piece = &mut buf[pos..pos + take];
                    if let Some(k) = h.mask {
                        apply_mask(piece, k, done);
                    }
                    if h.opcode.is_control() {
                        self.ctrl[self.ctrl_len..self.ctrl_len + take].copy_from_slice(piece);
                        self.ctrl_len += take;
                    } else {
                        if self.msg.is_some_and(|m| m.text) {
                            self.utf8.feed(piece)?;
                        }
                        if !self.stream {
                            self.asm.extend_from_slice(piece);
                        }
                    }
                    let start = pos;
                    pos += take;
                    let done = done + take as u64;
                    let whole = done == h.len;
                    self.read = if whole {
                        Read::Header
                    } else {
                        Read::Payload { h, done }
                    };
                    if h.opcode.is_control() {
                        if !whole {
                            return Ok((pos, None));
                        }
                        break Ready::Control(h.opcode);
                    }
                    if self.stream {
                        // A piece of what this read holds (never empty unless the frame is).
                        let m = self
                            .msg
                            .as_mut()
                            .expect("a data frame belongs to a message");
                        let (text, first, fin) = (m.text, !m.begun, whole && h.fin);
                        m.begun = true;
                        if fin {
                            self.msg = None;
                            if text {
                                self.utf8.finish()?;
                            }
                        }
                        break Ready::Part {
                            start,
                            end: pos,
                            text,
                            first,
                            fin,
                        };
                    }
                    if !whole {
                        return Ok((pos, None));
                    }
                    if h.fin {
                        let m = self.msg.take().expect("a data frame belongs to a message");
                        if m.text {
                            self.utf8.finish()?;
                        }
                        break Ready::Assembled { text: m.text };
                    }
                }
            }
        };
        let ev = match ready {
            Ready::Whole { start, end, text } if self.stream => Event::Part {
                text,
                data: &buf[start..end],
                first: true,
                fin: true,
            },
            Ready::Whole { start, end, text } => Event::Message {
                text,
                data: &buf[start..end],
            },
            Ready::Part {
                start,
                end,
                text,
                first,
                fin,
            } => Event::Part {
                text,
                data: &buf[start..end],
                first,
                fin,
            },
            Ready::Assembled { text } => Event::Message {
                text,
                data: &self.asm,
            },
            Ready::Control(op) => return self.control(op, out).map(|ev| (pos, Some(ev))),
        };
        Ok((pos, Some(ev)))
    }

    /// The checks of a frame header that depend on the role, the message in progress and the
    /// limits.
    fn admit(&self, h: &Header) -> Result<(), WsError> {
        match (self.role, h.mask.is_some()) {
            (Role::Server, false) => return Err(WsError::Unmasked),
            (Role::Client, true) => return Err(WsError::Masked),
            _ => {}
        }
        if h.opcode.is_control() {
            return Ok(());
        }
        let so_far = match (h.opcode, self.msg) {
            (Opcode::Continuation, None) => return Err(WsError::UnexpectedContinuation),
            (Opcode::Continuation, Some(m)) => m.len,
            (_, Some(_)) => return Err(WsError::ExpectedContinuation),
            (_, None) => 0,
        };
        if h.len > self.limits.max_frame {
            return Err(WsError::FrameTooLarge {
                len: h.len,
                limit: self.limits.max_frame,
            });
        }
        if so_far + h.len > self.limits.max_message {
            return Err(WsError::MessageTooLarge {
                limit: self.limits.max_message,
            });
        }
        Ok(())
    }

    /// A whole control frame is in `ctrl`: answer it and say what it was.
    fn control(&mut self, op: Opcode, out: &mut Vec<u8>) -> Result<Event<'_>, WsError> {
        let n = self.ctrl_len;
        match op {
            Opcode::Ping => {
                if !self.sent_close {
                    let mask = self.mask();
                    frame::write_frame(out, true, Opcode::Pong, &self.ctrl[..n], mask);
                }
                Ok(Event::Ping(&self.ctrl[..n]))
            }
            Opcode::Pong => Ok(Event::Pong(&self.ctrl[..n])),
            _ => {
                let code = match n {
                    0 => None,
                    1 => return Err(WsError::CloseTooShort),
                    _ => {
                        let c = u16::from_be_bytes([self.ctrl[0], self.ctrl[1]]);
                        if !valid_close_code(c) {
                            return Err(WsError::InvalidCloseCode(c));
                        }
                        if std::str::from_utf8(&self.ctrl[2..n]).is_err() {
                            return Err(WsError::InvalidCloseReason);
                        }
                        Some(c)
                    }
                };
                self.received_close = true;
                if !self.sent_close {
                    self.sent_close = true;
                    let mask = self.mask();
                    frame::write_close(out, code, "", mask);
                }
                let reason = std::str::from_utf8(&self.ctrl[2.min(n)..n]).unwrap_or_default();
                Ok(Event::Close { code, reason })
            }
        }
    }

    /// The next masking key (clients), or none (servers).
    fn mask(&mut self) -> Option<[u8; 4]> {
        match self.role {
            Role::Server => None,
            Role::Client => {
                self.rng ^= self.rng >> 12;
                self.rng ^= self.rng << 25;
                self.rng ^= self.rng >> 27;
                let k = self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32;
                Some((k as u32).to_ne_bytes())
            }
        }
    }

    /// Appends a whole message in one frame (masked for a client): one copy of `payload`, no
    /// allocation while `out` has room.
    pub fn send(&mut self, out: &mut Vec<u8>, text: bool, payload: &[u8]) {
        let op = if text { Opcode::Text } else { Opcode::Binary };
        self.send_frame(out, true, op, payload);
    }

    /// Appends one frame of any kind: fragments (`Text`/`Binary` without `fin`, then
    /// `Continuation`s), or a ping or pong. The caller keeps the order RFC 6455 asks for.
    pub fn send_frame(&mut self, out: &mut Vec<u8>, fin: bool, op: Opcode, payload: &[u8]) {
        let mask = self.mask();
        frame::write_frame(out, fin, op, payload, mask);
    }

    /// Starts the close handshake with `code` (which must be [`super::valid_close_code`]), or
    /// does nothing when this side has sent its close.
    pub fn close(&mut self, out: &mut Vec<u8>, code: u16, reason: &str) {
        if !self.sent_close {
            self.sent_close = true;
            let mask = self.mask();
            frame::write_close(out, Some(code), reason, mask);
        }
    }

    /// Fails the connection for `err` (RFC 6455 §7.1.7): writes a close with its code (unless a
    /// close was sent) and returns the code. The caller then closes the transport.
    pub fn fail(&mut self, out: &mut Vec<u8>, err: &WsError) -> u16 {
        let code = err.close_code();
        self.close(out, code, &err.to_string());
        code
    }
}
