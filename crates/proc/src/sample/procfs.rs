//! Minimal, allocation-light readers for /proc: `/proc/PID/stat`, the pid list, `/proc/stat`,
//! `smaps_rollup`. Shared by the sampler and the supervisor (tree and group scans).

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;

/// The fields of `/proc/PID/stat` the lab uses (times in clock ticks, rss in pages).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Stat {
    pub pid: i32,
    pub comm: String,
    pub state: u8,
    pub ppid: i32,
    pub pgrp: i32,
    pub utime: u64,
    pub stime: u64,
    pub cutime: u64,
    pub cstime: u64,
    pub num_threads: u64,
    pub starttime: u64,
    pub rss_pages: u64,
}

/// Parse the text of `/proc/PID/stat`. The comm may contain spaces and parentheses, so the fields
/// are split after the *last* `)`.
pub fn parse_stat(text: &[u8]) -> Option<Stat> {
    let open = text.iter().position(|&b| b == b'(')?;
    let close = text.iter().rposition(|&b| b == b')')?;
    let pid = std::str::from_utf8(&text[..open])
        .ok()?
        .trim()
        .parse()
        .ok()?;
    let comm = String::from_utf8_lossy(&text[open + 1..close]).into_owned();
    let rest = std::str::from_utf8(&text[close + 1..]).ok()?;
    // Field numbers as in proc(5); the iterator starts at field 3 (state).
    let f: Vec<&str> = rest.split_ascii_whitespace().take(22).collect();
    if f.len() < 22 {
        return None;
    }
    let n = |i: usize| -> Option<u64> { f[i - 3].parse::<i64>().ok().map(|v| v.max(0) as u64) };
    Some(Stat {
        pid,
        comm,
        state: f[0].as_bytes().first().copied().unwrap_or(b'?'),
        ppid: f[4 - 3].parse().ok()?,
        pgrp: f[5 - 3].parse().ok()?,
        utime: n(14)?,
        stime: n(15)?,
        cutime: n(16)?,
        cstime: n(17)?,
        num_threads: n(20)?,
        starttime: n(22)?,
        rss_pages: n(24)?,
    })
}

/// Parse `/proc/PID/stat` into `out` without allocating (the comm is only re-copied when it
/// changed). Returns false if the text is malformed. This is the sampler's per-tick hot path.
pub fn parse_stat_into(text: &[u8], out: &mut Stat) -> bool {
    let Some(open) = text.iter().position(|&b| b == b'(') else {
        return false;
    };
    let Some(close) = text.iter().rposition(|&b| b == b')') else {
        return false;
    };
    let comm = &text[open + 1..close];
    if out.comm.as_bytes() != comm {
        out.comm = String::from_utf8_lossy(comm).into_owned();
    }
    let mut pid: i64 = 0;
    for &b in text[..open].iter().filter(|b| b.is_ascii_digit()) {
        pid = pid * 10 + (b - b'0') as i64;
    }
    out.pid = pid as i32;
    // Fields from 3 (state) on, separated by single spaces.
    let mut have = 0;
    let tokens = text[close + 1..]
        .split(|&b| b == b' ')
        .filter(|t| !t.is_empty());
    for (i, tok) in tokens.enumerate() {
        let field = i + 3;
        let num = || -> i64 {
            let (neg, digits) = match tok.first() {
                Some(b'-') => (true, &tok[1..]),
                _ => (false, tok),
            };
            let mut v: i64 = 0;
            for &b in digits {
                if b.is_ascii_digit() {
                    v = v.wrapping_mul(10).wrapping_add((b - b'0') as i64);
                }
            }
            if neg {
                -v
            } else {
                v
            }
        };
        let u = || num().max(0) as u64;
        match field {
            3 => out.state = tok[0],
            4 => out.ppid = num() as i32,
            5 => out.pgrp = num() as i32,
            14 => out.utime = u(),
            15 => out.stime = u(),
            16 => out.cutime = u(),
            17 => out.cstime = u(),
            20 => out.num_threads = u(),
            22 => out.starttime = u(),
            24 => {
                out.rss_pages = u();
                have = 24;
                break;
            }
            _ => {}
        }
    }
    have == 24
}

