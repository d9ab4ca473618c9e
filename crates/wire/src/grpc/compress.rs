//! Message compression (`grpc-encoding`): identity and gzip. Inflating stops at the caller's
//! limit, so a small compressed message that would grow without end (a gzip bomb) costs no
//! more memory than the largest message the caller accepts.

use std::io::{Read, Write};

use super::GrpcError;

/// A message encoding this side speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Identity,
    Gzip,
}

impl Encoding {
    /// Reads `grpc-encoding` (absent means identity).
    pub fn parse(value: Option<&[u8]>) -> Result<Encoding, GrpcError> {
        match value {
            None => Ok(Encoding::Identity),
            Some(v) if v.eq_ignore_ascii_case(b"identity") => Ok(Encoding::Identity),
            Some(v) if v.eq_ignore_ascii_case(b"gzip") => Ok(Encoding::Gzip),
            Some(v) => Err(GrpcError::UnknownEncoding(
                String::from_utf8_lossy(v).into_owned(),
            )),
        }
    }

    /// The name written in `grpc-encoding`.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Identity => "identity",
            Encoding::Gzip => "gzip",
        }
    }

    /// Compresses one message's payload.
    pub fn compress(self, payload: &[u8]) -> Vec<u8> {
        match self {
            Encoding::Identity => payload.to_vec(),
            Encoding::Gzip => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(payload).expect("writing to a Vec");
                e.finish().expect("writing to a Vec")
            }
        }
    }

    /// The payload of a message as the decoder handed it out (`compressed` is its flag):
    /// inflated when compressed, never past `max` bytes.
    pub fn decompress(
        self,
        compressed: bool,
        payload: &[u8],
        max: u32,
    ) -> Result<Vec<u8>, GrpcError> {
        if !compressed {
            return Ok(payload.to_vec());
        }
        match self {
            Encoding::Identity => Err(GrpcError::CompressedWithoutEncoding),
            Encoding::Gzip => {
                let mut out = Vec::new();
                let limit = u64::from(max) + 1;
                flate2::read::GzDecoder::new(payload)
                    .take(limit)
                    .read_to_end(&mut out)
                    .map_err(|e| GrpcError::Inflate(e.to_string()))?;
                if out.len() as u64 > u64::from(max) {
                    return Err(GrpcError::TooLarge {
                        len: out.len() as u64,
                        max: u64::from(max),
                    });
                }
                Ok(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(Encoding::parse(None), Ok(Encoding::Identity));
        assert_eq!(Encoding::parse(Some(b"GZIP")), Ok(Encoding::Gzip));
        assert_eq!(Encoding::parse(Some(b"identity")), Ok(Encoding::Identity));
        assert_eq!(
            Encoding::parse(Some(b"snappy")),
            Err(GrpcError::UnknownEncoding("snappy".into()))
        );
        assert_eq!(Encoding::Gzip.name(), "gzip");
    }

    #[test]
    fn gzip_round_trips() {
        for p in [&b""[..], b"hello", &[0u8; 10_000]] {
            let z = Encoding::Gzip.compress(p);
            assert_eq!(&z[..2], [0x1f, 0x8b], "a gzip member");
            assert_eq!(Encoding::Gzip.decompress(true, &z, 10_000).unwrap(), p);
            // Not compressed: as it is, whatever the encoding.
            assert_eq!(Encoding::Gzip.decompress(false, p, 10_000).unwrap(), p);
        }
    }

    #[test]
    fn refuses_what_it_cannot_or_must_not_inflate() {
        assert_eq!(
            Encoding::Identity.decompress(true, b"x", 10),
            Err(GrpcError::CompressedWithoutEncoding)
        );
        assert!(matches!(
            Encoding::Gzip.decompress(true, b"not gzip", 10),
            Err(GrpcError::Inflate(_))
        ));
        // A bomb: 64 MiB of zeros in ~300 KiB; inflated no further than the limit plus one byte.
        let bomb = Encoding::Gzip.compress(&vec![0u8; 64 << 20]);
        assert!(bomb.len() < 1 << 20, "{}", bomb.len());
        assert_eq!(
            Encoding::Gzip.decompress(true, &bomb, 4 << 20),
            Err(GrpcError::TooLarge {
                len: (4 << 20) + 1,
                max: 4 << 20
            })
        );
    }
}
