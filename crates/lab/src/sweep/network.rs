//! The network part of the sweep: a point's `[network]` fields (the base table overlaid by its
//! variant's), their list-valued fields as axes, and the scalar fields resolved into the model's
//! [`Network`].

use crate::study::{NetworkFields, Study};
use barrage_model::network::Network;
use barrage_model::units::{Dur, Loss, Rate};
use serde::Deserialize;
use serde_json::{Map, Value};

/// The network fields, in sweep order, with their short labels (`bw`: `rate` is the load's).
pub(super) const FIELDS: &[(&str, &str)] = &[
    ("rtt", "rtt"),
    ("delay", "delay"),
    ("jitter", "jitter"),
    ("rate", "bw"),
    ("loss", "loss"),
    ("mtu", "mtu"),
    ("queue", "queue"),
];

/// The smallest and largest MTU a link may have.
const MTU: std::ops::RangeInclusive<u32> = 576..=65535;

/// The network fields of a point group (the study's, or a variant's over it); None: loopback.
pub(super) fn fields(study: &Study, variant: Option<&str>) -> Option<Map<String, Value>> {
    let spec = &study.network;
    let over = variant.and_then(|v| spec.variants.iter().find(|(n, _)| n == v));
    if spec.base.is_none() && over.is_none() {
        return None;
    }
    let mut m = spec.base.as_ref().map(to_map).unwrap_or_default();
    if let Some((_, o)) = over {
        let o = to_map(o);
        if o.contains_key("rtt") {
            m.remove("delay");
        }
        if o.contains_key("delay") {
            m.remove("rtt");
        }
        m.extend(o);
    }
    Some(m)
}

fn to_map(f: &NetworkFields) -> Map<String, Value> {
    match serde_json::to_value(f) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// One point's scalar fields, in the study's forms.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scalar {
    rtt: Option<Dur>,
    delay: Option<Dur>,
    jitter: Option<Dur>,
    rate: Option<Rate>,
    loss: Option<Loss>,
    mtu: Option<u32>,
    queue: Option<u64>,
}

/// A point's link from its scalar fields, checked.
pub(super) fn resolve(m: &Map<String, Value>) -> Result<Network, String> {
    let s: Scalar =
        serde_json::from_value(Value::Object(m.clone())).map_err(|e| format!("[network] {e}"))?;
    let delay = match (s.rtt, s.delay) {
        (Some(_), Some(_)) => {
            return Err("[network] takes rtt (the round trip) or delay (one way), not both".into())
        }
        (Some(rtt), None) => rtt.get() / 2,
        (None, Some(d)) => d.get(),
        (None, None) => Default::default(),
    };
    if let Some(mtu) = s.mtu {
        if !MTU.contains(&mtu) {
            return Err(format!(
                "[network] mtu {mtu} is outside {}..={}",
                MTU.start(),
                MTU.end()
            ));
        }
    }
    if let Some(q) = s.queue {
        if s.rate.is_none() {
            return Err("[network] queue is the rate's queue: give a rate with it".into());
        }
        let mtu = u64::from(s.mtu.unwrap_or(1500));
        if q < mtu {
            return Err(format!(
                "[network] queue {q} B cannot hold one packet of the MTU ({mtu} B)"
            ));
        }
    }
    Ok(Network {
        delay,
        jitter: s.jitter.map(Dur::get).unwrap_or_default(),
        rate: s.rate,
        loss: s.loss.unwrap_or_default(),
        mtu: s.mtu,
        queue: s.queue,
    })
}

#[cfg(test)]
mod tests {
    use crate::study::parse;
    use crate::sweep::points;
    use std::path::Path;
    use std::time::Duration;

    fn study(extra: &str) -> Result<crate::study::Study, String> {
        let src = format!(
            "[study]\nname = \"t\"\n[load]\nduration = \"1s\"\n{extra}\n[[contender]]\nname = \"s\"\nstart = \"srv {{port}}\"\n"
        );
        parse(&src, "t.toml", Path::new(".")).map_err(|e| e.to_string())
    }

