"""A hostile HTTP/3 client for barrage serve's tests (crates/server/tests/it/h3_hostile.rs):
aioquic's QUIC with HTTP/3 written by hand, so that a request can break the protocol one way.

  h3_hostile_client.py HOST PORT MODE

Connects (the certificate is not verified), opens its control stream (SETTINGS) unless the mode
says otherwise, sends one request stream broken as MODE says, and prints what the server did:
"closed CODE" (the connection, with that error code), "reset CODE" (the request stream),
"response STATUS" (a HEADERS frame came back: 431, 400, 200 or ?) or
"nothing" (10 s passed). MODE:

  data-first      a DATA frame before the HEADERS
  h2-frame        HEADERS (GET /), then frame type 0x6 (HTTP/2's PING, reserved in HTTP/3)
  settings-twice  the control stream carries SETTINGS twice (the request is a plain GET /)
  huge-frame      a HEADERS frame announcing 1 GiB, its payload dribbled 16 KiB at a time
  static-bomb     a field section of 2,000 one-byte static references (128 KB decoded)
  qpack-dynamic   a field section that refers to the dynamic table (the server announced 0)
  trailer-pseudo  POST / with a 3-byte body, then trailers carrying `:path` (a pseudo-header
                  field, which trailers may not carry): "reset CODE" expected

  cancel N        N requests cancelled as RFC 9114 §4.1.1 says (HEADERS of a GET without its
                  end, then STOP_SENDING and RESET_STREAM, H3_REQUEST_CANCELLED, in separate
                  datagrams, alternately in either order), each opened only once the server's
                  stream credit (MAX_STREAMS) allows it, then a plain GET /: prints
                  "cancelled N, then response STATUS", or "stuck after K" when the credit stopped
                  coming back for 10 s

  hold IDLE CONNS STREAMS
                  IDLE connections that only open their control stream, and CONNS connections
                  with STREAMS uploads each (POST / announcing 1 MB, one byte sent), all held
                  silent; prints "held IDLE CONNS STREAMS", then per line on stdin: "round" sends
                  one more byte on every upload and prints "sent K" (K bytes), "quit" closes every
                  connection (H3_NO_ERROR) and exits

Or, without a connection of its own: `h3_hostile_client.py HOST PORT initials N` sends the first
datagram (an Initial with a ClientHello) of N connection attempts from one UDP socket, reads
nothing and never completes one, then prints "sent N".
"""

import asyncio
import contextlib
import resource
import socket
import ssl
import sys
import time

from aioquic.asyncio.client import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.connection import QuicConnection
from aioquic.quic.events import ConnectionTerminated, StreamDataReceived, StreamReset


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


SETTINGS = frame(0x4, b"")
# Required Insert Count 0, Base 0; :method GET (17), :scheme https (23), :path / (1), then
# :authority as a literal with a static name reference (0101 N=0, index 0) "x".
GET = bytes([0x00, 0x00, 0xC0 | 17, 0xC0 | 23, 0xC0 | 1, 0x50, 0x01]) + b"x"


H3_REQUEST_CANCELLED = 0x10C


def get_head(path):
    # As GET, with :path a literal with a static name reference (0101 N=0, index 1).
    p = path.encode()
    return bytes([0x00, 0x00, 0xC0 | 17, 0xC0 | 23, 0x51, len(p)]) + p + bytes([0x50, 0x01]) + b"x"


def post_head(length):
    # :method POST (static 20), :scheme https (23), :path / (1), :authority "x", then
    # content-length as a literal with a static name reference (index 4).
    digits = str(length).encode()
    return bytes([0x00, 0x00, 0xC0 | 20, 0xC0 | 23, 0xC0 | 1, 0x50, 0x01]) + b"x" + bytes(
        [0x54, len(digits)]
    ) + digits


