//! The raw counts of every load phase of every trial, as `barrage load` prints them on its last
//! line (`r:` responses, `w:` requests written, `e:` errors, `t:` mean latency): the figures the
//! original ping-pong write-up compared, kept beside the statistics so a reader can see a
//! server that answered fewer requests than were written, or one whose errors are all timeouts.

use super::{cells_order, point_label, trials_of};
use crate::page::Counts;
use barrage_model::study::Results;

/// One row per phase of every trial, in the summary table's order (point, contender, trial).
pub fn rows(doc: &Results) -> Vec<Counts> {
    let mut out = Vec::new();
    for (p, name) in cells_order(doc) {
        for t in trials_of(doc, p, &name) {
            let named = t.phases.len() > 1;
            for ph in &t.phases {
                let l = &ph.load;
                out.push(Counts {
                    point: point_label(doc, p),
                    contender: name.clone(),
                    trial: (t.trial as usize) + 1,
                    phase: if named {
                        ph.name.clone()
                    } else {
                        String::new()
                    },
                    responses: l.requests,
                    written: l.requests_written,
                    errors: l.errors.total(),
                    breakdown: l.errors.breakdown(),
                    mean_latency_ms: l.latency_us.mean / 1000.0,
                    ok: t.ok,
                });
            }
        }
    }
    out
}
