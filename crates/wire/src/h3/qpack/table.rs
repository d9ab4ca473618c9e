//! The static table (RFC 9204 Appendix A) and the dynamic table a decoder keeps (§3.2):
//! entries by absolute index, evicted oldest first, bounded by a capacity that never exceeds the
//! maximum this side announced.

use super::{entry_size, QpackError};
use std::collections::VecDeque;

/// Appendix A: index 0 is the first entry.
pub const STATIC: [(&[u8], &[u8]); 99] = [
    (b":authority", b""),
    (b":path", b"/"),
    (b"age", b"0"),
    (b"content-disposition", b""),
    (b"content-length", b"0"),
    (b"cookie", b""),
    (b"date", b""),
    (b"etag", b""),
    (b"if-modified-since", b""),
    (b"if-none-match", b""),
    (b"last-modified", b""),
    (b"link", b""),
    (b"location", b""),
    (b"referer", b""),
    (b"set-cookie", b""),
    (b":method", b"CONNECT"),
    (b":method", b"DELETE"),
    (b":method", b"GET"),
    (b":method", b"HEAD"),
    (b":method", b"OPTIONS"),
    (b":method", b"POST"),
    (b":method", b"PUT"),
    (b":scheme", b"http"),
    (b":scheme", b"https"),
    (b":status", b"103"),
    (b":status", b"200"),
    (b":status", b"304"),
    (b":status", b"404"),
    (b":status", b"503"),
    (b"accept", b"*/*"),
    (b"accept", b"application/dns-message"),
    (b"accept-encoding", b"gzip, deflate, br"),
    (b"accept-ranges", b"bytes"),
    (b"access-control-allow-headers", b"cache-control"),
    (b"access-control-allow-headers", b"content-type"),
    (b"access-control-allow-origin", b"*"),
    (b"cache-control", b"max-age=0"),
    (b"cache-control", b"max-age=2592000"),
    (b"cache-control", b"max-age=604800"),
    (b"cache-control", b"no-cache"),
    (b"cache-control", b"no-store"),
    (b"cache-control", b"public, max-age=31536000"),
    (b"content-encoding", b"br"),
    (b"content-encoding", b"gzip"),
    (b"content-type", b"application/dns-message"),
    (b"content-type", b"application/javascript"),
    (b"content-type", b"application/json"),
    (b"content-type", b"application/x-www-form-urlencoded"),
    (b"content-type", b"image/gif"),
    (b"content-type", b"image/jpeg"),
    (b"content-type", b"image/png"),
    (b"content-type", b"text/css"),
    (b"content-type", b"text/html; charset=utf-8"),
    (b"content-type", b"text/plain"),
    (b"content-type", b"text/plain;charset=utf-8"),
    (b"range", b"bytes=0-"),
    (b"strict-transport-security", b"max-age=31536000"),
    (
        b"strict-transport-security",
        b"max-age=31536000; includesubdomains",
    ),
    (
        b"strict-transport-security",
        b"max-age=31536000; includesubdomains; preload",
    ),
    (b"vary", b"accept-encoding"),
    (b"vary", b"origin"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-xss-protection", b"1; mode=block"),
    (b":status", b"100"),
    (b":status", b"204"),
    (b":status", b"206"),
    (b":status", b"302"),
    (b":status", b"400"),
    (b":status", b"403"),
    (b":status", b"421"),
    (b":status", b"425"),
    (b":status", b"500"),
    (b"accept-language", b""),
    (b"access-control-allow-credentials", b"FALSE"),
    (b"access-control-allow-credentials", b"TRUE"),
    (b"access-control-allow-headers", b"*"),
    (b"access-control-allow-methods", b"get"),
    (b"access-control-allow-methods", b"get, post, options"),
    (b"access-control-allow-methods", b"options"),
    (b"access-control-expose-headers", b"content-length"),
    (b"access-control-request-headers", b"content-type"),
    (b"access-control-request-method", b"get"),
    (b"access-control-request-method", b"post"),
    (b"alt-svc", b"clear"),
    (b"authorization", b""),
    (
        b"content-security-policy",
        b"script-src 'none'; object-src 'none'; base-uri 'none'",
    ),
    (b"early-data", b"1"),
    (b"expect-ct", b""),
    (b"forwarded", b""),
    (b"if-range", b""),
    (b"origin", b""),
    (b"purpose", b"prefetch"),
    (b"server", b""),
    (b"timing-allow-origin", b"*"),
    (b"upgrade-insecure-requests", b"1"),
    (b"user-agent", b""),
    (b"x-forwarded-for", b""),
    (b"x-frame-options", b"deny"),
    (b"x-frame-options", b"sameorigin"),
];

/// The static table's index of `name` (and whether `value` matched there too): an exact match
/// if there is one, else the first entry with the name.
pub fn static_index(name: &[u8], value: &[u8]) -> Option<(usize, bool)> {
    let mut by_name = None;
    for (i, (n, v)) in STATIC.iter().enumerate() {
        if *n == name {
            if *v == value {
                return Some((i, true));
            }
            by_name.get_or_insert((i, false));
        }
    }
    by_name
}

/// A decoder's dynamic table: oldest entry first, each entry's name and value in one buffer.
#[derive(Debug, Default)]
pub struct Dynamic {
    entries: VecDeque<(Box<[u8]>, usize)>,
    /// Entries evicted so far: the absolute index of the oldest entry held.
    evicted: u64,
    size: u64,
    capacity: u64,
    /// The SETTINGS_QPACK_MAX_TABLE_CAPACITY this side announced.
    max_capacity: u64,
}

impl Dynamic {
    pub fn new(max_capacity: u64) -> Dynamic {
        Dynamic {
            max_capacity,
            ..Dynamic::default()
        }
    }

    /// Inserts made so far (the next entry's absolute index).
    pub fn insert_count(&self) -> u64 {
        self.evicted + self.entries.len() as u64
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    pub fn max_capacity(&self) -> u64 {
        self.max_capacity
    }

    /// The entry of absolute index `abs`, if it is held.
    pub fn get(&self, abs: u64) -> Option<(&[u8], &[u8])> {
        let i = usize::try_from(abs.checked_sub(self.evicted)?).ok()?;
        self.entries.get(i).map(|(b, n)| b.split_at(*n))
    }

    fn evict_to(&mut self, size: u64) {
        while self.size > size {
            let (b, _) = self.entries.pop_front().expect("size > 0 means entries");
            self.size -= b.len() as u64 + 32;
            self.evicted += 1;
        }
    }

    /// Set Dynamic Table Capacity (§4.3.1): above the announced maximum is an error.
    pub fn set_capacity(&mut self, capacity: u64) -> Result<(), QpackError> {
        if capacity > self.max_capacity {
            return Err(QpackError::EncoderStream(
                "capacity above the announced maximum",
            ));
        }
        self.capacity = capacity;
        self.evict_to(capacity);
        Ok(())
    }

    /// Inserts an entry, evicting the oldest as needed; one larger than the capacity is an
    /// error (§3.2.2).
    pub fn insert(&mut self, name: &[u8], value: &[u8]) -> Result<(), QpackError> {
        let size = entry_size(name, value);
        if size > self.capacity {
            return Err(QpackError::EncoderStream("entry larger than the table"));
        }
        self.evict_to(self.capacity - size);
        let mut b = Vec::with_capacity(name.len() + value.len());
        b.extend_from_slice(name);
        b.extend_from_slice(value);
        self.entries.push_back((b.into_boxed_slice(), name.len()));
        self.size += size;
        Ok(())
    }
}