/// Re-read a kept-open `/proc/PID/stat` with one `pread` into `out` (no allocation).
pub fn pread_stat_into(f: &File, buf: &mut [u8], out: &mut Stat) -> bool {
    match f.read_at(buf, 0) {
        Ok(n) if n > 0 => parse_stat_into(&buf[..n], out),
        _ => false,
    }
}

/// Lists the numeric entries of /proc with raw `getdents64` on a kept-open directory fd and a
/// reused buffer (no allocation per entry, unlike `read_dir`).
pub struct PidLister {
    fd: std::os::fd::OwnedFd,
    buf: Vec<u8>,
}

impl PidLister {
    pub fn new() -> std::io::Result<PidLister> {
        use std::os::fd::FromRawFd;
        // SAFETY: open(2) with a NUL-terminated literal path; the fd it returns is checked before use.
        let fd = unsafe {
            libc::open(
                c"/proc".as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(PidLister {
            // SAFETY: fd was just returned by open(2), is valid (checked above) and owned by nothing else.
            fd: unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) },
            buf: vec![0; 32 * 1024],
        })
    }

    /// Fill `out` with every pid, sorted.
    pub fn list(&mut self, out: &mut Vec<i32>) {
        use std::os::fd::AsRawFd;
        out.clear();
        let fd = self.fd.as_raw_fd();
        // SAFETY: lseek on the directory fd this lister owns; no memory is passed.
        unsafe { libc::lseek(fd, 0, libc::SEEK_SET) };
        loop {
            // SAFETY: getdents64 writes at most buf.len() bytes into buf, which this lister owns and keeps alive over the call.
            let n = unsafe {
                libc::syscall(
                    libc::SYS_getdents64,
                    fd,
                    self.buf.as_mut_ptr(),
                    self.buf.len(),
                )
            };
            if n <= 0 {
                break;
            }
            let mut off = 0usize;
            while off + 19 < n as usize {
                let reclen = u16::from_ne_bytes([self.buf[off + 16], self.buf[off + 17]]) as usize;
                if reclen == 0 {
                    break;
                }
                let name = &self.buf[off + 19..off + reclen];
                let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
                if !name.is_empty() && name.iter().all(u8::is_ascii_digit) {
                    let mut v: i32 = 0;
                    for &b in name {
                        v = v.wrapping_mul(10).wrapping_add((b - b'0') as i32);
                    }
                    out.push(v);
                }
                off += reclen;
            }
        }
        out.sort_unstable();
    }
}

/// Read and parse `/proc/PID/stat` (one open, one read).
pub fn read_stat(pid: i32) -> Option<Stat> {
    let mut buf = [0u8; 1024];
    let mut f = File::open(format!("/proc/{pid}/stat")).ok()?;
    let n = f.read(&mut buf).ok()?;
    parse_stat(&buf[..n])
}

/// Every numeric entry of /proc (one `getdents` pass, no per-pid reads).
pub fn list_pids(out: &mut Vec<i32>) {
    out.clear();
    if let Ok(rd) = std::fs::read_dir("/proc") {
        for e in rd.flatten() {
            if let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) {
                out.push(pid);
            }
        }
    }
}

/// All processes whose stat can be read (expensive: one read per process; for stop-time scans).
pub fn all_stats() -> Vec<Stat> {
    let mut pids = Vec::new();
    list_pids(&mut pids);
    pids.into_iter().filter_map(read_stat).collect()
}

/// `Pss:` of `/proc/PID/smaps_rollup` in bytes (walks the page tables: costly, sample sparingly).
pub fn read_pss(pid: i32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    text.lines().find_map(|l| {
        let rest = l.strip_prefix("Pss:")?;
        let kib: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kib * 1024)
    })
}

/// One `cpuN` line of /proc/stat, in clock ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CpuTimes {
    pub user: u64,
    pub system: u64,
    pub idle: u64,
    pub total: u64,
}