    #[test]
    fn the_network_is_swept_and_laid_over_by_variants() {
        let s = study(
            r#"connections = [1, 2]
[[load.variant]]
name = "loopback"
[[load.variant]]
name = "wan"
[load.variant.network]
rtt = "100ms"
loss = "1%"
[network]
delay = "5ms"
rate = ["100mbit", "1gbit"]
"#,
        )
        .unwrap();
        let got: Vec<(String, String)> = points(&s)
            .unwrap()
            .iter()
            .map(|p| {
                let n = p
                    .network
                    .as_ref()
                    .map(|n| n.to_string())
                    .unwrap_or_default();
                (p.label.clone(), n)
            })
            .collect();
        let row = |l: &str, n: &str| (l.to_string(), n.to_string());
        assert_eq!(
            got,
            vec![
                row("loopback bw=100mbit c=1", "rtt 10ms, 100mbit"),
                row("loopback bw=100mbit c=2", "rtt 10ms, 100mbit"),
                row("loopback bw=1gbit c=1", "rtt 10ms, 1gbit"),
                row("loopback bw=1gbit c=2", "rtt 10ms, 1gbit"),
                row("wan bw=100mbit c=1", "rtt 100ms, 100mbit, loss 1%"),
                row("wan bw=100mbit c=2", "rtt 100ms, 100mbit, loss 1%"),
                row("wan bw=1gbit c=1", "rtt 100ms, 1gbit, loss 1%"),
                row("wan bw=1gbit c=2", "rtt 100ms, 1gbit, loss 1%"),
            ]
        );
        let p = &points(&s).unwrap()[4];
        assert_eq!(p.params["network.rate"], serde_json::json!("100mbit"));
        assert_eq!(p.network.as_ref().unwrap().delay, Duration::from_millis(50));
        // Without [network] a point runs on loopback.
        assert!(points(&study("").unwrap()).unwrap()[0].network.is_none());
    }

    /// The example of docs/study.md.
    #[test]
    fn the_documented_table() {
        let s = study(
            "[network]\nrtt = \"100ms\"\njitter = \"5ms\"\nrate = \"200mbit\"\nloss = \"0.5%\"\nmtu = 1400\nqueue = \"256KB\"\n",
        )
        .unwrap();
        let n = points(&s).unwrap()[0].network.clone().unwrap();
        assert_eq!(
            n.to_string(),
            "rtt 100ms ±5ms, 200mbit, loss 0.5%, mtu 1400, queue 256000 B"
        );
    }

    #[test]
    fn quick_keeps_the_network() {
        let s = study("[network]\nrtt = [\"1ms\", \"50ms\", \"100ms\"]\njitter = \"1ms\"\n")
            .unwrap()
            .quick_with(&|_| true);
        let labels: Vec<String> = points(&s).unwrap().into_iter().map(|p| p.label).collect();
        assert_eq!(labels, ["rtt=1ms", "rtt=50ms", "rtt=100ms"]);
    }

    #[test]
    fn bad_links_are_errors_of_the_file() {
        for (extra, says) in [
            (
                "[network]\nrtt = \"1ms\"\ndelay = \"1ms\"",
                "t.toml:5: [network] takes rtt (the round trip) or delay (one way), not both",
            ),
            (
                "[network]\nmtu = 100",
                "t.toml:5: [network] mtu 100 is outside 576..=65535",
            ),
            (
                "[network]\nqueue = \"64KiB\"",
                "[network] queue is the rate's queue: give a rate with it",
            ),
            ("[network]\nrate = \"1mbps\"", "`mbps` is ambiguous"),
            ("[network]\nloss = \"120%\"", "out of range (0% to 100%)"),
            ("[network]\nlatency = \"1ms\"", "unknown field `latency`"),
        ] {
            let e = study(extra).unwrap_err();
            assert!(e.contains(says), "{extra:?}: {e}");
        }
    }
}
