//! A gRPC call through the answers ([`crate::grpc::Call`] holds what it is): its head as soon as
//! the call is routed (or a trailers-only status for a method not served), its reply messages as
//! the stream takes them, its trailers (`grpc-status`, `grpc-message`) once the reply is whole.
//! The access log line is written with the call's end, with HTTP status 200 as gRPC answers it.
//! The faults a call asks for in its metadata ([`crate::grpc::fault`]) are acted out here: a
//! trailers-only status instead of the head, a status instead of the reply, the reply held
//! until a delay's timer (the same service slots as `/sleep`), or the status DEADLINE_EXCEEDED
//! at the call's deadline (`grpc-timeout`) when the delay would outlast it.

use super::{finish, Env, Extra, Owed, Pending, Reply, Req};
use crate::grpc::fault::CallFault;
use crate::grpc::{unimplemented, Call, Ended, Method};
use crate::respond::BodyLen;
use barrage_wire::grpc::status::encode_message;
use barrage_wire::grpc::{Code, Encoding};
use std::time::Duration;

const GRPC: &str = "application/grpc";

/// A call's head and the fault its metadata asked for: the call owed, or `None` when it is
/// answered already (trailers-only).
pub(super) fn start<K: Copy>(
    k: K,
    (m, encoding): (Method, Encoding),
    fault: Option<CallFault>,
    req: Req,
    r: &mut impl Reply<K>,
    env: &mut Env<'_>,
) -> Option<Pending> {
    let trailers_only = match &fault {
        Some(CallFault::TrailersOnly(code)) => Some(*code),
        _ if m == Method::Unimplemented => Some(unimplemented().code),
        _ => None,
    };
    if let Some(code) = trailers_only {
        let code = code.as_u32().to_string();
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
    let mut call = Call::new(m).with_encoding(encoding);
    let mut until = None;
    let at_once = match fault {
        Some(CallFault::Status(e)) => {
            call.fail(e);
            true
        }
        Some(CallFault::Delay(ms)) => {
            until = Some(env.shared.sleep_until(env.now, Duration::from_millis(ms)));
            false
        }
        Some(CallFault::Deadline(d)) => {
            // The delay asked for outlasts the call's deadline: the status at the deadline.
            call.fail(Ended::err(Code::DeadlineExceeded, "deadline exceeded"));
            until = Some(env.shared.sleep_until(env.now, d));
            false
        }
        _ => false,
    };
    let p = Pending {
        owed: Owed::Grpc {
            call: Box::new(call),
            until,
        },
        req,
        status: 200,
    };
    // A status asked for goes out now, whatever the client sends (or does not).
    if at_once {
        return pump(k, p, r);
    }
    Some(p)
}

/// Sends what the stream takes of the reply; the trailers once it is whole. `None`: done.
pub(super) fn pump<K: Copy>(k: K, mut p: Pending, r: &mut impl Reply<K>) -> Option<Pending> {
    (!flush(k, &mut p, r)).then_some(p)
}

/// [`pump`] in place: true when the call is done.
pub(super) fn flush<K: Copy>(k: K, p: &mut Pending, r: &mut impl Reply<K>) -> bool {
    let Owed::Grpc { call, until } = &mut p.owed else {
        return false;
    };
    if until.is_some() {
        // Delayed: nothing goes before the timer; the client is not read while replies wait.
        if call.held() > 0 && !call.ended() {
            r.hold(k, true);
        }
        return false;
    }
    loop {
        let out = call.pending();
        if out.is_empty() {
            break;
        }
        // What the stream takes now, under the connection's high-water mark too: a reply is
        // made no faster than it leaves.
        let room = r.room(k).min(out.len());
        let sent = if room == 0 {
            0
        } else {
            r.data(k, &out[..room], false)
        };
        call.sent(sent);
        if sent == 0 {
            // The stream takes no more now: stop reading the client until it does (not while
            // bodies merely wait for the end of the input: the pump after it goes on).
            if !call.ended() && !r.deferring() {
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