/// Parse the per-core lines (`cpu0`, `cpu1`, ...; not the aggregate `cpu` line) of /proc/stat.
pub fn parse_proc_stat(text: &str, out: &mut Vec<CpuTimes>) {
    out.clear();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("cpu") else {
            if !out.is_empty() {
                break; // the cpu lines come first
            }
            continue;
        };
        if !rest.starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let v: Vec<u64> = rest
            .split_ascii_whitespace()
            .skip(1)
            .map(|x| x.parse().unwrap_or(0))
            .collect();
        // user nice system idle iowait irq softirq steal guest guest_nice (guest is already
        // included in user, so it is not added to the total).
        let g = |i: usize| v.get(i).copied().unwrap_or(0);
        out.push(CpuTimes {
            user: g(0) + g(1),
            system: g(2) + g(5) + g(6),
            idle: g(3) + g(4),
            total: g(0) + g(1) + g(2) + g(3) + g(4) + g(5) + g(6) + g(7),
        });
    }
}

/// A positive `sysconf` value, else `fallback`.
fn sysconf_or(name: libc::c_int, fallback: u64) -> u64 {
    // SAFETY: sysconf has no memory-safety preconditions.
    let v = unsafe { libc::sysconf(name) };
    u64::try_from(v).ok().filter(|v| *v > 0).unwrap_or(fallback)
}

/// Clock ticks per second (`_SC_CLK_TCK`, normally 100).
pub fn clock_ticks() -> u64 {
    sysconf_or(libc::_SC_CLK_TCK, 100)
}

/// Page size in bytes.
pub fn page_size() -> u64 {
    sysconf_or(libc::_SC_PAGESIZE, 4096)
}

/// CPU time consumed so far by the calling thread.
pub fn thread_cpu_time() -> std::time::Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec into ts, a valid local.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_with_spaces_and_parens_in_comm() {
        let line = b"1234 (a b) c)) S 1 1234 1234 0 -1 4194560 100 0 0 0 7 3 2 1 20 0 4 0 555 1000000 250 18446744073709551615\n";
        let s = parse_stat(line).unwrap();
        assert_eq!(s.pid, 1234);
        assert_eq!(s.comm, "a b) c)");
        assert_eq!(s.state, b'S');
        assert_eq!((s.ppid, s.pgrp), (1, 1234));
        assert_eq!((s.utime, s.stime, s.cutime, s.cstime), (7, 3, 2, 1));
        assert_eq!(s.num_threads, 4);
        assert_eq!(s.starttime, 555);
        assert_eq!(s.rss_pages, 250);
        assert!(parse_stat(b"12 (x) S 1 2").is_none());
        let mut fast = Stat::default();
        assert!(parse_stat_into(line, &mut fast));
        assert_eq!(fast, s);
        assert!(!parse_stat_into(b"12 (x) S 1 2", &mut fast));
    }

    #[test]
    fn proc_stat_cores() {
        let text = "cpu  10 0 10 80 0 0 0 0 0 0\ncpu0 5 1 4 40 2 1 1 0 0 0\ncpu1 5 0 6 38 0 0 0 1 0 0\nintr 1\n";
        let mut v = Vec::new();
        parse_proc_stat(text, &mut v);
        assert_eq!(v.len(), 2);
        assert_eq!(
            v[0],
            CpuTimes {
                user: 6,
                system: 6,
                idle: 42,
                total: 54
            }
        );
        assert_eq!(v[1].total, 50);
    }

    #[test]
    fn lister_sees_this_process() {
        let mut l = PidLister::new().unwrap();
        let mut v = Vec::new();
        l.list(&mut v);
        assert!(v.binary_search(&(std::process::id() as i32)).is_ok());
        assert!(v.contains(&1));
        let mut slow = Vec::new();
        list_pids(&mut slow);
        assert!(v.len() > slow.len() / 2);
    }

    #[test]
    fn reads_own_stat() {
        let s = read_stat(std::process::id() as i32).unwrap();
        assert_eq!(s.pid, std::process::id() as i32);
        assert!(s.num_threads >= 1);
        assert!(s.rss_pages > 0);
    }
}
