//! What HTTP/2 does differently in an answer ([`Reply`]): the head every endpoint shares
//! (`:status`, server, date, alt-svc, content-type, content-length) as a HEADERS frame, bodies
//! under the flow-control windows and the connection's high-water mark, and faults as
//! RST_STREAM, a broken header block or the connection's end.

use super::super::{End, HIGH_WATER};
use crate::answer::{Act, Extra, Reply};
use crate::respond::{BodyLen, HeadFields, Templates};
use crate::stats::Counters;
use crate::Shared;
use barrage_wire::h2::server::Server;
use barrage_wire::h2::{frame, ErrorCode};

/// One turn's view of an HTTP/2 connection for the answers.
pub(super) struct H2Reply<'a> {
    pub server: &'a mut Server,
    pub out: &'a mut Vec<u8>,
    pub closing: &'a mut Option<End>,
    pub templates: &'a Templates,
    pub counters: &'a Counters,
    pub shared: &'a Shared,
}

impl Reply<u32> for H2Reply<'_> {
    fn head(
        &mut self,
        stream: u32,
        status: u16,
        ct: &'static str,
        len: BodyLen,
        extra: Extra<'_>,
        end: bool,
    ) {
        self.counters.response(true, status);
        let mut digits = [0u8; 20];
        let h = HeadFields::new(self.templates, ct, len, extra, &mut digits);
        self.server.respond(self.out, stream, status, h.get(), end);
    }

    fn data(&mut self, stream: u32, data: &[u8], end: bool) -> usize {
        self.server.send_data(self.out, stream, data, end)
    }

    fn room(&self, stream: u32) -> usize {
        if self.out.len() >= HIGH_WATER {
            return 0;
        }
        self.server.send_room(stream)
    }

    fn backed_up(&self) -> bool {
        self.out.len() >= HIGH_WATER
    }

    fn open(&self, stream: u32) -> bool {
        self.server.can_send(stream)
    }

    fn act(&mut self, stream: u32, act: Act) {
        match act {
            Act::Reset => self.server.cancel(self.out, stream, ErrorCode::Internal),
            Act::Close => *self.closing = Some(End::Close),
            Act::Garbage => {
                // A HEADERS frame whose block starts with index 0, which no HPACK decoder
                // accepts (RFC 7541 §6.1): a malformed frame, a connection error for the client.
                frame::write_header(self.out, 1, frame::Kind::Headers, 0x5, stream);
                self.out.push(0x80);
                *self.closing = Some(End::Close);
            }
            Act::TooLarge | Act::Cancel => self.server.cancel(self.out, stream, ErrorCode::Cancel),
        }
    }

    fn shared(&self) -> &Shared {
        self.shared
    }
}
