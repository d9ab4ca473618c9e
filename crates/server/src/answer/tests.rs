//! The one answer against a protocol whose flow control takes at most a few bytes at a time
//! (a recording [`Reply`]): what the flow control held back is owed and goes out as room
//! frees, a drip goes out byte by byte on its timer, an echo holds and resumes reading, and
//! every finished response writes exactly one log line, after its last byte; a gRPC call's
//! faults: a delay sends nothing before its timer, a status goes at once.

use super::*;
use crate::{ServerConfig, Shared};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::sync::{Arc, Mutex};

#[derive(Clone, Default)]
struct Buf(Arc<Mutex<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn shared(log: &Buf) -> Shared {
    Shared {
        cfg: ServerConfig {
            log: true,
            echo_limit: 100,
            ..ServerConfig::default()
        },
        stop: AtomicBool::new(false),
        active: AtomicUsize::new(0),
        fault_seq: AtomicU64::new(0),
        counters: Vec::new(),
        h3: Default::default(),
        tls: None,
        slots: None,
        alt_svc: None,
        log_to: Some(Mutex::new(Box::new(log.clone()))),
    }
}

/// A protocol that takes at most `room` body bytes per call and writes down what it did.
struct Record<'a> {
    shared: &'a Shared,
    room: usize,
    calls: Vec<String>,
    body: Vec<u8>,
}

impl Reply<()> for Record<'_> {
    fn head(&mut self, _: (), status: u16, _: &'static str, len: BodyLen, _: Extra<'_>, end: bool) {
        self.calls.push(format!("head {status} {len:?} end={end}"));
    }
    fn data(&mut self, _: (), data: &[u8], end: bool) -> usize {
        let n = data.len().min(self.room);
        self.body.extend_from_slice(&data[..n]);
        if end && n == data.len() {
            self.calls.push("end".into());
        }
        n
    }
    fn room(&self, _: ()) -> usize {
        self.room
    }
    fn act(&mut self, _: (), act: Act) {
        self.calls.push(format!("act {act:?}"));
    }
    fn hold(&mut self, _: (), held: bool) {
        self.calls.push(format!("hold {held}"));
    }
    fn trailers(&mut self, _: (), fields: &[(&str, &[u8])]) {
        let f: Vec<String> = fields
            .iter()
            .map(|(n, v)| format!("{n}={}", String::from_utf8_lossy(v)))
            .collect();
        self.calls.push(format!("trailers {}", f.join(" ")));
    }
    fn shared(&self) -> &Shared {
        self.shared
    }
}

fn req(line: &str) -> Req {
    Req {
        is_head: false,
        log: Some(line.into()),
    }
}

