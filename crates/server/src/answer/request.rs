//! What an answer knows of its request and of the server: the request once its head is gone
//! ([`Req`], routed by [`route_request`]), `/headers`' document, and the server-wide things an
//! answer uses ([`Env`]).

use crate::grpc::fault as grpc_fault;
use crate::pattern;
use crate::route::{route, Route};
use crate::Shared;
use std::collections::HashMap;
use std::time::Instant;

/// What a response needs of its request once the head is gone.
#[derive(Debug)]
pub(crate) struct Req {
    pub is_head: bool,
    /// `METHOD target` when the access log is on.
    pub log: Option<Box<str>>,
}

/// The server-wide things an answer uses: the clock reading of this turn, the service slots,
/// the log, the limits, and the memo of `/bytes` checksums.
pub(crate) struct Env<'a> {
    pub shared: &'a Shared,
    pub now: Instant,
    pub checksums: &'a mut Checksums,
}

/// The `X-Checksum` of `/bytes/{n}` bodies, memoised (huge bodies take a few combinations).
#[derive(Default)]
pub(crate) struct Checksums(HashMap<u64, String>);

impl Checksums {
    pub(crate) fn of(&mut self, n: u64) -> String {
        if self.0.len() > 1024 {
            self.0.clear();
        }
        self.0
            .entry(n)
            .or_insert_with(|| pattern::checksum(n))
            .clone()
    }
}

/// Routes a request (with `--fault-rate`'s pick, from the server-wide sequence) and makes what
/// its answer needs to know of it.
pub(crate) fn route_request(
    shared: &Shared,
    method: &str,
    target: &str,
    headers_json: impl FnOnce() -> Vec<u8>,
) -> (Route, Req) {
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (target, None),
    };
    routed(
        shared,
        method,
        target,
        route(method, path, query, headers_json),
    )
}

/// Routes a gRPC call (its method from the path, the fault its `x-barrage-fault` metadata asks
/// for: a reset or a stall is the stream's [`Route::Fault`]; its head's `grpc-encoding` and
/// `grpc-timeout`, [`grpc_fault::with_head`]) as [`route_request`] routes a request.
pub(crate) fn route_call(
    shared: &Shared,
    method: &str,
    target: &str,
    head: grpc_fault::Head<'_>,
) -> (Route, Req) {
    let call = crate::grpc::method(target);
    let rt = match head.fault.map(grpc_fault::asked) {
        Some(grpc_fault::Asked::Stream(f)) => Route::Fault(f),
        Some(grpc_fault::Asked::Call(f)) => {
            let (f, enc) = grpc_fault::with_head(Some(f), &head);
            Route::Grpc(call, f, enc)
        }
        None => {
            let (f, enc) = grpc_fault::with_head(None, &head);
            Route::Grpc(call, f, enc)
        }
    };
    routed(shared, method, target, rt)
}

/// A routed request with `--fault-rate`'s pick, and what its answer needs of it.
fn routed(shared: &Shared, method: &str, target: &str, mut rt: Route) -> (Route, Req) {
    if let Some(f) = crate::worker::pick_fault(shared) {
        rt = Route::Fault(f);
    }
    let req = Req {
        is_head: method == "HEAD",
        log: shared
            .cfg
            .log
            .then(|| format!("{method} {target}").into_boxed_str()),
    };
    (rt, req)
}

/// A request whose head could not be read (too large, malformed): logged as `- -`.
pub(crate) fn unnamed(shared: &Shared) -> Req {
    Req {
        is_head: false,
        log: shared.cfg.log.then(|| "- -".into()),
    }
}

/// `/headers`: the request line and headers as JSON, in order, duplicates kept; `version` as
/// the protocol names itself (`HTTP/1.1`, `HTTP/2`, `HTTP/3`), pseudo-header fields left out.
pub(crate) fn headers_json<'h>(
    method: &str,
    target: &str,
    version: &str,
    headers: impl Iterator<Item = (&'h str, &'h [u8])>,
) -> Vec<u8> {
    let headers: Vec<serde_json::Value> = headers
        .map(|(name, value)| serde_json::json!([name, String::from_utf8_lossy(value)]))
        .collect();
    let v = serde_json::json!({
        "method": method,
        "target": target,
        "version": version,
        "headers": headers,
    });
    serde_json::to_vec(&v).unwrap_or_default()
}
