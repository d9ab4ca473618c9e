//! An echo server's contract broken (issue 38): each a counted error of a named class, never a
//! success, with the counts adding up (the harness in main.rs checks them for every case).
//!
//! Before: two replies to one message dropped the connection and counted nothing (a run of 240
//! reconnects reported 0 errors); a Close (or the end of the stream) right behind the 101
//! counted neither a success nor an error; a wrong echo was a success unless `--expect-body`
//! was given; and no reply could be longer than 16 MiB, each held whole.

use super::peer::{Hostile, BIG_REPLY};
use super::{against_with, only};
use barrage_engine::ErrorClass;
use std::time::Duration;

#[test]
fn two_replies_to_one_message_are_unasked_once_per_connection() {
    let mode = Hostile::EchoTwice;
    let (r, _, _) = against_with(mode, |c| c.expect_body = None);
    // The first reply answers the message; the second answers nothing and ends the connection.
    assert!(r.requests > 0, "{:?}", r.errors);
    assert!(
        r.errors[ErrorClass::Unasked] > 0,
        "{:?} {:?}",
        r.errors,
        r.error_examples
    );
    assert_eq!(
        r.errors.total(),
        r.errors[ErrorClass::Unasked],
        "{:?}",
        r.errors
    );
    assert!(
        r.error_examples["unasked"].contains("none in flight"),
        "{:?}",
        r.error_examples
    );
    // One per connection: each connection but those the run's end cut (2 at most) saw its
    // second reply, and none saw two.
    assert!(
        r.errors[ErrorClass::Unasked] <= r.connects
            && r.errors[ErrorClass::Unasked] + 2 >= r.connects,
        "{} unasked over {} connects",
        r.errors[ErrorClass::Unasked],
        r.connects
    );
    // Unasked replies answer no message: every message written is answered or in flight.
    assert_eq!(r.requests_written, r.requests + r.in_flight);
}

/// A Close right behind the 101 (in the same write, so the client reads both at once): no
/// message was sent, and the connection is a failed one, counted once.
#[test]
fn a_close_right_after_the_upgrade_is_a_failed_connection() {
    let mode = Hostile::CloseAfterUpgrade;
    let (r, _, closes) = against_with(mode, |c| c.expect_body = None);
    only(mode, &r, "connect", "before any message");
    assert_eq!(r.requests_written, 0);
    // Each attempt fails at once and the next waits a growing backoff.
    assert!(r.errors[ErrorClass::Connect] < 60, "{:?}", r.errors);
    // The client answered each Close with its own, the same code.
    assert!(
        !closes.is_empty() && closes.iter().all(|&c| c == 1000),
        "{closes:?}"
    );
}

/// The end of the stream right after the 101: a failed connection when the client sees it
/// with the 101, else the end of the message it had sent by then (a reset); never nothing.
#[test]
fn the_end_of_the_stream_right_after_the_upgrade_is_counted() {
    let mode = Hostile::DropAfterUpgrade;
    let (r, _, _) = against_with(mode, |c| c.expect_body = None);
    assert_eq!(r.requests, 0);
    assert!(r.errors.total() > 0, "{:?}", r.errors);
    assert_eq!(
        r.errors.total(),
        r.errors[ErrorClass::Connect] + r.errors[ErrorClass::Reset],
        "{:?}",
        r.errors
    );
    assert_eq!(
        r.errors[ErrorClass::Reset],
        r.requests_written - r.in_flight
    );
    if r.errors[ErrorClass::Connect] > 0 {
        assert!(
            r.error_examples["connect"].contains("before any message"),
            "{:?}",
            r.error_examples
        );
    }
}

#[test]
fn a_wrong_echo_is_a_body_error_by_default_and_a_reply_with_no_echo_check() {
    let mode = Hostile::WrongEcho;
    let (r, _, _) = against_with(mode, |c| c.expect_body = None);
    assert_eq!(r.requests, 0, "no wrong echo is a success");
    assert!(r.errors[ErrorClass::Body] > 0, "{:?}", r.errors);
    assert_eq!(
        r.errors.total(),
        r.errors[ErrorClass::Body],
        "{:?}",
        r.errors
    );
    // Without the echo check, any reply answers its message.
    let (r, _, _) = against_with(mode, |c| {
        c.expect_body = None;
        c.protocol = barrage_engine::Protocol::Ws {
            pipeline: 1,
            max_message: 16 << 20,
            echo: false,
        };
    });
    assert!(r.requests > 0);
    assert_eq!(r.errors.total(), 0, "{:?}", r.errors);
}

/// Replies of 24 MiB (4 KiB fragments), past the 16 MiB every reply was once held to, under a
/// limit of 32 MiB: each is a reply, and 4 connections receiving them at once keep the heap
/// under 8 MiB. Bounded by a message count, not a duration, so every reply arrives whole.
#[test]
fn replies_longer_than_16_mib_stream_through_in_constant_memory() {
    let mode = Hostile::BigReply;
    let (r, peak, _) = against_with(mode, |c| {
        c.connections = 4;
        c.expect_body = None;
        c.protocol = barrage_engine::Protocol::Ws {
            pipeline: 1,
            max_message: 32 << 20,
            echo: false,
        };
        c.duration = None;
        c.requests = Some(4);
        c.timeout = Duration::from_secs(8);
    });
    assert_eq!(r.requests, 4, "{:?} {:?}", r.errors, r.error_examples);
    assert_eq!(r.errors.total(), 0, "{:?}", r.errors);
    assert!(r.bytes_read >= 4 * BIG_REPLY as u64, "{}", r.bytes_read);
    assert!(peak < 8 << 20, "peak live heap grew {peak} bytes");
    // Under the default limit the same reply is too large: its connection is closed.
    let (r, _, _) = against_with(mode, |c| c.expect_body = None);
    only(mode, &r, "message_too_large", "over the limit of 16777216");
}
