//! The `script_requests` harness: what a wrk script's `request()` returns, split into requests
//! (`barrage_script::split_requests`, used by `barrage load -s`). Any input: no panic; when it
//! splits, the spans lie back to back over the whole text, in order, and each span alone parses
//! as exactly its request (an HTTP/1.1 connection writes those bytes as they are).

pub fn run(data: &[u8]) {
    let Ok(split) = barrage_script::split_requests(data) else {
        return;
    };
    assert!(!split.is_empty(), "at least one request");
    let mut at = 0;
    for (req, span) in &split {
        assert_eq!(span.start, at, "back to back");
        assert!(span.end > span.start && span.end <= data.len());
        at = span.end;
        let alone = barrage_script::parse_requests(&data[span.clone()]).expect("a span parses");
        assert_eq!(alone.len(), 1, "a span is one request");
        assert_eq!(&alone[0], req);
    }
    assert_eq!(at, data.len(), "the spans cover the text");
    let parsed = barrage_script::parse_requests(data).expect("parses as it split");
    assert_eq!(parsed.len(), split.len());
}
