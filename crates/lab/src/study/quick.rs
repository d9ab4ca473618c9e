//! Quick mode (`barrage run --quick`): any study shrunk to a small grid that proves it runs end to
//! end in well under a minute, not to measure anything. See `docs/study.md`.

use super::{ContenderSpec, Dur, LoadFields, OneOrMany, Param, StagesText, Study};
use std::time::Duration;

/// Contenders kept in quick mode.
const CONTENDERS: usize = 2;
/// Connections at most this many are kept (the first two of them).
const MAX_CONNECTIONS: usize = 10;
/// Every duration (of a point or a phase) becomes this.
const DURATION: Duration = Duration::from_secs(1);
/// Request-bounded loads are capped at this many requests (and also bounded by [`DURATION`]).
const MAX_REQUESTS: u64 = 10_000;
/// A client contender's time budget in quick mode.
const TRIAL_TIMEOUT: Duration = Duration::from_secs(60);

impl Study {
    /// The quick version of this study, keeping the first contenders whose `requires` are on
    /// PATH (see [`Study::quick_with`]).
    pub fn quick(&self) -> Study {
        self.quick_with(&|c| c.requires.iter().all(|r| crate::supervise::find_command(r)))
    }

    /// The quick version of this study: the first 2 contenders `runnable` accepts (topped up
    /// with the first others, which the run then reports as skipped, when fewer are runnable);
    /// connections limited to the first two values <= 10 (or the first two values); every
    /// duration 1 s; requests capped at 10,000 and bounded by 1 s; any other swept field, and
    /// client parameters, cut to their first two (client parameters: first) values; 1 trial, no
    /// warmup, no cooldown, a client's time budget at most 60 s. Variants and phases are kept.
    pub fn quick_with(&self, runnable: &dyn Fn(&ContenderSpec) -> bool) -> Study {
        let mut s = self.clone();
        s.quick = true;
        s.trials = 1;
        s.warmup = Duration::ZERO;
        s.cooldown = Duration::ZERO;
        s.trial_timeout = s.trial_timeout.min(TRIAL_TIMEOUT);
        let (mut keep, rest): (Vec<_>, Vec<_>) = s.contenders.iter().partition(|c| runnable(c));
        keep.truncate(CONTENDERS);
        let missing = CONTENDERS.saturating_sub(keep.len());
        keep.extend(rest.into_iter().take(missing));
        s.contenders = self
            .contenders
            .iter()
            .filter(|c| keep.iter().any(|k| k.name == c.name))
            .cloned()
            .collect();
        if let Some(load) = &mut s.load {
            quick_fields(&mut load.base);
            for (_, v) in &mut load.variants {
                quick_fields(v);
            }
            for (_, p) in &mut load.phases {
                quick_fields(p);
            }
        }
        if let Some(client) = &mut s.client {
            for (_, v) in &mut client.params {
                *v = OneOrMany::One(first(v));
            }
        }
        s
    }
}

fn first(v: &OneOrMany<Param>) -> Param {
    match v {
        OneOrMany::One(p) => p.clone(),
        OneOrMany::Many(ps) => ps[0].clone(),
    }
}

fn quick_fields(f: &mut LoadFields) {
    if let Some(OneOrMany::Many(cs)) = &mut f.connections {
        let small: Vec<usize> = cs
            .iter()
            .copied()
            .filter(|&c| c <= MAX_CONNECTIONS)
            .collect();
        if !small.is_empty() {
            *cs = small;
        }
        cs.truncate(2);
    }
    if let Some(OneOrMany::Many(rs)) = &mut f.requests {
        rs.truncate(2);
    }
    if let Some(rs) = &mut f.requests {
        match rs {
            OneOrMany::One(r) => *r = (*r).min(MAX_REQUESTS),
            OneOrMany::Many(v) => {
                v.iter_mut().for_each(|r| *r = (*r).min(MAX_REQUESTS));
                v.dedup();
            }
        }
    }
    // Request-bounded loads get the 1 s bound too: whichever comes first ends the load.
    if f.duration.is_some() || f.requests.is_some() {
        f.duration = Some(OneOrMany::One(Dur(DURATION)));
    }
    // A schedule keeps its shape and rates, squeezed into the same 1 s.
    if let Some(st) = &mut f.stages {
        match st {
            OneOrMany::One(s) => *s = squeeze(s),
            OneOrMany::Many(v) => v.iter_mut().for_each(|s| *s = squeeze(s)),
        }
    }
    if let Some(r) = &mut f.ramp_up {
        match r {
            OneOrMany::One(d) => d.0 = d.0.min(DURATION / 2),
            OneOrMany::Many(v) => v.iter_mut().for_each(|d| d.0 = d.0.min(DURATION / 2)),
        }
    }
    // Every other swept field: its first two values.
    f.shorten(2);
}

