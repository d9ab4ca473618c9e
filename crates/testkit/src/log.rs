//! A server's access log kept in memory for the test that started the server in process
//! (`barrage_server::start_with_log`), read line by line.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The access log: a writer the server holds and the test reads.
#[derive(Clone, Default)]
pub struct AccessLog(Arc<Mutex<Vec<u8>>>);

impl Write for AccessLog {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl AccessLog {
    /// The lines written since the last call, once there are `n`, or after 10 s. The server
    /// writes a response's line when the response is complete, which for a body written
    /// straight to the socket is after its last byte left: the client (and the test) may have
    /// the response first.
    pub fn take_n(&self, n: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self
            .0
            .lock()
            .unwrap()
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            < n
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(1));
        }
        let bytes = std::mem::take(&mut *self.0.lock().unwrap());
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }
}
