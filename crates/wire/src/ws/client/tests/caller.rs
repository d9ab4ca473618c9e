//! What the session takes from its caller rather than from the system: the time (the
//! handshake's, and its deadline) and, when the system's random source fails, the keys' seed.

use super::*;

/// The session's time is the caller's: the handshake is timed from the `since` given to the
/// instant the 101 is fed at, and its deadline is `since` + the timeout on the instants passed.
/// They are an hour ahead of the wall clock, which the session never looks at.
#[test]
fn the_handshake_runs_on_the_callers_clock() {
    let st = setup(1);
    let base = Instant::now() + Duration::from_secs(3600);
    let mut c = Conn::new(&st);
    let resp = upgrade(&mut c, base);
    c.feed(base + Duration::from_millis(7), &resp, &mut |_| {})
        .unwrap();
    let mut counts = AllCounts::default();
    c.take_counts(&mut counts);
    assert_eq!((counts.ws.handshakes, counts.ws.handshake_us), (1, 7_000));

    let mut c = Conn::new(&st);
    upgrade(&mut c, base);
    let mut none = |e: End<T>| panic!("no message was open: {e:?}");
    assert!(
        c.expire(base + st.timeout, &mut none).is_ok(),
        "at the deadline"
    );
    let e = c
        .expire(base + st.timeout + Duration::from_nanos(1), &mut none)
        .unwrap_err();
    assert_eq!(e.class, ErrorClass::Connect, "{e}");
}

/// Without the system's random source, keys and masks come from the caller's seed: the same
/// seed gives the same first draw, and every draw after it differs (no two connections share
/// a key).
#[test]
fn keys_without_the_system_source_come_from_the_callers_seed() {
    let (a, b) = (AtomicU64::new(42), AtomicU64::new(42));
    assert_eq!(drawn(&a), drawn(&b));
    let mut seen: Vec<([u8; 16], u64)> = (0..1000).map(|_| drawn(&a)).collect();
    seen.push(drawn(&AtomicU64::new(43)));
    let mut keys: Vec<[u8; 16]> = seen.iter().map(|d| d.0).collect();
    let mut masks: Vec<u64> = seen.iter().map(|d| d.1).collect();
    keys.sort_unstable();
    keys.dedup();
    masks.sort_unstable();
    masks.dedup();
    assert_eq!((keys.len(), masks.len()), (seen.len(), seen.len()));
}
