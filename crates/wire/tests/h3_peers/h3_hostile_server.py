"""A hostile HTTP/3 server for the engine's tests (crates/engine/tests/h3_hostile.rs): aioquic's
QUIC with HTTP/3 written by hand, so that every answer can break the protocol one way.

  h3_hostile_server.py MODE

Binds UDP 127.0.0.1 port 0 with a self-signed certificate (clients use -k) and prints "port P",
then "request N" for each request stream it answered. The server's control stream carries one
SETTINGS frame (QPACK table 0) unless the mode says otherwise. MODE, for every request stream:

  data-first      a DATA frame before any HEADERS, then FIN
  h2-frame        HEADERS (:status 200), then frame type 0x6 (HTTP/2's PING, reserved in HTTP/3)
  truncated       HEADERS, then a DATA frame announcing 100 bytes with 3 of them, then FIN
  trailer-pseudo  HEADERS (:status 200), DATA "ok", then trailers carrying `:status 200` (a
                  pseudo-header field, which trailers may not carry), then FIN
  settings-twice  (the control stream) SETTINGS twice; requests get no answer
  qpack-overflow  (the encoder stream) a table capacity past the one the client announced
  qpack-insert    (the encoder stream) capacity 4096, then one insert of 5000 bytes
  huge-frame      a HEADERS frame announcing 1 GiB, its payload dribbled 16 KiB at a time
  static-bomb     HEADERS of 2,000 one-byte references to a static entry: 2 KB that decode
                  to 128 KB, past the 64 KiB field section the client announced
  qpack-bomb      (the encoder stream) one 4,000-byte entry inserted, then every response's
                  HEADERS refers to it 100 times: ~400 KB decoded from ~100 bytes
  never-inserted  HEADERS whose section needs insert 1, which never comes
  zero-streams    QUIC's initial_max_streams_bidi is 0, never raised: no request can be sent
"""

import asyncio
import sys

from aioquic.asyncio import QuicConnectionProtocol, serve
from aioquic.h3.connection import H3_ALPN
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import HandshakeCompleted, StreamDataReceived

sys.path.insert(0, __import__("os").path.dirname(__file__))
from h3_server import self_signed  # noqa: E402

mode = None
answered = 0


def varint(n):
    if n < 1 << 6:
        return bytes([n])
    if n < 1 << 14:
        return (n | 0x4000).to_bytes(2, "big")
    if n < 1 << 30:
        return (n | 0x8000_0000).to_bytes(4, "big")
    return (n | 0xC000_0000_0000_0000).to_bytes(8, "big")


def frame(kind, payload):
    return varint(kind) + varint(len(payload)) + payload


def settings(pairs):
    return frame(0x4, b"".join(varint(k) + varint(v) for k, v in pairs))


# A QPACK section: Required Insert Count 0, Base 0, then `:status 200` (static index 25).
STATUS_200 = bytes([0x00, 0x00, 0xC0 | 25])
HEADERS_200 = frame(0x1, STATUS_200)


def prefixed(first, bits, n):
    """QPACK's prefixed integer: `n` in the low `bits` bits of `first`, continued as needed."""
    top = (1 << bits) - 1
    if n < top:
        return bytes([first | n])
    out = bytearray([first | top])
    n -= top
    while n >= 128:
        out.append(0x80 | (n & 0x7F))
        n >>= 7
    out.append(n)
    return bytes(out)


class Handler(QuicConnectionProtocol):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.started = False
        self.seen = set()
        if mode == "zero-streams":
            # Announced in the transport parameters of the handshake to come.
            self._quic._local_max_streams_bidi.value = 0

    def uni(self, data):
        sid = self._quic.get_next_available_stream_id(is_unidirectional=True)
        self._quic.send_stream_data(sid, data)

    def quic_event_received(self, event):
        if isinstance(event, HandshakeCompleted) and not self.started:
            self.started = True
            control = b"\x00" + settings([(0x1, 0), (0x7, 0)])
            if mode == "settings-twice":
                control += settings([(0x1, 0)])
            self.uni(control)
            if mode == "qpack-overflow":
                # Set Dynamic Table Capacity (001xxxxx) past the client's 4096.
                self.uni(b"\x02" + prefixed(0x20, 5, 1 << 20))
            elif mode == "qpack-bomb":
                value = b"v" * 4000
                ins = prefixed(0x40, 5, 1) + b"n" + prefixed(0x00, 7, len(value)) + value
                self.uni(b"\x02" + prefixed(0x20, 5, 4096) + ins)
            elif mode == "qpack-insert":
                value = b"v" * 5000
                ins = prefixed(0x40, 5, 1) + b"n" + prefixed(0x00, 7, len(value)) + value
                self.uni(b"\x02" + prefixed(0x20, 5, 4096) + ins)
            self.transmit()
        elif isinstance(event, StreamDataReceived):
            sid = event.stream_id
            if sid % 4 != 0 or sid in self.seen:
                return
            self.seen.add(sid)
            self.answer(sid)

    def answer(self, sid):
        global answered
        q = self._quic
        if mode == "data-first":
            q.send_stream_data(sid, frame(0x0, b"abc"), end_stream=True)
        elif mode == "h2-frame":
            q.send_stream_data(sid, HEADERS_200 + frame(0x6, b"12345678"), end_stream=True)
        elif mode == "trailer-pseudo":
            trailers = frame(0x1, bytes([0x00, 0x00, 0x5F, 0x1D, 0x01]) + b"1" + STATUS_200[2:])
            q.send_stream_data(sid, HEADERS_200 + frame(0x0, b"ok") + trailers, end_stream=True)
        elif mode == "truncated":
            q.send_stream_data(sid, HEADERS_200 + varint(0x0) + varint(100) + b"abc", end_stream=True)
        elif mode == "huge-frame":
            q.send_stream_data(sid, varint(0x1) + varint(1 << 30) + STATUS_200)
            self.dribble(sid, 200)
        elif mode == "static-bomb":
            # accept-encoding: gzip, deflate, br (static 31): 64 bytes each as RFC 9204 counts.
            section = STATUS_200 + bytes([0xC0 | 31]) * 2000
            q.send_stream_data(sid, frame(0x1, section), end_stream=True)
        elif mode == "qpack-bomb":
            # Required Insert Count 1 (encoded 1 % (2 * 128) + 1 = 2 for a 4096 table), Base 1
            # (delta 0), `:status 200`, then 100 x the dynamic entry at relative index 0.
            section = bytes([0x02, 0x00, 0xC0 | 25]) + b"\x80" * 100
            q.send_stream_data(sid, frame(0x1, section), end_stream=True)
        elif mode == "never-inserted":
            # As qpack-bomb's section, on a connection that inserts nothing.
            q.send_stream_data(sid, frame(0x1, bytes([0x02, 0x00, 0xC0 | 25, 0x80])))
        answered += 1
        print(f"request {answered}", flush=True)
        self.transmit()

    def dribble(self, sid, left):
        if left == 0 or self._quic._close_event is not None:
            return
        try:
            self._quic.send_stream_data(sid, b"\x00" * 16384)
        except Exception:
            return
        self.transmit()
        asyncio.get_event_loop().call_later(0.01, self.dribble, sid, left - 1)


async def main():
    config = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN)
    self_signed(config)
    server = await serve("127.0.0.1", 0, configuration=config, create_protocol=Handler)
    port = server._transport.get_extra_info("sockname")[1]
    print(f"port {port}", flush=True)
    await asyncio.Future()


if __name__ == "__main__":
    mode = sys.argv[1]
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