fn lines(log: &Buf) -> Vec<String> {
    let b = std::mem::take(&mut *log.0.lock().unwrap());
    String::from_utf8(b)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn a_body_held_back_goes_out_as_room_frees_and_is_logged_once_at_its_end() {
    let log = Buf::default();
    let s = shared(&log);
    let mut sums = Checksums::default();
    let now = Instant::now();
    let mut env = Env {
        shared: &s,
        now,
        checksums: &mut sums,
    };
    let mut r = Record {
        shared: &s,
        room: 4,
        calls: Vec::new(),
        body: Vec::new(),
    };
    // 10 bytes, 4 a call: owed after the first 4, then 4, then the last 2 with the end.
    let mut p = respond((), Route::NotFound, req("GET /nope"), &mut r, &mut env).unwrap();
    assert!(lines(&log).is_empty(), "not logged before its end");
    assert!(!pump((), &mut p, &mut r));
    assert!(pump((), &mut p, &mut r));
    assert_eq!(r.body, b"not found\n");
    assert_eq!(r.calls, ["head 404 Fixed(10) end=false", "end"]);
    assert_eq!(lines(&log), ["GET /nope 404"]);
    // `/bytes/10?chunked=1`: no length, the pattern 4 bytes a call while room lasts (here
    // always), the end on the last: done at once.
    r.calls.clear();
    r.body.clear();
    let bytes = Route::Bytes {
        n: 10,
        chunked: true,
        chunk: 1000,
    };
    assert!(respond((), bytes, req("GET /bytes"), &mut r, &mut env).is_none());
    assert_eq!(r.body, (0..10).map(pattern::byte_at).collect::<Vec<_>>());
    assert_eq!(r.calls, ["head 200 Chunked end=false", "end"]);
    assert_eq!(lines(&log), ["GET /bytes 200"]);
}

#[test]
fn a_drip_goes_out_byte_by_byte_on_its_timer() {
    let log = Buf::default();
    let s = shared(&log);
    let mut sums = Checksums::default();
    let now = Instant::now();
    let mut r = Record {
        shared: &s,
        room: 64,
        calls: Vec::new(),
        body: Vec::new(),
    };
    let drip = Route::Fault(Fault::Drip {
        bytes: 3,
        every_ms: 5,
    });
    let mut env = Env {
        shared: &s,
        now,
        checksums: &mut sums,
    };
    let mut p = respond((), drip, req("GET /fault/drip"), &mut r, &mut env).unwrap();
    let mut at = p.due().unwrap();
    assert_eq!(at, now + Duration::from_millis(5));
    // Early: nothing.
    env.now = at - Duration::from_millis(1);
    assert!(!fire((), &mut p, &mut r, &mut env));
    assert!(r.body.is_empty());
    for i in 1..=3 {
        env.now = at;
        let done = fire((), &mut p, &mut r, &mut env);
        assert_eq!(r.body.len(), i);
        assert_eq!(done, i == 3);
        if !done {
            at = p.due().unwrap();
            assert_eq!(at, env.now + Duration::from_millis(5));
        }
    }
    assert_eq!(r.body, [0, 1, 2]);
    assert_eq!(lines(&log), ["GET /fault/drip 200"]);
}

#[test]
fn an_echo_holds_what_its_stream_does_not_take_and_a_body_past_the_limit_is_cut() {
    let log = Buf::default();
    let s = shared(&log);
    let mut sums = Checksums::default();
    let mut env = Env {
        shared: &s,
        now: Instant::now(),
        checksums: &mut sums,
    };
    let mut r = Record {
        shared: &s,
        room: 4,
        calls: Vec::new(),
        body: Vec::new(),
    };
    let p = start(
        (),
        Route::Echo,
        req("POST /echo"),
        Some(Some(6)),
        &mut r,
        &mut env,
    )
    .unwrap();
    let mut p = body((), p, b"abcdef", false, &mut r, &mut env).unwrap();
    assert_eq!(p.held(), 2);
    // Caught up, reading resumes; the echo ends with the request's end.
    assert!(!pump((), &mut p, &mut r), "{:?}", r.calls);
    let p = end((), p, &mut r, &mut env);
    assert!(p.is_none());
    assert_eq!(r.body, b"abcdef");
    assert_eq!(
        r.calls,
        [
            "head 200 Fixed(6) end=false",
            "hold true",
            "hold false",
            "end"
        ]
    );
    assert_eq!(lines(&log), ["POST /echo 200"]);
    // Past the limit (100) once the head is out: cut short, no log line.
    r.calls.clear();
    r.room = 1000;
    let p = start(
        (),
        Route::Echo,
        req("POST /echo"),
        Some(None),
        &mut r,
        &mut env,
    )
    .unwrap();
    let p = body((), p, &[7; 60], false, &mut r, &mut env).unwrap();
    assert!(body((), p, &[7; 60], false, &mut r, &mut env).is_none());
    assert_eq!(r.calls, ["head 200 Chunked end=false", "act TooLarge"]);
    assert!(lines(&log).is_empty());
    // Declared past the limit: 413 before anything is read.
    r.calls.clear();
    let p = start(
        (),
        Route::Sink,
        req("POST /sink"),
        Some(Some(101)),
        &mut r,
        &mut env,
    );
    assert!(p.is_none());
    assert_eq!(r.calls, ["head 413 Fixed(23) end=false", "end"]);
    assert_eq!(lines(&log), ["POST /sink 413"]);
}

#[test]
fn a_delayed_call_sends_nothing_before_its_timer_and_a_status_fault_goes_at_once() {
    use crate::grpc::fault::CallFault;
    use crate::grpc::{Ended, Method};
    use barrage_wire::grpc::{Code, Encoding::Identity};
    let log = Buf::default();
    let s = shared(&log);
    let mut sums = Checksums::default();
    let now = Instant::now();
    let mut env = Env {
        shared: &s,
        now,
        checksums: &mut sums,
    };
    let mut r = Record {
        shared: &s,
        room: 1000,
        calls: Vec::new(),
        body: Vec::new(),
    };
    // Chat with `delay=50`: EchoRequest { payload: [1] } in, its echo held until the timer.
    let msg = [0, 0, 0, 0, 3, 0x0a, 1, 1];
    let chat = Route::Grpc(Method::Chat, Some(CallFault::Delay(50)), Identity);
    let line = "POST /barrage.test.v1.Test/Chat";
    let p = start((), chat, req(line), Some(None), &mut r, &mut env).unwrap();
    let at = p.due().unwrap();
    assert_eq!(at, now + Duration::from_millis(50));
    let mut p = body((), p, &msg, false, &mut r, &mut env).unwrap();
    assert!(r.body.is_empty());
    env.now = at - Duration::from_millis(1);
    assert!(!fire((), &mut p, &mut r, &mut env));
    assert!(r.body.is_empty(), "nothing before the timer");
    env.now = at;
    assert!(!fire((), &mut p, &mut r, &mut env), "the call goes on");
    assert_eq!(r.body, msg, "the echo, once due");
    assert_eq!(p.due(), None);
    assert!(end((), p, &mut r, &mut env).is_none());
    assert_eq!(
        r.calls,
        [
            "head 200 Chunked end=false",
            "hold true",
            "hold false",
            "trailers grpc-status=0"
        ]
    );
    assert_eq!(lines(&log), [format!("{line} 200")]);
    // `status=14&message=m` on Echo: head and trailers at once, the body never read.
    r.calls.clear();
    r.body.clear();
    let status = CallFault::Status(Ended {
        code: Code::Unavailable,
        message: "m".into(),
    });
    let echo = Route::Grpc(Method::Echo, Some(status), Identity);
    assert!(start((), echo, req("POST /e"), Some(None), &mut r, &mut env).is_none());
    assert!(r.body.is_empty());
    assert_eq!(
        r.calls,
        [
            "head 200 Chunked end=false",
            "hold false",
            "trailers grpc-status=14 grpc-message=m"
        ]
    );
    // `trailers-only=7`: the head is the end.
    r.calls.clear();
    let only = Route::Grpc(
        Method::Echo,
        Some(CallFault::TrailersOnly(Code::PermissionDenied)),
        Identity,
    );
    assert!(start((), only, req("POST /e"), Some(None), &mut r, &mut env).is_none());
    assert_eq!(r.calls, ["head 200 Chunked end=true"]);
    assert_eq!(lines(&log), ["POST /e 200", "POST /e 200"]);
}