/// `s`'s stages with their durations scaled so that they last [`DURATION`] together.
fn squeeze(s: &StagesText) -> StagesText {
    use barrage_model::units::{format_stages, parse_stages};
    let Ok(mut stages) = parse_stages(&s.0) else {
        return s.clone();
    };
    let total: Duration = stages.iter().map(|s| s.duration).sum();
    let k = DURATION.as_secs_f64() / total.as_secs_f64().max(f64::MIN_POSITIVE);
    for st in &mut stages {
        // Whole milliseconds, so the text reads back the same.
        st.duration = Duration::from_millis(
            ((st.duration.as_secs_f64() * k) * 1000.0).round().max(1.0) as u64,
        );
    }
    StagesText(format_stages(&stages))
}

#[cfg(test)]
mod tests {
    use crate::study::{parse, OneOrMany};
    use std::path::Path;
    use std::time::Duration;

    const STUDY: &str = r#"
[study]
name = "q"
trials = 7
warmup = "2s"
cooldown = "1s"
[load]
connections = [1, 10, 50, 100]
duration = ["1s", "15s", "30s"]
pipeline = [1, 4, 16]
timeout = "1s"
[[load.phase]]
name = "over"
rate = 1000
duration = "10s"
[[load.phase]]
name = "half"
rate = 500
requests = 100000
[[contender]]
name = "a"
start = "a {port}"
requires = ["missing-a"]
[[contender]]
name = "b"
start = "b {port}"
[[contender]]
name = "c"
start = "c {port}"
[[contender]]
name = "d"
start = "d {port}"
"#;

    #[test]
    fn quick_shrinks_a_server_study() {
        let s = parse(STUDY, "q.toml", Path::new(".")).unwrap();
        let q = s.quick_with(&|c| !c.requires.iter().any(|r| r.starts_with("missing")));
        assert!(q.quick && !s.quick);
        assert_eq!(
            (q.trials, q.warmup, q.cooldown),
            (1, Duration::ZERO, Duration::ZERO)
        );
        let names: Vec<&str> = q.contenders.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["b", "c"], "the first two runnable, in study order");
        let pts = crate::sweep::points(&q).unwrap();
        // connections [1, 10] x pipeline [1, 4]; one duration.
        assert_eq!(pts.len(), 4);
        for p in &pts {
            assert!(p.phases.iter().all(|ph| ph.load.connections <= 10));
            assert!(p
                .phases
                .iter()
                .all(|ph| ph.load.duration == Some(Duration::from_secs(1))));
            assert_eq!(p.phases[1].load.requests, Some(10_000));
            assert_eq!(p.planned_duration(), Duration::from_secs(2));
        }
        // None runnable: the first two stay, so the run reports them as skipped.
        let none = s.quick_with(&|_| false);
        let names: Vec<&str> = none.contenders.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn quick_squeezes_stages_into_a_second_and_keeps_their_rates() {
        let src = r#"
[study]
name = "s"
[load]
[[load.variant]]
name = "open"
stages = ["30s:1000,1m:1000,30s:0", "10s:500"]
[[load.variant]]
name = "closed"
duration = "10s"
ramp_up = "5s"
[[contender]]
name = "x"
start = "x {port}"
"#;
        let q = parse(src, "s.toml", Path::new(".")).unwrap().quick();
        let vs = &q.load.as_ref().unwrap().variants;
        let st = vs[0].1.stages.clone();
        let got: Vec<String> = st.unwrap().values().iter().map(|s| s.0.clone()).collect();
        assert_eq!(got, ["250ms:1000,500ms:1000,250ms:0", "1s:500"]);
        let r = vs[1].1.ramp_up.clone();
        assert_eq!(r.map(|r| r.values()[0].0), Some(Duration::from_millis(500)));
    }

    #[test]
    fn quick_takes_the_first_two_connections_when_none_is_small() {
        let src = STUDY.replace("[1, 10, 50, 100]", "[64, 16, 256]");
        let q = parse(&src, "q.toml", Path::new(".")).unwrap().quick();
        let c = q.load.as_ref().unwrap().base.connections.clone();
        assert_eq!(c, Some(OneOrMany::Many(vec![64, 16])));
    }

    #[test]
    fn quick_keeps_the_first_client_parameter() {
        let src = r#"
[study]
name = "dl"
[client]
path = "/bytes/{size}"
params = { size = ["1MiB", "1GiB"], mode = ["stream", "buffer"] }
[[contender]]
name = "x"
start = "x {url}"
"#;
        let q = parse(src, "dl.toml", Path::new(".")).unwrap().quick();
        assert_eq!(crate::sweep::points(&q).unwrap().len(), 1);
        assert_eq!(q.trial_timeout, Duration::from_secs(60));
    }
}