class Client(QuicConnectionProtocol):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.outcome = asyncio.get_event_loop().create_future()
        self.request = None

    def settle(self, what):
        if not self.outcome.done():
            self.outcome.set_result(what)

    def quic_event_received(self, event):
        if isinstance(event, ConnectionTerminated):
            self.settle(f"closed {event.error_code:#x}")
        elif isinstance(event, StreamReset) and event.stream_id == self.request:
            self.settle(f"reset {event.error_code:#x}")
        elif isinstance(event, StreamDataReceived) and event.stream_id == self.request:
            # The response's HEADERS frame (type 0x1 first): its status, from the section's
            # bytes (the server's QPACK is static-only; a status outside the static table is a
            # literal with its digits as they are).
            if event.data[:1] == b"\x01":
                digits = [d for d in (b"431", b"400", b"200") if d in event.data[:64]]
                # `:status 200` is the static table's entry 25 (0xd9 indexed), the section's
                # first line after its two prefix bytes.
                if not digits and b"\xd9" in event.data[3:6]:
                    digits = [b"200"]
                self.settle("response " + (digits[0].decode() if digits else "?"))

    def go(self, mode):
        q = self._quic
        control = b"\x00" + SETTINGS
        if mode == "settings-twice":
            control += SETTINGS
        q.send_stream_data(q.get_next_available_stream_id(is_unidirectional=True), control)
        sid = self.request = q.get_next_available_stream_id()
        if mode == "data-first":
            q.send_stream_data(sid, frame(0x0, b"abc") + frame(0x1, GET), end_stream=True)
        elif mode == "h2-frame":
            q.send_stream_data(sid, frame(0x1, GET) + frame(0x6, b"12345678"), end_stream=True)
        elif mode == "settings-twice":
            q.send_stream_data(sid, frame(0x1, GET), end_stream=True)
        elif mode == "huge-frame":
            q.send_stream_data(sid, varint(0x1) + varint(1 << 30) + GET)
            self.dribble(sid, 400)
        elif mode == "static-bomb":
            q.send_stream_data(sid, frame(0x1, GET + bytes([0xC0 | 31]) * 2000), end_stream=True)
        elif mode == "trailer-pseudo":
            # Trailers: :path (static index 1), a pseudo-header field.
            trailers = bytes([0x00, 0x00, 0xC0 | 1])
            q.send_stream_data(
                sid,
                frame(0x1, post_head(3)) + frame(0x0, b"abc") + frame(0x1, trailers),
                end_stream=True,
            )
        elif mode == "qpack-dynamic":
            # Required Insert Count 1 (encoded 2), Base 1, an indexed dynamic line (index 0).
            q.send_stream_data(sid, frame(0x1, bytes([0x02, 0x00, 0x80]) + GET[2:]), end_stream=True)
        self.transmit()

    def dribble(self, sid, left):
        if left == 0 or self.outcome.done():
            return
        self._quic.send_stream_data(sid, b"\x00" * 16384)
        self.transmit()
        asyncio.get_event_loop().call_later(0.005, self.dribble, sid, left - 1)


    def control(self):
        q = self._quic
        q.send_stream_data(q.get_next_available_stream_id(is_unidirectional=True), b"\x00" + SETTINGS)
        self.transmit()

    async def credit(self, sid, until):
        # Request stream `sid` may be opened once the server's MAX_STREAMS allows it.
        while sid // 4 >= self._quic._remote_max_streams_bidi:
            if time.monotonic() > until:
                return False
            await asyncio.sleep(0.002)
        return True

    async def cancel(self, n, path=None):
        # With a path: Rapid Reset, each request whole (FIN) in a datagram of its own and
        # cancelled by the next two, answered or not meanwhile.
        q = self._quic
        self.control()
        head = get_head(path) if path else GET
        for i in range(n):
            sid = q.get_next_available_stream_id()
            if not await self.credit(sid, time.monotonic() + 10):
                return f"stuck after {i}"
            q.send_stream_data(sid, frame(0x1, head), end_stream=path is not None)
            self.transmit()
            first, second = (q.stop_stream, q.reset_stream)
            if i % 2:
                first, second = second, first
            first(sid, H3_REQUEST_CANCELLED)
            self.transmit()
            second(sid, H3_REQUEST_CANCELLED)
            self.transmit()
        sid = self.request = q.get_next_available_stream_id()
        if not await self.credit(sid, time.monotonic() + 10):
            return f"stuck after {n}"
        q.send_stream_data(sid, frame(0x1, GET), end_stream=True)
        self.transmit()
        try:
            what = await asyncio.wait_for(asyncio.shield(self.outcome), 10)
        except asyncio.TimeoutError:
            what = "nothing"
        return f"cancelled {n}, then {what}"


