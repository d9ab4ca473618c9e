//! The faults a gRPC call asks for in its metadata (gRPC clients set metadata, not paths):
//! `x-barrage-fault: VALUE`, read when the call is routed. Pure and table-tested.
//!
//! A reset or a stall is the stream's, the same [`Fault`] as `/fault/reset` and `/fault/stall`
//! (acted out by the answers for every route); a status, a trailers-only status or a delay is
//! the call's ([`CallFault`], acted out by `answer::call`). A value that names no fault ends the
//! call with `INVALID_ARGUMENT` saying why, never with its answer. The call's head may change
//! what it gets ([`with_head`]): a delay past its deadline (`grpc-timeout`) ends at the
//! deadline with DEADLINE_EXCEEDED; an encoding not spoken is UNIMPLEMENTED.

use super::Ended;
use crate::route::{Fault, MAX_SLEEP_MS};
use barrage_wire::grpc::{timeout, Code, Encoding};
use std::time::Duration;

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
    /// A delay that outlasts the call's deadline (`grpc-timeout`): DEADLINE_EXCEEDED once the
    /// deadline passes, as a gRPC server ends a call whose deadline its handler outlives.
    Deadline(Duration),
}

/// What a call's head says beyond its method: its fault metadata, `grpc-encoding` and
/// `grpc-timeout` (each as it came).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Head<'a> {
    pub fault: Option<&'a [u8]>,
    pub encoding: Option<&'a [u8]>,
    pub timeout: Option<&'a [u8]>,
}

/// The call's fault once its head is read, and the encoding of its request messages: an
/// encoding this server does not speak is UNIMPLEMENTED, a malformed `grpc-timeout` INTERNAL
/// (as gRPC's servers answer them); a delay that would outlast the call's deadline ends at the
/// deadline instead ([`CallFault::Deadline`]).
pub(crate) fn with_head(
    fault: Option<CallFault>,
    head: &Head<'_>,
) -> (Option<CallFault>, Encoding) {
    let status = |c, m: String| {
        (
            Some(CallFault::Status(Ended::err(c, m))),
            Encoding::Identity,
        )
    };
    let encoding = match Encoding::parse(head.encoding) {
        Ok(e) => e,
        Err(e) => return status(Code::Unimplemented, format!("{e} (this server reads gzip)")),
    };
    let deadline = match head.timeout.map(timeout::parse) {
        None => None,
        Some(Ok(d)) => Some(d),
        Some(Err(e)) => return status(Code::Internal, e.to_string()),
    };
    let fault = match (fault, deadline) {
        (Some(CallFault::Delay(ms)), Some(d)) if d < Duration::from_millis(ms) => {
            Some(CallFault::Deadline(d))
        }
        (f, _) => f,
    };
    (fault, encoding)
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

    #[test]
    fn the_head_caps_a_delay_at_the_deadline_and_names_the_encoding() {
        let head = |t: Option<&'static [u8]>, e: Option<&'static [u8]>| Head {
            fault: None,
            encoding: e,
            timeout: t,
        };
        let delay = Some(CallFault::Delay(2000));
        let deadline = |ms| Some(CallFault::Deadline(Duration::from_millis(ms)));
        let cases: &[(
            Option<CallFault>,
            Head<'static>,
            Option<CallFault>,
            Encoding,
        )] = &[
            (
                delay.clone(),
                head(None, None),
                delay.clone(),
                Encoding::Identity,
            ),
            (
                delay.clone(),
                head(Some(b"100m"), None),
                deadline(100),
                Encoding::Identity,
            ),
            (
                delay.clone(),
                head(Some(b"2S"), None),
                delay.clone(),
                Encoding::Identity,
            ),
            (
                delay.clone(),
                head(Some(b"3S"), Some(b"gzip")),
                delay.clone(),
                Encoding::Gzip,
            ),
            (
                None,
                head(Some(b"1n"), Some(b"identity")),
                None,
                Encoding::Identity,
            ),
            (
                delay.clone(),
                head(Some(b"1x"), None),
                Some(CallFault::Status(Ended::err(
                    Code::Internal,
                    "grpc-timeout \"1x\" is not 1-8 digits and a unit (H M S m u n)",
                ))),
                Encoding::Identity,
            ),
            (
                None,
                head(None, Some(b"snappy")),
                Some(CallFault::Status(Ended::err(
                    Code::Unimplemented,
                    "unsupported grpc-encoding \"snappy\" (this server reads gzip)",
                ))),
                Encoding::Identity,
            ),
        ];
        for (fault, h, want, enc) in cases {
            assert_eq!(&with_head(fault.clone(), h), &(want.clone(), *enc), "{h:?}");
        }
    }
}
