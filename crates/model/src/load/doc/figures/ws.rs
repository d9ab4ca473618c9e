//! WebSocket's section of the load document: the upgrades and the server's closes.

use super::{add_handshakes, per, Section};
use crate::metric::fmt_secs;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a WebSocket run saw of the protocol (its requests are messages).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Ws {
    /// Opening handshakes completed in the measured window.
    pub handshakes: u64,
    /// Their mean time, from the connect's start to the 101 (so the TCP connect is in it),
    /// derived from `handshake_total_us`.
    pub handshake_mean_us: f64,
    /// Their time summed, µs (each handshake's in whole µs): what merging adds. None in
    /// documents written before it was stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handshake_total_us: Option<u64>,
    /// Closes the server sent, by code ("0": a close without one).
    pub closes: BTreeMap<String, u64>,
}

impl Section for Ws {
    fn add(&mut self, o: &Ws) {
        add_handshakes(
            (
                &mut self.handshakes,
                &mut self.handshake_mean_us,
                &mut self.handshake_total_us,
            ),
            (o.handshakes, o.handshake_mean_us, o.handshake_total_us),
        );
        for (k, n) in &o.closes {
            *self.closes.entry(k.clone()).or_default() += n;
        }
    }

    fn settle(&mut self, _: u64) {
        if let Some(sum) = self.handshake_total_us {
            self.handshake_mean_us = per(sum as f64, self.handshakes);
        }
    }

    fn lines(&self) -> Vec<String> {
        let closes = if self.closes.is_empty() {
            "none".to_string()
        } else {
            self.closes
                .iter()
                .map(|(code, n)| format!("{code}: {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        vec![format!(
            "WebSocket: requests are messages; {} handshakes (mean {} from connect to 101); closes by the server: {closes}",
            self.handshakes,
            fmt_secs(self.handshake_mean_us / 1e6)
        )]
    }
}
