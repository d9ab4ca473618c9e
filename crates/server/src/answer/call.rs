//! A gRPC call through the answers ([`crate::grpc::Call`] holds what it is): its head as soon as
//! the call is routed (or a trailers-only status for a method not served), its reply messages as
//! the stream takes them, its trailers (`grpc-status`, `grpc-message`) once the reply is whole.
//! The access log line is written with the call's end, with HTTP status 200 as gRPC answers it.

use super::{finish, Extra, Owed, Pending, Reply, Req};
use crate::grpc::{unimplemented, Call, Method};
use crate::respond::BodyLen;
use barrage_wire::grpc::status::encode_message;

const GRPC: &str = "application/grpc";

/// A call's head: the call owed, or `None` when it is answered already (trailers-only).
pub(super) fn start<K: Copy>(k: K, m: Method, req: Req, r: &mut impl Reply<K>) -> Option<Pending> {
    if m == Method::Unimplemented {
        let code = unimplemented().code.as_u32().to_string();
        r.head(
            k,
            200,
            GRPC,
            BodyLen::Chunked,
            Extra::GrpcStatus(&code),
            true,
        );
        finish(k, &req, 200, r);
        return None;
    }
    r.head(k, 200, GRPC, BodyLen::Chunked, Extra::None, false);
    Some(Pending {
        owed: Owed::Grpc(Box::new(Call::new(m))),
        req,
        status: 200,
    })
}

/// Sends what the stream takes of the reply; the trailers once it is whole. `None`: done.
pub(super) fn pump<K: Copy>(k: K, mut p: Pending, r: &mut impl Reply<K>) -> Option<Pending> {
    (!flush(k, &mut p, r)).then_some(p)
}

/// [`pump`] in place: true when the call is done.
pub(super) fn flush<K: Copy>(k: K, p: &mut Pending, r: &mut impl Reply<K>) -> bool {
    let Owed::Grpc(call) = &mut p.owed else {
        return false;
    };
    loop {
        let out = call.pending();
        if out.is_empty() {
            break;
        }
        let sent = r.data(k, out, false);
        call.sent(sent);
        if sent == 0 {
            // The stream takes no more now: stop reading the client until it does.
            if !call.ended() {
                r.hold(k, true);
            }
            return false;
        }
    }
    if !call.ended() {
        r.hold(k, false);
    }
    let Some(status) = call.done() else {
        return false;
    };
    let code = status.code.as_u32().to_string();
    let message = encode_message(&status.message);
    let mut fields: Vec<(&str, &[u8])> = vec![("grpc-status", code.as_bytes())];
    if !message.is_empty() {
        fields.push(("grpc-message", message.as_bytes()));
    }
    r.trailers(k, &fields);
    finish(k, &p.req, 200, r);
    true
}
