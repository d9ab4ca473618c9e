//! Tracking one process tree across ticks, and the CPU accounting that keeps the time of processes
//! which exit between samples.
//!
//! For every live tree process `p` let `v(p) = utime + stime + cutime + cstime` (its own time and
//! that of the children it reaped). The tree's CPU over an interval is the sum of `v` deltas of the
//! processes seen at both ends, plus `v` of processes born in the interval, minus, for a process
//! that vanished while an ancestor in the tree is still alive, its last seen `v` — because the
//! reaper's `cutime`/`cstime` just grew by that process's *whole* final time. A vanished process
//! without a live tree ancestor (reaped by init) keeps what was counted up to its last sample;
//! only its time since then is lost. Children of a process that ignores SIGCHLD are auto-reaped
//! without any accounting, so the time they spent after the last sample is lost too.

use std::collections::{HashMap, HashSet};

use std::fs::File;
use std::time::{Duration, Instant};

use super::procfs::{self, CpuTimes, Stat};
use super::{ProcSample, Sample, SamplerConfig};

/// Ticks between /proc listings while pids are being allocated but the tree shows no activity.
const LIST_EVERY: u32 = 5;

/// The name `barrage-init` gives itself (crates/proc/src/supervise/init.c).
const INIT_COMM: &str = "barrage-init";

impl Member {
    /// Whether it counts in the tree's memory, processes and threads.
    fn counts(&self) -> bool {
        !self.zombie && !self.init
    }
}

struct Member {
    file: File,
    starttime: u64,
    ppid: i32,
    comm: String,
    /// Own user/sys ticks and reaped-children user/sys ticks at the last tick.
    own: (u64, u64),
    reaped: (u64, u64),
    rss_pages: u64,
    threads: u64,
    zombie: bool,
    /// barrage's own init of the contender's PID namespace (the root, then): in the tree for
    /// its reaped children's CPU, but not in its memory or process counts.
    init: bool,
    seen: bool,
}

pub(super) struct Tree {
    root: i32,
    config: SamplerConfig,
    members: HashMap<i32, Member>,
    foreign: HashSet<i32>,
    pids: Vec<i32>,
    buf: Vec<u8>,
    ticks_per_s: f64,
    page: u64,
    last_t: Option<Instant>,
    total_user_ticks: u64,
    total_sys_ticks: u64,
    proc_stat: Option<File>,
    stat_buf: Vec<u8>,
    lister: Option<procfs::PidLister>,
    scratch: Stat,
    own_delta: Vec<(i32, u64)>,
    loadavg: Option<File>,
    last_pid: Option<u64>,
    pub(super) listings: u64,
    since_listing: u32,
    pid_changed: bool,
    found_new: bool,
    pss_cpu: Duration,
    since_pss: u32,
    root_seen: bool,
    tree_gone: bool,
    started: Instant,
    cores_prev: Vec<CpuTimes>,
    cores_now: Vec<CpuTimes>,
    /// The contender's own cgroup: its processes are members whatever their parentage.
    pub(super) cgroup_procs: Option<std::path::PathBuf>,
    in_cgroup: HashSet<i32>,
    /// This process's own CPU at the last tick (with the machine's cores: what of their busy
    /// time was barrage's).
    self_cpu: Option<Duration>,
}

impl Tree {
    pub(super) fn new(root: i32, config: SamplerConfig) -> Tree {
        let proc_stat = if config.machine_cpu {
            File::open("/proc/stat").ok()
        } else {
            None
        };
        Tree {
            root,
            config,
            members: HashMap::new(),
            foreign: HashSet::new(),
            pids: Vec::new(),
            buf: vec![0; 1024],
            ticks_per_s: procfs::clock_ticks() as f64,
            page: procfs::page_size(),
            last_t: None,
            total_user_ticks: 0,
            total_sys_ticks: 0,
            proc_stat,
            stat_buf: vec![0; 64 * 1024],
            lister: procfs::PidLister::new().ok(),
            scratch: Stat::default(),
            own_delta: Vec::new(),
            loadavg: File::open("/proc/loadavg").ok(),
            last_pid: None,
            listings: 0,
            since_listing: 0,
            pid_changed: false,
            found_new: false,
            pss_cpu: Duration::ZERO,
            since_pss: 0,
            root_seen: false,
            tree_gone: false,
            started: Instant::now(),
            cores_prev: Vec::new(),
            cores_now: Vec::new(),
            cgroup_procs: None,
            in_cgroup: HashSet::new(),
            self_cpu: None,
        }
    }