async def hold(host, port, idle, conns, streams):
    cfg = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, idle_timeout=600)
    cfg.verify_mode = ssl.CERT_NONE
    # One socket per connection: the soft limit on open files is raised to the hard one.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    async with contextlib.AsyncExitStack() as stack:
        held = []

        async def one():
            c = await stack.enter_async_context(
                connect(host, port, configuration=cfg, create_protocol=Client)
            )
            c.control()
            held.append(c)
            return c

        # In batches, well under the server's handshakes per address.
        for at in range(0, idle, 50):
            await asyncio.gather(*(one() for _ in range(min(50, idle - at))))
        uploads = []
        for _ in range(conns):
            c = await one()
            q = c._quic
            for _ in range(streams):
                sid = q.get_next_available_stream_id()
                if not await c.credit(sid, time.monotonic() + 10):
                    raise SystemExit(f"no credit for upload stream {sid}")
                q.send_stream_data(sid, frame(0x1, post_head(1_000_000)) + varint(0x0) + varint(1_000_000) + b"u")
                uploads.append((c, sid))
            c.transmit()
        print(f"held {idle} {conns} {streams}", flush=True)
        reader = asyncio.StreamReader()
        await asyncio.get_event_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), sys.stdin
        )
        while True:
            line = (await reader.readline()).decode().strip()
            if line == "round":
                for c, sid in uploads:
                    c._quic.send_stream_data(sid, b"u")
                for c in {id(c): c for c, _ in uploads}.values():
                    c.transmit()
                print(f"sent {len(uploads)}", flush=True)
            else:
                break
        for c in held:
            c.close(error_code=0x100)
        for c in held:
            await c.wait_closed()


async def hostile(host, port, mode):
    cfg = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN)
    cfg.verify_mode = ssl.CERT_NONE
    if mode.startswith("cancel ") and len(mode.split()) > 2:
        # Rapid Reset's client lets the server send as much as it likes: 2 MiB a stream,
        # 1 GiB in all (aioquic's defaults, 1 MiB in all, would bound it for the server).
        cfg.max_data = 1 << 30
        cfg.max_stream_data = 1 << 21
    async with connect(host, port, configuration=cfg, create_protocol=Client) as c:
        if mode.startswith("cancel "):
            words = mode.split()
            path = words[2] if len(words) > 2 else None
            print(await c.cancel(int(words[1]), path), flush=True)
            return
        c.go(mode)
        try:
            what = await asyncio.wait_for(asyncio.shield(c.outcome), 10)
        except asyncio.TimeoutError:
            what = "nothing"
        print(what, flush=True)


def initials(host, port, n):
    cfg = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN)
    cfg.verify_mode = ssl.CERT_NONE
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sent = 0
    for _ in range(n):
        q = QuicConnection(configuration=cfg)
        q.connect((host, port), now=time.time())
        data, _ = q.datagrams_to_send(now=time.time())[0]
        sock.sendto(data, (host, port))
        sent += 1
        if sent % 200 == 0:
            # The server's socket buffer is finite: a flood at a rate it reads, not a burst
            # the kernel drops before the server sees it.
            time.sleep(0.01)
    print(f"sent {sent}", flush=True)


if __name__ == "__main__":
    host, port, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if mode == "initials":
        initials(host, port, int(sys.argv[4]))
    elif mode == "cancel":
        asyncio.run(hostile(host, port, " ".join(["cancel"] + sys.argv[4:])))
    elif mode == "hold":
        asyncio.run(hold(host, port, *map(int, sys.argv[4:7])))
    else:
        asyncio.run(hostile(host, port, mode))
