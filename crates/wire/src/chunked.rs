//! Incremental decoder for `Transfer-Encoding: chunked` bodies (RFC 9112 section 7.1).
//!
//! The decoder keeps only a few integers of state, so a body of any size decodes in constant
//! memory, and it accepts the input split at any byte boundary. It is strict where laxness enables
//! request smuggling: sizes are hex digits only, every line ends in CRLF (a bare LF is an error),
//! and extensions and trailers are bounded.

use crate::WireError;

/// Longest chunk extension plus trailer section accepted, in bytes.
pub const MAX_CHUNK_METADATA: usize = 8 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading hex digits of a chunk size; `digits` counts them.
    Size {
        digits: u8,
    },
    /// After the size: optional whitespace, then `;ext`, or CR.
    AfterSize,
    /// Inside a chunk extension, skipping until CR.
    Extension,
    /// Saw CR after the size line; expecting LF.
    SizeLf,
    /// Inside chunk data.
    Data,
    /// Chunk data done; expecting CR.
    DataCr,
    /// Expecting LF after the data's CR.
    DataLf,
    /// At the start of a trailer line (or the final empty line).
    TrailerStart,
    /// Inside a trailer field line, skipping until CR.
    TrailerLine,
    /// Saw CR inside/after a trailer line; expecting LF.
    TrailerLf {
        last: bool,
    },
    Done,
}

/// Decodes a chunked body. Feed it bytes with [`ChunkedDecoder::decode`] until
/// [`ChunkedDecoder::is_done`]; bytes after the end belong to the next message.
#[derive(Debug, Clone)]
pub struct ChunkedDecoder {
    state: State,
    /// Size of the current chunk while parsing it, then the bytes of it still to come.
    remaining: u64,
    /// Extension and trailer bytes seen, against [`MAX_CHUNK_METADATA`].
    metadata: usize,
    /// Body bytes decoded so far.
    decoded: u64,
}

impl Default for ChunkedDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl ChunkedDecoder {
    pub fn new() -> Self {
        ChunkedDecoder {
            state: State::Size { digits: 0 },
            remaining: 0,
            metadata: 0,
            decoded: 0,
        }
    }

    /// True once the last chunk and the trailer section have been read.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// Body bytes produced so far.
    pub fn decoded_len(&self) -> u64 {
        self.decoded
    }

    /// Decodes as much of `input` as possible, handing each run of body bytes to `on_data`
    /// (slices of `input`, never copied). Returns how many bytes of `input` were consumed: all of
    /// them unless the body ended inside `input`.
    pub fn decode<F: FnMut(&[u8])>(
        &mut self,
        input: &[u8],
        mut on_data: F,
    ) -> Result<usize, WireError> {
        let mut i = 0;
        while i < input.len() {
            match self.state {
                State::Data => {
                    let take =
                        (input.len() - i).min(self.remaining.min(usize::MAX as u64) as usize);
                    on_data(&input[i..i + take]);
                    i += take;
                    self.remaining -= take as u64;
                    self.decoded += take as u64;
                    if self.remaining == 0 {
                        self.state = State::DataCr;
                    }
                    continue;
                }
                State::Done => return Ok(i),
                _ => {}
            }
            let b = input[i];
            i += 1;
            self.state = match self.state {
                State::Size { digits } => match hex_value(b) {
                    Some(v) => {
                        if digits >= 16 {
                            return Err(WireError::ChunkSizeOverflow);
                        }
                        self.remaining = (self.remaining << 4) | u64::from(v);
                        State::Size { digits: digits + 1 }
                    }
                    None if digits == 0 => return Err(WireError::BadChunkSize),
                    None => self.after_size(b)?,
                },
                State::AfterSize => self.after_size(b)?,
                State::Extension => {
                    self.count_metadata()?;
                    match b {
                        b'\r' => State::SizeLf,
                        b'\n' => return Err(WireError::BadChunkSize),
                        _ => State::Extension,
                    }
                }
                State::SizeLf => {
                    if b != b'\n' {
                        return Err(WireError::BadChunkSize);
                    }
                    if self.remaining == 0 {
                        State::TrailerStart
                    } else {
                        State::Data
                    }
                }
                State::DataCr if b == b'\r' => State::DataLf,
                State::DataLf if b == b'\n' => State::Size { digits: 0 },
                State::DataCr | State::DataLf => return Err(WireError::BadChunkTerminator),
                State::TrailerStart => match b {
                    b'\r' => State::TrailerLf { last: true },
                    b'\n' => return Err(WireError::BadChunkTerminator),
                    _ => {
                        self.count_metadata()?;
                        State::TrailerLine
                    }
                },
                State::TrailerLine => {
                    self.count_metadata()?;
                    match b {
                        b'\r' => State::TrailerLf { last: false },
                        b'\n' => return Err(WireError::BadChunkTerminator),
                        _ => State::TrailerLine,
                    }
                }
                State::TrailerLf { last } => {
                    if b != b'\n' {
                        return Err(WireError::BadChunkTerminator);
                    }
                    if last {
                        self.state = State::Done;
                        return Ok(i);
                    }
                    State::TrailerStart
                }
                State::Data | State::Done => unreachable!("handled above"),
            };
        }
        Ok(i)
    }

    /// The byte after a chunk size's digits: whitespace, an extension, or the line's CR.
    fn after_size(&mut self, b: u8) -> Result<State, WireError> {
        match b {
            b' ' | b'\t' => Ok(State::AfterSize),
            b';' => {
                self.count_metadata()?;
                Ok(State::Extension)
            }
            b'\r' => Ok(State::SizeLf),
            _ => Err(WireError::BadChunkSize),
        }
    }

