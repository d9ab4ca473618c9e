//! A request of HTTP/2's client, encoded once for the whole run: its three header blocks (for
//! a connection whose server table holds its fields, one that does not yet, one whose table is
//! too small), its body, and whether it is a gRPC call.

use super::DEFAULT_TABLE;
use crate::h2::hpack::{self, Indexing};

/// One request, encoded once for every stream of every connection.
///
/// HPACK lets a connection's later requests refer to what its first one added to the server's
/// dynamic table, which is where h2's header savings come from (h2load counts them). So the
/// request has three header blocks: `first` adds every field the static table lacks (literals
/// with incremental indexing), `rest` names those entries by index, and `plain` (literals
/// without indexing) serves a server whose table is too small for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub(super) first: Vec<u8>,
    pub(super) rest: Vec<u8>,
    pub(super) plain: Vec<u8>,
    /// The dynamic-table space `first` takes (0 when the fields do not fit the default table).
    pub(super) table_bytes: usize,
    pub body: Vec<u8>,
    /// A HEAD request: its response has no content whatever its `content-length` says.
    pub(super) head: bool,
    /// A gRPC call: its response is read as gRPC's (messages of at most the first many bytes,
    /// exactly one of them when the second is true, a status in the trailers) and ends as
    /// [`super::End::Grpc`].
    pub(super) grpc: Option<(u32, bool)>,
}

impl Request {
    /// Encodes `method scheme://authority path` with `headers` (names are lower-cased; the
    /// connection-specific ones HTTP/1.1 uses are left out) and `body` (a `content-length` is
    /// added for a non-empty body unless given).
    pub fn new(
        method: &str,
        scheme: &str,
        authority: &str,
        path: &str,
        headers: &[(String, String)],
        body: &[u8],
    ) -> Request {
        let fields = crate::fields::request_fields(method, scheme, authority, path, headers, body);

        // Fields the static table holds whole are indexed in every block; the others enter the
        // dynamic table in order, so the last one added is index 62 and earlier ones follow it.
        let whole = |(n, v): &(Vec<u8>, Vec<u8>)| match hpack::static_index(n, v) {
            Some((i, true)) => Some(i),
            _ => None,
        };
        let mut later = fields.iter().filter(|f| whole(f).is_none()).count();
        let (mut first, mut rest, mut plain) = (Vec::new(), Vec::new(), Vec::new());
        let mut table_bytes = 0usize;
        for field in &fields {
            let (name, value) = field;
            if let Some(i) = whole(field) {
                for b in [&mut first, &mut rest, &mut plain] {
                    hpack::encode_indexed(b, i);
                }
                continue;
            }
            let ni = hpack::static_index(name, value).map_or(0, |(i, _)| i);
            hpack::encode_literal(&mut first, ni, name, value, Indexing::Incremental);
            hpack::encode_literal(&mut plain, ni, name, value, Indexing::Without);
            later -= 1;
            hpack::encode_indexed(&mut rest, 62 + later);
            table_bytes += hpack::entry_size(name, value);
        }
        if table_bytes > DEFAULT_TABLE {
            // Entries would evict each other within the first block: index nothing.
            first.clone_from(&plain);
            rest.clone_from(&plain);
            table_bytes = 0;
        }
        Request {
            first,
            rest,
            plain,
            table_bytes,
            body: body.to_vec(),
            head: method.eq_ignore_ascii_case("HEAD"),
            grpc: None,
        }
    }

    /// The same request as a gRPC call whose reply messages may be at most `max` bytes;
    /// `one_reply`: its method answers with exactly one (unary, client-streaming).
    pub fn grpc(mut self, max: u32, one_reply: bool) -> Request {
        self.grpc = Some((max, one_reply));
        self
    }

    /// The same request with every field a literal without indexing: what a connection that
    /// sends several different requests uses, since one request's `rest` would name entries
    /// another's `first` never added.
    pub fn without_indexing(mut self) -> Request {
        self.first.clone_from(&self.plain);
        self.rest.clone_from(&self.plain);
        self.table_bytes = 0;
        self
    }
}
