//! WebSocket's `Setup` from a run: the upgrade's target, and every request's body as a message.

use super::Setup;
use crate::client::Run;
use crate::ws::Limits;
use barrage_model::load::{Protocol, DEFAULT_WS_MAX_MESSAGE};

impl Setup {
    pub fn for_run(run: &Run<'_>) -> Setup {
        let c = run.load;
        let bodies: Vec<Vec<u8>> = run.requests.iter().map(|r| r.body.clone()).collect();
        let (max_message, echo) = match c.protocol {
            Protocol::Ws {
                max_message, echo, ..
            } => (max_message, echo),
            _ => (DEFAULT_WS_MAX_MESSAGE, true),
        };
        Setup {
            host: run.authority.to_string(),
            path: run.path.to_string(),
            messages: Setup::messages(&bodies),
            depth: run.depth,
            timeout: c.timeout,
            expect_body: c.expect_body.clone(),
            echo,
            // A frame may be as long as the whole reply: replies stream, so neither costs
            // memory.
            limits: Limits {
                max_frame: max_message,
                max_message,
            },
            headers: c.headers.clone(),
            keep_responses: run.keep_responses,
            // Only if the system's random source fails: keys that differ from run to run.
            seed: run.seed.into(),
        }
    }
}