    pub(super) fn cpu_totals(&self) -> (Duration, Duration) {
        let f = |t: u64| Duration::from_secs_f64(t as f64 / self.ticks_per_s);
        (f(self.total_user_ticks), f(self.total_sys_ticks))
    }

    fn is_tree(&self, s: &Stat) -> bool {
        // Once the whole tree is gone, the root's pid (and so its group id) may be reused by an
        // unrelated process: from then on nothing joins by pid or group.
        let by_root = !self.tree_gone && (s.pid == self.root || s.pgrp == self.root);
        by_root || self.members.contains_key(&s.ppid) || self.in_cgroup.contains(&s.pid)
    }

    pub(super) fn sample(&mut self, origin: Instant) -> Sample {
        let now = Instant::now();
        let first = self.last_t.is_none();
        let elapsed = self.last_t.map(|t| (now - t).as_secs_f64()).unwrap_or(0.0);
        self.last_t = Some(now);

        // Deltas in ticks (signed: a vanished process subtracts).
        let mut d_user: i64 = 0;
        let mut d_sys: i64 = 0;
        self.own_delta.clear(); // pid, own ticks this interval
        let mut activity = self.found_new;

        // 1. Refresh known members with one pread each (procfs regenerates the text at offset 0,
        //    so the files stay open: no open/close per tick).
        let buf = &mut self.buf;
        let scratch = &mut self.scratch;
        for (&pid, m) in self.members.iter_mut() {
            m.seen = false;
            if !procfs::pread_stat_into(&m.file, buf, scratch) || scratch.starttime != m.starttime {
                continue; // gone (a reused pid cannot reach us through the old fd): vanished
            }
            let s = &*scratch;
            let own = (s.utime, s.stime);
            let reaped = (s.cutime, s.cstime);
            activity |= reaped != m.reaped || s.num_threads != m.threads;
            d_user += (own.0 + reaped.0) as i64 - (m.own.0 + m.reaped.0) as i64;
            d_sys += (own.1 + reaped.1) as i64 - (m.own.1 + m.reaped.1) as i64;
            self.own_delta
                .push((pid, (own.0 + own.1).saturating_sub(m.own.0 + m.own.1)));
            m.own = own;
            m.reaped = reaped;
            m.ppid = s.ppid;
            m.rss_pages = s.rss_pages;
            m.threads = s.num_threads;
            m.zombie = s.state == b'Z' || s.state == b'X';
            if m.comm != s.comm {
                m.comm.clone_from(&s.comm);
            }
            m.seen = true;
        }

        // 2. Vanished members: undo their counted time if a live tree ancestor reaped them.
        let vanished: Vec<i32> = self
            .members
            .iter()
            .filter(|(_, m)| !m.seen)
            .map(|(p, _)| *p)
            .collect();
        for pid in &vanished {
            let m = &self.members[pid];
            let mut anc = m.ppid;
            let mut hops = 0;
            let mut reaped_in_tree = false;
            while hops < 64 {
                match self.members.get(&anc) {
                    Some(a) if a.seen => {
                        reaped_in_tree = true;
                        break;
                    }
                    Some(a) => anc = a.ppid,
                    None => break,
                }
                hops += 1;
            }
            if reaped_in_tree {
                d_user -= (m.own.0 + m.reaped.0) as i64;
                d_sys -= (m.own.1 + m.reaped.1) as i64;
            }
        }
        activity |= !vanished.is_empty();
        for pid in vanished {
            self.members.remove(&pid);
        }
        if self.members.is_empty() && !first && self.root_seen {
            self.tree_gone = true;
        }

        // Listing /proc is the costliest step for a quiet tree; the last pid the kernel handed
        // out (in /proc/loadavg) tells whether any process or thread was created since the last
        // listing. If none was, nothing new can be in /proc and the listing is skipped.
        let last_pid = self.loadavg.as_ref().and_then(|f| {
            let n = std::os::unix::fs::FileExt::read_at(f, &mut self.buf, 0).ok()?;
            let text = std::str::from_utf8(&self.buf[..n]).ok()?;
            text.split_ascii_whitespace().nth(4)?.parse::<u64>().ok()
        });
        // On a busy machine pids are allocated all the time; then the listing runs only every
        // LIST_EVERY ticks unless the tree itself shows activity (a member's reaped-children
        // times or thread count changed, a member vanished, or the last listing found a new
        // member). A tree process living less than that, in a tree showing no activity, can be
        // missed in RSS; its CPU is still counted once its parent reaps it.
        self.pid_changed |= last_pid.is_none() || last_pid != self.last_pid;
        self.last_pid = last_pid;
        self.since_listing += 1;
        let discover =
            first || (self.pid_changed && (activity || self.since_listing >= LIST_EVERY));
        if discover {
            self.since_listing = 0;
            self.pid_changed = false;
            self.listings += 1;
            if let Some(l) = &mut self.lister {
                l.list(&mut self.pids);
            } else {
                procfs::list_pids(&mut self.pids);
                self.pids.sort_unstable();
            }
            let pids = &self.pids;
            self.foreign.retain(|p| pids.binary_search(p).is_ok());
            if let Some(path) = &self.cgroup_procs {
                self.in_cgroup = std::fs::read_to_string(path)
                    .map(|t| t.lines().filter_map(|l| l.trim().parse().ok()).collect())
                    .unwrap_or_default();
                // A pid once judged foreign may have been moved into the cgroup since.
                let cg = &self.in_cgroup;
                self.foreign.retain(|p| !cg.contains(p));
            }
        }

        // 3. New pids: read their stat once; keep tree members' files open.
        let mut found_new = false;
        let mut pending: Vec<Stat> = Vec::new();
        let candidates: &[i32] = if discover { &self.pids } else { &[] };
        for &pid in candidates {
            if self.members.contains_key(&pid) || self.foreign.contains(&pid) {
                continue;
            }
            match procfs::read_stat(pid) {
                Some(s) => pending.push(s),
                None => continue,
            }
        }
        // Parents may be listed after their children (pid wrap): iterate to a fixed point.
        loop {
            let mut added = false;
            let mut rest = Vec::new();
            for s in pending {
                if self.is_tree(&s) {
                    if let Ok(file) = File::open(format!("/proc/{}/stat", s.pid)) {
                        let init = s.pid == self.root && s.comm == INIT_COMM;
                        if !first {
                            // Born during the interval: all of its time is new.
                            d_user += (s.utime + s.cutime) as i64;
                            d_sys += (s.stime + s.cstime) as i64;
                            self.own_delta.push((s.pid, s.utime + s.stime));
                        }
                        self.members.insert(
                            s.pid,
                            Member {
                                file,
                                starttime: s.starttime,
                                ppid: s.ppid,
                                comm: s.comm,
                                own: (s.utime, s.stime),
                                reaped: (s.cutime, s.cstime),
                                rss_pages: s.rss_pages,
                                threads: s.num_threads,
                                zombie: s.state == b'Z' || s.state == b'X',
                                init,
                                seen: true,
                            },
                        );
                        added = true;
                        self.root_seen |= s.pid == self.root;
                        found_new = true;
                    }
                } else {
                    rest.push(s);
                }
            }
            pending = rest;
            if !added || pending.is_empty() {
                break;
            }
        }
        for s in pending {
            self.foreign.insert(s.pid);
        }
        self.found_new = found_new;

        let d_user = d_user.max(0) as u64;
        let d_sys = d_sys.max(0) as u64;
        self.total_user_ticks += d_user;
        self.total_sys_ticks += d_sys;
        let ticks_per_s = self.ticks_per_s;
        let pct = |ticks: u64| -> f64 {
            if elapsed > 0.0 {
                ticks as f64 / ticks_per_s / elapsed * 100.0
            } else {
                0.0
            }
        };

        let mut rss_bytes = 0;
        let mut processes = 0;
        let mut threads = 0;
        for m in self.members.values().filter(|m| m.counts()) {
            rss_bytes += m.rss_pages * self.page;
            processes += 1;
            threads += m.threads as u32;
        }

        // PSS makes the kernel walk every page table: read it only while its measured cost stays
        // within `pss_budget_pct` of a core (always on the first tick).
        // Counted in samples taken (not schedule ticks, which skip when the sampler falls behind).
        self.since_pss += 1;
        let pss_due =
            self.config.pss_every > 0 && (first || self.since_pss >= self.config.pss_every);
        let within_budget = first
            || self.pss_cpu.as_secs_f64() / self.started.elapsed().as_secs_f64().max(1e-3) * 100.0
                < self.config.pss_budget_pct;
        let pss_bytes = if pss_due && within_budget {
            self.since_pss = 0;
            let c0 = procfs::thread_cpu_time();
            let mut sum = 0;
            let mut any = false;
            for (pid, _) in self.members.iter().filter(|(_, m)| m.counts()) {
                if let Some(p) = procfs::read_pss(*pid) {
                    sum += p;
                    any = true;
                }
            }
            self.pss_cpu += procfs::thread_cpu_time().saturating_sub(c0);
            any.then_some(sum)
        } else {
            None
        };

        let mut procs = Vec::new();
        if self.config.max_processes > 0 {
            // Pick the largest first, then build only those entries (comm strings are cloned
            // for at most `max_processes` processes).
            let mut order: Vec<(u64, i32)> = self
                .members
                .iter()
                .filter(|(_, m)| m.counts())
                .map(|(p, m)| (m.rss_pages, *p))
                .collect();
            order.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            order.truncate(self.config.max_processes);
            self.own_delta.sort_unstable();
            for (_, pid) in order {
                let m = &self.members[&pid];
                let own = match self.own_delta.binary_search_by_key(&pid, |e| e.0) {
                    Ok(i) => self.own_delta[i].1,
                    Err(_) => 0,
                };
                procs.push(ProcSample {
                    pid,
                    comm: m.comm.clone(),
                    cpu_pct: pct(own),
                    rss_bytes: m.rss_pages * self.page,
                    threads: m.threads as u32,
                });
            }
        }

        let cores_busy_pct = self.cores();
        let barrage_cpu_pct = self.proc_stat.is_some().then(|| {
            let now_cpu = super::self_cpu();
            let prev = self.self_cpu.replace(now_cpu).unwrap_or(now_cpu);
            if elapsed > 0.0 {
                now_cpu.saturating_sub(prev).as_secs_f64() / elapsed * 100.0
            } else {
                0.0
            }
        });
        Sample {
            t: now.saturating_duration_since(origin),
            cpu_user_pct: pct(d_user),
            cpu_sys_pct: pct(d_sys),
            rss_bytes,
            pss_bytes,
            processes,
            threads,
            procs,
            cores_busy_pct,
            barrage_cpu_pct,
        }
    }

    fn cores(&mut self) -> Vec<f64> {
        let Some(f) = &self.proc_stat else {
            return Vec::new();
        };
        let n = std::os::unix::fs::FileExt::read_at(f, &mut self.stat_buf, 0).unwrap_or(0);
        let text = String::from_utf8_lossy(&self.stat_buf[..n]);
        procfs::parse_proc_stat(&text, &mut self.cores_now);
        let out = if self.cores_prev.len() == self.cores_now.len() {
            self.cores_now
                .iter()
                .zip(&self.cores_prev)
                .map(|(n, p)| {
                    let total = n.total.saturating_sub(p.total);
                    let idle = n.idle.saturating_sub(p.idle);
                    if total == 0 {
                        0.0
                    } else {
                        (total.saturating_sub(idle)) as f64 / total as f64 * 100.0
                    }
                })
                .collect()
        } else {
            vec![0.0; self.cores_now.len()]
        };
        std::mem::swap(&mut self.cores_prev, &mut self.cores_now);
        out
    }
}
