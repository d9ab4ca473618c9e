//! Draining a child's stdout/stderr pipe on a thread so the child never blocks on a full pipe,
//! keeping either the first N bytes (stdout, for validation) or the last N bytes (stderr tail).

use std::collections::VecDeque;
use std::io::Read;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// What to keep of the stream.
#[derive(Debug, Clone, Copy)]
pub(super) enum Keep {
    Head(usize),
    Tail(usize),
}

/// A reader thread. [`Reader::finish`] waits for EOF (reached when every process holding the
/// pipe's write end has exited, which the supervisor ensures first) but at most a few seconds: a
/// process that escaped the tree and still holds the pipe must not hang barrage.
pub(super) struct Reader {
    shared: Arc<(Mutex<State>, Condvar)>,
}

#[derive(Default)]
struct State {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
    truncated: bool,
    done: bool,
}

/// How long [`Reader::finish`] waits for EOF.
const FINISH_WAIT: Duration = Duration::from_secs(3);

impl Reader {
    pub(super) fn start<R: Read + Send + 'static>(mut r: R, keep: Keep) -> Reader {
        let shared = Arc::new((Mutex::new(State::default()), Condvar::new()));
        let sh = shared.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 16 * 1024];
            loop {
                let n = match r.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                let mut st = sh.0.lock().unwrap_or_else(|e| e.into_inner());
                st.total += n as u64;
                match keep {
                    Keep::Head(limit) => {
                        let room = limit.saturating_sub(st.head.len());
                        st.head.extend_from_slice(&buf[..n.min(room)]);
                        st.truncated |= n > room;
                    }
                    Keep::Tail(limit) => {
                        st.tail.extend(&buf[..n]);
                        if st.tail.len() > limit {
                            let drop = st.tail.len() - limit;
                            st.tail.drain(..drop);
                            st.truncated = true;
                        }
                    }
                }
            }
            let mut st = sh.0.lock().unwrap_or_else(|e| e.into_inner());
            st.done = true;
            sh.1.notify_all();
        });
        Reader { shared }
    }

    /// The kept bytes, the total byte count, and whether bytes were dropped.
    pub(super) fn finish(self) -> (Vec<u8>, u64, bool) {
        let end = Instant::now() + FINISH_WAIT;
        let mut st = self.shared.0.lock().unwrap_or_else(|e| e.into_inner());
        while !st.done {
            let now = Instant::now();
            if now >= end {
                break;
            }
            st = self
                .shared
                .1
                .wait_timeout(st, end - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        let mut bytes = std::mem::take(&mut st.head);
        bytes.extend(st.tail.drain(..));
        (bytes, st.total, st.truncated)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_and_tail() {
        let data: Vec<u8> = (0..100u8).collect();
        let (h, total, trunc) =
            Reader::start(std::io::Cursor::new(data.clone()), Keep::Head(10)).finish();
        assert_eq!((h, total, trunc), ((0..10u8).collect(), 100, true));
        let (t, total, trunc) = Reader::start(std::io::Cursor::new(data), Keep::Tail(10)).finish();
        assert_eq!((t, total, trunc), ((90..100u8).collect(), 100, true));
    }
}