    fn count_metadata(&mut self) -> Result<(), WireError> {
        self.metadata += 1;
        if self.metadata > MAX_CHUNK_METADATA {
            Err(WireError::ChunkMetadataTooLong)
        } else {
            Ok(())
        }
    }
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Decodes `input` fed in pieces of the given sizes; returns body, consumed, done.
    fn decode_split(input: &[u8], splits: &[usize]) -> Result<(Vec<u8>, usize, bool), WireError> {
        let mut d = ChunkedDecoder::new();
        let mut body = Vec::new();
        let mut pos = 0;
        let mut cuts: Vec<usize> = splits
            .iter()
            .copied()
            .filter(|&s| s < input.len())
            .collect();
        cuts.sort_unstable();
        cuts.push(input.len());
        for cut in cuts {
            if cut < pos {
                continue;
            }
            let n = d.decode(&input[pos..cut], |b| body.extend_from_slice(b))?;
            pos += n;
            if d.is_done() {
                break;
            }
        }
        Ok((body, pos, d.is_done()))
    }

    #[test]
    fn table() {
        type Want = Result<(&'static [u8], usize, bool), WireError>;
        let cases: &[(&[u8], Want)] = &[
            (b"0\r\n\r\n", Ok((b"", 5, true))),
            (b"5\r\nhello\r\n0\r\n\r\n", Ok((b"hello", 15, true))),
            (b"5\r\nhello\r\n0\r\n\r\nNEXT", Ok((b"hello", 15, true))),
            (
                b"3;name=val\r\nabc\r\n2 ; x\r\nde\r\n0\r\n\r\n",
                Ok((b"abcde", 33, true)),
            ),
            (
                b"A\r\n0123456789\r\n0\r\nX-Trailer: 1\r\nY: 2\r\n\r\n",
                Ok((b"0123456789", 40, true)),
            ),
            (b"1f\r\n", Ok((b"", 4, false))),
            (b"5\r\nhel", Ok((b"hel", 6, false))),
            (b"\r\n", Err(WireError::BadChunkSize)),
            (b"g\r\n", Err(WireError::BadChunkSize)),
            (b"-1\r\n", Err(WireError::BadChunkSize)),
            (b"5\nhello\r\n", Err(WireError::BadChunkSize)),
            (b"5\r\nhelloX\r\n", Err(WireError::BadChunkTerminator)),
            (b"5\r\nhello\n0\r\n\r\n", Err(WireError::BadChunkTerminator)),
            (b"0\r\n\n", Err(WireError::BadChunkTerminator)),
            (b"0\r\nX: 1\n\r\n", Err(WireError::BadChunkTerminator)),
            (b"10000000000000000\r\n", Err(WireError::ChunkSizeOverflow)),
            (b"0x5\r\n", Err(WireError::BadChunkSize)),
        ];
        for (input, want) in cases {
            let got = decode_split(input, &[]);
            let want = want.clone().map(|(b, n, d)| (b.to_vec(), n, d));
            assert_eq!(got, want, "input {:?}", String::from_utf8_lossy(input));
        }
    }

    #[test]
    fn long_extension_is_refused() {
        let mut input = b"1;".to_vec();
        input.extend(std::iter::repeat_n(b'a', MAX_CHUNK_METADATA + 10));
        input.extend_from_slice(b"\r\nx\r\n0\r\n\r\n");
        assert_eq!(
            decode_split(&input, &[]),
            Err(WireError::ChunkMetadataTooLong)
        );
    }

    #[test]
    fn huge_chunk_counts_without_buffering() {
        let mut d = ChunkedDecoder::new();
        let mut seen = 0u64;
        d.decode(b"FFFFFFFF\r\n", |b| seen += b.len() as u64)
            .unwrap();
        let block = vec![7u8; 1 << 16];
        for _ in 0..100 {
            assert_eq!(
                d.decode(&block, |b| seen += b.len() as u64).unwrap(),
                block.len()
            );
        }
        assert_eq!(seen, 100 << 16);
        assert!(!d.is_done());
    }

    fn encode_chunked(body: &[u8], sizes: &[usize]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut rest = body;
        let mut k = 0;
        while !rest.is_empty() {
            let n = sizes.get(k).copied().unwrap_or(7).clamp(1, rest.len());
            k += 1;
            out.extend_from_slice(format!("{n:x};k={k}\r\n").as_bytes());
            out.extend_from_slice(&rest[..n]);
            out.extend_from_slice(b"\r\n");
            rest = &rest[n..];
        }
        out.extend_from_slice(b"0\r\nTrailer-A: x\r\n\r\n");
        out
    }

    proptest! {
        /// Any body, chunked any way, split at any boundaries, decodes to itself.
        #[test]
        fn roundtrip_any_split(
            body in proptest::collection::vec(any::<u8>(), 0..300),
            sizes in proptest::collection::vec(1usize..40, 0..20),
            splits in proptest::collection::vec(0usize..400, 0..12),
        ) {
            let wire = encode_chunked(&body, &sizes);
            let (got, consumed, done) = decode_split(&wire, &splits).unwrap();
            prop_assert!(done);
            prop_assert_eq!(consumed, wire.len());
            prop_assert_eq!(got, body);
        }

        /// Arbitrary bytes never panic, and a byte-at-a-time feed agrees with a whole feed.
        #[test]
        fn garbage_never_panics(input in proptest::collection::vec(any::<u8>(), 0..200)) {
            let whole = decode_split(&input, &[]);
            let bytewise = decode_split(&input, &(0..input.len()).collect::<Vec<_>>());
            prop_assert_eq!(whole, bytewise);
        }
    }
}
