//! gRPC's Length-Prefixed-Message: a compressed flag (one byte, 0 or 1), the message's length
//! (four bytes, big-endian) and the message. A call's DATA frames carry a sequence of them, cut
//! anywhere: [`MessageDecoder`] takes the bytes as they come and hands each whole message out,
//! without a copy when one read holds it all, and with the length checked against the caller's
//! limit before any of it is kept (a peer announcing 4 GiB costs nothing).

use super::GrpcError;

/// The bytes before each message: the compressed flag and the length.
pub const PREFIX_LEN: usize = 5;

/// Appends `payload` as one message (its prefix, then itself) to `out`.
pub fn encode_message(
    payload: &[u8],
    compressed: bool,
    out: &mut Vec<u8>,
) -> Result<(), GrpcError> {
    let len = u32::try_from(payload.len()).map_err(|_| GrpcError::TooLarge {
        len: payload.len() as u64,
        max: u64::from(u32::MAX),
    })?;
    out.reserve(PREFIX_LEN + payload.len());
    out.push(u8::from(compressed));
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(payload);
    Ok(())
}

/// Splits a call's body into its messages, whatever the reads' boundaries.
#[derive(Debug)]
pub struct MessageDecoder {
    max: u32,
    prefix: [u8; PREFIX_LEN],
    /// Bytes of the current prefix held (0 between messages).
    have_prefix: usize,
    /// The current message once its prefix is read: its flag and length, and the part held.
    current: Option<(bool, usize)>,
    buf: Vec<u8>,
    /// The first error: once the stream is broken, every later feed says the same.
    failed: Option<GrpcError>,
}

impl MessageDecoder {
    /// A decoder that refuses any message longer than `max` bytes (gRPC's usual default is
    /// 4 MiB for what a side receives).
    pub fn new(max: u32) -> Self {
        MessageDecoder {
            max,
            prefix: [0; PREFIX_LEN],
            have_prefix: 0,
            current: None,
            buf: Vec::new(),
            failed: None,
        }
    }

    /// Takes the next bytes of the body; calls `on(compressed, payload)` for every message they
    /// complete, in order, and returns how many. On an error the stream is broken: this and
    /// every later call return it, and nothing more is handed out.
    pub fn feed(
        &mut self,
        mut input: &[u8],
        mut on: impl FnMut(bool, &[u8]),
    ) -> Result<usize, GrpcError> {
        let mut n = 0;
        loop {
            let (used, got) = self.feed_one(input, &mut on)?;
            n += usize::from(got);
            input = &input[used..];
            if input.is_empty() {
                return Ok(n);
            }
        }
    }

    /// [`MessageDecoder::feed`] up to the first message `input` completes: calls `on` for it
    /// (at most once) and returns the bytes used and whether it did. A caller that answers one
    /// message at a time keeps the rest of `input` for later (a reply per request, made only
    /// as fast as it is sent).
    pub fn feed_one(
        &mut self,
        mut input: &[u8],
        on: impl FnOnce(bool, &[u8]),
    ) -> Result<(usize, bool), GrpcError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let total = input.len();
        while !input.is_empty() {
            if let Some((flag, len)) = self.current {
                let take = (len - self.buf.len()).min(input.len());
                self.buf.extend_from_slice(&input[..take]);
                input = &input[take..];
                if self.buf.len() == len {
                    self.current = None;
                    on(flag, &self.buf);
                    self.buf.clear();
                    return Ok((total - input.len(), true));
                }
                continue;
            }
            if self.have_prefix == 0 && input.len() >= PREFIX_LEN {
                // The common case: the prefix whole in this read, and often the message too.
                let (flag, len) = self.prefix_of(input[..PREFIX_LEN].try_into().expect("5"))?;
                let body = &input[PREFIX_LEN..];
                if body.len() >= len {
                    on(flag, &body[..len]);
                    return Ok((total - (body.len() - len), true));
                }
                self.current = Some((flag, len));
                self.buf.extend_from_slice(body);
                input = &[];
                continue;
            }
            let take = (PREFIX_LEN - self.have_prefix).min(input.len());
            self.prefix[self.have_prefix..self.have_prefix + take].copy_from_slice(&input[..take]);
            self.have_prefix += take;
            input = &input[take..];
            if self.have_prefix == PREFIX_LEN {
                self.have_prefix = 0;
                let (flag, len) = self.prefix_of(self.prefix)?;
                if len == 0 {
                    on(flag, &[]);
                    return Ok((total - input.len(), true));
                }
                self.current = Some((flag, len));
            }
        }
        Ok((total, false))
    }

    /// At the end of the body: an error if it ended inside a message.
    pub fn finish(&self) -> Result<(), GrpcError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        match self.current {
            Some((_, len)) => Err(GrpcError::Truncated {
                have: (PREFIX_LEN + self.buf.len()) as u64,
                want: (PREFIX_LEN + len) as u64,
            }),
            None if self.have_prefix > 0 => Err(GrpcError::Truncated {
                have: self.have_prefix as u64,
                want: PREFIX_LEN as u64,
            }),
            None => Ok(()),
        }
    }

    /// Whether the decoder sits between messages (nothing of one held).
    pub fn is_idle(&self) -> bool {
        self.current.is_none() && self.have_prefix == 0 && self.failed.is_none()
    }

    fn prefix_of(&mut self, p: [u8; PREFIX_LEN]) -> Result<(bool, usize), GrpcError> {
        let len = u32::from_be_bytes([p[1], p[2], p[3], p[4]]);
        let r = match p[0] {
            0 | 1 if len > self.max => Err(GrpcError::TooLarge {
                len: u64::from(len),
                max: u64::from(self.max),
            }),
            0 | 1 => Ok((p[0] == 1, len as usize)),
            flag => Err(GrpcError::BadFlag(flag)),
        };
        if let Err(e) = &r {
            self.failed = Some(e.clone());
        }
        r
    }
}

#[cfg(test)]
mod tests;
