//! Pipelined requests are answered in order, also around slow answers.

use crate::common;
use common::*;

#[test]
fn sixteen_deep_in_order() {
    let s = server();
    let mut c = Reader::new(connect(s.local_addr()));
    let mut batch = Vec::new();
    let targets: Vec<String> = (0..16)
        .map(|i| match i % 4 {
            0 => "/".to_string(),
            1 => format!("/status/{}", 200 + i),
            2 => format!("/bytes/{i}"),
            _ => "/json".to_string(),
        })
        .collect();
    for t in &targets {
        batch.extend_from_slice(format!("GET {t} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes());
    }
    c.send(&batch);
    for (i, t) in targets.iter().enumerate() {
        let r = c.response(false).unwrap();
        match i % 4 {
            0 => assert_eq!(r.body, b"Hello, World!"),
            1 => assert_eq!(r.status as usize, 200 + i, "{t}"),
            2 => assert_eq!(r.body.len(), i, "{t}"),
            _ => assert!(r.body.starts_with(b"{")),
        }
    }
    s.shutdown();
}

#[test]
fn slow_answers_keep_the_order() {
    let s = server();
    let mut c = Reader::new(connect(s.local_addr()));
    c.send(
        concat!(
            "GET /sleep/100 HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET /bytes/300000 HTTP/1.1\r\nHost: t\r\n\r\n",
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc",
            "GET /fault/drip?bytes=3&every=10 HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET /sleep/0 HTTP/1.1\r\nHost: t\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: t\r\n\r\n",
        )
        .as_bytes(),
    );
    assert_eq!(c.response(false).unwrap().text(), "slept 100 ms\n");
    assert_eq!(c.response(false).unwrap().body.len(), 300_000);
    assert_eq!(c.response(false).unwrap().text(), "abc");
    assert_eq!(c.response(false).unwrap().body, [0, 1, 2]);
    assert_eq!(c.response(false).unwrap().text(), "slept 0 ms\n");
    assert_eq!(c.response(false).unwrap().text(), "Hello, World!");
    s.shutdown();
}

#[test]
fn thousands_pipelined_with_a_slow_reader() {
    // More responses than the socket buffers hold: the server must apply backpressure, not
    // drop or reorder anything.
    let s = server();
    let mut c = Reader::new(connect(s.local_addr()));
    let n = 20_000;
    let one = b"GET /json HTTP/1.1\r\nHost: t\r\n\r\n";
    let batch: Vec<u8> = one.iter().copied().cycle().take(one.len() * n).collect();
    let mut w = c.stream.try_clone().unwrap();
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut w, &batch).unwrap());
    std::thread::sleep(std::time::Duration::from_millis(200));
    for _ in 0..n {
        assert_eq!(c.response(false).unwrap().status, 200);
    }
    writer.join().unwrap();
    s.shutdown();
}
