//! The faults a gRPC call asks for in its metadata (gRPC clients set metadata, not paths):
//! `x-barrage-fault: VALUE`, read when the call is routed. Pure and table-tested.
//!
//! A reset or a stall is the stream's, the same [`Fault`] as `/fault/reset` and `/fault/stall`
//! (acted out by the answers for every route); a status, a trailers-only status or a delay is
//! the call's ([`CallFault`], acted out by `answer::call`). A value that names no fault ends the
//! call with `INVALID_ARGUMENT` saying why, never with its answer.

use super::Ended;
use crate::route::{Fault, MAX_SLEEP_MS};
use barrage_wire::grpc::Code;

/// The metadata key a call asks for a fault with.
pub(crate) const HEADER: &str = "x-barrage-fault";

/// A fault acted out on a call's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CallFault {
    /// The call ends with this status (after its head, with no reply message).
    Status(Ended),
    /// A trailers-only response with this code: one HEADERS with `grpc-status`, END_STREAM.
    TrailersOnly(Code),
    /// The reply (its messages and its status) no sooner than this many ms after the call
    /// came, in a service slot as `/sleep/MS`.
    Delay(u64),
}

/// What a call's `x-barrage-fault` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Asked {
    Call(CallFault),
    /// The stream's fault (reset or stall), as the HTTP endpoints'.
    Stream(Fault),
}

const VALUES: &str = "x-barrage-fault takes status=CODE[&message=TEXT], trailers-only=CODE, \
                      delay=MS, reset or stall (CODE 0 to 16, MS 0 to 3600000)";

/// What `value` asks for; a value that names no fault is the call's `INVALID_ARGUMENT`.
pub(crate) fn asked(value: &[u8]) -> Asked {
    parse(value).unwrap_or_else(|| {
        Asked::Call(CallFault::Status(Ended::err(Code::InvalidArgument, VALUES)))
    })
}

fn parse(value: &[u8]) -> Option<Asked> {
    let v = std::str::from_utf8(value).ok()?.trim();
    let code = |s: &str| s.parse::<u32>().ok().and_then(Code::from_u32);
    Some(match v {
        "reset" => Asked::Stream(Fault::Reset),
        "stall" => Asked::Stream(Fault::Stall),
        _ => {
            let (key, rest) = v.split_once('=')?;
            Asked::Call(match key {
                "status" => {
                    // The message is the rest of the value, `&` and `=` included.
                    let (c, message) = match rest.split_once("&message=") {
                        Some((c, m)) => (c, m),
                        None => (rest, ""),
                    };
                    CallFault::Status(Ended::err(code(c)?, message))
                }
                "trailers-only" => CallFault::TrailersOnly(code(rest)?),
                "delay" => {
                    let ms: u64 = rest.parse().ok()?;
                    CallFault::Delay((ms <= MAX_SLEEP_MS).then_some(ms)?)
                }
                _ => return None,
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_name_their_fault_and_others_are_invalid_argument() {
        let status = |c, m: &str| Asked::Call(CallFault::Status(Ended::err(c, m)));
        let bad = status(Code::InvalidArgument, VALUES);
        let cases: &[(&[u8], Asked)] = &[
            (b"reset", Asked::Stream(Fault::Reset)),
            (b"stall", Asked::Stream(Fault::Stall)),
            (b" stall ", Asked::Stream(Fault::Stall)),
            (b"status=14", status(Code::Unavailable, "")),
            (b"status=0", status(Code::Ok, "")),
            (b"status=16", status(Code::Unauthenticated, "")),
            (
                b"status=8&message=slow down & wait=1",
                status(Code::ResourceExhausted, "slow down & wait=1"),
            ),
            (
                b"trailers-only=7",
                Asked::Call(CallFault::TrailersOnly(Code::PermissionDenied)),
            ),
            (b"delay=0", Asked::Call(CallFault::Delay(0))),
            (b"delay=3600000", Asked::Call(CallFault::Delay(3_600_000))),
            (b"delay=3600001", bad.clone()),
            (b"delay=-1", bad.clone()),
            (b"status=17", bad.clone()),
            (b"status=", bad.clone()),
            (b"status=x&message=m", bad.clone()),
            (b"trailers-only=17", bad.clone()),
            (b"trailers-only", bad.clone()),
            (b"resetx", bad.clone()),
            (b"close", bad.clone()),
            (b"", bad.clone()),
            (b"\xff", bad.clone()),
        ];
        for (v, want) in cases {
            assert_eq!(&asked(v), want, "{:?}", String::from_utf8_lossy(v));
        }
    }
}
